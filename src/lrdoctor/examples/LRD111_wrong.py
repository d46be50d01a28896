import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,))), batch_size=64)
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

for epoch in range(2):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        # wrong: float16 gradients, no loss scaling: small gradients flush to zero
        loss.backward()
        optimizer.step()
