"""An MNIST-sized classifier (60,000 samples, 938 batches of 64) whose StepLR is stepped in the
batch loop. Pass --fixed to step it once per epoch."""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

fixed = "--fixed" in sys.argv
torch.manual_seed(0)
images = torch.randn(60_000, 32)  # stand-in for flattened digits, kept small for speed
labels = (images[:, :10].argmax(dim=1))
train_loader = DataLoader(TensorDataset(images, labels), batch_size=64, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)

for epoch in range(2):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if not fixed:
            scheduler.step()
    if fixed:
        scheduler.step()
    print(f"epoch {epoch + 1}: loss {loss.item():.3f}  lr {scheduler.get_last_lr()[0]:.3g}")
