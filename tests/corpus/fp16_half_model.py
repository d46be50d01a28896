"""Pure float16 training with .half(): Adam's default eps vanishes and BCELoss takes
probabilities (bugs: LRD102, LRD103)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))

    def forward(self, x):
        return torch.sigmoid(self.body(x))


def train(dataset, epochs=10):
    model = Detector().cuda().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)  # expect: LRD102
    criterion = nn.BCELoss()  # expect: LRD103
    loader = DataLoader(dataset, batch_size=256, shuffle=True)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda().half(), y.cuda().half()
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
