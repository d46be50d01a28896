"""fphunt62: a false alarm found in long-tail training code (bootcamp segmentation and
knowledge-tracing projects, Kaggle-style fold loops, thesis and paper-companion scripts),
fixed by semantics. The false shape, written here in our own words, must be silent; its buggy
twins must still be reported.

1. A plateau that watches the validation loss when validation runs (every ``val_every``
   epochs) and the training loss only when validation is switched off (``val_every == 0``):
   ``if cfg.val_every > 0 and (epoch + 1) % cfg.val_every == 0: ...
   scheduler.step(val_loss)`` then ``if cfg.val_every == 0: scheduler.step(train_loss)``.
   LRD004 said the plateau was stepped with the training loss "while a validation metric
   exists": lrdoctor knew two branches exclusive only when they tested one flag with
   opposite outcomes (``if x:`` / ``if not x:``), not when they put numeric bounds on one
   value that no number meets together (``== 0`` / ``> 0``). A branch taken now also records
   the numeric bounds its test puts on plain values: a comparison with a number (each part
   of a true ``and``, of a false ``or``), the value tested itself (truthy: not 0; falsy: 0
   when it is a number), and a value the test divided by (``n % cfg.val_every``, ``//``,
   ``/``), which is a number and not 0 wherever the branch runs, since Python raises
   ZeroDivisionError (TypeError for None) otherwise. Two branches whose bounds on one value
   (nothing rebound between) admit no number together never both run. Still LRD004: the
   training loss stepped on every epoch while validation runs on some, and the training loss
   stepped under a test that does not exclude validation (``val_every >= 0``).
"""

from __future__ import annotations

from .helpers import codes, findings

# {val}: the test before validation and the plateau step with its loss; {train}: the test
# before the plateau step with the training loss
_VAL_EVERY = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Cfg:
    val_every = 2
    epochs = 30


def evaluate(model, loader):
    with torch.no_grad():
        return sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in loader)


def fit(model, trn, val, cfg):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=3)
    for epoch in range(cfg.epochs):
        running = 0.0
        for x, y in trn:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
        train_loss = running / len(trn)
        if {val}:
            val_loss = evaluate(model, val)
            scheduler.step(val_loss)
        if {train}:
            scheduler.step(train_loss)
"""

_STEP_LINE = 32  # the plateau step with the training loss


def val_every(val: str, train: str) -> str:
    return _VAL_EVERY.format(val=val, train=train)


def test_training_loss_only_when_validation_is_off_by_a_zero_period_is_silent() -> None:
    source = val_every("cfg.val_every > 0 and (epoch + 1) % cfg.val_every == 0",
                       "cfg.val_every == 0")
    assert codes(source) == []


def test_zero_period_against_the_modulo_alone_is_silent() -> None:
    # `(epoch + 1) % cfg.val_every` raises ZeroDivisionError when the period is 0: wherever
    # validation runs the period is not 0, so the other step never runs in the same epoch
    source = val_every("(epoch + 1) % cfg.val_every == 0", "cfg.val_every == 0")
    assert codes(source) == []


def test_truthy_period_against_a_falsy_one_is_silent() -> None:
    source = val_every("cfg.val_every and (epoch + 1) % cfg.val_every == 0",
                       "not cfg.val_every")
    assert codes(source) == []


def test_negative_period_switch_reversed_is_silent() -> None:
    # `0 >= cfg.val_every` (validation off) against `cfg.val_every >= 1`
    source = val_every("cfg.val_every >= 1 and (epoch + 1) % cfg.val_every == 0",
                       "0 >= cfg.val_every")
    assert codes(source) == []


def test_training_loss_stepped_every_epoch_is_still_found() -> None:
    source = val_every("(epoch + 1) % cfg.val_every == 0", "True")
    assert findings(source) == [("LRD004", _STEP_LINE)]


def test_bounds_that_overlap_are_still_found() -> None:
    # `val_every >= 0` holds where validation runs too (any period above 0)
    source = val_every("cfg.val_every > 0 and (epoch + 1) % cfg.val_every == 0",
                       "cfg.val_every >= 0")
    assert findings(source) == [("LRD004", _STEP_LINE)]


def test_period_rebound_between_the_tests_is_still_found() -> None:
    # the setting changes between the two tests: they speak of two values
    source = val_every("cfg.val_every > 0 and (epoch + 1) % cfg.val_every == 0",
                       "cfg.val_every == 0").replace(
        "        if cfg.val_every == 0:",
        "        cfg.val_every = 0\n        if cfg.val_every == 0:")
    assert findings(source) == [("LRD004", _STEP_LINE + 1)]


def test_falsy_value_never_divided_by_leaves_both_branches_possible() -> None:
    # `not cfg.val_every` against `cfg.val_every != 0`: None is falsy and unequal to 0
    source = val_every("cfg.val_every != 0", "not cfg.val_every")
    assert findings(source) == [("LRD004", _STEP_LINE)]
