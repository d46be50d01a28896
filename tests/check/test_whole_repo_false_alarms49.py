"""fphunt59: false alarms found in code beginners copy (course repositories, project
templates, the frameworks' own examples and tests), each fixed by semantics. Every false
shape, written here in our own words, must be silent; a buggy twin must still be reported.

1. A LightningModule overriding ``lr_scheduler_step(self, scheduler, metric)`` with the body
   Lightning's documentation gives as its default: ``if metric is None: scheduler.step()``
   / ``else: scheduler.step(metric)``, with a StepLR from ``configure_optimizers``. Lightning
   hands the hook the monitored value only for a scheduler configured as a plateau (a
   ReduceLROnPlateau, or a dict entry with ``"reduce_on_plateau": True``); any other gets
   ``None``. lrdoctor traced the hook with the metric unknown, so the ``else`` branch looked
   reachable for the StepLR: LRD006. The metric is now None for a torch scheduler that is not
   a plateau and no entry flags as one (the last parameter, also in 1.x's
   ``(scheduler, optimizer_idx, metric)``). An unconditional ``scheduler.step(metric)`` is
   then ``step(None)``, that is ``step()``: silent too. Still LRD006: the documented
   alternative ``scheduler.step(epoch=self.current_epoch)``, a step with an epoch on the
   branch a None metric takes, and a StepLR flagged ``"reduce_on_plateau": True`` (Lightning
   hands it the value, which StepLR takes as its epoch).

2. LRD013's Lightning rule (a ReduceLROnPlateau monitoring a value logged without
   ``sync_dist=True`` while a Trainer of the file runs several processes) took any
   multi-process Trainer of the file. In a test module each test defines its own
   LightningModule inside the test function and fits it with its own Trainer: a class defined
   in a function's body exists only in that call, so only a Trainer of that function (or one
   it calls) can fit it, unless the function hands something out (``return`` / ``yield`` of
   a name, a ``global`` store). The plateau's class trained on one process is silent though
   another test of the file runs ``devices=2``; its own Trainer with ``devices=2``, or the
   class at module level, is still LRD013.

3. (real code) A course trainer picks its scheduler by a setting (``if cfg.sched == "step":
   StepLR`` / ``"cosine"``: CosineAnnealingLR / ``"onecycle"``: OneCycleLR), writes a manual
   warm-up into ``param_group["lr"]`` during the first epochs, steps the OneCycleLR per batch
   under ``if cfg.sched == "onecycle" and sched is not None:`` and the others per epoch under
   ``if cfg.sched != "onecycle" and ...``. A warm-up that ends before the epoch schedule's
   first drop hands over to it (lrdoctor's rule); but the per-batch step counted as a step of
   the StepLR too, so LRD008. The body of ``if A and B:`` runs only where A holds (and the
   ``else`` of ``if A or B:`` only where neither does): a string setting compared inside an
   ``and`` now says what it says alone, so the OneCycle-only step is apart from the StepLR's
   build. Stepping the epoch schedules per batch (the twin) is still LRD008 (and LRD002), and
   its message now names every class the setting can bind to the name (it named the first
   only, StepLR).
"""

from __future__ import annotations

from .helpers import codes, findings, messages

# {hook}: the body of lr_scheduler_step; {entry}: extra keys of the scheduler's dict;
# {sched}: the scheduler configure_optimizers builds; {params}: the hook's parameters
_HOOK = """
import torch
from torch import nn
import {package} as pl


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 1)

    def training_step(self, batch, batch_idx):
        inputs, targets = batch
        loss = nn.functional.mse_loss(self.body(inputs), targets)
        self.log("fit_loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.05)
        sched = {sched}
        return {{"optimizer": opt,
                 "lr_scheduler": {{"scheduler": sched, "interval": "epoch"{entry}}}}}

    def lr_scheduler_step(self, {params}):
{hook}


def main():
    data = torch.utils.data.TensorDataset(torch.randn(48, 6), torch.randn(48, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=12)
    pl.Trainer(max_epochs=40).fit(Regressor(), loader)


if __name__ == "__main__":
    main()
"""

_DEFAULT_BODY = """        if metric is None:
            scheduler.step()
        else:
            scheduler.step(metric)"""

_STEP = "torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)"


def hook(body: str = _DEFAULT_BODY, entry: str = "", sched: str = _STEP,
         params: str = "scheduler, metric", package: str = "lightning.pytorch") -> str:
    return _HOOK.format(hook=body, entry=entry, sched=sched, params=params, package=package)


def test_documented_default_hook_body_on_a_step_scheduler_is_silent() -> None:
    assert codes(hook()) == []


def test_unconditional_step_with_the_metric_on_a_step_scheduler_is_silent() -> None:
    assert codes(hook(body="        scheduler.step(metric)")) == []


def test_default_body_with_the_one_x_signature_is_silent() -> None:
    assert codes(hook(params="scheduler, optimizer_idx, metric",
                      package="pytorch_lightning")) == []


def test_entry_saying_no_plateau_is_silent() -> None:
    assert codes(hook(entry=', "reduce_on_plateau": False')) == []


def test_default_body_on_a_plateau_is_silent() -> None:
    assert codes(hook(sched="torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)",
                      entry=', "monitor": "fit_loss"')) == []


def test_step_with_the_epoch_in_the_hook_is_still_found() -> None:
    assert codes(hook(body="        scheduler.step(epoch=self.current_epoch)")) == ["LRD006"]


def test_epoch_handed_on_the_branch_a_none_metric_takes_is_still_found() -> None:
    body = """        if metric is not None:
            scheduler.step(metric)
        else:
            scheduler.step(self.current_epoch)"""
    assert findings(hook(body=body)) == [("LRD006", 28)]


def test_step_scheduler_flagged_as_a_plateau_is_still_found() -> None:
    # Lightning hands a scheduler flagged `reduce_on_plateau` the monitored value
    found = hook(entry=', "reduce_on_plateau": True, "monitor": "fit_loss"')
    assert codes(found) == ["LRD006"]


# {watched}: where the plateau's class is defined and fitted; {other}: a second test
_TESTS = """
import torch
from torch import nn
import lightning.pytorch as pl


class Shared(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 1)

    def training_step(self, batch, batch_idx):
        inputs, targets = batch
        return nn.functional.mse_loss(self.body(inputs), targets)

    def train_dataloader(self):
        data = torch.utils.data.TensorDataset(torch.randn(24, 3), torch.randn(24, 1))
        return torch.utils.data.DataLoader(data, batch_size=6)

{watched}

def test_many_processes(tmp_path):
    class Bare(Shared):
        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    fitter = pl.Trainer(default_root_dir=tmp_path, accelerator="cpu", devices=2,
                        strategy="ddp", max_epochs=1)
    fitter.fit(Bare())
"""

_WATCHED_BODY = """    class Watched(Shared):
        def training_step(self, batch, batch_idx):
            loss = super().training_step(batch, batch_idx)
            self.log("fit_loss", loss)
            return loss

        def configure_optimizers(self):
            opt = torch.optim.SGD(self.parameters(), lr=0.1)
            return {"optimizer": opt, "monitor": "fit_loss",
                    "lr_scheduler": torch.optim.lr_scheduler.ReduceLROnPlateau(opt)}
"""


def watched(devices: str = "", nested: bool = True, hands_out: bool = False) -> str:
    trainer = f"    fitter = pl.Trainer(default_root_dir=tmp_path, max_epochs=3{devices})\n" \
              "    fitter.fit(Watched())\n"
    if hands_out:
        trainer += "    return fitter\n"
    if nested:
        body = "def test_one_process(tmp_path):\n" + _WATCHED_BODY + "\n" + trainer
    else:
        unindented = "\n".join(line[4:] for line in _WATCHED_BODY.splitlines())
        body = unindented + "\n\n\ndef test_one_process(tmp_path):\n" + trainer
    return _TESTS.format(watched=body)


def test_plateau_class_of_a_single_process_test_is_silent() -> None:
    assert codes(watched()) == []


def test_plateau_class_fitted_by_its_own_ddp_trainer_is_still_found() -> None:
    assert codes(watched(devices=', devices=2, strategy="ddp"')) == ["LRD013"]


def test_plateau_class_at_module_level_is_still_found() -> None:
    assert codes(watched(nested=False)) == ["LRD013"]


def test_plateau_class_of_a_function_that_hands_out_a_value_is_still_found() -> None:
    assert codes(watched(hands_out=True)) == ["LRD013"]


# {per_batch} / {per_epoch}: the tests guarding the step in the batch loop and after it
_PICKED = """
import torch
from torch import nn


class Settings:
    sched = "cosine"
    warm_epochs = 3
    epochs = 40
    lr = 0.1


def fit(cfg, loader):
    net = nn.Linear(5, 2)
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
    if cfg.sched == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.1)
    elif cfg.sched == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    elif cfg.sched == "onecycle":
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr,
                                                    total_steps=cfg.epochs * len(loader))
    else:
        sched = None
    for epoch in range(cfg.epochs):
        for i, (x, y) in enumerate(loader):
            if epoch < cfg.warm_epochs:
                done = (epoch * len(loader) + i) / (cfg.warm_epochs * len(loader))
                for group in opt.param_groups:
                    group["lr"] = cfg.lr * done
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
            if cfg.sched {per_batch} "onecycle" and sched is not None:
                sched.step()
        if cfg.sched {per_epoch} "onecycle" and sched is not None:
            sched.step()


if __name__ == "__main__":
    fit(Settings(), [(torch.randn(4, 5), torch.randint(0, 2, (4,))) for _ in range(10)])
"""


def test_warm_up_beside_a_step_only_the_onecycle_option_takes_is_silent() -> None:
    assert codes(_PICKED.format(per_batch="==", per_epoch="!=")) == []


def test_warm_up_while_the_epoch_schedules_step_per_batch_is_still_found() -> None:
    source = _PICKED.format(per_batch="!=", per_epoch="==")
    assert findings(source) == [("LRD008", 30), ("LRD002", 35)]
    assert messages(source)[0].startswith(
        "param_group['lr'] is written here while StepLR (line 17) or CosineAnnealingLR "
        "(line 19) `sched`, whichever the setting picks, drives the same optimizer")
