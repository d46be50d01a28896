"""Two shapes left by earlier sessions (bench/realcode/FPHUNT.md, fphunt31's "Left alone"): the
evidence LRD004 takes for a validation metric, and a gradient clip spelled as a method of a
wrapped model or of a runner, which LRD108 did not see.

Programs written for these tests; no third-party code.

LRD004 reports a plateau stepped with the training loss "while a validation metric exists".
The evidence was any name the program binds that says validation, wherever it is bound: an
`att_val` ("attribute value") parsed from a data file's header, or a test loss computed once
training is over, made a train-only run look like one that ignores its validation loss. A
name now counts when the run that steps the plateau binds it while it trains: in a pass of
the loop the plateau steps in (or in another trace: a hook a framework calls). Evaluations
before or after that loop, and values parsed by a data reader, are no metric the plateau
could have watched.

LRD108 reported `torch.nn.utils.clip_grad_norm_` on gradients still multiplied by the
GradScaler's scale, but not the same clip spelled as a method: an FSDP-wrapped model's
`model.clip_grad_norm_(max_norm)` (with the ShardedGradScaler FSDP's AMP uses) clips the
gradients as they are, scaled or not.
"""

from __future__ import annotations

from .helpers import codes, findings, messages

# -- LRD004: validation evidence from the run that steps the plateau ---------------------------

PLATEAU = """
import torch


def read_series(path):
    attributes = {}
    with open(path) as handle:
        for line in handle:
            name, text = line.split(":", 1)
            att_val = float(text) if name == "scale" else text
            attributes[name] = att_val
    return attributes


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += torch.nn.functional.mse_loss(model(x), y).item()
    return total / len(loader)


def train(model, loader, val_loader, epochs=50):
    info = read_series("series.tsf")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3 * info["scale"])
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=5)
    BEFORE
    for epoch in range(epochs):
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        train_loss = total / len(loader)
        INSIDE
        scheduler.step(train_loss)
    AFTER
"""


def plateau(before: str = "pass", inside: str = "pass", after: str = "pass") -> str:
    return (PLATEAU.replace("    BEFORE", "    " + before)
            .replace("        INSIDE", "        " + inside)
            .replace("    AFTER", "    " + after))


def test_an_attribute_value_read_from_a_data_file_is_no_validation_metric() -> None:
    assert codes(plateau()) == []


def test_a_test_loss_computed_after_training_is_no_validation_metric() -> None:
    after = "test_loss = evaluate(model, val_loader)\n    print(test_loss)"
    assert codes(plateau(after=after)) == []


def test_a_validation_loss_computed_only_before_training_is_no_validation_metric() -> None:
    assert codes(plateau(before="val_loss = evaluate(model, val_loader)")) == []


def test_a_validation_loss_computed_inline_every_epoch_is_still_evidence() -> None:
    # no evaluation call at all: the loss over the validation loader, summed in the epoch loop
    inside = ("val_loss = sum(torch.nn.functional.mse_loss(model(x), y).item() "
              "for x, y in val_loader)")
    source = plateau(inside=inside)
    assert codes(source) == ["LRD004"]
    (message,) = messages(source)
    # (devmiss22: the message also gives the line where the run binds it)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "val_loss = sum" in text)
    assert f"(`val_loss`, line {line})" in message


def test_an_evaluation_every_epoch_is_still_evidence() -> None:
    assert codes(plateau(inside="val_loss = evaluate(model, val_loader)")) == ["LRD004"]


def test_an_evaluation_before_training_and_every_epoch_is_still_evidence() -> None:
    # the second call of the same evaluation may stand in for by the first one's summary
    call = "val_loss = evaluate(model, val_loader)"
    assert codes(plateau(before=call, inside=call)) == ["LRD004"]


def test_a_validation_loader_the_epoch_loop_hands_to_an_evaluation_is_still_evidence() -> None:
    # the result is bound to a name that says nothing; the loader, built before the run,
    # is what the run's passes evaluate on
    source = plateau(before="val_set = val_loader.dataset\n    loader_for_val = val_loader",
                     inside="metrics = evaluate(model, loader_for_val)")
    assert codes(source) == ["LRD004"]
    (message,) = messages(source)
    # (devmiss22: and where the run reads it, the evaluation's call)
    line = next(i for i, text in enumerate(source.splitlines(), 1)
                if "metrics = evaluate(model, loader_for_val)" in text)
    assert f"(`loader_for_val`, line {line})" in message


INLINE_PASS = """
import numpy as np
import torch


def train(model, train_set, test_set, epochs=50):
    training_loader = torch.utils.data.DataLoader(train_set, batch_size=8, shuffle=True)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)
    for epoch in range(epochs):
        model.train()
        losses = []
        for x, y in training_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(float(loss))
        scheduler.step(np.mean(losses))
        model.eval()
        with torch.no_grad():
            held = [float(torch.nn.functional.mse_loss(model(x), y)) for x, y in test_loader]
            for x, y in test_loader:
                print(model(x).shape)
        print(np.mean(held))
"""


def test_a_pass_over_a_test_loader_inside_the_epoch_loop_is_still_evidence() -> None:
    # nothing the pass computes is named as validation: the loader it goes over is
    assert codes(INLINE_PASS) == ["LRD004"]


HOOKS = """
import torch


class Task:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, patience=5)
        self.train_loss = 0.0

    def on_validation_end(self, outputs):
        self.val_loss = sum(outputs) / len(outputs)

    def on_train_epoch_end(self, losses):
        self.train_loss = sum(losses) / len(losses)
        self.scheduler.step(self.train_loss)
"""


def test_a_validation_loss_a_framework_hook_computes_is_still_evidence() -> None:
    assert codes(HOOKS) == ["LRD004"]


# -- LRD108: a clip spelled as a method of the wrapped model -------------------------------------

FSDP = """
import torch
from torch.distributed.fsdp import FullyShardedDataParallel
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler


class Trainer:
    def __init__(self, net, max_norm=1.0):
        self.model = FullyShardedDataParallel(net)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.scaler = ShardedGradScaler()
        self.max_norm = max_norm

    def step(self, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        UNSCALE
        self.model.clip_grad_norm_(self.max_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for batch in loader:
                self.step(batch)
"""


def test_an_fsdp_models_own_clip_on_scaled_gradients_is_lrd108() -> None:
    source = FSDP.replace("        UNSCALE\n", "")
    assert findings(source) == [("LRD108", 19)]


def test_an_fsdp_models_own_clip_after_unscale_is_right() -> None:
    assert codes(FSDP.replace("UNSCALE", "self.scaler.unscale_(self.optimizer)")) == []


PLAIN = """
import torch
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def train(loader, scaler):
    model = FSDP(nn.Linear(8, 1).cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        model.clip_grad_norm_(1.0)
        scaler.step(optimizer)
        scaler.update()


train([], torch.amp.GradScaler("cuda"))
"""


def test_a_wrapped_models_clip_in_a_plain_loop_is_lrd108() -> None:
    assert findings(PLAIN) == [("LRD108", 15)]


OWN_CLIP = """
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")

    def clip_grad_norm_(self, max_norm):
        self.scaler.unscale_(self.optimizer)
        return torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)

    def fit(self, loader):
        for batch in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.model(batch).mean()
            self.optimizer.zero_grad()
            self.scaler.scale(loss).backward()
            self.clip_grad_norm_(1.0)
            self.scaler.step(self.optimizer)
            self.scaler.update()
"""


def test_a_projects_own_clip_method_that_unscales_first_is_right() -> None:
    assert codes(OWN_CLIP) == []


ACCELERATE = """
import torch
from accelerate import Accelerator


def train(model, loader, epochs):
    accelerator = Accelerator(mixed_precision="fp16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        for batch in loader:
            loss = model(batch).mean()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
"""


def test_accelerates_clip_after_its_own_backward_is_right() -> None:
    # Accelerate unscales its own scaler's gradients before it clips
    assert codes(ACCELERATE) == []
