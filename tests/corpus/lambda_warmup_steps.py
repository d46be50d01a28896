"""Transformer training with a LambdaLR warm-up measured in steps (correct)."""
import math

import torch
from torch.utils.data import DataLoader

D_MODEL = 512
WARMUP_STEPS = 4000


def noam(step):
    step = max(step, 1)
    return D_MODEL ** -0.5 * min(step ** -0.5, step * WARMUP_STEPS ** -1.5)


def train(model, pairs, epochs=20):
    loader = DataLoader(pairs, batch_size=64, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=noam)
    for epoch in range(epochs):
        total = 0.0
        for src, tgt in loader:
            logits = model(src, tgt[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten(),
                                                     label_smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item()
        print(f"epoch {epoch}: ppl {math.exp(total / len(loader)):.2f}")
