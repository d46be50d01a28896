"""Detection training in the style of YOLOv5 (correct: a manual warm-up overrides the LR of a
LambdaLR, which recomputes from base_lrs at its next step; resume rebuilds it via last_epoch).
Its one bug: the checkpoint leaves out the GradScaler switched by `opt.amp`, so with AMP on a
resume restarts the scale at 65536 and skips updates again."""
import math
from copy import deepcopy

import numpy as np
import torch
from torch.optim import lr_scheduler


def train(hyp, opt, model, train_loader, epochs, start_epoch=0):
    nb = len(train_loader)
    nw = max(round(hyp["warmup_epochs"] * nb), 100)
    optimizer = torch.optim.SGD(model.parameters(), lr=hyp["lr0"], momentum=hyp["momentum"], nesterov=True)
    lf = lambda x: (1 - x / epochs) * (1.0 - hyp["lrf"]) + hyp["lrf"]  # noqa: E731
    scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
    scheduler.last_epoch = start_epoch - 1
    scaler = torch.amp.GradScaler("cuda", enabled=opt.amp)
    for epoch in range(start_epoch, epochs):
        model.train()
        optimizer.zero_grad()
        for i, (imgs, targets) in enumerate(train_loader):
            ni = i + nb * epoch
            if ni <= nw:
                xi = [0, nw]
                for j, x in enumerate(optimizer.param_groups):
                    x["lr"] = np.interp(ni, xi, [hyp["warmup_bias_lr"] if j == 0 else 0.0, x["initial_lr"] * lf(epoch)])
            with torch.autocast("cuda", enabled=opt.amp):
                loss = model(imgs, targets)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        scheduler.step()
        ckpt = {"epoch": epoch, "model": deepcopy(model).half(), "optimizer": optimizer.state_dict(),
                "opt": vars(opt)}
        torch.save(ckpt, "last.pt")  # expect: LRD007
