"""The DataLoader iterators' __next__ hook (hooks.FetchHook): while a lane kept through a
periodic step has the only live DataLoader iterator, __next__ runs torch's own code (no
lrdoctor frame a batch), and the hook is back whenever another iterator could yield. What
the engine records is the same as with the hook on throughout (test_lane.py compares every
record, also with other iterators about); these tests check when the hook is off and on,
that training is unchanged, and the cases that keep it on."""

from __future__ import annotations

import gc
import textwrap

import pytest

import lrdoctor
from tests.watch.conftest import PRELUDE

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from torch.utils.data.dataloader import _BaseDataLoaderIter  # noqa: E402

TORCH_NEXT = _BaseDataLoaderIter.__dict__["__next__"]

# each step notes whether the batch it trained on came through torch's own __next__ code
LOOP = PRELUDE.replace("batch_size=16", "batch_size=5") + """
from torch.utils.data.dataloader import _BaseDataLoaderIter

def plain_next():
    return "lrdoctor" not in _BaseDataLoaderIter.__dict__["__next__"].__code__.co_filename

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=156)
SETUP
off = []
step = 0
for epoch in range(3):
    for x, y in loader:
        step += 1
        BATCH
        train_batch(x, y)
        scheduler.step()
        off.append(plain_next())
"""


def _loop(setup: str = "", batch: str = "pass") -> str:
    return LOOP.replace("SETUP", setup).replace("BATCH", batch)


@pytest.fixture(autouse=True)
def _no_iterators_left():
    """An iterator an earlier test left to the garbage collector would count as made before
    the watch (and keep the hook on)."""
    gc.collect()


def test_the_hook_is_off_while_the_lane_has_the_only_iterator(run_script):
    """52 batches an epoch: the lane opens in each epoch's first steps and is kept through the
    periodic steps 64 and 128, which take the hook off; a new epoch's iterator puts it back."""
    ran = run_script(_loop())
    off = ran.ns["off"]
    assert len(off) == 156
    assert not any(off[:63])  # before the first periodic step
    assert all(off[63:104])  # from the periodic step 64 to the epoch's end
    assert not any(off[104:127])  # the next epoch's iterator: on again, to the periodic step 128
    assert all(off[127:155])  # from the periodic step 128 to the horizon (T_max=156)
    assert not off[155]  # the horizon's last step takes the general path: on again
    assert _BaseDataLoaderIter.__dict__["__next__"] is TORCH_NEXT  # torch's own function after
    assert ran.watch.engine.lane.unhooked is False
    assert [f.code for f in ran.findings] == []


def test_training_is_bit_identical_with_the_hook_off(tmp_path):
    source = textwrap.dedent(_loop())
    ns_plain: dict = {}
    exec(compile(source, str(tmp_path / "plain.py"), "exec"), ns_plain)
    ns_watched: dict = {}
    with lrdoctor.watch(echo=lambda m: None):
        exec(compile(source, str(tmp_path / "watched.py"), "exec"), ns_watched)
    assert any(ns_watched["off"])
    for a, b in zip(ns_plain["model"].parameters(), ns_watched["model"].parameters()):
        assert torch.equal(a, b)
    assert ns_plain["optimizer"].state_dict()["param_groups"] == ns_watched["optimizer"].state_dict()["param_groups"]


@pytest.mark.parametrize("batch", [
    "xa, ya = next(aux_it)",  # a second iterator, alive throughout
    "if step == 70: direct = loader._get_iterator()",  # made with no DataLoader.__iter__
])
def test_another_live_iterator_keeps_the_hook_on(batch, run_script):
    setup = "aux_it = iter(DataLoader(TensorDataset(torch.randn(600, 8), torch.randn(600, 1)), batch_size=1))"
    ran = run_script(_loop(setup if "aux_it" in batch else "", batch))
    off = ran.ns["off"]
    assert len(off) == 156
    if "direct" in batch:
        # off from the periodic step 64, on again from the step that made it (and for good:
        # it stays alive)
        assert all(off[63:69]) and not any(off[69:])
    else:
        assert not any(off)


def test_an_iterator_made_before_watching_keeps_the_hook_on(tmp_path):
    """The watch cannot count the iterators made before it started: one whose batch feeds an
    update while the hook is on keeps it on for the whole watch."""
    data = TensorDataset(torch.randn(400, 8), torch.randn(400, 1))
    earlier = iter(DataLoader(data, batch_size=1))
    source = textwrap.dedent(_loop("", "xe, ye = next(earlier)"))
    ns: dict = {"earlier": earlier}
    with lrdoctor.watch(echo=lambda m: None) as w:
        exec(compile(source, str(tmp_path / "t.py"), "exec"), ns)
        assert w.engine.foreign_fetch is True
    assert len(ns["off"]) == 156
    assert not any(ns["off"])


def test_another_tools_next_wrapper_keeps_a_hook_of_its_own(run_script, monkeypatch):
    """A wrapper installed on __next__ before the watch (a profiler, another tool): lrdoctor's
    hook calls it for every batch and is never taken off; it is back on exit."""
    calls = []

    def other(self):
        calls.append(1)
        return TORCH_NEXT(self)

    monkeypatch.setattr(_BaseDataLoaderIter, "__next__", other)
    ran = run_script(_loop())
    assert not any(ran.ns["off"])
    assert len(calls) == 156 + 3  # every batch, and each epoch's end (StopIteration)
    assert _BaseDataLoaderIter.__dict__["__next__"] is other
    assert ran.watch.engine.fetch_hook is None


def test_a_drop_failure_is_an_internal_error_and_training_goes_on(run_script, monkeypatch):
    from lrdoctor.runtime import hooks

    def broken(self, it):
        raise RuntimeError("boom")

    monkeypatch.setattr(hooks.FetchHook, "drop", broken)
    messages: list[str] = []
    path_source = _loop()
    with pytest.raises(AssertionError, match="internal error"):
        run_script(path_source)  # (run_script asserts no internal error was reported)
    w = lrdoctor.watch(echo=messages.append)
    ns: dict = {}
    with w:
        exec(compile(textwrap.dedent(path_source), "t.py", "exec"), ns)
    assert len(ns["off"]) == 156 and not any(ns["off"])
    assert sum("internal error" in m for m in messages) == 1
