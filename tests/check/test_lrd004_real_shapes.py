"""LRD004 (ReduceLROnPlateau's metric) in the shapes real training code writes it: a plateau a
setting picks stepped with no metric (in a script or a trainer class), the training loss (a
method's return, a meter's average, `metrics=`) while the same epoch validates, `mode='min'` on
an accuracy, F1, AUC, IoU, mAP, R², PSNR or SSIM (also handed through a wrapper, by keyword, out
of a dict), `mode='max'` on a loss or an error rate; and the correct twins (the validation
metric, the training loss with no validation at all, the mode that fits, the
`isinstance(scheduler, ReduceLROnPlateau)` switch)."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

HEADER = """import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR, CosineAnnealingLR
train_loader = DataLoader(TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,))), batch_size=32)
val_loader = DataLoader(TensorDataset(torch.randn(128, 16), torch.randint(0, 4, (128,))), batch_size=64)
model = torch.nn.Linear(16, 4)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
epochs = 30


def train_one_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def evaluate(model, loader):
    model.eval()
    correct, total_loss = 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            total_loss += torch.nn.functional.cross_entropy(out, y).item()
            correct += (out.argmax(1) == y).sum().item()
    return total_loss / len(loader), correct / 128
"""

BUGS = {
    "cfg_plateau_no_metric": """
import argparse
p = argparse.ArgumentParser()
p.add_argument("--sched", default="plateau", choices=["plateau", "step"])
args = p.parse_args()
if args.sched == "plateau":
    scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=3)
else:
    scheduler = StepLR(optimizer, step_size=10)
for epoch in range(epochs):
    train_loss = train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step()
""",
    "train_loss_val_method": """
class Trainer:
    def __init__(self):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = ReduceLROnPlateau(self.optimizer, patience=5)

    def train_epoch(self):
        self.model.train()
        running = 0.0
        for x, y in train_loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            running += loss.item()
        return running / len(train_loader)

    def validate(self):
        self.model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += torch.nn.functional.cross_entropy(self.model(x), y).item()
        return val_loss / len(val_loader)

    def fit(self):
        for epoch in range(epochs):
            train_loss = self.train_epoch()
            val_loss = self.validate()
            self.scheduler.step(train_loss)
            print(epoch, train_loss, val_loss)

Trainer().fit()
""",
    "min_acc": """
scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=5)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step(val_acc)
""",
    "min_f1": """
def f1_score(model, loader):
    return 0.5

scheduler = ReduceLROnPlateau(optimizer, factor=0.1, patience=5)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_f1 = f1_score(model, val_loader)
    scheduler.step(val_f1)
""",
    "min_auc": """
scheduler = ReduceLROnPlateau(optimizer, "min", patience=2)
best_auc = 0.0
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    _, auc = evaluate(model, val_loader)
    scheduler.step(auc)
    if auc > best_auc:
        best_auc = auc
""",
    "max_loss": """
scheduler = ReduceLROnPlateau(optimizer, mode="max", factor=0.5, patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, _ = evaluate(model, val_loader)
    scheduler.step(val_loss)
""",
    "wrapper_positional": """
def adjust_lr(scheduler, metric):
    scheduler.step(metric)

scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    adjust_lr(scheduler, val_acc)
""",
    "metrics_kw": """
scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step(metrics=val_acc)
""",
    "train_loss_kw": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    train_loss = train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step(metrics=train_loss)
""",
    "no_metric_trainer": """
class Trainer:
    def __init__(self, cfg):
        self.model = model
        self.optimizer = optimizer
        if cfg["scheduler"] == "plateau":
            self.scheduler = ReduceLROnPlateau(self.optimizer, factor=0.2, patience=4)
        elif cfg["scheduler"] == "cosine":
            self.scheduler = CosineAnnealingLR(self.optimizer, T_max=epochs)

    def fit(self):
        for epoch in range(epochs):
            train_one_epoch(self.model, train_loader, self.optimizer)
            val_loss, val_acc = evaluate(self.model, val_loader)
            self.scheduler.step()

Trainer({"scheduler": "plateau"}).fit()
""",
    "dict_metric_min_acc": """
def validate(model, loader):
    loss, acc = evaluate(model, loader)
    return {"loss": loss, "acc": acc}

scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    metrics = validate(model, val_loader)
    scheduler.step(metrics["acc"])
""",
    "max_mode_cfg_loss": """
cfg = {"mode": "max", "patience": 3}
scheduler = ReduceLROnPlateau(optimizer, mode=cfg["mode"], patience=cfg["patience"])
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, _ = evaluate(model, val_loader)
    scheduler.step(val_loss)
""",
    "train_loss_avg_meter": """
class AverageMeter:
    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0
    def update(self, v, n=1):
        self.sum += v * n
        self.count += n
        self.avg = self.sum / self.count

scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    losses = AverageMeter()
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), x.size(0))
    val_loss, val_acc = evaluate(model, val_loader)
    print(epoch, losses.avg, val_loss, val_acc)
    scheduler.step(losses.avg)
""",
}

CORRECT = {
    "cfg_plateau_metric": """
import argparse
p = argparse.ArgumentParser()
p.add_argument("--sched", default="plateau", choices=["plateau", "step"])
args = p.parse_args()
if args.sched == "plateau":
    scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=3)
else:
    scheduler = StepLR(optimizer, step_size=10)
for epoch in range(epochs):
    train_loss = train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    if args.sched == 'plateau':
        scheduler.step(val_loss)
    else:
        scheduler.step()
""",
    "val_method": """
class Trainer:
    def __init__(self):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = ReduceLROnPlateau(self.optimizer, patience=5)

    def train_epoch(self):
        self.model.train()
        running = 0.0
        for x, y in train_loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            running += loss.item()
        return running / len(train_loader)

    def validate(self):
        self.model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += torch.nn.functional.cross_entropy(self.model(x), y).item()
        return val_loss / len(val_loader)

    def fit(self):
        for epoch in range(epochs):
            train_loss = self.train_epoch()
            val_loss = self.validate()
            self.scheduler.step(val_loss)
            print(epoch, train_loss, val_loss)

Trainer().fit()
""",
    "max_acc": """
scheduler = ReduceLROnPlateau(optimizer, mode="max", factor=0.1, patience=5)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step(val_acc)
""",
    "max_f1": """
def f1_score(model, loader):
    return 0.5

scheduler = ReduceLROnPlateau(optimizer, mode="max", factor=0.1, patience=5)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_f1 = f1_score(model, val_loader)
    scheduler.step(val_f1)
""",
    "min_loss": """
scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, _ = evaluate(model, val_loader)
    scheduler.step(val_loss)
""",
    "wrapper_loss": """
def adjust_lr(scheduler, metric):
    scheduler.step(metric)

scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    adjust_lr(scheduler, val_loss)
""",
    "metrics_kw_loss": """
scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step(metrics=val_loss)
""",
    "train_only": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    train_loss = train_one_epoch(model, train_loader, optimizer)
    scheduler.step(train_loss)
""",
    "isinstance_guard": """
import sys
if sys.argv[1] == "plateau":
    scheduler = ReduceLROnPlateau(optimizer, patience=3)
else:
    scheduler = StepLR(optimizer, step_size=10)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    if isinstance(scheduler, ReduceLROnPlateau):
        scheduler.step(val_loss)
    else:
        scheduler.step()
""",
    "dict_metric_max_acc": """
def validate(model, loader):
    loss, acc = evaluate(model, loader)
    return {"loss": loss, "acc": acc}

scheduler = ReduceLROnPlateau(optimizer, mode="max", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    metrics = validate(model, val_loader)
    scheduler.step(metrics["acc"])
""",
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_plateau_metric_fault_is_reported(name: str) -> None:
    assert "LRD004" in codes(HEADER + BUGS[name])


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_twin_is_left_alone(name: str) -> None:
    assert "LRD004" not in codes(HEADER + CORRECT[name])


# a score under a name whose short word stands between underscores (`val_iou`, `val_map`,
# `val_r2`, `val_cer`), or an image-quality score (PSNR, SSIM): what it says about its direction
WATCHED = """
def score(model, loader):
    return 0.5

scheduler = ReduceLROnPlateau(optimizer, mode="{mode}", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    {name} = score(model, val_loader)
    scheduler.step({name})
"""

HIGHER_IS_BETTER = ["val_iou", "mean_iou", "val_map", "val_mAP", "map50", "val_r2", "val_psnr",
                    "val_ssim"]
LOWER_IS_BETTER = ["val_cer"]


@pytest.mark.parametrize("name", HIGHER_IS_BETTER)
def test_min_mode_on_a_score_is_reported(name: str) -> None:
    assert "LRD004" in codes(HEADER + WATCHED.format(mode="min", name=name))


@pytest.mark.parametrize("name", HIGHER_IS_BETTER)
def test_control_max_mode_on_a_score_is_left_alone(name: str) -> None:
    assert "LRD004" not in codes(HEADER + WATCHED.format(mode="max", name=name))


@pytest.mark.parametrize("name", LOWER_IS_BETTER)
def test_max_mode_on_an_error_rate_is_reported(name: str) -> None:
    assert "LRD004" in codes(HEADER + WATCHED.format(mode="max", name=name))


@pytest.mark.parametrize("name", [*LOWER_IS_BETTER, "val_ssim_loss", "heatmap_mse", "cancer_nll"])
def test_control_min_mode_on_a_loss_is_left_alone(name: str) -> None:
    assert "LRD004" not in codes(HEADER + WATCHED.format(mode="min", name=name))


@pytest.mark.parametrize("name", ["val_heatmap", "val_cancer"])
def test_control_short_word_inside_a_word_says_nothing(name: str) -> None:
    # `heatmap` is no mAP and `cancer` no character error rate: neither mode is judged
    for mode in ("min", "max"):
        assert "LRD004" not in codes(HEADER + WATCHED.format(mode=mode, name=name))


# the index of the epoch loop handed to a plateau's step() (the `scheduler.step(epoch)` of
# old StepLR code): step(x) reads x as the metric, and a counter only grows
EPOCH_INDEX = {
    "range_loop": """
scheduler = ReduceLROnPlateau(optimizer, mode="min", patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, val_acc = evaluate(model, val_loader)
    scheduler.step(epoch)
""",
    "max_mode": """
scheduler = ReduceLROnPlateau(optimizer, mode="max", patience=3)
for epoch in range(1, epochs + 1):
    train_one_epoch(model, train_loader, optimizer)
    scheduler.step(epoch)
""",
    "through_a_function": """
def run_epoch(model, optimizer, scheduler, epoch):
    train_one_epoch(model, train_loader, optimizer)
    scheduler.step(epoch)

scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    run_epoch(model, optimizer, scheduler, epoch)
""",
    "while_counter": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
epoch = 0
while epoch < epochs:
    epoch += 1
    train_one_epoch(model, train_loader, optimizer)
    scheduler.step(epoch)
""",
    "chosen_by_a_setting": """
import sys
if sys.argv[1] == "plateau":
    scheduler = ReduceLROnPlateau(optimizer, patience=3)
else:
    scheduler = StepLR(optimizer, step_size=10)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    scheduler.step(epoch)
""",
}

EPOCH_INDEX_CORRECT = {
    "metric_named_like_a_counter": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    epoch_loss, _ = evaluate(model, val_loader)
    scheduler.step(epoch_loss)
""",
    "index_rebound_to_the_metric": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
for i in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    i, _ = evaluate(model, val_loader)
    scheduler.step(i)
""",
    "loop_over_metrics": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
history = [0.9, 0.8, 0.85]
for val_loss in history:
    scheduler.step(val_loss)
""",
    "epoch_keyword_beside_the_metric": """
scheduler = ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    val_loss, _ = evaluate(model, val_loader)
    scheduler.step(val_loss, epoch)
""",
    "step_lr_given_the_epoch": """
scheduler = StepLR(optimizer, step_size=10)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    scheduler.step(epoch)
""",
}


@pytest.mark.parametrize("name", sorted(EPOCH_INDEX))
def test_plateau_watching_the_epoch_index_is_reported(name: str) -> None:
    found = messages(HEADER + EPOCH_INDEX[name])
    assert any(m.startswith("ReduceLROnPlateau is stepped with `epoch`, the index") for m in found)


@pytest.mark.parametrize("name", sorted(EPOCH_INDEX_CORRECT))
def test_control_plateau_given_a_metric_is_left_alone(name: str) -> None:
    assert "LRD004" not in codes(HEADER + EPOCH_INDEX_CORRECT[name])


# the metric is what a function of the module returns (`scheduler.step(validate(...))`): the
# words of its `return` say what it is
RETURNED = """
def validate(model, loader):
    model.eval()
    correct, total = 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            correct += (out.argmax(1) == y).sum().item()
            total += torch.nn.functional.cross_entropy(out, y).item()
    accuracy = 100.0 * correct / len(loader.dataset)
    val_loss = total / len(loader)
    {returns}

scheduler = ReduceLROnPlateau(optimizer, {mode}patience=3)
for epoch in range(epochs):
    train_one_epoch(model, train_loader, optimizer)
    {stepped}
"""

DIRECT = "scheduler.step(validate(model, val_loader))"
BOUND = "result = validate(model, val_loader)\n    scheduler.step(result)"


@pytest.mark.parametrize(("returns", "mode", "stepped"), [
    ("return accuracy", "", DIRECT),
    ("return accuracy", "mode='min', ", BOUND),
    ("return val_loss", "mode='max', ", DIRECT),
    # one item of the returned tuple, taken by a literal index, and a count of correct
    # predictions (both read since lead63; both were left alone as unknown before)
    ("return val_loss, accuracy", "", "scheduler.step(validate(model, val_loader)[1])"),
    ("return correct", "", DIRECT),
])
def test_mode_against_what_the_function_returns_is_reported(returns: str, mode: str,
                                                            stepped: str) -> None:
    source = HEADER + RETURNED.format(returns=returns, mode=mode, stepped=stepped)
    assert "LRD004" in codes(source)


@pytest.mark.parametrize(("returns", "mode", "stepped"), [
    ("return accuracy", "mode='max', ", DIRECT),
    ("return val_loss", "", BOUND),
    ("return val_loss, accuracy", "", "scheduler.step(validate(model, val_loader)[0])"),
    ("if accuracy > 50:\n        return val_loss\n    return accuracy", "", DIRECT),
    ("return total", "", DIRECT),
])
def test_control_mode_fitting_or_unknown_returned_metric_is_left_alone(
        returns: str, mode: str, stepped: str) -> None:
    source = HEADER + RETURNED.format(returns=returns, mode=mode, stepped=stepped)
    assert "LRD004" not in codes(source)

