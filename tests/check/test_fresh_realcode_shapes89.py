"""rcnew87 (batch fresh-2026-12zn87: mixed-precision training loops): shapes of the family
the batch shows, written in our own words.

Gradient accumulation is often written as a loop of its own: each pass of the outer loop
draws ``accum`` micro-batches in ``for micro in range(accum):`` (or splits the batch with
``x.chunk(accum)``), runs the forward and ``scaler.scale(loss).backward()`` on each, and
makes one update after the inner loop (``scaler.step(optimizer)``). A ``scheduler.step()``
written inside the inner loop then runs once per micro-batch, ``accum`` times per update: a
warm-up of 500 updates is over after 500 / accum of them (LRD017).

lrdoctor's LRD017 looked for an update under an accumulation test (``if (i + 1) % accum ==
0:``) in the loop of the scheduler's own step; with the accumulation spelled as an inner loop
the step's loop holds no update at all, and it stayed silent.

Silent twins: the step after the inner loop, the step under a test of its own in the inner
loop (``if micro == accum - 1:``), an inner loop that makes one pass, a schedule sized in
micro-batches (``max_iters * accum``), an inner loop that updates (a GAN's critic loop with
its own scheduler), an inner loop that does not backpropagate, and an update under a test of
its own in the outer loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, messages, project_codes

NANO = """
import torch
from torch import nn

ACCUM = {accum}
MAX_ITERS = 1000
model = nn.Linear(4, 2).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = {sched}
scaler = torch.amp.GradScaler("cuda")


def get_batch():
    return torch.randn(8, 4).cuda(), torch.randn(8, 2).cuda()


for it in range(MAX_ITERS):
    for micro in range(ACCUM):
        x, y = get_batch()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y) / ACCUM
        scaler.scale(loss).backward()
{inner}
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
{update}
    opt.zero_grad(set_to_none=True)
{after}
"""

WARMUP = "torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 500))"
UPDATE = "    scaler.step(opt)\n    scaler.update()"
IN_MICRO = "        sched.step()"


def _nano(accum: str = "8", sched: str = WARMUP, inner: str = IN_MICRO, update: str = UPDATE,
          after: str = "") -> str:
    return NANO.format(accum=accum, sched=sched, inner=inner, update=update, after=after)


def test_a_warmup_stepped_in_the_micro_batch_loop_of_a_nanogpt_style_loop() -> None:
    found = findings(_nano())
    assert found == [("LRD017", 23)]
    [message] = messages(_nano())
    assert "range(ACCUM)" in message and "once per micro-batch" in message


def test_the_inner_loop_drawing_from_a_loader_iterator_in_an_epoch_loop() -> None:
    source = """
    import torch
    from torch import nn

    ACCUM = 4
    model = nn.Linear(4, 2).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 500))
    scaler = torch.amp.GradScaler("cuda")
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    for epoch in range(10):
        it = iter(loader)
        for step in range(len(loader) // ACCUM):
            for micro in range(ACCUM):
                x = next(it).cuda()
                with torch.autocast("cuda"):
                    loss = model(x).pow(2).mean() / ACCUM
                scaler.scale(loss).backward()
                sched.step()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
    """
    assert findings(source) == [("LRD017", 19)]


def test_a_trainer_method_splitting_the_batch_into_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "trainer.py": """
            import torch
            from torch import nn


            class ChunkedTrainer:
                def __init__(self, model, accum=4, amp=True):
                    self.model = model
                    self.accum = accum
                    self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
                    self.scheduler = torch.optim.lr_scheduler.LambdaLR(
                        self.optimizer, lambda s: min(1.0, (s + 1) / 500))
                    self.scaler = torch.amp.GradScaler("cuda", enabled=amp)

                def train_step(self, x, y):
                    self.optimizer.zero_grad(set_to_none=True)
                    for xc, yc in zip(x.chunk(self.accum), y.chunk(self.accum)):
                        with torch.autocast("cuda"):
                            loss = nn.functional.mse_loss(self.model(xc), yc) / self.accum
                        self.scaler.scale(loss).backward()
                        self.scheduler.step()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()

                def fit(self, loader, epochs):
                    for _ in range(epochs):
                        for x, y in loader:
                            self.train_step(x.cuda(), y.cuda())
        """,
        "train.py": """
            import torch
            from torch import nn
            from trainer import ChunkedTrainer

            loader = [(torch.randn(32, 4), torch.randn(32, 2))] * 10
            ChunkedTrainer(nn.Linear(4, 2).cuda()).fit(loader, 3)
        """,
    }
    found = check_project(tmp_path, monkeypatch, files)
    assert ("trainer.py", 21, "LRD017") in found
    assert project_codes(found).count("LRD017") == 1


def test_a_plain_backward_without_a_scaler_is_the_same_shape() -> None:
    source = _nano(update="    opt.step()").replace(
        "        scaler.scale(loss).backward()", "        loss.backward()").replace(
        "    scaler.unscale_(opt)\n", "")
    assert codes(source) == ["LRD017"]


def test_control_the_step_after_the_inner_loop_is_silent() -> None:
    assert "LRD017" not in codes(_nano(inner="", after="    sched.step()"))


def test_control_the_step_under_a_test_of_its_own_is_silent() -> None:
    inner = "        if micro == ACCUM - 1:\n            sched.step()"
    assert "LRD017" not in codes(_nano(inner=inner))


def test_control_an_inner_loop_of_one_pass_is_silent() -> None:
    assert "LRD017" not in codes(_nano(accum="1"))


def test_control_a_schedule_sized_in_micro_batches_is_silent() -> None:
    sched = "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=MAX_ITERS * ACCUM)"
    assert codes(_nano(sched=sched)) == []


def test_control_an_update_under_a_test_of_its_own_is_silent() -> None:
    update = "    if torch.isfinite(loss):\n        scaler.step(opt)\n        scaler.update()"
    assert "LRD017" not in codes(_nano(update=update))


def test_control_an_inner_loop_that_does_not_backpropagate_is_silent() -> None:
    source = """
    import torch
    from torch import nn

    model = nn.Linear(4, 2).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.99 ** s)
    loader = [(torch.randn(8, 4), torch.randn(8, 2))] * 20
    for epoch in range(10):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
            for _ in range(2):
                sched.step()
    """
    assert "LRD017" not in codes(source)


def test_control_a_critic_loop_with_its_own_optimizer_and_scheduler_is_silent() -> None:
    source = """
    import torch
    from torch import nn

    gen, critic = nn.Linear(4, 4).cuda(), nn.Linear(4, 1).cuda()
    g_opt = torch.optim.Adam(gen.parameters(), lr=1e-4)
    d_opt = torch.optim.Adam(critic.parameters(), lr=1e-4)
    g_sched = torch.optim.lr_scheduler.LambdaLR(g_opt, lambda s: 1.0 - s / 10000)
    d_sched = torch.optim.lr_scheduler.LambdaLR(d_opt, lambda s: 1.0 - s / 50000)
    loader = [torch.randn(8, 4)] * 20
    for epoch in range(10):
        for real in loader:
            real = real.cuda()
            for _ in range(5):
                d_opt.zero_grad()
                d_loss = critic(gen(torch.randn_like(real)).detach()).mean() - critic(real).mean()
                d_loss.backward()
                d_opt.step()
                d_sched.step()
            g_opt.zero_grad()
            g_loss = -critic(gen(torch.randn_like(real))).mean()
            g_loss.backward()
            g_opt.step()
            g_sched.step()
    """
    assert "LRD017" not in codes(source)
