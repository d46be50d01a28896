"""fphunt56: LRD003 / LRD012 false alarms of scheduler selection through builders, settings
and stepping units, found by probes written in our own words after the shapes of unseen real
code, each fixed by semantics. Every false shape, written here in our own words, must be
silent; a buggy twin must still be reported.

1. A builder that picks the scheduler by a literal its caller passes and returns it with the
   unit it must be stepped in: ``if kind == "cyclic": s = OneCycleLR(...); unit = "batch"``
   / ``else: s = StepLR(...); unit = "epoch"``, ``return s, unit``, called as ``build(opt,
   "cyclic", ...)``; the trainer steps per update under ``if self.unit == "batch":`` and per
   epoch under ``if self.unit == "epoch":``. The trace takes the branch the literal decides
   (only OneCycleLR is built), but kept ``unit`` unknown, because the name is bound twice in
   the function, so the per-epoch step was judged reachable: LRD003. A binding in the branch
   a decided test leaves never runs for this caller, and one in the branch it takes runs
   every time the ``if`` does: ``unit`` holds one literal there, and so the per-epoch test is
   decided. When the builder pairs the OneCycleLR with ``"epoch"`` (the bug), still LRD003.

2. The same unit turned into a flag first: ``self.per_batch = self.unit == "batch"``, then
   ``if self.per_batch:`` / ``if not self.per_batch:``. A comparison of a name that holds one
   literal wherever it is read has one outcome too; lrdoctor kept it as an unknown
   expression.
"""

from __future__ import annotations

from .helpers import codes

# {kind}: the literal handed to the builder; {cyclic_unit}: the unit it pairs the OneCycleLR
# with; {flag}: a statement run after the unit is stored; {per_batch} / {per_epoch}: the
# tests guarding the two stepping sites
_BUILDER = """
import torch
from torch import nn
from torch.optim import lr_scheduler


def build(opt, kind, rounds, per_round):
    if kind == "cyclic":
        sched = lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=rounds * per_round)
        unit = "{cyclic_unit}"
    else:
        sched = lr_scheduler.StepLR(opt, step_size=25, gamma=0.5)
        unit = "epoch"
    return sched, unit


class Runner:
    def __init__(self, net, batches, rounds):
        self.net = net
        self.batches = batches
        self.rounds = rounds
        self.opt = torch.optim.SGD(net.parameters(), lr=0.2, momentum=0.9)
        self.sched, self.unit = build(self.opt, "{kind}", rounds, len(batches))
        {flag}

    def one_round(self):
        for x, y in self.batches:
            self.opt.zero_grad()
            nn.functional.l1_loss(self.net(x), y).backward()
            self.opt.step()
            if {per_batch}:
                self.sched.step()

    def run(self):
        for _ in range(self.rounds):
            self.one_round()
            if {per_epoch}:
                self.sched.step()


if __name__ == "__main__":
    data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(12)]
    Runner(nn.Linear(3, 1), data, 8).run()
"""


def builder(kind: str = "cyclic", cyclic_unit: str = "batch", flag: bool = False) -> str:
    if flag:
        parts = {"{flag}": 'self.per_batch = self.unit == "batch"',
                 "{per_batch}": "self.per_batch", "{per_epoch}": "not self.per_batch"}
    else:
        parts = {"{flag}": "pass", "{per_batch}": 'self.unit == "batch"',
                 "{per_epoch}": 'self.unit == "epoch"'}
    text = _BUILDER.replace("{kind}", kind).replace("{cyclic_unit}", cyclic_unit)
    for key, value in parts.items():
        text = text.replace(key, value)
    return text


def test_builder_unit_decided_by_the_callers_literal_is_silent() -> None:
    assert "LRD003" not in codes(builder())


def test_builder_unit_turned_into_a_flag_is_silent() -> None:
    assert "LRD003" not in codes(builder(flag=True))


def test_builder_pairing_onecycle_with_epoch_is_still_found() -> None:
    assert "LRD003" in codes(builder(cyclic_unit="epoch"))


def test_builder_pairing_onecycle_with_epoch_through_a_flag_is_still_found() -> None:
    assert "LRD003" in codes(builder(cyclic_unit="epoch", flag=True))


def test_builder_picking_the_step_scheduler_is_silent() -> None:
    found = codes(builder(kind="plain"))
    assert "LRD003" not in found
    assert "LRD002" not in found
