"""A scheduler or optimizer built through ``functools.partial`` of its library class is the
same object as one built by calling the class directly: ``make = partial(StepLR,
step_size=30); sched = make(opt)`` is ``StepLR(opt, step_size=30)``. Its rules hold on the
arguments given ahead joined to those of the call.

Each shape comes as a twin pair: the buggy program, which must be reported, and the same
program written correctly, which must stay silent."""

from __future__ import annotations

from .helpers import findings

HEAD = """
import functools
from functools import partial

import torch
from torch.optim.lr_scheduler import OneCycleLR, StepLR
"""

# -- an epoch-sized schedule from a partial, stepped per batch or per epoch -----------------

EPOCH_SIZED = HEAD + """

def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    {build}
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = model(x).mean()
            loss.backward()
            opt.step()
{step}
"""

BUILDS = [
    "make = functools.partial(StepLR, step_size=30, gamma=0.1)\n    sched = make(opt)",
    "sched = partial(StepLR, step_size=30)(opt)",
    "make = partial(StepLR, gamma=0.5)\n    sched = make(opt, step_size=30)",
]


def epoch_sized(build: str, per_batch: bool) -> str:
    step = "            sched.step()" if per_batch else "        sched.step()"
    return EPOCH_SIZED.replace("{build}", build).replace("{step}", step)


def codes_of(source: str) -> list[str]:
    return [code for code, _ in findings(source)]


def test_epoch_schedule_from_a_partial_stepped_per_batch_is_reported() -> None:
    for build in BUILDS:
        assert "LRD002" in codes_of(epoch_sized(build, per_batch=True)), build


def test_epoch_schedule_from_a_partial_stepped_per_epoch_is_silent() -> None:
    for build in BUILDS:
        assert codes_of(epoch_sized(build, per_batch=False)) == [], build


# -- a partial made at module level (a config of literals) ------------------------------------

MODULE_LEVEL = HEAD + """
MAKE_SCHEDULER = partial(StepLR, step_size=30)


def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MAKE_SCHEDULER(opt)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
{step}
"""


def test_module_level_partial_stepped_per_batch_is_reported() -> None:
    assert "LRD002" in codes_of(MODULE_LEVEL.replace("{step}", "            sched.step()"))


def test_module_level_partial_stepped_per_epoch_is_silent() -> None:
    assert codes_of(MODULE_LEVEL.replace("{step}", "        sched.step()")) == []


# -- a batch-sized schedule from a partial: the converse -------------------------------------

BATCH_SIZED = HEAD + """
MAKE = functools.partial(OneCycleLR, max_lr=0.1)


def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MAKE(opt, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
{step}
"""


def test_one_cycle_from_a_partial_stepped_per_epoch_is_reported() -> None:
    assert "LRD003" in codes_of(BATCH_SIZED.replace("{step}", "        sched.step()"))


def test_one_cycle_from_a_partial_stepped_per_batch_is_silent() -> None:
    assert codes_of(BATCH_SIZED.replace("{step}", "            sched.step()")) == []


# -- an optimizer from a partial: float16 parameters and Adam's eps --------------------------

FP16_ADAM = HEAD + """

def fit(model, loader):
    model = model.half()
    make_opt = functools.partial(torch.optim.Adam, lr=1e-3, eps={eps})
    opt = make_opt(model.parameters())
    for x, y in loader:
        opt.zero_grad()
        model(x.half()).float().mean().backward()
        opt.step()
"""


def test_fp16_adam_from_a_partial_with_a_tiny_eps_is_reported() -> None:
    assert "LRD102" in codes_of(FP16_ADAM.replace("{eps}", "1e-8"))


def test_fp16_adam_from_a_partial_with_a_safe_eps_is_silent() -> None:
    assert codes_of(FP16_ADAM.replace("{eps}", "1e-4")) == []


# -- objects held in a SimpleNamespace record -------------------------------------------------

NAMESPACE = """
import types
from types import SimpleNamespace

import torch
from torch.optim.lr_scheduler import OneCycleLR, StepLR


def fit(model, loader, epochs):
    o = torch.optim.SGD(model.parameters(), lr=0.1)
    st = {make}(opt=o, sched=StepLR(o, step_size=30), epochs=epochs)
    epoch = 0
    while epoch < st.epochs:
        for i, (a, b) in enumerate(zip(loader, loader)):
            st.opt.zero_grad()
            loss = model(a).mean()
            loss.backward()
            st.opt.step()
{step}
        epoch += 1
"""


def namespace(make: str, per_batch: bool) -> str:
    step = "            st.sched.step()" if per_batch else "        st.sched.step()"
    return NAMESPACE.replace("{make}", make).replace("{step}", step)


def test_scheduler_in_a_namespace_stepped_per_batch_is_reported() -> None:
    for make in ("SimpleNamespace", "types.SimpleNamespace"):
        assert "LRD002" in codes_of(namespace(make, per_batch=True)), make


def test_scheduler_in_a_namespace_stepped_per_epoch_is_silent() -> None:
    for make in ("SimpleNamespace", "types.SimpleNamespace"):
        assert codes_of(namespace(make, per_batch=False)) == [], make


AMP_NAMESPACE = """
import torch
from types import SimpleNamespace


def fit(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    st = SimpleNamespace(opt=opt, scaler=torch.amp.GradScaler("cuda"))
    for x, y in loader:
        st.opt.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).mean()
        st.scaler.scale(loss).backward()
{update}
"""


def test_scaler_in_a_namespace_clipped_before_unscale_is_reported() -> None:
    update = ("        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
              "        st.scaler.step(st.opt)\n        st.scaler.update()")
    assert "LRD108" in codes_of(AMP_NAMESPACE.replace("{update}", update))


def test_scaler_in_a_namespace_unscaled_before_clipping_is_silent() -> None:
    update = ("        st.scaler.unscale_(st.opt)\n"
              "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
              "        st.scaler.step(st.opt)\n        st.scaler.update()")
    assert codes_of(AMP_NAMESPACE.replace("{update}", update)) == []


def test_optimizer_stepped_past_a_namespaced_scaler_is_reported() -> None:
    assert "LRD109" in codes_of(AMP_NAMESPACE.replace("{update}", "        st.opt.step()"))
