"""GPT training in the style of nanoGPT (correct: manual cosine LR, no scheduler object,
GradScaler unscaled before clipping, gradient accumulation over micro-steps)."""
import math
import os
import time
from contextlib import nullcontext

import numpy as np
import torch

batch_size = 12
block_size = 1024
gradient_accumulation_steps = 40
learning_rate = 6e-4
max_iters = 600000
weight_decay = 1e-1
beta1, beta2 = 0.9, 0.95
grad_clip = 1.0
warmup_iters = 2000
lr_decay_iters = 600000
min_lr = 6e-5
eval_interval = 2000
out_dir = "out"
device = "cuda"
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
ctx = nullcontext() if device == "cpu" else torch.amp.autocast(device_type="cuda", dtype=ptdtype)
data_dir = os.path.join("data", "openwebtext")


def get_batch(split):
    data = np.memmap(os.path.join(data_dir, f"{split}.bin"), dtype=np.uint16, mode="r")
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block_size].astype(np.int64)) for i in ix])
    return x.to(device), y.to(device)


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


def train(model):
    scaler = torch.amp.GradScaler("cuda", enabled=(dtype == "float16"))
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(beta1, beta2),
                                  weight_decay=weight_decay, fused=True)
    X, Y = get_batch("train")
    t0 = time.time()
    iter_num = 0
    while True:
        lr = get_lr(iter_num)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        if iter_num % eval_interval == 0 and iter_num > 0:
            checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "iter_num": iter_num}
            torch.save(checkpoint, os.path.join(out_dir, "ckpt.pt"))
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / gradient_accumulation_steps
            X, Y = get_batch("train")
            scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        t1 = time.time()
        if iter_num % 10 == 0:
            print(f"iter {iter_num}: loss {loss.item() * gradient_accumulation_steps:.4f}, "
                  f"time {(t1 - t0) * 1000:.2f}ms")
        t0 = t1
        iter_num += 1
        if iter_num > max_iters:
            break
