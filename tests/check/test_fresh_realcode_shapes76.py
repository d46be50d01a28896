"""Shapes behind the dev miss of the fresh-2026-12zc76 batch (rcnew76, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A driver builds an optimizer and a scheduler on it and hands both to a project class (or
  function), which ignores the optimizer it was given and builds a new one over the same
  model's parameters; its loop updates the new optimizer and steps the scheduler it was
  handed. No name is ever rebound from one optimizer to the other (the first is only a
  parameter the callee never reads), so lrdoctor's LRD014, which looked for a rebinding or for
  a second instance of one constructor call, said nothing. Python: the scheduler changes the
  LR of an optimizer nothing updates; the optimizer being trained keeps its initial LR.
  Reported only when the scheduler's optimizer never leaves the traced code: every use of
  the name holding it is the scheduler's constructor or a traced call whose parameter is
  itself used that way (or not at all). Silent twins: the class keeping and stepping the
  optimizer it was given, an optimizer handed to a library call first (it may be updated
  out of sight), an optimizer kept in a list the loop steps, and a scheduler stepped in a
  loop that updates its own optimizer.
"""

from __future__ import annotations

from .helpers import codes, messages

IGNORED_ARGUMENT = """
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Fitter:
    def __init__(self, net, optimizer, scheduler, epochs):
        self.net = net
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=3e-4)
        self.scheduler = scheduler
        self.epochs = epochs
        self.batches = [torch.randn(16, 8) for _ in range(10)]

    def one_pass(self, train):
        total = 0.0
        for x in self.batches:
            loss = self.net(x).pow(2).mean()
            if train:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            total += loss.item()
        return total / len(self.batches)

    def fit(self):
        for epoch in range(self.epochs):
            self.one_pass(True)
            held_out = self.one_pass(False)
            self.scheduler.step(held_out)


net = nn.Linear(8, 1)
optimizer = torch.optim.Adam(net.parameters(), lr=3e-4)
scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=2)
Fitter(net, optimizer, scheduler, 30).fit()
"""

KEPT_ARGUMENT = IGNORED_ARGUMENT.replace(
    "self.optimizer = torch.optim.Adam(self.net.parameters(), lr=3e-4)",
    "self.optimizer = optimizer",
)


def test_scheduler_on_an_optimizer_the_class_ignores_is_stale() -> None:
    assert "LRD014" in codes(IGNORED_ARGUMENT)
    found = messages(IGNORED_ARGUMENT)
    assert any("nothing updates" in m and "line 34" in m for m in found), found


def test_class_keeping_the_optimizer_it_was_given_is_silent() -> None:
    assert "LRD014" not in codes(KEPT_ARGUMENT)


FUNCTION_REBUILDS = """
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR


def train(model, optimizer, sched, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(epochs):
        for _ in range(20):
            loss = model(torch.randn(4, 3)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()


model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = StepLR(optimizer, step_size=10, gamma=0.1)
train(model, optimizer, sched, 40)
"""


def test_function_building_its_own_optimizer_leaves_the_schedule_behind() -> None:
    assert "LRD014" in codes(FUNCTION_REBUILDS)


def test_function_stepping_the_optimizer_it_was_given_is_silent() -> None:
    fixed = FUNCTION_REBUILDS.replace(
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\n",
        "    opt = optimizer\n",
    )
    assert "LRD014" not in codes(fixed)


def test_optimizer_handed_to_a_library_first_is_silent() -> None:
    # the library may update it where the trace cannot see
    handed = FUNCTION_REBUILDS.replace(
        "sched = StepLR(optimizer, step_size=10, gamma=0.1)\n",
        "sched = StepLR(optimizer, step_size=10, gamma=0.1)\n"
        "import warmup_lib\nwarmup_lib.run(model, optimizer, steps=100)\n",
    )
    assert "LRD014" not in codes(handed)


def test_optimizer_kept_in_a_list_the_loop_steps_is_silent() -> None:
    source = """
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

enc, dec = nn.Linear(3, 3), nn.Linear(3, 1)
opt_enc = torch.optim.Adam(enc.parameters(), lr=1e-3)
opt_dec = torch.optim.Adam(dec.parameters(), lr=1e-3)
sched = StepLR(opt_enc, step_size=5)
both = [opt_enc, opt_dec]
for epoch in range(20):
    for _ in range(10):
        loss = dec(enc(torch.randn(2, 3))).sum()
        for o in both:
            o.zero_grad()
        loss.backward()
        for o in both:
            o.step()
        opt_dec.step()
    sched.step()
"""
    assert "LRD014" not in codes(source)


def test_two_optimizers_each_with_its_schedule_are_silent() -> None:
    source = """
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR


def run(gen, disc, g_opt, d_opt, g_sched, d_sched, epochs):
    for epoch in range(epochs):
        for _ in range(10):
            d_loss = disc(gen(torch.randn(2, 4)).detach()).mean()
            d_opt.zero_grad()
            d_loss.backward()
            d_opt.step()
            g_loss = -disc(gen(torch.randn(2, 4))).mean()
            g_opt.zero_grad()
            g_loss.backward()
            g_opt.step()
        g_sched.step()
        d_sched.step()


gen, disc = nn.Linear(4, 4), nn.Linear(4, 1)
g_opt = torch.optim.Adam(gen.parameters(), lr=2e-4)
d_opt = torch.optim.Adam(disc.parameters(), lr=2e-4)
run(gen, disc, g_opt, d_opt, StepLR(g_opt, 10), StepLR(d_opt, 10), 50)
"""
    assert "LRD014" not in codes(source)


# -- SWALR beside a scheduler a setting picks, stepped by a helper under an existence guard ----
#
# The config names the scheduler class (`getattr(torch.optim.lr_scheduler, cfg["sched"])`),
# a helper steps it after every update under `if sched is not None:`, and the caller hands it
# over in the branch of `if cfg["sched"] == "ReduceLROnPlateau": ... else: ...` that is not the
# plateau's; from cfg["swa_start"] on, a SWALR on the same optimizer is stepped once per epoch
# too. lrdoctor left out schedulers whose class it does not know, and took any test inside a
# loop for a condition on the step. Python: `sched.step()` with no metric is no
# ReduceLROnPlateau (its step() requires one), and neither the guard nor the setting test
# changes from one epoch to the next, so once SWA starts both schedulers move the one LR.

SWA_BESIDE_PICKED = """
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.batches = [torch.randn(8, 5) for _ in range(12)]

    def one_epoch(self, model, opt, sched=None):
        for x in self.batches:
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()

    def held_out(self, model):
        with torch.no_grad():
            return sum(model(x).pow(2).mean().item() for x in self.batches)

    def fit(self, model):
        opt = torch.optim.AdamW(model.parameters(), lr=self.cfg["lr"])
        sched = getattr(torch.optim.lr_scheduler, self.cfg["sched"])(opt, **self.cfg["sched_args"])
        swa_model = AveragedModel(model)
        swa_sched = SWALR(opt, swa_lr=self.cfg["swa_lr"], anneal_epochs=1)
        for epoch in range(self.cfg["epochs"]):
            if self.cfg["sched"] == "ReduceLROnPlateau":
                self.one_epoch(model, opt)
                sched.step(self.held_out(model))
            else:
                self.one_epoch(model, opt, sched)
            if epoch >= self.cfg["swa_start"]:
                swa_model.update_parameters(model)
                swa_sched.step()
        return swa_model


cfg = {"lr": 1e-3, "sched": "StepLR", "sched_args": {"step_size": 500, "gamma": 0.5},
       "swa_lr": 1e-4, "swa_start": 30, "epochs": 60}
Runner(cfg).fit(nn.Linear(5, 1))
"""


def test_swalr_beside_a_per_batch_scheduler_picked_by_a_setting_competes() -> None:
    assert "LRD012" in codes(SWA_BESIDE_PICKED)


def test_swalr_taking_over_from_the_picked_scheduler_is_silent() -> None:
    # the recipe: the per-batch scheduler is handed over only before SWA starts
    handed = SWA_BESIDE_PICKED.replace(
        "                self.one_epoch(model, opt, sched)\n",
        "                use = None if epoch >= self.cfg[\"swa_start\"] else sched\n"
        "                self.one_epoch(model, opt, use)\n",
    )
    assert handed != SWA_BESIDE_PICKED
    assert "LRD012" not in codes(handed)


def test_swalr_in_the_other_branch_of_the_swa_test_is_silent() -> None:
    recipe = SWA_BESIDE_PICKED.replace(
        "            if self.cfg[\"sched\"] == \"ReduceLROnPlateau\":\n"
        "                self.one_epoch(model, opt)\n"
        "                sched.step(self.held_out(model))\n"
        "            else:\n"
        "                self.one_epoch(model, opt, sched)\n"
        "            if epoch >= self.cfg[\"swa_start\"]:\n"
        "                swa_model.update_parameters(model)\n"
        "                swa_sched.step()\n",
        "            if epoch >= self.cfg[\"swa_start\"]:\n"
        "                self.one_epoch(model, opt)\n"
        "                swa_model.update_parameters(model)\n"
        "                swa_sched.step()\n"
        "            else:\n"
        "                self.one_epoch(model, opt, sched)\n",
    )
    assert recipe != SWA_BESIDE_PICKED
    assert "LRD012" not in codes(recipe)


def test_picked_scheduler_stepped_with_a_metric_beside_swalr_is_left_alone() -> None:
    # `sched.step(metric)` may be a ReduceLROnPlateau, which only cuts the LR in place
    plateau_only = SWA_BESIDE_PICKED.replace(
        "            if self.cfg[\"sched\"] == \"ReduceLROnPlateau\":\n"
        "                self.one_epoch(model, opt)\n"
        "                sched.step(self.held_out(model))\n"
        "            else:\n"
        "                self.one_epoch(model, opt, sched)\n",
        "            self.one_epoch(model, opt)\n"
        "            sched.step(self.held_out(model))\n",
    )
    assert plateau_only != SWA_BESIDE_PICKED
    assert "LRD012" not in codes(plateau_only)
