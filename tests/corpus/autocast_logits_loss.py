"""Binary classification under autocast with logits and BCEWithLogitsLoss (correct)."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


def train(model, dataset, epochs=5):
    loader = DataLoader(dataset, batch_size=128, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    scaler = torch.amp.GradScaler("cuda")
    criterion = torch.nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(x.cuda())
                loss = criterion(logits, y.cuda().float())
                log_p = F.logsigmoid(logits)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
        print(epoch, log_p.mean().item())
