"""fphunt55: LRD007's arguable zone on the dev cases, and false alarms of unseen real code
(trainer templates, classification / MAE / DDPM repositories, nanoGPT forks) and of probes
written in our own words after their shapes, each fixed by semantics. Every false shape,
written here in our own words, must be silent; a buggy twin must still be reported.

1. A scheduler made by a builder whose ``last_epoch`` setting the same function writes
   from the resumed epoch before calling it (``cfg.make_sched.last_epoch = start`` then
   ``sched = cfg.make_sched(opt)``): the schedule is rebuilt at its position, by the
   argument torch gives for that. Neither the checkpoint nor the resume loses it. Written
   as ``-1`` (a fresh start), both are still reported.

2. An ``"optimizer"`` key that holds the state of one of torch's modules (``loss_fn =
   nn.CrossEntropyLoss()`` ... ``"optimizer": loss_fn.state_dict()``): no optimizer state
   is in the file, so it is no checkpoint to resume from. With the optimizer's state under
   that key, still reported.

3. (LRD006) A setting copied into a local name in the scheduler's builder (``kind =
   cfg.sched``; ``if kind == "plateau": ReduceLROnPlateau(...)``) while the step site tests
   the setting itself (``if cfg.sched == "plateau": sched.step(val_loss)``): the name is
   bound to the very object the setting holds, so the two tests are one test and only the
   plateau is stepped with the metric. The step with the metric under the cosine's branch
   is still reported.
"""

from __future__ import annotations

from .helpers import codes, findings

# {resume}: the resume block; {save_at}: indentation of the save (8: after the epoch loop,
# 12: inside it)
_PRETRAIN = """
import torch


def keep(path, net, opt, epoch):
    torch.save({"epoch": epoch, "net": net.state_dict(), "opt": opt.state_dict()}, path)


def pretrain(settings, batches):
    net = torch.nn.Linear(16, 8).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.3, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=settings.epochs)
    scaler = torch.amp.GradScaler("cuda")
    first = 0
{resume}
    for epoch in range(first, settings.epochs):
        for x in batches:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = net(x).pow(2).mean()
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        sched.step()
{save}
    return net
"""

_AFTER = "    keep('final.pt', net, opt, settings.epochs)"
_INSIDE = "        keep('last.pt', net, opt, epoch)"
_RESUME_OPT = """    if settings.resume:
        blob = torch.load(settings.resume)
        net.load_state_dict(blob["net"])
        opt.load_state_dict(blob["opt"])
        first = blob["epoch"] + 1"""


def pretrain(save: str, resume: str = "") -> str:
    return _PRETRAIN.replace("{save}", save).replace("{resume}", resume)


def test_final_save_after_training_of_a_program_that_resumes_is_still_reported() -> None:
    assert "LRD007" in codes(pretrain(_AFTER, _RESUME_OPT))


def test_save_inside_the_epoch_loop_is_still_reported() -> None:
    assert "LRD007" in codes(pretrain(_INSIDE))


def test_resume_of_weights_and_optimizer_is_still_reported() -> None:
    found = findings(pretrain(_INSIDE, _RESUME_OPT))
    assert [c for c, _ in found].count("LRD007") == 2  # the save and the resume


_BUILDER = """
import torch


class SchedulerRecipe:
    def __init__(self, step_size):
        self.step_size = step_size
        self.last_epoch = -1

    def __call__(self, opt):
        return torch.optim.lr_scheduler.StepLR(opt, self.step_size, last_epoch=self.last_epoch)


def run(settings, batches):
    net = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    done = -1
    if settings.checkpoint:
        state = torch.load(settings.checkpoint)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        done = state["epoch"]
    settings.recipe.last_epoch = {position}
    sched = settings.recipe(opt)
    for epoch in range(done + 1, settings.epochs):
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, "last.pt")
"""


def test_builder_given_the_resumed_epoch_as_last_epoch_is_silent() -> None:
    assert "LRD007" not in codes(_BUILDER.replace("{position}", "done"))


def test_builder_given_a_fresh_last_epoch_is_still_reported() -> None:
    found = findings(_BUILDER.replace("{position}", "-1"))
    assert [c for c, _ in found].count("LRD007") == 2


_MODULE_UNDER_KEY = """
import torch
from torch import nn


def run(settings, batches):
    net = nn.Linear(4, 3).cuda()
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=settings.epochs)
    for epoch in range(settings.epochs):
        for x, y in batches:
            loss = loss_fn(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        torch.save({"weights": net.state_dict(), "optimizer": {held}}, "ck.pt")
"""


def test_module_state_under_an_optimizer_key_is_silent() -> None:
    assert "LRD007" not in codes(_MODULE_UNDER_KEY.replace("{held}", "loss_fn.state_dict()"))


def test_optimizer_state_under_that_key_is_still_reported() -> None:
    assert "LRD007" in codes(_MODULE_UNDER_KEY.replace("{held}", "opt.state_dict()"))


_COPIED_SETTING = """
import torch


def make_schedule(cfg, opt):
    kind = cfg.schedule
    if kind == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    elif kind == "plateau":
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    else:
        raise ValueError(kind)
    return sched


def fit(cfg, batches, held_out):
    net = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = make_schedule(cfg, opt)
    for epoch in range(cfg.epochs):
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        score = sum(torch.nn.functional.mse_loss(net(x), y).item() for x, y in held_out)
        if cfg.schedule == "{metric_for}":
            sched.step(score)
        else:
            sched.step()
"""


def test_metric_step_under_the_copied_settings_plateau_branch_is_silent() -> None:
    assert "LRD006" not in codes(_COPIED_SETTING.replace("{metric_for}", "plateau"))


def test_metric_step_under_the_cosine_branch_is_still_reported() -> None:
    assert "LRD006" in codes(_COPIED_SETTING.replace("{metric_for}", "cosine"))
