"""A timm-style loop that clips before unscaling (bug: LRD108)."""
import torch
import torch.nn as nn
from timm import create_model
from timm.scheduler import CosineLRScheduler


def train_one_epoch(epoch, model, loader, optimizer, scaler, lr_scheduler, clip_grad=1.0):
    model.train()
    num_updates = epoch * len(loader)
    for images, targets in loader:
        images, targets = images.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(images), targets, label_smoothing=0.1)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip_grad)  # expect: LRD108
        scaler.step(optimizer)
        scaler.update()
        num_updates += 1
        lr_scheduler.step_update(num_updates=num_updates)


def main(loader, epochs=100):
    model = create_model("vit_small_patch16_224", num_classes=100).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    scaler = torch.amp.GradScaler("cuda")
    lr_scheduler = CosineLRScheduler(optimizer, t_initial=epochs, warmup_t=5, lr_min=1e-6)
    for epoch in range(epochs):
        train_one_epoch(epoch, model, loader, optimizer, scaler, lr_scheduler)
        lr_scheduler.step(epoch + 1)
