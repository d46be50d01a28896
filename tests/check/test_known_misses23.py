"""The GradScaler a Hugging Face Trainer subclass inherits (rcnew45, fresh-2026-12zy).

Before Accelerate took over its mixed precision, ``transformers.Trainer.__init__`` built
``self.scaler = GradScaler()`` whenever ``args.fp16`` chose native float16 AMP, and its
``training_step`` scaled the loss with it. Research code that copies the Trainer's old training
loop into a subclass (``train()`` overridden) steps that inherited scaler,
``self.scaler.step(optimizer); self.scaler.update()``, and then the scheduler beside it. The
scaler is never assigned in the project, so it was a name only and nothing was known about it;
it is now the Trainer's own GradScaler, switched by ``self.args.fp16``. Stepping the scheduler
after it whether or not the update was skipped is LRD005; a resume that restores the optimizer
but not the scaler loses the scale (LRD007). A subclass that builds its own scaler, a loop that
checks the scale before stepping the scheduler, and a class that is no Trainer stay as before.

Programs written for these tests; no third-party code."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

COPIED_LOOP = """
import os
import torch
import transformers
from transformers.optimization import get_scheduler


class LoopTrainer({base}):
{extra_methods}
    def create_optimizer_and_scheduler(self, num_training_steps):
        if self.optimizer is None:
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate)
        if self.lr_scheduler is None:
            self.lr_scheduler = get_scheduler(
                self.args.lr_scheduler_type, optimizer=self.optimizer,
                num_warmup_steps=0, num_training_steps=num_training_steps)

    def train(self, model_path=None):
        loader = self.get_train_dataloader()
        total = len(loader) * int(self.args.num_train_epochs)
        self.create_optimizer_and_scheduler(num_training_steps=total)
        optimizer = self.optimizer
        scheduler = self.lr_scheduler
{resume}
        model = self.model
        for epoch in range(int(self.args.num_train_epochs)):
            for step, inputs in enumerate(loader):
                self.training_step(model, inputs)
                if self.args.fp16:
                    self.scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
{update}
                model.zero_grad()
"""

UNGUARDED = """\
                if self.args.fp16:
                    self.scaler.step(optimizer)
                    self.scaler.update()
                else:
                    optimizer.step()
                scheduler.step()"""

# the later Trainer's loop: the scheduler steps only when the scale did not back off
SCALE_CHECKED = """\
                applied = True
                if self.args.fp16:
                    before = self.scaler.get_scale()
                    self.scaler.step(optimizer)
                    self.scaler.update()
                    applied = before <= self.scaler.get_scale()
                else:
                    optimizer.step()
                if applied:
                    scheduler.step()"""

RESUME = """\
        if model_path is not None and os.path.isfile(os.path.join(model_path, "optimizer.pt")):
            optimizer.load_state_dict(torch.load(os.path.join(model_path, "optimizer.pt")))
            scheduler.load_state_dict(torch.load(os.path.join(model_path, "scheduler.pt")))"""

RESUME_WITH_SCALER = RESUME + """
            if self.args.fp16:
                self.scaler.load_state_dict(torch.load(os.path.join(model_path, "scaler.pt")))"""

OWN_SCALER = """\
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scaler = torch.amp.GradScaler("cuda", enabled=False)
"""


def program(*, base: str = "transformers.Trainer", update: str = UNGUARDED, resume: str = "",
            extra_methods: str = "") -> str:
    return COPIED_LOOP.format(base=base, update=update, resume=resume,
                              extra_methods=extra_methods)


def test_copied_loop_steps_scheduler_after_inherited_scaler():
    assert "LRD005" in codes(program())


def test_inherited_scaler_is_switched_by_the_fp16_argument():
    found = [m for m in messages(program()) if "GradScaler skips" in m]
    assert found and "self.args.fp16" in found[0]


def test_seq2seq_trainer_imported_by_name_inherits_the_scaler_too():
    source = program(base="Seq2SeqTrainer").replace(
        "import transformers\n", "import transformers\nfrom transformers import Seq2SeqTrainer\n")
    assert "LRD005" in codes(source)


def test_resume_without_the_inherited_scaler_loses_the_scale():
    assert "LRD007" in codes(program(resume=RESUME))


def test_trainer_base_through_a_project_class_in_another_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    base = """
    import transformers


    class HeadFirstTrainer(transformers.Trainer):
        def fit_head(self):
            return None
    """
    loop = program(base="HeadFirstTrainer").replace(
        "import transformers\n", "import transformers\nfrom heads import HeadFirstTrainer\n")
    found = check_project(tmp_path, monkeypatch, {"heads.py": base, "loop.py": loop})
    assert "LRD005" in project_codes(found)


def test_loop_that_checks_the_scale_before_stepping_is_silent():
    assert "LRD005" not in codes(program(update=SCALE_CHECKED))


def test_resume_that_restores_the_scaler_is_silent():
    assert "LRD007" not in codes(program(resume=RESUME_WITH_SCALER))


def test_subclass_that_builds_its_own_disabled_scaler_is_silent():
    found = codes(program(extra_methods=OWN_SCALER, resume=RESUME))
    assert not {"LRD005", "LRD007"} & set(found)


def test_class_that_is_no_trainer_keeps_an_unknown_scaler():
    source = program(base="object").replace(
        "    def create_optimizer_and_scheduler",
        "    def __init__(self, model, args):\n        self.model = model\n        self.args = args\n"
        "        self.optimizer = None\n        self.lr_scheduler = None\n\n"
        "    def create_optimizer_and_scheduler")
    assert not {"LRD005", "LRD007"} & set(codes(program(base="object", resume=RESUME)))
    assert not {"LRD005", "LRD007"} & set(codes(source))
