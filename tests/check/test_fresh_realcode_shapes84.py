"""The lead, session 48: shapes of real code the checker got wrong, fixed by semantics, in our
own words.

1. A trainer with two set-ups chosen by a flag: a DeepSpeed path (its own AdamW and LambdaLR
   handed to `deepspeed.initialize`, the engine's `save_checkpoint`) and a plain path (another
   AdamW and LambdaLR kept on `self`, both saved with `torch.save` one file each). After the
   `if`, `self.scheduler` holds either branch's scheduler; the optimizer kept on `self` is the
   one such a scheduler drives, i.e. the plain path's own. The plain save then holds its
   scheduler (no LRD007), and where it leaves the scheduler out, the finding names the plain
   path's scheduler, not the DeepSpeed one.
"""

from __future__ import annotations

from .helpers import findings, messages

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
