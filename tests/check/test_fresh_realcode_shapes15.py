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
"""

from __future__ import annotations

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
