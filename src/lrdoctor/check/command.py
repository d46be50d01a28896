"""`lrdoctor check` (being built: see issue 3)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."])


def run(args: argparse.Namespace) -> int:
    print("lrdoctor check: not available yet", file=sys.stderr)
    return 2
