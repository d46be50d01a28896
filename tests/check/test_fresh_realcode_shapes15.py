"""Shapes met in the fresh-2026-12r batch of real code (issue 7), written in our own words.

A trainer picks its scheduler from settings: torch's CosineAnnealingLR, torch's StepLR, or,
when neither is asked for, a project class that stands in for "no scheduler" and whose
``step(self, epoch=None)`` does nothing. After each epoch it calls
``self.scheduler.step(epoch=self.epoch)``.

A call written for the project's own scheduler (a timm-style ``step(epoch)`` that needs the
epoch) passes the torch option what that class needs, and stays silent. A do-nothing stand-in
needs nothing: the epoch is passed for the torch options alone, where it is deprecated
(LRD006). The controls keep a project option that uses the epoch silent, and a choice of torch
options alone reported as before.

A resume through a generic restore helper (one ``restore(obj, path)`` for the network and the
optimizer) is reported at the call that hands the helper the optimizer (see below).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.check.engine import check_file
from tests.check.helpers import codes, findings

_TRAINER = """
import torch


class {CLASS}:
{BODY}


class Runner:
    def __init__(self, cfg, net):
        self.cfg = cfg
        self.net = net
        self.epoch = 0
        self.optimizer = torch.optim.SGD(net.parameters(), lr=cfg.lr, momentum=0.9)
        if cfg.cosine:
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
                self.optimizer, cfg.epochs, 1e-5)
        elif cfg.steps:
            self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, cfg.every)
        else:
            self.scheduler = {CLASS}({ARGS})

    def one_epoch(self, batches):
        self.net.train()
        for x, y in batches:
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
        self.scheduler.step({CALL})
        self.epoch += 1
"""

_NOOP = """    def __init__(self):
        pass

    def step(self, epoch=None):
        pass"""

_NOOP_DOC = '''    """Stands in when no schedule is configured."""

    def step(self, epoch=None):
        """Keep the LR as it is."""
        return None'''

_USES_EPOCH = """    def __init__(self, optimizer, base):
        self.optimizer = optimizer
        self.base = base

    def step(self, epoch=None):
        for group in self.optimizer.param_groups:
            group["lr"] = self.base * 0.5 ** (epoch // 30)"""


def _trainer(body: str, call: str, cls: str = "KeepLR", args: str = "") -> str:
    return (_TRAINER.replace("{CLASS}", cls).replace("{BODY}", body)
            .replace("{ARGS}", args).replace("{CALL}", call))


def _line_of(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def test_epoch_keyword_on_a_choice_with_a_do_nothing_stand_in() -> None:
    src = _trainer(_NOOP, "epoch=self.epoch")
    assert ("LRD006", _line_of(src, "self.scheduler.step(")) in findings(src)


def test_epoch_positional_on_a_choice_with_a_do_nothing_stand_in() -> None:
    assert "LRD006" in codes(_trainer(_NOOP, "self.epoch"))


def test_a_stand_in_with_docstrings_and_a_bare_return_does_nothing_too() -> None:
    assert "LRD006" in codes(_trainer(_NOOP_DOC, "epoch=self.epoch"))


def test_control_a_project_option_that_uses_the_epoch_stays_silent() -> None:
    src = _trainer(_USES_EPOCH, "epoch=self.epoch", cls="HalveEvery30",
                   args="self.optimizer, cfg.lr")
    assert "LRD006" not in codes(src)


def test_control_no_argument_is_no_finding() -> None:
    assert "LRD006" not in codes(_trainer(_NOOP, ""))


def test_control_torch_options_alone_are_reported_as_before() -> None:
    src = _trainer(_NOOP, "epoch=self.epoch").replace(
        "self.scheduler = KeepLR()",
        "self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, 0.98)")
    assert "LRD006" in codes(src)


# -- a resume through a generic restore helper --------------------------------------------------
# One small helper restores whatever it is handed, `def restore(obj, path):
# obj.load_state_dict(torch.load(path))`, and the driver calls it for the network and for the
# optimizer (a resume from `--start_epoch`), never for the scheduler. The lost schedule (LRD007)
# is reported at the call that hands the helper the optimizer, not at the helper's line, which
# serves the network too. A helper that serves the optimizer alone keeps the finding where the
# restore is written; a driver that also restores the scheduler has no finding.

_RESUME = """
import torch
from torch.optim.lr_scheduler import MultiStepLR


def restore(obj, path):
    obj.load_state_dict(torch.load(path))


def persist(obj, path):
    torch.save(obj.state_dict(), path)


def main(cfg, net, batches):
    optimizer = torch.optim.SGD(net.parameters(), lr=cfg.lr, momentum=0.9)
    schedule = MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)
    if cfg.net_file:
        restore(net, cfg.net_file)
    if cfg.optim_file:
        restore(optimizer, cfg.optim_file)
    for epoch in range(cfg.start_epoch, cfg.epochs):
        for x, y in batches:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            optimizer.step()
        schedule.step()
        persist(net, "net.pt")
        persist(optimizer, "optim.pt")
"""


def test_lost_schedule_reported_where_the_helper_is_handed_the_optimizer() -> None:
    assert ("LRD007", _line_of(_RESUME, "restore(optimizer, cfg.optim_file)")) \
        in findings(_RESUME)
    assert ("LRD007", _line_of(_RESUME, "obj.load_state_dict(")) not in findings(_RESUME)


def test_control_a_helper_for_the_optimizer_alone_keeps_its_line() -> None:
    src = _RESUME.replace("        restore(net, cfg.net_file)\n",
                          "        net.load_state_dict(torch.load(cfg.net_file))\n")
    assert ("LRD007", _line_of(src, "obj.load_state_dict(")) in findings(src)


def test_control_scheduler_restored_too_is_no_finding() -> None:
    src = _RESUME.replace(
        "        restore(optimizer, cfg.optim_file)\n",
        "        restore(optimizer, cfg.optim_file)\n"
        "        restore(schedule, cfg.optim_file + '.sched')\n")
    assert "LRD007" not in codes(src)


def test_helper_in_another_module_is_reported_at_the_driver_call(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "__init__.py").write_text("")
    helpers = _RESUME.split("def main(")[0].replace("from torch.optim.lr_scheduler import "
                                                    "MultiStepLR\n", "")
    (tmp_path / "tools" / "io.py").write_text(textwrap.dedent(helpers))
    driver = "from tools.io import persist, restore\n" + "def main(" + _RESUME.split(
        "def main(")[1]
    driver = "import torch\nfrom torch.optim.lr_scheduler import MultiStepLR\n" + driver
    (tmp_path / "train.py").write_text(driver)
    result = check_file(str(tmp_path / "train.py"))
    assert result.errors == []
    got = [(d.code, Path(d.path).name, d.line) for d in result.diagnostics]
    assert got == [("LRD007", "train.py", _line_of(driver, "restore(optimizer, cfg."))]
