"""Gradient accumulation where the scheduler steps every micro-batch (bug: LRD017)."""
import torch
from torch.utils.data import DataLoader

grad_accum = 4


def run(model, dataset, epochs=10):
    loader = DataLoader(dataset, batch_size=16, shuffle=True, drop_last=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    total_updates = epochs * len(loader) // grad_accum
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 200) * max(0.0, 1 - step / total_updates))
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(x), y) / grad_accum
            loss.backward()
            if (i + 1) % grad_accum == 0:
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()  # expect: LRD017
