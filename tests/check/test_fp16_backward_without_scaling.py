"""LRD111: a loss computed under float16 autocast and back-propagated with no loss scaling.

float16 gradients below ~6e-8 flush to zero; GradScaler exists for exactly this. The finding
needs float16 to be certain (an explicit ``dtype=torch.float16`` / ``torch.half``, or CUDA's
default: ``torch.cuda.amp.autocast()``, ``torch.autocast("cuda")``), the backward's loss to come
from the autocast block, and nothing in the file that could scale a loss on some path (a
GradScaler, apex, DeepSpeed, Accelerate, Lightning, a project "scaler"). bfloat16, a CPU
autocast, a dtype or device held in a variable, evaluation under ``no_grad`` and a backward
chosen by the same flag that turns autocast on stay silent.
"""

from __future__ import annotations

import pytest

from tests.check.helpers import findings as all_findings
from tests.check.helpers import messages


def findings(source: str) -> list[tuple[str, int]]:
    """Every finding but LRD101 (the deprecated `torch.cuda.amp` spelling several cases use)."""
    return [f for f in all_findings(source) if f[0] != "LRD101"]


def codes(source: str) -> list[str]:
    return [code for code, _ in findings(source)]

_LOOP = """
import torch
{IMPORTS}

def train(model, loader, optimizer, args):
    for x, y in loader:
        optimizer.zero_grad()
        with {AUTOCAST}:
            out = model(x.cuda())
            loss = torch.nn.functional.cross_entropy(out, y.cuda())
        {BACKWARD}
        optimizer.step()
"""


def _program(autocast: str, backward: str = "loss.backward()", imports: str = "") -> str:
    return _LOOP.replace("{AUTOCAST}", autocast).replace("{BACKWARD}", backward).replace(
        "{IMPORTS}", imports)


@pytest.mark.parametrize("autocast, imports", [
    ('torch.autocast("cuda")', ""),
    ('torch.autocast(device_type="cuda")', ""),
    ("torch.cuda.amp.autocast()", ""),
    ("autocast()", "from torch.cuda.amp import autocast"),
    ("autocast(device_type='cuda')", "from torch.amp import autocast"),
    ("torch.autocast(args.device, dtype=torch.float16)", ""),
    ("torch.autocast(device_type=args.device, dtype=torch.half)", ""),
    ('torch.amp.autocast("cuda", dtype=torch.float16)', ""),
])
def test_float16_autocast_without_scaling_is_reported(autocast: str, imports: str) -> None:
    assert findings(_program(autocast, imports=imports)) == [("LRD111", 11)]


def test_a_loss_made_outside_the_block_from_its_outputs_is_reported() -> None:
    source = """
    import torch

    def train(model, loader, optimizer, accum):
        for i, (x, y) in enumerate(loader):
            with torch.cuda.amp.autocast():
                logits = model(x.cuda())
            loss = torch.nn.functional.cross_entropy(logits, y.cuda()) / accum
            loss.backward()
            if i % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
    """
    assert findings(source) == [("LRD111", 9)]


def test_a_flag_that_turns_autocast_on_is_named() -> None:
    source = _program("torch.cuda.amp.autocast(enabled=args.amp)")
    assert codes(source) == ["LRD111"]
    assert "when `args.amp` is on" in [m for m in messages(source) if "GradScaler" in m][0]


@pytest.mark.parametrize("autocast", [
    'torch.autocast("cuda", dtype=torch.bfloat16)',
    "torch.cuda.amp.autocast(dtype=torch.bfloat16)",
    'torch.autocast("cpu")',
    "torch.autocast(device_type=args.device)",
    'torch.autocast("cuda", dtype=args.amp_dtype)',
    "torch.cuda.amp.autocast(enabled=False)",
    'torch.autocast("cuda", enabled=False)',
])
def test_no_certain_float16_is_silent(autocast: str) -> None:
    assert codes(_program(autocast)) == []


@pytest.mark.parametrize("backward", [
    "scaler.scale(loss).backward()",
    "accelerator.backward(loss)",
    "model_engine.backward(loss)",
])
def test_a_scaled_or_framework_backward_is_silent(backward: str) -> None:
    source = _program('torch.autocast("cuda")', backward)
    source = source.replace("def train(", "scaler = torch.amp.GradScaler('cuda')\n\ndef train(")
    assert "LRD111" not in codes(source)


def test_a_file_with_any_loss_scaling_is_silent() -> None:
    # the scaled path is taken by a project helper named for it; the plain backward is the
    # path without AMP
    source = """
    import torch
    from utils import NativeScaler

    def train(model, loader, optimizer, args):
        loss_scaler = NativeScaler()
        for x, y in loader:
            with torch.cuda.amp.autocast():
                loss = model(x.cuda()).mean()
            if args.amp:
                loss_scaler(loss, optimizer)
            else:
                loss.backward()
                optimizer.step()
    """
    assert codes(source) == []


def test_a_backward_chosen_by_the_autocast_flag_is_silent() -> None:
    source = """
    import torch

    def train(model, loader, optimizer, args):
        for x, y in loader:
            with torch.cuda.amp.autocast(enabled=args.fp16):
                loss = model(x.cuda()).mean()
            if not args.fp16:
                loss.backward()
                optimizer.step()
            else:
                manual_fp16_step(loss, optimizer)
    """
    assert codes(source) == []


def test_evaluation_and_unrelated_losses_are_silent() -> None:
    source = """
    import torch

    def run(model, loader, optimizer, val_x):
        with torch.no_grad(), torch.autocast("cuda"):
            val = model(val_x)
        for x, y in loader:
            with torch.autocast("cuda"):
                preview = model(x.cuda())
            loss = torch.nn.functional.mse_loss(model.float()(x), y)
            loss.backward()
            optimizer.step()
    """
    assert codes(source) == []


def test_a_backward_before_the_block_is_silent() -> None:
    source = """
    import torch

    def step(model, x, y, optimizer):
        loss = model(x).sub(y).pow(2).mean()
        loss.backward()
        optimizer.step()
        with torch.autocast("cuda"):
            loss = model(x)
        return loss
    """
    assert codes(source) == []


def test_a_training_function_another_file_calls_keeps_its_finding(tmp_path, monkeypatch) -> None:
    # main.py's trace enters train() with the objects it built, and findings about the loop
    # are left to that trace; LRD111 is about train()'s own text, so train.py keeps it
    from tests.check.helpers import check_project

    found = check_project(tmp_path, monkeypatch, {
        "main.py": """
            import torch
            from train import train

            model = torch.nn.Linear(4, 2).cuda()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))] * 10
            for epoch in range(3):
                train(model, loader, optimizer)
        """,
        "train.py": """
            import torch

            def train(model, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    with torch.autocast("cuda"):
                        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
                    loss.backward()
                    optimizer.step()
        """,
    })
    assert [(path, code) for path, _, code in found] == [("train.py", "LRD111")]


def test_an_autocast_block_under_a_switch_names_the_switch() -> None:
    source = """
    import torch

    def train(model, loader, optimizer, cfg):
        for x, y in loader:
            if cfg.mixed_precision:
                with torch.cuda.amp.autocast():
                    loss = model(x.cuda()).mean()
            else:
                loss = model(x.cuda()).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """
    assert codes(source) == ["LRD111"]
    assert "when `cfg.mixed_precision` is on" in [m for m in messages(source) if "GradScaler" in m][0]
