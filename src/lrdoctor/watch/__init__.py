"""Runtime engine: hooks -> events -> online checks -> findings.

The engine observes and never alters: every hook reads state that PyTorch already computed,
keeps tensors by reference instead of synchronizing, and everything installed is removed when
watching ends (see :mod:`lrdoctor.watch.patching`).
"""

# Codes the runtime engine implements (the catalog-example tests iterate over this set).
RUNTIME_CODES = frozenset(
    {
        "LRD001", "LRD002", "LRD003", "LRD005", "LRD008", "LRD009", "LRD010", "LRD011",
        "LRD012", "LRD014", "LRD017",
        "LRD102", "LRD104", "LRD105", "LRD106", "LRD108", "LRD109", "LRD110",
    }
)


# ``lrdoctor.watch`` is both this package and the public ``lrdoctor.watch()`` context manager:
# importing a submodule rebinds the package attribute on ``lrdoctor``, so the package itself
# is made callable instead of letting the import silently replace the function.
import sys as _sys
import types as _types
from typing import Any as _Any


class _WatchModule(_types.ModuleType):
    def __call__(self, **options: _Any) -> _Any:
        """``lrdoctor.watch(strict=False)``: see :class:`lrdoctor.watch.session.Watch`."""
        from lrdoctor.watch.session import Watch

        return Watch(**options)


_sys.modules[__name__].__class__ = _WatchModule
