"""MNIST where the scheduler was moved into train() (bug: LRD002, stepped per batch)."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
from torchvision import datasets, transforms


def build_model():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def train(model, device, train_loader, optimizer, scheduler, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()
        scheduler.step()  # expect: LRD002
        if batch_idx % 100 == 0:
            print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
    train_loader = torch.utils.data.DataLoader(data, batch_size=128, shuffle=True)
    model = build_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
    for epoch in range(args.epochs):
        train(model, device, train_loader, optimizer, scheduler, epoch)


if __name__ == "__main__":
    main()
