"""Shapes seen in the fresh-2026-12zz99 batch (rcnew99, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A class picked by its name from the module's globals: ``from torch.optim.lr_scheduler
  import *`` (or named imports) and then ``globals()[cfg["scheduler"]](optimizer, ...)``, or
  ``optim=globals()[args.optimizer]`` handed to a trainer. Python's ``globals()`` is the
  mapping of the module's global names, so with a name known here (a literal, a setting
  holding one, an argparse default) the entry is that global: the imported torch class.
  lrdoctor did not follow the subscript, so the scheduler built this way was unknown and
  nothing was judged about it. It now reads ``globals()[name]`` as the global ``name``
  (unless the module writes into ``globals()``, or the function has a local of that name).
- Other shapes of the batch (graph, molecule, protein, weather, traffic and forecasting
  trainers, a federated-learning client, a PPO loop): lrdoctor already followed them; the
  tests keep it so, each with a correct twin that must stay silent.
"""

from __future__ import annotations

from .helpers import codes

# -- globals()[name] ------------------------------------------------------------------------

BY_NAME_STAR = '''
import torch
from torch.optim.lr_scheduler import *  # noqa: F403

SETTINGS = {"scheduler": "OneCycleLR", "epochs": 40}


def fit(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = globals()[SETTINGS["scheduler"]](opt, max_lr=1e-3, epochs=SETTINGS["epochs"],
                                            steps_per_epoch=len(loader))
    for epoch in range(SETTINGS["epochs"]):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
'''


def test_scheduler_class_from_globals_stepped_per_epoch_is_found() -> None:
    assert codes(BY_NAME_STAR) == ["LRD003"]


def test_scheduler_class_from_globals_stepped_per_batch_is_silent() -> None:
    source = BY_NAME_STAR.replace(
        "            opt.step()\n        sched.step()\n",
        "            opt.step()\n            sched.step()\n")
    assert source != BY_NAME_STAR
    assert codes(source) == []


BY_NAME_ARGPARSE = '''
import argparse
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, OneCycleLR  # noqa: F401

parser = argparse.ArgumentParser()
parser.add_argument("--sched", default="OneCycleLR")
parser.add_argument("--epochs", type=int, default=25)
args = parser.parse_args()


def main(net, batches):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    make = globals()[args.sched]
    schedule = make(optimizer, max_lr=0.05, total_steps=args.epochs * len(batches))
    for epoch in range(args.epochs):
        for inputs, targets in batches:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(net(inputs), targets).backward()
            optimizer.step()
        schedule.step()
'''


def test_class_from_globals_held_in_a_variable_is_found() -> None:
    assert codes(BY_NAME_ARGPARSE) == ["LRD003"]


def test_class_from_globals_held_in_a_variable_per_batch_is_silent() -> None:
    source = BY_NAME_ARGPARSE.replace(
        "            optimizer.step()\n        schedule.step()\n",
        "            optimizer.step()\n            schedule.step()\n")
    assert source != BY_NAME_ARGPARSE
    assert codes(source) == []


BY_NAME_TRAINER = '''
import torch
from torch.optim import *  # noqa: F403
from torch.optim.lr_scheduler import *  # noqa: F403


class Runner:
    def __init__(self, net, optim, sched_name, sched_kwargs):
        self.net = net
        self.optim = optim(net.parameters(), lr=1e-3)
        self.sched = globals()[sched_name](self.optim, **sched_kwargs)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                loss = torch.nn.functional.l1_loss(self.net(x), y)
                loss.backward()
                self.optim.step()
                self.optim.zero_grad()
                self.sched.step()


def main(net, loader):
    runner = Runner(net, globals()["Adam"], "StepLR", {"step_size": 30, "gamma": 0.1})
    runner.fit(loader, 100)
'''


def test_optimizer_and_scheduler_from_globals_through_a_trainer_is_found() -> None:
    assert codes(BY_NAME_TRAINER) == ["LRD002"]


def test_optimizer_and_scheduler_from_globals_per_epoch_is_silent() -> None:
    source = BY_NAME_TRAINER.replace(
        "                self.optim.zero_grad()\n                self.sched.step()\n",
        "                self.optim.zero_grad()\n            self.sched.step()\n")
    assert source != BY_NAME_TRAINER
    assert codes(source) == []


def test_globals_written_by_the_module_is_not_followed() -> None:
    # the module puts its own entries into globals(): the name may hold something else
    source = BY_NAME_STAR.replace(
        'SETTINGS = {"scheduler": "OneCycleLR", "epochs": 40}\n',
        'SETTINGS = {"scheduler": "OneCycleLR", "epochs": 40}\n'
        'globals().update(load_plugins())\n')
    assert source != BY_NAME_STAR
    assert "LRD003" not in codes(source)


def test_globals_with_a_name_not_known_is_not_guessed() -> None:
    source = BY_NAME_STAR.replace('globals()[SETTINGS["scheduler"]]',
                                  'globals()[read_setting("scheduler")]')
    assert source != BY_NAME_STAR
    assert "LRD003" not in codes(source)


# -- shapes lrdoctor already followed ----------------------------------------------------------

CLIENT_REBUILDS_OPTIMIZER = '''
import torch


class Client:
    def __init__(self, model, loader, lr):
        self.model = model
        self.loader = loader
        self.lr = lr
        self.opt = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.sched = torch.optim.lr_scheduler.ExponentialLR(self.opt, gamma=0.98)

    def local_update(self, local_epochs):
        self.opt = torch.optim.SGD(self.model.parameters(), lr=self.lr, momentum=0.9)
        for _ in range(local_epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.opt.step()
        self.sched.step()


def simulate(clients, rounds):
    for _ in range(rounds):
        for client in clients:
            client.local_update(2)
'''


def test_federated_client_rebuilding_its_optimizer_each_round_is_found() -> None:
    assert codes(CLIENT_REBUILDS_OPTIMIZER) == ["LRD014"]


def test_federated_client_keeping_its_optimizer_is_silent() -> None:
    source = CLIENT_REBUILDS_OPTIMIZER.replace(
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=self.lr, momentum=0.9)\n",
        "")
    assert source != CLIENT_REBUILDS_OPTIMIZER
    assert codes(source) == []


PPO_LINEAR_DECAY = '''
import torch


def learn(agent, envs, num_updates, ppo_epochs=4, n_minibatches=4):
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda u: 1.0 - u / num_updates)
    for update in range(num_updates):
        rollout = agent.collect(envs)
        for _ in range(ppo_epochs):
            for mb in rollout.minibatches(n_minibatches):
                loss = agent.loss(mb)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
                decay.step()
'''


def test_ppo_linear_decay_stepped_per_minibatch_is_found() -> None:
    assert codes(PPO_LINEAR_DECAY) == ["LRD002"]


def test_ppo_linear_decay_stepped_per_update_is_silent() -> None:
    source = PPO_LINEAR_DECAY.replace("                decay.step()\n",
                                      "        decay.step()\n")
    assert source != PPO_LINEAR_DECAY
    assert codes(source) == []


NOAM_UNDER_AMP = '''
import torch


class Noam:
    def __init__(self, d_model, warmup, optimizer):
        self.optimizer = optimizer
        self.d_model = d_model
        self.warmup = warmup
        self._step = 0

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    def step(self):
        self._step += 1
        rate = self.d_model ** -0.5 * min(self._step ** -0.5, self._step * self.warmup ** -1.5)
        for group in self.optimizer.param_groups:
            group["lr"] = rate
        self.optimizer.step()

    def zero_grad(self):
        self.optimizer.zero_grad()


def train(model, loader, epochs, max_norm):
    scaler = torch.amp.GradScaler("cuda")
    optimizer = Noam(128, 4000, torch.optim.Adam(model.parameters(), lr=0, eps=1e-9))
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(x, y)
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
'''


def test_noam_wrapper_clipped_on_scaled_gradients_is_found() -> None:
    assert codes(NOAM_UNDER_AMP) == ["LRD108"]


def test_noam_wrapper_unscaled_before_clipping_is_silent() -> None:
    source = NOAM_UNDER_AMP.replace(
        "            torch.nn.utils.clip_grad_norm_",
        "            scaler.unscale_(optimizer)\n            torch.nn.utils.clip_grad_norm_")
    assert source != NOAM_UNDER_AMP
    assert codes(source) == []


def test_data_normaliser_called_scaler_is_not_a_grad_scaler() -> None:
    source = '''
import torch
from sklearn.preprocessing import StandardScaler


def fit(model, loader, epochs, targets):
    scaler = StandardScaler().fit(targets)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[20, 40])
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.l1_loss(model(x), torch.as_tensor(scaler.transform(y)))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        scheduler.step()
    torch.save({"model": model.state_dict(), "mean": scaler.mean_}, "best.pt")
'''
    assert codes(source) == []


def test_full_batch_graph_training_one_cycle_per_epoch_is_silent() -> None:
    # one optimizer step per epoch on the whole graph: per epoch is per update
    source = '''
import torch
import torch.nn.functional as F


def run(model, data, epochs=200):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=epochs)
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        out = model(data.x, data.edge_index)
        loss = F.cross_entropy(out[data.train_mask], data.y[data.train_mask])
        loss.backward()
        optimizer.step()
        scheduler.step()
'''
    assert codes(source) == []


def test_warm_up_per_batch_then_plateau_per_epoch_either_or_is_silent() -> None:
    source = '''
import torch


def fit(model, train_loader, val_loader, epochs, warmup_steps=700):
    opt = torch.optim.Adam(model.parameters(), lr=8e-5)
    warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warmup_steps)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=25)
    steps = 0
    for epoch in range(epochs):
        for batch in train_loader:
            loss = model(batch)
            loss.backward()
            opt.step()
            opt.zero_grad()
            steps += 1
            if steps <= warmup_steps:
                warmup.step()
        with torch.no_grad():
            val = sum(model(b).item() for b in val_loader) / len(val_loader)
        if steps > warmup_steps:
            plateau.step(val)
'''
    assert codes(source) == []


def test_plateau_on_training_loss_beside_validation_error_is_found() -> None:
    source = '''
import torch


def train(model, loader, optimizer):
    total = 0.0
    for data in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(data), data.y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def test(model, loader):
    with torch.no_grad():
        return sum((model(d) - d.y).abs().sum().item() for d in loader) / len(loader.dataset)


def main(model, train_loader, val_loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.7)
    for epoch in range(1, 301):
        lr = scheduler.optimizer.param_groups[0]["lr"]
        loss = train(model, train_loader, optimizer)
        val_error = test(model, val_loader)
        scheduler.step(loss)
        print(epoch, lr, loss, val_error)
'''
    assert codes(source) == ["LRD004"]
    assert codes(source.replace("scheduler.step(loss)", "scheduler.step(val_error)")) == []


def test_step_with_epoch_at_the_top_of_the_epoch_is_found() -> None:
    source = '''
import torch


def main(model, loader, epochs, step, gamma):
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=step, gamma=gamma)
    for epoch in range(epochs):
        scheduler.step(epoch=epoch)
        for seq, target in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(seq), target).backward()
            optimizer.step()
'''
    assert codes(source) == ["LRD006"]


def test_fractional_epoch_of_warm_restarts_is_silent() -> None:
    source = '''
import torch


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10, T_mult=2)
    iters = len(loader)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            scheduler.step(epoch + i / iters)
'''
    assert codes(source) == []
