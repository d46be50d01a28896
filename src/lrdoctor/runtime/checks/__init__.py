"""Runtime checks. Each check subscribes to the engine's events in its constructor."""

from __future__ import annotations

from lrdoctor.runtime.checks.amp import CHECKS as AMP_CHECKS
from lrdoctor.runtime.checks.checkpoint import CHECKS as CHECKPOINT_CHECKS
from lrdoctor.runtime.checks.nonfinite import CHECKS as NONFINITE_CHECKS
from lrdoctor.runtime.checks.ranks import CHECKS as RANK_CHECKS
from lrdoctor.runtime.checks.schedule import SCHEDULE_CHECKS
from lrdoctor.runtime.crash import CHECKS as CRASH_CHECKS

ALL_CHECKS: tuple[type, ...] = (SCHEDULE_CHECKS + NONFINITE_CHECKS + AMP_CHECKS + CRASH_CHECKS
                                 + CHECKPOINT_CHECKS + RANK_CHECKS)
