"""A Trainer class sharing optimizer and scheduler through self (correct: the cosine is sized
in optimizer steps and stepped per batch)."""
import math

import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, train_set, epochs=10, lr=3e-4, batch_size=64):
        self.model = model
        self.epochs = epochs
        self.train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
        self.total_steps = epochs * len(self.train_loader)
        warmup = torch.optim.lr_scheduler.LinearLR(self.optimizer, start_factor=0.01,
                                                   total_iters=500)
        cosine = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer,
                                                            T_max=self.total_steps - 500)
        self.scheduler = torch.optim.lr_scheduler.SequentialLR(
            self.optimizer, schedulers=[warmup, cosine], milestones=[500])
        self.step = 0

    def training_step(self, batch):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.model(x), y)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        return loss.item()

    def train_epoch(self, epoch):
        self.model.train()
        total = 0.0
        for batch in self.train_loader:
            total += self.training_step(batch)
        print(f"epoch {epoch}: loss {total / len(self.train_loader):.4f} "
              f"lr {self.scheduler.get_last_lr()[0]:.2e} ppl {math.exp(total / len(self.train_loader)):.1f}")

    def save(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "step": self.step}, path)

    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch(epoch)
            self.save(f"ckpt_{epoch}.pt")
