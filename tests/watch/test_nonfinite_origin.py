"""LRD106 says only what happened (a GradScaler that recovers is no collapse), and a -inf
written on purpose by a mask fill is never named as the origin of non-finite values."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

HIGH_INIT_SCALE = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
# far too high a start: float16 gradients overflow until the scale has halved ~25 times
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**40)
for step in range(STEPS):
    x = torch.randn(16, 8)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
"""


def test_gradscaler_searching_down_from_a_high_init_scale_then_recovering_is_silent(run_script):
    ran = run_script(HIGH_INIT_SCALE.replace("STEPS", "40"))
    (opt,) = ran.watch.engine.optimizers.values()
    (scaler,) = ran.watch.engine.scalers.values()
    assert scaler.max_consecutive_skips >= 10  # a long run of skips did happen
    assert opt.taken >= 5  # and then training went on
    assert ran.codes == [], ran.watch.report()


def test_training_that_ends_inside_a_run_of_skips_is_reported(run_script):
    ran = run_script(HIGH_INIT_SCALE.replace("STEPS", "12"))
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.taken == 0
    f = ran.only("LRD106")
    assert "skipped the last 12 steps in a row" in f.message
    assert "training ended before any scale gave finite gradients" in f.message
    assert "no scale fixes this" not in f.message


ATTENTION = """
import torch
torch.manual_seed(0)

class Attention(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = torch.nn.Linear(d, 3 * d)

    def forward(self, x, mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        scores = scores.masked_fill(mask, float("-inf"))  # the usual attention mask
        return scores.softmax(-1) @ v

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attention(8)
        self.head = torch.nn.Linear(8, 1)

    def forward(self, x, mask, broken):
        gate = torch.sigmoid(self.head(self.attn(x, mask)))
        return -torch.log(gate * 0 if broken else gate).mean()  # LOG

model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
causal = torch.ones(6, 6, dtype=torch.bool).triu(1)
for step in range(5):
    mask = causal.clone()
    if FULLY_MASKED and step == 3:
        mask[2] = True  # row 2 attends to nothing: softmax of all -inf
    loss = model(torch.randn(4, 6, 8), mask, broken=not FULLY_MASKED and step == 3)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_attention_mask_filled_with_minus_inf_is_not_blamed_for_a_nan(run_script):
    ran = run_script(ATTENTION.replace("FULLY_MASKED", "False"))
    f = ran.only("LRD104")
    assert f.evidence["step"] == 4
    assert f.evidence["op"] == "log", f.message
    assert "masked_fill" not in f.message


def test_a_row_masked_everywhere_blames_the_softmax_that_turns_it_into_nan(run_script):
    # a one-off inside a module: localized when it happens with --nan-record
    ran = run_script(ATTENTION.replace("FULLY_MASKED", "True"), nan_record=True)
    f = ran.only("LRD104")
    assert f.evidence["step"] == 4
    assert "softmax" in f.evidence["op"], f.message
    assert f.evidence["module"] == "model.attn"
    assert "masked_fill" in f.message  # where the -inf came from
