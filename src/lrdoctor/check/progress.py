"""A progress bar for ``lrdoctor check`` on large trees: on stderr, only when stderr is a
terminal (never in CI, a pipe or a file, where it would be noise in a log), and only once the
check has run for a moment, so small checks print nothing extra."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

MIN_FILES = 200  # fewer files are checked before a bar would be worth drawing
DELAY_S = 0.5  # draw nothing before this much time passed
EVERY_S = 0.1  # redraw at most this often


def wanted(files: int, stream: Any = None) -> bool:
    stream = stream or sys.stderr
    if files < MIN_FILES or os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """``update(done)`` as files finish; ``close()`` erases the bar."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30,
                 clock: Any = time.monotonic) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.width = width
        self.clock = clock
        self.started = clock()
        self.last_draw = 0.0
        self.drawn = False

    def update(self, done: int) -> None:
        now = self.clock()
        if now - self.started < DELAY_S or (self.drawn and now - self.last_draw < EVERY_S
                                            and done < self.total):
            return
        self.last_draw = now
        filled = self.width * done // max(1, self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\rlrdoctor check: [{bar}] {done}/{self.total} files")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
