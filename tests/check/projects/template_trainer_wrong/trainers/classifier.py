import torch
from torch.optim.lr_scheduler import OneCycleLR

from .base import BaseTrainer


class ClassifierTrainer(BaseTrainer):
    def __init__(self, model, loader, epochs):
        super().__init__(model, loader, epochs)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scheduler = OneCycleLR(self.optimizer, max_lr=0.1,
                                    total_steps=epochs * len(loader))

    def train_epoch(self, epoch):
        for x in self.loader:
            self.optimizer.zero_grad()
            self.model(x).sum().backward()
            self.optimizer.step()
        self.scheduler.step()
