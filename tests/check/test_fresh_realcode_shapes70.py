"""Shapes behind the dev misses of the fresh-2026-12yx batch (rcnew70, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A horizon of one epoch: ``CosineAnnealingLR(opt, T_max=len(loader))`` stepped after every
  batch of that loader in an epoch loop of several passes. ``len(loader)`` alone is one epoch of
  batches, so the cosine reaches its floor at the end of the first epoch and climbs back up in
  the second (LRD010). lrdoctor judged only horizons written ``E * len(loader)``. Silent twins:
  the horizon multiplied by the loop's count, one pass of the loop, a loop that may stop early.
- A helper that casts the model it is handed: ``train(model, optimizer, ..., precision="half")``
  where ``train`` runs ``model.half()`` under ``if precision == "half":`` before its loop. A
  module's cast changes the caller's object, so the Adam built on that model in the caller
  updates float16 parameters with eps=1e-8 (LRD102). lrdoctor looked for casts only in the file
  that builds the optimizer (or in a builder that returns the cast model). Silent twins: the
  call leaving the precision at its default or passing "full", an eps float16 can hold, a
  helper that casts a copy, and an optimizer whose name the notebook binds to a new model
  before the cast.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, findings, messages, notebook

ONE_EPOCH_COSINE = """
import torch
from torch import nn

net = nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(list(range(640)), batch_size=64)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max={horizon})

for epoch in range({passes}):
    for step, batch in enumerate(loader):
        loss = net(batch.float().unsqueeze(1).expand(-1, 8)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
"""


def _cosine(horizon: str, passes: str) -> str:
    return ONE_EPOCH_COSINE.replace("{horizon}", horizon).replace("{passes}", passes)


def test_one_epoch_horizon_stepped_per_batch_for_several_epochs() -> None:
    source = _cosine("len(loader)", "4")
    assert ("LRD010", 16) in findings(source)
    assert any("one epoch of `len(loader)` batches" in m and "runs 4 passes" in m
               for m in messages(source))


def test_horizon_sized_for_the_whole_run_is_silent() -> None:
    assert "LRD010" not in codes(_cosine("4 * len(loader)", "4"))


def test_one_epoch_horizon_for_a_single_pass_is_silent() -> None:
    assert "LRD010" not in codes(_cosine("len(loader)", "1"))


def test_one_epoch_horizon_with_early_stopping_is_silent() -> None:
    source = _cosine("len(loader)", "4").replace(
        "        sched.step()\n", "        sched.step()\n    if epoch == 0:\n        break\n")
    assert "LRD010" not in codes(source)


def test_one_epoch_horizon_in_notebook_cells(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    cells = (
        """
        import torch
        from torch import nn
        net = nn.Linear(8, 2)
        loader = torch.utils.data.DataLoader(list(range(640)), batch_size=64)
        """,
        """
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=len(loader))
        n_epochs = 3
        """,
        """
        for epoch in range(n_epochs):
            for batch in loader:
                loss = net(batch.float().unsqueeze(1).expand(-1, 8)).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
        """,
    )
    found = check_project(tmp_path, monkeypatch, {"fit.ipynb": notebook(*cells)})
    assert ("fit.ipynb", 7, "LRD010") in found


HELPER = """
import torch


def fit(net, opt, batches, epochs=2, precision="full"):
    if precision == "half":
        net.half()
    for _ in range(epochs):
        for x, y in batches:
            if precision == "half":
                x = x.half()
            loss = torch.nn.functional.mse_loss(net(x), y.to(x.dtype))
            loss.backward()
            opt.step()
            opt.zero_grad()
"""

DRIVER = """
import torch
from torch import nn
from fitting import fit

batches = [(torch.randn(16, 4), torch.randn(16, 2))]
net = nn.Linear(4, 2)
opt = torch.optim.Adam(net.parameters(), lr=1e-2{eps})
fit(net, opt, batches{precision})
"""


def _driver(precision: str = ', precision="half"', eps: str = "") -> str:
    return DRIVER.replace("{precision}", precision).replace("{eps}", eps)


def _lrd102(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str,
            helper: str = HELPER) -> list[tuple[str, int, str]]:
    found = check_project(tmp_path, monkeypatch, {"fitting.py": helper, "main.py": driver})
    return [f for f in found if f[2] == "LRD102"]


def test_adam_on_a_model_a_helper_casts_in_place(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert _lrd102(tmp_path, monkeypatch, _driver()) == [("main.py", 8, "LRD102")]


def test_helper_message_names_the_helper_and_its_cast(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "fitting.py").write_text(HELPER)
    (tmp_path / "main.py").write_text(_driver())
    monkeypatch.chdir(tmp_path)
    report = check_files(["fitting.py", "main.py"], frozenset(CATALOG), jobs=1)
    found = [d.message for d in report.diagnostics if d.code == "LRD102"]
    assert found and "in place by `fit()` (fitting.py:7), called at line 9" in found[0]


def test_helper_left_at_full_precision_is_silent(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert _lrd102(tmp_path, monkeypatch, _driver(precision="")) == []


def test_helper_told_full_precision_is_silent(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert _lrd102(tmp_path, monkeypatch, _driver(precision=', precision="full"')) == []


def test_helper_cast_with_an_eps_float16_holds_is_silent(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert _lrd102(tmp_path, monkeypatch, _driver(eps=", eps=1e-4")) == []


def test_helper_casting_a_copy_is_silent(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    helper = HELPER.replace("import torch\n", "import copy\n\nimport torch\n").replace(
        '    if precision == "half":\n        net.half()\n',
        '    net = copy.deepcopy(net)\n    if precision == "half":\n        net.half()\n')
    assert _lrd102(tmp_path, monkeypatch, _driver(), helper) == []


def test_notebook_cells_rebinding_the_model(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the optimizer of the model the helper casts: the cells before and after bind
    `net` to new models (cell 2 trains in float32, cell 4 builds a fresh float32 model)."""
    cells = (
        """
        import torch
        from torch import nn
        from fitting import fit
        batches = [(torch.randn(16, 4), torch.randn(16, 2))]
        """,
        """
        net = nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        fit(net, opt, batches)
        """,
        """
        net = nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        fit(net, opt, batches, precision="half")
        """,
        """
        net = nn.Linear(4, 2)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        fit(net, opt, batches)
        """,
    )
    (tmp_path / ".git").mkdir()
    (tmp_path / "fitting.py").write_text(HELPER)
    (tmp_path / "demo.ipynb").write_text(notebook(*cells))
    monkeypatch.chdir(tmp_path)
    report = check_files(["demo.ipynb", "fitting.py"], frozenset(CATALOG), jobs=1)
    assert report.errors == []
    assert [(d.path, d.cell, d.line) for d in report.diagnostics if d.code == "LRD102"] == [
        ("demo.ipynb", 3, 2)]


def test_rebinding_that_wraps_the_cast_model_keeps_the_cast() -> None:
    """``model = DataParallel(model)`` between the cast and the optimizer hands on the same
    parameters: still LRD102 (only a new model under the old name breaks the link)."""
    source = """
    import torch
    from torch import nn

    model = nn.Linear(4, 2)
    model = model.half()
    model = nn.DataParallel(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in [(torch.randn(8, 4).half(), torch.randn(8, 2).half())]:
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    """
    assert "LRD102" in codes(source)
    fresh = source.replace("model = nn.DataParallel(model)", "model = nn.Linear(4, 2)")
    assert "LRD102" not in codes(fresh)
