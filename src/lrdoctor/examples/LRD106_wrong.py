import torch

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
encoder = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8)).to(device)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
scaler = torch.amp.GradScaler(device)

for step in range(40):
    x = torch.randn(32, 16, device=device)
    labels = torch.randint(0, 4, (32,), device=device)
    with torch.autocast(device, dtype=torch.bfloat16):
        emb = encoder(x).float()
    # wrong: the distance of each embedding to itself is sqrt(0), whose gradient is inf:
    # every step's gradients are NaN, GradScaler skips them all and halves the scale each time
    dist = ((emb[:, None] - emb[None]) ** 2).sum(-1).sqrt()
    same = labels[:, None] == labels[None]
    loss = torch.where(same, dist, torch.relu(1.0 - dist)).mean()  # contrastive loss
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
