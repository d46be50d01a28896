"""What lrdoctor knows about optimizer classes, shared by ``check`` and ``run`` (no torch).

>>> "AdamW" in ADAPTIVE, "SGD" in ADAPTIVE
(True, False)
"""

from __future__ import annotations

# Optimizers that divide each update by a running size of the gradients, with `eps` added in
# the denominator: a constant factor on every gradient (a GradScaler's scale left in) cancels
# out of their updates (up to eps), and eps matters for float16 parameters (LRD102).
ADAPTIVE = frozenset({"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "SparseAdam", "Adagrad",
                      "RMSprop", "Adadelta"})


def unscaled_update(cls: str | None, times: str) -> str:
    """What stepping ``cls`` with gradients left ``times`` too large (a GradScaler's scale never
    divided back, LRD109) does to training: an adaptive optimizer's update cancels the factor
    (checked against torch: AdamW's update moved by 2e-5 relative with a 65536 scale, SGD's
    65,579 times), so what remains is the inf/NaN gradients it steps into the weights and the
    scaled gradients any clip reads.

    >>> unscaled_update("SGD", "65536 times")[:44]
    'every update is 65536 times too large, and i'
    >>> "about right" in unscaled_update("AdamW", "65536 times")
    True
    """
    if cls in ADAPTIVE:
        return (f"{cls} divides by the gradients' running size, so its updates come out about "
                "right, but inf/NaN gradients from float16 overflow are stepped into the weights "
                f"instead of skipped, and anything reading the gradients (a clip, a logged norm) "
                f"sees them {times} too large")
    return (f"every update is {times} too large, and inf/NaN gradients are applied instead of "
            "skipped")
