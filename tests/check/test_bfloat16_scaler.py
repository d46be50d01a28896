"""A GradScaler in a program that autocasts only to bfloat16 cannot skip an update.

bfloat16 keeps float32's exponent range: gradients multiplied by the scale (65536 at first) do
not overflow, so ``scaler.step()`` never finds an inf and never skips. A scheduler stepped after
it stays in step with the updates (no LRD005), and a checkpoint without the scaler's state
loses nothing a resumed run needs (no LRD007 for the scaler). The scaled gradients are still
multiplied by the scale, so a clip before ``unscale_()`` stays LRD108.

Found in fphunt40's whole-repository scan (a flow-matching example that keeps a CUDA
GradScaler beside a model whose forward runs under ``autocast(dtype=torch.bfloat16)`` in
another module). Programs written for these tests; no third-party code. Each silent shape has
a control that must still be reported: float16 autocast, autocast with its default dtype
(float16 on CUDA), a dtype picked by a setting, a ``.half()`` model, no autocast in sight.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

LOOP = """
import torch
from torch import nn

model = nn.Linear(4, 2).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=1000)
scaler = torch.amp.GradScaler("cuda")
loader = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(10)]


def save(path):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict()}, path)


def resume(path):
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])


resume("last.pt")
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        with CAST:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
    save("last.pt")
"""


def loop(cast: str, extra: str = "") -> str:
    return LOOP.replace("CAST", cast) + extra


@pytest.mark.parametrize("cast", [
    'torch.autocast("cuda", dtype=torch.bfloat16)',
    'torch.autocast(device_type="cuda", dtype=torch.bfloat16)',
    'torch.amp.autocast("cuda", torch.bfloat16)',
    "torch.cuda.amp.autocast(dtype=torch.bfloat16)",
])
def test_a_scaler_beside_bfloat16_autocast_neither_runs_ahead_nor_loses_state(cast: str) -> None:
    found = codes(loop(cast))
    assert "LRD005" not in found
    assert "LRD007" not in found


@pytest.mark.parametrize("cast", [
    'torch.autocast("cuda", dtype=torch.float16)',
    'torch.autocast("cuda")',  # the CUDA default is float16
    "torch.cuda.amp.autocast()",
    'torch.autocast("cuda", dtype=torch.bfloat16 if args.bf16 else torch.float16)',
    'torch.autocast("cuda", dtype=amp_dtype)',  # a dtype the file does not pin
])
def test_control_float16_or_an_unknown_dtype_still_skips(cast: str) -> None:
    found = codes(loop(cast))
    assert "LRD005" in found
    assert "LRD007" in found


def test_control_a_half_call_next_to_bfloat16_autocast_still_skips() -> None:
    # anything cast to float16 in the program may produce float16 gradients
    extra = """

def export(path):
    torch.save(model.half().state_dict(), path)
"""
    assert "LRD005" in codes(loop('torch.autocast("cuda", dtype=torch.bfloat16)', extra))


def test_control_a_float16_setting_named_in_the_program_still_skips() -> None:
    source = loop('torch.autocast("cuda", dtype=torch.bfloat16)').replace(
        "import torch\n", 'import torch\nPRECISION = "fp16"\n', 1)
    assert "LRD005" in codes(source)


def test_control_no_autocast_in_sight_still_skips() -> None:
    # the cast may be made where lrdoctor does not look (a wrapper, another framework)
    source = loop("contextlib.nullcontext()").replace("import torch\n",
                                                      "import contextlib\nimport torch\n", 1)
    assert "LRD005" in codes(source)


def test_a_disabled_float16_region_does_not_count() -> None:
    # `autocast(enabled=False)` around a numerically sensitive part is no float16 region
    extra = """

def stable_norm(x):
    with torch.autocast("cuda", enabled=False):
        return x.float().norm()
"""
    assert "LRD005" not in codes(loop('torch.autocast("cuda", dtype=torch.bfloat16)', extra))


def test_the_clip_before_unscale_is_still_reported_under_bfloat16() -> None:
    source = loop('torch.autocast("cuda", dtype=torch.bfloat16)').replace(
        "        scaler.step(optimizer)\n",
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(optimizer)\n", 1)
    assert "LRD108" in codes(source)


def test_the_scheduler_half_of_a_checkpoint_is_still_reported_under_bfloat16() -> None:
    source = loop('torch.autocast("cuda", dtype=torch.bfloat16)').replace(
        ',\n                "scheduler": scheduler.state_dict()}', "}").replace(
        '    scheduler.load_state_dict(state["scheduler"])\n', "")
    assert "LRD007" in codes(source)


# -- across modules: the cast is made in the model's module -------------------------------------

TRAIN = """
import torch
from model import Net

model = Net().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=1000)
scaler = torch.amp.GradScaler("cuda")
loader = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(10)]
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 2)

    def forward(self, x):
        with torch.autocast("cuda", dtype=DTYPE):
            return self.body(x)
"""


def test_bfloat16_autocast_in_the_model_module_imported_by_the_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": TRAIN, "model/__init__.py": "from .net import Net\n",
        "model/net.py": MODEL.replace("DTYPE", "torch.bfloat16")})
    assert "LRD005" not in project_codes(found)


def test_control_float16_autocast_in_the_model_module_imported_by_the_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": TRAIN, "model/__init__.py": "from .net import Net\n",
        "model/net.py": MODEL.replace("DTYPE", "torch.float16")})
    assert "LRD005" in project_codes(found)
