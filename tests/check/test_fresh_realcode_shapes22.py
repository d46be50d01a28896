"""A shape met beside the fresh-2026-12zc batch of real code (issue 7), written in our own words.

An image-captioning trainer keeps its optimizers in a dict (``{"model": Adam(...), "backbone":
Adam(...)}``) returned by a builder, builds its learning-rate scheduler on one entry, and calls
the builder again at a phase switch. The checker knew a *name* rebound to a new optimizer while
a scheduler still drives the old one (LRD014), but not the same replacement through a dict: a
name rebound to a new dict whose entry under the same key is another optimizer, or an entry
assigned in place (``optimizers["model"] = Adam(...)``). Both now count as replacing the
optimizer that entry held.

Whether the old optimizer is really left behind is now read the same way for names and
entries: where it is still updated after the rebind (it is held under another name too), or
earlier in the same pass of the loop the rebind sits in (``current = opt_g ... step ...
current = opt_d ... step`` on every iteration, so the next pass updates it again), its
scheduler still reaches training and nothing is reported. The plain-name form of that
alternation was a false alarm before.

Controls: the scheduler rebuilt on the new entry, a phase that replaces the dict but never
steps the scheduler again, and a dict that holds the same optimizer again stay silent.
"""

from __future__ import annotations

from tests.check.helpers import findings

_PHASES = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def build(model, lr):
    return {"main": torch.optim.Adam(model.parameters(), lr=lr), "mode": lr}


def one_epoch(model, loader, opts, scheduler):
    for x, y in loader:
        opts["main"].zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opts["main"].step()
        scheduler.step()


def main(loader):
    model = torch.nn.Linear(4, 1)
    opts = build(model, 1e-3)
    scheduler = CosineAnnealingLR(opts["main"], T_max=20 * len(loader))
    for epoch in range(20):
        if epoch == 10:
            {SWITCH}
        one_epoch(model, loader, opts, scheduler)
"""


def test_dict_of_optimizers_rebuilt_while_the_scheduler_keeps_the_old_one() -> None:
    assert findings(_PHASES.replace("{SWITCH}", "opts = build(model, 1e-4)")) == [
        ("LRD014", 15)]


def test_dict_entry_replaced_in_place() -> None:
    src = _PHASES.replace(
        "{SWITCH}", 'opts["main"] = torch.optim.Adam(model.parameters(), lr=1e-4)')
    assert findings(src) == [("LRD014", 15)]


def test_dict_literal_rebound_in_the_same_function() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    def main(loader, model):
        opts = {"net": torch.optim.SGD(model.parameters(), lr=0.1)}
        sched = StepLR(opts["net"], step_size=5)
        for epoch in range(20):
            if epoch == 8:
                opts = {"net": torch.optim.SGD(model.parameters(), lr=0.01)}
            for x, y in loader:
                opts["net"].zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opts["net"].step()
            sched.step()
    """
    assert findings(src) == [("LRD014", 16)]


def test_control_scheduler_rebuilt_on_the_new_entry() -> None:
    src = _PHASES.replace(
        "{SWITCH}",
        "opts = build(model, 1e-4)\n"
        '            scheduler = CosineAnnealingLR(opts["main"], T_max=10 * len(loader))')
    assert findings(src) == []


def test_control_replaced_for_a_phase_that_never_steps_the_scheduler() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import CosineAnnealingLR


    def build(model, lr):
        return {"main": torch.optim.Adam(model.parameters(), lr=lr)}


    def scheduled(model, loader, opts, scheduler):
        for x, y in loader:
            opts["main"].zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opts["main"].step()
            scheduler.step()


    def plain(model, loader, opts):
        for x, y in loader:
            opts["main"].zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opts["main"].step()


    def main(model, loader):
        opts = build(model, 1e-3)
        scheduler = CosineAnnealingLR(opts["main"], T_max=10 * len(loader))
        for epoch in range(10):
            scheduled(model, loader, opts, scheduler)
        opts = build(model, 1e-5)
        for epoch in range(5):
            plain(model, loader, opts)
    """
    assert findings(src) == []


def test_control_same_optimizer_held_again() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    def main(model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = StepLR(optimizer, step_size=5)
        for epoch in range(20):
            holder = {"opt": optimizer, "epoch": epoch}
            for x, y in loader:
                holder["opt"].zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                holder["opt"].step()
            sched.step()
            holder = {"opt": optimizer, "epoch": epoch + 1}
    """
    assert findings(src) == []


_ALTERNATING = """
import torch
from torch.optim.lr_scheduler import StepLR


def main(gen, disc, loader):
    opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
    sched_g = StepLR(opt_g, step_size=10)
    for epoch in range(20):
        for x in loader:
            {FIRST}
            {STEP}.zero_grad()
            (-disc(gen(x)).mean()).backward()
            {STEP}.step()
            {SECOND}
            {STEP}.zero_grad()
            disc(gen(x).detach()).mean().backward()
            {STEP}.step()
        sched_g.step()
"""


def test_alternating_name_updates_both_optimizers_every_pass() -> None:
    src = (_ALTERNATING.replace("{FIRST}", "current = opt_g")
           .replace("{SECOND}", "current = opt_d").replace("{STEP}", "current"))
    assert findings(src) == []


def test_alternating_dict_updates_both_optimizers_every_pass() -> None:
    src = (_ALTERNATING.replace("{FIRST}", 'current = {"opt": opt_g}')
           .replace("{SECOND}", 'current = {"opt": opt_d}').replace("{STEP}", 'current["opt"]'))
    assert findings(src) == []


def test_control_old_optimizer_dropped_for_good_is_still_reported() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    def main(model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = StepLR(optimizer, step_size=5)
        for epoch in range(20):
            if epoch == 5:
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            sched.step()
    """
    assert findings(src) == [("LRD014", 16)]
