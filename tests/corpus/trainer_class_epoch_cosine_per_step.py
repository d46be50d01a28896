"""A Trainer class whose cosine is sized in epochs but stepped in training_step (bug: LRD002)
and whose checkpoints forget the scheduler (bug: LRD007)."""
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, dataset, epochs=50, lr=0.1):
        self.model = model
        self.epochs = epochs
        self.loader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=4)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer,
                                                                    T_max=self.epochs)

    def training_step(self, images, labels):
        self.optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(self.model(images), labels)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()  # expect: LRD002
        return loss

    def fit(self):
        for epoch in range(self.epochs):
            for images, labels in self.loader:
                loss = self.training_step(images, labels)
            print(epoch, loss.item())
            torch.save({  # expect: LRD007
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "epoch": epoch,
            }, "last.pt")
