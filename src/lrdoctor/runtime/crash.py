"""Explain the errors PyTorch raises for scheduler and AMP misuse in the catalog's terms.

When the script dies with one of these, the report names the code, the user's line and the
fix, instead of leaving the user with a message about internal state ("No inf checks were
recorded prior to update").

>>> explain_message("Tried to step 101 times. The specified number of total steps is 100")[0]
'LRD010'
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Any

from lrdoctor.findings import Finding, Location
from lrdoctor.runtime.callsite import _verdict, display_path
from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import RunEnd

# (code, pattern, explanation); the explanation may use the pattern's named groups
KNOWN_ERRORS: tuple[tuple[str, str, str], ...] = (
    ("LRD010", r"Tried to step (?P<n>\d+) times\. The specified number of total steps is (?P<total>\d+)",
     "OneCycleLR was stepped {n} times but its horizon is {total} steps (total_steps, or epochs * "
     "steps_per_epoch): it was stepped more often than it was sized for"),
    ("LRD109", r"No inf checks were recorded prior to update",
     "scaler.update() found no inf check: the loss was scaled for backward but the optimizer was "
     "stepped with optimizer.step() instead of scaler.step(optimizer)"),
    ("LRD110", r"unscale_\(\) has already been called on this optimizer since the last update\(\)",
     "scaler.unscale_(optimizer) ran twice without scaler.update() in between: update() is missing "
     "(or unscale_ is called once per micro-batch under gradient accumulation)"),
    ("LRD110", r"step\(\) has already been called since the last update\(\)",
     "scaler.step(optimizer) ran twice without scaler.update() in between: call scaler.update() once "
     "per iteration, after scaler.step()"),
    ("LRD103", r"unsafe to autocast",
     "BCELoss (or binary_cross_entropy) of probabilities under autocast: a probability that rounds to 0 "
     "or 1 in float16 gives log(0); PyTorch refuses it. Use BCEWithLogitsLoss on the logits"),
    ("LRD004", r"step\(\) missing 1 required positional argument: 'metrics'",
     "ReduceLROnPlateau.step() needs the metric it watches: scheduler.step(val_loss)"),
)


def explain_message(message: str) -> tuple[str, str] | None:
    """``(code, explanation)`` for a known PyTorch error message, else None."""
    for code, pattern, text in KNOWN_ERRORS:
        m = re.search(pattern, message)
        if m:
            return code, text.format(**m.groupdict())
    return None


def user_line(tb: TracebackType | None) -> tuple[str, int] | None:
    """The innermost frame of the user's own code in a traceback."""
    site = None
    while tb is not None:
        if _verdict(tb.tb_frame.f_code) == 2:
            site = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return site


class CrashExplainer:
    """Turns a known scheduler/AMP crash into its catalog code."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        engine.subscribe(RunEnd, self.on_end)

    def on_end(self, ev: RunEnd) -> None:
        err: Any = ev.error
        if err is None or ev.interrupted:
            return
        found = explain_message(str(err))
        if found is None:
            return
        code, text = found
        if any(f.code == code for f in self.engine.findings):
            return  # already diagnosed while training (ScheduleOverrun reports LRD010 live)
        site = user_line(err.__traceback__)
        self.engine.report(
            Finding(
                code,
                f"the script failed with {type(err).__name__}: {str(err).splitlines()[0][:160]} -- {text}",
                Location(display_path(site[0]), site[1]) if site else None,
                evidence={"error": type(err).__name__, "message": str(err)[:500]},
            ),
            key="crash",
        )


CHECKS = (CrashExplainer,)
