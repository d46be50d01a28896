import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(2048, 32)
y = x @ torch.randn(32, 1) * 500  # targets in the thousands
loader = DataLoader(TensorDataset(x, y), batch_size=512)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
model = model.half()  # float16 weights and gradients, and no GradScaler to catch an overflow
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)

for epoch in range(2):
    for xb, yb in loader:
        # wrong: a summed loss over 512 samples makes gradients past float16's 65504: inf,
        # and optimizer.step() writes it into the weights
        loss = torch.nn.functional.mse_loss(model(xb.half()).float(), yb, reduction="sum")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
