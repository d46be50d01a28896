"""A GradScaler enabled by `dtype == "float16"` where `dtype` holds literals picked by a setting
(`dtype = "float16" if args.fp16 else "float32"`, nanoGPT descendants with a flag): on exactly
when the setting is, so a scheduler stepped after `scaler.step()` is LRD005 "when `dtype ==
'float16'` holds". A pick by the hardware (`"bfloat16" if torch.cuda.is_bf16_supported() else
"float16"`) or by a bare local name stays unknown and silent, as before. (rcnew104 saw the
flag shape in real code; fixed in lead56.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

SCRIPT = """
import argparse
import torch
from torch import nn

p = argparse.ArgumentParser()
p.add_argument("--fp16", action="store_true")
p.add_argument("--bf16", action="store_true")
args = p.parse_args()
cfg = {{"precision": "fp16"}}
bf16_ok = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
dtype = {pick}
model = nn.Linear(8, 8).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5000)
scaler = torch.amp.GradScaler("cuda", enabled=(dtype == "float16"))
for it in range(5000):
    x = torch.randn(4, 8, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16, enabled=(dtype == "float16")):
        loss = model(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
"""

BY_A_SETTING = [
    '"float16" if args.fp16 else "float32"',
    '"bfloat16" if args.bf16 else "float16"',
    '"float32" if not args.fp16 else "float16"',
    '"float16" if cfg.get("precision") == "fp16" else "float32"',
]
UNKNOWN = [
    '"bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"',
    '"bfloat16" if bf16_ok else "float16"',
]


@pytest.mark.parametrize("pick", BY_A_SETTING)
def test_dtype_picked_by_a_setting_switches_the_scaler(pick: str) -> None:
    source = SCRIPT.format(pick=pick)
    assert codes(source) == ["LRD005"]
    assert any("When `dtype == 'float16'` holds" in m for m in messages(source))


@pytest.mark.parametrize("pick", UNKNOWN)
def test_dtype_picked_by_the_hardware_stays_unknown(pick: str) -> None:
    assert codes(SCRIPT.format(pick=pick)) == []


def test_a_fixed_bfloat16_dtype_never_scales() -> None:
    assert codes(SCRIPT.format(pick='"bfloat16"')) == []
