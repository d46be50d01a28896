"""NaN detection keeps a flag it cannot read for free (a device tensor, or every flag while
``flags.eager`` is False) in its FlagBook, and its ScalerUpdate handler drains the book when it
is due. The lanes' routine ``GradScaler.update()`` does not ask whether the book is due (perf60):
it never is between two hooks, because a flag waits only inside ``NonFinite._flag``, which
drains the book as soon as it is due. These tests hold that invariant on the loops the lanes
take, with flags read at once (the CPU default) and with every flag kept for a drain."""

from __future__ import annotations

from typing import Any

import pytest

import lrdoctor
from lrdoctor.runtime.checks.nonfinite import NonFinite
from lrdoctor.runtime.numerics import FlagBook

torch = pytest.importorskip("torch")


def _spy(monkeypatch) -> dict[str, int]:
    """Every FlagBook.add made inside NonFinite._flag, and the book never due after it."""
    seen = {"added": 0, "flagged": 0, "most_pending": 0}
    inside: list[int] = []
    original_flag, original_add = NonFinite._flag, FlagBook.add

    def add(self, flag):
        assert inside, "a flag was added outside NonFinite._flag"
        seen["added"] += 1
        return original_add(self, flag)

    def _flag(self, *args, **kwargs):
        inside.append(1)
        try:
            return original_flag(self, *args, **kwargs)
        finally:
            inside.pop()
            seen["flagged"] += 1
            assert len(self.flags.pending) < self.flags.interval  # never left due
            seen["most_pending"] = max(seen["most_pending"], len(self.flags.pending))

    monkeypatch.setattr(FlagBook, "add", add)
    monkeypatch.setattr(NonFinite, "_flag", _flag)
    return seen


def _train(steps: int, two: bool, kept: bool) -> Any:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    params = list(model.parameters())
    opts = [torch.optim.SGD(params[:2] if two else params, lr=0.1)]
    if two:
        opts.append(torch.optim.SGD(params[2:], lr=0.1))
    scheds = [torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=steps) for o in opts]
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8)
    data = torch.utils.data.TensorDataset(torch.randn(steps * 4, 8), torch.randint(0, 4, (steps * 4,)))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    with lrdoctor.watch() as w:
        if kept:  # every flag kept for a drain, as on a device
            w.engine.loss_gate.flags.eager = False
            w.engine.reroute_backward()
        for x, y in loader:
            for o in opts:
                o.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            for o in opts:
                scaler.step(o)
            scaler.update()
            for s in scheds:
                s.step()
    return w


@pytest.mark.parametrize("two", [False, True], ids=["one optimizer", "two optimizers"])
@pytest.mark.parametrize("kept", [False, True], ids=["flags read at once", "flags kept for a drain"])
def test_nan_detections_flags_are_never_due_between_hooks(monkeypatch, two, kept):
    seen = _spy(monkeypatch)
    w = _train(200, two, kept)
    assert seen["flagged"] > 0  # the parameter checks (and, kept, every loss) went through _flag
    if kept:
        # flags did wait, up to a book one short of due, and were drained at its interval
        assert seen["added"] > w.engine.loss_gate.flags.interval
        assert seen["most_pending"] == w.engine.loss_gate.flags.interval - 1
