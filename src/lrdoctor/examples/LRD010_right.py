import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
batch_size = 4
data = TensorDataset(torch.randn(256, 16), torch.randn(256, 1))
loader = DataLoader(data, batch_size=batch_size, shuffle=True)
model = torch.nn.Linear(16, 1)
epochs = 8
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# right: one scheduler step per batch, len(loader) batches per epoch
total_steps = len(loader) * epochs
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps)

for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
