"""The evidence a finding cites: LRD004's validation metric, and LRD006's scheduler among the
options one step call may run with.

Programs written for these tests; no third-party code.

A user reads the evidence to verify a finding; a wrong citation reads as a false alarm.

- LRD004 names the validation metric that exists beside the training loss the plateau
  watches. It named the first validation-worded name in alphabetical order, so a count of
  the validation frames (`n_validation_frames = len(val_frames)`) stood for the validation
  pass that goes over `val_frames`. Now a metric-worded name comes first, then what a loop
  of the run goes over (the pass itself, cited at that loop), then the rest; and the
  message gives the line: where the run binds the name, else where it reads it.
- LRD006: a call `self.scheduler.step(epoch + i / n)` that may run with either of two
  schedulers reported the first one, a project warm-up built on a branch that goes on to
  set `self.cfg.per_batch = False`, while the call sits under `if self.cfg.per_batch:`: it
  never runs with that scheduler. Such an option is now left out, so the finding names the
  option that reaches the call, or there is none.
"""

from __future__ import annotations

from .helpers import codes, findings, messages

# -- LRD004: which validation evidence, and where ----------------------------------------------

FRAMES = """
import numpy as np
import torch


class Frames:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return torch.randn(4), torch.randn(1)


def main(epochs=30, check_every=2):
    model = torch.nn.Linear(4, 1)
    train_frames, val_frames = Frames(64), Frames(16)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=5)
    held = None
    for epoch in range(epochs):
        epoch_loss = []
        for i, (x, y) in enumerate(train_frames):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            epoch_loss.append(float(loss))
        scheduler.step(WATCHED)
        if epoch % check_every == 0:
            n_validation_frames = len(val_frames)
            total = 0.0
            for i, (x, y) in enumerate(val_frames):
                if i >= n_validation_frames:
                    break
                total += float(torch.nn.functional.mse_loss(model(x), y))
            held = total / n_validation_frames
            print(held)


if __name__ == "__main__":
    main()
"""


def line_of(source: str, text: str) -> int:
    """The line of ``source`` (as the checker numbers it) that holds ``text`` first."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_the_validation_pass_is_cited_not_a_count_of_its_frames() -> None:
    source = FRAMES.replace("WATCHED", "np.mean(epoch_loss)")
    (message,) = messages(source)
    pass_line = line_of(source, "for i, (x, y) in enumerate(val_frames):")
    assert f"(`val_frames`, line {pass_line})" in message


def test_the_plateau_on_the_validation_value_is_silent() -> None:
    # the correct twin: the plateau watches what the validation pass computed; on the epochs
    # it skips, the last one
    source = FRAMES.replace("scheduler.step(WATCHED)", "pass").replace(
        "print(held)", "print(held)\n        if held is not None:\n"
                       "            scheduler.step(held)")
    assert codes(source) == []


def test_a_validation_loss_is_cited_where_the_run_binds_it() -> None:
    source = FRAMES.replace("WATCHED", "np.mean(epoch_loss)").replace(
        "held = total / n_validation_frames", "val_loss = total / n_validation_frames").replace(
        "print(held)", "print(val_loss)")
    (message,) = messages(source)
    assert f"(`val_loss`, line {line_of(source, 'val_loss = total')})" in message


EVALUATED = """
import torch


def evaluate(model, loader):
    with torch.no_grad():
        return sum(float(torch.nn.functional.mse_loss(model(x), y)) for x, y in loader)


def train(model, loader, val_loader, epochs=20):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    loader_for_val = val_loader
    for epoch in range(epochs):
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        train_loss = total / len(loader)
        metrics = evaluate(model, loader_for_val)
        print(metrics)
        scheduler.step(train_loss)
"""


def test_a_loader_bound_before_the_run_is_cited_where_the_run_reads_it() -> None:
    (message,) = messages(EVALUATED)
    line = line_of(EVALUATED, "metrics = evaluate(model, loader_for_val)")
    assert f"(`loader_for_val`, line {line})" in message


# -- LRD006: the option that reaches the call ---------------------------------------------------

WARMUP = """
from torch.optim.lr_scheduler import LambdaLR


class Warmup(LambdaLR):
    def __init__(self, optimizer, warmup):
        self.warmup = warmup
        super().__init__(optimizer, self.factor)

    def factor(self, step):
        return min(1.0, (step + 1) / self.warmup)
"""

FITTER = """
import argparse

import torch

from sched import Warmup


class Fitter:
    def __init__(self, model, cfg):
        self.cfg = cfg
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if cfg.warm_up:
            self.scheduler = Warmup(self.optimizer, 100)
            AFTER_BUILD
        else:
            self.scheduler = OTHER

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for step, (x, y) in enumerate(loader):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                if self.cfg.per_batch:
                    self.scheduler.step(epoch + step / len(loader))
            if not self.cfg.per_batch:
                self.scheduler.step()
    EXTRA


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--scheduler", default="CosineAnnealingLR")
    parser.add_argument("--warm-up", action="store_true")
    args = parser.parse_args()
    args.per_batch = True
    Fitter(torch.nn.Linear(4, 1), args).fit([], 10)
"""

BY_NAME = "getattr(torch.optim.lr_scheduler, cfg.scheduler)(self.optimizer, T_max=10)"


def fitter(tmp_path, monkeypatch, after_build: str = "self.cfg.per_batch = False",
           other: str = BY_NAME, extra: str = "pass") -> tuple[list[tuple[str, int, str]],
                                                               list[str]]:
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files

    from .helpers import check_project

    found = check_project(tmp_path, monkeypatch, {
        "sched.py": WARMUP,
        "train.py": FITTER.replace("AFTER_BUILD", after_build).replace("OTHER", other)
                          .replace("    EXTRA", extra),
    })
    report = check_files(["sched.py", "train.py"], frozenset(CATALOG), jobs=1)
    return found, [d.message for d in report.diagnostics if d.code == "LRD006"]


def test_the_option_that_reaches_the_call_is_named(tmp_path, monkeypatch) -> None:
    found, (message,) = fitter(tmp_path, monkeypatch)
    assert ("train.py", line_of(FITTER, "self.scheduler.step(epoch + step"), "LRD006") in found
    assert "to CosineAnnealingLR, which takes it as its epoch position:" in message


def test_an_option_whose_branch_turns_the_call_off_is_no_finding(tmp_path, monkeypatch) -> None:
    # the other option's class is not known (a name the caller hands in): nothing reaches the
    # call that lrdoctor can judge
    found, found_messages = fitter(tmp_path, monkeypatch,
                                   other="cfg.make_scheduler(self.optimizer)")
    assert found_messages == []
    assert [f for f in found if f[2] == "LRD006"] == []


def test_a_branch_that_leaves_the_flag_on_is_still_reported(tmp_path, monkeypatch) -> None:
    # the twin: the warm-up's branch sets another flag; the call runs with the warm-up too
    _, (message,) = fitter(tmp_path, monkeypatch, after_build="self.cfg.logged = False",
                           other="cfg.make_scheduler(self.optimizer)")
    assert "a subclass of torch.optim.lr_scheduler.LRScheduler that keeps its step()" in message


def test_a_flag_set_back_elsewhere_in_the_class_is_still_reported(tmp_path, monkeypatch) -> None:
    # the twin: a method of the class turns the flag back on, so the branch's store is not
    # the last word
    extra = ("    def per_batch_from_now(self):\n"
             "        self.cfg.per_batch = True\n")
    _, (message,) = fitter(tmp_path, monkeypatch, other="cfg.make_scheduler(self.optimizer)",
                           extra=extra)
    assert "a subclass of torch.optim.lr_scheduler.LRScheduler that keeps its step()" in message


def test_one_function_that_builds_and_steps_is_judged_the_same() -> None:
    source = """
import torch


class Warmup(torch.optim.lr_scheduler.LambdaLR):
    def __init__(self, optimizer, warmup):
        super().__init__(optimizer, lambda s: min(1.0, (s + 1) / warmup))


def train(model, loader, cfg, epochs=10):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    per_batch = True
    if cfg.warm_up:
        scheduler = Warmup(optimizer, 100)
        per_batch = False
    else:
        scheduler = cfg.make_scheduler(optimizer)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            if per_batch:
                scheduler.step(epoch + step / len(loader))
        if not per_batch:
            scheduler.step()
"""
    assert [c for c, _ in findings(source) if c == "LRD006"] == []
    # the twin: the flag is left on by the warm-up's branch
    twin = source.replace("        per_batch = False\n", "        print(per_batch)\n")
    assert [c for c, _ in findings(twin) if c == "LRD006"] == ["LRD006"]


def test_both_options_that_reach_the_call_are_named(tmp_path, monkeypatch) -> None:
    # the warm-up's branch leaves the flag on: the call runs with either scheduler, and the
    # finding names both (it named the first option only)
    _, (message,) = fitter(tmp_path, monkeypatch, after_build="self.cfg.logged = False")
    assert ("to CosineAnnealingLR or a subclass of "
            "torch.optim.lr_scheduler.LRScheduler that keeps its step() (whichever the "
            "setting picks)") in message
