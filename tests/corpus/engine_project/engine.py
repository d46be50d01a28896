"""Training engine of a small project (correct)."""
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader, val_loader, device="cuda"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device

    def train_one_epoch(self):
        self.model.train()
        for inputs, targets in self.train_loader:
            inputs, targets = inputs.to(self.device), targets.to(self.device)
            self.optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct = 0
        for inputs, targets in self.val_loader:
            preds = self.model(inputs.to(self.device)).argmax(1)
            correct += (preds == targets.to(self.device)).sum().item()
        return correct / len(self.val_loader.dataset)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_one_epoch()
            val_acc = self.evaluate()
            self.scheduler.step()
            print(f"epoch {epoch}: val_acc {val_acc:.3f}")
