"""Two-phase fine-tuning: the second phase builds a new optimizer *and* scheduler (correct)."""
import torch
import torchvision
from torch.utils.data import DataLoader


def run_phase(model, loader, optimizer, scheduler, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()


def main(dataset):
    model = torchvision.models.resnet50(weights="IMAGENET1K_V2")
    model.fc = torch.nn.Linear(2048, 37)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    for p in model.parameters():
        p.requires_grad = False
    for p in model.fc.parameters():
        p.requires_grad = True
    optimizer = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.3)
    run_phase(model, loader, optimizer, scheduler, epochs=5)
    for p in model.parameters():
        p.requires_grad = True
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    run_phase(model, loader, optimizer, scheduler, epochs=10)
