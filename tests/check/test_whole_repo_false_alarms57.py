"""fphunt67: one false-alarm shape and two misses found in robot-learning, offline-RL,
recommender, time-series, 3D-vision, OCR, molecule and nowcasting training code, and their
spellings.

1. LRD002 on a LambdaLR whose factor hands its helper a length written as the epochs times a
   factor (`lambda it: cosine(it, 0, epochs * cfg.stretch, ...)`, `epochs * 1000`, a factory
   `cosine_after(epochs * 500)`, `functools.partial(f, total=epochs * stretch)`): the
   product is a count of updates by a factor per epoch as likely as a multiple of epochs,
   the reading `CosineAnnealingLR(T_max=epochs * 1000)` already had; the word "epochs" inside
   it no longer makes the whole factor count epochs. Still LRD002: the epochs alone, the
   epochs times a small literal (a few cycles of epochs). `epochs * len(loader)` stays silent.
2. LRD004 missed where the validation pass is spelt `vali` (`vali_loss`, `vali_loader`,
   `self.vali(...)`, the Time-Series-Library family's spelling): a plateau stepped with the
   mean training loss beside it was not known to have a validation metric to use. Stepped
   with `vali_loss` stays silent.
3. LRD005 / LRD007 where the autocast dtype is held in a name or a field of `self` that the
   module binds to bfloat16 alone (`dtype = torch.bfloat16` ... `autocast("cuda",
   dtype=dtype)`): the scaler never skips, as with a literal bfloat16 dtype. Still found: the
   name bound to float16, or to float16 on one branch.
"""

from __future__ import annotations

from .helpers import codes

# -- 1. LRD002: a LambdaLR length of epochs times a factor --------------------------------------

_FACTOR = """
import math
import functools
import torch
from torch import nn


def shape(it, warm, total, peak, floor):
    if it < warm:
        return it / warm
    if it > total:
        return floor / peak
    ratio = (it - warm) / (total - warm)
    return (floor + 0.5 * (1 + math.cos(math.pi * ratio)) * (peak - floor)) / peak


def cosine_after(total):
    return lambda it: 0.5 * (1 + math.cos(math.pi * min(it, total) / total))


class Runner:
    def __init__(self, model, cfg, loader):
        self.model = model
        self.cfg = cfg
        self.loader = loader
        self.stretch = cfg["stretch"]

    def fit(self):
        peak = self.cfg["lr"]
        n_epochs = self.cfg["epochs"]
        opt = torch.optim.AdamW(self.model.parameters(), lr=peak)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=FACTOR)
        for _ in range(n_epochs):
            for x, y in self.loader:
                nn.functional.mse_loss(self.model(x), y).backward()
                opt.step()
                sched.step()
                opt.zero_grad()
"""


def _factor(factor: str) -> list[str]:
    return codes(_FACTOR.replace("FACTOR", factor))


def test_epochs_times_a_setting_handed_to_the_factor_helper_is_silent() -> None:
    assert _factor("lambda it: shape(it, 0, n_epochs * self.stretch, peak, peak * 0.1)") == []


def test_epochs_times_a_large_literal_handed_to_the_factor_helper_is_silent() -> None:
    assert _factor("lambda it: shape(it, 0, n_epochs * 1000, peak, peak * 0.1)") == []


def test_a_factory_handed_epochs_times_a_large_literal_is_silent() -> None:
    assert _factor("cosine_after(n_epochs * 500)") == []


def test_a_partial_whose_total_is_epochs_times_a_setting_is_silent() -> None:
    assert _factor("functools.partial(shape, warm=100, total=n_epochs * self.stretch, "
                   "peak=peak, floor=0.0)") == []


def test_epochs_times_the_loader_length_stays_silent() -> None:
    assert _factor("lambda it: shape(it, 0, n_epochs * len(self.loader), peak, 0.0)") == []


def test_the_epochs_alone_handed_to_the_factor_helper_is_still_lrd002() -> None:
    assert _factor("lambda it: shape(it, 0, n_epochs, peak, peak * 0.1)") == ["LRD002"]


def test_epochs_times_a_small_literal_is_still_lrd002() -> None:
    assert _factor("lambda it: shape(it, 0, n_epochs * 2, peak, peak * 0.1)") == ["LRD002"]


def test_a_factory_handed_the_epochs_is_still_lrd002() -> None:
    assert _factor("cosine_after(n_epochs)") == ["LRD002"]


# -- 2. LRD004: a validation pass spelt `vali` ---------------------------------------------------

_VALI = """
import numpy as np
import torch
from torch import nn


def vali(model, loader):
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in loader:
            losses.append(nn.functional.mse_loss(model(x), y).item())
    model.train()
    return float(np.mean(losses))


def train(model, train_loader, vali_loader, epochs):
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
    for epoch in range(epochs):
        train_loss = []
        for x, y in train_loader:
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            train_loss.append(loss.item())
        vali_loss = vali(model, vali_loader)
        plateau.step(METRIC)
        torch.save(model.state_dict(), "checkpoint.pth")
"""


def test_a_plateau_on_the_training_loss_beside_a_vali_pass_is_lrd004() -> None:
    assert codes(_VALI.replace("METRIC", "np.mean(train_loss)")) == ["LRD004"]


def test_a_plateau_on_the_last_batch_loss_beside_a_vali_pass_is_lrd004() -> None:
    assert codes(_VALI.replace("METRIC", "loss")) == ["LRD004"]


def test_a_plateau_on_the_vali_loss_is_silent() -> None:
    assert codes(_VALI.replace("METRIC", "vali_loss")) == []


# -- 3. LRD005 / LRD007: an autocast dtype held in a name bound to bfloat16 ---------------------

_NAMED_DTYPE = """
import torch
from torch import nn


def main(model, loader, epochs):
    DTYPE_LINE
    scaler = torch.amp.GradScaler("cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda", dtype=dtype):
                loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            sched.step()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "epoch": epoch}, "last.pt")


def resume(model, path="last.pt"):
    state = torch.load(path)
    model.load_state_dict(state["model"])
    return state
"""


def test_a_name_bound_to_bfloat16_never_skips() -> None:
    assert codes(_NAMED_DTYPE.replace("DTYPE_LINE", "dtype = torch.bfloat16")) == []


def test_a_name_bound_to_float16_still_skips() -> None:
    assert codes(_NAMED_DTYPE.replace("DTYPE_LINE", "dtype = torch.float16")) \
        == ["LRD005", "LRD007"]


def test_a_name_bound_to_float16_on_one_branch_still_skips() -> None:
    assert codes(_NAMED_DTYPE.replace(
        "DTYPE_LINE", "dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16"
    )) == ["LRD005", "LRD007"]


def test_a_name_never_bound_in_the_module_still_skips() -> None:
    assert codes(_NAMED_DTYPE.replace("def main(model, loader, epochs):",
                                      "def main(model, loader, epochs, dtype):")
                 .replace("DTYPE_LINE", "pass")) == ["LRD005", "LRD007"]


_SELF_DTYPE = """
import torch


class Trainer:
    def __init__(self, model, cfg, total_steps):
        self.model = model
        self.amp_dtype = DTYPE
        self.scaler = torch.amp.GradScaler("cuda", enabled=cfg.amp)
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=total_steps)
        self.cfg = cfg

    def step(self, batch):
        with torch.autocast("cuda", dtype=self.amp_dtype, enabled=self.cfg.amp):
            loss = self.model(**batch)
        self.opt.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()
        self.sched.step()
        return loss.item()

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                self.step(batch)
"""


def test_a_field_of_self_bound_to_bfloat16_never_skips() -> None:
    assert codes(_SELF_DTYPE.replace("DTYPE", "torch.bfloat16")) == []


def test_a_field_of_self_bound_to_float16_on_one_branch_still_skips() -> None:
    assert codes(_SELF_DTYPE.replace("DTYPE", "torch.bfloat16 if cfg.bf16 else torch.float16")) \
        == ["LRD005"]
