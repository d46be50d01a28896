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

3. The scheduler kept in a small holder object with the interval it is stepped at
   (``Pacing(OneCycleLR(...), "batch")``, ``__init__`` storing ``self.every = every``), the
   loop testing ``pace.every == "batch"`` or a property returning that comparison. lrdoctor
   read a literal an instance holds only through ``self`` inside its own methods, so both
   stepping sites looked reachable. The attribute holds the one literal the construction
   passed when ``__init__`` is its only store; the property's test is that comparison.

4. (real code) ``StepLR(step_size=opts["epochs"] // n_steps)`` with ``n_steps = 6``, stepped
   once per epoch: epochs split into a number of parts is a number of epochs. lrdoctor read
   the word "steps" of the divisor as batches and the quotient with it: LRD003. A divisor is
   a count of parts whatever it is called; the same horizon stepped every batch is now
   LRD002, and a count of batches divided the same way is still batches.
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


# {unit}: the interval the holder is built with; {per_batch} / {per_epoch}: the tests
_HOLDER = """
import torch
from torch import nn
from torch.optim import lr_scheduler


class Pacing:
    def __init__(self, sched, every):
        self.sched = sched
        self.every = every

    @property
    def each_batch(self):
        return self.every == "batch"

    @property
    def each_epoch(self):
        return self.every == "epoch"


def run(rounds=6):
    net = nn.Linear(3, 1)
    batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(9)]
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
    pace = Pacing(lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=rounds * len(batches)),
                  "{unit}")
    for _ in range(rounds):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.smooth_l1_loss(net(x), y).backward()
            opt.step()
            if {per_batch}:
                pace.sched.step()
        if {per_epoch}:
            pace.sched.step()


if __name__ == "__main__":
    run()
"""


def holder(unit: str, by_property: bool) -> str:
    tests = ("pace.each_batch", "pace.each_epoch") if by_property else (
        'pace.every == "batch"', 'pace.every == "epoch"')
    return _HOLDER.replace("{unit}", unit).replace("{per_batch}", tests[0]) \
        .replace("{per_epoch}", tests[1])


def test_holder_interval_read_as_an_attribute_is_silent() -> None:
    assert "LRD003" not in codes(holder("batch", by_property=False))


def test_holder_interval_read_through_a_property_is_silent() -> None:
    assert "LRD003" not in codes(holder("batch", by_property=True))


def test_holder_built_with_epoch_interval_is_still_found() -> None:
    assert "LRD003" in codes(holder("epoch", by_property=False))


def test_holder_built_with_epoch_interval_through_a_property_is_still_found() -> None:
    assert "LRD003" in codes(holder("epoch", by_property=True))


# {size}: StepLR's step_size; {batch_step} / {epoch_step}: where it is stepped
_SPLIT = """
import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR


def decay_for(opt, opts):
    parts = 6
    return StepLR(opt, step_size={size}, gamma=0.5)


def train(opts, batches):
    net = nn.Linear(5, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    sched = decay_for(opt, opts)
    for _ in range(opts["epochs"]):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            {batch_step}
        {epoch_step}
"""


def split(size: str, per_batch: bool) -> str:
    return _SPLIT.replace("{size}", size).replace(
        "{batch_step}", "sched.step()" if per_batch else "pass").replace(
        "{epoch_step}", "pass" if per_batch else "sched.step()")


def test_epochs_divided_by_a_count_named_steps_stepped_per_epoch_is_silent() -> None:
    text = split('opts["epochs"] // n_steps', per_batch=False).replace("parts = 6",
                                                                       "n_steps = 6")
    assert "LRD003" not in codes(text)


def test_epochs_divided_by_a_count_named_steps_stepped_per_batch_is_lrd002() -> None:
    text = split('opts["epochs"] // n_steps', per_batch=True).replace("parts = 6",
                                                                      "n_steps = 6")
    assert "LRD002" in codes(text)


def test_batches_divided_by_a_count_stepped_per_epoch_is_still_found() -> None:
    text = split('opts["epochs"] * len(opts["data"]) // n_steps', per_batch=False).replace(
        "parts = 6", "n_steps = 6")
    assert "LRD003" in codes(text)


def test_holder_bound_on_both_sides_of_a_test_is_not_decided_by_the_last_one() -> None:
    # the name holds either instance after the `if`: the one built with "epoch" steps the
    # OneCycleLR once per epoch when the setting picks it
    text = holder("batch", by_property=False).replace(
        '    pace = Pacing(lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=rounds * len(batches)),\n'
        '                  "batch")\n',
        '    total = rounds * len(batches)\n'
        '    if rounds > 4:\n'
        '        pace = Pacing(lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=total), "epoch")\n'
        '    else:\n'
        '        pace = Pacing(lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=total), "batch")\n')
    assert "if rounds > 4:" in text
    assert "LRD003" in codes(text)
