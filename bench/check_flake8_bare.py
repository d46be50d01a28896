"""flake8 with only its own default plugins (pycodestyle, pyflakes, mccabe), for the benchmark:
plugins installed by other packages (TorchFix's TOR, lrdoctor's LRD) are dropped, since flake8
runs every installed plugin whatever `--select` says."""

from __future__ import annotations

import sys

from flake8.main.cli import main
from flake8.plugins import finder

_find = finder.find_plugins


def _own_plugins(*args, **kwargs):  # type: ignore[no-untyped-def]
    return [p for p in _find(*args, **kwargs) if p.package in ("flake8", "pycodestyle",
                                                                "pyflakes", "mccabe")]


finder.find_plugins = _own_plugins  # type: ignore[assignment]

if __name__ == "__main__":
    sys.exit(main())
