"""Shapes met in the fresh real-code cases of issue 7 (bench/realcode, batch
"fresh-2026-12k", mixed precision, dev half): each test is the general shape in our own
words, with the control that must still be reported or stay silent."""

from __future__ import annotations

from tests.check.helpers import codes


def _fill(template: str, **parts: str) -> str:
    for name, text in parts.items():
        template = template.replace("{" + name + "}", text)
    return template


# -- a loop-control test of the caller is not a skipped-update guard -------------------------
#
# The driver leaves the batch loop early when the data setting changes (a test that happens
# to name a `skip` value of the data pipeline); the code after that test, the trainer's
# update and its per-iteration scheduler step, runs under the negated test. That test was
# evaluated before any update was made, so it cannot know whether GradScaler skipped one.

_SEGMENTER = """
import torch


class SegmenterTrainer:
    def __init__(self, net, cfg):
        self.net = net
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=cfg["lr"])
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(
            self.optimizer, cfg["milestones"], 0.1)
        if cfg["amp"]:
            self.scaler = torch.amp.GradScaler("cuda")

    def step_once(self, batch):
        with torch.autocast("cuda", enabled=self.cfg["amp"]):
            loss = self.net(batch).mean()
        self.optimizer.zero_grad(set_to_none=True)
        if self.cfg["amp"]:
            self.scaler.scale(loss).backward()
{update}
        else:
            loss.backward()
            self.optimizer.step()
{sched}


def main(cfg, net, make_loader):
    trainer = SegmenterTrainer(net, cfg)
    frame_skip_schedule = [1000, 5000, 10 ** 9]
    loader = make_loader(skip=1)
    iteration = 0
    while iteration < cfg["iterations"]:
        for batch in loader:
            if iteration >= frame_skip_schedule[0]:
                frame_skip_schedule = frame_skip_schedule[1:]
                loader = make_loader(skip=2)
                break
            trainer.step_once(batch)
            iteration += 1
"""

_PLAIN_UPDATE = """\
            self.scaler.step(self.optimizer)
            self.scaler.update()"""


def test_a_data_skip_setting_in_the_callers_loop_test_does_not_hide_lrd005() -> None:
    src = _fill(_SEGMENTER, update=_PLAIN_UPDATE, sched="        self.scheduler.step()")
    assert codes(src) == ["LRD005"]


def test_a_scale_comparison_after_the_update_still_guards_the_step() -> None:
    update = """\
            scale_before = self.scaler.get_scale()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            if self.scaler.get_scale() >= scale_before:
                self.scheduler.step()"""
    assert codes(_fill(_SEGMENTER, update=update, sched="")) == []


# -- a finiteness test around both the update and the step is a real guard ------------------

_FINITE_AROUND_BOTH = """
import torch


def train(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 1000))
    scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
    for epoch in range(args.epochs):
        for batch in loader:
            with torch.autocast("cuda", enabled=args.fp16):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
{body}
            optimizer.zero_grad()
"""


def test_a_finite_norm_test_around_the_update_and_the_step_is_a_guard() -> None:
    body = """\
            if torch.isfinite(total):
                scaler.step(optimizer)
                scheduler.step()
            scaler.update()"""
    assert codes(_fill(_FINITE_AROUND_BOTH, body=body)) == []


def test_the_step_outside_the_finite_norm_test_is_still_lrd005() -> None:
    body = """\
            if torch.isfinite(total):
                scaler.step(optimizer)
            scaler.update()
            scheduler.step()"""
    assert codes(_fill(_FINITE_AROUND_BOTH, body=body)) == ["LRD005"]


# -- a scheduler stepped in a small loop of its own after the update ------------------------
#
# The schedule is sized in micro-batches, so after each update the scheduler is stepped once
# per accumulated micro-batch in a `for _ in range(accum)` loop nested in the batch loop. The
# update the steps follow is in the enclosing batch loop, not in the small loop.

_CATCH_UP = """
import torch


def train(model, loader, args):
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / args.warmup_steps, 1.0))
    scaler = torch.amp.GradScaler("cuda", enabled=args.dtype == "float16" or args.amp)
    seen = 0
    for epoch in range(args.epochs):
        for batch in loader:
            seen += 1
            with torch.autocast("cuda", enabled=args.amp):
                loss = model(batch).mean() / args.accum_steps
            scaler.scale(loss).backward()
            if seen % args.accum_steps == 0:
{update}
                optimizer.zero_grad()
{after}
"""

_ACCUM_UPDATE = """\
                scaler.step(optimizer)
                scaler.update()"""


def test_scheduler_steps_in_a_loop_nested_after_the_update_are_lrd005() -> None:
    after = """\
                for _ in range(args.accum_steps):
                    scheduler.step()"""
    assert codes(_fill(_CATCH_UP, update=_ACCUM_UPDATE, after=after)) == ["LRD005"]


def test_the_nested_steps_behind_a_scale_check_are_silent() -> None:
    update = """\
                before = scaler.get_scale()
                scaler.step(optimizer)
                scaler.update()
                applied = scaler.get_scale() >= before"""
    after = """\
                if applied:
                    for _ in range(args.accum_steps):
                        scheduler.step()"""
    assert codes(_fill(_CATCH_UP, update=update, after=after)) == []


def test_a_catch_up_loop_after_the_batch_loop_does_not_follow_an_update() -> None:
    # the steps run once per epoch after all the updates (a different loop): not the shape
    # of a step that follows each update
    src = _fill(_CATCH_UP, update=_ACCUM_UPDATE, after="")
    src = src.rstrip() + "\n        for _ in range(len(loader) // args.accum_steps):\n" \
        "            scheduler.step()\n"
    assert "LRD005" not in codes(src)


# -- a direct optimizer step next to scaler.step on the same optimizer -----------------------
#
# Code converted to AMP by adding the scaler lines while the old `optimizer.step()` stayed:
# each batch now steps the optimizer twice, once on gradients the scaler never unscaled or
# checked for inf.

_LEFTOVER_STEP = """
import torch


def fit(model, loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(model(x), y)
{body}
"""


def test_a_leftover_optimizer_step_before_the_scaled_backward_is_lrd109() -> None:
    body = """\
            optimizer.step()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()"""
    assert codes(_fill(_LEFTOVER_STEP, body=body)) == ["LRD109"]


def test_a_leftover_optimizer_step_after_scaler_step_is_lrd109() -> None:
    body = """\
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.step()
            optimizer.zero_grad()"""
    assert codes(_fill(_LEFTOVER_STEP, body=body)) == ["LRD109"]


def test_the_direct_step_in_the_branch_without_amp_is_silent() -> None:
    src = _LEFTOVER_STEP.replace("def fit(model, loader, epochs):",
                                 "def fit(model, loader, epochs, use_amp):")
    src = src.replace('GradScaler("cuda")', 'GradScaler("cuda", enabled=use_amp)')
    body = """\
            if use_amp:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            optimizer.zero_grad()"""
    assert codes(_fill(src, body=body)) == []


def test_a_second_optimizer_stepped_directly_is_not_a_twin() -> None:
    # the direct step is of another optimizer whose loss is not scaled: nothing to say
    src = _LEFTOVER_STEP.replace(
        '    scaler = torch.amp.GradScaler("cuda")',
        '    scaler = torch.amp.GradScaler("cuda")\n'
        '    probe = torch.nn.Linear(4, 1)\n'
        '    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)')
    body = """\
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            probe_loss = probe(x.float()).pow(2).mean()
            probe_loss.backward()
            probe_opt.step()
            probe_opt.zero_grad()"""
    assert codes(_fill(src, body=body)) == []


# -- Adam's eps from a parameter's default, with the trained weights cast to float16 --------
#
# A training entry point takes its hyper-parameters as keyword parameters with defaults (run
# as `main(**config)`); eps is the parameter's default unless something passes it.

_EPS_PARAMETER = """
import torch


def main(model, loader, lr: float = 1e-5, adam_eps: float = {default}, steps: int = 100):
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, eps=adam_eps)
{cast}
    for step, batch in enumerate(loader):
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
{call}
"""

_HALF_CAST = """\
    half = torch.float16
    model.to("cuda", dtype=half)"""


def test_eps_from_a_parameter_default_with_float16_weights_is_lrd102() -> None:
    src = _fill(_EPS_PARAMETER, default="1e-08", cast=_HALF_CAST, call="")
    assert codes(src) == ["LRD102"]


def test_eps_passed_by_name_somewhere_is_not_read_from_the_default() -> None:
    call = "\n\nif __name__ == '__main__':\n    main(None, [], adam_eps=1e-4)"
    src = _fill(_EPS_PARAMETER, default="1e-08", cast=_HALF_CAST, call=call)
    assert "LRD102" not in codes(src)


def test_a_representable_default_eps_is_silent() -> None:
    src = _fill(_EPS_PARAMETER, default="1e-4", cast=_HALF_CAST, call="")
    assert "LRD102" not in codes(src)


def test_the_default_eps_with_float32_weights_is_silent() -> None:
    src = _fill(_EPS_PARAMETER, default="1e-08", cast='    model.to("cuda")', call="")
    assert "LRD102" not in codes(src)
