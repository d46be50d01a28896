"""Shapes met while hunting false alarms in diffusion, pre-training, speech, medical, graph,
3D and time-series repositories (fphunt30).

A file written for Python 3.12+ whose f-strings use PEP 701 (the f-string's own quotes, a
line break, a backslash or a comment inside ``{}``) cannot be parsed by an older interpreter
running lrdoctor. It stays E999 (the file is not checked), but the message must say that the
cause may be the interpreter's age, not call correct code broken. Real syntax errors, in an
f-string or not, keep the parser's message alone.

(fphunt68) Such files are now checked on an older interpreter too: the f-strings the parser
stops at are rewritten into ones it accepts (`lrdoctor.check.pep701`), so no E999 is left;
a file that fails for another reason still gets the hint where it applies."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from lrdoctor.check.engine import check_source
from lrdoctor.cli import main

OLD_PYTHON = sys.version_info < (3, 12)
HINT = "3.12"


def _e999(source: str) -> list[str]:
    result = check_source(textwrap.dedent(source), "convert.py")
    return [p.message for p in result.problems if p.code == "E999"]


def _pep701(source: str) -> None:
    """Valid on 3.12+, and checked on older Pythons too (fphunt68): no E999."""
    assert _e999(source) == []


# a conversion script printing which variant it saves, the replacement field broken over two
# lines inside a double-quoted f-string
_LINE_BREAK = '''
import torch


def save(transformer, has_guidance, path):
    print(
        f"Saving the transformer. Variant: {
            'guidance-distilled' if has_guidance else 'timestep-distilled'}"
    )
    torch.save(transformer.state_dict(), path)
'''


def test_line_break_inside_an_f_string_field_is_named_as_a_newer_python_form() -> None:
    _pep701(_LINE_BREAK)


def test_own_quotes_reused_inside_an_f_string_field_are_named_as_a_newer_python_form() -> None:
    _pep701('''
    def describe(info, cfg):
        name = f"{"-".join(info)}_{cfg["split"]}"
        return name
    ''')


def test_backslash_inside_an_f_string_field_is_named_as_a_newer_python_form() -> None:
    _pep701('''
    def header(cols):
        return f"columns: {"\\t".join(cols)}"
    ''')


def test_comment_inside_an_f_string_field_is_named_as_a_newer_python_form() -> None:
    _pep701('''
    def tag(step, epoch):
        return f"""run-{
            step  # the optimizer step
        }-{epoch}"""
    ''')


def test_notebook_cell_with_a_newer_f_string_is_named_as_such(tmp_path, monkeypatch,
                                                              capsys) -> None:
    cells = [["import torch\n", "x = torch.zeros(2)\n"],
             ["names = ['a', 'b']\n", 'print(f"{"/".join(names)}")\n']]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": src} for src in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / ".git").mkdir()
    (tmp_path / "explore.ipynb").write_text(json.dumps(nb))
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--exit-zero", "explore.ipynb"])
    entries = [e for e in json.loads(capsys.readouterr().out) if e["code"] == "E999"]
    assert entries == []  # (fphunt68) the cell is checked on older Pythons too


# -- controls: real syntax errors keep the parser's message alone ------------------------------

@pytest.mark.parametrize("source", [
    'x = f"{a"\n',                       # a field never closed: an error on every Python
    'x = f"{}"\n',                       # an empty field
    'x = f"{a!z}"\n',                    # a bad conversion
    'x = f"{\'a\'"\n',                   # a field closed by the string's end
    'x = f"abc\ny = 2\n',                # an f-string left open at the line's end
    'def f(x):\n    return x +\n',       # no f-string at all
    'label = f"{name}"\nvalue = = 3\n',  # a valid f-string next to the real error
])
def test_real_syntax_errors_are_not_put_down_to_the_python_version(source: str) -> None:
    messages = _e999(source)
    assert len(messages) == 1
    assert HINT not in messages[0] and "PEP 701" not in messages[0], messages[0]
    assert messages[0].startswith("syntax error: ")
