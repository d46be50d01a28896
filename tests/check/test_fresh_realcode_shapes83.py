"""rcnew82, batch fresh-2026-12zi82 (generative, audio and RL training code): shapes of the
bug families the batch showed, probed in our own words and fixed by semantics.

1. LRD109, a GAN with one GradScaler per network (or one shared by both): the
   discriminator's `scaler_d.step(d_opt)` unscales and checks only the discriminator's
   gradients; the generator's loss, scaled for backward after it, reaching a direct
   `g_opt.step()` is still multiplied by the scale. A scaler step on another optimizer that
   ran before that scaled backward no longer silences the rule.
2. LRD010, a schedule sized to an outer loop's count but stepped in counted loops nested in
   it: a PPO `LinearLR(total_iters=num_updates)` decaying to 0 (or a cosine with
   `T_max=num_updates`) stepped inside `for epoch in range(update_epochs): for mb in
   range(num_minibatches):` spends its horizon in 1/(update_epochs x num_minibatches) of the
   run. A warm-up LinearLR, a horizon counting every step, or loops that may leave early stay
   silent.
3. LRD001, a scheduler stepped on every pass while its optimizer waits for a phase of
   training (`if epoch >= disc_start:` around the discriminator's update): it steps before
   the first update and spends its schedule on no update. The same test around both, a phase
   that starts at once, or a random draw stay silent.
"""

from __future__ import annotations

from .helpers import codes, findings

# -- 1. LRD109: a direct step after another optimizer's scaler step --------------------------

GAN_AMP = """
import torch

gen = torch.nn.Linear(8, 8).cuda()
critic = torch.nn.Linear(8, 1).cuda()
batches = [torch.randn(4, 8) for _ in range(16)]
g_opt = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.5, 0.9))
c_opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
SCALERS
for epoch in range(20):
    for real in batches:
        real = real.cuda()
        with torch.autocast("cuda"):
            fake = gen(real)
            c_loss = critic(fake.detach()).mean() - critic(real).mean()
        c_opt.zero_grad()
        C_SCALER.scale(c_loss).backward()
        C_SCALER.step(c_opt)
        C_UPDATE
GEN_PART
"""

TWO_SCALERS = 'g_scaler = torch.amp.GradScaler("cuda")\nc_scaler = torch.amp.GradScaler("cuda")'
ONE_SCALER = 'scaler = torch.amp.GradScaler("cuda")'


def gan(scalers: str, c_scaler: str, c_update: str, gen_part: str) -> str:
    return (GAN_AMP.replace("SCALERS", scalers).replace("C_SCALER", c_scaler)
            .replace("C_UPDATE", c_update).replace("GEN_PART", gen_part))


GEN_BYPASS = """        with torch.autocast("cuda"):
            g_loss = -critic(fake).mean()
        g_opt.zero_grad()
        g_scaler.scale(g_loss).backward()
        g_opt.step()
        g_scaler.update()"""

GEN_THROUGH_SCALER = """        with torch.autocast("cuda"):
            g_loss = -critic(fake).mean()
        g_opt.zero_grad()
        g_scaler.scale(g_loss).backward()
        g_scaler.step(g_opt)
        g_scaler.update()"""

GEN_PLAIN = """        g_loss = -critic(fake.float()).mean()
        g_opt.zero_grad()
        g_loss.backward()
        g_opt.step()"""

SHARED_BYPASS = """        with torch.autocast("cuda"):
            g_loss = -critic(fake).mean()
        g_opt.zero_grad()
        scaler.scale(g_loss).backward()
        g_opt.step()
        scaler.update()"""


def test_generator_step_bypasses_its_own_scaler_after_the_critics_scaler_step() -> None:
    found = findings(gan(TWO_SCALERS, "c_scaler", "c_scaler.update()", GEN_BYPASS))
    assert ("LRD109", 25) in found, found


def test_generator_step_bypasses_a_shared_scaler_after_the_critics_step() -> None:
    found = findings(gan(ONE_SCALER, "scaler", "", SHARED_BYPASS))
    assert ("LRD109", 24) in found, found


def test_both_networks_step_through_their_scalers_is_silent() -> None:
    source = gan(TWO_SCALERS, "c_scaler", "c_scaler.update()", GEN_THROUGH_SCALER)
    assert "LRD109" not in codes(source)


def test_generator_on_a_plain_backward_after_the_critics_scaler_is_silent() -> None:
    source = gan(ONE_SCALER, "scaler", "scaler.update()", GEN_PLAIN)
    assert "LRD109" not in codes(source)


# -- 2. LRD010: a horizon of the outer loop spent by the loops nested in it ----------------

PPO = """
import argparse
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR

parser = argparse.ArgumentParser()
parser.add_argument("--num-updates", type=int, default=200)
parser.add_argument("--update-epochs", type=int, default=4)
parser.add_argument("--minibatches", type=int, default=8)
args = parser.parse_args()

agent = torch.nn.Linear(16, 5)
optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
SCHED
for update in range(args.num_updates):
    rollout = torch.randn(256, 16)
    for epoch in range(args.update_epochs):
        for mb in range(args.minibatches):
            loss = agent(rollout[mb::args.minibatches]).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
            INNER_STEP
            EARLY
    OUTER_STEP
"""


def ppo(sched: str, inner: str = "scheduler.step()", outer: str = "pass",
        early: str = "pass") -> str:
    return (PPO.replace("SCHED", sched).replace("INNER_STEP", inner)
            .replace("OUTER_STEP", outer).replace("EARLY", early))


DECAY = "scheduler = LinearLR(optimizer, start_factor=1.0, end_factor=0.0, total_iters=args.num_updates)"
COSINE = "scheduler = CosineAnnealingLR(optimizer, T_max=args.num_updates)"
WARMUP = "scheduler = LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=args.num_updates)"
EVERY_STEP = ("scheduler = LinearLR(optimizer, start_factor=1.0, end_factor=0.0,\n"
              "                     total_iters=args.num_updates * args.update_epochs * args.minibatches)")


def test_linear_decay_over_updates_stepped_per_minibatch() -> None:
    found = findings(ppo(DECAY))
    assert ("LRD010", 24) in found, found


def test_cosine_over_updates_stepped_per_minibatch() -> None:
    found = findings(ppo(COSINE))
    assert ("LRD010", 24) in found, found


def test_linear_decay_stepped_once_per_update_is_silent() -> None:
    assert "LRD010" not in codes(ppo(DECAY, inner="pass", outer="scheduler.step()"))


def test_linear_warmup_over_updates_stepped_per_minibatch_is_silent() -> None:
    # past total_iters a warm-up LinearLR holds the full LR, which is what it is for
    assert "LRD010" not in codes(ppo(WARMUP))


def test_horizon_counting_every_minibatch_step_is_silent() -> None:
    assert "LRD010" not in codes(ppo(EVERY_STEP))


def test_minibatch_loop_that_may_stop_early_is_silent() -> None:
    source = ppo(DECAY, early="if loss.item() < 1e-3:\n                break")
    assert "LRD010" not in codes(source)


def test_literal_counts_that_only_look_alike_are_silent() -> None:
    source = PPO.replace("args.num_updates", "200").replace(
        "SCHED", "scheduler = LinearLR(optimizer, 1.0, 0.0, total_iters=200)").replace(
        "INNER_STEP", "scheduler.step()").replace("OUTER_STEP", "pass").replace("EARLY", "pass")
    assert "LRD010" not in codes(source)


# -- 3. LRD001: the schedule starts before a late phase's first update ---------------------

LATE_CRITIC = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

DISC_START = FIRST_EPOCH
gen = torch.nn.Linear(8, 8)
critic = torch.nn.Linear(8, 1)
batches = [torch.randn(4, 8) for _ in range(16)]
g_opt = torch.optim.Adam(gen.parameters(), lr=2e-4)
c_opt = torch.optim.Adam(critic.parameters(), lr=2e-4)
g_sched = CosineAnnealingLR(g_opt, T_max=60 * len(batches))
c_sched = CosineAnnealingLR(c_opt, T_max=60 * len(batches))
for epoch in range(60):
    for real in batches:
        fake = gen(real)
        g_opt.zero_grad()
        (fake - real).abs().mean().backward()
        g_opt.step()
        CRITIC
        g_sched.step()
        C_STEP
"""

GATED = """if GATE:
            c_opt.zero_grad()
            (critic(fake.detach()) - critic(real)).mean().backward()
            c_opt.step()"""

ELSE_GATED = """if epoch < DISC_START:
            pass
        else:
            c_opt.zero_grad()
            (critic(fake.detach()) - critic(real)).mean().backward()
            c_opt.step()"""


def late(start: str = "10", critic: str = GATED, gate: str = "epoch >= DISC_START",
         step: str = "c_sched.step()") -> str:
    return (LATE_CRITIC.replace("FIRST_EPOCH", start).replace("CRITIC", critic)
            .replace("GATE", gate).replace("C_STEP", step))


def test_critic_scheduler_steps_every_batch_before_its_late_phase() -> None:
    found = findings(late())
    assert ("LRD001", 24) in found, found


def test_critic_update_in_the_else_of_a_warmup_test() -> None:
    found = findings(late(critic=ELSE_GATED))
    assert ("LRD001", 26) in found, found


def test_critic_phase_start_from_a_setting_default() -> None:
    source = late().replace(
        "DISC_START = 10",
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--disc-start', type=int, default=5)\nDISC_START = p.parse_args().disc_start")
    found = findings(source)
    assert any(c == "LRD001" for c, _ in found), found


def test_critic_scheduler_under_the_same_phase_test_is_silent() -> None:
    source = late(step="if epoch >= DISC_START:\n            c_sched.step()")
    assert "LRD001" not in codes(source)


def test_phase_that_starts_at_once_is_silent() -> None:
    assert "LRD001" not in codes(late(start="0"))


def test_critic_trained_on_a_random_draw_is_silent() -> None:
    source = "import random\n" + late(gate="random.random() < 0.5")
    assert "LRD001" not in codes(source)
