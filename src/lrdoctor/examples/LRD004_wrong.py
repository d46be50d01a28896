import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train = DataLoader(TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,))), batch_size=32)
val = DataLoader(TensorDataset(torch.randn(128, 16), torch.randint(0, 4, (128,))), batch_size=64)
model = torch.nn.Linear(16, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)  # mode="min"

for epoch in range(10):
    model.train()
    for x, y in train:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_acc = sum((model(x).argmax(1) == y).sum().item() for x, y in val) / 128
    # wrong: mode="min" on an accuracy cuts the LR every time accuracy improves
    scheduler.step(val_acc)
