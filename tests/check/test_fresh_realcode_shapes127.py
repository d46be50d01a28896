"""Shapes seen in the fresh-2026-12zzz125 batch (rcnew125, bench/realcode/README.md): mixed
precision and checkpoints in trainer classes and helpers (a GradScaler switched by a trainer's
constructor option, Accelerate's float16 mixed precision, checkpoints that store the scaler
only when AMP is on).

Programs written for these tests; no third-party code.

Two gaps, fixed:

- LRD005 under Accelerate: ``Accelerator(mixed_precision="fp16")`` routes a prepared
  optimizer's ``step()`` through a GradScaler that skips updates on inf/NaN gradients. A
  prepared scheduler follows only the real updates, unless the Accelerator was built with
  ``step_scheduler_with_optimizer=False`` (it then steps on every call); a scheduler never
  handed to ``prepare()`` steps on every call too. Neither was reported.
- LRD007 false alarm: a trainer class whose ``__init__`` stores its ``enable_amp=False``
  option (``self._enable_amp = enable_amp``) builds ``GradScaler(enabled=self._enable_amp)``
  and saves ``state["scaler"]`` (and restores it) under ``if self._enable_amp:``. Built by a
  driver that leaves the option out, the trace decides that ``if`` by the default (nothing
  saved) while it judges the scaler, as lrdoctor judges a trainer's AMP option everywhere, by
  its switch as a flag that may be on: "the checkpoint stores the optimizer but not the
  GradScaler (when `self._enable_amp` is on)". A save or resume that handles the scaler under
  a test that is the scaler's own switch now counts as holding it: it does in every run where
  the scaler scales.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, messages, project_codes

# -- Accelerate float16: schedulers stepped after a prepared optimizer's step -------------------

ACCEL = '''
import argparse
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--mixed_precision", default="no", choices=["no", "fp16", "bf16"])
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()


def run(net, dataset):
    acc = Accelerator(ACCEL_ARGS)
    data = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=True)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-5)
    warm = get_linear_schedule_with_warmup(opt, 100, args.epochs * len(data))
    PREPARE
    for epoch in range(args.epochs):
        for x, y in data:
            out = net(x)
            loss = torch.nn.functional.cross_entropy(out, y)
            acc.backward(loss)
            opt.step()
STEP
            opt.zero_grad()


if __name__ == "__main__":
    run(torch.nn.Linear(8, 2), torch.utils.data.TensorDataset(torch.randn(64, 8)))
'''

PREPARED = "net, opt, data, warm = acc.prepare(net, opt, data, warm)"
BARE = "net, opt, data = acc.prepare(net, opt, data)"
PLAIN_STEP = "            warm.step()\n"
STEP_LINE = ACCEL.splitlines().index("STEP") + 1


def accel(accel_args: str, prepare: str = PREPARED, step: str = PLAIN_STEP) -> str:
    return (ACCEL.replace("ACCEL_ARGS", accel_args).replace("PREPARE", prepare)
            .replace("STEP\n", step))


@pytest.mark.parametrize("accel_args, prepare", [
    # the prepared scheduler steps on every call
    ('step_scheduler_with_optimizer=False, mixed_precision="fp16"', PREPARED),
    ("step_scheduler_with_optimizer=False, mixed_precision=args.mixed_precision", PREPARED),
    ("mixed_precision=args.mixed_precision, step_scheduler_with_optimizer=False", PREPARED),
    ("step_scheduler_with_optimizer=False, fp16=True", PREPARED),
    # never prepared: nothing ties it to the optimizer's real steps
    ('mixed_precision="fp16"', BARE),
    ('step_scheduler_with_optimizer=False, mixed_precision="fp16"', BARE),
])
def test_scheduler_stepped_after_a_skippable_accelerate_fp16_step_is_reported(accel_args, prepare):
    assert findings(accel(accel_args, prepare)) == [("LRD005", STEP_LINE)]


def test_the_setting_is_named_when_a_setting_picks_fp16():
    source = accel("step_scheduler_with_optimizer=False, mixed_precision=args.mixed_precision")
    (message,) = [m for m in messages(source) if "GradScaler skips" in m]
    assert message.startswith("When `args.mixed_precision` is fp16, ")
    assert "step_scheduler_with_optimizer=False" in message


@pytest.mark.parametrize("accel_args, prepare, step", [
    # prepared, default step_scheduler_with_optimizer: it steps only after real updates
    ('mixed_precision="fp16"', PREPARED, PLAIN_STEP),
    ("mixed_precision=args.mixed_precision", PREPARED, PLAIN_STEP),
    # no float16: nothing skips
    ('step_scheduler_with_optimizer=False, mixed_precision="bf16"', PREPARED, PLAIN_STEP),
    ('step_scheduler_with_optimizer=False, mixed_precision="no"', PREPARED, PLAIN_STEP),
    ('mixed_precision="bf16"', BARE, PLAIN_STEP),
    ("fp16=False, step_scheduler_with_optimizer=False", PREPARED, PLAIN_STEP),
    # precision chosen at launch (accelerate config), or by the hardware
    ("step_scheduler_with_optimizer=False", PREPARED, PLAIN_STEP),
    ('step_scheduler_with_optimizer=False, mixed_precision="bf16" if torch.cuda.is_bf16_supported()'
     ' else "fp16"', PREPARED, PLAIN_STEP),
    # an unprepared scheduler under a setting: left to the launch (as earlier batches label it)
    ("mixed_precision=args.mixed_precision", BARE, PLAIN_STEP),
    # the step asks whether the update was skipped
    ('step_scheduler_with_optimizer=False, mixed_precision="fp16"', PREPARED,
     "            if not acc.optimizer_step_was_skipped:\n                warm.step()\n"),
    ('mixed_precision="fp16"', BARE,
     "            if not acc.optimizer_step_was_skipped:\n                warm.step()\n"),
])
def test_skip_free_or_skip_aware_accelerate_steps_stay_silent(accel_args, prepare, step):
    assert [c for c, _ in findings(accel(accel_args, prepare, step))] == []


def test_an_unprepared_epoch_scheduler_under_accelerate_fp16_stays_silent():
    source = '''
import torch
from accelerate import Accelerator

acc = Accelerator(mixed_precision="fp16")
net = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
decay = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
loader = torch.utils.data.DataLoader(torch.randn(32, 4), batch_size=8)
net, opt, loader = acc.prepare(net, opt, loader)
for epoch in range(30):
    for x in loader:
        acc.backward(net(x).pow(2).mean())
        opt.step()
        opt.zero_grad()
    decay.step()
'''
    assert [c for c, _ in findings(source)] == []


TRAINER_PKG = {
    "engine/__init__.py": "",
    "engine/loop.py": '''
        import torch
        from transformers import get_cosine_schedule_with_warmup


        class Loop:
            def __init__(self, net, opt, accelerator, data, epochs=3):
                self.net, self.opt, self.acc = net, opt, accelerator
                self.data, self.epochs = data, epochs

            def fit(self):
                sched = get_cosine_schedule_with_warmup(self.opt, 50, self.epochs * len(self.data))
                self.net, self.opt, self.data, self.sched = self.acc.prepare(
                    self.net, self.opt, self.data, sched)
                for _ in range(self.epochs):
                    self.one_epoch()

            def one_epoch(self):
                for x, y in self.data:
                    with self.acc.accumulate(self.net):
                        loss = torch.nn.functional.mse_loss(self.net(x), y)
                        self.acc.backward(loss)
                        self.opt.step()
                        self.sched.step()
                        self.opt.zero_grad()
    ''',
    "run.py": '''
        import torch
        from accelerate import Accelerator
        from engine.loop import Loop


        def main():
            acc = Accelerator(ACCEL_ARGS)
            net = torch.nn.Linear(4, 1)
            opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
            data = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
            Loop(net, opt, acc, data=data).fit()


        if __name__ == "__main__":
            main()
    ''',
}


def _trainer_pkg(accel_args: str) -> dict[str, str]:
    return {k: v.replace("ACCEL_ARGS", accel_args) for k, v in TRAINER_PKG.items()}


def test_an_unsynced_fp16_accelerator_handed_to_a_trainer_class_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _trainer_pkg(
        'step_scheduler_with_optimizer=False, mixed_precision="fp16"'))
    assert [(p, c) for p, _, c in found] == [("engine/loop.py", "LRD005")]
    (line,) = [n for p, n, c in found if c == "LRD005"]
    assert TRAINER_PKG["engine/loop.py"].splitlines()[line - 1].strip() == "self.sched.step()"


@pytest.mark.parametrize("accel_args", [
    'mixed_precision="fp16"',
    'step_scheduler_with_optimizer=False, mixed_precision="bf16"',
])
def test_a_synced_or_bf16_accelerator_handed_to_a_trainer_class_stays_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, accel_args: str) -> None:
    assert project_codes(check_project(tmp_path, monkeypatch, _trainer_pkg(accel_args))) == []


# -- a trainer's AMP option: the scaler judged by the value its attribute holds ------------------

AMP_TRAINER = '''
    import torch
    from torch.amp import GradScaler


    class Trainer:
        def __init__(self, model, optimizer, scheduler, loader, max_epochs, enable_amp=False):
            self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
            self.loader, self.max_epochs = loader, max_epochs
            self._enable_amp = enable_amp
            self._setup()

        def _setup(self):
            self._scaler = GradScaler("cuda", enabled=self._enable_amp)

        def one_batch(self, x, y):
            with torch.autocast("cuda", enabled=self._enable_amp):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            self._scaler.scale(loss).backward()
            self._scaler.step(self.optimizer)
            self._scaler.update()

        def train(self, resume=None):
            start = self.load(resume) if resume else 0
            for epoch in range(start, self.max_epochs):
                for x, y in self.loader:
                    self.one_batch(x, y)
                self.scheduler.step()
                self.save(epoch)

        def save(self, epoch):
            state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                     "scheduler": self.scheduler.state_dict(), "epoch": epoch}
SAVE_SCALER
            torch.save(state, "last.pth")

        def load(self, path):
            ckpt = torch.load(path)
            self.model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.scheduler.load_state_dict(ckpt["scheduler"])
LOAD_SCALER
            return ckpt["epoch"] + 1
'''

GUARDED_SAVE = ('            if self._enable_amp:\n'
                '                state["scaler"] = self._scaler.state_dict()\n')
GUARDED_LOAD = ('            if self._enable_amp:\n'
                '                self._scaler.load_state_dict(ckpt["scaler"])\n')

DRIVER = '''
    import argparse
    import torch
    from lib.trainer import Trainer


    class SRTrainer(Trainer):
        def __init__(self, config, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.config = config


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--amp", action="store_true")
        parser.add_argument("--resume", default=None)
        args = parser.parse_args()
        model = torch.nn.Linear(4, 4)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.8)
        trainer = BUILD
        trainer.train(resume=args.resume)


    if __name__ == "__main__":
        main()
'''

PLAIN_BUILD = "Trainer(model, optimizer, scheduler, [], 50MORE)"
SUB_BUILD = ("SRTrainer({}, model=model, optimizer=optimizer, scheduler=scheduler, loader=[], "
             "max_epochs=50MORE)")


def amp_project(build: str, more: str, save: str, load: str) -> dict[str, str]:
    return {
        "lib/__init__.py": "",
        "lib/trainer.py": AMP_TRAINER.replace("SAVE_SCALER\n", save)
        .replace("LOAD_SCALER\n", load),
        "train.py": DRIVER.replace("BUILD", build.replace("MORE", more)),
    }


@pytest.mark.parametrize("build, more", [
    (PLAIN_BUILD, ""),
    (SUB_BUILD, ""),
    (PLAIN_BUILD, ", enable_amp=False"),
    (SUB_BUILD, ", enable_amp=False"),
    # on: the guarded save and load hold the scaler
    (PLAIN_BUILD, ", enable_amp=True"),
    (SUB_BUILD, ", enable_amp=args.amp"),
])
def test_a_scaler_saved_exactly_when_the_trainers_amp_option_is_on_stays_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: str, more: str) -> None:
    found = check_project(tmp_path, monkeypatch,
                          amp_project(build, more, GUARDED_SAVE, GUARDED_LOAD))
    assert [c for c in project_codes(found) if c != "LRD101"] == []


@pytest.mark.parametrize("build, more", [
    (PLAIN_BUILD, ", enable_amp=True"),
    (SUB_BUILD, ", enable_amp=True"),
    (PLAIN_BUILD, ", enable_amp=args.amp"),
    (SUB_BUILD, ", enable_amp=args.amp"),
    # the option left at its default: a switch that may be on, as everywhere in lrdoctor
    (PLAIN_BUILD, ""),
])
def test_a_scaler_left_out_of_the_checkpoint_when_the_option_is_on_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: str, more: str) -> None:
    found = check_project(tmp_path, monkeypatch, amp_project(build, more, "", ""))
    assert ("lib/trainer.py", "LRD007") in {(p, c) for p, _, c in found}


def test_a_scaler_saved_under_another_option_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `if self.keep_scaler:` is not the scaler's switch: with AMP on and that option off, the
    # checkpoint lacks the scaler
    files = amp_project(PLAIN_BUILD, ", enable_amp=True",
                        GUARDED_SAVE.replace("self._enable_amp", "self.keep_scaler"),
                        GUARDED_LOAD)
    files["lib/trainer.py"] = files["lib/trainer.py"].replace(
        "            self._enable_amp = enable_amp\n",
        "            self._enable_amp = enable_amp\n            self.keep_scaler = False\n")
    found = check_project(tmp_path, monkeypatch, files)
    assert ("lib/trainer.py", "LRD007") in {(p, c) for p, _, c in found}


def test_an_unguarded_restore_beside_a_save_under_the_switch_stays_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, amp_project(
        PLAIN_BUILD, "", GUARDED_SAVE,
        '            self._scaler.load_state_dict(ckpt.get("scaler", {}))\n'))
    assert [c for c in project_codes(found) if c != "LRD101"] == []
