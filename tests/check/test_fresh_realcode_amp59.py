"""LRD108 under a GradScaler switched by a flag (batch fresh-2026-12ym, rcnew59).

A segmentation trainer builds its scaler only under a config switch (`if cfg.use_amp: scaler =
GradScaler()`) and clips before `scaler.step` with no `unscale_`; a Kaggle trainer does the same
under a YAML-read `use_amp`. The clip sees scaled gradients exactly when the switch is on, so
the finding says so, as LRD005's does for the scheduler beside the same scaler. An always-on
scaler keeps the plain wording; an `unscale_` before the clip, or a scaler that is never
enabled, stays silent.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

SEGMENTATION = """
import torch
from torch.utils.data import DataLoader


def train_one_epoch(model, loader, criterion, optimizer, scaler, cfg):
    for data, target in loader:
        with torch.autocast("cuda", enabled=cfg.use_amp):
            loss = criterion(model(data), target)
        if cfg.use_amp:
            scaler.scale(loss).backward()
        else:
            loss.backward()
        if cfg.grad_norm_clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_norm_clip)
        if cfg.use_amp:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad()


def main(cfg, model, dataset):
    loader = DataLoader(dataset, batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = torch.nn.CrossEntropyLoss()
    if cfg.use_amp:
        scaler = torch.amp.GradScaler("cuda")
    else:
        scaler = None
    for epoch in range(cfg.epochs):
        train_one_epoch(model, loader, criterion, optimizer, scaler, cfg)
"""

ARGS_LOOP = """
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
parser.add_argument("--clip", type=float, default=1.0)
args = parser.parse_args()
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = {scaler}
for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.amp):
            loss = model(x).sum()
        scaler.scale(loss).backward(){unscale}
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        scaler.step(optimizer)
        scaler.update()
"""

UNSCALE = "\n        scaler.unscale_(optimizer)"


def lrd108(source: str) -> list[str]:
    found = messages(source)
    return [m for m, code in zip(found, codes(source), strict=True) if code == "LRD108"]


def test_clip_under_a_scaler_built_under_a_config_switch_names_the_switch() -> None:
    assert ("LRD108", 15) in findings(SEGMENTATION)
    assert lrd108(SEGMENTATION)[0].startswith(
        "When `cfg.use_amp` is on, gradients are clipped here while still multiplied by the "
        "GradScaler's scale")


def test_clip_under_a_scaler_enabled_by_an_argparse_flag_names_the_flag() -> None:
    src = ARGS_LOOP.format(scaler='torch.amp.GradScaler("cuda", enabled=args.amp)', unscale="")
    assert findings(src) == [("LRD108", 20)]
    assert lrd108(src)[0].startswith("When `args.amp` is on, gradients are clipped here")


def test_clip_under_a_scaler_picked_by_a_conditional_expression_names_the_flag() -> None:
    src = ARGS_LOOP.format(scaler='torch.amp.GradScaler("cuda") if args.amp else None',
                           unscale="")
    assert findings(src) == [("LRD108", 20)]
    assert lrd108(src)[0].startswith("When `args.amp` is on, gradients are clipped here")


def test_clip_under_an_always_on_scaler_keeps_the_plain_wording() -> None:
    src = ARGS_LOOP.format(scaler='torch.amp.GradScaler("cuda")', unscale="")
    assert findings(src) == [("LRD108", 20)]
    assert lrd108(src)[0].startswith("gradients are clipped here while still multiplied")


def test_unscale_before_the_clip_under_a_flag_switched_scaler_is_silent() -> None:
    src = ARGS_LOOP.format(scaler='torch.amp.GradScaler("cuda", enabled=args.amp)',
                           unscale=UNSCALE)
    assert "LRD108" not in codes(src)


def test_clip_under_a_scaler_that_is_never_enabled_is_silent() -> None:
    src = ARGS_LOOP.format(scaler='torch.amp.GradScaler("cuda", enabled=False)', unscale="")
    assert "LRD108" not in codes(src)
