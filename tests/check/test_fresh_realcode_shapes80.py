"""The lead, session 47: shapes of dev cases the grown real-code cache showed missed or
falsely reported, fixed by semantics, in our own words.

1. A trainer handed its objects in mappings by a driver lrdoctor cannot follow (a config
   names the trainer class): `self.optimizer = self.optimizers["main"]` is an entry of an
   unknown mapping, known by the name it is bound to, as an unknown parameter is. Its
   checkpoint that keeps the optimizer but not the scheduler it steps every epoch is LRD007.
   A plural name (`self.schedulers = objs["schedulers"]`) holds several and is no scheduler.
2. Branches that cannot both run because one part of an `and` contradicts the other test:
   `if not cfg.mode == "swa": sched.step()` and `if epoch > start and cfg.mode == "swa":
   swa_sched.step()` never step in one pass, so the SWA recipe is no LRD012.
3. A model frozen, then given trainable parameters again by `for name, param in
   model.named_parameters(): param.requires_grad = True`, cast to float16 in place after an
   AdamW(eps=1e-8) is built over its trainable parameters: LRD102 (the tuple target of the
   loop was not read).
"""

from __future__ import annotations

from .helpers import codes, findings

MAPPED = """
import torch


class Trainer:
    def __init__(self, objs, epochs, resume=None):
        self.model = objs["model"]
        self.optimizers = objs["optimizers"]
        self.schedulers = objs["schedulers"]
        self.optimizer = self.optimizers["main"]
        self.lr_scheduler = self.schedulers["main"]
        self.epochs = epochs
        if resume is not None:
            self.resume(resume)

    def train(self, loader):
        for epoch in range(self.epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = self.model(x, y)
                loss.backward()
                self.optimizer.step()
            self.lr_scheduler.step()
            self.save(epoch)

    def save(self, epoch):
        state = {
            "epoch": epoch,
            "model": self.model.state_dict(),
            "optimizers": {k: o.state_dict() for k, o in self.optimizers.items()},
            SCHED
        }
        torch.save(state, "last.pt")

    def resume(self, path):
        ckpt = torch.load(path)
        self.model.load_state_dict(ckpt["model"])
        for k, o in self.optimizers.items():
            o.load_state_dict(ckpt["optimizers"][k])
        RESTORE
"""


def mapped(sched: str, restore: str) -> str:
    return MAPPED.replace("SCHED", sched).replace("RESTORE", restore)


def test_trainer_objects_from_unknown_mappings_checkpoint_without_scheduler() -> None:
    found = findings(mapped("", "pass"))
    assert ("LRD007", 33) in found, found  # the torch.save of the checkpoint


def test_trainer_objects_from_unknown_mappings_checkpoint_with_scheduler() -> None:
    source = mapped(
        '"schedulers": {k: s.state_dict() for k, s in self.schedulers.items()},',
        'for k, s in self.schedulers.items():\n'
        '            s.load_state_dict(ckpt["schedulers"][k])')
    assert "LRD007" not in codes(source)


ORDER = """
def fit(objs, loader, epochs):
    optimizer = OPT
    scheduler = SCHED
    for epoch in range(epochs):
        scheduler.step()
        for x, y in loader:
            optimizer.zero_grad()
            objs["model"](x, y).backward()
            optimizer.step()
"""


def order(opt: str, sched: str) -> str:
    return ORDER.replace("OPT", opt).replace("SCHED", sched)


def stepped_after_the_update(source: str) -> str:
    """The same program with the scheduler stepped after every update (the order's fix)."""
    return source.replace("        scheduler.step()\n", "").replace(
        "optimizer.step()\n", "optimizer.step()\n        scheduler.step()\n")


def test_entry_of_unknown_mapping_is_an_optimizer_for_the_order_rule() -> None:
    source = order('objs["optimizer"]', 'objs["scheduler"]')
    assert "LRD001" in codes(source)
    assert "LRD001" not in codes(stepped_after_the_update(source))


def test_plural_entry_is_no_scheduler() -> None:
    # `schedulers` holds several; stepping each of them per epoch is no finding
    source = """
import torch


def fit(objs, loader, epochs):
    optimizer = objs["optimizer"]
    schedulers = objs["schedulers"]
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            objs["model"](x, y).backward()
            optimizer.step()
        for s in schedulers:
            s.step()
        torch.save({"optimizer": optimizer.state_dict(),
                    "schedulers": [s.state_dict() for s in schedulers]}, "c.pt")
"""
    assert codes(source) == []


SWA = """
import torch
from torch.optim.swa_utils import AveragedModel, SWALR


def build(cfg, optimizer):
    if cfg.mode == "step":
        return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)


def main(cfg, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = build(cfg, optimizer)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        MAIN_STEP
        if epoch > cfg.swa_start and cfg.mode == "swa":
            swa_model.update_parameters(model)
            swa_scheduler.step()
"""

ONE_OR_OTHER = """if not cfg.mode == "swa":
            scheduler.step()
        else:
            if epoch <= cfg.swa_start:
                scheduler.step()"""


def test_swa_step_under_and_that_contradicts_the_other_step_is_no_competition() -> None:
    assert "LRD012" not in codes(SWA.replace("MAIN_STEP", ONE_OR_OTHER))


def test_swa_step_beside_a_main_step_on_every_pass_is_still_found() -> None:
    # the main scheduler steps on every pass, SWA or not: once SWA starts it fights SWALR
    assert "LRD012" in codes(SWA.replace("MAIN_STEP", "scheduler.step()"))


def test_or_not_taken_says_no_part_holds() -> None:
    # `if not (cfg.mode == "swa" or cfg.off): scheduler.step()`: the step never runs in
    # swa mode, where SWALR steps
    guard = """if not (cfg.mode == "swa" or cfg.off):
            scheduler.step()"""
    assert "LRD012" not in codes(SWA.replace("MAIN_STEP", guard))


FROZEN = """
import torch


def main(model, adapter, loader, adam_epsilon: float = 1e-08):
    model.requires_grad_(False)
    for name, param in UNFROZEN.named_parameters():
        if "attn" in name:
            param.requires_grad = True
    trainable = list(filter(lambda p: p.requires_grad, model.parameters()))
    optimizer = torch.optim.AdamW(trainable, lr=1e-4, eps=adam_epsilon)
    model.to("cuda", dtype=torch.float16)
    for x in loader:
        model(x).backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def test_unfrozen_through_named_parameters_then_cast_reaches_the_optimizer() -> None:
    # 3. `for name, param in model.named_parameters(): param.requires_grad = True` gives the
    # frozen model trainable parameters again: the in-place float16 cast after the optimizer
    # is built reaches them, and eps=1e-8 rounds to 0
    assert "LRD102" in codes(FROZEN.replace("UNFROZEN", "model"))


def test_unfreezing_another_module_leaves_the_frozen_model_out() -> None:
    # the loop unfreezes another module: every float16 weight of `model` is filtered out
    assert "LRD102" not in codes(FROZEN.replace("UNFROZEN", "adapter"))


def test_entry_read_with_get_or_pop_is_known_by_its_name() -> None:
    # `objs.get("optimizer")` / `objs.pop("scheduler", None)` read one entry as a subscript does
    source = order('objs.get("optimizer")', 'objs.pop("scheduler", None)')
    assert "LRD001" in codes(source)
    assert codes(stepped_after_the_update(source)) == []


def test_only_an_object_name_of_a_mapping_handed_in_is_guessed() -> None:
    # which entries are guessed: an object's name, read from a mapping not loaded from a file
    import ast

    from lrdoctor.check.index import Scope
    from lrdoctor.check.trace import _entry_of_held_objects

    def guessed(stmt: str, sources: dict[str, str] | None = None) -> bool:
        node = ast.parse(stmt).body[0]
        assert isinstance(node, ast.Assign)
        scope = Scope({}, None, None)  # type: ignore[arg-type]
        for name, text in (sources or {}).items():
            scope.sources[name] = ast.parse(text, mode="eval").body
        label = ast.unparse(node.targets[0])
        return _entry_of_held_objects(node.value, label, scope)

    assert guessed('self.optimizer = self.optimizers["model"]')
    assert guessed('lr_scheduler = objs.get("lr_scheduler")')
    assert guessed('scaler = parts.pop("scaler", None)')
    assert not guessed('self.schedulers = objs["schedulers"]')  # several
    assert not guessed('schedule_index = checkpoint["schedule_index"]')  # a count
    assert not guessed('sched_name = cfg["sched_name"]')  # a setting
    assert not guessed('optimizer_state = ckpt["optimizer"]')  # a record
    assert not guessed('optimizer = ckpt["optimizer"]', {"ckpt": "torch.load(path)"})
    assert not guessed('scheduler = torch.load(path)["scheduler"]')
    assert not guessed('optimizer = objs[name]')  # a key chosen at run time

