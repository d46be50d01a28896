"""Stochastic weight averaging with a hand-off from cosine to SWALR (correct: the two
schedulers step in exclusive branches)."""
import torch
from torch.optim.swa_utils import SWALR, AveragedModel
from torch.optim.lr_scheduler import CosineAnnealingLR

def run(model, loader, loss_fn, swa_start=75):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    swa_model = AveragedModel(model)
    scheduler = CosineAnnealingLR(optimizer, T_max=100)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(100):
        for input, target in loader:
            optimizer.zero_grad()
            loss_fn(model(input), target).backward()
            optimizer.step()
        if epoch > swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()
    torch.optim.swa_utils.update_bn(loader, swa_model)
