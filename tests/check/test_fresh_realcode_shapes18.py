"""Shapes met in the fresh-2026-12w and fresh-2026-12x batches of real code (issue 7), written
in our own words.

A forecasting framework of batch fresh-2026-12w keeps its GradScaler on the argparse namespace:
the flag ``args.amp`` is replaced by the scaler itself when it is on (``args.amp =
GradScaler() if args.amp and torch.cuda.is_available() else False``), and the trainer class,
in another module, tests ``if args.amp:`` and calls ``args.amp.scale(loss)`` /
``args.amp.step(optimizer)`` with ``args = self.args``. Its resumable checkpoint holds the
optimizer but not the scaler (LRD007), and lrdoctor missed it twice over:

- an object stored on a value lrdoctor knows only by its source (a namespace from
  ``parse_args()``, a config object) was dropped: ``args.amp`` never read back as the scaler.
  Such a value now keeps the tracked objects stored on it as its attributes, wherever it is
  handed (a call's argument, ``self.args``);
- a scaler built ``GradScaler() if args.amp and torch.cuda.is_available() else None`` was taken
  for one switched by the hardware and left alone, although the same scaler built under
  ``if args.amp and torch.cuda.is_available():`` counted as switched by ``args.amp``. The
  device check is true in every run where a scaler can scale at all, so only the user's switch
  beside it counts. A test of the hardware alone (``GradScaler() if torch.cuda.is_available()
  else None``) still says nothing of whether float16 AMP runs and stays silent, as before.

The controls: the same programs saving ``args.amp.state_dict()`` (or the scaler's state) with
the optimizer, and a plain value stored on the namespace, stay silent.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.check.engine import check_file
from tests.check.helpers import codes, findings, messages

_NAMESPACE = """
import argparse
import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", type=bool, default=True)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    args.amp = {BUILD}
    args.tag = "run"
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [torch.randn(8, 4) for _ in range(10)]
    for epoch in range(args.epochs):
        for x in batches:
            optimizer.zero_grad()
            if args.amp:
                with torch.autocast("cuda"):
                    loss = model(x).sum()
                args.amp.scale(loss).backward()
                args.amp.step(optimizer)
                args.amp.update()
            else:
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}
{EXTRA}        torch.save(state, "last.pt")


if __name__ == "__main__":
    main()
"""

_ON_GPU = 'torch.amp.GradScaler("cuda") if args.amp and torch.cuda.is_available() else False'
_SAVE_SCALER = '        if args.amp:\n            state["scaler"] = args.amp.state_dict()\n'


def _namespace(build: str, extra: str = "") -> str:
    return _NAMESPACE.replace("{BUILD}", build).replace("{EXTRA}", extra)


def test_scaler_stored_on_the_namespace_missing_from_the_checkpoint_is_lrd007() -> None:
    source = _namespace(_ON_GPU)
    assert findings(source) == [("LRD007", 30)]
    (message,) = messages(source)
    assert "`args.amp`, when `args.amp` is on" in message


def test_scaler_stored_on_the_namespace_unconditionally_is_lrd007() -> None:
    source = _namespace('torch.amp.GradScaler("cuda")')
    assert findings(source) == [("LRD007", 30)]


def test_scaler_on_the_namespace_saved_with_the_optimizer_is_silent() -> None:
    assert codes(_namespace(_ON_GPU, _SAVE_SCALER)) == []


def test_the_namespace_also_steps_through_the_scaler() -> None:
    # `args.amp.step(optimizer)` is the scaler's step: no LRD109 for a bypassed scaler, and
    # no LRD110 for a missing update
    assert "LRD109" not in codes(_namespace(_ON_GPU))
    assert "LRD110" not in codes(_namespace(_ON_GPU))


_LOCAL = """
import torch


def train(model, batches, epochs, use_amp):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = {BUILD}
    for epoch in range(epochs):
        for x in batches:
            optimizer.zero_grad()
            if scaler:
                scaler.scale(model(x).sum()).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                model(x).sum().backward()
                optimizer.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "c.pt")
"""


def test_scaler_built_when_a_flag_and_a_gpu_hold_is_switched_by_the_flag() -> None:
    source = _LOCAL.replace(
        "{BUILD}", 'torch.amp.GradScaler("cuda") if use_amp and torch.cuda.is_available() '
                   "else None")
    assert findings(source) == [("LRD007", 18)]
    (message,) = messages(source)
    assert "when `use_amp` is on" in message


def test_scaler_built_on_the_hardware_test_alone_stays_unknown() -> None:
    # no switch of the user's: whether float16 AMP runs is not in the file (as before)
    source = _LOCAL.replace(
        "{BUILD}", 'torch.amp.GradScaler("cuda") if torch.cuda.is_available() else None')
    assert codes(source) == []


def test_scaler_built_when_a_gpu_and_a_setting_hold_is_switched_by_the_setting() -> None:
    source = _LOCAL.replace(
        "{BUILD}", 'torch.amp.GradScaler("cuda") if torch.cuda.is_available() and '
                   'cfg["amp"] else None').replace("use_amp):", "use_amp, cfg):")
    assert findings(source) == [("LRD007", 18)]
    (message,) = messages(source)
    assert "when `cfg['amp']` is on" in message


def test_scaler_built_only_without_a_gpu_stays_silent() -> None:
    source = _LOCAL.replace(
        "{BUILD}", 'torch.amp.GradScaler("cuda") if not torch.cuda.is_available() else None')
    assert codes(source) == []


def test_scaler_switched_by_an_unknown_call_stays_silent() -> None:
    # `fp16_supported()` says nothing lrdoctor can tell the user to switch
    source = _LOCAL.replace(
        "{BUILD}", 'torch.amp.GradScaler("cuda") if use_amp and fp16_supported() else None')
    assert codes(source) == []


# -- the scaler on the namespace, used by a trainer class of another module ------------------

_DRIVER = """
import argparse
import torch
from trainer import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", type=bool, default=True)
    args = parser.parse_args()
    args.amp = torch.amp.GradScaler("cuda") if args.amp and torch.cuda.is_available() else False
    Trainer(args).fit()


if __name__ == "__main__":
    main()
"""

_TRAINER = """
import torch


class Trainer:
    def __init__(self, args):
        self.args = args
        self.model = torch.nn.Linear(4, 1)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.batches = [torch.randn(8, 4) for _ in range(10)]
        self.state = {"epoch": 0}

    def fit(self):
        args = self.args
        for epoch in range(10):
            for x in self.batches:
                self.optimizer.zero_grad()
                if args.amp:
                    with torch.autocast("cuda"):
                        loss = self.model(x).sum()
                    args.amp.scale(loss).backward()
                    args.amp.step(self.optimizer)
                    args.amp.update()
                else:
                    loss = self.model(x).sum()
                    loss.backward()
                    self.optimizer.step()
            self.state["epoch"] = epoch
            self.state["model"] = self.model.state_dict()
            self.state["optimizer"] = self.optimizer.state_dict()
{EXTRA}            torch.save(self.state, "last.pt")
"""


def _project(tmp_path: Path, extra: str = "") -> list[tuple[str, str, int]]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "run.py").write_text(textwrap.dedent(_DRIVER))
    (tmp_path / "trainer.py").write_text(
        textwrap.dedent(_TRAINER).replace("{EXTRA}", extra))
    result = check_file(str(tmp_path / "run.py"))
    assert result.errors == []
    return [(d.code, Path(d.path).name, d.line) for d in result.diagnostics]


def test_scaler_on_the_namespace_used_by_another_modules_trainer_is_lrd007(
    tmp_path: Path,
) -> None:
    assert _project(tmp_path) == [("LRD007", "trainer.py", 31)]


def test_the_same_trainer_saving_the_scaler_is_silent(tmp_path: Path) -> None:
    extra = ('            if args.amp:\n'
             '                self.state["scaler"] = args.amp.state_dict()\n')
    assert _project(tmp_path, extra) == []
