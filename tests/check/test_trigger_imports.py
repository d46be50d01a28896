"""Which files without any of the checker's words are traced at all (lead72, session 45).

Programs written for these tests; no third-party code.

A file with none of the trigger words is traced only when the project code it imports shows a
training loop's stepping (``.step(``, a scheduler, ``param_groups``...): a driver that hands its
model to ``train_one_epoch`` in another module is one. A model-definition module whose builder
helper loads pretrained weights (``model.load_state_dict(...)``) is not: before, that one
``load_state_dict`` made every model file of a vendored model zoo a root to trace (a Kaggle
solution with a copied timm took 90 s for 184 files, 4 s after).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.check.engine import check_file


def _write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text))


def _zoo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    _write(tmp_path / "helpers.py", """
        import torch

        def build(cls, pretrained=False, path=None, **kwargs):
            model = cls(**kwargs)
            if pretrained:
                model.load_state_dict(torch.load(path, weights_only=True))
            return model
    """)
    _write(tmp_path / "net.py", """
        from torch import nn
        from helpers import build

        class Cell(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.a = nn.Linear(width, width)
                self.b = nn.Linear(width, width)

        class Net(nn.Module):
            def __init__(self, depth=8, width=16):
                super().__init__()
                self.cells = nn.ModuleList([Cell(width) for _ in range(depth)])

        def net(pretrained=False, **kwargs):
            return build(Net, pretrained=pretrained, **kwargs)
    """)
    return tmp_path / "net.py"


def test_a_model_file_whose_helper_only_loads_weights_is_not_traced(tmp_path: Path) -> None:
    result = check_file(str(_zoo(tmp_path)))
    assert result.errors == []
    assert result.diagnostics == []
    assert result.reached == ()  # no trace ran (before, it entered Net, Cell and build)


def test_a_driver_whose_imported_helper_steps_is_still_traced(tmp_path: Path) -> None:
    _zoo(tmp_path)
    _write(tmp_path / "engine.py", """
        def train_one_epoch(model, loader, optimizer, sched):
            for batch in loader:
                model(batch).sum().backward()
                optimizer.step()
                sched.step()
    """)
    _write(tmp_path / "train.py", """
        import torch
        from engine import train_one_epoch
        from net import net

        def main(loader, epochs):
            model = net()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
            for epoch in range(epochs):
                train_one_epoch(model, loader, optimizer, sched)
    """)
    result = check_file(str(tmp_path / "train.py"))
    assert result.errors == []
    assert [(d.code, Path(d.path).name) for d in result.diagnostics] == [("LRD002", "engine.py")]
