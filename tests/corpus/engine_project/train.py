"""Entry point: builds the objects and hands them to engine.Trainer (correct)."""
import argparse

import torch
import torchvision
from torch.utils.data import DataLoader

from engine import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    tf = torchvision.transforms.ToTensor()
    train_set = torchvision.datasets.CIFAR10("data", train=True, download=True, transform=tf)
    val_set = torchvision.datasets.CIFAR10("data", train=False, transform=tf)
    train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=256)
    model = torchvision.models.resnet18(num_classes=10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[15, 25], gamma=0.1)
    Trainer(model, optimizer, scheduler, train_loader, val_loader).fit(args.epochs)


if __name__ == "__main__":
    main()
