"""Known misses of `lrdoctor check` on real code (issue 7, batch fresh-2026-12zs, rcnew39).

An epoch-sized cosine stepped on entry to a helper that the epoch loop calls for training and
again for evaluation: the loop's passes alone spend the whole horizon, the evaluation calls
step it past its end (LRD010). Programs written for these tests; no third-party code."""

from __future__ import annotations

from .helpers import codes, messages

SHARED_PASS = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--eval_every", type=int, default=1)
args = parser.parse_args()

net = torch.nn.Linear(4, 1)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.{cls}(opt, {horizon})


def run_pass(loader, training):
{step}    total = 0.0
    for x, y in loader:
        if training:
            opt.zero_grad()
        loss = (net(x) - y).pow(2).mean()
        if training:
            loss.backward()
            opt.step()
        total += loss.item()
    return total


def fit(train_loader, val_loader, test_loader):
    for epoch in range(args.epochs):
        run_pass(train_loader, True)
        if epoch % args.eval_every == 0:
            run_pass(val_loader, False)
            run_pass(test_loader, False)
"""

ON_ENTRY = "    sched.step()\n"
ONLY_TRAINING = "    if training:\n        sched.step()\n"


def _program(step: str, cls: str = "CosineAnnealingLR", horizon: str = "args.epochs") -> str:
    return SHARED_PASS.format(step=step, cls=cls, horizon=horizon)


def test_cosine_stepped_on_entry_of_a_shared_pass_is_reported() -> None:
    src = _program(ON_ENTRY)
    assert "LRD010" in codes(src)
    text = " ".join(messages(src))
    assert "3 times a pass" in text and "args.epochs" in text


def test_polynomial_sized_to_the_loop_is_reported_too() -> None:
    src = _program(ON_ENTRY, cls="PolynomialLR", horizon="total_iters=args.epochs")
    assert "LRD010" in codes(src)


def test_step_only_on_the_training_pass_stays_silent() -> None:
    assert "LRD010" not in codes(_program(ONLY_TRAINING))


def test_horizon_larger_than_the_loop_stays_silent() -> None:
    # a horizon that is not the loop's own count: the checker cannot say it is too short
    assert "LRD010" not in codes(_program(ON_ENTRY, horizon="3 * args.epochs"))


def test_single_call_per_epoch_stays_silent() -> None:
    src = _program(ON_ENTRY).replace(
        "            run_pass(val_loader, False)\n            run_pass(test_loader, False)\n",
        "            pass\n")
    assert "LRD010" not in codes(src)


def test_opposite_branches_stay_silent() -> None:
    src = _program(ON_ENTRY).replace(
        "        run_pass(train_loader, True)\n        if epoch % args.eval_every == 0:\n",
        "        if epoch % args.eval_every != 0:\n            run_pass(train_loader, True)\n"
        "        else:\n")
    assert "LRD010" not in codes(src)
