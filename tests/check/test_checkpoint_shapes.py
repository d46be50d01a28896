"""LRD007 on the checkpoint shapes real projects write: `dict(k=v)`, a @dataclass saved with
asdict(), vars() of a state object; resumes that forget the GradScaler; and schedulers whose
lost state does not move the schedule (explicit step(epoch), ReduceLROnPlateau)."""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source
from tests.check.helpers import codes, findings, messages

AMP_LOOP = """
import dataclasses
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        scaler.scale(model(x).sum()).backward()
        scaler.step(optimizer)
        scaler.update()
{save}
"""


def amp_loop(save: str) -> str:
    return AMP_LOOP.format(save="\n".join("    " + line for line in save.strip().splitlines()))


def test_dict_call_checkpoint_without_the_scaler_is_reported() -> None:
    src = amp_loop("""
state = dict(epoch=epoch + 1, model=model.state_dict(),
             optimizer=optimizer.state_dict())
torch.save(state, "checkpoint.pth")
""")
    assert findings(src) == [("LRD007", 18)]
    assert "GradScaler's (`scaler`)" in messages(src)[0]


def test_dict_call_checkpoint_with_the_scaler_is_fine() -> None:
    src = amp_loop("""
state = dict(epoch=epoch + 1, model=model.state_dict(),
             optimizer=optimizer.state_dict(), scaler=scaler.state_dict())
torch.save(state, "checkpoint.pth")
""")
    assert codes(src) == []


def test_dict_call_weights_only_is_fine() -> None:
    src = amp_loop("""
torch.save(dict(model=model.state_dict()), "weights.pth")
""")
    assert codes(src) == []


def test_dict_call_with_unknown_extra_entries_is_left_alone() -> None:
    src = amp_loop("""
extra = {"note": "resume"}
torch.save(dict(model=model.state_dict(), optimizer=optimizer.state_dict(), **extra), "c.pth")
""")
    assert codes(src) == []


DATACLASS = """
@dataclasses.dataclass
class TrainState:
    epoch: int
    model: dict
    optimizer: dict
{extra_field}
"""


def _dataclass_script(extra_field: str, build: str) -> str:
    src = amp_loop(f"""
ckpt = TrainState({build})
torch.save(dataclasses.asdict(ckpt), "last.pt")
""")
    head, _, tail = src.partition("model = torch.nn.Linear")
    return head + DATACLASS.format(extra_field=extra_field) + "model = torch.nn.Linear" + tail


def test_dataclass_checkpoint_without_the_scaler_is_reported() -> None:
    src = _dataclass_script("", "epoch, model.state_dict(), optimizer.state_dict()")
    assert codes(src) == ["LRD007"]


def test_dataclass_checkpoint_with_a_scaler_field_is_fine() -> None:
    src = _dataclass_script(
        "    scaler: dict",
        "epoch, model.state_dict(), optimizer.state_dict(), scaler.state_dict()",
    )
    assert codes(src) == []


def test_vars_of_a_state_object_without_the_scheduler_is_reported() -> None:
    src = """
    import torch

    class TrainingState:
        def __init__(self, model, optimizer):
            self.model = model.state_dict()
            self.optimizer = optimizer.state_dict()

    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(90):
        optimizer.step()
        scheduler.step()
        state = TrainingState(model, optimizer)
        torch.save(vars(state), "last.pt")
    """
    assert codes(src) == ["LRD007"]
    assert "scheduler's (`scheduler`, StepLR)" in messages(src)[0]


def test_resume_that_forgets_a_saved_scaler_is_reported() -> None:
    src = amp_loop("""
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict()}, "last.pt")
ckpt = torch.load("last.pt", weights_only=True)
optimizer.load_state_dict(ckpt["optimizer"])
""")
    assert findings(src) == [("LRD007", 19)]
    assert "the GradScaler (`scaler`) is never restored" in messages(src)[0]


def test_resume_that_restores_the_scaler_is_fine() -> None:
    src = amp_loop("""
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict()}, "last.pt")
ckpt = torch.load("last.pt", weights_only=True)
optimizer.load_state_dict(ckpt["optimizer"])
scaler.load_state_dict(ckpt["scaler"])
""")
    assert codes(src) == []


SCHEDULED = """
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = {scheduler}
start = 0
ckpt = torch.load("last.pt", weights_only=True)
optimizer.load_state_dict(ckpt["optimizer"])
start = ckpt["epoch"]
for epoch in range(start, 90):
    for x in loader:
        optimizer.step()
    {step}
    torch.save({{"epoch": epoch + 1, "model": model.state_dict(),
                "optimizer": optimizer.state_dict()}}, "last.pt")
"""


def test_checkpoint_without_a_plain_stepped_scheduler_is_reported() -> None:
    src = SCHEDULED.format(
        scheduler="torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)",
        step="scheduler.step()",
    )
    assert codes(src) == ["LRD007", "LRD007"]


def test_scheduler_stepped_with_explicit_epoch_needs_no_saved_state() -> None:
    src = SCHEDULED.format(
        scheduler="torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10)",
        step="scheduler.step(epoch)",
    )
    assert codes(src) == []


def test_plateau_scheduler_lost_state_is_not_a_schedule_restart() -> None:
    src = SCHEDULED.format(
        scheduler="torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)",
        step="scheduler.step(val_loss := 1.0)",
    )
    # its lost best metric and patience count are an info since fixes11, never a warning
    result = check_source(textwrap.dedent(src), "train.py")
    assert [(d.code, d.severity) for d in result.diagnostics] == [("LRD007", "info")]
    assert "the schedule restarts" not in result.diagnostics[0].message


def test_resume_helper_called_without_the_saved_scaler_is_reported() -> None:
    src = amp_loop("""
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict()}, "last.pt")
""").replace("model = torch.nn.Linear(4, 1)\n", '''def resume(path, model, optimizer=None, scaler=None):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    if optimizer is not None:
        optimizer.load_state_dict(ckpt["optimizer"])
    if scaler is not None:
        scaler.load_state_dict(ckpt["scaler"])

model = torch.nn.Linear(4, 1)
''').replace("scaler = torch.amp.GradScaler(\"cuda\")\n",
             "scaler = torch.amp.GradScaler(\"cuda\")\nresume(\"last.pt\", model, optimizer)\n")
    assert codes(src) == ["LRD007"]
    assert "the GradScaler (`scaler`) is never restored" in messages(src)[0]


def test_resume_helper_given_the_scaler_is_fine() -> None:
    src = amp_loop("""
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict()}, "last.pt")
""").replace("model = torch.nn.Linear(4, 1)\n", '''def resume(path, model, optimizer=None, scaler=None):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    if optimizer is not None:
        optimizer.load_state_dict(ckpt["optimizer"])
    if scaler is not None:
        scaler.load_state_dict(ckpt["scaler"])

model = torch.nn.Linear(4, 1)
''').replace("scaler = torch.amp.GradScaler(\"cuda\")\n",
             "scaler = torch.amp.GradScaler(\"cuda\")\nresume(\"last.pt\", model, optimizer, scaler)\n")
    assert codes(src) == []


RESIZED_ON_RESUME = """
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
start_epoch = 0
ckpt = torch.load("last.pt", weights_only=True)
optimizer.load_state_dict(ckpt["optimizer"])
start_epoch = ckpt["epoch"] + 1
remaining = len(loader) * ({epochs})
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.01, total_iters=remaining)
for epoch in range(start_epoch, 30):
    for x in loader:
        optimizer.step()
        scheduler.step()
    torch.save({{"epoch": epoch, "optimizer": optimizer.state_dict()}}, "last.pt")
"""


def test_scheduler_rebuilt_for_the_rest_of_a_resumed_run_needs_no_saved_state() -> None:
    # sized from the epoch the run resumes at: a resume builds it for what is left to train
    assert codes(RESIZED_ON_RESUME.format(epochs="30 - start_epoch")) == []


def test_scheduler_sized_for_the_whole_run_after_a_resume_is_still_reported() -> None:
    assert codes(RESIZED_ON_RESUME.format(epochs="30")) == ["LRD007", "LRD007"]


CHOSEN = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--policy", default="steps", choices=["cosine", "steps"])
parser.add_argument("--resume", default=None)
args = parser.parse_args()
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
if args.policy == "cosine":
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)
else:
    sched = torch.optim.lr_scheduler.MultiStepLR(optimizer, [30, 60])
{resume}
for epoch in range(90):
    optimizer.step()
    sched.step()
    {save}
"""


def test_a_resume_names_every_scheduler_a_setting_can_pick() -> None:
    # which class runs is the setting's choice (its default picks the second): both are named
    src = CHOSEN.format(
        resume='if args.resume:\n    optimizer.load_state_dict(torch.load(args.resume, weights_only=True)["optimizer"])',
        save='torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": sched.state_dict()}, "last.pt")',
    )
    assert codes(src) == ["LRD007"]
    assert "`sched` (CosineAnnealingLR at line 12 or MultiStepLR at line 14)" in messages(src)[0]


def test_a_save_names_every_scheduler_a_setting_can_pick() -> None:
    src = CHOSEN.format(resume="", save='torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "last.pt")')
    assert codes(src) == ["LRD007"]
    assert "the scheduler's (`sched`, CosineAnnealingLR or MultiStepLR)" in messages(src)[0]


def test_a_resume_with_one_scheduler_names_it_alone() -> None:
    # the control: one class, the message as before
    src = CHOSEN.format(
        resume='if args.resume:\n    optimizer.load_state_dict(torch.load(args.resume, weights_only=True)["optimizer"])',
        save='torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": sched.state_dict()}, "last.pt")',
    ).replace('if args.policy == "cosine":\n    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)\nelse:\n    ', "if True:\n    ")
    assert codes(src) == ["LRD007"]
    assert "`sched` (MultiStepLR, line 12)" in messages(src)[0]
