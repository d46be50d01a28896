"""Runtime schedule findings on set-ups that used to be misjudged: warm-ups from 0, a warm-up
beside a decay, three or more optimizers, tensor LRs."""

from __future__ import annotations

import pytest

from tests.watch.conftest import PRELUDE

torch = pytest.importorskip("torch")

# 32 batches per epoch: room for a 20-batch warm-up inside the first epoch
PRELUDE_32 = PRELUDE.replace("batch_size=16", "batch_size=8")


# ---- LRD009: a warm-up from 0 is not a collapse ---------------------------------------------


def test_hf_style_linear_warmup_from_zero_is_not_a_collapse(run_script):
    # transformers' get_linear_schedule_with_warmup: LambdaLR(step / warmup), LR 0 at step 1
    ran = run_script(PRELUDE + """
epochs, warmup = 3, 10
total = epochs * len(loader)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
def lr_lambda(step):
    if step < warmup:
        return step / warmup
    return max(0.0, (total - step) / (total - warmup))
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
for epoch in range(epochs):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    assert ran.codes == [], ran.watch.report()
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.first_lrs == (0.0,)  # the run really started at LR 0


def test_constant_schedule_with_warmup_from_zero_is_silent(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 8))
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    assert ran.codes == [], ran.watch.report()


def test_lr_that_dips_and_climbs_back_is_not_a_collapse(run_script):
    # a saw-tooth restarting every 24 steps: the trough is below 1e-6 of the peak for a few
    # steps, then the schedule rises again
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.4 ** (s % 24))
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    (opt,) = ran.watch.engine.optimizers.values()
    assert min(lr for _, (lr,) in opt.lr_history) < 0.1 * 1e-6  # it did dip that low
    assert ran.codes == [], ran.watch.report()


def test_collapse_from_the_peak_after_a_warmup_from_zero_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# warm-up from 0 to the peak in 4 steps, then halved every step and never back
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: s / 4 if s < 4 else 0.5 ** (s - 4))
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    f = ran.only("LRD009")
    assert "fell from 0.1 to" in f.message and "never recovered" in f.message


# ---- LRD002: judged per scheduler -----------------------------------------------------------


def test_linear_warmup_beside_per_batch_cosine_is_not_an_epoch_scheduler(run_script):
    ran = run_script(PRELUDE_32 + """
epochs = 3
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=20)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
for epoch in range(epochs):
    for x, y in loader:
        train_batch(x, y)
        warmup.step()
        cosine.step()
""")
    # the warm-up ends after 20 of the 32 batches of epoch 1, as meant; the cosine spans the run
    # (stepping two schedulers back to back stays LRD012's business)
    assert "LRD002" not in ran.codes, ran.watch.report()
    assert "LRD009" not in ran.codes


def test_short_warmup_alone_per_batch_is_silent(run_script):
    ran = run_script(PRELUDE_32 + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=20)
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    assert ran.codes == [], ran.watch.report()


def test_linear_decay_sized_in_epochs_stepped_per_batch_is_still_reported(run_script):
    ran = run_script(PRELUDE + """
epochs = 3
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.01,
                                              total_iters=epochs)
for epoch in range(epochs):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    assert "LRD002" in ran.codes


def test_decay_beside_a_warmup_is_reported_with_its_own_lr(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=5)
decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        warmup.step()
        decay.step()
""")
    hits = [f for f in ran.findings if f.code == "LRD002"]
    assert [f.message.split(" ")[0] for f in hits] == ["StepLR(step_size=7,"]
    # StepLR's own LR: from the base 0.1 (not the warm-up's 0.001), 16 // 7 = 2 decays in epoch 1
    assert "LR fell from 0.1 to 0.001 within epoch 1" in hits[0].message


def test_message_quotes_the_lr_at_the_end_of_epoch_1_not_at_the_end_of_training(run_script):
    # the README demo: 938 batches per epoch, StepLR(step_size=7) per batch; the script prints
    # 3e-137 after epoch 1 and 3e-271 after epoch 2 (scaled down here: 70 batches per epoch)
    ran = run_script(PRELUDE.replace("torch.randn(256, 8), torch.randn(256, 1)",
                                     "torch.randn(1120, 8), torch.randn(1120, 1)") + """
optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
after = []
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
    after.append(f"{scheduler.get_last_lr()[0]:.3g}")
""")
    f = ran.only("LRD002")
    end_of_1, end_of_2 = ran.ns["after"]
    assert (end_of_1, end_of_2) == ("3e-13", "3e-23")
    assert f"LR fell from 0.003 to {end_of_1} within epoch 1" in f.message
    assert f"to {end_of_2}" in f.message


# ---- three or more optimizers ---------------------------------------------------------------

THREE_MODELS = """
models = [torch.nn.Linear(8, 1) for _ in range(3)]
optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in models]
schedulers = [make_scheduler(o) for o in optimizers]
for epoch in range(2):
    for x, y in loader:
        for m, o, s in zip(models, optimizers, schedulers):
            o.zero_grad()
            torch.nn.functional.mse_loss(m(x), y).backward()
            o.step()
            if PER_BATCH:
                s.step()
    if not PER_BATCH:
        for s in schedulers:
            s.step()
"""


def test_steplr_per_batch_with_three_optimizers_is_reported_for_each(run_script):
    ran = run_script(PRELUDE + """
PER_BATCH = True
def make_scheduler(o):
    return torch.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.1)
""" + THREE_MODELS)
    assert ran.codes == ["LRD002"] * 3, ran.watch.report()
    assert all("16 times in epoch 1" in f.message for f in ran.findings)


def test_custom_scheduler_per_batch_with_three_optimizers_is_reported_for_each(run_script):
    ran = run_script(PRELUDE + """
PER_BATCH = True
class Decay(torch.optim.lr_scheduler.LRScheduler):
    def get_lr(self):
        return [base * 0.1 ** self.last_epoch for base in self.base_lrs]
def make_scheduler(o):
    return Decay(o)
""" + THREE_MODELS)
    assert ran.codes == ["LRD002"] * 3, ran.watch.report()


def test_steplr_per_epoch_with_three_optimizers_is_silent(run_script):
    ran = run_script(PRELUDE + """
PER_BATCH = False
def make_scheduler(o):
    return torch.optim.lr_scheduler.StepLR(o, step_size=1, gamma=0.5)
""" + THREE_MODELS)
    assert ran.codes == [], ran.watch.report()
    for opt in ran.watch.engine.optimizers.values():
        assert opt.epoch_attempts == [16, 16]


def test_batch_sized_schedulers_stepped_per_epoch_with_three_optimizers_are_each_lrd003(run_script):
    ran = run_script(PRELUDE + """
PER_BATCH = False
made = []
def make_scheduler(o):
    made.append(o)
    if len(made) == 2:  # the middle model: a cosine sized in batches
        return torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=2 * len(loader))
    return torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=2 * len(loader))
""" + THREE_MODELS)
    assert ran.codes == ["LRD003"] * 3, ran.watch.report()
    # each optimizer made 16 updates per epoch, not the 48 of all three together
    assert all("16 optimizer steps per epoch" in f.message for f in ran.findings)


# ---- tensor LRs -------------------------------------------------------------------------------


def test_tensor_lr_history_records_values_not_the_live_tensor(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""")
    (opt,) = ran.watch.engine.optimizers.values()
    steps = [step for step, _ in opt.lr_history]
    values = [lr for _, (lr,) in opt.lr_history]
    assert steps == [1, 17, 33]
    assert values == pytest.approx([0.01, 0.005, 0.0025])
    assert all(type(v) is float for v in values)
    (sched,) = ran.watch.engine.schedulers.values()
    assert sched.first_lrs == pytest.approx((0.01,)) and sched.last_lrs == pytest.approx((0.00125,))
    data = ran.watch.to_dict()
    assert [row[1] for row in data["optimizers"][0]["lr_history"]] == pytest.approx(values)
    assert "lr 0.01 -> 0.0025" in ran.watch.report()


def test_tensor_lr_steplr_per_batch_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=torch.tensor(0.003))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    f = ran.only("LRD002")
    assert "LR fell from 0.003 to 3e-05 within epoch 1" in f.message


def test_tensor_lr_training_is_bit_identical_with_and_without_watching(tmp_path):
    import lrdoctor

    def train() -> list[torch.Tensor]:
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        x, y = torch.randn(32, 8), torch.randn(32, 1)
        for _ in range(10):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
        return [p.detach().clone() for p in model.parameters()]

    plain = train()
    with lrdoctor.watch(echo=lambda text: None):
        watched = train()
    assert all(torch.equal(a, b) for a, b in zip(plain, watched))
