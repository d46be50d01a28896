"""fphunt49: false alarms found on whole unseen repositories of Accelerate / DeepSpeed
fine-tuning code (DreamBooth, ControlNet, LoRA), each fixed by semantics. Every false
shape, written here in our own words, must be silent; a buggy twin must still be reported.

1. LRD102, a float16 cast under a test its optimizer's parameters contradict: the frozen
   text encoder is moved to float16 only `if not train_text and not train_embedding:`, and
   its parameters join the optimizer only `if train_text:` / `elif train_embedding:`. No
   run does both.
2. LRD102, a float16 load bound to a local name of another function: a helper that builds a
   float16 copy of the model for generating samples (`net = Net.from_pretrained(...,
   torch_dtype=torch.float16)`, returns nothing) is not the `net` the training function
   loads in float32 and hands to AdamW.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

CONTRADICTED = """
import argparse
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--train_text", action="store_true")
parser.add_argument("--train_embedding", action="store_true")
args = parser.parse_args()


def train(train_text, train_embedding):
    unet = nn.Linear(8, 8)
    text = nn.Linear(8, 8)
    params = list(unet.parameters())
    if train_text:
        params += list(text.parameters())
    elif train_embedding:
        params += [text.weight]
    optimizer = torch.optim.AdamW(params, lr=1e-4, eps=1e-8)
    CAST_TEST
        text.to("cuda", dtype=torch.float16)
    for _ in range(10):
        loss = unet(text(torch.randn(4, 8))).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


train(args.train_text, args.train_embedding)
"""


def contradicted(test: str) -> str:
    return CONTRADICTED.replace("CAST_TEST", test)


def test_cast_only_when_not_trained_is_silent() -> None:
    assert codes(contradicted("if not train_text and not train_embedding:")) == []


def test_cast_only_when_not_trained_spelled_as_else_branch_is_silent() -> None:
    source = contradicted("if train_text or train_embedding:\n        pass\n    else:")
    assert codes(source) == []


def test_cast_under_a_test_the_parameters_share_is_lrd102() -> None:
    # only the embedding flag is tested: `--train_text` runs both the cast and the feed
    assert "LRD102" in codes(contradicted("if not train_embedding:"))


def test_cast_under_an_unrelated_test_is_lrd102() -> None:
    assert "LRD102" in codes(contradicted("if args.train_text is not None:"))


def test_flag_reassigned_between_cast_and_feed_keeps_the_finding() -> None:
    source = CONTRADICTED.replace(
        "    params = list(unet.parameters())\n",
        "    if not train_text:\n        text.half()\n    train_text = True\n"
        "    params = list(unet.parameters())\n").replace("CAST_TEST\n", "if False:\n")
    assert "LRD102" in codes(source)


OTHER_FUNCTION = """
import torch
from diffusers import ControlNetModel, StableDiffusionControlNetPipeline


def make_samples(path, count):
    net = ControlNetModel.from_pretrained(path, torch_dtype=torch.float16)
    pipe = StableDiffusionControlNetPipeline.from_pretrained("base", controlnet=net)
    pipe.to("cuda")
    for _ in range(count):
        pipe("a photo").images[0].save("sample.png")
    HANDS_BACK


def train(path):
    make_samples(path, 8)
    net = ControlNetModel.from_pretrained(path)
    net.train()
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-5, eps=1e-8)
    for _ in range(10):
        net(torch.randn(1, 4)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()


train("weights")
"""


def test_float16_copy_local_to_another_function_is_silent() -> None:
    assert codes(OTHER_FUNCTION.replace("HANDS_BACK", "return")) == []


def test_float16_copy_returned_to_the_trainer_is_lrd102() -> None:
    source = OTHER_FUNCTION.replace("HANDS_BACK", "return net").replace(
        "    make_samples(path, 8)\n    net = ControlNetModel.from_pretrained(path)\n",
        "    net = make_samples(path, 8)\n")
    assert "LRD102" in codes(source)


def test_float16_load_in_the_training_function_is_lrd102() -> None:
    source = OTHER_FUNCTION.replace("HANDS_BACK", "return").replace(
        "    net = ControlNetModel.from_pretrained(path)\n",
        "    net = ControlNetModel.from_pretrained(path, torch_dtype=torch.float16)\n")
    assert "LRD102" in codes(source)


# 3. LRD003, a prepared scheduler inside Accelerate's `accumulate()` sized in micro-batches
#    (`max_train_steps * gradient_accumulation_steps`, the diffusers examples of 2022) in a
#    project that pins Accelerate before 0.16: those versions stepped a prepared scheduler on
#    every micro-batch, so the horizon is the one it runs. With a later Accelerate (or none
#    pinned) it steps only with the updates and the schedule ends early: still LRD003.

DIFFUSERS_2022 = """
import math
import torch
from torch import nn
from accelerate import Accelerator
from diffusers.optimization import get_scheduler

accum = 4
accelerator = Accelerator(gradient_accumulation_steps=accum)
unet = nn.Linear(8, 8)
loader = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
optimizer = torch.optim.AdamW(unet.parameters(), lr=5e-6)
updates_per_epoch = math.ceil(len(loader) / accum)
max_train_steps = 3 * updates_per_epoch
lr_scheduler = get_scheduler("cosine", optimizer=optimizer, num_warmup_steps=10 * accum,
                             num_training_steps=max_train_steps * accum)
unet, optimizer, loader, lr_scheduler = accelerator.prepare(unet, optimizer, loader, lr_scheduler)
for epoch in range(3):
    for batch in loader:
        with accelerator.accumulate(unet):
            accelerator.backward(unet(batch).pow(2).mean())
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
"""


def pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, requirements: str | None) -> list[str]:
    files = {"train.py": DIFFUSERS_2022}
    if requirements is not None:
        files["requirements.txt"] = requirements
    found = check_project(tmp_path, monkeypatch, files, ["train.py"])
    return [code for code in project_codes(found) if code != "LRD101"]


@pytest.mark.parametrize("pin", ["accelerate==0.15.0\n", "diffusers\naccelerate<0.16\n",
                                 "accelerate <= 0.14.1  # 2022\n"])
def test_micro_batch_horizon_with_accelerate_pinned_before_0_16_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pin: str) -> None:
    assert pinned(tmp_path, monkeypatch, pin) == []


@pytest.mark.parametrize("pin", [None, "accelerate\n", "accelerate==0.19.0\n",
                                 "accelerate>=0.15.0\n", "accelerate==0.15.0\naccelerate>=0.20\n",
                                 "accelerate-extras==0.1\n"])
def test_micro_batch_horizon_with_a_later_or_no_accelerate_pin_is_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pin: str | None) -> None:
    assert pinned(tmp_path, monkeypatch, pin) == ["LRD003"]


def test_conda_environment_pin_before_0_16_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": DIFFUSERS_2022,
        "environment.yaml": "dependencies:\n  - pip:\n    - accelerate=0.12.0\n"}, ["train.py"])
    assert [c for c in project_codes(found) if c != "LRD101"] == []


# 4. LRD102, a module frozen and cast to float16 in one branch (`text.requires_grad_(False)`
#    then `text.to(dtype=torch.float16)`) whose parameters the optimizer takes only through a
#    `requires_grad` filter: its float16 weights never reach the optimizer, whichever flags
#    the run sets.

FROZEN = """
import torch
from torch import nn


def train(lora_path, train_text):
    unet = nn.Linear(8, 8)
    text = nn.Linear(8, 8)
    if lora_path:
        text.load_state_dict(torch.load(lora_path))
    else:
        text.requires_grad_(False)
        text.to("cuda", dtype=torch.float16)
    UNFREEZE
    groups = [{"params": [p for p in unet.parameters() if p.requires_grad]}]
    if train_text:
        groups.append({"params": FEED})
    optimizer = torch.optim.AdamW(groups, lr=1e-4)
    text.requires_grad_(True)
    for _ in range(10):
        unet(text(torch.randn(4, 8))).sum().backward()
        optimizer.step()
        optimizer.zero_grad()


train(None, True)
"""


def frozen(unfreeze: str = "pass", feed: str = "[p for p in text.parameters() if p.requires_grad]") -> str:
    return FROZEN.replace("UNFREEZE", unfreeze).replace("FEED", feed)


def test_frozen_float16_module_behind_a_requires_grad_filter_is_silent() -> None:
    assert codes(frozen()) == []
    assert codes(frozen(feed="list(filter(lambda p: p.requires_grad, text.parameters()))")) == []


def test_frozen_float16_module_without_the_filter_is_lrd102() -> None:
    assert "LRD102" in codes(frozen(feed="list(text.parameters())"))


def test_frozen_float16_module_unfrozen_before_the_optimizer_is_lrd102() -> None:
    assert "LRD102" in codes(frozen(unfreeze="text.weight.requires_grad = True"))
    assert "LRD102" in codes(frozen(
        unfreeze="for q in text.parameters():\n        q.requires_grad = True"))


def test_accelerate_message_says_what_several_processes_change() -> None:
    # Accelerate steps a prepared scheduler once per process on each update: the shortfall
    # is N/accum of the schedule on N processes, 1/accum on one
    text = next(m for m in messages(DIFFUSERS_2022) if "horizon counts loader batches" in m)
    # (`accum = 4` in the program: the count is named by its value)
    assert "on one process ends after 1/4 of the schedule" in text
    assert "N/4 on N processes" in text
