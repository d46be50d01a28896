"""The real-code scorer never reads a file lrdoctor did not check as a correct silence.

A file lrdoctor gave up on (an internal error, Python's recursion limit: ``code`` null in the
JSON, exit 2) must fail its case, whatever stderr says; before this, a "too deeply nested (file
not checked)" file was scored as "no finding" because only stderr lines saying "internal error"
were looked for. Files that are not Python 3 (E999) are listed in the summary even under
``--numbers-only``. The lrdoctor run here is a stand-in script printing fixed JSON: what is
tested is the scorer's reading of it.
"""

import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def score():
    spec = importlib.util.spec_from_file_location("realcode_score_t", ROOT / "bench" / "realcode" / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def _finding(path, code, message):
    return {"code": code, "path": path, "line": 3, "message": message}


def _fake_lrdoctor(tmp_path, findings, rc, stderr=""):
    script = tmp_path / "fake_lrdoctor.py"
    script.write_text(textwrap.dedent(f"""\
        import sys
        sys.stdout.write({json.dumps(json.dumps(findings))})
        sys.stderr.write({stderr!r})
        sys.exit({rc})
        """))
    return [sys.executable, str(script)]


def _cases(score, tmp_path):
    cache = tmp_path / "cache"
    cases = []
    for i in range(2):
        case = score.Case(id=f"t-{i}", repo=f"o/r{i}", commit="c" * 40, paths=["train.py"],
                          split="dev", expected=[score.Expected("LRD002", "why")],
                          uncertain={})
        d = case.cache_dir(cache)
        d.mkdir(parents=True)
        (d / "train.py").write_text("x = 1\n")
        cases.append(case)
    return cases, cache


def test_a_file_lrdoctor_gave_up_on_fails_its_case_not_the_others(score, tmp_path):
    cases, cache = _cases(score, tmp_path)
    found = [_finding("case000/train.py", None,
                      "too deeply nested for lrdoctor to analyse (file not checked)"),
             _finding("case001/train.py", "LRD002", "stepped per batch")]
    lrd = _fake_lrdoctor(tmp_path, found, 2,
                         "lrdoctor: case000/train.py: too deeply nested (file not checked)\n")
    first, second = score.run_all(cases, cache, lrd)
    assert "too deeply nested" in first.error
    assert not second.error and [f.code for f in second.findings] == ["LRD002"]


def test_a_null_code_fails_the_case_even_on_a_clean_exit(score, tmp_path):
    cases, cache = _cases(score, tmp_path)
    found = [_finding("case001/train.py", None, "internal error (KeyError: 'x') (file not checked)")]
    first, second = score.run_all(cases, cache, _fake_lrdoctor(tmp_path, found, 0))
    assert not first.error and first.findings == []
    assert "KeyError" in second.error


def test_one_case_run_fails_on_a_null_code(score, tmp_path):
    cases, cache = _cases(score, tmp_path)
    found = [_finding("train.py", None, "internal error (ValueError) (file not checked)")]
    outcome = score.run_case(cases[0], cache, _fake_lrdoctor(tmp_path, found, 2))
    assert outcome.error


def test_unparsed_files_are_listed_under_numbers_only(score, tmp_path, monkeypatch, capsys):
    cases, cache = _cases(score, tmp_path)
    found = [_finding("case000/train.py", "E999", "syntax error: invalid syntax (file not checked)")]
    lrd = _fake_lrdoctor(tmp_path, found, 0)
    monkeypatch.setattr(score, "load_manifest", lambda *a, **k: cases)
    monkeypatch.setattr(score, "default_lrdoctor", lambda: lrd)
    rc = score.main(["--split", "dev", "--numbers-only", "--cache", str(cache)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "1 file(s) of scored cases not checked" in out
    assert "t-0 [dev] train.py: syntax error" in out
