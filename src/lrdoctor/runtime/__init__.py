"""Runtime engine: hooks -> events -> online checks -> findings.

The engine observes and never alters: every hook reads state that PyTorch already computed,
keeps tensors by reference instead of synchronizing, and everything installed is removed when
watching ends (see :mod:`lrdoctor.runtime.patching`).
"""

# Codes the runtime engine implements (the catalog-example tests iterate over this set).
RUNTIME_CODES = frozenset(
    {
        "LRD001", "LRD002", "LRD003", "LRD005", "LRD007", "LRD008", "LRD009", "LRD010", "LRD011",
        "LRD012", "LRD014", "LRD017",
        "LRD102", "LRD104", "LRD105", "LRD106", "LRD108", "LRD109", "LRD110",
    }
)


# Codes the runtime reports only by explaining the error a script died with (lrdoctor.runtime.crash).
CRASH_EXPLAINED_CODES = frozenset({"LRD004", "LRD010", "LRD103", "LRD109", "LRD110"})


# Codes found across the ranks of a torchrun job, by rank 0 when it merges the ranks' traces
# (lrdoctor.report.ranks); their catalog examples are run under torchrun (tests/watch/test_distributed.py).
DISTRIBUTED_CODES = frozenset({"LRD013"})
