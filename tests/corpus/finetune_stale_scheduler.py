"""Unfreezing rebuilds the optimizer but keeps the old scheduler (bug: LRD014)."""
import torch
import torchvision
from torch.utils.data import DataLoader

EPOCHS = 20
UNFREEZE_AT = 5


def main(dataset):
    model = torchvision.models.convnext_tiny(weights="DEFAULT")
    model.classifier[2] = torch.nn.Linear(768, 10)
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    model.features.requires_grad_(False)
    optimizer = torch.optim.AdamW(model.classifier.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
    for epoch in range(EPOCHS):
        if epoch == UNFREEZE_AT:
            model.features.requires_grad_(True)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()  # expect: LRD014
