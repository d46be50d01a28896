"""Shapes seen in the fresh-2026-12zzza126 batch (rcnew126, bench/realcode/README.md): several
optimizers and schedulers in hand-written loops (GAN generator / discriminator pairs, teacher and
student, mutual learning), gradient accumulation, schedulers stepped per data shard.

Programs written for these tests; no third-party code.

One false alarm was fixed. A warm-up schedule built by a helper (``make_sched(opt, total)``)
whose horizon is a name bound in the caller to the product of the passes of the loops that
step it (``total = args.parts * args.epochs``; ``for epoch in range(args.epochs): for part in
range(args.parts): ...; sched.step()``) was reported as LRD003 ("stepped once per epoch, but
its horizon is counted in batches"): the name handed down was not read through its binding in
the caller, although the same program without the helper (or with the product written in the
call) was already silent. The handed-down name is now read through its one binding in the
function whose loop steps the scheduler, as a name bound where the scheduler is built already
was, so a count of batches in that binding (``len(loader) * args.epochs``, ``args.epochs *
args.steps_per_epoch``) still reports.

The rest are probes of the theme kept as regression tests (right on both builds).
"""

from __future__ import annotations

import pytest

from .helpers import codes, findings

PER_SHARD = '''
import argparse
import torch
from transformers import get_linear_schedule_with_warmup


def make_sched(optimizer, total_steps, warmup=0.1):
    return get_linear_schedule_with_warmup(optimizer, num_warmup_steps=int(total_steps * warmup),
                                           num_training_steps=total_steps)


def train(model, args, load_shard):
    TOTAL_LINE
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    sched = make_sched(opt, total)
    start_epoch, start_shard = 0, 0
    for epoch in range(start_epoch, args.epochs):
        for shard in range(start_shard, args.shards):
            loader = load_shard(shard)
            for x in loader:
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
            STEP_LINE
        start_shard = 0


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--shards", type=int, default=40)
    p.add_argument("--steps_per_epoch", type=int, default=500)
    p.add_argument("--lr", type=float, default=1e-4)
    a = p.parse_args()
    train(torch.nn.Linear(2, 2), a, lambda i: [])
'''


def per_shard(total: str, step: str = "sched.step()") -> str:
    return PER_SHARD.replace("TOTAL_LINE", total).replace("STEP_LINE", step)


@pytest.mark.parametrize("total", [
    "total = args.shards * args.epochs",
    "total = args.epochs * args.shards",
    "total = int(args.epochs * args.shards)",
])
def test_helper_sized_by_the_shard_and_epoch_passes_stepped_per_shard_is_silent(total):
    assert codes(per_shard(total)) == []


@pytest.mark.parametrize("total", [
    "total = len(load_shard(0)) * args.epochs",
    "total = args.epochs * args.steps_per_epoch",
])
def test_helper_sized_in_batches_stepped_per_shard_is_reported(total):
    assert findings(per_shard(total)) == [("LRD003", 24)]


SHARD_METHOD = '''
import torch
from transformers import get_cosine_schedule_with_warmup


class Runner:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)

    def build(self, n_steps):
        return get_cosine_schedule_with_warmup(self.opt, num_warmup_steps=n_steps // 20,
                                               num_training_steps=n_steps)

    def fit(self, shards):
        n_total = TOTAL
        sched = self.build(n_total)
        for r in range(self.cfg.rounds):
            for k in range(self.cfg.n_shards):
                for x in shards[k]:
                    self.opt.zero_grad()
                    self.model(x).sum().backward()
                    self.opt.step()
                sched.step()
'''


def test_method_helper_sized_by_rounds_times_shards_is_silent():
    assert codes(SHARD_METHOD.replace("TOTAL", "self.cfg.rounds * self.cfg.n_shards")) == []


def test_method_helper_sized_by_rounds_times_batches_is_reported():
    source = SHARD_METHOD.replace("TOTAL", "self.cfg.rounds * self.cfg.batches_per_round")
    assert findings(source) == [("LRD003", 25)]


def test_per_epoch_step_of_a_helper_sized_in_batches_is_still_reported():
    source = '''
import torch
from transformers import get_linear_schedule_with_warmup


def make_sched(optimizer, total_steps):
    return get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100,
                                           num_training_steps=total_steps)


def train(model, epochs, loader):
    total = len(loader) * epochs
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    sched = make_sched(opt, total)
    for epoch in range(epochs):
        for x in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
        sched.step()
'''
    assert findings(source) == [("LRD003", 20)]


# -- probes of the batch's theme (right on both builds) ------------------------------------------

GAN_PEGGED = '''
import torch
from torch.optim.lr_scheduler import LambdaLR


def decay(start, stop, final):
    def fn(k):
        if k <= start:
            return 1.0
        if k >= stop:
            return final
        return 1 - (k - start) * (1 - final) / (stop - start)
    return fn


def run(gen, disc, loader, cfg):
    g_opt = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.0, 0.9))
    d_opt = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.0, 0.9))
    g_sched = LambdaLR(g_opt, decay(0, cfg.gen_updates, 0.01))
    d_sched = LambdaLR(d_opt, decay(0, cfg.gen_updates, 0.01))
    done = 0
    while done < cfg.gen_updates:
        for i, real in enumerate(loader):
            if i % cfg.gen_every == 0:
                g_opt.zero_grad()
                gen.loss(disc, real.size(0)).backward()
                g_opt.step()
                done += 1
            d_opt.zero_grad()
            disc.loss(gen, real).backward()
            d_opt.step()
            if i % cfg.gen_every == 0:
                g_sched.step()
                d_sched.step()
            if done == cfg.gen_updates:
                break
'''


def test_gan_schedulers_pegged_to_generator_updates_are_silent():
    assert codes(GAN_PEGGED) == []


MUTUAL = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)
        self.optim = torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optim, milestones=[100, 150])

    def forward(self, x):
        return self.fc(x)


def train(models, loader, epochs):
    optims = [m.optim for m in models]
    scheds = [m.scheduler for m in models]
    for epoch in range(epochs):
        for x, y in loader:
            outs = [m(x) for m in models]
            for k, opt in enumerate(optims):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(outs[k], y).backward(retain_graph=True)
                opt.step()
        for s in scheds:
            s.step()
'''


def test_mutual_learning_with_one_scheduler_per_model_stepped_per_epoch_is_silent():
    assert codes(MUTUAL) == []


def test_teacher_student_multistep_in_epochs_stepped_per_batch_is_reported():
    source = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--decay_epochs", type=int, nargs="+", default=[100, 150, 170])
config = parser.parse_args()


def train(student, teacher, loader, kd_loss):
    opt = torch.optim.Adam(student.parameters(), lr=1e-4)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=config.decay_epochs, gamma=0.5)
    teacher.eval()
    for epoch in range(config.epochs):
        for x, y in loader:
            with torch.no_grad():
                t = teacher(x)
            loss = kd_loss(student(x), t, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
'''
    assert findings(source) == [("LRD002", 23)]


def test_warmup_stepped_before_the_update_inside_the_accumulation_guard_is_reported():
    source = '''
import torch
from transformers import get_linear_schedule_with_warmup


def train(model, loader, epochs, accum, warmup):
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    total = len(loader) // accum * epochs
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=warmup, num_training_steps=total)
    for _ in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(**batch)[0] / accum
            loss.backward()
            if (step + 1) % accum == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                sched.step()
                opt.step()
                model.zero_grad()
'''
    assert findings(source) == [("LRD001", 16)]


def test_distiller_building_its_scheduler_after_adding_groups_accumulating_is_silent():
    source = '''
import torch
from transformers import get_linear_schedule_with_warmup


class Distiller:
    def __init__(self, student, teacher, projections, accum):
        self.student, self.teacher, self.projections, self.accum = student, teacher, projections, accum

    def train(self, optimizer, loader, epochs, scheduler_class, scheduler_args):
        for proj in self.projections:
            optimizer.add_param_group({"params": proj.parameters()})
        scheduler = scheduler_class(optimizer=optimizer, **scheduler_args)
        for epoch in range(epochs):
            optimizer.zero_grad()
            for step, batch in enumerate(loader):
                loss = self.student.kd(self.teacher, batch) / self.accum
                loss.backward()
                if (step + 1) % self.accum == 0:
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()


def main(student, teacher, loader, epochs, accum):
    optimizer = torch.optim.AdamW(student.parameters(), lr=1e-4)
    steps = len(loader) // accum * epochs
    Distiller(student, teacher, [], accum).train(
        optimizer, loader, epochs, get_linear_schedule_with_warmup,
        {"num_warmup_steps": steps // 10, "num_training_steps": steps})
'''
    assert codes(source) == []


def test_resume_restoring_the_optimizer_but_not_the_saved_scheduler_is_reported():
    source = '''
import torch
from transformers import get_linear_schedule_with_warmup


def pretrain(model, parts, epochs, ckpt_path, resume, load_part):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=parts * epochs // 10,
                                            num_training_steps=parts * epochs)
    start = 0
    if resume:
        state = torch.load(ckpt_path)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        start = state["epoch"]
    for epoch in range(start, epochs):
        for p in range(parts):
            for x in load_part(p):
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
            sched.step()
        torch.save({"epoch": epoch + 1, "model": model.state_dict(),
                    "optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, ckpt_path)
'''
    assert findings(source) == [("LRD007", 14)]


def test_candidate_optimizer_states_restored_in_memory_with_unstepped_schedulers_are_silent():
    source = '''
import copy
import torch


class EvoGAN:
    def __init__(self, gen, disc, n_candidates, policy):
        self.gen, self.disc = gen, disc
        self.opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
        self.opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
        self.schedulers = [torch.optim.lr_scheduler.LambdaLR(o, policy)
                           for o in (self.opt_g, self.opt_d)]
        self.g_cands, self.o_cands = [], []
        for _ in range(n_candidates):
            self.g_cands.append(copy.deepcopy(gen.state_dict()))
            self.o_cands.append(copy.deepcopy(self.opt_g.state_dict()))

    def step(self, real, losses):
        g_keep, o_keep = [], []
        for i in range(len(self.g_cands)):
            for loss_fn in losses:
                self.gen.load_state_dict(self.g_cands[i])
                self.opt_g.load_state_dict(self.o_cands[i])
                self.opt_g.zero_grad()
                loss_fn(self.disc, self.gen).backward()
                self.opt_g.step()
                g_keep.append(copy.deepcopy(self.gen.state_dict()))
                o_keep.append(copy.deepcopy(self.opt_g.state_dict()))
        self.g_cands = copy.deepcopy(g_keep)
        self.o_cands = copy.deepcopy(o_keep)
        self.opt_d.zero_grad()
        self.disc.loss(self.gen, real).backward()
        self.opt_d.step()


def train(model, loader, total):
    done = 0
    while done < total:
        for real in loader:
            model.step(real, [])
            done += 1
'''
    assert codes(source) == []


# -- an optimizer state restored from an in-memory population, item by item ---------------------

POPULATION = '''
import copy
import torch


class Population:
    def __init__(self, net, n, path):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=10)
        self.states = []
        for _ in range(n):
            self.states.append(FILL)

    def generation(self, batches):
        kept = []
        for LOOP_TARGET in self.states:
            self.opt.load_state_dict(state)
            for x in batches:
                self.opt.zero_grad()
                self.net(x).sum().backward()
                self.opt.step()
            kept.append(copy.deepcopy(self.opt.state_dict()))
        self.states = copy.deepcopy(kept)


def train(pop, loader, gens):
    for g in range(gens):
        pop.generation(loader)
        pop.sched.step()
'''


@pytest.mark.parametrize("target", ["state", "(i, state)", "state, _"])
def test_optimizer_state_taken_from_its_own_in_memory_population_is_not_a_resume(target):
    source = POPULATION.replace("FILL", "copy.deepcopy(self.opt.state_dict())") \
        .replace("LOOP_TARGET", target)
    if target == "(i, state)":
        source = source.replace("in self.states:", "in enumerate(self.states):")
    if target == "state, _":
        source = source.replace("in self.states:", "in zip(self.states, self.states):")
    assert codes(source) == []


def test_optimizer_states_read_from_a_file_into_the_population_are_a_resume():
    source = POPULATION.replace("FILL", "torch.load(path)['optimizer']") \
        .replace("LOOP_TARGET", "state")
    assert findings(source) == [("LRD007", 18)]


def test_optimizer_states_iterated_from_a_loaded_file_are_a_resume():
    source = '''
import torch


def resume_all(model, paths, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for state in torch.load(paths[0])["optimizers"]:
        opt.load_state_dict(state)
        for epoch in range(90):
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
            sched.step()
'''
    assert findings(source) == [("LRD007", 9)]


def test_each_checkpoint_of_a_list_loaded_in_a_loop_is_a_resume():
    source = '''
import torch


def finetune_each(model, paths, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    for path in paths:
        ckpt = torch.load(path)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        for epoch in range(90):
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
            sched.step()
'''
    assert findings(source) == [("LRD007", 11)]
