import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = torch.nn.Linear(16, 1)
accum_steps = 4
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total_updates = 3 * len(loader) // accum_steps
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.01, total_iters=total_updates)

for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()  # wrong: every micro-batch, 4x faster than the updates
