"""The real-code evaluation's manifest (bench/realcode/manifest.toml) stays loadable.

Batches of cases are appended by several people at once, and a merge that drops one
``[[case]]`` header glues two cases together; score.py would then fail or score the wrong
thing. These checks read the manifest exactly as the scorer does, without running lrdoctor.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import tomllib

from lrdoctor.catalog import CATALOG

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "bench" / "realcode" / "manifest.toml"


@pytest.fixture(scope="module")
def score():
    spec = importlib.util.spec_from_file_location("realcode_score", ROOT / "bench" / "realcode" / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def test_every_case_header_is_one_valid_case(score):
    cases = score.load_manifest(MANIFEST)  # raises on duplicate ids, bad splits, bad lines
    headers = len(re.findall(r"^\[\[case\]\]\s*$", MANIFEST.read_text(), flags=re.M))
    assert len(cases) == headers
    assert len({c.id for c in cases}) == len(cases)


def test_labels_use_catalog_codes(score):
    for case in score.load_manifest(MANIFEST):
        for code in [e.code for e in case.expected] + list(case.uncertain):
            assert code in CATALOG, f"{case.id}: {code} is not a diagnosis code"


def test_a_lost_header_is_caught(score, tmp_path):
    text = MANIFEST.read_text()
    first = text.index("[[case]]")
    second = text.index("[[case]]", first + 1)
    broken = tmp_path / "manifest.toml"
    broken.write_text(text[:second] + text[second + len("[[case]]"):])
    with pytest.raises((tomllib.TOMLDecodeError, score.ManifestError)):
        score.load_manifest(broken)


def test_numbers_only_prints_no_case(score, tmp_path, capsys):
    # whoever compares two builds on the whole split reads the numbers, not other cases' labels
    case_id = next(f"demo/case-{i}" for i in range(100) if score.split_for(f"demo/case-{i}") == "dev")
    commit = "0" * 40
    source = tmp_path / "cache" / "demo__repo" / commit / "train.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "import torch\n"
        "model = torch.nn.Linear(2, 1)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)\n"
        "loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2)\n"
        "for epoch in range(90):\n"
        "    for batch in loader:\n"
        "        opt.step()\n"
        "        sched.step()\n"
    )
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        f'[[case]]\nid = "{case_id}"\nrepo = "demo/repo"\ncommit = "{commit}"\n'
        f'paths = ["train.py"]\nsplit = "dev"\n'
    )
    argv = ["--manifest", str(manifest), "--cache", str(tmp_path / "cache")]
    score.main(argv)
    assert "FALSE LRD002" in capsys.readouterr().out  # correct-code label: a false alarm, shown
    score.main([*argv, "--numbers-only"])
    out = capsys.readouterr().out
    assert "precision 0.00 (0/1)" in out  # the false alarm still counts
    assert "LRD002" not in out and case_id not in out


def test_labels_lookup_shows_dev_cases_only(score, tmp_path, capsys):
    # how earlier cases were labelled is looked up through the scorer, which never shows a
    # held-out case (a grep over the manifest does)
    def case_id(split):
        return next(f"demo/plateau-{i}" for i in range(100) if score.split_for(f"demo/plateau-{i}") == split)

    commit = "0" * 40
    manifest = tmp_path / "manifest.toml"
    manifest.write_text("".join(
        f'[[case]]\nid = "{case_id(split)}"\nrepo = "demo/repo"\ncommit = "{commit}"\n'
        f'paths = ["train.py"]\nsplit = "{split}"\nnote = "a {split} note on ReduceLROnPlateau"\n'
        f'expected = [{{ code = "LRD007", reason = "the {split} reason" }}]\n\n'
        for split in ("dev", "heldout")))
    assert score.main(["--manifest", str(manifest), "--labels", "reducelronplateau"]) == 0
    captured = capsys.readouterr()
    assert case_id("dev") in captured.out and "the dev reason" in captured.out
    assert "a dev note" in captured.out
    assert case_id("heldout") not in captured.out and "heldout" not in captured.out
    assert "1 held-out case(s) matched too" in captured.err
    assert score.main(["--manifest", str(manifest), "--labels", "("]) == 2
