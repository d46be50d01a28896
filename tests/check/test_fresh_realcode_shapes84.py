"""The lead, session 48: shapes of real code the checker got wrong, fixed by semantics, in our
own words.

1. A trainer with two set-ups chosen by a flag: a DeepSpeed path (its own AdamW and LambdaLR
   handed to `deepspeed.initialize`, the engine's `save_checkpoint`) and a plain path (another
   AdamW and LambdaLR kept on `self`, both saved with `torch.save` one file each). After the
   `if`, `self.scheduler` holds either branch's scheduler; the optimizer kept on `self` is the
   one such a scheduler drives, i.e. the plain path's own. The plain save then holds its
   scheduler (no LRD007), and where it leaves the scheduler out, the finding names the plain
   path's scheduler, not the DeepSpeed one.
2. A cosine sized to one epoch of the loader's batches (`T_max=len(loader)`) and stepped after
   every batch of a loop over `range(args.epochs)`, the setting's stated default 30: every run
   of more than one epoch steps it past its end and the LR climbs back up (LRD010). The loop's
   count was read only when it was a number where the loop runs, never a setting's default.
"""

from __future__ import annotations

from .helpers import codes, findings, messages

TWO_PATHS = """
import deepspeed
import torch


class Runner:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.engine = None
        self.optimizer = None
        self.scheduler = None

    def fit(self, loader):
        if self.args.deepspeed:
            opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / 100))
            engine, opt, _, sched = deepspeed.initialize(
                model=self.model, optimizer=opt, lr_scheduler=sched, config="ds.json")
            BIND
        else:
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
            self.scheduler = torch.optim.lr_scheduler.LambdaLR(
                self.optimizer, lambda s: min(1.0, s / 100))
        for step, batch in enumerate(loader):
            if self.engine is not None:
                loss = self.engine(batch)
                self.engine.backward(loss)
                self.engine.step()
            else:
                loss = self.model(batch)
                loss.backward()
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
            if step % 1000 == 0:
                self.save(f"ckpt-{step}")

    def save(self, path):
        if self.engine is not None:
            self.engine.save_checkpoint(path)
        elif self.args.local_rank <= 0:
            torch.save(self.optimizer.state_dict(), path + "/optimizer.pt")
            SCHED_SAVE
"""

TUPLE = "self.engine, self.optimizer, self.scheduler = engine, opt, sched"
ONE_BY_ONE = "self.engine = engine\n            self.optimizer = opt\n            self.scheduler = sched"
SCHED_SAVE = 'torch.save(self.scheduler.state_dict(), path + "/scheduler.pt")'


def two_paths(bind: str, sched_save: str) -> str:
    return TWO_PATHS.replace("BIND", bind).replace("SCHED_SAVE", sched_save)


def test_plain_path_saving_its_scheduler_beside_a_deepspeed_path_is_no_lrd007() -> None:
    for bind in (TUPLE, ONE_BY_ONE):
        found = findings(two_paths(bind, SCHED_SAVE))
        assert [c for c, _ in found if c == "LRD007"] == [], (bind, found)


def test_plain_path_leaving_its_scheduler_out_names_that_scheduler() -> None:
    for bind in (TUPLE, ONE_BY_ONE):
        source = two_paths(bind, "pass")
        at = next(i for i, line in enumerate(source.splitlines(), 1) if "optimizer.pt" in line)
        assert ("LRD007", at) in findings(source), bind
        said = [m for m in messages(source) if "scheduler's" in m]
        assert said and all("`self.scheduler`" in m for m in said), said


ONE_EPOCH_COSINE = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=EPOCHS)
args = parser.parse_args()


def main(model, dataset):
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=TMAX)
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
            sched.step()
"""


def one_epoch_cosine(epochs: int, t_max: str) -> str:
    return ONE_EPOCH_COSINE.replace("EPOCHS", str(epochs)).replace("TMAX", t_max)


def test_one_epoch_cosine_under_a_setting_of_thirty_epochs_overruns() -> None:
    source = one_epoch_cosine(30, "len(loader)")
    assert "LRD010" in codes(source)
    said = [m for m in messages(source) if "T_max=len(loader)" in m]
    assert said and "`args.epochs` passes (default 30)" in said[0], said


def test_cosine_sized_to_the_whole_run_is_silent() -> None:
    assert "LRD010" not in codes(one_epoch_cosine(30, "len(loader) * args.epochs"))


def test_one_epoch_cosine_for_a_one_epoch_default_is_silent() -> None:
    assert "LRD010" not in codes(one_epoch_cosine(1, "len(loader)"))


def test_one_epoch_cosine_left_early_is_silent() -> None:
    # early stopping may end the run within the horizon: left alone, as for a literal count
    source = one_epoch_cosine(30, "len(loader)").replace(
        "            sched.step()\n",
        "            sched.step()\n        if opt.param_groups[0][\"lr\"] < 1e-4:\n            break\n")
    assert "LRD010" not in codes(source)
