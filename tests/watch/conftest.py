"""Helpers for runtime-engine tests: run a small training script, in-process, under watch()."""

from __future__ import annotations

import runpy
import textwrap
from pathlib import Path

import pytest

import lrdoctor
from lrdoctor.runtime.session import Watch

torch = pytest.importorskip("torch")


class Ran:
    def __init__(self, watch: Watch, namespace: dict) -> None:
        self.watch = watch
        self.ns = namespace

    @property
    def findings(self):
        return self.watch.findings

    @property
    def codes(self) -> list[str]:
        return sorted(f.code for f in self.watch.findings)

    def only(self, code: str):
        hits = [f for f in self.watch.findings if f.code == code]
        assert len(hits) == 1, f"expected one {code}, got {self.codes}:\n{self.watch.report()}"
        return hits[0]


@pytest.fixture
def run_script(tmp_path: Path):
    """``run_script(source, **watch_options)`` writes ``train.py`` and runs it watched."""

    def run(source: str, name: str = "train.py", **options) -> Ran:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source))
        messages: list[str] = []
        w = lrdoctor.watch(echo=messages.append, **options)
        ns: dict = {}
        with w:
            ns = runpy.run_path(str(path), run_name="__main__")
        assert not any("internal error" in m for m in messages), messages
        return Ran(w, ns)

    return run


PRELUDE = """
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
loader = DataLoader(data, batch_size=16, shuffle=True)  # 16 batches per epoch
model = torch.nn.Linear(8, 1)

def train_batch(x, y):
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
"""
