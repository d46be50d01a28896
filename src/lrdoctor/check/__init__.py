"""Static engine: sources (.py, .ipynb) -> a model of the training loop -> rules -> findings.

>>> from lrdoctor.check import check_text
>>> [f.code for f in check_text('''
... import torch
... opt = torch.optim.SGD([], lr=0.1)
... sched = torch.optim.lr_scheduler.StepLR(opt, step_size=7)
... loader = torch.utils.data.DataLoader([])
... for epoch in range(10):
...     for x in loader:
...         opt.step()
...         sched.step()
... ''')]
['LRD002']
"""

from __future__ import annotations

from lrdoctor.check.rules import RULES
from lrdoctor.findings import Finding

#: the codes the static engine implements (the shared catalog-example test iterates them)
STATIC_CODES: frozenset[str] = frozenset(RULES)


def check_text(source: str, path: str = "<string>", select: list[str] | None = None) -> list[Finding]:
    """Findings for Python ``source`` (no files read except project modules it imports)."""
    from lrdoctor.catalog import select_codes
    from lrdoctor.check.engine import check_source

    codes = frozenset(select_codes(select, None)) & STATIC_CODES if select else STATIC_CODES
    return [d.finding() for d in check_source(source, path, codes).diagnostics]


__all__ = ["STATIC_CODES", "check_text"]
