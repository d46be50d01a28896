"""Files whose coding line names a codec this Python does not know (rcnew46, batch
fresh-2026-12zz).

Projects written for Python 3.5 used the ``future_fstrings`` backport: its first line is
``# -*- coding: future_fstrings -*-`` and the package registers that codec at run time. On
Python 3.6 and later the codec hands the source through unchanged, so the file is plain
UTF-8 Python. The checker looked the codec up, did not find it, and left the whole file
unchecked, with every finding in it. Such a file is now read as UTF-8 when it parses so; a
codec that rewrites a syntax of its own into Python leaves a file that does not parse
without it, and that one stays unchecked, saying why.

Programs written for these tests; no third-party code."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from lrdoctor.check.sources import SourceError, read_python

from .helpers import check_project, project_codes

BACKPORT = "# -*- coding: future_fstrings -*-\n"


def _write(tmp_path: Path, files: dict[str, str | bytes]) -> None:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            target.write_bytes(body)
        else:
            target.write_text(body, encoding="utf-8")


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           files: dict[str, str | bytes]) -> tuple[list[tuple[str, int, str]], list[str]]:
    """(findings, errors) of `lrdoctor check` over a project made of ``files``."""
    _write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), frozenset(CATALOG), jobs=1)
    return [(d.path, d.line, d.code) for d in report.diagnostics], report.errors


# 1. A trainer class in its own module (an epoch loop that logs the LR, trains, saves and
#    steps an ExponentialLR) under the backport's coding line; the driver imports it.

TRAINER = BACKPORT + textwrap.dedent("""
    import torch


    class PairTrainer:
        def __init__(self, model, loader, epochs, gamma=0.99):
            self.model = model
            self.loader = loader
            self.epochs = epochs
            self.opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            self.sched = torch.optim.lr_scheduler.ExponentialLR(self.opt, gamma)

        def train(self):
            for epoch in range(1, self.epochs + 1):
                lr = self.sched.{lr_call}()
                print(f"epoch {{epoch}} lr {{lr}}")
                self.one_epoch()
                torch.save({{"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                            "sched": self.sched.state_dict()}}, "last.pth")
                self.sched.step()

        def one_epoch(self):
            for x, y in self.loader:
                self.opt.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.opt.step()
""")

DRIVER = BACKPORT + textwrap.dedent("""
    import torch

    from lib.pair_trainer import PairTrainer


    def main():
        model = torch.nn.Linear(4, 1)
        data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]
        PairTrainer(model, data, epochs=30).train()


    if __name__ == "__main__":
        main()
""")


def test_get_lr_logged_in_a_backport_coded_trainer_module_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, errors = _check(tmp_path, monkeypatch, {
        "train.py": DRIVER,
        "lib/__init__.py": "",
        "lib/pair_trainer.py": TRAINER.format(lr_call="get_lr"),
    })
    assert errors == []
    assert [(path, code) for path, _, code in found] == [("lib/pair_trainer.py", "LRD015")]
    assert found[0][1] == 16  # the line of `self.sched.get_lr()`, the coding line counted


def test_get_last_lr_in_a_backport_coded_trainer_module_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, errors = _check(tmp_path, monkeypatch, {
        "train.py": DRIVER,
        "lib/__init__.py": "",
        "lib/pair_trainer.py": TRAINER.format(lr_call="get_last_lr"),
    })
    assert (found, errors) == ([], [])


# 2. A flat script under the backport's coding line: an epoch-sized StepLR stepped after
#    every batch is reported; the same scheduler stepped once per epoch is silent.

FLAT = BACKPORT + textwrap.dedent("""
    import torch

    model = torch.nn.Linear(4, 1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    pairs = list(zip(torch.randn(800, 4), torch.randn(800, 1)))
    data = torch.utils.data.DataLoader(pairs, batch_size=8, shuffle=True)
    for epoch in range(90):
        for x, y in data:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    {indent}sched.step()
        print(f"epoch {{epoch}}: {{loss.item():.4f}}")
""")


def test_steplr_per_batch_in_a_backport_coded_script_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": FLAT.format(indent="        ")})
    assert project_codes(found) == ["LRD002"]


def test_steplr_per_epoch_in_a_backport_coded_script_is_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": FLAT.format(indent="    ")})
    assert found == []


def test_a_backport_coded_file_reads_as_its_utf8_text(tmp_path: Path) -> None:
    body = BACKPORT + 'name = "résumé"\nprint(f"{name}")\n'
    path = tmp_path / "m.py"
    path.write_bytes(body.encode("utf-8"))
    assert read_python(str(path)) == body


def test_an_unknown_codec_on_the_second_line_is_read_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": "#!/usr/bin/env python\n" + FLAT.format(indent="        "),
    })
    assert project_codes(found) == ["LRD002"]


# 3. Twins that must stay unchecked: a codec that rewrites its own syntax into Python (the
#    file does not parse without it), and an unknown codec over bytes that are not UTF-8.
#    Neither gives a finding; each says why the file was not checked.

TEMPLATED = "# coding: markup_templates\n" + textwrap.dedent("""
    import torch

    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            opt.step()
            sched.step()
            page = <p>{epoch}</p>
""")


def test_a_source_rewriting_codec_leaves_the_file_unchecked_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, errors = _check(tmp_path, monkeypatch, {"train.py": TEMPLATED})
    assert found == []
    [error] = errors
    assert "unknown encoding 'markup_templates'" in error
    assert "not plain Python without that codec" in error


def test_an_unknown_codec_over_bytes_that_are_not_utf8_stays_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = b"# -*- coding: legacy_cp -*-\nname = '\xe9t\xe9'\n"
    found, errors = _check(tmp_path, monkeypatch, {"train.py": raw})
    assert found == []
    [error] = errors
    assert "unknown encoding 'legacy_cp'" in error
    path = tmp_path / "train.py"
    with pytest.raises(SourceError, match="unknown encoding 'legacy_cp' in its coding line$"):
        read_python(str(path))


def test_a_known_codec_is_still_honoured(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n")
    assert read_python(str(path)).endswith("name = '\u00e9t\u00e9'\n")
