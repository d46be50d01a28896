import os

import torch
from checkpointing import load_checkpoint, save_checkpoint
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)
start = 0
if os.path.exists("last.pt"):
    start = load_checkpoint("last.pt", model, optimizer=optimizer)
for epoch in range(start, 90):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
    save_checkpoint({"epoch": epoch + 1, "model": model.state_dict(),
                     "optimizer": optimizer.state_dict()}, "last.pt")
