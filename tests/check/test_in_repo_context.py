"""Shapes found by checking the dev cases of bench/realcode inside their whole repositories
(`score.py --in-repo`, lead58), as a user checks a file of their own clone, instead of with the
case's files alone. Three dev cases lost a finding and one gained a false one there:

- a project optimizer class (``class AdamW(Optimizer)`` vendored with its own ``step()``, a
  KFAC or second-order optimizer): with its module present, its ``step()`` was traced as
  project code and never counted as an update, so a scheduler stepped before it was not
  reported (BERT-NER's vendored AdamW, KFAC-Pytorch's KFACOptimizer, Sassha's optimizers);
- a package copied into several directories of one repository (``baseline1/pkg``,
  ``baseline2/pkg``, ``baseline3/pkg``): ``from pkg.configs import TABLE`` inside
  ``baseline1/pkg/model.py`` was ambiguous, so the table a setting picks the scheduler from was
  unknown and a plateau's ``step(val_loss)`` under ``if cfg.sched == "rlrp":`` read as an
  epoch handed to every other class (nbme's three baselines).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

OWN_ADAMW = """
    import torch
    from torch.optim.optimizer import Optimizer


    class AdamW(Optimizer):
        def __init__(self, params, lr=1e-3, weight_decay=0.0):
            super().__init__(params, dict(lr=lr, weight_decay=weight_decay))

        def step(self, closure=None):
            loss = closure() if closure is not None else None
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["step"] = 0
                    state["step"] += 1
                    p.data.add_(p.grad.data, alpha=-group["lr"])
            return loss
"""

TRAIN = """
    import torch
    from torch.optim.lr_scheduler import LambdaLR
    from optim.adamw import AdamW


    def train(model, loader, epochs):
        optimizer = AdamW(model.parameters(), lr=1e-3)
        scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))
        for epoch in range(epochs):
            for batch in loader:
                model(batch).backward()
                FIRST
                SECOND
                optimizer.zero_grad()
"""


def _train(first: str, second: str) -> str:
    return TRAIN.replace("FIRST", first).replace("SECOND", second)


def test_a_project_optimizer_with_its_own_step_is_an_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "optim/__init__.py": "", "optim/adamw.py": OWN_ADAMW,
        "train.py": _train("scheduler.step()", "optimizer.step()"),
    }, checked=["train.py"])
    assert ("train.py", 13, "LRD001") in found


def test_a_project_optimizer_stepped_first_is_not_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "optim/__init__.py": "", "optim/adamw.py": OWN_ADAMW,
        "train.py": _train("optimizer.step()", "scheduler.step()"),
    }, checked=["train.py"])
    assert project_codes(found) == []


def test_a_subclass_of_a_torch_optimizer_that_hands_on_to_it_is_an_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = """
        import torch


        class ClippedAdam(torch.optim.Adam):
            def step(self, closure=None):
                for group in self.param_groups:
                    torch.nn.utils.clip_grad_norm_(group["params"], 1.0)
                return super().step(closure)
    """
    files = {"optim/__init__.py": "", "optim/adamw.py": own.replace("ClippedAdam", "AdamW")}
    found = check_project(tmp_path, monkeypatch, {
        **files, "train.py": _train("scheduler.step()", "optimizer.step()")}, checked=["train.py"])
    assert ("train.py", 13, "LRD001") in found
    found = check_project(tmp_path / "right", monkeypatch, {
        **files, "train.py": _train("optimizer.step()", "scheduler.step()")}, checked=["train.py"])
    assert project_codes(found) == []


LOOKAHEAD = """
    import torch
    from torch.optim.optimizer import Optimizer


    class Lookahead(Optimizer):
        def __init__(self, base, k=5, alpha=0.5):
            self.base = base
            self.k, self.alpha = k, alpha
            self.param_groups = base.param_groups
            self.state = base.state
            self.defaults = base.defaults
            self.counter = 0

        def step(self, closure=None):
            loss = self.base.step(closure)
            self.counter += 1
            return loss
"""

WRAPPED = """
    import torch
    from torch.optim.lr_scheduler import StepLR
    from optim.lookahead import Lookahead


    def train(model, loader, epochs):
        base = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(base, step_size=30)
        optimizer = Lookahead(base)
        for epoch in range(epochs):
            for batch in loader:
                model(batch).backward()
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
"""


def test_a_wrapper_optimizer_that_steps_the_one_it_wraps_keeps_that_one_stepped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Lookahead's step() steps the SGD the scheduler drives: no stale optimizer (LRD014), no
    # scheduler stepped before its optimizer
    found = check_project(tmp_path, monkeypatch, {
        "optim/__init__.py": "", "optim/lookahead.py": LOOKAHEAD, "train.py": WRAPPED,
    }, checked=["train.py"])
    assert project_codes(found) == []
    # stepped in the batch loop, the epoch-sized StepLR is still seen with its optimizer's
    # steps through the wrapper
    per_batch = WRAPPED.replace("            scheduler.step()\n", "").replace(
        "optimizer.zero_grad()", "optimizer.zero_grad()\n                scheduler.step()")
    found = check_project(tmp_path / "per_batch", monkeypatch, {
        "optim/__init__.py": "", "optim/lookahead.py": LOOKAHEAD, "train.py": per_batch,
    }, checked=["train.py"])
    assert "LRD002" in project_codes(found)


def test_the_same_optimizer_class_in_the_checked_file_itself() -> None:
    # the class written in the checked file itself was missed the same way
    source = OWN_ADAMW + _train("scheduler.step()", "optimizer.step()").replace(
        "from optim.adamw import AdamW\n", "")
    assert "LRD001" in codes(source)


CONFIGS = """
    SCHEDULERS = {
        "cos": "CosineAnnealingLR",
        "step": "StepLR",
        "rlrp": "ReduceLROnPlateau",
    }
"""

MODEL = """
    from torch.optim import lr_scheduler
    from pkg.configs import SCHEDULERS


    def get_scheduler(cfg, optimizer):
        if SCHEDULERS[cfg.sched] == "CosineAnnealingLR":
            return lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
        elif SCHEDULERS[cfg.sched] == "StepLR":
            return lr_scheduler.StepLR(optimizer, step_size=3)
        elif SCHEDULERS[cfg.sched] == "ReduceLROnPlateau":
            return lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
"""

RUN = """
    import torch
    from pkg.model import get_scheduler


    def main(cfg, model, loader, evaluate):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        scheduler = get_scheduler(cfg, optimizer)
        for epoch in range(cfg.epochs):
            for batch in loader:
                model(batch).backward()
                optimizer.step()
                optimizer.zero_grad()
            val_loss = evaluate(model)
            if cfg.sched == "rlrp":
                scheduler.step(val_loss)
            else:
                scheduler.step()
"""


def _baselines(run: str) -> dict[str, str]:
    files = {}
    for copy in ("baseline1", "baseline2", "baseline3"):
        files[f"{copy}/pkg/configs.py"] = CONFIGS
        files[f"{copy}/pkg/model.py"] = MODEL
        files[f"{copy}/run.py"] = run
    return files


def test_a_package_copied_into_several_directories_is_the_one_around_the_importer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _baselines(RUN), checked=["baseline1/run.py"])
    assert project_codes(found) == []


def test_a_position_handed_to_what_the_table_allows_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # under `cfg.sched == "step"` the table picks StepLR, which takes the argument as its
    # epoch position (deprecated)
    run = RUN.replace('if cfg.sched == "rlrp":\n                scheduler.step(val_loss)',
                      'if cfg.sched == "step":\n                scheduler.step(epoch)')
    assert 'cfg.sched == "step"' in run
    found = check_project(tmp_path, monkeypatch, _baselines(run), checked=["baseline1/run.py"])
    assert "LRD006" in project_codes(found)


SAM = """
    import torch
    from torch.optim.optimizer import Optimizer


    class SAM(Optimizer):
        def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
            super().__init__(params, dict(rho=rho, **kwargs))
            self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
            self.param_groups = self.base_optimizer.param_groups

        @torch.no_grad()
        def first_step(self, zero_grad=False):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=group["rho"])
            if zero_grad:
                self.zero_grad()

        @torch.no_grad()
        def second_step(self, zero_grad=False):
            self.base_optimizer.step()
            if zero_grad:
                self.zero_grad()

        def step(self, closure=None):
            self.first_step(zero_grad=True)
            closure()
            self.second_step()
"""

SAM_TRAIN = """
    import torch
    from torch.optim.lr_scheduler import CosineAnnealingLR
    from optim.sam import SAM


    def train(model, loader, epochs, loss_fn):
        optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1, momentum=0.9)
        scheduler = CosineAnnealingLR(optimizer.base_optimizer, T_max=epochs)
        for epoch in range(epochs):
            for x, y in loader:
                loss_fn(model(x), y).backward()
                optimizer.first_step(zero_grad=True)
                loss_fn(model(x), y).backward()
                optimizer.second_step(zero_grad=True)
            scheduler.step()
"""


def test_sam_whose_second_step_steps_its_base_optimizer_is_traced_not_taken_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # SAM's own step() never runs here: its second_step() steps the SGD the cosine drives
    found = check_project(tmp_path, monkeypatch, {
        "optim/__init__.py": "", "optim/sam.py": SAM, "train.py": SAM_TRAIN,
    }, checked=["train.py"])
    assert project_codes(found) == []
    early = SAM_TRAIN.replace("            scheduler.step()\n", "").replace(
        "            for x, y in loader:", "            scheduler.step()\n            for x, y in loader:")
    found = check_project(tmp_path / "early", monkeypatch, {
        "optim/__init__.py": "", "optim/sam.py": SAM, "train.py": early,
    }, checked=["train.py"])
    assert "LRD001" in project_codes(found)


def test_an_optimizer_whose_step_moves_a_schedule_of_its_own_is_still_an_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a second-order optimizer whose step() also advances its own Hessian-power schedule
    # (Sassha's SASSHA): that is no other optimizer stepped; its step() is the update
    own = OWN_ADAMW.replace(
        "super().__init__(params, dict(lr=lr, weight_decay=weight_decay))",
        "super().__init__(params, dict(lr=lr, weight_decay=weight_decay))\n"
        "            self.power_scheduler = PowerSchedule()").replace(
        "loss = closure() if closure is not None else None",
        "loss = closure() if closure is not None else None\n"
        "            self.power = self.power_scheduler.step()") + """

    class PowerSchedule:
        def __init__(self):
            self.t = 0

        def step(self):
            self.t += 1
            return min(1.0, self.t / 10)
"""
    assert "self.power_scheduler.step()" in own
    found = check_project(tmp_path, monkeypatch, {
        "optim/__init__.py": "", "optim/adamw.py": own,
        "train.py": _train("scheduler.step()", "optimizer.step()"),
    }, checked=["train.py"])
    assert ("train.py", 13, "LRD001") in found


# -- a launch line of another program says nothing of this one's settings --------------------

from .test_fresh_realcode_shapes110 import HANDED_COUNT  # noqa: E402


@pytest.mark.parametrize("doc, text, reported", [
    # the checked program, run with more: its horizon counts micro-batches (LRD003)
    ("README.md", "python train.py --epochs 3 --merge-steps 4\n", True),
    ("run.sh", "python -m train \\\n  --epochs 3 \\\n  --merge-steps 4\n", True),
    # prose, or a launcher given no script: may be this program
    ("README.md", "Use `--merge-steps 4` on small GPUs.\n", True),
    # another program of the project run with more: not how train.py is run
    ("README.md", "python finetune.py --epochs 3 --merge-steps 4\n", False),
    ("run.sh", "python tools/finetune.py \\\n  --epochs 3 \\\n  --merge-steps 4\n", False),
])
def test_a_launch_line_counts_for_the_program_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doc: str, text: str,
        reported: bool) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": HANDED_COUNT, "finetune.py": "import argparse\n", doc: text},
        checked=["train.py"])
    assert ("LRD003" in project_codes(found)) is reported


def test_a_launch_line_of_the_script_that_imports_the_loop_counts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the loop lives in trainer.py; the README runs main.py, which imports it
    trainer = HANDED_COUNT.replace("args = p.parse_args()", "args = p.parse_known_args()[0]")
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": trainer, "main.py": "import trainer\n",
        "README.md": "python main.py --merge-steps 4\n"}, checked=["trainer.py"])
    assert "LRD003" in project_codes(found)
    found = check_project(tmp_path / "other", monkeypatch, {
        "trainer.py": trainer, "main.py": "import trainer\n", "eval.py": "import torch\n",
        "README.md": "python eval.py --merge-steps 4\n"}, checked=["trainer.py"])
    assert "LRD003" not in project_codes(found)


# -- lead59: an optimizer class with helpers of its own that its loop calls -----------------
# Sassha's SASSHA (checked inside its repository, lead59): `class SASSHA(Optimizer)` offers
# `get_params()`, `perturb_weights()`, `unperturb()` beside `step()`, and its step() advances a
# Hessian-power schedule through a helper (`self.power = self.power_scheduler.step()`). It was
# traced as project code, so `optimizer.step()` was no update and the scheduler stepped before
# the training loop went unreported.

HELPED = """
    import torch
    from torch.optim import Optimizer


    class Curvy(Optimizer):
        def __init__(self, params, lr=0.1, rho=0.05, power_scheduler=None):
            super().__init__(params, dict(lr=lr, rho=rho))
            self.power_scheduler = power_scheduler
            self.power = 1.0

        def get_params(self):
            return (p for g in self.param_groups for p in g["params"] if p.requires_grad)

        @torch.no_grad()
        def perturb_weights(self, zero_grad=True):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        e = p.grad * group["rho"]
                        self.state[p]["e"] = e
                        p.add_(e)
            if zero_grad:
                self.zero_grad()

        @torch.no_grad()
        def unperturb(self):
            for p in self.get_params():
                if "e" in self.state[p]:
                    p.sub_(self.state[p]["e"])

        def update_power(self):
            if self.power_scheduler is not None:
                self.power = self.power_scheduler.step()
            return self.power

        @torch.no_grad()
        def step(self, closure=None):
            self.update_power()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.add_(p.grad.abs().pow(self.power).sign(), alpha=-group["lr"])
"""

HELPED_TRAIN = """
    import torch
    from torch.optim.lr_scheduler import MultiStepLR
    from optim.curvy import Curvy


    def train(model, loader, epochs, loss_fn):
        optimizer = Curvy(model.parameters(), lr=0.1)
        scheduler = MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)
        EARLY
        for epoch in range(epochs):
            for x, y in loader:
                loss_fn(model(x), y).backward()
                optimizer.perturb_weights(zero_grad=True)
                loss_fn(model(x), y).backward()
                optimizer.unperturb()
                optimizer.step()
                optimizer.zero_grad()
                PER_BATCH
            PER_EPOCH
"""


def _helped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, early: str, per_batch: str,
            per_epoch: str, optimizer: str = HELPED) -> set[str]:
    train = HELPED_TRAIN.replace("EARLY", early).replace("PER_BATCH", per_batch).replace(
        "PER_EPOCH", per_epoch)
    found = check_project(tmp_path, monkeypatch, {
        "optim/__init__.py": "", "optim/curvy.py": optimizer, "train.py": train,
    }, checked=["train.py"])
    return set(project_codes(found))


def test_an_optimizer_with_helpers_of_its_own_is_one_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # stepped once before the loop: the milestones come one epoch early
    assert "LRD001" in _helped(tmp_path / "early", monkeypatch, "scheduler.step()", "pass",
                               "scheduler.step()")
    # an epoch-sized MultiStepLR stepped with each update
    assert "LRD002" in _helped(tmp_path / "batch", monkeypatch, "pass", "scheduler.step()",
                               "pass")
    # the correct loop: stepped once an epoch, after the updates. (A helper that steps an LR
    # scheduler the optimizer holds, EDSR's `schedule()`, keeps the class traced:
    # test_fresh_realcode_shapes107.py's CustomOptimizer.)
    assert _helped(tmp_path / "right", monkeypatch, "pass", "pass", "scheduler.step()") \
        == set()
