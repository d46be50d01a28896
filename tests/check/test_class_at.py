"""context.class_at: the innermost class around a line (one helper for every rule that asks)."""

from __future__ import annotations

import ast
import textwrap

from lrdoctor.check.context import class_at

SOURCE = textwrap.dedent('''\
    class Outer:                 # 1
        def fit(self):           # 2
            class Local:         # 3
                def step(self):  # 4
                    pass         # 5
            return Local         # 6
        class Inner:             # 7
            x = 1                # 8
        y = 2                    # 9

    def free():                  # 11
        pass                     # 12
''')


def _name_at(line: int) -> str | None:
    found = class_at(ast.parse(SOURCE), line)
    return found.name if found is not None else None


def test_the_innermost_class_is_the_one_around_a_line():
    assert _name_at(2) == "Outer"
    assert _name_at(4) == "Local"  # a class inside a method of another
    assert _name_at(5) == "Local"
    assert _name_at(6) == "Outer"  # after the nested class ends
    assert _name_at(8) == "Inner"
    assert _name_at(9) == "Outer"


def test_no_class_outside_every_class():
    assert _name_at(11) is None
    assert _name_at(12) is None
