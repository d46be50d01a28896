"""Scaled backward, but the optimizer is stepped directly (bug: LRD109)."""
import torch
from torch.utils.data import DataLoader


class SegTrainer:
    def __init__(self, model, dataset, lr=1e-3):
        self.model = model.cuda()
        self.loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=4)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cuda")

    def train_epoch(self):
        self.model.train()
        for image, mask in self.loader:
            image, mask = image.cuda(), mask.cuda()
            with torch.autocast("cuda", dtype=torch.float16):
                logits = self.model(image)
                loss = torch.nn.functional.cross_entropy(logits, mask)
            self.optimizer.zero_grad()
            self.scaler.scale(loss).backward()
            self.optimizer.step()  # expect: LRD109
            self.scaler.update()

    def fit(self, epochs):
        for _ in range(epochs):
            self.train_epoch()
