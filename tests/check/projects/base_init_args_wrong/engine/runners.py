import torch
from torch.optim.lr_scheduler import StepLR

from engine import base


class ImageRunner(base.Runner):
    def __init__(self, model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=30)
        base.Runner.__init__(self, model, loader, optimizer, scheduler, epochs)

    def train_step(self, x):
        self.optimizer.zero_grad()
        self.model(x).sum().backward()
        self.optimizer.step()
