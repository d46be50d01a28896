"""The same compound test (`hasattr(cfg, "deepspeed") and cfg.deepspeed.enable`) in two `if`s.

Programs written for these tests; no third-party code.

Code that supports DeepSpeed next to plain PyTorch often tests the same setting twice: once to
build a torch optimizer and scheduler (in the `else`), and later to hand the model to
`deepspeed.initialize`, which returns its own optimizer (in the `if`). With nothing rebound
between the two tests they have one outcome, so the DeepSpeed optimizer never replaces the one
the torch scheduler drives: no LRD014. A single flag was already read this way; a test made of
`and`/`or` of flags (and `hasattr`, whose answer only its arguments decide) now is too.
"""

from __future__ import annotations

from .helpers import codes

SETUP = """
import argparse

import deepspeed
import torch


def setup(cfg, model):
    if TEST_ONE:
        params = [p for p in model.parameters()]
        scheduler = None
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.1, 1.0, total_iters=500)
    if TEST_TWO:
        model, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=params,
                                                      config=cfg.ds_config)
    return model, optimizer, scheduler


def main(cfg):
    model = torch.nn.Linear(4, 4)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    model, optimizer, scheduler = setup(cfg, model)
    for epoch in range(3):
        for x in loader:
            loss = model(x).pow(2).mean()
            if TEST_ONE:
                model.backward(loss)
                model.step()
            else:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                scheduler.step()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--deepspeed", action="store_true")
    main(ap.parse_args())
"""

DS = 'hasattr(cfg, "deepspeed") and cfg.deepspeed.enable'


def program(first: str, second: str) -> str:
    return SETUP.replace("TEST_ONE", first).replace("TEST_TWO", second)


def test_the_same_compound_test_twice_is_one_choice() -> None:
    assert codes(program(DS, DS)) == []


def test_the_same_or_test_twice_is_one_choice() -> None:
    either = "cfg.deepspeed or cfg.zero_stage"
    assert codes(program(either, either)) == []


def test_two_different_tests_can_both_hold() -> None:
    # the rebuild is tested on another setting: with both on, the loop steps the DeepSpeed
    # optimizer while the LinearLR moves the AdamW one (an `else` that steps both keeps the
    # loop's own step in view)
    other = 'hasattr(cfg, "deepspeed") and cfg.use_engine'
    found = codes(program(DS, other))
    assert "LRD014" in found


def test_a_setting_rebound_between_the_tests_is_not_one_choice() -> None:
    rebound = SETUP.replace("    if TEST_TWO:",
                            "    cfg.deepspeed = build_ds_config()\n    if TEST_TWO:")
    assert "LRD014" in codes(rebound.replace("TEST_ONE", DS).replace("TEST_TWO", DS))
