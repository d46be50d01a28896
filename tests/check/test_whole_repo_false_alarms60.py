"""fphunt70: whole repositories of LLM fine-tuning and pre-training, diffusion, detection and
tracking, speech, RL, recommenders and molecule models, checked from their roots. Found:

1. LRD103 on the log of a softmax computed in float32 (`F.softmax(logits.float(), -1)` in a
   script whose model is `.half()`): the cast before the softmax makes its probabilities
   float32, whatever the model runs in. A probability computed from `x.float()`,
   `x.double()`, `x.to(torch.float32)`, with `dtype=torch.float32`, or from a name last bound
   to such a cast, is no float16 probability. Still found: the softmax of the half logits,
   the sigmoid of a name bound to anything else, a sigmoid of the autocast output.

2. LRD005 reported inside a plain scheduler class of the project (a config-driven wrapper
   whose `step()` calls `self.scheduler.step()`, no torch base class): the wrapper forwards
   the schedule; the update is made elsewhere, and the call in the training loop is what
   runs after `scaler.step(optimizer)`. The finding is now made there. A trainer's own
   `step()` that makes the update and steps the schedule is still reported inside it.

3. Messages naming a line of another file said "line N" (the line of the file the rule
   traced, not of the one reported): an LRD007 moved to the call of a policy's
   `load_state_dict` named the scheduler's "line 90", another file's; an LRD005 named the
   scaler step of a base trainer module as a line of the subclass's file. Such a line is now
   named with its file, with its directories where both files share a name.

4. A GradScaler built under nested tests (`if cfg.use_fp16:` around `if cfg.fsdp: scaler =
   ShardedGradScaler()`) was said to be on "when `cfg.fsdp` is on", the innermost test
   alone: every enclosing test holds where it is built, so the message joins them; a flag
   bound once to False in any of them still means it is never built.
"""

from __future__ import annotations

from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, findings, messages

# -- 1. LRD103: probabilities computed in float32 ----------------------------------------------

_HALF_MODEL = """
import torch
import torch.nn.functional as F

model = torch.nn.Linear(16, 8).cuda().half()


@torch.inference_mode()
def pick(x):
    logits = model(x)
    {body}
    return scores
"""


def _half(body: str) -> str:
    return _HALF_MODEL.replace("{body}", body)


def test_log_of_a_softmax_of_logits_cast_to_float32_is_silent() -> None:
    assert "LRD103" not in codes(_half(
        "probas = F.softmax(logits.float(), dim=-1)\n    scores = probas.log()"))


def test_log_of_a_softmax_of_the_half_logits_is_found() -> None:
    assert codes(_half(
        "probas = F.softmax(logits, dim=-1)\n    scores = probas.log()")) == ["LRD103"]


def test_log_of_a_sigmoid_of_a_name_cast_to_float32_is_silent() -> None:
    assert "LRD103" not in codes(_half(
        "wide = logits.to(torch.float32)\n    scores = torch.log(torch.sigmoid(wide))"))


def test_log_of_a_softmax_with_a_float32_dtype_is_silent() -> None:
    assert "LRD103" not in codes(_half(
        "probas = logits.softmax(-1, dtype=torch.float32)\n    scores = probas.log()"))


def test_log_of_a_sigmoid_of_a_tensor_made_double_first_is_silent() -> None:
    assert "LRD103" not in codes(_half(
        "probas = logits.double().sigmoid()\n    scores = torch.log(probas)"))


def test_log_of_a_sigmoid_of_a_name_bound_to_the_half_logits_is_found() -> None:
    assert codes(_half(
        "narrow = logits * 2\n    scores = torch.log(torch.sigmoid(narrow))")) == ["LRD103"]


_AUTOCAST_SIGMOID = """
import torch

model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    with torch.autocast("cuda"):
        out = model(x)
        p = torch.sigmoid({arg})
        loss = -(y * torch.log(p)).mean()
    loss.backward()
    opt.step()
"""


def test_sigmoid_of_a_float32_cast_under_autocast_is_silent() -> None:
    assert "LRD103" not in codes(_AUTOCAST_SIGMOID.replace("{arg}", "out.float()"))


def test_sigmoid_of_the_autocast_output_is_found() -> None:
    assert "LRD103" in codes(_AUTOCAST_SIGMOID.replace("{arg}", "out"))


# -- 2. LRD005: a plain wrapper class forwarding its step() to the scheduler it holds ----------

_WRAPPER = """
import torch


class LRScheduler:
    def __init__(self, optimizer, config):
        self.kind = config["scheduler"]
        cls = getattr(torch.optim.lr_scheduler, self.kind)
        self.scheduler = cls(optimizer, **config["params"])

    def step(self, metrics=None):
        if self.kind == "ReduceLROnPlateau":
            self.scheduler.step(metrics)
        else:
            self.scheduler.step()


class Trainer:
    def __init__(self, model, config, amp):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = LRScheduler(self.optimizer, config)
        self.scaler = torch.amp.GradScaler("cuda") if amp else None

    def update(self, loss):
        self.optimizer.zero_grad()
        if self.scaler:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()

    def train(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                with torch.autocast("cuda", enabled=self.scaler is not None):
                    loss = torch.nn.functional.mse_loss(self.model(x), y)
                self.update(loss)
                self.scheduler.step()
"""


def test_a_plain_wrapper_stepped_after_a_scaler_step_is_found_at_its_call_in_the_loop() -> None:
    found = [f for f in findings(_WRAPPER) if f[0] == "LRD005"]
    assert found == [("LRD005", 41)]
    assert "(which steps `self.scheduler`, train.py:15)" in next(
        m for m in messages(_WRAPPER) if "GradScaler skips" in m)


def test_a_plain_wrapper_stepped_only_after_real_updates_is_silent() -> None:
    guarded = _WRAPPER.replace(
        "                self.update(loss)\n                self.scheduler.step()",
        "                scale = self.scaler.get_scale() if self.scaler else 1.0\n"
        "                self.update(loss)\n"
        "                if not self.scaler or self.scaler.get_scale() >= scale:\n"
        "                    self.scheduler.step()")
    assert "LRD005" not in codes(guarded)


_ENGINE_STEP = """
import torch


class Engine:
    def __init__(self, model, amp):
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / 100))
        self.scaler = torch.amp.GradScaler("cuda", enabled=amp)

    def step(self, loss):
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()


def train(model, loader, amp=True):
    engine = Engine(model, amp)
    for x, y in loader:
        with torch.autocast("cuda", enabled=amp):
            loss = torch.nn.functional.mse_loss(model(x), y)
        engine.step(loss)
"""


def test_a_step_method_that_makes_the_update_is_still_reported_inside_it() -> None:
    assert [f for f in findings(_ENGINE_STEP) if f[0] == "LRD005"] == [("LRD005", 17)]


# -- 3. lines of another file named with that file ----------------------------------------------

_POLICY = """
import torch


class Policy:
    def __init__(self, model, decay_iters=None):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        if decay_iters is not None:
            self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(
                self.optimizer, lambda it: max(1.0 - it / decay_iters, 0.1))
        self.decay_iters = decay_iters

    def learn(self, batch):
        loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        if self.decay_iters is not None:
            self.lr_scheduler.step()

    def state_dict(self):
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}

    def load_state_dict(self, state):
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
"""

_AGENT = """
import torch

from policy.agent import Policy


class Agent:
    def __init__(self, model, state=None):
        self.policy = Policy(model, decay_iters=10000)
        if state is not None:
            self.policy.load_state_dict(state)

    def train(self, batches, path):
        for batch in batches:
            self.policy.learn(batch)
        torch.save(self.policy.state_dict(), path)
"""


def _project_messages(tmp_path, monkeypatch, files: dict[str, str],
                      code: str) -> list[tuple[str, int, str]]:
    """(path, line, message) of the findings of ``code`` for a project made of ``files``."""
    check_project(tmp_path, monkeypatch, files)
    report = check_files(sorted(files), frozenset({code}), jobs=1)
    return [(d.path, d.line, d.message) for d in report.diagnostics]


def test_a_scheduler_of_another_file_of_the_same_name_is_named_with_its_directory(
        tmp_path, monkeypatch) -> None:
    found = _project_messages(tmp_path, monkeypatch, {
        "policy/__init__.py": "", "policy/agent.py": _POLICY,
        "bonus/__init__.py": "", "bonus/agent.py": _AGENT}, "LRD007")
    restores = {path: message for path, _, message in found
                if "restores the optimizer" in message}
    assert list(restores) == ["bonus/agent.py"]
    assert "(LambdaLR, policy/agent.py:10)" in restores["bonus/agent.py"]


_BASE_TRAINER = """
import torch


class BaseTrainer:
    def __init__(self, model, amp):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / 500))
        self.scaler = torch.amp.GradScaler("cuda") if amp else None

    def _backward(self, loss):
        self.optimizer.zero_grad()
        if self.scaler:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
"""

_SUBCLASS = """
import torch

from base import BaseTrainer


class EnergyTrainer(BaseTrainer):
    def train(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                with torch.autocast("cuda", enabled=self.scaler is not None):
                    loss = torch.nn.functional.l1_loss(self.model(x), y)
                self._backward(loss)
                self.scheduler.step()
"""


def test_a_scaler_step_of_a_base_module_is_named_with_its_file(tmp_path, monkeypatch) -> None:
    found = _project_messages(tmp_path, monkeypatch, {"base.py": _BASE_TRAINER,
                                                      "energy.py": _SUBCLASS}, "LRD005")
    assert [(path, line) for path, line, _ in found] == [("energy.py", 14)]
    assert "(`self.scaler.step(...)`, base.py:17)" in found[0][2]


# -- 4. a GradScaler built under nested tests ---------------------------------------------------

_NESTED = """
import torch
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler


def train(model, loader, optimizer, lr_scheduler, cfg):
    {build}
    autocast = torch.autocast if cfg.use_fp16 else None
    for step, batch in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(**batch).loss
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        lr_scheduler.step()
"""


def test_a_scaler_built_under_two_tests_is_said_to_need_both() -> None:
    src = _NESTED.replace("{build}", "if cfg.use_fp16:\n        if cfg.fsdp:\n"
                                     "            scaler = ShardedGradScaler()")
    (message,) = [m for m in messages(src) if "GradScaler skips" in m]
    assert message.startswith("When `cfg.use_fp16 and cfg.fsdp` holds,")


def test_a_scaler_under_a_test_fixed_off_is_never_built() -> None:
    src = _NESTED.replace("{build}", "fp16 = False\n    if fp16:\n        if cfg.fsdp:\n"
                                     "            scaler = ShardedGradScaler()")
    assert "LRD005" not in codes(src)


def test_a_scaler_under_one_test_is_said_to_need_it() -> None:
    src = _NESTED.replace("{build}", "if cfg.use_fp16:\n        scaler = ShardedGradScaler()")
    (message,) = [m for m in messages(src) if "GradScaler skips" in m]
    assert message.startswith("When `cfg.use_fp16` is on,")
