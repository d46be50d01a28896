"""Framework-based training code (issue 7, batch "fresh-2026-12fy" of bench/realcode): the
general shape behind the batch's false alarm, in our own words, next to the controls that
must still be reported.

A warm-up schedule from transformers counts "training steps" by its parameter's name, and a
horizon kept as a hyperparameter (``self.hparams.total_steps``) is otherwise judged by its
name alone. Where the class documents that constructor parameter in epochs, the schedule is
sized in epochs and Lightning's default once-per-epoch step is right.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)

_MODULE = '''
import torch
import lightning.pytorch as pl
from transformers import get_cosine_schedule_with_warmup


class Distiller(pl.LightningModule):
{class_doc}
    def __init__(self, student, warmup_steps=5, total_steps=120, lr=1e-3):
{init_doc}
        super().__init__()
        self.save_hyperparameters(ignore=["student"])
        self.student = student

    def training_step(self, batch, batch_idx):
        return self.student(batch).pow(2).mean()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.student.parameters(), lr=self.hparams.lr)
        total = self.hparams.total_steps
        sched = get_cosine_schedule_with_warmup(
            opt,
            num_warmup_steps=self.hparams.warmup_steps,
            num_training_steps={horizon},
        )
        return [opt], [sched]
'''


def _codes(tmp_path: Path, class_doc: str = "", init_doc: str = "",
           horizon: str = "self.hparams.total_steps") -> list[str]:
    (tmp_path / ".git").mkdir()
    source = _MODULE.format(
        class_doc=textwrap.indent(textwrap.dedent(class_doc), " " * 4) if class_doc else "",
        init_doc=textwrap.indent(textwrap.dedent(init_doc), " " * 8) if init_doc else "",
        horizon=horizon,
    )
    path = tmp_path / "distill.py"
    path.write_text(textwrap.dedent(source))
    report = check_files([str(path)], CODES, jobs=1)
    return sorted(d.code for d in report.diagnostics)


def test_hyperparameter_documented_in_epochs_is_not_a_batch_horizon(tmp_path: Path) -> None:
    init_doc = '''
    """
    :param warmup_steps: length of the warm-up
    :param total_steps: the number of epochs the cosine anneals over
    """
    '''
    assert "LRD003" not in _codes(tmp_path, init_doc=init_doc)


def test_google_style_class_docstring_counts_too(tmp_path: Path) -> None:
    class_doc = '''
    """Distils a teacher into a student.

    Args:
        student: the network being trained
        total_steps (int): length of the whole schedule, in epochs
            (Lightning advances it at the end of each epoch).
    """
    '''
    assert "LRD003" not in _codes(tmp_path, class_doc=class_doc)


def test_read_through_a_local_name(tmp_path: Path) -> None:
    # `total = self.hparams.total_steps` then `num_training_steps=total`: the local name
    # carries the documented unit of what it was assigned from
    init_doc = '''
    """total_steps: how many epochs to train"""
    '''
    assert "LRD003" not in _codes(tmp_path, init_doc=init_doc, horizon="total")


def test_hparams_read_by_key(tmp_path: Path) -> None:
    init_doc = '''
    """
    Parameters
    ----------
    total_steps : int
        Number of epochs of the cosine.
    """
    '''
    assert "LRD003" not in _codes(tmp_path, init_doc=init_doc,
                                  horizon='self.hparams["total_steps"]')


def test_undocumented_step_horizon_returned_per_epoch_is_still_reported(tmp_path: Path) -> None:
    assert _codes(tmp_path) == ["LRD003"]


def test_undocumented_local_name_is_still_reported(tmp_path: Path) -> None:
    assert _codes(tmp_path, horizon="total") == ["LRD003"]


def test_horizon_documented_in_steps_is_still_reported(tmp_path: Path) -> None:
    init_doc = '''
    """
    :param total_steps: total number of optimizer steps (batches) of the run
    """
    '''
    assert _codes(tmp_path, init_doc=init_doc) == ["LRD003"]


def test_description_naming_both_units_leaves_the_name_to_decide(tmp_path: Path) -> None:
    init_doc = '''
    """
    :param total_steps: optimizer steps summed over all epochs
    """
    '''
    assert _codes(tmp_path, init_doc=init_doc) == ["LRD003"]


def test_documentation_of_another_parameter_says_nothing(tmp_path: Path) -> None:
    init_doc = '''
    """
    :param warmup_steps: warm-up length in epochs
    :param lr: peak learning rate
    """
    '''
    assert _codes(tmp_path, init_doc=init_doc) == ["LRD003"]


_LOOP = '''
import torch
from transformers import get_linear_schedule_with_warmup


class Fitter:
    """Fits a model.

    Args:
        model: the network
        loader: batches of (x, y)
        decay_steps: {described}
    """

    def __init__(self, model, loader, decay_steps=40):
        self.model = model
        self.loader = loader
        self.decay_steps = decay_steps
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = get_linear_schedule_with_warmup(self.opt, 2, self.decay_steps)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()
'''


def _loop_codes(tmp_path: Path, described: str) -> list[str]:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "fit.py"
    path.write_text(_LOOP.format(described=described))
    report = check_files([str(path)], CODES, jobs=1)
    return sorted(d.code for d in report.diagnostics)


def test_own_trainer_documenting_the_horizon_in_epochs_steps_it_per_epoch(tmp_path: Path) -> None:
    assert "LRD003" not in _loop_codes(tmp_path, "epochs over which the LR decays to zero")


def test_attribute_converted_from_the_documented_argument_is_judged_by_its_own_source(
        tmp_path: Path) -> None:
    # `self.decay_steps = decay_steps * len(loader)`: the parameter is documented in epochs,
    # the attribute the schedule reads counts batches
    (tmp_path / ".git").mkdir()
    source = _LOOP.format(described="epochs over which the LR decays to zero").replace(
        "self.decay_steps = decay_steps", "self.decay_steps = decay_steps * len(loader)")
    path = tmp_path / "fit.py"
    path.write_text(source)
    report = check_files([str(path)], CODES, jobs=1)
    assert sorted(d.code for d in report.diagnostics) == ["LRD003"]


def test_own_trainer_documenting_the_horizon_in_updates_is_reported(tmp_path: Path) -> None:
    assert _loop_codes(tmp_path, "updates over which the LR decays to zero") == ["LRD003"]
