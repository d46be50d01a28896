import torch
from models.factory import build_model

model = build_model(16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for _ in range(10):
    loss = model(torch.randn(8, 16, )).float().sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
