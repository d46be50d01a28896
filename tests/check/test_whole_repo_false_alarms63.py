"""fphunt73: whole repositories of LLM pre-training, video diffusion, detection, self-supervised
video, offline RL, graph and tabular learning, speech and Kaggle solutions, checked from their
roots. No false alarm was found; one miss was general enough to fix:

1. LRD007 for a resume that reads the training position back from a checkpoint and goes on
   from it (``start_epoch = ckpt["epoch"] + 1`` starting the epoch loop, a step counter read
   from a JSON state file and advanced by the loop) while it restores neither the optimizer
   nor the scheduler, although the program's own checkpoint saves the scheduler's state. The
   schedule, built afresh, starts over (its warm-up or base LR again) at the resumed position
   and never reaches the end of its curve. lrdoctor only knew resumes that restore the
   optimizer. The new finding needs the saved scheduler state (a model-only warm start says
   nothing), a model restored in the same function, and the position read used as the loop's
   start or counter; it stays silent where something else positions the schedule (built at
   ``last_epoch``, sized from the resumed position, replayed, ``step(epoch)``), for a
   ReduceLROnPlateau, and where a loading helper of the project is handed the optimizer or the
   scheduler. A checkpoint with parts lrdoctor cannot read (a run config filled elsewhere)
   still holds the scheduler it shows, and a scheduler chosen among classes by a builder is
   saved as whichever option runs.

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

import pytest

from .helpers import codes, findings, messages

_EPOCHS = '''
import argparse
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
parser.add_argument("--epochs", type=int, default=120)
args = parser.parse_args()

net = nn.Linear(16, 4)
batches = torch.utils.data.DataLoader(torch.randn(512, 16), batch_size=64)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
SCHEDULE
first = 0
if args.resume:
    saved = LOAD
    net.load_state_dict(saved["net"])
    RESTORE
    first = saved["epoch"] + 1
REPLAY
for epoch in range(first, args.epochs):
    for x in batches:
        loss = net(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    STEP
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(), KEPT"epoch": epoch},
               "latest.pth")
'''

_DECAY = "decay = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[60, 90], gamma=0.1)"


def epochs(schedule: str = _DECAY, load: str = "torch.load(args.resume)", restore: str = "",
           replay: str = "", step: str = "decay.step()",
           kept: str = '"decay": decay.state_dict(), ') -> str:
    return (_EPOCHS.replace("SCHEDULE", schedule).replace("LOAD", load)
            .replace("RESTORE", restore or "pass").replace("REPLAY", replay)
            .replace("STEP", step).replace("KEPT", kept))


_STEPS = '''
import json
import os
import torch
from torch import nn
from transformers import get_cosine_schedule_with_warmup


def pretrain(cfg, net, stream):
    tokens = 0
    position = 0
    if cfg.continue_from:
        net.load_state_dict(torch.load(os.path.join(cfg.continue_from, "weights.bin")))
        with open(os.path.join(cfg.continue_from, "progress.json")) as f:
            progress = json.load(f)
        position = progress["update_step"]
        tokens = progress["tokens"]
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    sched = SCHEDULE
    for batch in stream:
        if position >= cfg.total_updates:
            break
        loss = net(batch).square().mean()
        loss.backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        position += 1
        tokens += batch.numel()
        if position % cfg.save_every == 0:
            where = f"{cfg.out}/update_{position}"
            torch.save(net.state_dict(), f"{where}/weights.bin")
            torch.save(STATE, f"{where}/optimizer.pt")
            with open(f"{where}/progress.json", "w") as f:
                json.dump({"update_step": position, "tokens": tokens}, f)
'''

_COSINE = "get_cosine_schedule_with_warmup(opt, cfg.warmup, cfg.total_updates)"
_STATE = '{"opt": opt.state_dict(), "sched": sched.state_dict()}'


def steps(schedule: str = _COSINE, state: str = _STATE) -> str:
    return _STEPS.replace("SCHEDULE", schedule).replace("STATE", state)


def lrd007(source: str) -> list[str]:
    """The LRD007 messages for ``source``."""
    return [m for (code, _), m in zip(findings(source), messages(source), strict=True)
            if code == "LRD007"]


# -- the position comes back, the schedule does not ---------------------------------------


def test_an_epoch_read_back_without_optimizer_or_scheduler_is_reported() -> None:
    found = lrd007(epochs())
    assert len(found) == 1
    assert "reads the training position back (`first = saved['epoch'] + 1`)" in found[0]
    assert "neither the optimizer nor `decay` (MultiStepLR" in found[0]
    assert "the schedule restarts from its first value" in found[0]


def test_a_step_counter_read_from_a_json_state_is_reported() -> None:
    found = lrd007(steps())
    assert len(found) == 1
    assert "`position = progress['update_step']`" in found[0]


def test_a_counter_read_with_get_inside_a_training_function_is_reported() -> None:
    source = '''
import torch
from torch import nn


def fit(cfg, net, loader):
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=cfg.steps)
    it = 0
    if cfg.checkpoint:
        blob = torch.load(cfg.checkpoint, map_location="cpu")
        net.load_state_dict(blob["model"])
        it = blob.get("iteration", 0)
    while it < cfg.steps:
        for x, y in loader:
            loss = nn.functional.l1_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            it += 1
            if it % 500 == 0:
                torch.save({"model": net.state_dict(), "opt": opt.state_dict(),
                            "sched": sched.state_dict(), "iteration": it}, "run.pt")
'''
    assert "LRD007" in codes(source)


def test_a_checkpoint_with_a_part_lrdoctor_cannot_read_still_holds_the_scheduler() -> None:
    state = '{"opt": opt.state_dict(), "sched": sched.state_dict(), "run": settings}'
    source = steps(state=state).replace(
        "    tokens = 0\n", "    tokens = 0\n    settings = dict(vars(cfg))\n"
        "    settings.update(describe(net))\n")
    assert len(lrd007(source)) == 1


def test_a_builder_choosing_the_schedule_names_each_option() -> None:
    builder = '''

def make_schedule(kind, opt, warmup, total):
    if kind == "linear":
        return get_linear_schedule_with_warmup(opt, warmup, total)
    return torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))
'''
    source = steps("make_schedule(cfg.kind, opt, cfg.warmup, cfg.total_updates)").replace(
        "from transformers import get_cosine_schedule_with_warmup",
        "from transformers import get_linear_schedule_with_warmup" + builder)
    found = lrd007(source)
    assert len(found) == 1
    assert "get_linear_schedule_with_warmup" in found[0] and "LambdaLR" in found[0]


# -- the nearest correct programs: the schedule is put back, or was never saved -------------


def test_control_a_scheduler_rebuilt_at_the_resumed_epoch_is_silent() -> None:
    schedule = "pass"
    replay = ("decay = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[60, 90], "
              "gamma=0.1, last_epoch=first - 1)")
    assert lrd007(epochs(schedule=schedule, replay=replay)) == []


def test_control_a_schedule_replayed_to_the_resume_point_is_silent() -> None:
    replay = "for _ in range(first):\n    decay.step()"
    assert lrd007(epochs(replay=replay)) == []


def test_control_a_schedule_stepped_with_its_epoch_is_silent() -> None:
    assert lrd007(epochs(step="decay.step(epoch + 1)")) == []


def test_control_a_checkpoint_without_the_scheduler_state_is_not_this_finding() -> None:
    # the save keeps the optimizer and not the scheduler: the existing finding at the save
    found = lrd007(epochs(kept=""))
    assert len(found) == 1
    assert "this checkpoint stores the optimizer state but not the scheduler's" in found[0]


def test_control_a_model_and_epoch_only_checkpoint_is_silent() -> None:
    source = epochs(kept="").replace('"opt": opt.state_dict(), ', "")
    assert lrd007(source) == []


def test_control_the_optimizer_restored_is_the_existing_finding() -> None:
    found = lrd007(epochs(restore='opt.load_state_dict(saved["opt"])'))
    assert len(found) == 1
    assert "restores the optimizer but `decay`" in found[0]


def test_control_both_restored_is_silent() -> None:
    restore = 'opt.load_state_dict(saved["opt"])\n    decay.load_state_dict(saved["decay"])'
    assert lrd007(epochs(restore=restore)) == []


def test_control_a_loading_helper_handed_the_optimizer_is_silent() -> None:
    source = epochs(load="restore_run(args.resume, net, opt)").replace(
        "from torch import nn", "from torch import nn\nfrom project.io import restore_run")
    assert lrd007(source) == []


def test_control_a_schedule_sized_from_the_resumed_position_is_silent() -> None:
    source = steps("get_cosine_schedule_with_warmup(opt, cfg.warmup, "
                   "cfg.total_updates - position)")
    assert lrd007(source) == []


def test_control_a_plateau_schedule_is_silent() -> None:
    schedule = "decay = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)"
    assert lrd007(epochs(schedule=schedule, step="decay.step(loss.item())")) == []


@pytest.mark.parametrize("use", [
    # read for a message only, the loop starting at 0
    'print("initialised from epoch", first)\nfor epoch in range(0, args.epochs):',
])
def test_control_a_position_that_does_not_start_the_loop_is_silent(use: str) -> None:
    source = epochs().replace("for epoch in range(first, args.epochs):", use)
    assert lrd007(source) == []


def test_control_no_weights_restored_is_silent() -> None:
    source = epochs().replace('    net.load_state_dict(saved["net"])\n', "")
    assert lrd007(source) == []


@pytest.mark.parametrize("restore", [
    # a framework's or the project's own restore of the whole run, handed nothing lrdoctor sees
    "accelerator.load_state(args.resume)",
    "engine.load_checkpoint(args.resume)",
    # the LR read back and written into the optimizer by hand
    'for group in opt.param_groups:\n        group["lr"] = saved["lr"]',
])
def test_control_a_run_restored_by_a_route_of_its_own_is_silent(restore: str) -> None:
    assert lrd007(epochs(restore=restore)) == []


def test_a_setting_read_by_key_does_not_hide_the_finding() -> None:
    source = epochs().replace("lr=0.05,", 'lr=dict(lr=0.05)["lr"],')
    assert len(lrd007(source)) == 1


def test_gradient_checkpointing_is_no_restore() -> None:
    # activations recomputed in the backward pass: nothing of the run comes back
    source = epochs().replace("opt = torch.optim", "net.gradient_checkpointing_enable()\nopt = torch.optim")
    assert len(lrd007(source)) == 1


def test_control_the_scheduler_object_read_back_whole_is_silent() -> None:
    # pickled whole into the checkpoint and read back as it was
    source = epochs(restore='decay = saved["decay"]', kept='"decay": decay, ')
    assert lrd007(source) == []


def test_control_the_optimizer_object_loaded_back_whole_is_silent() -> None:
    # the optimizer pickled whole and read back by a load of its own file
    source = epochs(restore='opt = torch.load(args.resume + ".opt")')
    assert lrd007(source) == []
