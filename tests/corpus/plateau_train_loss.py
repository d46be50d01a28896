"""ReduceLROnPlateau fed the training loss although a validation loss is computed (bug: LRD004)."""
import torch
from torch.utils.data import DataLoader


def validate(model, loader, criterion):
    model.eval()
    with torch.no_grad():
        return sum(criterion(model(x), y).item() for x, y in loader) / len(loader)


def train(model, train_set, val_set, epochs=50):
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3, factor=0.2)
    train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=512)
    for epoch in range(epochs):
        model.train()
        running_loss = 0.0
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        val_loss = validate(model, val_loader, criterion)
        print(f"epoch {epoch}: train {running_loss / len(train_loader):.3f} val {val_loss:.3f}")
        scheduler.step(running_loss)  # expect: LRD004
