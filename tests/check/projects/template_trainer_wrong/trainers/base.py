import torch


class BaseTrainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs

    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch(epoch)
            self.save(epoch)

    def train_epoch(self, epoch):
        raise NotImplementedError

    def save(self, epoch):
        torch.save({"model": self.model.state_dict(), "epoch": epoch}, "last.pt")
