import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(512, 20)
y = (x[:, :4].sum(1, keepdim=True) > 0).float()  # easy, separable labels
loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)).half()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)

for epoch in range(4):
    for xb, yb in loader:
        xb, yb = xb.half(), yb.half()
        prob = torch.sigmoid(model(xb))
        # wrong: once the model is confident, prob rounds to 0 or 1 in float16 and log gives -inf
        loss = -(yb * torch.log(prob) + (1 - yb) * torch.log(1 - prob)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
