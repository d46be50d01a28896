"""Training engine of a small project: steps the scheduler it is given once per epoch."""
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader

    def run_epoch(self):
        for batch, target in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(batch), target).backward()
            self.optimizer.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            self.run_epoch()
            self.scheduler.step()  # expect: LRD003
