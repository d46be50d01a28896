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


# -- LRD014: the optimizer rebuilt, a new scheduler built only for some settings ---------------
#
# Probed after the batch (a two-stage trainer that rebuilds its optimizer on unfreezing and
# rebuilds the scheduler only for the cosine option). lrdoctor took any scheduler built for the
# new optimizer as taking over; Python: the StepLR the other option built stays on the old
# optimizer on every run where the setting is not "cosine", which is the default here. Through
# the trainer's own factory (``self.make_scheduler()``, which picks by the same setting), the
# name after ``if cfg.scheduler == "cosine": self.scheduler = self.make_scheduler(...)`` was
# taken to hold only what the factory returned; on the path that skips the body it still holds
# the StepLR built for the old optimizer.

REBUILT_IN_A_HELPER = """
import argparse

import torch


def rebuild(model, optimizer, scheduler, kind, epochs, epoch):
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    if kind == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - epoch)
    return optimizer, scheduler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scheduler", default="step", choices=["cosine", "step"])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--unfreeze-at", type=int, default=5)
    args = parser.parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))
    for p in model[0].parameters():
        p.requires_grad = False
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    if args.scheduler == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    else:
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    for epoch in range(args.epochs):
        if epoch == args.unfreeze_at:
            for p in model[0].parameters():
                p.requires_grad = True
            optimizer, scheduler = rebuild(model, optimizer, scheduler, args.scheduler,
                                           args.epochs, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()


if __name__ == "__main__":
    main()
"""

REBUILT_FOR_EVERY_OPTION = """
import argparse

import torch


def rebuild(model, optimizer, scheduler, kind, epochs, epoch):
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    if kind == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - epoch)
    else:
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
    return optimizer, scheduler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scheduler", default="step", choices=["cosine", "step"])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--unfreeze-at", type=int, default=5)
    args = parser.parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))
    for p in model[0].parameters():
        p.requires_grad = False
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    if args.scheduler == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    else:
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    for epoch in range(args.epochs):
        if epoch == args.unfreeze_at:
            for p in model[0].parameters():
                p.requires_grad = True
            optimizer, scheduler = rebuild(model, optimizer, scheduler, args.scheduler,
                                           args.epochs, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()


if __name__ == "__main__":
    main()
"""

REBUILT_INLINE = """
import argparse

import torch


def rebuild(model, optimizer, scheduler, kind, epochs, epoch):
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    if kind == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs - epoch)
    return optimizer, scheduler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scheduler", default="step", choices=["cosine", "step"])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--unfreeze-at", type=int, default=5)
    args = parser.parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))
    for p in model[0].parameters():
        p.requires_grad = False
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    if args.scheduler == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    else:
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    for epoch in range(args.epochs):
        if epoch == args.unfreeze_at:
            for p in model[0].parameters():
                p.requires_grad = True
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            if args.scheduler == "cosine":
                scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs - epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()


if __name__ == "__main__":
    main()
"""

TRAINER_UNFREEZE = """
import torch


class Config:
    epochs = 20
    unfreeze_epoch = 3
    scheduler = "step"
    lr = 1e-3


class Trainer:
    def __init__(self, model, loader, val_loader, cfg):
        self.model = model
        self.loader = loader
        self.val_loader = val_loader
        self.cfg = cfg
        for p in model.backbone.parameters():
            p.requires_grad = False
        self.optimizer = torch.optim.Adam(model.head.parameters(), lr=cfg.lr)
        self.scheduler = self.make_scheduler(cfg.epochs)

    def make_scheduler(self, epochs):
        if self.cfg.scheduler == "cosine":
            return torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs)
        return torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=5)

    def unfreeze(self, epoch):
        for p in self.model.backbone.parameters():
            p.requires_grad = True
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.cfg.lr / 10)
        if self.cfg.scheduler == "cosine":
            self.scheduler = self.make_scheduler(self.cfg.epochs - epoch)

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            return sum(torch.nn.functional.mse_loss(self.model(x), y).item()
                       for x, y in self.val_loader)

    def fit(self):
        for epoch in range(self.cfg.epochs):
            if epoch == self.cfg.unfreeze_epoch:
                self.unfreeze(epoch)
            self.model.train()
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            val_loss = self.validate()
            if self.cfg.scheduler == "cosine":
                self.scheduler.step()
            else:
                self.scheduler.step()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.backbone(x))


if __name__ == "__main__":
    data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    Trainer(Net(), data, data, Config()).fit()
"""

TRAINER_UNFREEZE_EVERY_OPTION = """
import torch


class Config:
    epochs = 20
    unfreeze_epoch = 3
    scheduler = "step"
    lr = 1e-3


class Trainer:
    def __init__(self, model, loader, val_loader, cfg):
        self.model = model
        self.loader = loader
        self.val_loader = val_loader
        self.cfg = cfg
        for p in model.backbone.parameters():
            p.requires_grad = False
        self.optimizer = torch.optim.Adam(model.head.parameters(), lr=cfg.lr)
        self.scheduler = self.make_scheduler(cfg.epochs)

    def make_scheduler(self, epochs):
        if self.cfg.scheduler == "cosine":
            return torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs)
        return torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=5)

    def unfreeze(self, epoch):
        for p in self.model.backbone.parameters():
            p.requires_grad = True
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.cfg.lr / 10)
        self.scheduler = self.make_scheduler(self.cfg.epochs - epoch)

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            return sum(torch.nn.functional.mse_loss(self.model(x), y).item()
                       for x, y in self.val_loader)

    def fit(self):
        for epoch in range(self.cfg.epochs):
            if epoch == self.cfg.unfreeze_epoch:
                self.unfreeze(epoch)
            self.model.train()
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            val_loss = self.validate()
            if self.cfg.scheduler == "cosine":
                self.scheduler.step()
            else:
                self.scheduler.step()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.backbone(x))


if __name__ == "__main__":
    data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    Trainer(Net(), data, data, Config()).fit()
"""

PARTIAL_REBUILD = (
    '            if args.scheduler == "cosine":\n'
    "                scheduler = torch.optim.lr_scheduler.CosineAnnealingLR("
    "optimizer, T_max=args.epochs - epoch)"
)
FULL_REBUILD = (
    "            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR("
    "optimizer, T_max=args.epochs - epoch)"
)


def test_helper_rebuilds_the_optimizer_and_only_the_cosine() -> None:
    assert "LRD014" in codes(REBUILT_IN_A_HELPER)


def test_helper_rebuilds_a_scheduler_for_every_option() -> None:
    assert "LRD014" not in codes(REBUILT_FOR_EVERY_OPTION)


def test_loop_rebuilds_the_optimizer_and_only_the_cosine() -> None:
    assert PARTIAL_REBUILD in REBUILT_INLINE
    assert "LRD014" in codes(REBUILT_INLINE)


def test_loop_rebuilds_the_cosine_for_every_option() -> None:
    assert "LRD014" not in codes(REBUILT_INLINE.replace(PARTIAL_REBUILD, FULL_REBUILD))


def test_trainer_unfreeze_rebuilds_only_the_cosine_through_its_factory() -> None:
    assert "LRD014" in codes(TRAINER_UNFREEZE)


def test_trainer_unfreeze_rebuilds_through_its_factory_for_every_option() -> None:
    assert "LRD014" not in codes(TRAINER_UNFREEZE_EVERY_OPTION)


def test_trainer_unfreeze_keeps_a_plateau() -> None:
    source = TRAINER_UNFREEZE.replace(
        "torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=5)",
        "torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, patience=2)",
    ).replace("            else:\n                self.scheduler.step()",
              "            else:\n                self.scheduler.step(val_loss)")
    assert "ReduceLROnPlateau" in source and "step(val_loss)" in source
    assert "LRD014" in codes(source)


# -- LRD012: one schedule stepped per update and again per collected episode -------------------
#
# Probed after the batch (a PPO agent whose warm-up-then-cosine LambdaLR, sized in updates, is
# stepped after every minibatch update and again at the end of every collected episode). The
# two steps sit in sibling loops of one pass (the episodes collected, then the update epochs),
# neither loop inside the other, and no loop was a batch loop by its header, so lrdoctor saw no
# two levels. Python: each pass adds one step per episode to one step per update.

STEPPED_PER_EPISODE_TOO = """
import math

import torch


class Agent:
    def __init__(self, net, warmup=200, total=10000):
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=3e-4)

        def factor(update):
            if update < warmup:
                return max(update / warmup, 1e-3)
            progress = min(1.0, (update - warmup) / max(1, total - warmup))
            return 0.5 + 0.5 * math.cos(math.pi * progress)

        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, factor)
        self.buffer = []

    def collect_episode(self, env):
        obs = env.reset()
        done = False
        while not done:
            obs, reward, done = env.step(self.net(obs))
            self.buffer.append((obs, reward))
        self.lr_scheduler.step()

    def update(self, batch):
        loss = sum(self.net(o).sum() * r for o, r in batch)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)
        self.optimizer.step()
        self.lr_scheduler.step()

    def train(self, env, episodes, episodes_per_batch=8, epochs=4, minibatch=64):
        done = 0
        while done < episodes:
            self.buffer.clear()
            for _ in range(episodes_per_batch):
                self.collect_episode(env)
                done += 1
            for _ in range(epochs):
                for i in range(0, len(self.buffer), minibatch):
                    self.update(self.buffer[i:i + minibatch])
"""

STEPPED_PER_UPDATE_ONLY = """
import math

import torch


class Agent:
    def __init__(self, net, warmup=200, total=10000):
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=3e-4)

        def factor(update):
            if update < warmup:
                return max(update / warmup, 1e-3)
            progress = min(1.0, (update - warmup) / max(1, total - warmup))
            return 0.5 + 0.5 * math.cos(math.pi * progress)

        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, factor)
        self.buffer = []

    def collect_episode(self, env):
        obs = env.reset()
        done = False
        while not done:
            obs, reward, done = env.step(self.net(obs))
            self.buffer.append((obs, reward))

    def update(self, batch):
        loss = sum(self.net(o).sum() * r for o, r in batch)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)
        self.optimizer.step()
        self.lr_scheduler.step()

    def train(self, env, episodes, episodes_per_batch=8, epochs=4, minibatch=64):
        done = 0
        while done < episodes:
            self.buffer.clear()
            for _ in range(episodes_per_batch):
                self.collect_episode(env)
                done += 1
            for _ in range(epochs):
                for i in range(0, len(self.buffer), minibatch):
                    self.update(self.buffer[i:i + minibatch])
"""

EPISODE_STEP = "            self.buffer.append((obs, reward))\n        self.lr_scheduler.step()"


def test_schedule_stepped_after_updates_and_per_episode() -> None:
    assert "LRD012" in codes(STEPPED_PER_EPISODE_TOO)


def test_schedule_stepped_after_updates_only() -> None:
    assert "LRD012" not in codes(STEPPED_PER_UPDATE_ONLY)


def test_episode_step_under_a_test_of_its_own() -> None:
    source = STEPPED_PER_EPISODE_TOO.replace(
        EPISODE_STEP,
        "            self.buffer.append((obs, reward))\n        if self.warming:\n"
        "            self.lr_scheduler.step()",
    ).replace("        self.buffer = []\n", "        self.buffer = []\n        self.warming = False\n")
    assert "if self.warming:" in source
    assert "LRD012" not in codes(source)


def test_episode_loop_that_also_updates_is_no_extra_step() -> None:
    # each collected episode makes an update of its own before the step
    source = STEPPED_PER_EPISODE_TOO.replace(
        EPISODE_STEP,
        "            self.buffer.append((obs, reward))\n        self.update(self.buffer[-8:])",
    )
    assert "self.update(self.buffer[-8:])" in source
    assert "LRD012" not in codes(source)


# -- LRD007: ``vars()`` of a checkpoint object whose ``__init__`` drops the scheduler ---------
#
# Probed after the batch (checkpoints built from dicts, dataclasses and ``vars()``). For
# ``torch.save(vars(State(model, optimizer, scheduler)))`` lrdoctor read the words of every
# argument of the constructor as saved, the scheduler's among them; Python: ``vars()`` holds
# the attributes the ``__init__`` assigns, and this one stores the model's and the optimizer's
# state only.

VARS_OF_A_STATE_OBJECT = """
import torch


class State:
    def __init__(self, model, optimizer, scheduler):
        self.model = model.state_dict()
        self.optimizer = optimizer.state_dict()
        self.epoch = 0


def train(epochs=50):
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[20, 40])
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        state = State(model, optimizer, scheduler)
        state.epoch = epoch
        torch.save(vars(state), "ckpt.pt")


if __name__ == "__main__":
    train()
"""


def test_vars_of_an_object_that_never_stores_the_scheduler() -> None:
    assert "LRD007" in codes(VARS_OF_A_STATE_OBJECT)


def test_vars_of_an_object_that_stores_the_scheduler_state() -> None:
    source = VARS_OF_A_STATE_OBJECT.replace(
        "        self.epoch = 0",
        "        self.scheduler = scheduler.state_dict()\n        self.epoch = 0")
    assert "self.scheduler = scheduler.state_dict()" in source
    assert "LRD007" not in codes(source)


def test_vars_of_an_object_built_with_keyword_arguments() -> None:
    source = VARS_OF_A_STATE_OBJECT.replace(
        "State(model, optimizer, scheduler)",
        "State(model=model, optimizer=optimizer, scheduler=scheduler)")
    assert "LRD007" in codes(source)
