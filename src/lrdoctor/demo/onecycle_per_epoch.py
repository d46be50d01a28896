"""OneCycleLR sized for every batch of 10 epochs but stepped once per epoch: the warm-up never
finishes. Pass --fixed to step it after every optimizer step."""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

fixed = "--fixed" in sys.argv
epochs = 10
torch.manual_seed(0)
x_all = torch.randn(2048, 16)
y_all = x_all @ torch.randn(16, 1) + 0.1 * torch.randn(2048, 1)
loader = DataLoader(TensorDataset(x_all, y_all), batch_size=64, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.05, epochs=epochs, steps_per_epoch=len(loader)
)

for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if fixed:
            scheduler.step()
    if not fixed:
        scheduler.step()
print(f"final lr {scheduler.get_last_lr()[0]:.3g} (max_lr 0.05)")
