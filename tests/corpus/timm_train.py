"""Image classification in the style of timm's train.py (correct: step_update per update,
step(epoch) per epoch, unscale before clipping)."""
import argparse
import time

import torch
import torch.nn as nn
from timm import create_model
from timm.data import create_dataset, create_loader
from timm.optim import create_optimizer_v2
from timm.scheduler import create_scheduler_v2

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="resnet50")
parser.add_argument("--epochs", type=int, default=300)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--clip-grad", type=float, default=None)
parser.add_argument("--amp", action="store_true")


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, lr_scheduler=None,
                    loss_scaler=None):
    model.train()
    num_batches_per_epoch = len(loader)
    num_updates = epoch * num_batches_per_epoch
    for batch_idx, (input, target) in enumerate(loader):
        with torch.autocast("cuda", enabled=args.amp):
            output = model(input)
            loss = loss_fn(output, target)
        optimizer.zero_grad()
        if loss_scaler is not None:
            loss_scaler.scale(loss).backward()
            if args.clip_grad is not None:
                loss_scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
            loss_scaler.step(optimizer)
            loss_scaler.update()
        else:
            loss.backward()
            if args.clip_grad is not None:
                nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
            optimizer.step()
        num_updates += 1
        if lr_scheduler is not None:
            lr_scheduler.step_update(num_updates=num_updates)
    return {"loss": loss.item()}


def main():
    args = parser.parse_args()
    model = create_model(args.model, pretrained=False, num_classes=1000).cuda()
    optimizer = create_optimizer_v2(model, opt="adamw", lr=args.lr, weight_decay=0.05)
    loss_scaler = torch.amp.GradScaler("cuda") if args.amp else None
    dataset_train = create_dataset("imagenet", root="data", split="train", is_training=True)
    loader_train = create_loader(dataset_train, input_size=(3, 224, 224), batch_size=128,
                                 is_training=True)
    lr_scheduler, num_epochs = create_scheduler_v2(
        optimizer, sched="cosine", num_epochs=args.epochs,
        updates_per_epoch=len(loader_train), warmup_epochs=5,
    )
    loss_fn = nn.CrossEntropyLoss().cuda()
    for epoch in range(num_epochs):
        start = time.time()
        metrics = train_one_epoch(epoch, model, loader_train, optimizer, loss_fn, args,
                                  lr_scheduler=lr_scheduler, loss_scaler=loss_scaler)
        if lr_scheduler is not None:
            lr_scheduler.step(epoch + 1, metrics["loss"])
        print(f"epoch {epoch} done in {time.time() - start:.0f}s")


if __name__ == "__main__":
    main()
