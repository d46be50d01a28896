"""Under torch.compile, lrdoctor stays out of the graph: no graph break of ours, no warning
pointing into lrdoctor, the same training, and the compiled optimizer steps still counted."""

from __future__ import annotations

import logging

import pytest

import lrdoctor

torch = pytest.importorskip("torch")
dynamo = pytest.importorskip("torch._dynamo")


def _train(compile_model: bool) -> tuple[torch.Tensor, int]:
    """A per-batch OneCycleLR over a compiled ``optimizer.step()`` (the usual way to compile
    an optimizer, with a tensor LR so a changing LR does not recompile), optionally a compiled
    model too; the cheap "eager" backend: Dynamo traces exactly as with inductor."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=6)
    forward = torch.compile(model, backend="eager") if compile_model else model

    @torch.compile(backend="eager")
    def optimizer_step() -> None:
        optimizer.step()

    for _ in range(6):
        loss = forward(torch.randn(16, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer_step()
        scheduler.step()
    return torch.cat([p.detach().flatten() for p in model.parameters()]), scheduler.last_epoch


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _compiled_run(compile_model: bool, watched: bool) -> tuple[torch.Tensor, list[str], int, lrdoctor.Watch | None]:
    from torch._dynamo.utils import counters

    dynamo.reset()
    counters.clear()
    records = _Records()
    log = logging.getLogger("torch._dynamo")
    log.addHandler(records)
    w = lrdoctor.watch(echo=records.messages.append) if watched else None
    try:
        if w is not None:
            with w:
                params, _ = _train(compile_model)
        else:
            params, _ = _train(compile_model)
    finally:
        log.removeHandler(records)
    breaks = sum(counters["graph_break"].values())
    return params, records.messages, breaks, w


@pytest.mark.parametrize("compile_model", [False, True], ids=["optimizer_step", "model_and_optimizer_step"])
def test_compiled_optimizer_step_has_no_graph_break_or_warning_from_lrdoctor(compile_model):
    plain, _, plain_breaks, _ = _compiled_run(compile_model, watched=False)
    watched, messages, watched_breaks, w = _compiled_run(compile_model, watched=True)
    assert torch.equal(plain, watched)  # training is unchanged
    assert not [m for m in messages if "lrdoctor" in m], messages  # nothing of ours in any warning
    assert watched_breaks == plain_breaks  # PyTorch's own graph breaks, none added
    opt = next(iter(w.engine.optimizers.values()))
    assert opt.attempts == 6  # every compiled step was seen
    assert not w.findings, w.report()  # in particular no "scheduler before optimizer"
