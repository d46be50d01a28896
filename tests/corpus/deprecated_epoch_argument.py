"""Segmentation training passing the epoch to scheduler.step() (bug: LRD006)."""
import torch
from torch.utils.data import DataLoader


def poly(epoch, max_epochs=150, power=0.9):
    return (1 - epoch / max_epochs) ** power


def main(model, dataset, max_epochs=150):
    loader = DataLoader(dataset, batch_size=16, shuffle=True, num_workers=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=poly)
    for epoch in range(max_epochs):
        model.train()
        for image, target in loader:
            output = model(image)["out"]
            loss = torch.nn.functional.cross_entropy(output, target, ignore_index=255)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step(epoch)  # expect: LRD006
