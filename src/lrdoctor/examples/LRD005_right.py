import torch
from torch.utils.data import DataLoader, TensorDataset

import lrdoctor

torch.manual_seed(0)
data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1) * 3)
loader = DataLoader(data, batch_size=16, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
# steps only after real updates: GradScaler's skipped steps no longer move the schedule
scheduler = lrdoctor.SkipAwareScheduler(
    torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=3 * len(loader))
)
scaler = torch.amp.GradScaler("cpu")  # "cuda" on a GPU; starts at scale 65536

for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # skipped while the scaled gradients overflow
        scaler.update()
        scheduler.step()  # a no-op after a skipped update
