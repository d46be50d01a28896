import torch
from runners import ClassifyLoop


def main(settings, net, batches):
    params = [p for p in net.parameters() if p.requires_grad]
    optimizer = settings.build("optimizer", torch.optim, params)
    lr_scheduler = settings.build("lr_scheduler", torch.optim.lr_scheduler, optimizer)
    ClassifyLoop(net, optimizer, settings, batches, lr_scheduler=lr_scheduler).train()
