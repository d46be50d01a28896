"""Entry point: a per-batch OneCycleLR handed to an engine that steps per epoch (bug in engine)."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from engine import Trainer

EPOCHS = 20

dataset = TensorDataset(torch.randn(10_000, 32), torch.randn(10_000, 1))
loader = DataLoader(dataset, batch_size=64, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=EPOCHS,
                                                steps_per_epoch=len(loader))
Trainer(model, optimizer, scheduler, loader).fit(EPOCHS)
