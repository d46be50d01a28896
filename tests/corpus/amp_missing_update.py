"""GradScaler stepped but never updated (bug: LRD110)."""
import torch


def train_step(model, batch, optimizer, scaler):
    inputs, targets = batch
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # expect: LRD110
    return loss.detach()


def main(model, loader, epochs=5):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for batch in loader:
            train_step(model, batch, optimizer, scaler)
