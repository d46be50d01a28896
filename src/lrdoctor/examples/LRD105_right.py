import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(2048, 32)
y = x @ torch.randn(32, 1) * 500  # targets in the thousands
loader = DataLoader(TensorDataset(x, y), batch_size=512)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)  # float32 master weights

for epoch in range(2):
    for xb, yb in loader:
        # bfloat16 compute under autocast; weights and gradients stay float32
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(xb)
        loss = torch.nn.functional.mse_loss(out.float(), yb, reduction="sum")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
