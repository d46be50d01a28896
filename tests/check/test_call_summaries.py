"""Calls are traced once and replayed at every later call site (per-call summaries): a helper
called many times costs its events, not its statements, and nothing is silently cut off."""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source
from tests.check.helpers import codes, findings


def _script_with_busy_helper(calls: int) -> str:
    helper = "\n".join(f"    total_{i} = value * {i} + len(name)" for i in range(40))
    lines = [
        "import torch",
        "from torch.optim.lr_scheduler import StepLR",
        "",
        "def log_metric(name, value):",
        helper,
        "    return value",
        "",
        "def train(model, loader, epochs):",
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
        "    scheduler = StepLR(optimizer, step_size=7)",
        "    for epoch in range(epochs):",
        "        for x, y in loader:",
        "            loss = model(x).sum()",
        "            loss.backward()",
        "            optimizer.step()",
        *(f"            log_metric('metric_{i}', loss)" for i in range(calls)),
        "            scheduler.step()",
    ]
    return "\n".join(lines) + "\n"


def test_bug_after_a_helper_called_two_thousand_times_is_reported() -> None:
    result = check_source(_script_with_busy_helper(2000), "train.py")
    assert [d.code for d in result.diagnostics] == ["LRD002"]
    assert result.notes == []


def test_helper_first_called_outside_any_loop_is_replayed_inside_the_batch_loop() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def update(optimizer, scheduler):
        optimizer.step()
        scheduler.step()

    def main(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=7)
        model(next(iter(loader))).sum().backward()
        update(optimizer, scheduler)  # a first update before training starts
        for epoch in range(epochs):
            for x in loader:
                model(x).sum().backward()
                update(optimizer, scheduler)
    """
    assert ("LRD002", 7) in findings(src)


def test_helper_with_its_own_loop_replayed_in_the_epoch_loop_keeps_its_batch_loop() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    def run_epoch(model, loader, optimizer):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()

    def main(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = OneCycleLR(optimizer, max_lr=1.0, total_steps=epochs * len(loader))
        run_epoch(model, loader, optimizer)  # warm-up epoch
        for epoch in range(epochs):
            run_epoch(model, loader, optimizer)
            scheduler.step()
    """
    assert codes(src) == ["LRD003"]


def _warmup_then_epochs(epoch_body: str) -> str:
    return f"""
    import torch
    from torch.optim.lr_scheduler import StepLR

    def train_step(model, x, optimizer):
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()

    def main(model, loader, warmup_loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=30)
        for x in warmup_loader:
            train_step(model, x, optimizer)
        for epoch in range(epochs):
{textwrap.indent(textwrap.dedent(epoch_body), " " * 12)}
    """


def test_scheduler_stepped_before_a_replayed_train_step_is_reported() -> None:
    # train_step is traced in the warm-up loop and replayed in the epoch loop: its updates
    # must count as updates of the epoch loop
    src = _warmup_then_epochs("""
        scheduler.step()
        for x in loader:
            train_step(model, x, optimizer)
    """)
    assert codes(src) == ["LRD001"]


def test_scheduler_stepped_after_a_replayed_train_step_is_correct() -> None:
    src = _warmup_then_epochs("""
        for x in loader:
            train_step(model, x, optimizer)
        scheduler.step()
    """)
    assert codes(src) == []


def test_two_optimizers_from_one_factory_stay_two_optimizers() -> None:
    # a factory returns a new object at every call: its summary is never reused
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def make_optimizer(module):
        return torch.optim.Adam(module.parameters(), lr=2e-4)

    def main(generator, critic, loader, epochs):
        opt_g = make_optimizer(generator)
        opt_d = make_optimizer(critic)
        sched_g = StepLR(opt_g, step_size=30)
        sched_d = StepLR(opt_d, step_size=30)
        for epoch in range(epochs):
            for x in loader:
                critic(x).sum().backward()
                opt_d.step()
                generator(x).sum().backward()
                opt_g.step()
            sched_g.step()
            sched_d.step()
    """
    assert codes(src) == []


def test_optimizer_rebuilt_between_two_calls_of_the_same_method_is_seen() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    class Trainer:
        def __init__(self, model, loader):
            self.model, self.loader = model, loader
            self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            self.scheduler = StepLR(self.optimizer, step_size=30)

        def train_epoch(self):
            for x in self.loader:
                self.model(x).sum().backward()
                self.optimizer.step()
            self.scheduler.step()

        def fit(self, epochs):
            self.train_epoch()
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
            self.train_epoch()
    """
    assert "LRD014" in codes(src)


def test_a_file_cut_short_says_it_was_only_partly_analysed() -> None:
    # every level calls the next twice: 2**40 call paths, far past any budget
    levels = "\n".join(
        f"def level{i}(o):\n    level{i + 1}(o)\n    level{i + 1}(o)\n" for i in range(40)
    )
    src = ("import torch\n" + levels + "\ndef level40(o):\n    o.step()\n"
           "level0(torch.optim.SGD([], lr=0.1))\n")
    result = check_source(textwrap.dedent(src), "deep.py")
    assert result.errors == []
    assert any("only partly analysed" in n for n in result.notes)


def test_an_ordinary_script_is_not_said_to_be_partly_analysed() -> None:
    result = check_source(_script_with_busy_helper(50), "train.py")
    assert result.notes == []


_HOLDER = '''
import torch
from torch import nn


class Holder:
    def __init__(self, optimizer, scheduler):
        self.optimizer = optimizer
        self.scheduler = scheduler

    def describe(self):
        return "holder"


def main(loader):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    print(Holder(optimizer, scheduler).describe())
    holder = Holder(optimizer, scheduler)
    for epoch in range(90):
        for x in loader:
            holder.optimizer.zero_grad()
            model(x).sum().backward()
            holder.optimizer.step()
            {step}


main([torch.randn(3, 4)] * 10)
'''


def test_a_call_on_a_new_object_never_replays_a_freed_objects_call() -> None:
    # the first Holder is a temporary, freed after its line; the second one is built with the
    # same arguments and (in CPython) usually at the freed one's address. A summary keyed on
    # the bare address replayed the first `__init__` for it, which stored nothing on the new
    # instance: its scheduler was unknown and the per-batch StepLR went unreported (a finding
    # that came and went with the allocator's history)
    buggy = _HOLDER.replace("{step}", "holder.scheduler.step()")
    assert codes(buggy) == ["LRD002"]
    correct = _HOLDER.replace("            {step}", "        holder.scheduler.step()")
    assert codes(correct) == []
