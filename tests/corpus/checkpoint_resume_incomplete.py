"""Resumable training with AMP whose checkpoint drops the scheduler and the scaler
(bug: LRD007 on save and on resume)."""
import argparse
import os

import torch
from torch.utils.data import DataLoader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--resume", default="")
    args = parser.parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(128, 512), torch.nn.GELU(), torch.nn.Linear(512, 10))
    model = model.cuda()
    loader = DataLoader(torch.load("train.pt"), batch_size=256, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    scaler = torch.amp.GradScaler("cuda")
    start_epoch = 0
    if args.resume and os.path.exists(args.resume):
        checkpoint = torch.load(args.resume, map_location="cuda")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])  # expect: LRD007
        start_epoch = checkpoint["epoch"] + 1
    for epoch in range(start_epoch, args.epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
        checkpoint = {"model": model.state_dict(), "epoch": epoch}
        checkpoint["optimizer"] = optimizer.state_dict()
        torch.save(checkpoint, f"ckpt_{epoch:03d}.pt")  # expect: LRD007


if __name__ == "__main__":
    main()
