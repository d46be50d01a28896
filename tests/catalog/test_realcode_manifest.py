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
