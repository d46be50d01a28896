"""Shapes met while reading the fresh-2026-12zh batch of real code (issue 7), in our own words.

1. ``scheduler.step()`` called once before the training loop, outside any loop, before the
   optimizer has ever stepped (a research driver on the ImageNet-example lineage steps
   whichever scheduler its flag picked right before ``for epoch in ...``). The schedule
   advances before any update used its first value: the same shift as a step at the top of the
   epoch loop (every milestone comes one epoch early; PyTorch warns). lrdoctor judged LRD001
   only for steps inside a loop. A step that repositions a resumed schedule (under a resume
   test, after ``load_state_dict``, on a scheduler built with ``last_epoch=``), one after a
   first update, a fast-forward loop with no update in it, and the usual order stay silent.
2. The same unconditional ``scheduler.step()`` when the flag may pick a ReduceLROnPlateau (the
   plateau stepped with the validation accuracy elsewhere, under its own setting test): the
   call raises TypeError on that option. A metric-less plateau step was excused whenever it sat
   under any test, the scheduler choice itself and ``if __name__ == "__main__":`` included;
   only a test the metric step is not under guards it now.
3. A resumable checkpoint completed in a loop under keys formatted at run time
   (``checkpoint[f"decoder_optimizer_{i}"] = opts[i].state_dict()``, one entry per decoder)
   was read as partly unknown, so a GradScaler left out of it went unreported (LRD007). A
   computed key is unknown, but the entry is not when its value is a tracked object's state,
   or a module's ``state_dict()`` under a key whose text names it. A key and value both unknown
   (``for k, v in extra.items(): ckpt[k] = v``) still leave the checkpoint partly unknown.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages


def _line(source: str, text: str) -> int:
    """The line of the first occurrence of ``text`` in ``source``."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)

# -- 1. a step before the training loop ---------------------------------------------------------

_BEFORE_LOOP = """
import torch
from torch.optim import lr_scheduler


def train_one_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def main(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = lr_scheduler.MultiStepLR(optimizer, milestones=[80, 120], gamma=0.1)
{BEFORE}
    for epoch in range(args.start_epoch, args.epochs):
        train_one_epoch(model, loader, optimizer)
        scheduler.step()
"""


def _before(before: str) -> str:
    return _BEFORE_LOOP.format(BEFORE=before)


def test_step_once_before_the_training_loop_is_reported() -> None:
    source = _before("    scheduler.step()")
    assert ("LRD001", _line(source, "scheduler.step()")) in findings(source)
    assert any("once before the training loop" in m for m in messages(source))


def test_step_before_the_loop_on_a_choice_of_schedulers_is_reported() -> None:
    source = """
    import torch
    from torch.optim import lr_scheduler

    def train_one_epoch(model, loader, optimizer):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()

    def main(args, model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if args.schedule == "step":
            scheduler = lr_scheduler.StepLR(optimizer, step_size=30)
        elif args.schedule == "cosine":
            scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
        scheduler.step()
        for epoch in range(args.epochs):
            train_one_epoch(model, loader, optimizer)
            scheduler.step()
    """
    assert ("LRD001", _line(source, "scheduler.step()")) in findings(source)


def test_step_after_the_updates_stays_silent() -> None:
    assert "LRD001" not in codes(_before("    pass"))


def test_step_repositioning_a_resumed_schedule_stays_silent() -> None:
    resumed = (
        "    if args.resume:\n"
        "        state = torch.load(args.resume)\n"
        "        optimizer.load_state_dict(state['optimizer'])\n"
        "        scheduler.step()"
    )
    assert "LRD001" not in codes(_before(resumed))


def test_step_after_loading_the_schedulers_state_stays_silent() -> None:
    loaded = "    scheduler.load_state_dict(torch.load(args.ckpt)['scheduler'])\n" \
             "    scheduler.step()"
    assert "LRD001" not in codes(_before(loaded))


def test_step_of_a_scheduler_built_at_a_resumed_position_stays_silent() -> None:
    source = _before("    scheduler.step()").replace(
        "gamma=0.1)", "gamma=0.1,\n                                         "
        "last_epoch=args.start_epoch - 1)")
    assert "LRD001" not in codes(source)


def test_step_after_a_first_update_stays_silent() -> None:
    warmed = "    optimizer.zero_grad()\n    optimizer.step()\n    scheduler.step()"
    assert "LRD001" not in codes(_before(warmed))


def test_fast_forward_loop_before_training_stays_silent() -> None:
    forward = "    for _ in range(args.start_epoch):\n        scheduler.step()"
    assert "LRD001" not in codes(_before(forward))


# -- 2. the same step when the choice may be a ReduceLROnPlateau ---------------------------------

_PLATEAU_CHOICE = """
import torch
from torch.optim.lr_scheduler import MultiStepLR, ReduceLROnPlateau


def run_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return 0.5


def main(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.schedule == "multistep":
        scheduler = MultiStepLR(optimizer, milestones=[30, 60])
    elif args.schedule == "plateau":
        scheduler = ReduceLROnPlateau(optimizer, mode="max", patience=3)
{BEFORE}
    for epoch in range(args.epochs):
        val_acc = run_epoch(model, loader, optimizer)
        if args.schedule == "multistep":
            scheduler.step()
        elif args.schedule == "plateau":
            scheduler.step(val_acc)


if __name__ == "__main__":
    main(None, None, None)
"""


def test_metricless_step_on_a_choice_that_may_be_a_plateau_is_reported() -> None:
    source = _PLATEAU_CHOICE.format(BEFORE="    scheduler.step()")
    assert ("LRD004", _line(source, "scheduler.step()")) in findings(source)


def test_metricless_step_guarded_away_from_the_plateau_stays_silent() -> None:
    guarded = '    if args.schedule != "plateau":\n        scheduler.step()'
    assert "LRD004" not in codes(_PLATEAU_CHOICE.format(BEFORE=guarded))


def test_choice_stepped_by_its_own_branches_stays_silent() -> None:
    assert "LRD004" not in codes(_PLATEAU_CHOICE.format(BEFORE="    pass"))


# -- 3. a checkpoint completed under keys formatted at run time ----------------------------------

_DECODERS = """
import torch
from torch import nn


class Trainer:
    def __init__(self, args, loader):
        self.args = args
        self.loader = loader
        self.extra = {{}}
        self.names = ["encoder"]
        self.encoder = nn.Linear(4, 4)
        self.decoders = [nn.Linear(4, 4) for _ in range(3)]
        self.encoder_optimizer = torch.optim.AdamW(self.encoder.parameters(), lr=1e-3)
        self.decoder_optimizers = []
        for decoder in self.decoders:
            self.decoder_optimizers.append(torch.optim.AdamW(decoder.parameters(), lr=1e-3))
        self.scaler = torch.amp.GradScaler("cuda") if args.amp else None

    def save_checkpoint(self, epoch, path):
        checkpoint = {{"epoch": epoch, "encoder": self.encoder.state_dict(),
                      "encoder_optimizer": self.encoder_optimizer.state_dict()}}
{ENTRIES}
        torch.save(checkpoint, path)

    def train(self):
        for epoch in range(self.args.epochs):
            for x in self.loader:
                loss = sum(d(self.encoder(x)).sum() for d in self.decoders)
                self.encoder_optimizer.zero_grad()
                for opt in self.decoder_optimizers:
                    opt.zero_grad()
                if self.args.amp:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.encoder_optimizer)
                    for opt in self.decoder_optimizers:
                        self.scaler.step(opt)
                    self.scaler.update()
                else:
                    loss.backward()
                    self.encoder_optimizer.step()
                    for opt in self.decoder_optimizers:
                        opt.step()
            self.save_checkpoint(epoch, "last.pt")
"""


def _decoders(entries: str) -> str:
    return _DECODERS.format(ENTRIES=entries)


_FSTRING_ENTRIES = """\
        for i, decoder in enumerate(self.decoders):
            checkpoint[f"decoder_{i}"] = decoder.state_dict()
            checkpoint[f"decoder_optimizer_{i}"] = self.decoder_optimizers[i].state_dict()"""


def test_scaler_missing_from_checkpoint_with_formatted_keys_is_reported() -> None:
    source = _decoders(_FSTRING_ENTRIES)
    assert ("LRD007", _line(source, "torch.save(")) in findings(source)
    assert any("GradScaler" in m for m in messages(source) if "checkpoint" in m)


def test_percent_formatted_keys_are_read_the_same() -> None:
    entries = _FSTRING_ENTRIES.replace('f"decoder_{i}"', '"decoder_%d" % i').replace(
        'f"decoder_optimizer_{i}"', '"decoder_optimizer_{}".format(i)')
    source = _decoders(entries)
    assert ("LRD007", _line(source, "torch.save(")) in findings(source)


def test_scaler_saved_beside_formatted_keys_stays_silent() -> None:
    entries = _FSTRING_ENTRIES + "\n        if self.scaler is not None:\n" \
        '            checkpoint["scaler"] = self.scaler.state_dict()'
    assert "LRD007" not in codes(_decoders(entries))


def test_scaler_saved_under_a_formatted_key_stays_silent() -> None:
    entries = """\
        for name, obj in [("decoder_optimizer", self.decoder_optimizers[0]),
                          ("grad", self.scaler)]:
            checkpoint[f"{name}_state"] = obj.state_dict()"""
    assert "LRD007" not in codes(_decoders(entries))


def test_entries_of_unknown_key_and_value_stay_unknown() -> None:
    entries = "        for key, value in self.extra.items():\n            checkpoint[key] = value"
    assert "LRD007" not in codes(_decoders(entries))


def test_formatted_key_that_names_nothing_stays_unknown() -> None:
    entries = """\
        for name in self.names:
            checkpoint[f"{name}_state_dict"] = getattr(self, name).state_dict()"""
    assert "LRD007" not in codes(_decoders(entries))
