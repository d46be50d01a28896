"""float16 AMP with a per-batch OneCycleLR, stepped only when the update happened (correct)."""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def train(args):
    device = torch.device("cuda")
    tf = transforms.Compose([transforms.RandomResizedCrop(160), transforms.ToTensor()])
    loader = DataLoader(datasets.ImageFolder(args.data, tf), batch_size=args.batch_size,
                        shuffle=True, num_workers=8, pin_memory=True, drop_last=True)
    model = models.resnet34(num_classes=args.num_classes).to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-5)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr,
                                                    total_steps=args.epochs * len(loader),
                                                    pct_start=0.25)
    scaler = torch.amp.GradScaler("cuda")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(args.epochs):
        model.train()
        for step, (images, labels) in enumerate(loader):
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = criterion(model(images), labels)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            scaler.step(optimizer)
            old_scale = scaler.get_scale()
            scaler.update()
            if scaler.get_scale() >= old_scale:
                scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "scaler": scaler.state_dict(),
                    "epoch": epoch}, "checkpoint.pt")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--epochs", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.4)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--num-classes", type=int, default=1000)
    train(p.parse_args())
