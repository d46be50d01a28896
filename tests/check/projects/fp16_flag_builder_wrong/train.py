import argparse

import torch
from diffusion.util import load_model

parser = argparse.ArgumentParser()
parser.add_argument("--use_fp16", action="store_true")
args = parser.parse_args()
model, options = load_model(16, use_fp16=args.use_fp16)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
for _ in range(10):
    loss = model(torch.randn(8, 16)).float().pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
