"""Low-precision spellings real code uses. LRD102: the ways a model becomes float16 before an
Adam-family optimizer is built on it (`.half()`, `.to(torch.float16)`, `.to(dtype=torch.half)`,
`.type(torch.HalfTensor)`-free `.to(device, dtype)`, a flag-switched `.half()`), each reported
with eps=1e-8 and silent with a float16-safe eps or a float32 model. LRD103: the ways a loss runs
under an enabled autocast (`torch.autocast`, `torch.amp.autocast`, a context in a variable, a
flag-enabled one), and the fixes that must stay silent."""

from __future__ import annotations

import pytest

from tests.check import helpers


def codes(source: str) -> list[str]:
    """Every code but LRD111: some programs below back-propagate a float16 loss without a
    GradScaler (LRD111's own tests: test_fp16_backward_without_scaling.py)."""
    return [c for c in helpers.codes(source) if c != "LRD111"]

_TRAIN = """
import torch

def main(args):
    device = torch.device("cuda")
    model = torch.nn.Linear(4, 1)
{cast}
    optimizer = {optimizer}
    for step in range(10):
        loss = model(torch.randn(2, 4, device=device, dtype=torch.float16)).float().sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

_CASTS = {
    "half_method": "    model = model.half()",
    "half_in_place_chain": "    model.cuda().half()",
    "to_dtype_positional": "    model = model.to(torch.float16)",
    "to_device_and_dtype": "    model.to(device, dtype=torch.float16)",
    "to_dtype_keyword_half_alias": "    model = model.to(dtype=torch.half)",
    "dtype_in_a_variable": "    dtype = torch.float16\n    model.to(dtype)",
    "half_under_the_fp16_flag": "    if args.fp16:\n        model.half()",
}

_OPTIMIZERS = {
    "adam_default_eps": "torch.optim.Adam(model.parameters(), lr=1e-3)",
    "adamw_explicit_small_eps": "torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-8)",
}


@pytest.mark.parametrize("optimizer", sorted(_OPTIMIZERS))
@pytest.mark.parametrize("cast", sorted(_CASTS))
def test_adam_on_a_float16_model_is_lrd102(cast: str, optimizer: str) -> None:
    src = _TRAIN.format(cast=_CASTS[cast], optimizer=_OPTIMIZERS[optimizer])
    assert codes(src) == ["LRD102"]


@pytest.mark.parametrize("cast", sorted(_CASTS))
def test_adam_with_a_float16_safe_eps_is_correct(cast: str) -> None:
    src = _TRAIN.format(cast=_CASTS[cast],
                        optimizer="torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)")
    assert codes(src) == []


_FLOAT32 = {
    "bfloat16_cast": "    model = model.to(torch.bfloat16)",
    "device_only": "    model = model.to(device)",
    "float_cast": "    model = model.half().float()",
    "half_after_the_optimizer_for_export_only": "",
}


@pytest.mark.parametrize("cast", sorted(_FLOAT32))
def test_adam_on_a_model_not_in_float16_is_correct(cast: str) -> None:
    src = _TRAIN.format(cast=_FLOAT32[cast],
                        optimizer="torch.optim.Adam(model.parameters(), lr=1e-3)")
    if cast == "half_after_the_optimizer_for_export_only":
        src += "    torch.save(model.half().state_dict(), 'model_fp16.pt')\n"
    assert codes(src) == []


# -- LRD103 ----------------------------------------------------------------------------------

_AUTOCAST = """
import torch
import torch.nn.functional as F

def train(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = torch.nn.BCELoss()
    for x, y in loader:
        optimizer.zero_grad()
{context}
            probs = torch.sigmoid(model(x))
            loss = {loss}
        loss.backward()
        optimizer.step()
"""

_CONTEXTS = {
    "torch_autocast": '        with torch.autocast("cuda", dtype=torch.float16):',
    "torch_amp_autocast": '        with torch.amp.autocast(device_type="cuda"):',
    "flag_enabled": '        with torch.autocast("cuda", enabled=args.amp):',
    "context_in_a_variable": ('        amp_ctx = torch.autocast("cuda", dtype=torch.float16)\n'
                              "        with amp_ctx:"),
}

_LOSSES = {
    "bce_module": "criterion(probs, y)",
    "functional_bce": "F.binary_cross_entropy(probs, y)",
    "log_of_sigmoid_by_hand": "-(y * torch.log(probs)).mean()",
}


@pytest.mark.parametrize("loss", sorted(_LOSSES))
@pytest.mark.parametrize("context", sorted(_CONTEXTS))
def test_probability_loss_under_an_enabled_autocast_is_lrd103(context: str, loss: str) -> None:
    src = _AUTOCAST.format(context=_CONTEXTS[context], loss=_LOSSES[loss])
    assert codes(src) == ["LRD103"]


_SAFE = {
    "bce_with_logits": "F.binary_cross_entropy_with_logits(model(x), y)",
    "logsigmoid": "-(y * F.logsigmoid(model(x))).mean()",
}


@pytest.mark.parametrize("loss", sorted(_SAFE))
@pytest.mark.parametrize("context", sorted(_CONTEXTS))
def test_logit_loss_under_autocast_is_correct(context: str, loss: str) -> None:
    src = _AUTOCAST.format(context=_CONTEXTS[context], loss=_SAFE[loss])
    assert codes(src) == []


@pytest.mark.parametrize("context", ['        with torch.autocast("cuda", enabled=False):',
                                     "        with torch.autocast(\"cuda\", dtype=torch.float16,"
                                     " enabled=False):"])
def test_probability_loss_under_a_disabled_autocast_is_correct(context: str) -> None:
    src = _AUTOCAST.format(context=context, loss="criterion(probs.float(), y.float())")
    assert codes(src) == []


_EPS_SETTINGS = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--adam_epsilon", default={default}, type=float)
parser.add_argument("--fp16", action="store_true")
args = parser.parse_args()
ADAM_EPS = {default}
config = {{"optimizer": {{"eps": {default}}}}}

def main():
    model = torch.nn.Linear(4, 1)
    if args.fp16:
        model.half()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, eps={eps})
    for step in range(10):
        loss = model(torch.randn(2, 4, dtype=torch.float16)).float().sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

_EPS_SPELLINGS = ["args.adam_epsilon", "ADAM_EPS"]


@pytest.mark.parametrize("eps", _EPS_SPELLINGS)
def test_eps_below_float16_from_a_setting_is_lrd102(eps: str) -> None:
    assert codes(_EPS_SETTINGS.format(default="1e-8", eps=eps)) == ["LRD102"]


@pytest.mark.parametrize("eps", _EPS_SPELLINGS)
def test_eps_representable_in_float16_from_a_setting_is_correct(eps: str) -> None:
    assert codes(_EPS_SETTINGS.format(default="1e-4", eps=eps)) == []


def test_eps_from_a_config_dict_unknown_to_the_file_is_left_alone() -> None:
    src = _EPS_SETTINGS.format(default="1e-8", eps='cfg["optimizer"]["eps"]').replace(
        "def main():", "def main(cfg):")
    assert codes(src) == []
