"""Two false-alarm shapes left open by rcnew49 (fpfix1): the correct variant stays quiet and
the buggy neighbour is still reported.

1. ``isinstance(s, ReduceLROnPlateau)`` on a scheduler picked per setting, where one option is
   a Hugging Face warm-up builder's (a LambdaLR whatever the setting) or where the name is the
   variable of a loop over a one-item list holding the choice: the plateau-only branch never
   runs for the other option (no LRD006 for its `step(metric)`).
2. A resume that restores each scheduler in a loop whose name takes them one per pass (a
   column of ``zip``, a position of a literal tuple of rows): every scheduler of that column
   is restored (no LRD007)."""

from __future__ import annotations

from tests.check.helpers import codes, messages

# -- 1. a class test on a scheduler choice ----------------------------------------------------

# {other} builds the non-plateau option; {head} binds `s` and opens the block it is used in;
# {plateau_step} is the end-of-epoch step (a plateau step under a class test, or not).
_CHOICE = """
import torch
from torch.optim.lr_scheduler import LambdaLR, ReduceLROnPlateau
from transformers import get_linear_schedule_with_warmup


def make_scheduler(cfg, opt):
    if cfg.sched == "plateau":
        return ReduceLROnPlateau(opt, patience=3)
    return {other}


def train(cfg, model, loader, val):
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
{head}
        for epoch in range(cfg.epochs):
            for x, y in loader:
                loss = model(x, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if not isinstance(s, ReduceLROnPlateau):
                    s.step()
{plateau_step}
"""

_HF = "get_linear_schedule_with_warmup(opt, cfg.warmup, cfg.steps)"
_LAMBDA = "LambdaLR(opt, lambda step: min(1.0, (step + 1) / 100))"
_LOOP = "    for s in [make_scheduler(cfg, opt)]:"
_NAME = "    s = make_scheduler(cfg, opt)\n    if cfg.epochs:"
_GUARDED = ("            if isinstance(s, ReduceLROnPlateau):\n"
            "                s.step(val(model))")
_UNGUARDED = "            s.step(val(model))"
_WRONG_CLASS = ("            if isinstance(s, LambdaLR):\n"
                "                s.step(val(model))")


def _choice(other: str, head: str, plateau_step: str) -> str:
    return _CHOICE.format(other=other, head=head, plateau_step=plateau_step)


def test_plateau_test_narrows_a_loop_over_one_choice_with_a_warmup_builder() -> None:
    assert codes(_choice(_HF, _LOOP, _GUARDED)) == []


def test_plateau_test_narrows_a_name_holding_a_choice_with_a_warmup_builder() -> None:
    assert codes(_choice(_HF, _NAME, _GUARDED)) == []


def test_plateau_test_narrows_a_loop_over_one_choice_with_a_lambda_lr() -> None:
    assert codes(_choice(_LAMBDA, _LOOP, _GUARDED)) == []


def test_plateau_test_on_a_name_holding_a_lambda_lr_choice_stays_silent() -> None:
    # passes on main too: the shape the two above now read the same way
    assert codes(_choice(_LAMBDA, _NAME, _GUARDED)) == []


def test_metric_step_without_the_class_test_is_still_reported_in_the_loop() -> None:
    source = _choice(_HF, _LOOP, _UNGUARDED)
    assert codes(source) == ["LRD006"]
    assert "get_linear_schedule_with_warmup" in messages(source)[0]


def test_metric_step_under_a_lambda_lr_test_is_still_reported_for_the_builder() -> None:
    # the warm-up builder's scheduler is a LambdaLR: `isinstance(s, LambdaLR)` holds for it
    assert codes(_choice(_HF, _LOOP, _WRONG_CLASS)) == ["LRD006"]
    assert codes(_choice(_HF, _NAME, _WRONG_CLASS)) == ["LRD006"]


# -- 2. a resume that restores each scheduler in a loop ---------------------------------------

# A GAN with one MultiStepLR per optimizer; the optimizers are restored by name, {restore} the
# schedulers.
_RESUME = """
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
{restore}        start = ck["epoch"] + 1
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
                    "opt_d": opt_d.state_dict(), "scheds": [sched_g.state_dict(),
                    sched_d.state_dict()], "sched_g": sched_g.state_dict(),
                    "sched_d": sched_d.state_dict(), "epoch": epoch}}, "last.pt")
"""


def _resume(restore: str) -> str:
    return _RESUME.format(restore=restore)


_ROWS_BOTH = ('        for sched, key in ((sched_g, "sched_g"), (sched_d, "sched_d")):\n'
              '            sched.load_state_dict(ck[key])\n')
_ZIP_BOTH = ('        for key, sched in zip(["sched_g", "sched_d"], [sched_g, sched_d]):\n'
             '            sched.load_state_dict(ck[key])\n')
_ZIP_STATES = ('        for sched, state in zip([sched_g, sched_d], ck["scheds"]):\n'
               '            sched.load_state_dict(state)\n')
_ENUMERATED = ('        schedulers = [sched_g, sched_d]\n'
               '        for i, (sched, key) in enumerate(zip(schedulers, ["sched_g", "sched_d"])):\n'
               '            sched.load_state_dict(ck[key])\n')


def test_restoring_each_scheduler_in_a_loop_over_literal_rows_stays_silent() -> None:
    assert codes(_resume(_ROWS_BOTH)) == []


def test_restoring_each_scheduler_in_a_loop_over_a_zip_column_stays_silent() -> None:
    assert codes(_resume(_ZIP_BOTH)) == []


def test_restoring_each_scheduler_from_a_zipped_list_of_states_stays_silent() -> None:
    assert codes(_resume(_ZIP_STATES)) == []


def test_restoring_each_scheduler_in_an_enumerated_zip_stays_silent() -> None:
    assert codes(_resume(_ENUMERATED)) == []


def test_a_loop_over_rows_that_leaves_one_scheduler_out_is_still_reported() -> None:
    source = _resume(_ROWS_BOTH.replace(', (sched_d, "sched_d"))', ',)'))
    assert codes(source) == ["LRD007"]
    assert "sched_d" in messages(source)[0]


def test_a_zip_column_that_leaves_one_scheduler_out_is_still_reported() -> None:
    source = _resume(_ZIP_BOTH.replace('["sched_g", "sched_d"], [sched_g, sched_d]',
                                       '["sched_g"], [sched_g]'))
    assert codes(source) == ["LRD007"]
    assert "sched_d" in messages(source)[0]


def test_a_scheduler_column_loop_that_restores_nothing_is_still_reported() -> None:
    source = _resume('        for sched, key in ((sched_g, "sched_g"), (sched_d, "sched_d")):\n'
                     '            print(key, sched.last_epoch)\n')
    assert codes(source) == ["LRD007", "LRD007"]


def test_no_scheduler_restored_at_all_is_still_reported() -> None:
    assert codes(_resume("")) == ["LRD007", "LRD007"]
