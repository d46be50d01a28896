"""ImageNet training written before PyTorch 1.1 changed the scheduler order (bug: LRD001)."""
import argparse

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

parser = argparse.ArgumentParser()
parser.add_argument("data")
parser.add_argument("--epochs", default=90, type=int)
parser.add_argument("--lr", default=0.1, type=float)
parser.add_argument("--batch-size", default=256, type=int)


def train(loader, model, criterion, optimizer):
    model.train()
    for images, target in loader:
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    args = parser.parse_args()
    model = models.resnet50()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60, 80], gamma=0.1)
    dataset = datasets.ImageFolder(args.data, transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.ToTensor()]))
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    for epoch in range(args.epochs):
        scheduler.step()  # expect: LRD001
        train(train_loader, model, criterion, optimizer)
        print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.5f}")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch}, "ckpt.pt")


if __name__ == "__main__":
    main()
