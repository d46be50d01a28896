"""LRD102 for Hugging Face models loaded straight into float16 (`from_pretrained(...,
torch_dtype=torch.float16)`) and updated by an Adam with the default eps, and the loads that
are not that: bfloat16, quantized weights, PEFT adapters."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

SCRIPT = """
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup
{extra_import}
model = AutoModelForCausalLM.from_pretrained("gpt2", {load_args}).cuda()
{wrap}
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
scheduler = get_linear_schedule_with_warmup(optimizer, 0, len(loader) * 3)
for epoch in range(3):
    for batch in loader:
        loss = model(batch).loss
        loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
"""


def script(load_args: str, extra_import: str = "", wrap: str = "") -> str:
    return SCRIPT.format(load_args=load_args, extra_import=extra_import, wrap=wrap)


def test_adamw_on_a_model_loaded_in_float16_is_reported() -> None:
    src = script("torch_dtype=torch.float16")
    assert findings(src) == [("LRD102", 9)]
    assert "`model` is loaded in float16 at line 6" in messages(src)[0]


def test_float16_named_by_a_string_or_a_constant_is_reported() -> None:
    assert codes(script('torch_dtype="float16"')) == ["LRD102"]
    assert codes(script("torch_dtype=DTYPE", extra_import="DTYPE = torch.half")) == ["LRD102"]


def test_model_loaded_in_bfloat16_or_float32_is_fine() -> None:
    assert codes(script("torch_dtype=torch.bfloat16")) == []
    assert codes(script("torch_dtype=torch.float32")) == []
    assert codes(script('torch_dtype="auto"')) == []


def test_quantized_load_trained_through_lora_adapters_is_silent() -> None:
    src = script(
        "load_in_8bit=True, torch_dtype=torch.float16",
        extra_import="from peft import LoraConfig, get_peft_model",
        wrap="model = get_peft_model(model, LoraConfig(r=8))",
    )
    assert codes(src) == []


def test_float16_load_wrapped_by_peft_is_silent() -> None:
    # PEFT creates the trainable adapters itself (float32 unless told otherwise)
    src = script(
        "torch_dtype=torch.float16",
        extra_import="from peft import LoraConfig, get_peft_model",
        wrap="model = get_peft_model(model, LoraConfig(r=8))",
    )
    assert codes(src) == []


def test_float16_load_with_a_larger_eps_is_fine() -> None:
    src = script("torch_dtype=torch.float16").replace("lr=1e-5)", "lr=1e-5, eps=1e-4)")
    assert codes(src) == []


def test_float16_load_chosen_by_a_flag_is_reported() -> None:
    src = script("torch_dtype=torch.float16 if FP16 else torch.float32",
                 extra_import="FP16 = True")
    assert codes(src) == ["LRD102"]
    both_wide = script("torch_dtype=torch.bfloat16 if BF16 else torch.float32",
                       extra_import="BF16 = True")
    assert codes(both_wide) == []
    switched_off = script("torch_dtype=torch.float16 if FP16 else torch.float32",
                          extra_import="FP16 = False")
    assert codes(switched_off) == []
