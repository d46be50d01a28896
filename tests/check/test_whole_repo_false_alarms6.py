"""Whole repositories nobody here wrote (fphunt14): false alarms and misses found by reading
the training code, each next to a control that must stay as it is."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)


def check_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  files: dict[str, str]) -> list[tuple[str, int, str]]:
    """(path, line, code) of every finding for a project made of ``files``."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics]


def codes(found: list[tuple[str, int, str]]) -> list[str]:
    return [code for _, _, code in found]


# -- a horizon written in the count of the loop that steps it --------------------------------------
# A small generative model inside a larger method is fitted by a helper: `for _ in
# trange(n_rounds)` makes full passes over a loader, and the warm-restart cosine, stepped after
# each pass, restarts first after `n_rounds // 10` of them. The count is called "iterations" by
# its author, but it is the number of passes of the very loop the scheduler steps in: the
# horizon is counted in the units it is stepped in, not in batches.

_FIT_HELPER = """
import torch
from tqdm import trange


class Density(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 8)

    def fit(self, feats, n_iters, lr):
        opt = torch.optim.Adam(self.parameters(), lr=lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0={horizon}, T_mult=2)
        loader = torch.utils.data.DataLoader(feats, batch_size=64, shuffle=True)
        {header}
                for batch in loader:
                    opt.zero_grad()
                    loss = (self.net(batch) - batch).pow(2).mean()
                    loss.backward()
                    opt.step()
                sched.step()
"""


@pytest.mark.parametrize("header", [
    "with trange(n_iters, desc='fit') as bar:\n            for _ in bar:",
    "for _ in range(n_iters):\n            with torch.enable_grad():",
    "for _ in trange(0, n_iters):\n            with torch.enable_grad():",
])
@pytest.mark.parametrize("horizon", ["n_iters // 10", "n_iters", "max(1, n_iters // 10)"])
def test_a_horizon_in_the_count_of_its_own_loop_is_not_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str, horizon: str) -> None:
    source = _FIT_HELPER.format(header=header, horizon=horizon)
    assert "LRD003" not in codes(check_project(tmp_path, monkeypatch, {"density.py": source}))


@pytest.mark.parametrize("header,horizon", [
    # the epoch loop counts something else: the iterations really are batches
    ("for _ in range(n_epochs):\n            with torch.enable_grad():", "n_iters // 10"),
    # the count of the loop times a count of batches: a horizon in batches
    ("for _ in range(n_iters):\n            with torch.enable_grad():", "n_iters * len(loader)"),
])
def test_a_batch_horizon_beside_another_epoch_count_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str, horizon: str) -> None:
    source = _FIT_HELPER.format(header=header, horizon=horizon).replace(
        "def fit(self, feats, n_iters, lr):", "def fit(self, feats, n_iters, lr, n_epochs=5):")
    assert "LRD003" in codes(check_project(tmp_path, monkeypatch, {"density.py": source}))
