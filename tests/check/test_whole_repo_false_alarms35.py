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

from .helpers import codes

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
