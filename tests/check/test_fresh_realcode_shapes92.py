"""Shapes behind the dev false alarms of the fresh-2026-12zq90 batch (rcnew90,
bench/realcode/README.md), and further spellings of checkpoint, resume and optimizer-lifetime
code probed after it.

Programs written for these tests; no third-party code.

- A per-batch OneCycleLR stepped only when ``stepped`` holds, where ``stepped`` compares the
  optimizer's per-parameter ``state[p]["step"]`` counters read after ``scaler.step(opt)``
  with the ones read before it (through two small functions of the module). lrdoctor read a
  skip guard from the words of the test only (``scale``, ``skip``, ``found_inf``, ...), found
  none here, and reported LRD005. Python: GradScaler skips an update by not calling
  ``optimizer.step()``, so the counters do not move on a skipped update; the test tells a
  skip exactly and the schedule steps only after real updates.
- ``ReduceLROnPlateau.step(loss)`` in a function whose ``loss`` is the return value of the
  module's ``evaluate_epoch(...)``, a function that puts the model in eval mode and adds up
  the criterion over the data it is given (the dev set, at every call). lrdoctor took the bare
  name ``loss`` for the training loss and reported LRD004. Python: the value is the
  evaluation pass's loss; no gradient is taken there.
"""

from __future__ import annotations

from .helpers import codes

# -- LRD005: a skip told by the optimizer's own step counters -----------------------------------

COUNTED_SKIPS = """
import torch
from torch.optim.lr_scheduler import OneCycleLR


def step_counts(optimizer):
    counts = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            state = optimizer.state.get(p, {})
            counts[id(p)] = int(state.get("step", -1))
    return counts


def moved(optimizer, before):
    return any(int(optimizer.state.get(p, {}).get("step", -1)) > before.get(id(p), -1)
               for group in optimizer.param_groups for p in group["params"])


def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = OneCycleLR(optimizer, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            before = step_counts(optimizer)
            scaler.step(optimizer)
            scaler.update()
            stepped = moved(optimizer, before)
            if stepped:
                scheduler.step()
"""


def test_scheduler_stepped_only_when_the_step_counters_moved() -> None:
    assert "LRD005" not in codes(COUNTED_SKIPS)


def test_the_same_loop_without_the_counter_test() -> None:
    source = COUNTED_SKIPS.replace("            if stepped:\n                scheduler.step()",
                                   "            scheduler.step()")
    assert "LRD005" in codes(source)


def test_counters_read_inline_from_the_optimizer_state() -> None:
    source = COUNTED_SKIPS.replace(
        "            before = step_counts(optimizer)",
        "            before = sum(int(s.get('step', 0)) for s in optimizer.state.values())",
    ).replace(
        "            stepped = moved(optimizer, before)",
        "            stepped = sum(int(s.get('step', 0)) for s in optimizer.state.values())"
        " > before",
    )
    assert "LRD005" not in codes(source)


def test_counter_test_in_a_trainer_flag_set_in_both_branches() -> None:
    # the AMP branch learns it from the counters, the fp32 branch always steps
    source = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR


    def step_counts(optimizer):
        return {id(p): int(optimizer.state.get(p, {}).get("step", -1))
                for g in optimizer.param_groups for p in g["params"]}


    def moved(optimizer, before):
        now = step_counts(optimizer)
        return any(now[k] > before.get(k, -1) for k in now)


    def train_one_epoch(model, loader, optimizer, scheduler, scaler, use_amp=True):
        for x, y in loader:
            optimizer.zero_grad()
            did_step = False
            if use_amp:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                scaler.scale(loss).backward()
                before = step_counts(optimizer)
                scaler.step(optimizer)
                scaler.update()
                did_step = moved(optimizer, before)
            else:
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
                did_step = True
            if did_step and isinstance(scheduler, OneCycleLR):
                scheduler.step()


    def main(model, loader, epochs):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scheduler = OneCycleLR(optimizer, max_lr=1e-3, epochs=epochs,
                               steps_per_epoch=len(loader))
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(epochs):
            train_one_epoch(model, loader, optimizer, scheduler, scaler)
    """
    assert "LRD005" not in codes(source)


def test_a_test_of_the_learning_rate_is_no_skip_test() -> None:
    # the LR does not move when the optimizer steps: comparing it tells nothing of a skip
    source = COUNTED_SKIPS.replace(
        "            before = step_counts(optimizer)",
        "            before = optimizer.param_groups[0]['lr']",
    ).replace(
        "            stepped = moved(optimizer, before)",
        "            stepped = optimizer.param_groups[0]['lr'] >= before",
    )
    assert "LRD005" in codes(source)


def test_a_snapshot_taken_after_the_update_is_no_skip_test() -> None:
    source = COUNTED_SKIPS.replace(
        "            before = step_counts(optimizer)\n            scaler.step(optimizer)\n"
        "            scaler.update()\n",
        "            scaler.step(optimizer)\n            scaler.update()\n"
        "            before = step_counts(optimizer)\n",
    )
    assert "LRD005" in codes(source)


# -- LRD004: a plateau stepped with what an evaluation pass returns ----------------------------

EVALUATED_LOSS = """
import torch


def load_split(path):
    return torch.load(path)


def evaluate_epoch(model, data, criterion):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in data:
            total += criterion(model(x), y).item()
    return total / len(data)


def evaluate_and_save(model, data, criterion, scheduler, path):
    loss = evaluate_epoch(model, data, criterion)
    scheduler.step(loss)
    torch.save(model.state_dict(), path)
    return loss


def train(model, epochs):
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)
    for epoch in range(epochs):
        train_data = load_split("train.pt")
        dev_data = load_split("dev.pt")
        model.train()
        for x, y in train_data:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        evaluate_and_save(model, dev_data, criterion, scheduler, "best.pt")
"""


def test_plateau_stepped_with_an_evaluation_pass_loss() -> None:
    assert "LRD004" not in codes(EVALUATED_LOSS)


def test_plateau_stepped_with_the_last_training_batch_loss() -> None:
    # the step moved into the training loop's function, fed the last batch's loss
    source = EVALUATED_LOSS.replace(
        '        evaluate_and_save(model, dev_data, criterion, scheduler, "best.pt")',
        '        scheduler.step(loss)\n'
        '        evaluate_and_save(model, dev_data, criterion, None, "best.pt")',
    ).replace("    scheduler.step(loss)\n    torch.save", "    torch.save")
    assert "LRD004" in codes(source)


def test_a_pass_that_takes_gradients_is_no_evaluation() -> None:
    # the helper trains (backward and step) on the data it is given: its loss is a training loss
    source = EVALUATED_LOSS.replace(
        "    model.eval()\n    total = 0.0\n    with torch.no_grad():\n"
        "        for x, y in data:\n            total += criterion(model(x), y).item()\n",
        "    model.train()\n    total = 0.0\n    for x, y in data:\n"
        "        loss = criterion(model(x), y)\n        loss.backward()\n"
        "        total += loss.item()\n",
    )
    assert "evaluate_epoch" in source and "backward" in source
    assert "LRD004" in codes(source.replace(
        '        evaluate_and_save(model, dev_data, criterion, scheduler, "best.pt")',
        '        evaluate_and_save(model, train_data, criterion, scheduler, "best.pt")\n'
        '        evaluate_epoch(model, dev_data, criterion)',
    ))
