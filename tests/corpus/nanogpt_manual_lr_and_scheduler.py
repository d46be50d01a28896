"""nanoGPT-style manual warm-up bolted onto a cosine scheduler (bug: LRD008)."""
import math

import torch

learning_rate = 3e-4
warmup_iters = 500
max_iters = 20000
batch_size = 32


def get_batch(data, block_size=256):
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x.cuda(), y.cuda()


def train(model, data):
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max_iters)
    for it in range(max_iters):
        if it < warmup_iters:
            for g in optimizer.param_groups:
                g["lr"] = learning_rate * (it + 1) / warmup_iters  # expect: LRD008
        xb, yb = get_batch(data)
        logits, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if it % 100 == 0:
            print(f"step {it}: loss {loss.item():.4f} ppl {math.exp(loss.item()):.1f}")
