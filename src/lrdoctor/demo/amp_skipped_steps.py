"""Mixed precision with GradScaler: the first updates overflow at scale 65536 and are skipped,
the scheduler steps anyway, and PyTorch blames the call order. Pass --fixed to step the
scheduler only after real updates. (CPU float16 autocast reproduces CUDA's skipped steps.)"""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

fixed = "--fixed" in sys.argv
torch.manual_seed(0)
device = "cpu"
x_all = torch.randn(2048, 16)
y_all = 3 * x_all[:, :1] + torch.randn(2048, 1)
loader = DataLoader(TensorDataset(x_all, y_all), batch_size=64, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3 * len(loader))
if fixed:  # step only after real updates (lrdoctor.SkipAwareScheduler needs no `lrdoctor run`)
    import lrdoctor

    scheduler = lrdoctor.SkipAwareScheduler(scheduler)  # type: ignore[assignment]
scaler = torch.amp.GradScaler(device)

for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast(device, dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
