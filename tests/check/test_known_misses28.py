"""A GradScaler switched by comparing a fixed precision setting (rcnew49, batch fresh-2026-12yc).

Programs written for these tests; no third-party code.

Language-model scripts in the nanoGPT line pick the training precision with a plain local
name bound once to a literal (``dtype = "float16"``) and build the scaler with
``GradScaler(enabled=(dtype == "float16"))``. The comparison is decided by that literal: with
``"float16"`` the scaler is on in every run of the file as written, so a resumable checkpoint
without its state (LRD007) and a per-batch scheduler stepped whatever the scaler skipped
(LRD005) are reported as for ``GradScaler()``; with ``"bfloat16"`` it never scales and nothing
is said. A name that may hold another value (picked from the hardware, or rebound) stays
unknown and silent, as before.
"""

from __future__ import annotations

import pytest

from .helpers import codes, messages

RESUMABLE = """
import os
import torch

dtype = {dtype}
out_dir = "out"
init_from = "resume"

model = torch.nn.Linear(16, 16).cuda()
scaler = torch.amp.GradScaler("cuda", enabled={enabled})
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
iter_num = 0
if init_from == "resume":
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"))
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    iter_num = checkpoint["iter_num"]

while iter_num < 5000:
    for group in optimizer.param_groups:
        group["lr"] = 5e-4 * min(1.0, (iter_num + 1) / 200)
    if iter_num > 0 and iter_num % 500 == 0:
        state = {{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "iter_num": iter_num}}
        torch.save(state, os.path.join(out_dir, "ckpt.pt"))
    x = torch.randn(8, 16).cuda()
    with torch.autocast("cuda", dtype=torch.float16, enabled={enabled}):
        loss = model(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
"""

PER_BATCH_SCHEDULE = """
import torch


def train(model, loader, epochs):
    precision = {precision}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda", enabled={enabled})
    for epoch in range(epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled={enabled}):
                loss = torch.nn.functional.cross_entropy(model(inputs), targets)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
"""


@pytest.mark.parametrize("enabled", ['(dtype == "float16")', 'dtype != "bfloat16"',
                                     'dtype in ("float16", "fp16")'])
def test_scaler_on_because_the_fixed_dtype_is_float16_must_be_checkpointed(enabled: str) -> None:
    source = RESUMABLE.format(dtype='"float16"', enabled=enabled)
    assert codes(source) == ["LRD007"]
    assert "GradScaler" in messages(source)[0]


@pytest.mark.parametrize("enabled", ['(dtype == "float16")', 'dtype != "bfloat16"',
                                     'dtype in ("float16", "fp16")'])
def test_scaler_off_because_the_fixed_dtype_is_bfloat16_needs_no_state(enabled: str) -> None:
    assert codes(RESUMABLE.format(dtype='"bfloat16"', enabled=enabled)) == []


def test_dtype_picked_from_the_hardware_leaves_the_scaler_unknown() -> None:
    # float16 only on GPUs without bfloat16: the file does not say which runs
    dtype = '"bfloat16" if torch.cuda.is_bf16_supported() else "float16"'
    assert codes(RESUMABLE.format(dtype=dtype, enabled='(dtype == "float16")')) == []


@pytest.mark.parametrize("enabled", ["precision == 16", "precision in (16, 32)"])
def test_per_batch_schedule_under_a_scaler_on_by_fixed_precision_is_reported(
        enabled: str) -> None:
    source = PER_BATCH_SCHEDULE.format(precision="16", enabled=enabled)
    assert codes(source) == ["LRD005"]
    assert not messages(source)[0].startswith("When")  # always on: no flag to name


@pytest.mark.parametrize("enabled", ["precision == 16", "precision in (16, 32)"])
def test_per_batch_schedule_under_a_scaler_off_by_fixed_precision_stays_silent(
        enabled: str) -> None:
    assert codes(PER_BATCH_SCHEDULE.format(precision="64", enabled=enabled)) == []


# A GAN's resume that restores one scheduler of two -------------------------------------
#
# Two optimizers, each with a scheduler of its own: a resume that restores both optimizers
# but only the generator's scheduler leaves the discriminator's counting from 0 (its
# milestones fire again). The restored `sched_g` drives `opt_g`, so it says nothing of
# `opt_d`'s schedule. Its twin restores both and stays silent.

GAN_RESUME = """
import torch


def train(G, D, loader, epochs, resume):
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    sched_g = torch.optim.lr_scheduler.MultiStepLR(opt_g, milestones=[100, 150], gamma=0.1)
    sched_d = torch.optim.lr_scheduler.MultiStepLR(opt_d, milestones=[100, 150], gamma=0.1)
    start = 0
    if resume:
        ck = torch.load("last.pt")
        G.load_state_dict(ck["G"])
        D.load_state_dict(ck["D"])
        opt_g.load_state_dict(ck["opt_g"])
        opt_d.load_state_dict(ck["opt_d"])
        sched_g.load_state_dict(ck["sched_g"])
{restore_d}        start = ck["epoch"] + 1
    for epoch in range(start, epochs):
        for real in loader:
            fake = G(torch.randn(real.size(0), 128))
            loss_d = D(fake.detach()).mean() - D(real).mean()
            opt_d.zero_grad()
            loss_d.backward()
            opt_d.step()
            loss_g = -D(fake).mean()
            opt_g.zero_grad()
            loss_g.backward()
            opt_g.step()
        sched_g.step()
        sched_d.step()
        torch.save({{"G": G.state_dict(), "D": D.state_dict(), "opt_g": opt_g.state_dict(),
                    "opt_d": opt_d.state_dict(), "sched_g": sched_g.state_dict(),
                    "sched_d": sched_d.state_dict(), "epoch": epoch}}, "last.pt")
"""


def test_gan_resume_that_restores_only_the_generator_scheduler_is_reported() -> None:
    source = GAN_RESUME.format(restore_d="")
    assert codes(source) == ["LRD007"]
    assert "sched_d" in messages(source)[0]


def test_gan_resume_that_restores_both_schedulers_stays_silent() -> None:
    restore_d = '        sched_d.load_state_dict(ck["sched_d"])\n'
    assert codes(GAN_RESUME.format(restore_d=restore_d)) == []
