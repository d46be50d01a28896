"""Shapes met in the fresh-2026-12zzo114 batch of real code (issue 7), written in our own words.

The batch drew optimizers and schedulers whose lifetimes may drift apart: optimizers rebuilt
per pruning round, per active-learning cycle, per class-incremental task, after the model grows
or after layers are unfrozen. Two false alarms on its dev cases, and two shapes found while
probing the family beyond them:

- A lottery-ticket trainer wraps its scheduler in a class that picks StepLR, a cosine, a
  CyclicLR or a ReduceLROnPlateau by a setting, sets ``self.use_metric = False`` first and
  ``= True`` only on the plateau's arm, and steps ``if self.use_metric:
  self.scheduler.step(metric) else: self.scheduler.step()``. The metric was read as a
  deprecated epoch argument handed to the StepLR option (a false LRD006): on the arms that
  build the other classes the flag keeps its first value, so that call never runs with them.
- A lottery-ticket experiment reads its StepLR's ``step_size`` from a preset dictionary,
  ``presets.SHUFFLENET["lr_step_size"]`` (1), through a runner class's constructor. The key
  says only "step", as StepLR's own word does; the unit was then taken from the dictionary's
  name, whose letters happen to hold "len" (a false LRD003). A mapping read by the key that
  names one setting takes no unit from its own name.
- Probing: a scheduler built in a loop only while its own name is unset (``if scheduler is
  None:``) over an optimizer the loop builds anew every pass drives a dropped optimizer from
  the second pass on (LRD014, missed: the trace follows one pass, where the two are built
  together).
- Probing: ``scheduler.optimizer = new_opt`` stored before ``optimizer = new_opt`` re-points
  the scheduler to the optimizer being stepped (a false LRD014: only stores after the rebind
  counted).

The other programs below are the family's spellings that lrdoctor already read right (kept as
regression guards): optimizers rebuilt after unfreezing, per fold, per stage, per pruning round,
in a trainer's method or a subclass hook, with the scheduler rebuilt beside them or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, codes, messages, project_codes

# -- a flag set only beside the plateau's build (LRD006) ----------------------------------

FLAG_ONLY_ON_PLATEAU_ARM = '''
import argparse
import torch
from torch.optim.lr_scheduler import StepLR, ReduceLROnPlateau, CosineAnnealingLR


class LRPolicy:
    def __init__(self, optimizer, kind, epochs):
        self.needs_metric = False
        self.optimizer = optimizer
        if kind == "step":
            self.inner = StepLR(optimizer, step_size=30, gamma=0.1)
        elif kind == "plateau":
            self.inner = ReduceLROnPlateau(optimizer, "min", patience=5)
            self.needs_metric = True
        elif kind == "cosine":
            self.inner = CosineAnnealingLR(optimizer, T_max=epochs)
        else:
            self.inner = None

    def advance(self, metric=None):
        if self.inner is None:
            return
        if self.needs_metric:
            self.inner.step(metric)
        else:
            self.inner.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sched", default="step", choices=["step", "plateau", "cosine", "none"])
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    policy = LRPolicy(opt, args.sched, args.epochs)
    data = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))]
    for epoch in range(args.epochs):
        for x, y in data:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        with torch.no_grad():
            val = sum(torch.nn.functional.cross_entropy(model(x), y).item() for x, y in data)
        policy.advance(val)


if __name__ == "__main__":
    main()
'''

FLAG_SET_AFTER_THE_CHAIN = '''
import argparse
import torch
from torch.optim.lr_scheduler import StepLR, ReduceLROnPlateau


class LRPolicy:
    def __init__(self, optimizer, kind):
        self.needs_metric = False
        if kind == "step":
            self.inner = StepLR(optimizer, step_size=30, gamma=0.1)
        else:
            self.inner = ReduceLROnPlateau(optimizer, "min", patience=5)
        self.needs_metric = True

    def advance(self, metric=None):
        if self.needs_metric:
            self.inner.step(metric)
        else:
            self.inner.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sched", default="step")
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    policy = LRPolicy(opt, args.sched)
    for epoch in range(90):
        opt.zero_grad()
        loss = model(torch.randn(8, 4)).pow(2).mean()
        loss.backward()
        opt.step()
        policy.advance(loss.item())


if __name__ == "__main__":
    main()
'''

FLAG_SET_ON_STEPLR_ARM = '''
import argparse
import torch
from torch.optim.lr_scheduler import StepLR, ReduceLROnPlateau


class LRPolicy:
    def __init__(self, optimizer, kind):
        self.needs_metric = False
        if kind == "step":
            self.inner = StepLR(optimizer, step_size=30, gamma=0.1)
            self.needs_metric = True
        else:
            self.inner = ReduceLROnPlateau(optimizer, "min", patience=5)
            self.needs_metric = True

    def advance(self, metric=None):
        if self.needs_metric:
            self.inner.step(metric)
        else:
            self.inner.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sched", default="step")
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    policy = LRPolicy(opt, args.sched)
    for epoch in range(90):
        opt.zero_grad()
        loss = model(torch.randn(8, 4)).pow(2).mean()
        loss.backward()
        opt.step()
        policy.advance(loss.item())


if __name__ == "__main__":
    main()
'''

NO_FLAG = '''
import argparse
import torch
from torch.optim.lr_scheduler import StepLR, ReduceLROnPlateau, CosineAnnealingLR


class LRPolicy:
    def __init__(self, optimizer, kind, epochs):
        self.needs_metric = False
        self.optimizer = optimizer
        if kind == "step":
            self.inner = StepLR(optimizer, step_size=30, gamma=0.1)
        elif kind == "plateau":
            self.inner = ReduceLROnPlateau(optimizer, "min", patience=5)
            self.needs_metric = True
        elif kind == "cosine":
            self.inner = CosineAnnealingLR(optimizer, T_max=epochs)
        else:
            self.inner = None

    def advance(self, metric=None):
        if self.inner is None:
            return
        self.inner.step(metric)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sched", default="step", choices=["step", "plateau", "cosine", "none"])
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    policy = LRPolicy(opt, args.sched, args.epochs)
    data = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))]
    for epoch in range(args.epochs):
        for x, y in data:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        with torch.no_grad():
            val = sum(torch.nn.functional.cross_entropy(model(x), y).item() for x, y in data)
        policy.advance(val)


if __name__ == "__main__":
    main()
'''


def test_step_under_a_flag_set_only_on_the_plateau_arm_hands_no_epoch() -> None:
    assert "LRD006" not in codes(FLAG_ONLY_ON_PLATEAU_ARM)


def test_flag_set_after_the_whole_chain_still_reports() -> None:
    # set True on every path: the StepLR option reaches `step(metric)`
    assert "LRD006" in codes(FLAG_SET_AFTER_THE_CHAIN)


def test_flag_set_on_the_steplr_arm_too_still_reports() -> None:
    assert "LRD006" in codes(FLAG_SET_ON_STEPLR_ARM)


def test_metric_handed_without_a_flag_still_reports() -> None:
    found = messages(NO_FLAG)
    assert any("LRD006" in m or "epoch position" in m for m in found)
    assert "LRD006" in codes(NO_FLAG)


# -- a preset mapping's name is no unit of its items (LRD003) ------------------------------

PRESETS_STEP = '''
# A file which stores common hyper parameter presents for convenience.

SHUFFLENET = {
    'input_size': 32 * 32 * 3,
    'learning_rate': 2e-4,
    'lr_step_size': 1,
    'lr_step_gamma': 1.1,  # Yes, increase the learning rate
    'decay_lr': True,
    'epochs': 30,
}
'''

PRESETS_ITERS = '''
# A file which stores common hyper parameter presents for convenience.

SHUFFLENET = {
    'input_size': 32 * 32 * 3,
    'learning_rate': 2e-4,
    'decay_iters': 2000,
    'lr_step_gamma': 1.1,  # Yes, increase the learning rate
    'decay_lr': True,
    'epochs': 30,
}
'''

RUNNER = '''
import torch
from torch import nn


class BaseRunner:
    def __init__(self, model, num_epochs=10, learning_rate=1e-3):
        self.model = model
        self.num_epochs = num_epochs
        self.learning_rate = learning_rate


class Runner(BaseRunner):
    def __init__(self, *args, should_decay_lr=False, lr_step_size=0, lr_step_gamma=0.1, **kwargs):
        self.should_decay_lr = should_decay_lr
        self.lr_step_size = lr_step_size
        self.lr_step_gamma = lr_step_gamma
        super(Runner, self).__init__(*args, **kwargs)

    def train(self, loader):
        criterion = nn.CrossEntropyLoss()
        optimizer = torch.optim.Adam(self.model.parameters(), lr=self.learning_rate)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=self.lr_step_size,
                                                    gamma=self.lr_step_gamma)
        for epoch in range(self.num_epochs):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(self.model(x), y)
                loss.backward()
                optimizer.step()
            if self.should_decay_lr and epoch < 20:
                scheduler.step()
'''

MAIN_STEP = '''
import torch
import presets
from runner import Runner


def run():
    lr_step_size = presets.SHUFFLENET['lr_step_size']
    lr_step_gamma = presets.SHUFFLENET['lr_step_gamma']
    model = torch.nn.Linear(4, 2)
    loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))]
    runner = Runner(model, num_epochs=presets.SHUFFLENET['epochs'],
                    learning_rate=presets.SHUFFLENET['learning_rate'],
                    should_decay_lr=presets.SHUFFLENET['decay_lr'],
                    lr_step_size=lr_step_size, lr_step_gamma=lr_step_gamma)
    runner.train(loader)


if __name__ == "__main__":
    run()
'''

MAIN_ITERS = '''
import torch
import presets
from runner import Runner


def run():
    lr_step_size = presets.SHUFFLENET['decay_iters']
    lr_step_gamma = presets.SHUFFLENET['lr_step_gamma']
    model = torch.nn.Linear(4, 2)
    loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))]
    runner = Runner(model, num_epochs=presets.SHUFFLENET['epochs'],
                    learning_rate=presets.SHUFFLENET['learning_rate'],
                    should_decay_lr=presets.SHUFFLENET['decay_lr'],
                    lr_step_size=lr_step_size, lr_step_gamma=lr_step_gamma)
    runner.train(loader)


if __name__ == "__main__":
    run()
'''


def test_step_size_read_from_a_preset_by_its_key_is_not_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "presets.py": PRESETS_STEP, "runner.py": RUNNER, "main.py": MAIN_STEP})
    assert "LRD003" not in project_codes(found)


def test_a_key_that_names_iterations_still_counts_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "presets.py": PRESETS_ITERS, "runner.py": RUNNER, "main.py": MAIN_ITERS})
    assert "LRD003" in project_codes(found)


# -- a scheduler built on the first pass only (LRD014) ---------------------------------------

FIRST_PASS_ONLY = '''
import torch
from torch import nn


def run(model, loader, stages=(1e-2, 1e-3, 1e-4), epochs=10):
    scheduler = None
    for lr in stages:
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        if scheduler is None:
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

LAZY_SCHEDULER_ONE_OPTIMIZER = '''
import torch
from torch import nn


def run(model, loader, stages=(1e-2, 1e-3, 1e-4), epochs=10):
    scheduler = None
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for lr in stages:
        if scheduler is None:
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

LAZY_BOTH = '''
import torch
from torch import nn


def run(model, loader, stages=(1e-2, 1e-3, 1e-4), epochs=10):
    scheduler = None
    optimizer = None
    for lr in stages:
        if optimizer is None:
            optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        if scheduler is None:
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

LAZY_SELF_SCHEDULER_PER_STAGE = '''
import torch
from torch import nn


class Trainer:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = None
        self.scheduler = None

    def run_stage(self, lr, epochs):
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        if self.scheduler is None:
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs)
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()

    def fit(self, stages):
        for lr, epochs in stages:
            self.run_stage(lr, epochs)


if __name__ == "__main__":
    Trainer(nn.Linear(8, 2), [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]).fit([(1e-3, 5), (1e-4, 5)])
'''


def test_scheduler_built_only_on_the_first_pass_goes_stale() -> None:
    assert codes(FIRST_PASS_ONLY) == ["LRD014"]
    assert "first pass" in messages(FIRST_PASS_ONLY)[0]


def test_lazy_scheduler_over_one_optimizer_is_silent() -> None:
    assert codes(LAZY_SCHEDULER_ONE_OPTIMIZER) == []


def test_lazy_optimizer_and_scheduler_is_silent() -> None:
    assert codes(LAZY_BOTH) == []


def test_lazy_scheduler_in_a_stage_method_goes_stale() -> None:
    assert "LRD014" in codes(LAZY_SELF_SCHEDULER_PER_STAGE)


# -- re-pointing the scheduler before the rebind (LRD014) -----------------------------------

REPOINTED_BEFORE_REBIND = '''
import torch
from torch import nn


def run(model, loader, epochs=20, unfreeze_at=5):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5)
    for epoch in range(epochs):
        if epoch == unfreeze_at:
            new_optimizer = torch.optim.SGD(model.parameters(), lr=optimizer.param_groups[0]["lr"])
            scheduler.optimizer = new_optimizer
            optimizer = new_optimizer
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
'''

OLD_STORED_BEFORE_REBIND = '''
import torch
from torch import nn


def run(model, loader, epochs=20, unfreeze_at=5):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5)
    for epoch in range(epochs):
        if epoch == unfreeze_at:
            scheduler.optimizer = optimizer
            optimizer = torch.optim.SGD(model.parameters(), lr=optimizer.param_groups[0]["lr"])
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
'''


def test_new_optimizer_stored_into_the_scheduler_before_the_rebind_is_silent() -> None:
    assert codes(REPOINTED_BEFORE_REBIND) == []


def test_old_optimizer_stored_before_the_rebind_still_goes_stale() -> None:
    assert codes(OLD_STORED_BEFORE_REBIND) == ["LRD014"]


# -- the family's spellings lrdoctor already reads right ------------------------------------

UNFREEZE_KEEPS_SCHEDULER = '''
import torch
from torch import nn


def run(loader, epochs=20, unfreeze_at=5):
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    for p in model[0].parameters():
        p.requires_grad = False
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        if epoch == unfreeze_at:
            for p in model[0].parameters():
                p.requires_grad = True
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
'''

UNFREEZE_REBUILDS_BOTH = '''
import torch
from torch import nn


def run(loader, epochs=20, unfreeze_at=5):
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    for p in model[0].parameters():
        p.requires_grad = False
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        if epoch == unfreeze_at:
            for p in model[0].parameters():
                p.requires_grad = True
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - epoch)
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
'''

TRAINER_REPLACES_OPTIMIZER = '''
import torch
from torch import nn


class Trainer:
    def __init__(self, model, loader, epochs=30, unfreeze_at=10):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.unfreeze_at = unfreeze_at
        self.model.backbone.requires_grad_(False)
        self.optimizer = torch.optim.SGD(self.model.head.parameters(), lr=0.01, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10, gamma=0.1)

    def unfreeze(self):
        self.model.backbone.requires_grad_(True)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.001, momentum=0.9)

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def fit(self):
        for epoch in range(self.epochs):
            if epoch == self.unfreeze_at:
                self.unfreeze()
            self.train_epoch()
            self.scheduler.step()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


if __name__ == "__main__":
    data = [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]
    Trainer(Net(), data).fit()
'''

TRAINER_REBUILDS_BOTH = '''
import torch
from torch import nn


class Trainer:
    def __init__(self, model, loader, epochs=30, unfreeze_at=10):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.unfreeze_at = unfreeze_at
        self.model.backbone.requires_grad_(False)
        self._build(self.model.head.parameters(), 0.01)

    def _build(self, params, lr):
        self.optimizer = torch.optim.SGD(params, lr=lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10, gamma=0.1)

    def unfreeze(self):
        self.model.backbone.requires_grad_(True)
        self._build(self.model.parameters(), 0.001)

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def fit(self):
        for epoch in range(self.epochs):
            if epoch == self.unfreeze_at:
                self.unfreeze()
            self.train_epoch()
            self.scheduler.step()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


if __name__ == "__main__":
    data = [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]
    Trainer(Net(), data).fit()
'''

SUBCLASS_HOOK_REPLACES_OPTIMIZER = '''
import torch
from torch import nn


class BaseTrainer:
    def __init__(self, model, loader, epochs=12):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=4)

    def on_epoch(self, epoch):
        pass

    def fit(self):
        for epoch in range(self.epochs):
            self.on_epoch(epoch)
            for x, y in self.loader:
                self.optimizer.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()


class FinetuneTrainer(BaseTrainer):
    def on_epoch(self, epoch):
        if epoch == 3:
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)


if __name__ == "__main__":
    FinetuneTrainer(nn.Linear(8, 2), [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]).fit()
'''

SUBCLASS_HOOK_REPLACES_BOTH = '''
import torch
from torch import nn


class BaseTrainer:
    def __init__(self, model, loader, epochs=12):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=4)

    def on_epoch(self, epoch):
        pass

    def fit(self):
        for epoch in range(self.epochs):
            self.on_epoch(epoch)
            for x, y in self.loader:
                self.optimizer.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()


class FinetuneTrainer(BaseTrainer):
    def on_epoch(self, epoch):
        if epoch == 3:
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)
            self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=4)


if __name__ == "__main__":
    FinetuneTrainer(nn.Linear(8, 2), [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]).fit()
'''

FOLD_SCHEDULER_OUTSIDE = '''
import torch
from torch import nn


def make_model():
    return nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def run(folds, epochs=10):
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for fold, (train_loader, val_loader) in enumerate(folds):
        model = make_model()
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        for epoch in range(epochs):
            for x, y in train_loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

FOLD_BOTH_INSIDE = '''
import torch
from torch import nn


def make_model():
    return nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def run(folds, epochs=10):
    for fold, (train_loader, val_loader) in enumerate(folds):
        model = make_model()
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
        for epoch in range(epochs):
            for x, y in train_loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

PRUNE_ROUNDS_OLD_SCHEDULER = '''
import copy
import torch
from torch import nn


def prune(model, amount):
    pruned = copy.deepcopy(model)
    with torch.no_grad():
        for p in pruned.parameters():
            p.mul_((p.abs() > p.abs().quantile(amount)).float())
    return pruned


def run(model, loader, rounds=5, epochs=8):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3)
    for r in range(rounds):
        model = prune(model, 0.2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

WRAPPER_BUILT_ONCE = '''
import torch
from torch import nn


class LRSchedule:
    def __init__(self, optimizer, epochs):
        self.optimizer = optimizer
        self.inner = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    def step(self):
        self.inner.step()


def run(model, loader, rounds=4, epochs=10):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    schedule = LRSchedule(optimizer, epochs)
    for r in range(rounds):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            schedule.step()
'''

WRAPPER_PER_ROUND = '''
import torch
from torch import nn


class LRSchedule:
    def __init__(self, optimizer, epochs):
        self.optimizer = optimizer
        self.inner = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    def step(self):
        self.inner.step()


def run(model, loader, rounds=4, epochs=10):
    for r in range(rounds):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        schedule = LRSchedule(optimizer, epochs)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            schedule.step()
'''

STAGE_HELPER_RETURNS_BOTH = '''
import torch
from torch import nn


def make_optimizer(model, stage):
    lr = 1e-3 if stage == 0 else 1e-4
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    return opt, torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[5, 8], gamma=0.1)


def run(model, loader, stages=3, epochs_per_stage=10):
    for stage in range(stages):
        optimizer, scheduler = make_optimizer(model, stage)
        for epoch in range(epochs_per_stage):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
'''

PROGRESSIVE_ONECYCLE_OPTIMIZER_REBUILT = '''
import torch
from torch import nn


def loader_for(size):
    return [(torch.randn(4, 3 * size), torch.randint(0, 2, (4,)))]


def run(model, sizes=(8, 8, 8), epochs_per=5):
    steps = sum(len(loader_for(s)) * epochs_per for s in sizes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=steps)
    for size in sizes:
        loader = loader_for(size)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(epochs_per):
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
                scheduler.step()
'''

RESUME_REBUILDS_OPTIMIZER = '''
import torch
from torch import nn


def main(resume, epochs=100):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    start = 0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start = ckpt["epoch"]
    data = [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]
    for epoch in range(start, epochs):
        for x, y in data:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, "ckpt.pt")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''

RESUME_RESTORES_OPTIMIZER_ONLY = '''
import torch
from torch import nn


def main(resume, epochs=100):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    start = 0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start = ckpt["epoch"]
    data = [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]
    for epoch in range(start, epochs):
        for x, y in data:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, "ckpt.pt")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''

RESUME_RESTORES_BOTH = '''
import torch
from torch import nn


def main(resume, epochs=100):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    start = 0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start = ckpt["epoch"]
    data = [(torch.randn(4, 8), torch.randint(0, 2, (4,)))]
    for epoch in range(start, epochs):
        for x, y in data:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, "ckpt.pt")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''


@pytest.mark.parametrize("source, expected", [
    (UNFREEZE_KEEPS_SCHEDULER, ['LRD014']),
    (UNFREEZE_REBUILDS_BOTH, []),
    (TRAINER_REPLACES_OPTIMIZER, ['LRD014']),
    (TRAINER_REBUILDS_BOTH, []),
    (SUBCLASS_HOOK_REPLACES_OPTIMIZER, ['LRD014']),
    (SUBCLASS_HOOK_REPLACES_BOTH, []),
    (FOLD_SCHEDULER_OUTSIDE, ['LRD014']),
    (FOLD_BOTH_INSIDE, []),
    (PRUNE_ROUNDS_OLD_SCHEDULER, ['LRD014']),
    (WRAPPER_BUILT_ONCE, ['LRD014']),
    (WRAPPER_PER_ROUND, []),
    (STAGE_HELPER_RETURNS_BOTH, []),
    (PROGRESSIVE_ONECYCLE_OPTIMIZER_REBUILT, ['LRD014']),
    (RESUME_REBUILDS_OPTIMIZER, ['LRD014']),
    (RESUME_RESTORES_OPTIMIZER_ONLY, ['LRD007']),
    (RESUME_RESTORES_BOTH, []),
])
def test_family_spellings(source: str, expected: list[str]) -> None:
    assert codes(source) == expected
