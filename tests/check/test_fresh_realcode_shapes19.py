"""Shapes met in the fresh-2026-12z batch of real code (issue 7), written in our own words.

Two shapes of an untargeted batch (forecasting, graph networks, vocoders, ...):

- A heterogeneous-GNN trainer takes its scheduler from a factory (StepLR, cosine, a
  ReduceLROnPlateau or None, by a setting) and steps it in two places: ``if self.sched and not
  isinstance(self.sched, ReduceLROnPlateau): self.sched.step()`` per epoch, and ``if self.sched
  and isinstance(self.sched, ReduceLROnPlateau): self.sched.step(loss)``. The class test
  narrowed the choice when it stood alone, not inside ``and``, so the metric handed to the
  plateau was read as a deprecated epoch argument given to the StepLR option (a false LRD006).
  The ``if`` branch of ``a and b`` runs only when every operand holds, so a class test among
  them narrows it; the ``else`` branch of ``a or b`` likewise.
- A forecasting experiment (the LTSF-Linear layout, driven by a framework that calls
  ``iterate()`` once per epoch) builds a fresh OneCycleLR on the long-lived optimizer at every
  call of its ``train()`` and never steps it, then writes the next epoch's LR into the param
  groups at the end of the call (``adjust_learning_rate``). A scheduler that recomputes the LR
  from its base values takes a first step in its constructor, which sets the LR: every rebuild
  resets it to ``max_lr / div_factor``, so the manual schedule never trains (LRD008, missed:
  the rule only knew schedulers that are stepped after the write). Now a write is reported when
  such a scheduler is built, after it and in the same call, on an optimizer that outlives that
  call (built by a caller) or inside a loop around the write that does not rebuild the
  optimizer, and no update of that optimizer nor step of that scheduler follows the write
  before the next build.

The controls: the plateau stepped with its metric under a plain ``isinstance`` (as before), an
epoch argument still given to the StepLR branch of the same factory, a write followed by a
later stage that trains on it, a scheduler built once outside the loop, a manual warm-up handed
over to the scheduler's next step, and a chainable scheduler (StepLR, which keeps the LR it
finds when built) rebuilt the same way, stay as they were.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

# -- a class test inside `and` narrows the scheduler choice --------------------------------

_FACTORY = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR


def build_schedule(optimizer, kind):
    if kind is None:
        return None
    if kind == "step":
        return StepLR(optimizer, step_size=30, gamma=0.5)
    if kind == "plateau":
        return ReduceLROnPlateau(optimizer, mode="min", patience=5)
    raise ValueError(kind)


class Fitter:
    def __init__(self, net, kind):
        self.net = net
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
        self.schedule = build_schedule(self.optimizer, kind)

    def fit(self, batches, epochs):
        for epoch in range(epochs):
            for x, y in batches:
                self.optimizer.zero_grad()
                loss = ((self.net(x) - y) ** 2).mean()
                loss.backward()
                self.optimizer.step()
            if {PER_EPOCH}:
                self.schedule.step({PER_EPOCH_ARG})
        if {AFTER}:
            self.schedule.step(float(loss))
"""


def _factory(per_epoch: str, after: str, per_epoch_arg: str = "") -> str:
    return (_FACTORY.replace("{PER_EPOCH}", per_epoch).replace("{AFTER}", after)
            .replace("{PER_EPOCH_ARG}", per_epoch_arg))


def test_plateau_test_inside_and_narrows_the_choice() -> None:
    source = _factory(
        "self.schedule and not isinstance(self.schedule, ReduceLROnPlateau)",
        "self.schedule and isinstance(self.schedule, ReduceLROnPlateau)")
    assert "LRD006" not in codes(source)


def test_plateau_test_inside_and_with_the_operands_swapped() -> None:
    source = _factory(
        "not isinstance(self.schedule, ReduceLROnPlateau) and self.schedule is not None",
        "isinstance(self.schedule, ReduceLROnPlateau) and self.schedule is not None")
    assert "LRD006" not in codes(source)


def test_negated_or_narrows_like_and() -> None:
    # `not (a or b)`: the `if` branch runs only when every operand fails
    source = _factory(
        "self.schedule and not isinstance(self.schedule, ReduceLROnPlateau)",
        "not (self.schedule is None or not isinstance(self.schedule, ReduceLROnPlateau))")
    assert "LRD006" not in codes(source)


def test_plain_isinstance_stays_silent() -> None:
    source = _factory(
        "self.schedule and not isinstance(self.schedule, ReduceLROnPlateau)",
        "isinstance(self.schedule, ReduceLROnPlateau)")
    assert "LRD006" not in codes(source)


def test_epoch_given_to_the_step_option_inside_and_is_still_lrd006() -> None:
    # control: the branch that excludes the plateau hands StepLR an epoch
    source = _factory(
        "self.schedule and not isinstance(self.schedule, ReduceLROnPlateau)",
        "self.schedule and isinstance(self.schedule, ReduceLROnPlateau)",
        per_epoch_arg="epoch")
    assert findings(source) == [("LRD006", 30)]


def test_class_test_in_or_does_not_narrow_the_if_branch() -> None:
    # control: `a or isinstance(...)` holds for every option when `a` does
    source = _factory(
        "self.schedule and not isinstance(self.schedule, ReduceLROnPlateau)",
        "self.schedule is not None or isinstance(self.schedule, ReduceLROnPlateau)")
    assert findings(source) == [("LRD006", 32)]


# -- a recomputing scheduler rebuilt over a manual LR write ---------------------------------

_REBUILT = """
import torch
from torch.optim import lr_scheduler


def set_epoch_lr(optimizer, epoch, base_lr):
    lr = base_lr * (0.8 ** epoch)
    for group in optimizer.param_groups:
        group["lr"] = lr


class Experiment:
    def __init__(self, base_lr, epochs):
        self.net = torch.nn.Linear(6, 1)
        self.base_lr = base_lr
        self.epochs = epochs

    def prepare(self):
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=self.base_lr)

    def train_epoch(self, epoch, batches, optimizer):
        schedule = {BUILD}
        for x, y in batches:
            optimizer.zero_grad()
            loss = ((self.net(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
        set_epoch_lr(optimizer, epoch + 1, self.base_lr)
{TAIL}
        return schedule
"""

_ONE_CYCLE = ("lr_scheduler.OneCycleLR(optimizer, max_lr=self.base_lr, "
              "steps_per_epoch=len(batches), epochs=self.epochs)")


def _rebuilt(build: str = _ONE_CYCLE, tail: str = "") -> str:
    return _REBUILT.replace("{BUILD}", build).replace("{TAIL}", tail)


def test_one_cycle_rebuilt_per_call_over_the_write_is_lrd008() -> None:
    # the optimizer is built by the caller (or by a framework calling train_epoch per epoch)
    source = _rebuilt()
    assert findings(source) == [("LRD008", 9)]
    (message,) = messages(source)
    assert "OneCycleLR `schedule` (line 22) is built again" in message


def test_one_cycle_rebuilt_per_call_from_the_caller_s_loop_is_lrd008() -> None:
    # the caller builds the optimizer once and calls train_epoch once per epoch
    source = _rebuilt() + """
    def run(self, batches):
        self.prepare()
        for epoch in range(self.epochs):
            self.train_epoch(epoch, batches, self.optimizer)
"""
    assert findings(source) == [("LRD008", 9)]


def test_lambda_schedule_rebuilt_per_call_is_lrd008() -> None:
    source = _rebuilt("lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 100))")
    assert findings(source) == [("LRD008", 9)]


def test_rebuilt_inside_the_epoch_loop_is_lrd008() -> None:
    source = """
    import torch
    from torch.optim.lr_scheduler import CyclicLR

    net = torch.nn.Linear(6, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    batches = [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(8)]
    for epoch in range(20):
        cycle = CyclicLR(optimizer, base_lr=1e-4, max_lr=0.1, step_size_up=len(batches))
        for x, y in batches:
            optimizer.zero_grad()
            ((net(x) - y) ** 2).mean().backward()
            optimizer.step()
        for group in optimizer.param_groups:
            group["lr"] = 0.1 * 0.9 ** epoch
    """
    assert findings(source) == [("LRD008", 15)]


def test_write_followed_by_training_in_the_same_call_is_silent() -> None:
    # control: a later stage of the same call trains on the value written
    tail = """        for x, y in batches:
            optimizer.zero_grad()
            ((self.net(x) - y) ** 2).mean().backward()
            optimizer.step()"""
    assert codes(_rebuilt(tail=tail)) == []


def test_write_handed_to_the_schedule_s_next_step_is_silent() -> None:
    # control: a manual value the scheduler's own next step replaces (a hand-over)
    tail = "        schedule.step()"
    assert "LRD008" not in codes(_rebuilt(tail=tail))


def test_chainable_scheduler_rebuilt_is_silent() -> None:
    # control: StepLR's constructor keeps the LR it finds; never stepped, it changes nothing
    assert codes(_rebuilt("lr_scheduler.StepLR(optimizer, step_size=10)")) == []


def test_optimizer_built_in_the_same_call_is_silent() -> None:
    # control: one OneCycleLR per optimizer, the write after the only training (no rebuild)
    source = """
    import torch
    from torch.optim import lr_scheduler


    def fit(net, batches, epochs, base_lr):
        optimizer = torch.optim.Adam(net.parameters(), lr=base_lr)
        schedule = lr_scheduler.OneCycleLR(optimizer, max_lr=base_lr,
                                           total_steps=epochs * len(batches))
        for epoch in range(epochs):
            for x, y in batches:
                optimizer.zero_grad()
                ((net(x) - y) ** 2).mean().backward()
                optimizer.step()
                schedule.step()
        for group in optimizer.param_groups:
            group["lr"] = base_lr
        return optimizer
    """
    assert codes(source) == []


def test_scheduler_built_once_outside_the_loop_is_silent() -> None:
    # control: built once before the epoch loop, never stepped: the writes rule the LR
    source = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    net = torch.nn.Linear(6, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    batches = [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(8)]
    cycle = OneCycleLR(optimizer, max_lr=0.1, total_steps=160)
    for epoch in range(20):
        for x, y in batches:
            optimizer.zero_grad()
            ((net(x) - y) ** 2).mean().backward()
            optimizer.step()
        for group in optimizer.param_groups:
            group["lr"] = 0.1 * 0.9 ** epoch
    """
    assert "LRD008" not in codes(source)
