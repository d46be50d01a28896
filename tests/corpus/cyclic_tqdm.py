"""CyclicLR stepped per batch inside a tqdm progress bar (correct)."""
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm


def train(model, dataset, epochs=6):
    train_loader = DataLoader(dataset, batch_size=100, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CyclicLR(optimizer, base_lr=1e-4, max_lr=1e-2,
                                                  step_size_up=2 * len(train_loader),
                                                  mode="triangular2")
    for epoch in range(epochs):
        pbar = tqdm(train_loader, desc=f"epoch {epoch}")
        for i, (x, y) in enumerate(pbar):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            pbar.set_postfix(loss=loss.item(), lr=scheduler.get_last_lr()[0])
