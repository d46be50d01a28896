"""float16 AMP where the per-batch scheduler steps even on skipped updates (bug: LRD005)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def fit(model: nn.Module, dataset, epochs: int = 10, max_lr: float = 3e-3):
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=max_lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    scaler = torch.amp.GradScaler("cuda")
    model.cuda().train()
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()  # expect: LRD005
    return model
