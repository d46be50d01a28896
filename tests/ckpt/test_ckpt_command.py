"""`lrdoctor ckpt` on the checkpoints people write: what it lists, what it flags, and files it
must refuse or reject without a traceback. Each checkpoint is made here by a few real steps of a
tiny model (the Lightning and Hugging Face ones in tests/watch/test_checkpoint_frameworks.py)."""

from __future__ import annotations

import json
import os
import pickle
from dataclasses import dataclass
from pathlib import Path

import pytest

from lrdoctor.cli import main

torch = pytest.importorskip("torch")


def train(steps: int = 4, scheduler: str = "step", scaler: bool = False, accumulation: int = 1):
    """A tiny model trained ``steps`` updates; returns (model, optimizer, scheduler, scaler)."""
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = {
        "step": lambda: torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5),
        "cosine": lambda: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100),
        "warmup": lambda: torch.optim.lr_scheduler.SequentialLR(
            opt, [torch.optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=2),
                  torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)], milestones=[2]),
        "none": lambda: None,
    }[scheduler]()
    grad_scaler = torch.amp.GradScaler("cpu", init_scale=256.0) if scaler else None
    for _ in range(steps):
        for _ in range(accumulation):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            (grad_scaler.scale(loss) if grad_scaler else loss).backward()
            if sched is not None and accumulation > 1:
                sched.step()  # the bug: once per micro-batch
        if grad_scaler:
            grad_scaler.step(opt)
            grad_scaler.update()
        else:
            opt.step()
        opt.zero_grad()
        if sched is not None and accumulation == 1:
            sched.step()
    return model, opt, sched, grad_scaler


def ckpt(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["ckpt", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def audit_json(capsys, *paths) -> dict:
    code, out, _ = ckpt(capsys, "--format", "json", *paths)
    data = json.loads(out)
    data["exit"] = code
    return data


def test_complete_checkpoint_is_listed_and_silent(tmp_path, capsys):
    model, opt, sched, scaler = train(scaler=True)
    path = tmp_path / "last.pt"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                "scaler": scaler.state_dict(), "epoch": 3, "global_step": 4}, path)
    code, out, err = ckpt(capsys, path)
    assert code == 0 and err == "", out
    assert "model      ['model']: 2 tensors, 10 parameters" in out
    assert "optimizer  ['optimizer']: step 4, 1 param group, lr 0.0025 (initial 0.01" in out
    assert "scheduler  ['scheduler']: StepLR, last_epoch 4, last LR 0.0025" in out
    assert "scaler     ['scaler']: scale 256, growth tracker 4" in out
    assert "counter    ['epoch'] = 3" in out and "['global_step'] = 4" in out
    assert "1 checkpoint audited, 0 findings." in out


def test_checkpoint_without_the_scheduler_it_was_trained_with_is_lrd007(tmp_path, capsys):
    model, opt, _, _ = train(scheduler="cosine")
    path = tmp_path / "last.pt"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, path)
    data = audit_json(capsys, path)
    assert data["exit"] == 1
    (f,) = data["checkpoints"][0]["findings"]
    assert f["code"] == "LRD007" and f["severity"] == "warning" and f["path"] == str(path)
    assert "driven by an LR scheduler (its param groups carry initial_lr 0.01" in f["message"]
    # the class is not in the file: both things a rebuilt scheduler can do are said
    assert "restarts from its first value" in f["message"]
    assert "replays its decays from the LR restored with the optimizer" in f["message"]


def test_constant_lr_optimizer_without_scheduler_is_silent(tmp_path, capsys):
    model, opt, _, _ = train(scheduler="none")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, tmp_path / "a.pt")
    assert ckpt(capsys, tmp_path / "a.pt")[0] == 0


def test_nested_and_composite_scheduler_state_is_found_and_its_class_named(tmp_path, capsys):
    _, opt, sched, _ = train(scheduler="warmup")
    torch.save({"trainer": [{"states": (opt.state_dict(), {"lr": sched.state_dict()})}]}, tmp_path / "a.pt")
    code, out, _ = ckpt(capsys, tmp_path / "a.pt")
    assert code == 0, out
    assert "SequentialLR, last_epoch 4" in out and "children LinearLR, ExponentialLR" in out


def test_scheduler_stepped_per_micro_batch_is_ahead_of_its_optimizer(tmp_path, capsys):
    _, opt, sched, _ = train(steps=20, scheduler="cosine", accumulation=4)
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "a.pt")
    data = audit_json(capsys, tmp_path / "a.pt")
    (f,) = data["checkpoints"][0]["findings"]
    assert f["code"] == "LRD007"
    assert "last_epoch 80, more than the 20 updates" in f["message"]
    assert "4 scheduler steps per update" in f["message"]


def test_per_epoch_scheduler_behind_its_optimizer_is_not_flagged(tmp_path, capsys):
    _, opt, _, _ = train(steps=30, scheduler="none")
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2)
    for _ in range(3):  # three epochs of ten updates
        sched.step()
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "epoch": 2}, tmp_path / "a.pt")
    assert ckpt(capsys, tmp_path / "a.pt")[0] == 0


def test_lr_written_after_the_schedulers_last_step_is_lrd008(tmp_path, capsys):
    _, opt, sched, _ = train()
    opt.param_groups[0]["lr"] = 0.5  # a manual write the scheduler does not know of
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "a.pt")
    data = audit_json(capsys, tmp_path / "a.pt")
    (f,) = data["checkpoints"][0]["findings"]
    assert f["code"] == "LRD008" and "has LR 0.5 but StepLR" in f["message"] and "last set 0.0025" in f["message"]


def test_crafted_pickle_is_refused_and_nothing_runs(tmp_path, capsys):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    torch.save({"model": {"w": torch.ones(2)}, "x": Payload()}, tmp_path / "evil.pt")
    with open(tmp_path / "evil_raw.pkl.pt", "wb") as f:  # a plain pickle, not a torch.save archive
        pickle.dump({"x": Payload()}, f)
    code, out, err = ckpt(capsys, tmp_path / "evil.pt", tmp_path / "evil_raw.pkl.pt")
    assert code == 2
    assert not marker.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert "refused: loading it needs arbitrary unpickling (it imports posix.system)" in line
        assert "--unsafe-load" in line


def test_unsafe_load_opts_in_with_a_warning(tmp_path, capsys):
    import argparse

    _, opt, sched, _ = train()
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                "args": argparse.Namespace(lr=0.01)}, tmp_path / "a.pt")
    code, _, err = ckpt(capsys, tmp_path / "a.pt")
    assert code == 2 and "it imports argparse.Namespace" in err
    code, out, err = ckpt(capsys, "--unsafe-load", tmp_path / "a.pt")
    assert code == 0, out + err
    assert "unpickled in full" in err and "runs its code with your permissions" in err
    assert "StepLR, last_epoch 4" in out


def test_truncated_and_non_checkpoint_files_get_one_line_each_and_the_rest_is_audited(tmp_path, capsys):
    model, opt, sched, _ = train()
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "good.pt")
    data = (tmp_path / "good.pt").read_bytes()
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    (tmp_path / "notes.pt").write_text("epoch 3: loss 0.25\n")
    (tmp_path / "empty.pt").write_bytes(b"")
    code, out, err = ckpt(capsys, tmp_path / "truncated.pt", tmp_path / "notes.pt", tmp_path / "empty.pt",
                          tmp_path / "good.pt", tmp_path / "missing.pt")
    assert code == 2
    assert "Traceback" not in out + err
    errors = dict(line.split(": ", 2)[1:] for line in err.strip().splitlines())
    assert errors[str(tmp_path / "truncated.pt")].startswith("is truncated or corrupt")
    assert errors[str(tmp_path / "notes.pt")] == "is not a PyTorch checkpoint (neither a torch.save archive nor a pickle)"
    assert errors[str(tmp_path / "empty.pt")].startswith("is empty")
    assert errors[str(tmp_path / "missing.pt")] == "no such file or folder"
    assert "good.pt  (torch.save)" in out and "StepLR" in out  # audited despite the others


def test_a_folder_is_searched_for_checkpoints(tmp_path, capsys):
    _, opt, sched, _ = train()
    (tmp_path / "runs" / "a").mkdir(parents=True)
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, tmp_path / "runs" / "a" / "e1.pth")
    torch.save({"optimizer": opt.state_dict()}, tmp_path / "runs" / "e2.pt")
    (tmp_path / "runs" / "log.txt").write_text("not a checkpoint, not looked at")
    data = audit_json(capsys, tmp_path / "runs")
    assert sorted(Path(c["path"]).name for c in data["checkpoints"]) == ["e1.pth", "e2.pt"]
    assert data["exit"] == 1 and data["errors"] == []
    (flagged,) = [c for c in data["checkpoints"] if c["findings"]]
    assert flagged["path"].endswith("e2.pt")


def test_help_names_the_kinds_the_flags_and_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["ckpt", "--help"])
    out = capsys.readouterr().out
    for text in ("Lightning .ckpt", "Hugging Face Trainer", "weights_only=True", "--unsafe-load",
                 "DANGEROUS", "exit codes: 0", "--format"):
        assert text in out


def test_old_format_file_cut_short_is_reported_as_truncated(tmp_path, capsys):
    _, opt, sched, _ = train()
    path = tmp_path / "old.pt"
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, path,
               _use_new_zipfile_serialization=False)
    path.write_bytes(path.read_bytes()[:200])
    code, _, err = ckpt(capsys, path)
    assert code == 2 and err.startswith(f"lrdoctor ckpt: {path}: is truncated")
    assert len(err.strip().splitlines()) == 1


@dataclass
class TrainingArguments:  # stands for Hugging Face's, pickled into training_args.bin
    output_dir: str
    fp16: bool
    learning_rate: float


def test_hf_folder_trained_in_fp16_without_scaler_pt_is_lrd007(tmp_path, capsys):
    _, opt, sched, _ = train()
    folder = tmp_path / "checkpoint-4"
    folder.mkdir()
    torch.save(opt.state_dict(), folder / "optimizer.pt")
    torch.save(sched.state_dict(), folder / "scheduler.pt")
    torch.save(TrainingArguments("out", True, 1e-3), folder / "training_args.bin")  # never unpickled
    code, out, _ = ckpt(capsys, folder)
    assert code == 1, out
    assert "fp16=True" in out and "no GradScaler state (scaler.pt)" in out
    torch.save({"scale": 1024.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2000,
                "_growth_tracker": 3}, folder / "scaler.pt")
    code, out, _ = ckpt(capsys, folder)
    assert code == 0 and "scaler     scaler.pt: scale 1024, growth tracker 3" in out


@pytest.mark.parametrize("new_format", [True, False])
def test_a_checkpoint_cut_anywhere_is_called_truncated_never_refused(tmp_path, new_format):
    from lrdoctor.ckpt.loading import CheckpointError, load

    model, opt, sched, _ = train()
    path = tmp_path / "full.pt"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict()},
               path, _use_new_zipfile_serialization=new_format)
    data = path.read_bytes()
    for cut in range(4, len(data), 13):
        (tmp_path / "cut.pt").write_bytes(data[:cut])
        with pytest.raises(CheckpointError, match="^is truncated"):
            load(tmp_path / "cut.pt")


def test_warmup_beside_a_plateau_scheduler_is_not_an_lr_disagreement(tmp_path, capsys):
    _, opt, warmup, _ = train(scheduler="cosine")
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    for loss in (1.0, 2.0, 3.0):  # two reductions of the LR the cosine set
        plateau.step(loss)
    torch.save({"optimizer": opt.state_dict(), "schedulers": [warmup.state_dict(), plateau.state_dict()]},
               tmp_path / "a.pt")
    code, out, _ = ckpt(capsys, tmp_path / "a.pt")
    assert code == 0, out
    assert "CosineAnnealingLR" in out and "ReduceLROnPlateau" in out
