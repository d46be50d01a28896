"""``lrdoctor preview``: values equal PyTorch's own over the whole horizon, for every supported
scheduler stepped per batch and per epoch; hostile or malformed SPECs get a one-line error."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lrdoctor.preview.spec import SpecError, parse_spec

torch = pytest.importorskip("torch")
S = torch.optim.lr_scheduler

EPOCHS, STEPS = 6, 7  # 42 optimizer steps
LR = 0.1

# SPEC -> how a user would build the same scheduler in a training script
CASES = {
    "StepLR(step_size=3, gamma=0.5)": lambda o: S.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR(milestones=[4, 10, 30], gamma=0.3)":
        lambda o: S.MultiStepLR(o, milestones=[4, 10, 30], gamma=0.3),
    "ExponentialLR(0.9)": lambda o: S.ExponentialLR(o, 0.9),
    "CosineAnnealingLR(T_max=20, eta_min=1e-4)": lambda o: S.CosineAnnealingLR(o, T_max=20, eta_min=1e-4),
    "OneCycleLR(max_lr=1.0, total_steps=42)": lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=42),
    "OneCycleLR(max_lr=1.0, epochs=6, steps_per_epoch=7, anneal_strategy='linear')":
        lambda o: S.OneCycleLR(o, max_lr=1.0, epochs=6, steps_per_epoch=7, anneal_strategy="linear"),
    "CyclicLR(base_lr=0.01, max_lr=0.1, step_size_up=5, mode='triangular2')":
        lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="triangular2"),
    "CosineAnnealingWarmRestarts(T_0=5, T_mult=2)": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2),
    "LinearLR(start_factor=0.1, total_iters=8)": lambda o: S.LinearLR(o, start_factor=0.1, total_iters=8),
    "ConstantLR(factor=0.5, total_iters=4)": lambda o: S.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR(total_iters=30, power=2.0)": lambda o: S.PolynomialLR(o, total_iters=30, power=2.0),
    "SWALR(swa_lr=0.05, anneal_epochs=5, anneal_strategy='linear')":
        lambda o: torch.optim.swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=5, anneal_strategy="linear"),
    "SequentialLR([LinearLR(start_factor=0.01, total_iters=5), CosineAnnealingLR(T_max=30)], "
    "milestones=[5])": lambda o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.01, total_iters=5), S.CosineAnnealingLR(o, T_max=30)],
        milestones=[5]),
    "ChainedScheduler([SequentialLR([LinearLR(start_factor=0.5, total_iters=3), "
    "ExponentialLR(gamma=0.9)], milestones=[3]), ConstantLR(factor=0.1, total_iters=2)])":
        lambda o: S.ChainedScheduler([S.SequentialLR(
            o, [S.LinearLR(o, start_factor=0.5, total_iters=3), S.ExponentialLR(o, gamma=0.9)],
            milestones=[3]), S.ConstantLR(o, factor=0.1, total_iters=2)]),
    "ChainedScheduler([ConstantLR(factor=0.1, total_iters=2), ExponentialLR(gamma=0.9)])":
        lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2),
                                      S.ExponentialLR(o, gamma=0.9)]),
}


def reference(build, per: str) -> list[float]:
    """A training loop with the scheduler built by hand, as in a user's script."""
    import warnings

    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    lrs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = build(opt)
        for _ in range(EPOCHS):
            for _ in range(STEPS):
                lrs.append(opt.param_groups[0]["lr"])
                opt.step()
                if per == "batch":
                    sched.step()
            if per == "epoch":
                sched.step()
    return lrs


@pytest.mark.parametrize("per", ["batch", "epoch"])
@pytest.mark.parametrize("spec", list(CASES))
def test_preview_equals_pytorch_over_the_whole_horizon(spec, per):
    from lrdoctor.preview import schedule

    curve = schedule(spec, LR, EPOCHS, STEPS, per)
    assert curve.error is None
    assert curve.lrs == reference(CASES[spec], per)
    assert len(curve.lrs) == EPOCHS * STEPS
    assert curve.scheduler_steps == (EPOCHS * STEPS if per == "batch" else EPOCHS)


def test_every_torch_class_the_preview_names_is_covered_by_a_case():
    from lrdoctor.preview.spec import TORCH_CLASSES

    covered = {parse_spec(s).name for s in CASES}
    assert covered == set(TORCH_CLASSES)


HF = {
    "linear_with_warmup(num_warmup_steps=5, num_training_steps=40)":
        ("get_linear_schedule_with_warmup", dict(num_warmup_steps=5, num_training_steps=40)),
    "cosine_with_warmup(5, 40)":
        ("get_cosine_schedule_with_warmup", dict(num_warmup_steps=5, num_training_steps=40)),
    "cosine_with_warmup(num_warmup_steps=3, num_training_steps=30, num_cycles=1.5)":
        ("get_cosine_schedule_with_warmup",
         dict(num_warmup_steps=3, num_training_steps=30, num_cycles=1.5)),
    "cosine_with_restarts(num_warmup_steps=4, num_training_steps=36, num_cycles=3)":
        ("get_cosine_with_hard_restarts_schedule_with_warmup",
         dict(num_warmup_steps=4, num_training_steps=36, num_cycles=3)),
    "constant_with_warmup(num_warmup_steps=10)":
        ("get_constant_schedule_with_warmup", dict(num_warmup_steps=10)),
    "constant()": ("get_constant_schedule", {}),
    "polynomial_with_warmup(num_warmup_steps=4, num_training_steps=30, lr_end=1e-3, power=2.0)":
        ("get_polynomial_decay_schedule_with_warmup",
         dict(num_warmup_steps=4, num_training_steps=30, lr_end=1e-3, power=2.0)),
    "get_inverse_sqrt_schedule(num_warmup_steps=6)":
        ("get_inverse_sqrt_schedule", dict(num_warmup_steps=6)),
}


@pytest.mark.parametrize("spec", list(HF))
def test_warmup_schedules_equal_transformers_own(spec):
    optimization = pytest.importorskip("transformers.optimization")
    from lrdoctor.preview import schedule

    builder, kwargs = HF[spec]
    expected = reference(lambda o: getattr(optimization, builder)(o, **kwargs), "batch")
    curve = schedule(spec, LR, EPOCHS, STEPS, "batch")
    assert curve.lrs == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_a_nesting_pytorch_refuses_is_reported_as_pytorch_raised_it():
    from lrdoctor.preview import schedule

    curve = schedule("SequentialLR([ConstantLR(factor=0.1, total_iters=2), SequentialLR("
                     "[LinearLR(total_iters=3), ExponentialLR(gamma=0.9)], milestones=[3])], "
                     "milestones=[2])", LR, EPOCHS, STEPS, "batch")
    assert curve.error.startswith("SequentialLR raised NotImplementedError at its scheduler step 2")
    with pytest.raises(NotImplementedError):
        reference(lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.1, total_iters=2),
                                               S.SequentialLR(o, [S.LinearLR(o, total_iters=3),
                                                                  S.ExponentialLR(o, gamma=0.9)],
                                                              milestones=[3])],
                                           milestones=[2]), "batch")


def test_onecycle_stepped_past_its_total_steps_says_where_pytorch_raised():
    from lrdoctor.preview import schedule

    curve = schedule("OneCycleLR(max_lr=0.1, total_steps=20)", LR, EPOCHS, STEPS, "batch")
    assert len(curve.lrs) == 21
    assert "ValueError" in curve.error and "Tried to step 21 times" in curve.error


HOSTILE_SPECS = {
    "__import__('os').system('echo pwned')": "attribute access",
    "__import__('os')": "unknown scheduler '__import__'",
    "torch.optim.lr_scheduler.StepLR(step_size=3)": "attribute access",
    "StepLR(step_size=open('/etc/passwd').read())": "must be literals",
    "StepLR(step_size=3).__class__": "expected a scheduler call",
    "Foo(1)": "unknown scheduler 'Foo'",
    "StepLR(step_sz=3)": "unexpected argument 'step_sz'",
    "StepLR(3, 4, 5, 6)": "too many positional arguments",
    "StepLR(step_size=3": "not a Python call",
    "StepLR(**{'step_size': 3})": "*args and **kwargs",
    "LambdaLR(lr_lambda=0)": "LambdaLR cannot be previewed",
    "ReduceLROnPlateau()": "ReduceLROnPlateau cannot be previewed",
    "SequentialLR(milestones=[3])": "needs a list of scheduler calls",
    "SequentialLR([StepLR(3), print(1)], milestones=[3])": "unknown scheduler 'print'",
    "OneCycleLR(max_lr=0.1)": "OneCycleLR: ValueError",
    "linear_with_warmup(num_warmup_steps=5)": "missing num_training_steps",
    "lambda: 0": "expected a scheduler call",
}


@pytest.mark.parametrize("spec", list(HOSTILE_SPECS))
def test_malformed_or_malicious_spec_gives_a_one_line_error(spec):
    from lrdoctor.preview import schedule

    with pytest.raises(SpecError) as info:
        schedule(spec, LR, EPOCHS, STEPS, "batch")
    assert HOSTILE_SPECS[spec] in str(info.value)
    assert "\n" not in str(info.value)


def lrdoctor(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "lrdoctor", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def preview_in_process(*args: str, encoding: str = "utf-8", monkeypatch=None) -> tuple[int, str]:
    """``lrdoctor preview ARGS`` in this process (torch is imported already: no second
    interpreter start per test), stdout encoded as a terminal with ``encoding`` would."""
    from lrdoctor.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    monkeypatch.setattr(sys, "stdout", out)
    code = main(["preview", *args])
    out.flush()
    return code, out.buffer.getvalue().decode(encoding)


def test_cli_hostile_spec_exits_2_with_one_line_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    result = lrdoctor("preview", f"__import__('os').system('touch {marker}')")
    assert result.returncode == 2
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("lrdoctor preview: attribute access is not allowed")
    assert not marker.exists()


def test_cli_per_both_shows_the_two_granularities_side_by_side_and_writes_files(tmp_path,
                                                                                monkeypatch):
    code, out = preview_in_process(
        "OneCycleLR(max_lr=0.1, total_steps=1000)", "--lr", "0.01", "--epochs", "10",
        "--steps-per-epoch", "100", "--per", "both", "--csv", str(tmp_path / "lr.csv"),
        "--svg", str(tmp_path / "lr.svg"), "--html", str(tmp_path / "lr.html"),
        monkeypatch=monkeypatch)
    assert code == 0
    lines = out.splitlines()
    assert any("stepped per batch (1000 scheduler steps):" in line
               and "stepped per epoch (10 scheduler steps):" in line for line in lines)
    table = lines[lines.index(next(x for x in lines if x.startswith("epoch"))):]
    assert table[0].split() == ["epoch", "LR", "at", "start,", "per", "batch", "LR", "at",
                                "start,", "per", "epoch"]
    # epoch 4 starts near the peak when stepped per batch, still in warm-up per epoch
    assert table[4].split() == ["4", "0.0999995", "0.00402384"]
    rows = (tmp_path / "lr.csv").read_text().splitlines()
    assert rows[0] == "step,epoch,lr_per_batch,lr_per_epoch" and len(rows) == 1001
    assert (tmp_path / "lr.svg").read_text().startswith("<svg")
    assert "LR at start, per epoch" in (tmp_path / "lr.html").read_text()


def test_cli_png_is_rendered_by_chromium_or_refused_clearly(tmp_path, monkeypatch, capsys):
    from lrdoctor.preview.command import chromium_path

    png = tmp_path / "lr.png"
    code, _ = preview_in_process("StepLR(step_size=2)", "--epochs", "4", "--steps-per-epoch",
                                 "3", "--per", "epoch", "--png", str(png), monkeypatch=monkeypatch)
    if chromium_path() is None:
        assert code == 2 and "--png needs Chromium" in capsys.readouterr().err
    else:
        assert code == 0, capsys.readouterr().err
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ascii_fallback_when_stdout_is_not_utf8(monkeypatch):
    code, out = preview_in_process("StepLR(step_size=2)", "--epochs", "4", "--steps-per-epoch",
                                   "3", encoding="ascii", monkeypatch=monkeypatch)
    assert code == 0
    assert out.isascii() and "#" in out and "+" in out and "log scale" in out


def test_readme_preview_transcript_is_what_preview_prints(monkeypatch):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = readme.index("$ lrdoctor preview ")
    block = readme[start:readme.index("```", start)]
    command, expected = block.split("\n", 1)
    code, out = preview_in_process(*shlex.split(command)[3:], monkeypatch=monkeypatch)
    assert code == 0
    assert out == expected
