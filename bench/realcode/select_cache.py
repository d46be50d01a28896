"""Which repositories to fetch when the real-code cache is empty (a new machine).

A session may fetch about 500 repositories; the manifest names far more. This picks, with a
seeded ``random.Random``, every held-out repository whose cases expect a code other than
LRD101 (the held-out recall depends on them), ``--heldout-clean`` held-out repositories
without one, ``--dev-bug`` dev repositories with such a case and ``--dev-clean`` without (the
dev ones are also the whole-repository regression set), and writes the lists: ``all.txt``
(what to fetch) and ``dev.txt`` (for ``regress.py export --repos``). Sessions that use the
same seed and counts on the same manifest fetch the same repositories.

    python3 bench/realcode/select_cache.py --out /work/tools          # seed 60, 50 / 110 / 35
    split -n l/3 -d /work/tools/all.txt /work/tools/part_             # one list per helper

It prints counts only (never held-out case labels). Then, once fetched:
``python3 bench/realcode/score.py --extract-from-mirrors``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score import MANIFEST, load_manifest  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="directory for all.txt and dev.txt")
    ap.add_argument("--seed", type=int, default=60)
    ap.add_argument("--heldout-clean", type=int, default=50)
    ap.add_argument("--dev-bug", type=int, default=110)
    ap.add_argument("--dev-clean", type=int, default=35)
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    args = ap.parse_args(argv)
    split: dict[str, dict[str, bool]] = {"dev": {}, "heldout": {}}
    for case in load_manifest(args.manifest):
        repo = case.fetched_from or case.repo
        bug = any(e.code != "LRD101" for e in case.expected)
        split[case.split][repo] = split[case.split].get(repo, False) or bug
    rng = random.Random(args.seed)
    held_bug = sorted(r for r, b in split["heldout"].items() if b)
    held_clean = sorted(r for r, b in split["heldout"].items() if not b)
    dev_bug = sorted(r for r, b in split["dev"].items() if b and r not in held_bug)
    dev_clean = sorted(r for r, b in split["dev"].items() if not b and r not in held_bug)
    chosen_held = held_bug + rng.sample(held_clean, min(args.heldout_clean, len(held_clean)))
    chosen_dev = rng.sample(dev_bug, min(args.dev_bug, len(dev_bug))) + rng.sample(
        [r for r in dev_clean if r not in dev_bug], min(args.dev_clean, len(dev_clean)))
    everything = list(dict.fromkeys(chosen_held + chosen_dev))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "all.txt").write_text("\n".join(everything) + "\n")
    (args.out / "dev.txt").write_text("\n".join(dict.fromkeys(chosen_dev)) + "\n")
    print(f"{len(everything)} repositories to fetch ({len(held_bug)} held-out with a bug, "
          f"{len(chosen_held) - len(held_bug)} held-out without, {len(chosen_dev)} dev): "
          f"{args.out / 'all.txt'}; dev ones (the regression set): {args.out / 'dev.txt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
