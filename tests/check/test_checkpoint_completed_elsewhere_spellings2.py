"""A checkpoint written in two pieces by one run: a trainer class or a helper module saves
the model and the optimizer, the driver saves the scheduler (and the GradScaler) next to it in
the same epoch. Nothing is lost on resume, so the helper's save is not LRD007; the save is
still reported when no other save of that epoch holds the scheduler."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.check.engine import check_file

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader, use_amp=False):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader
        self.scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.scaler.is_enabled()):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        self.scheduler.step()

    def save(self, path):
        torch.save({"model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
"""

HELPER = """
import torch


def save_weights_and_moments(model, optimizer, path):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
"""

DRIVER = """
import torch
from trainer import Trainer
from saving import save_weights_and_moments


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    trainer = Trainer(model, optimizer, scheduler, loader)
    for epoch in range(epochs):
        trainer.train_epoch()
{save}


if __name__ == "__main__":
    main(None, [], 3)
"""

COMPLETED = {
    "scheduler_state_in_its_own_file": """\
        trainer.save("last.pt")
        torch.save(scheduler.state_dict(), "last_scheduler.pt")""",
    "scheduler_and_scaler_in_a_dict": """\
        trainer.save(f"epoch{epoch}.pt")
        torch.save({"scheduler": scheduler.state_dict(),
                    "scaler": trainer.scaler.state_dict()}, f"epoch{epoch}_extra.pt")""",
    "helper_then_scheduler_under_a_rank_guard": """\
        save_weights_and_moments(model, optimizer, "ckpt.pt")
        if torch.distributed.get_rank() == 0:
            torch.save({"lr_scheduler": scheduler.state_dict()}, "sched.pt")""",
    "scheduler_saved_first": """\
        torch.save({"scheduler": scheduler.state_dict(), "epoch": epoch}, "meta.pt")
        save_weights_and_moments(model, optimizer, "ckpt.pt")""",
}

INCOMPLETE = {
    "trainer_save_alone": ("trainer.py", """\
        trainer.save("last.pt")"""),
    "helper_alone": ("saving.py", """\
        save_weights_and_moments(model, optimizer, "ckpt.pt")"""),
    "scheduler_saved_only_after_training": ("saving.py", """\
        save_weights_and_moments(model, optimizer, "ckpt.pt")
    torch.save(scheduler.state_dict(), "final_scheduler.pt")"""),
}


def _check(tmp_path: Path, save: str) -> list[tuple[str, str]]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "trainer.py").write_text(textwrap.dedent(TRAINER))
    (tmp_path / "saving.py").write_text(textwrap.dedent(HELPER))
    (tmp_path / "train.py").write_text(DRIVER.format(save=save))
    result = check_file(str(tmp_path / "train.py"))
    assert result.errors == []
    return [(d.code, Path(d.path).name) for d in result.diagnostics]


@pytest.mark.parametrize("spelling", sorted(COMPLETED))
def test_checkpoint_completed_by_the_driver_is_fine(tmp_path: Path, spelling: str) -> None:
    assert _check(tmp_path, COMPLETED[spelling]) == []


@pytest.mark.parametrize("spelling", sorted(INCOMPLETE))
def test_checkpoint_nobody_completes_is_lrd007(tmp_path: Path, spelling: str) -> None:
    where, save = INCOMPLETE[spelling]
    assert _check(tmp_path, save) == [("LRD007", where)]
