"""A warm-up and a decay scheduler both stepping the same optimizer every epoch (bug: LRD012)."""
import torch
import torchvision
from torch.utils.data import DataLoader


def main(epochs=100, warmup_epochs=5):
    model = torchvision.models.mobilenet_v3_small(num_classes=100)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, weight_decay=4e-5)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01,
                                               total_iters=warmup_epochs)
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)
    data = torchvision.datasets.CIFAR100("data", download=True,
                                         transform=torchvision.transforms.ToTensor())
    loader = DataLoader(data, batch_size=256, shuffle=True)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        warmup.step()
        decay.step()  # expect: LRD012
