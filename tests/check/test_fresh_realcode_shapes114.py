"""Shapes seen in the fresh-2026-12zzm112 batch (rcnew112, bench/realcode/README.md): several
models, optimizers and schedulers in one program (GAN generator and discriminator,
teacher-student and EMA distillation, domain adaptation with a SAM wrapper, mean teacher,
multi-task heads, actor-critic).

Programs written for these tests; no third-party code.

The batch's one dev miss (a TD3 learner whose base class, in another module and reached
through a package ``__init__`` re-export, saves the optimizers but not the schedulers) was the
case's file set, not lrdoctor: with the ``__init__`` that binds the base class the LRD007 is
found. It is kept here as a project test.

Probing the family (about 40 programs) found one gap, fixed: a scheduler bound to the wrong
optimizer. ``sched_d = StepLR(opt_g, 30, 0.5)`` written for the discriminator next to
``sched_g = StepLR(opt_g, 30, 0.5)``: both step ``opt_g`` every epoch, so the generator's
decay is squared and the discriminator is never scheduled. LRD012 took any two chainable
schedulers on one optimizer for a ChainedScheduler (correct, as PyTorch documents for, e.g.,
an ExponentialLR beside a MultiStepLR). Two schedulers of the same torch class built with the
same arguments (one constructor call twice, or a builder called twice with the same
optimizer) are no chain anybody designs: LRD012 now reports them. Different chainable
schedules on one optimizer, twins that hand over (one stepped only in the warm-up), a
builder called again per stage, and one scheduler per optimizer stay silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

GAN_TWO_STEPLR = '''
import torch
from torch import nn

G, D = nn.Linear(4, 4), nn.Linear(4, 1)
opt_g = torch.optim.Adam(G.parameters(), 2e-4)
opt_d = torch.optim.Adam(D.parameters(), 2e-4)
sched_g = torch.optim.lr_scheduler.StepLR(opt_g, 30, 0.5)
sched_d = torch.optim.lr_scheduler.StepLR(SECOND, 30, 0.5)
for epoch in range(100):
    for x in torch.randn(10, 8, 4):
        d_loss = D(G(torch.randn(8, 4)).detach()).mean() - D(x).mean()
        opt_d.zero_grad(); d_loss.backward(); opt_d.step()
        g_loss = -D(G(torch.randn(8, 4))).mean()
        opt_g.zero_grad(); g_loss.backward(); opt_g.step()
    sched_g.step()
    sched_d.step()
'''


def test_discriminator_scheduler_bound_to_the_generator_optimizer() -> None:
    source = GAN_TWO_STEPLR.replace("SECOND", "opt_g")
    assert codes(source) == ["LRD012"]
    (msg,) = messages(source)
    assert "same StepLR built with the same arguments" in msg


def test_each_network_with_its_own_scheduler_is_silent() -> None:
    assert codes(GAN_TWO_STEPLR.replace("SECOND", "opt_d")) == []


ACTOR_CRITIC = '''
import torch
from torch import nn


class Agent:
    def __init__(self):
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(6, 1)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), 3e-4)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), 1e-3)
        self.actor_sched = torch.optim.lr_scheduler.ExponentialLR(FIRST, gamma=0.999)
        self.critic_sched = torch.optim.lr_scheduler.ExponentialLR(self.critic_opt, gamma=0.999)

    def update(self, s, a, r):
        q = self.critic(torch.cat([s, a], 1))
        c_loss = (q - r).pow(2).mean()
        self.critic_opt.zero_grad(); c_loss.backward(); self.critic_opt.step()
        p_loss = -self.critic(torch.cat([s, self.actor(s)], 1)).mean()
        self.actor_opt.zero_grad(); p_loss.backward(); self.actor_opt.step()

    def end_episode(self):
        self.actor_sched.step()
        self.critic_sched.step()


agent = Agent()
for ep in range(500):
    for t in range(200):
        agent.update(torch.randn(32, 4), torch.randn(32, 2), torch.randn(32, 1))
    agent.end_episode()
'''


def test_actor_scheduler_copied_onto_the_critic_optimizer() -> None:
    assert codes(ACTOR_CRITIC.replace("FIRST", "self.critic_opt")) == ["LRD012"]


def test_actor_scheduler_on_the_actor_optimizer_is_silent() -> None:
    assert codes(ACTOR_CRITIC.replace("FIRST", "self.actor_opt")) == []


BUILDER_TWICE = '''
import torch
from torch import nn


def make_sched(opt, epochs):
    return torch.optim.lr_scheduler.MultiStepLR(opt, [epochs // 2, 3 * epochs // 4], 0.1)


G, D = nn.Linear(4, 4), nn.Linear(4, 1)
opt_g = torch.optim.Adam(G.parameters(), 2e-4)
opt_d = torch.optim.Adam(D.parameters(), 2e-4)
sch_g = make_sched(opt_g, 100)
sch_d = make_sched(SECOND, 100)
for epoch in range(100):
    for x in torch.randn(10, 8, 4):
        d_loss = D(G(torch.randn(8, 4)).detach()).mean() - D(x).mean()
        opt_d.zero_grad(); d_loss.backward(); opt_d.step()
        g_loss = -D(G(torch.randn(8, 4))).mean()
        opt_g.zero_grad(); g_loss.backward(); opt_g.step()
    sch_g.step()
    sch_d.step()
'''


def test_one_builder_called_twice_with_the_generator_optimizer() -> None:
    assert codes(BUILDER_TWICE.replace("SECOND", "opt_g")) == ["LRD012"]


def test_one_builder_called_for_each_optimizer_is_silent() -> None:
    assert codes(BUILDER_TWICE.replace("SECOND", "opt_d")) == []


HELPER_PAIR = '''
import torch
from torch import nn


def make_schedulers(opt_g, opt_d, epochs):
    s_g = torch.optim.lr_scheduler.CosineAnnealingLR(opt_g, epochs)
    s_d = torch.optim.lr_scheduler.CosineAnnealingLR(SECOND, epochs)
    return s_g, s_d


G, D = nn.Linear(4, 4), nn.Linear(4, 1)
opt_g = torch.optim.Adam(G.parameters(), 2e-4)
opt_d = torch.optim.Adam(D.parameters(), 2e-4)
s_g, s_d = make_schedulers(opt_g, opt_d, 50)
for epoch in range(50):
    for x in torch.randn(10, 8, 4):
        d_loss = D(G(torch.randn(8, 4)).detach()).mean() - D(x).mean()
        opt_d.zero_grad(); d_loss.backward(); opt_d.step()
        g_loss = -D(G(torch.randn(8, 4))).mean()
        opt_g.zero_grad(); g_loss.backward(); opt_g.step()
    s_g.step()
    s_d.step()
'''


@pytest.mark.parametrize(("second", "expected"), [("opt_g", ["LRD012"]), ("opt_d", [])])
def test_pair_builder_with_a_slip_in_its_second_line(second: str, expected: list[str]) -> None:
    assert codes(HELPER_PAIR.replace("SECOND", second)) == expected


TWO_ON_ONE = '''
import torch
from torch import nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), 0.1)
s1 = FIRST
s2 = SECOND
for epoch in range(100):
    for x in torch.randn(10, 8, 4):
        loss = model(x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    STEPS
'''


@pytest.mark.parametrize(("first", "second"), [
    # PyTorch's own example of chaining: two different schedules compose
    ("torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)",
     "torch.optim.lr_scheduler.MultiStepLR(opt, [30, 80], 0.1)"),
    ("torch.optim.lr_scheduler.StepLR(opt, 10, 0.9)",
     "torch.optim.lr_scheduler.StepLR(opt, 50, 0.1)"),
])
def test_different_chainable_schedules_on_one_optimizer_stay_silent(first: str,
                                                                    second: str) -> None:
    source = TWO_ON_ONE.replace("FIRST", first).replace("SECOND", second) \
        .replace("STEPS", "s1.step()\n    s2.step()")
    assert codes(source) == []


def test_identical_twins_stepped_in_turn_hand_over() -> None:
    same = "torch.optim.lr_scheduler.ExponentialLR(opt, 0.95)"
    source = TWO_ON_ONE.replace("FIRST", same).replace("SECOND", same).replace(
        "STEPS", "if epoch < 10:\n        s1.step()\n    else:\n        s2.step()")
    assert codes(source) == []


def test_identical_twins_both_stepped_every_epoch() -> None:
    same = "torch.optim.lr_scheduler.ExponentialLR(opt, 0.95)"
    source = TWO_ON_ONE.replace("FIRST", same).replace("SECOND", same) \
        .replace("STEPS", "s1.step()\n    s2.step()")
    assert codes(source) == ["LRD012"]


def test_builder_called_again_for_each_stage_is_silent() -> None:
    assert codes('''
import torch
from torch import nn


def make_sched(opt, epochs):
    return torch.optim.lr_scheduler.MultiStepLR(opt, [epochs // 2], 0.1)


model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), 0.1)
for stage in range(3):
    sched = make_sched(opt, 20)
    for epoch in range(20):
        for x in torch.randn(10, 8, 4):
            loss = model(x).pow(2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        sched.step()
''') == []


def test_one_scheduler_per_task_head_from_comprehensions_is_silent() -> None:
    assert codes('''
import torch
from torch import nn

trunk = nn.Linear(4, 4)
heads = {"cls": nn.Linear(4, 3), "reg": nn.Linear(4, 1)}
opts = {k: torch.optim.Adam(list(h.parameters()) + list(trunk.parameters()), 1e-3)
        for k, h in heads.items()}
scheds = {k: torch.optim.lr_scheduler.StepLR(o, 10, 0.5) for k, o in opts.items()}
for epoch in range(40):
    for x in torch.randn(10, 8, 4):
        for k, h in heads.items():
            loss = h(trunk(x)).pow(2).mean()
            opts[k].zero_grad(); loss.backward(); opts[k].step()
    for k in heads:
        scheds[k].step()
''') == []


GAN_REWRAP = '''
import torch
from torch import nn


class GANTrainer:
    def __init__(self, G, D, epochs):
        self.G, self.D, self.epochs = G, D, epochs
        self.opt_g = torch.optim.Adam(G.parameters(), 2e-4)
        self.opt_d = torch.optim.Adam(D.parameters(), 2e-4)
        self.sch_g = torch.optim.lr_scheduler.StepLR(self.opt_g, epochs // 2, 0.1)
        self.sch_d = torch.optim.lr_scheduler.StepLR(self.opt_d, epochs // 2, 0.1)

    def wrap(self):
        self.G = nn.parallel.DistributedDataParallel(self.G)
        self.D = nn.parallel.DistributedDataParallel(self.D)
        self.opt_g = torch.optim.Adam(self.G.parameters(), 2e-4)
        self.opt_d = torch.optim.Adam(self.D.parameters(), 2e-4)
REBUILD
    def train(self, data):
        for epoch in range(self.epochs):
            for x in data:
                d_loss = self.D(self.G(torch.randn(8, 4)).detach()).mean() - self.D(x).mean()
                self.opt_d.zero_grad(); d_loss.backward(); self.opt_d.step()
                g_loss = -self.D(self.G(torch.randn(8, 4))).mean()
                self.opt_g.zero_grad(); g_loss.backward(); self.opt_g.step()
            self.sch_g.step()
            self.sch_d.step()


t = GANTrainer(nn.Linear(4, 4), nn.Linear(4, 1), 100)
t.wrap()
t.train(torch.randn(10, 8, 4))
'''


def test_optimizers_rebuilt_after_wrapping_keep_the_old_schedulers() -> None:
    assert set(codes(GAN_REWRAP.replace("REBUILD", ""))) == {"LRD014"}


def test_optimizers_and_schedulers_rebuilt_after_wrapping_are_silent() -> None:
    rebuild = (
        "        self.sch_g = torch.optim.lr_scheduler.StepLR(self.opt_g, self.epochs // 2, 0.1)\n"
        "        self.sch_d = torch.optim.lr_scheduler.StepLR(self.opt_d, self.epochs // 2, 0.1)\n"
    )
    assert codes(GAN_REWRAP.replace("REBUILD", rebuild)) == []


def test_sam_wrapper_with_two_lambda_schedules_is_silent() -> None:
    # SDAT's shape: the wrapper's own step() never runs; first_step/second_step update through
    # the base optimizer, whose param groups the wrapper shares
    assert codes('''
import torch
from torch import nn


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    e = p.grad * group["rho"]
                    p.add_(e)
                    self.state[p]["e"] = e

    @torch.no_grad()
    def second_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.sub_(self.state[p]["e"])
        self.base_optimizer.step()


net, disc = nn.Linear(4, 2), nn.Linear(2, 1)
opt = SAM(net.parameters(), torch.optim.SGD, lr=0.01, momentum=0.9)
opt_d = torch.optim.SGD(disc.parameters(), 0.01, momentum=0.9)
sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: (1 + 1e-3 * i) ** -0.75)
sch_d = torch.optim.lr_scheduler.LambdaLR(opt_d, lambda i: (1 + 1e-3 * i) ** -0.75)
for it in range(5000):
    x = torch.randn(8, 4)
    net(x).pow(2).mean().backward()
    opt.first_step()
    opt.zero_grad()
    loss = net(x).pow(2).mean() + disc(net(x)).mean()
    loss.backward()
    opt_d.step()
    opt.second_step()
    opt.zero_grad()
    opt_d.zero_grad()
    sch.step()
    sch_d.step()
''') == []


def test_mean_teacher_student_per_iteration_teacher_per_epoch_is_silent() -> None:
    assert codes('''
import torch
from torch import nn

student, teacher = nn.Linear(4, 2), nn.Linear(4, 2)
opt_s = torch.optim.SGD(student.parameters(), 0.01, momentum=0.9)
opt_t = torch.optim.SGD(teacher.parameters(), 0.01, momentum=0.9)
loader = [torch.randn(8, 4) for _ in range(10)]
epochs = 300
total_iter = epochs * len(loader)
sch_s = torch.optim.lr_scheduler.LambdaLR(opt_s, lambda i: (1 - min(i, total_iter) / total_iter) ** 0.9)
sch_t = torch.optim.lr_scheduler.LambdaLR(opt_t, lambda e: (1 - min(e, epochs) / epochs) ** 0.9)
for epoch in range(epochs):
    for x in loader:
        loss = (student(x) - teacher(x).detach()).pow(2).mean()
        opt_s.zero_grad(); loss.backward(); opt_s.step()
        sch_s.step()
        with torch.no_grad():
            for pt, ps in zip(teacher.parameters(), student.parameters()):
                pt.mul_(0.99).add_(ps, alpha=0.01)
    for x in loader:
        loss = teacher(x).pow(2).mean()
        opt_t.zero_grad(); loss.backward(); opt_t.step()
    sch_t.step()
''') == []


def test_learner_base_class_through_a_package_init_saves_optimizers_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = '''
import torch


class Learner:
    def __init__(self, model):
        self.model = model
        self.optimizer = None
        self.scheduler = None

    def save_model(self, path):
        torch.save({"policy": self.model.state_dict(),
                    "optimizer": {k: v.state_dict() for k, v in self.optimizer.items()},
                    "rng_state": torch.get_rng_state()}, path)

    def load_model(self, path):
        ckpt = torch.load(path)
        self.model.load_state_dict(ckpt["policy"])
        for k, v in self.optimizer.items():
            v.load_state_dict(ckpt["optimizer"][k])
'''
    td3 = '''
import torch
from agents.learners import Learner


class TD3(Learner):
    def __init__(self, model, total):
        super().__init__(model)
        self.optimizer = {"actor": torch.optim.Adam(model.actor.parameters(), 1e-3),
                          "critic": torch.optim.Adam(model.critic.parameters(), 1e-3)}
        self.scheduler = {
            "actor": torch.optim.lr_scheduler.LinearLR(self.optimizer["actor"], 1.0, 0.1, total),
            "critic": torch.optim.lr_scheduler.LinearLR(self.optimizer["critic"], 1.0, 0.1, total)}

    def update(self, x):
        q = self.model.critic(x).pow(2).mean()
        self.optimizer["critic"].zero_grad(); q.backward(); self.optimizer["critic"].step()
        self.scheduler["critic"].step()
        p = -self.model.actor(x).mean()
        self.optimizer["actor"].zero_grad(); p.backward(); self.optimizer["actor"].step()
        self.scheduler["actor"].step()
'''
    found = check_project(tmp_path, monkeypatch, {
        "agents/__init__.py": "",
        "agents/learners/__init__.py": "from .base.learner import Learner\n",
        "agents/learners/base/__init__.py": "",
        "agents/learners/base/learner.py": base,
        "agents/learners/td3.py": td3,
    })
    assert set(project_codes(found)) == {"LRD007"}
    assert {p for p, _, _ in found} == {"agents/learners/base/learner.py"}
