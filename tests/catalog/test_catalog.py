"""The catalog is complete: every code has a page with a wrong and a right example."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lrdoctor.catalog import CATALOG, lookup, select_codes
from lrdoctor.findings import Finding, Location

DESIGN_CODES = {
    "LRD001", "LRD002", "LRD003", "LRD004", "LRD005", "LRD006", "LRD007", "LRD008", "LRD009",
    "LRD010", "LRD011", "LRD012", "LRD013", "LRD014", "LRD015", "LRD017", "LRD101", "LRD102",
    "LRD103", "LRD104", "LRD105", "LRD106", "LRD108", "LRD109", "LRD110",
}
# codes added after the design's table, each with its page (codes are never reused, so a new
# diagnosis takes the next free number)
ADDED_CODES = {"LRD111"}


def test_catalog_holds_every_design_code():
    assert set(CATALOG) == DESIGN_CODES | ADDED_CODES


@pytest.mark.parametrize("code", sorted(DESIGN_CODES | ADDED_CODES))
def test_every_code_has_a_full_page(code):
    entry = CATALOG[code]
    page = entry.page()
    for part in ("## Why it hurts", "## How to fix", "## Wrong", "## Right"):
        assert part in page, f"{code} page lacks {part}"
    assert entry.wrong_example != entry.right_example
    compile(entry.wrong_example, f"{code}_wrong.py", "exec")
    compile(entry.right_example, f"{code}_right.py", "exec")


def test_names_are_unique_and_lookup_accepts_codes_and_names():
    names = [e.name for e in CATALOG.values()]
    assert len(names) == len(set(names))
    assert lookup("lrd002").code == "LRD002"
    assert lookup("epoch-scheduler-per-batch").code == "LRD002"
    assert lookup("2").code == "LRD002"
    assert lookup("LRD999") is None


def test_select_and_ignore_prefixes():
    assert select_codes(["LRD1"], None) == {c for c in CATALOG if c.startswith("LRD1")}
    assert "LRD002" not in select_codes(None, ["LRD002"])
    with pytest.raises(ValueError, match="unknown code"):
        select_codes(["LRD999"], None)


def test_finding_shape_and_defaults():
    f = Finding("LRD002", "msg", Location("a.py", 3, 5))
    d = f.to_dict()
    assert {"code", "severity", "message", "path", "line", "column"} <= d.keys()
    assert d["severity"] == "error" and d["line"] == 3 and f.fix
    with pytest.raises(ValueError):
        Finding("LRD999", "x")


def test_explain_prints_a_page_and_rejects_unknown_codes():
    run = subprocess.run([sys.executable, "-m", "lrdoctor", "explain", "LRD003"],
                         capture_output=True, text=True)
    assert run.returncode == 0 and "OneCycleLR" in run.stdout and "## Right" in run.stdout
    run = subprocess.run([sys.executable, "-m", "lrdoctor", "explain", "LRD999"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "unknown code" in run.stderr


def test_package_imports_without_torch():
    code = "import sys; sys.modules['torch'] = None; import lrdoctor, lrdoctor.cli; " \
           "import lrdoctor.catalog; print(lrdoctor.watch)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    run = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['torch'] = None; import lrdoctor.cli; "
         "raise SystemExit(lrdoctor.cli.main(['run', 'x.py']))"],
        capture_output=True, text=True)
    assert run.returncode == 2


def test_found_by_reflects_what_the_engines_implement():
    from lrdoctor.runtime import CRASH_EXPLAINED_CODES
    from lrdoctor.runtime.crash import KNOWN_ERRORS

    assert {code for code, _, _ in KNOWN_ERRORS} == CRASH_EXPLAINED_CODES
    assert ("`lrdoctor check` (static) and `torchrun ... -m lrdoctor run` (runtime"
            in CATALOG["LRD013"].page())
    assert "`lrdoctor check` (static) and `lrdoctor run` (runtime)" in CATALOG["LRD002"].page()
    assert "`lrdoctor run` (runtime)" in CATALOG["LRD009"].page()
    assert "`lrdoctor check`" not in CATALOG["LRD009"].page().split("## Why")[0]
