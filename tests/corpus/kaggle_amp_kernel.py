"""A Kaggle-style fine-tuning kernel with float16 AMP (bugs: deprecated torch.cuda.amp,
LRD101; a per-batch scheduler stepping on skipped updates, LRD005)."""
import torch
from tqdm import tqdm

def train_fn(model, data_loader, optimizer, scheduler, device, scaler):
    model.train()
    tk0 = tqdm(data_loader, total=len(data_loader))
    for bi, d in enumerate(tk0):
        ids = d["ids"].to(device)
        targets = d["targets"].to(device)
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: LRD101
            outputs = model(ids)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()  # expect: LRD005

def run(model, train_data_loader, epochs, device):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5)
    num_train_steps = int(len(train_data_loader) * epochs)
    from transformers import get_linear_schedule_with_warmup
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=0, num_training_steps=num_train_steps)
    scaler = torch.cuda.amp.GradScaler()  # expect: LRD101
    for epoch in range(epochs):
        train_fn(model, train_data_loader, optimizer, scheduler, device, scaler)
        torch.save(model.state_dict(), "model.bin")
