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
"""

from __future__ import annotations

from .helpers import codes, findings

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
