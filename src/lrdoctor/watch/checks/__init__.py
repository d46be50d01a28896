"""Runtime checks. Each check subscribes to the engine's events in its constructor."""

from __future__ import annotations

from lrdoctor.watch.checks.schedule import SCHEDULE_CHECKS

ALL_CHECKS: tuple[type, ...] = SCHEDULE_CHECKS
