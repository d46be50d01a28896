"""Shapes seen in the fresh-2026-12zw96 batch (rcnew96, bench/realcode/README.md): several
optimizers and optimizer lifetime.

Programs written for these tests; no third-party code.

The batch's real code (a two-phase fine-tuner that rebuilds its optimizer in a method while
the scheduler built on the first one is never stepped; a Lightning GAN with one scheduler
per optimizer at interval "step"; a detection trainer whose scheduler wraps the first of a
tuple of optimizers, stepped every iteration while a phase steps only the second; GANs and
actor-critic agents with several optimizers) was already read right at first sight. These
tests keep the spellings of the family lrdoctor follows, each bug with a correct twin that
must stay silent: an optimizer rebuilt in a method or a phase loop with the old scheduler
still stepped (LRD014), a delayed actor or a generator updated every n-th batch under a
scheduler stepped every batch (LRD017), a warm-up or decay stepped through a phase in which
its optimizer does not step (LRD001).

One miss, fixed: a scheduler built on the teacher's optimizer and stepped through the
student's stage of a distillation. The teacher's optimizer still exists and was stepped in
the first stage, so it is neither rebound (LRD014's rebuild reading) nor never updated (its
reading of an optimizer nothing steps); Python runs the student's epochs with ``t_opt``
never stepped again, so the schedule moves an LR nothing uses and the student trains at a
constant LR. lrdoctor now reports it when the scheduler's optimizer is a plain name used only
by that constructor and its own step()/zero_grad() calls, all before the scheduler's first
step and outside every loop holding that step, and the optimizers those loops do update have
no scheduler of their own stepped there.
"""

from __future__ import annotations

import pytest

from .helpers import codes

REBUILT_IN_METHOD_STEPPED = '''
import torch
from torch import nn


class Finetuner:
    def __init__(self, model, epochs, warm_epochs):
        self.model = model
        self.epochs = epochs
        self.warm_epochs = warm_epochs
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

    def _make_opt(self, head_lr, body_lr):
        groups = [
            {"params": self.model[1].parameters(), "lr": head_lr},
            {"params": self.model[0].parameters(), "lr": body_lr},
        ]
        self.opt = torch.optim.AdamW(groups, weight_decay=0.01)

    def fit(self, loader):
        for epoch in range(self.epochs):
            if epoch == self.warm_epochs:
                for p in self.model[0].parameters():
                    p.requires_grad = True
                self._make_opt(1e-3, 1e-4)
            for x, y in loader:
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            self.sched.step()


def main():
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 1))
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(3)]
    Finetuner(model, 6, 2).fit(loader)


if __name__ == "__main__":
    main()
'''

REBUILT_IN_METHOD_NEVER_STEPPED = '''
import torch
from torch import nn


class Finetuner:
    def __init__(self, model, epochs, warm_epochs):
        self.model = model
        self.epochs = epochs
        self.warm_epochs = warm_epochs
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

    def _make_opt(self, head_lr, body_lr):
        groups = [
            {"params": self.model[1].parameters(), "lr": head_lr},
            {"params": self.model[0].parameters(), "lr": body_lr},
        ]
        self.opt = torch.optim.AdamW(groups, weight_decay=0.01)

    def fit(self, loader):
        for epoch in range(self.epochs):
            if epoch == self.warm_epochs:
                for p in self.model[0].parameters():
                    p.requires_grad = True
                self._make_opt(1e-3, 1e-4)
            for x, y in loader:
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            pass


def main():
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 1))
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(3)]
    Finetuner(model, 6, 2).fit(loader)


if __name__ == "__main__":
    main()
'''

REBUILT_IN_METHOD_WITH_SCHEDULER = '''
import torch
from torch import nn


class Finetuner:
    def __init__(self, model, epochs, warm_epochs):
        self.model = model
        self.epochs = epochs
        self.warm_epochs = warm_epochs
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

    def _make_opt(self, head_lr, body_lr):
        groups = [
            {"params": self.model[1].parameters(), "lr": head_lr},
            {"params": self.model[0].parameters(), "lr": body_lr},
        ]
        self.opt = torch.optim.AdamW(groups, weight_decay=0.01)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=self.epochs - self.warm_epochs)

    def fit(self, loader):
        for epoch in range(self.epochs):
            if epoch == self.warm_epochs:
                for p in self.model[0].parameters():
                    p.requires_grad = True
                self._make_opt(1e-3, 1e-4)
            for x, y in loader:
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            self.sched.step()


def main():
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 1))
    loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(3)]
    Finetuner(model, 6, 2).fit(loader)


if __name__ == "__main__":
    main()
'''

DELAYED_ACTOR_SCHEDULER_EVERY_UPDATE = '''
import torch
from torch import nn


class Agent:
    def __init__(self, policy_delay=2, total_updates=1000):
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(6, 1)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.actor_sched = torch.optim.lr_scheduler.LinearLR(self.actor_opt, 1.0, 0.1, total_iters=total_updates // policy_delay)
        self.critic_sched = torch.optim.lr_scheduler.LinearLR(self.critic_opt, 1.0, 0.1, total_iters=total_updates)
        self.policy_delay = policy_delay

    def update(self, batch, it):
        s, a, r = batch
        q = self.critic(torch.cat([s, a], dim=1))
        critic_loss = nn.functional.mse_loss(q, r)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        if it % self.policy_delay == 0:
            actor_loss = -self.critic(torch.cat([s, self.actor(s)], dim=1)).mean()
            self.actor_opt.zero_grad()
            actor_loss.backward()
            self.actor_opt.step()
        self.actor_sched.step()
        self.critic_sched.step()


def main():
    agent = Agent()
    for it in range(1000):
        batch = (torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
        agent.update(batch, it)


if __name__ == "__main__":
    main()
'''

DELAYED_ACTOR_SCHEDULER_UNDER_DELAY = '''
import torch
from torch import nn


class Agent:
    def __init__(self, policy_delay=2, total_updates=1000):
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(6, 1)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.actor_sched = torch.optim.lr_scheduler.LinearLR(self.actor_opt, 1.0, 0.1, total_iters=total_updates // policy_delay)
        self.critic_sched = torch.optim.lr_scheduler.LinearLR(self.critic_opt, 1.0, 0.1, total_iters=total_updates)
        self.policy_delay = policy_delay

    def update(self, batch, it):
        s, a, r = batch
        q = self.critic(torch.cat([s, a], dim=1))
        critic_loss = nn.functional.mse_loss(q, r)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        if it % self.policy_delay == 0:
            actor_loss = -self.critic(torch.cat([s, self.actor(s)], dim=1)).mean()
            self.actor_opt.zero_grad()
            actor_loss.backward()
            self.actor_opt.step()
            self.actor_sched.step()
        self.critic_sched.step()


def main():
    agent = Agent()
    for it in range(1000):
        batch = (torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
        agent.update(batch, it)


if __name__ == "__main__":
    main()
'''

CRITIC_LOOP_GENERATOR_SCHEDULER_EVERY_BATCH = '''
import torch
from torch import nn

G = nn.Linear(4, 8)
D = nn.Linear(8, 1)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
n_critic = 5
loader = [torch.randn(16, 8) for _ in range(50)]
epochs = 10
total = epochs * len(loader) // n_critic
sched_g = torch.optim.lr_scheduler.LinearLR(opt_g, 1.0, 0.0, total_iters=total)
sched_d = torch.optim.lr_scheduler.LinearLR(opt_d, 1.0, 0.0, total_iters=epochs * len(loader))

for epoch in range(epochs):
    for i, real in enumerate(loader):
        z = torch.randn(real.size(0), 4)
        d_loss = D(G(z).detach()).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        sched_d.step()
        if i % n_critic == 0:
            g_loss = -D(G(z)).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
        sched_g.step()
'''

CRITIC_LOOP_GENERATOR_SCHEDULER_WITH_ITS_STEP = '''
import torch
from torch import nn

G = nn.Linear(4, 8)
D = nn.Linear(8, 1)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
n_critic = 5
loader = [torch.randn(16, 8) for _ in range(50)]
epochs = 10
total = epochs * len(loader) // n_critic
sched_g = torch.optim.lr_scheduler.LinearLR(opt_g, 1.0, 0.0, total_iters=total)
sched_d = torch.optim.lr_scheduler.LinearLR(opt_d, 1.0, 0.0, total_iters=epochs * len(loader))

for epoch in range(epochs):
    for i, real in enumerate(loader):
        z = torch.randn(real.size(0), 4)
        d_loss = D(G(z).detach()).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        sched_d.step()
        if i % n_critic == 0:
            g_loss = -D(G(z)).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            sched_g.step()
'''

TUPLE_OPTIMIZERS_WARMUP_DURING_OTHER_PHASE = '''
import torch
from torch import nn

net = nn.Linear(4, 1)
offsets = nn.Parameter(torch.zeros(4))
optimizers = (
    torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9),
    torch.optim.Adam([offsets], lr=0.01),
)
warmup = torch.optim.lr_scheduler.LinearLR(optimizers[0], 0.001, 1.0, total_iters=1000)
max_iter = 20000
offset_iters = 1000
for it in range(max_iter):
    x = torch.randn(8, 4)
    loss = net(x + offsets).pow(2).mean()
    optimizers[0].zero_grad()
    optimizers[1].zero_grad()
    loss.backward()
    if it < offset_iters:
        optimizers[1].step()
    else:
        optimizers[0].step()
    warmup.step()
'''

LATE_DISCRIMINATOR_SCHEDULER_FROM_START = '''
import torch
from torch import nn

gen = nn.Linear(4, 8)
disc = nn.Linear(8, 1)
opt_gen = torch.optim.AdamW(gen.parameters(), lr=2e-4)
opt_disc = torch.optim.AdamW(disc.parameters(), lr=2e-4)
sched_gen = torch.optim.lr_scheduler.ExponentialLR(opt_gen, gamma=0.9999)
sched_disc = torch.optim.lr_scheduler.ExponentialLR(opt_disc, gamma=0.9999)
disc_start = 50000

for step in range(200000):
    target = torch.randn(8, 8)
    fake = gen(torch.randn(8, 4))
    loss_g = nn.functional.l1_loss(fake, target)
    if step >= disc_start:
        loss_g = loss_g - disc(fake).mean()
    opt_gen.zero_grad()
    loss_g.backward()
    opt_gen.step()
    sched_gen.step()
    if step >= disc_start:
        loss_d = disc(fake.detach()).mean() - disc(target).mean()
        opt_disc.zero_grad()
        loss_d.backward()
        opt_disc.step()
    sched_disc.step()
'''

LATE_DISCRIMINATOR_SCHEDULER_WITH_ITS_STEPS = '''
import torch
from torch import nn

gen = nn.Linear(4, 8)
disc = nn.Linear(8, 1)
opt_gen = torch.optim.AdamW(gen.parameters(), lr=2e-4)
opt_disc = torch.optim.AdamW(disc.parameters(), lr=2e-4)
sched_gen = torch.optim.lr_scheduler.ExponentialLR(opt_gen, gamma=0.9999)
sched_disc = torch.optim.lr_scheduler.ExponentialLR(opt_disc, gamma=0.9999)
disc_start = 50000

for step in range(200000):
    target = torch.randn(8, 8)
    fake = gen(torch.randn(8, 4))
    loss_g = nn.functional.l1_loss(fake, target)
    if step >= disc_start:
        loss_g = loss_g - disc(fake).mean()
    opt_gen.zero_grad()
    loss_g.backward()
    opt_gen.step()
    sched_gen.step()
    if step >= disc_start:
        loss_d = disc(fake.detach()).mean() - disc(target).mean()
        opt_disc.zero_grad()
        loss_d.backward()
        opt_disc.step()
        sched_disc.step()
'''

MANUAL_GAN_GENERATOR_SCHEDULER_EVERY_BATCH = '''
import torch
from torch import nn
import lightning as L


class WGAN(L.LightningModule):
    def __init__(self, n_critic=5):
        super().__init__()
        self.automatic_optimization = False
        self.gen = nn.Linear(4, 8)
        self.disc = nn.Linear(8, 1)
        self.n_critic = n_critic

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        sch_g, sch_d = self.lr_schedulers()
        real = batch
        z = torch.randn(real.size(0), 4, device=real.device)
        d_loss = self.disc(self.gen(z).detach()).mean() - self.disc(real).mean()
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        sch_d.step()
        if batch_idx % self.n_critic == 0:
            g_loss = -self.disc(self.gen(z)).mean()
            opt_g.zero_grad()
            self.manual_backward(g_loss)
            opt_g.step()
        sch_g.step()

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.gen.parameters(), lr=1e-4)
        opt_d = torch.optim.Adam(self.disc.parameters(), lr=1e-4)
        sch_g = torch.optim.lr_scheduler.CosineAnnealingLR(opt_g, T_max=1000)
        sch_d = torch.optim.lr_scheduler.CosineAnnealingLR(opt_d, T_max=5000)
        return [opt_g, opt_d], [sch_g, sch_d]
'''

MANUAL_GAN_GENERATOR_SCHEDULER_WITH_ITS_STEP = '''
import torch
from torch import nn
import lightning as L


class WGAN(L.LightningModule):
    def __init__(self, n_critic=5):
        super().__init__()
        self.automatic_optimization = False
        self.gen = nn.Linear(4, 8)
        self.disc = nn.Linear(8, 1)
        self.n_critic = n_critic

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        sch_g, sch_d = self.lr_schedulers()
        real = batch
        z = torch.randn(real.size(0), 4, device=real.device)
        d_loss = self.disc(self.gen(z).detach()).mean() - self.disc(real).mean()
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        sch_d.step()
        if batch_idx % self.n_critic == 0:
            g_loss = -self.disc(self.gen(z)).mean()
            opt_g.zero_grad()
            self.manual_backward(g_loss)
            opt_g.step()
            sch_g.step()

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.gen.parameters(), lr=1e-4)
        opt_d = torch.optim.Adam(self.disc.parameters(), lr=1e-4)
        sch_g = torch.optim.lr_scheduler.CosineAnnealingLR(opt_g, T_max=1000)
        sch_d = torch.optim.lr_scheduler.CosineAnnealingLR(opt_d, T_max=5000)
        return [opt_g, opt_d], [sch_g, sch_d]
'''

PHASE_LOOP_REBUILDS_OPTIMIZER_ONLY = '''
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
phases = [(model[2].parameters, 1e-3, 3), (model.parameters, 1e-4, 5)]
loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(5)]
optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=8 * len(loader))

for params, lr, n_epochs in phases:
    optimizer = torch.optim.Adam(params(), lr=lr)
    for epoch in range(n_epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
'''

PHASE_LOOP_REBUILDS_BOTH = '''
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
phases = [(model[2].parameters, 1e-3, 3), (model.parameters, 1e-4, 5)]
loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(5)]

for params, lr, n_epochs in phases:
    optimizer = torch.optim.Adam(params(), lr=lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=n_epochs * len(loader))
    for epoch in range(n_epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
'''

GAN_MODEL_CLASS_SCHEDULER_LIST = '''
import itertools
import torch
from torch import nn
from torch.optim import lr_scheduler


def get_scheduler(optimizer, n_epochs, n_epochs_decay):
    def rule(epoch):
        return 1.0 - max(0, epoch + 1 - n_epochs) / float(n_epochs_decay + 1)
    return lr_scheduler.LambdaLR(optimizer, lr_lambda=rule)


class CycleModel:
    def __init__(self, n_epochs=100, n_epochs_decay=100):
        self.g_ab = nn.Linear(4, 4)
        self.g_ba = nn.Linear(4, 4)
        self.d_a = nn.Linear(4, 1)
        self.d_b = nn.Linear(4, 1)
        self.optimizer_G = torch.optim.Adam(itertools.chain(self.g_ab.parameters(), self.g_ba.parameters()), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(itertools.chain(self.d_a.parameters(), self.d_b.parameters()), lr=2e-4)
        self.optimizers = [self.optimizer_G, self.optimizer_D]
        self.schedulers = [get_scheduler(o, n_epochs, n_epochs_decay) for o in self.optimizers]

    def optimize_parameters(self, a, b):
        loss_g = (self.g_ba(self.g_ab(a)) - a).abs().mean() - self.d_b(self.g_ab(a)).mean()
        self.optimizer_G.zero_grad()
        loss_g.backward()
        self.optimizer_G.step()
        loss_d = self.d_b(self.g_ab(a).detach()).mean() - self.d_b(b).mean()
        self.optimizer_D.zero_grad()
        loss_d.backward()
        self.optimizer_D.step()

    def update_learning_rate(self):
        for scheduler in self.schedulers:
            scheduler.step()
        return self.optimizers[0].param_groups[0]["lr"]


def main():
    model = CycleModel()
    for epoch in range(200):
        for _ in range(10):
            model.optimize_parameters(torch.randn(2, 4), torch.randn(2, 4))
        print(model.update_learning_rate())


if __name__ == "__main__":
    main()
'''

SAC_THREE_OPTIMIZERS_TWO_SCHEDULERS = '''
import torch
from torch import nn


class SAC:
    def __init__(self, total_updates):
        self.actor = nn.Linear(4, 2)
        self.q1 = nn.Linear(6, 1)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.q_optim = torch.optim.Adam(self.q1.parameters(), lr=3e-4)
        self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=3e-4)
        self.actor_scheduler = torch.optim.lr_scheduler.LambdaLR(self.actor_optim, lambda n: 1 - n / total_updates)
        self.q_scheduler = torch.optim.lr_scheduler.LambdaLR(self.q_optim, lambda n: 1 - n / total_updates)

    def learn(self, s, a, r):
        q_loss = (self.q1(torch.cat([s, a], 1)) - r).pow(2).mean()
        self.q_optim.zero_grad()
        q_loss.backward()
        self.q_optim.step()
        pi = self.actor(s)
        actor_loss = (self.log_alpha.exp().detach() * pi.pow(2).sum(1) - self.q1(torch.cat([s, pi], 1)).squeeze(1)).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
        alpha_loss = -(self.log_alpha * (pi.pow(2).sum(1).detach() - 2)).mean()
        self.alpha_optim.zero_grad()
        alpha_loss.backward()
        self.alpha_optim.step()
        self.actor_scheduler.step()
        self.q_scheduler.step()


def main():
    agent = SAC(5000)
    for step in range(10000):
        if step >= 5000:
            agent.learn(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))


if __name__ == "__main__":
    main()
'''

GAN_SCHEDULER_DICT_PER_EPOCH = '''
import torch
from torch import nn


class Trainer:
    def __init__(self, epochs):
        self.nets = {"G": nn.Linear(4, 8), "D": nn.Linear(8, 1)}
        self.optims = {k: torch.optim.Adam(v.parameters(), lr=2e-4, betas=(0.5, 0.999)) for k, v in self.nets.items()}
        self.scheds = {k: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=epochs) for k, o in self.optims.items()}
        self.epochs = epochs

    def step_batch(self, real):
        z = torch.randn(real.size(0), 4)
        fake = self.nets["G"](z)
        d_loss = nn.functional.softplus(self.nets["D"](fake.detach())).mean() + nn.functional.softplus(-self.nets["D"](real)).mean()
        self.optims["D"].zero_grad()
        d_loss.backward()
        self.optims["D"].step()
        g_loss = nn.functional.softplus(-self.nets["D"](fake)).mean()
        self.optims["G"].zero_grad()
        g_loss.backward()
        self.optims["G"].step()

    def fit(self, loader):
        for epoch in range(self.epochs):
            for real in loader:
                self.step_batch(real)
            for s in self.scheds.values():
                s.step()


def main():
    Trainer(10).fit([torch.randn(4, 8) for _ in range(5)])


if __name__ == "__main__":
    main()
'''

CRITIC_INNER_LOOP_SCHEDULERS_PER_ITERATION = '''
import torch
from torch import nn

G = nn.Linear(4, 8)
D = nn.Linear(8, 1)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.9))
iterations = 100000
sched_g = torch.optim.lr_scheduler.LambdaLR(opt_g, lambda it: 1.0 - it / iterations)
sched_d = torch.optim.lr_scheduler.LambdaLR(opt_d, lambda it: 1.0 - it / iterations)
n_dis = 5


def sample():
    return torch.randn(64, 8)


for it in range(iterations):
    for _ in range(n_dis):
        real = sample()
        fake = G(torch.randn(64, 4)).detach()
        loss_d = torch.relu(1 - D(real)).mean() + torch.relu(1 + D(fake)).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
    loss_g = -D(G(torch.randn(64, 4))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    sched_g.step()
    sched_d.step()
'''

KD_STUDENT_SCHEDULER = '''
import torch
from torch import nn

teacher = nn.Linear(8, 4)
student = nn.Linear(8, 4)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(s_opt, milestones=[30, 60], gamma=0.1)
loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

for epoch in range(20):
    for x, y in loader:
        loss = nn.functional.cross_entropy(teacher(x), y)
        t_opt.zero_grad()
        loss.backward()
        t_opt.step()

teacher.eval()
for epoch in range(90):
    for x, y in loader:
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        logits = student(x)
        loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
        s_opt.zero_grad()
        loss.backward()
        s_opt.step()
    sched.step()
'''

KD_TEACHER_SCHEDULER_IN_STUDENT_STAGE = '''
import torch
from torch import nn

teacher = nn.Linear(8, 4)
student = nn.Linear(8, 4)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(t_opt, milestones=[30, 60], gamma=0.1)
loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

for epoch in range(20):
    for x, y in loader:
        loss = nn.functional.cross_entropy(teacher(x), y)
        t_opt.zero_grad()
        loss.backward()
        t_opt.step()

teacher.eval()
for epoch in range(90):
    for x, y in loader:
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        logits = student(x)
        loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
        s_opt.zero_grad()
        loss.backward()
        s_opt.step()
    sched.step()
'''


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(REBUILT_IN_METHOD_STEPPED, ['LRD014'], id='rebuilt_in_method_stepped'),
        pytest.param(REBUILT_IN_METHOD_NEVER_STEPPED, [], id='rebuilt_in_method_never_stepped'),
        pytest.param(REBUILT_IN_METHOD_WITH_SCHEDULER, [], id='rebuilt_in_method_with_scheduler'),
        pytest.param(DELAYED_ACTOR_SCHEDULER_EVERY_UPDATE, ['LRD017'], id='delayed_actor_scheduler_every_update'),
        pytest.param(DELAYED_ACTOR_SCHEDULER_UNDER_DELAY, [], id='delayed_actor_scheduler_under_delay'),
        pytest.param(CRITIC_LOOP_GENERATOR_SCHEDULER_EVERY_BATCH, ['LRD017'], id='critic_loop_generator_scheduler_every_batch'),
        pytest.param(CRITIC_LOOP_GENERATOR_SCHEDULER_WITH_ITS_STEP, [], id='critic_loop_generator_scheduler_with_its_step'),
        pytest.param(TUPLE_OPTIMIZERS_WARMUP_DURING_OTHER_PHASE, ['LRD001'], id='tuple_optimizers_warmup_during_other_phase'),
        pytest.param(LATE_DISCRIMINATOR_SCHEDULER_FROM_START, ['LRD001'], id='late_discriminator_scheduler_from_start'),
        pytest.param(LATE_DISCRIMINATOR_SCHEDULER_WITH_ITS_STEPS, [], id='late_discriminator_scheduler_with_its_steps'),
        pytest.param(MANUAL_GAN_GENERATOR_SCHEDULER_EVERY_BATCH, ['LRD017'], id='manual_gan_generator_scheduler_every_batch'),
        pytest.param(MANUAL_GAN_GENERATOR_SCHEDULER_WITH_ITS_STEP, [], id='manual_gan_generator_scheduler_with_its_step'),
        pytest.param(PHASE_LOOP_REBUILDS_OPTIMIZER_ONLY, ['LRD014'], id='phase_loop_rebuilds_optimizer_only'),
        pytest.param(PHASE_LOOP_REBUILDS_BOTH, [], id='phase_loop_rebuilds_both'),
        pytest.param(GAN_MODEL_CLASS_SCHEDULER_LIST, [], id='gan_model_class_scheduler_list'),
        pytest.param(SAC_THREE_OPTIMIZERS_TWO_SCHEDULERS, [], id='sac_three_optimizers_two_schedulers'),
        pytest.param(GAN_SCHEDULER_DICT_PER_EPOCH, [], id='gan_scheduler_dict_per_epoch'),
        pytest.param(CRITIC_INNER_LOOP_SCHEDULERS_PER_ITERATION, [], id='critic_inner_loop_schedulers_per_iteration'),
        pytest.param(KD_STUDENT_SCHEDULER, [], id='kd_student_scheduler'),
    ],
)
def test_several_optimizers_shapes(source: str, expected: list[str]) -> None:
    assert codes(source) == expected


KD_STAGES_IN_AN_OUTER_LOOP = '''
import torch
from torch import nn

teacher = nn.Linear(8, 4)
student = nn.Linear(8, 4)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(t_opt, milestones=[30, 60], gamma=0.1)
loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

for round_ in range(3):
    for epoch in range(20):
        for x, y in loader:
            loss = nn.functional.cross_entropy(teacher(x), y)
            t_opt.zero_grad()
            loss.backward()
            t_opt.step()

    teacher.eval()
    for epoch in range(90):
        for x, y in loader:
            with torch.no_grad():
                soft = teacher(x).softmax(-1)
            logits = student(x)
            loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
            s_opt.zero_grad()
            loss.backward()
            s_opt.step()
        sched.step()
'''

KD_TEACHER_OPTIMIZER_TO_AN_UNKNOWN_HELPER = '''
import torch
from torch import nn
from helpers import refresh_teacher

teacher = nn.Linear(8, 4)
student = nn.Linear(8, 4)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(t_opt, milestones=[30, 60], gamma=0.1)
loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

for epoch in range(20):
    for x, y in loader:
        loss = nn.functional.cross_entropy(teacher(x), y)
        t_opt.zero_grad()
        loss.backward()
        t_opt.step()

teacher.eval()
for epoch in range(90):
    for x, y in loader:
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        logits = student(x)
        loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
        s_opt.zero_grad()
        loss.backward()
        s_opt.step()
    refresh_teacher(teacher, t_opt)
    sched.step()
'''

KD_STUDENT_WITH_ITS_OWN_SCHEDULER = '''
import torch
from torch import nn

teacher = nn.Linear(8, 4)
student = nn.Linear(8, 4)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(t_opt, milestones=[30, 60], gamma=0.1)
s_sched = torch.optim.lr_scheduler.CosineAnnealingLR(s_opt, T_max=90)
loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

for epoch in range(20):
    for x, y in loader:
        loss = nn.functional.cross_entropy(teacher(x), y)
        t_opt.zero_grad()
        loss.backward()
        t_opt.step()

teacher.eval()
for epoch in range(90):
    for x, y in loader:
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        logits = student(x)
        loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
        s_opt.zero_grad()
        loss.backward()
        s_opt.step()
    sched.step()
    s_sched.step()
'''

KD_TEACHER_SCHEDULER_IN_A_FUNCTION = '''
import torch
from torch import nn



def main():
    teacher = nn.Linear(8, 4)
    student = nn.Linear(8, 4)
    t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
    s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.MultiStepLR(t_opt, milestones=[30, 60], gamma=0.1)
    loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

    for epoch in range(20):
        for x, y in loader:
            loss = nn.functional.cross_entropy(teacher(x), y)
            t_opt.zero_grad()
            loss.backward()
            t_opt.step()

    teacher.eval()
    for epoch in range(90):
        for x, y in loader:
            with torch.no_grad():
                soft = teacher(x).softmax(-1)
            logits = student(x)
            loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
            s_opt.zero_grad()
            loss.backward()
            s_opt.step()
        sched.step()


if __name__ == "__main__":
    main()
'''

KD_TEACHER_OPTIMIZER_SAVED_AFTER = '''
import torch
from torch import nn

teacher = nn.Linear(8, 4)
student = nn.Linear(8, 4)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1, momentum=0.9)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.MultiStepLR(t_opt, milestones=[30, 60], gamma=0.1)
loader = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]

for epoch in range(20):
    for x, y in loader:
        loss = nn.functional.cross_entropy(teacher(x), y)
        t_opt.zero_grad()
        loss.backward()
        t_opt.step()

teacher.eval()
for epoch in range(90):
    for x, y in loader:
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        logits = student(x)
        loss = nn.functional.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
        s_opt.zero_grad()
        loss.backward()
        s_opt.step()
    sched.step()

torch.save({'teacher_opt': t_opt.state_dict()}, 'ckpt.pt')
'''


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(KD_TEACHER_SCHEDULER_IN_STUDENT_STAGE, id="module_level"),
        pytest.param(KD_TEACHER_SCHEDULER_IN_A_FUNCTION, id="in_a_function"),
    ],
)
def test_distillation_scheduler_left_on_the_teachers_optimizer(source: str) -> None:
    assert codes(source) == ["LRD014"]


@pytest.mark.parametrize(
    "source",
    [
        # the next pass of the outer loop trains the teacher again
        pytest.param(KD_STAGES_IN_AN_OUTER_LOOP, id="stages_in_an_outer_loop"),
        # a function nobody traced may step the teacher's optimizer during the student's stage
        pytest.param(KD_TEACHER_OPTIMIZER_TO_AN_UNKNOWN_HELPER, id="optimizer_to_unknown_helper"),
        # the student's own schedule drives training; the stale step is dead code
        pytest.param(KD_STUDENT_WITH_ITS_OWN_SCHEDULER, id="student_has_its_own_scheduler"),
        # the teacher's optimizer is still used after the stage (saved): not vouched for
        pytest.param(KD_TEACHER_OPTIMIZER_SAVED_AFTER, id="teacher_optimizer_saved_after"),
    ],
)
def test_distillation_twins_without_a_stale_stage_are_silent(source: str) -> None:
    assert "LRD014" not in codes(source)
