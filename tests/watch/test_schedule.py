"""The runtime schedule checks on small, real training loops."""

from __future__ import annotations

import pytest

from lrdoctor import ScheduleError
from tests.watch.conftest import PRELUDE

# ---- misuse is reported ------------------------------------------------------------------


def line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_steplr_stepped_per_batch_is_reported_with_numbers_and_line(run_script):
    source = PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.003)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
"""
    ran = run_script(source)
    f = ran.only("LRD002")
    assert ran.codes == ["LRD002"]  # the collapse it causes is not reported twice
    assert f.location.path.endswith("train.py")
    assert f.location.line == line_of(source, "scheduler.step()")
    assert "StepLR(step_size=7" in f.message and "16 times in epoch 1" in f.message
    # the LR in force at the end of epoch 1 (16 // 7 = 2 decays), then where training ended
    assert "LR fell from 0.003 to 3e-05 within epoch 1" in f.message
    assert "to 3e-07" in f.message


def test_epoch_scheduler_per_batch_raises_in_strict_mode_during_first_epoch(run_script):
    with pytest.raises(ScheduleError) as err:
        run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)
seen = []
for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        seen.append((epoch, i))
        train_batch(x, y)
        scheduler.step()
""", strict=True)
    assert err.value.finding.code == "LRD002"
    # raised in epoch 1 at the 6th step, not at the end of training
    assert "6 steps into epoch 1" in err.value.finding.message


def test_plateau_stepped_per_batch_with_patience_in_epochs_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step(loss.item())
""")
    assert "LRD002" in ran.codes


def test_lambda_warmup_sized_in_epochs_but_stepped_per_batch_is_reported(run_script):
    ran = run_script(PRELUDE + """
epochs = 3
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total = epochs  # wrong: should be epochs * len(loader)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / total))
for epoch in range(epochs):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    f = ran.only("LRD002")
    assert "reached 0 after 3 steps" in f.message


def test_onecycle_stepped_per_epoch_is_reported_after_the_first_epoch(run_script):
    with pytest.raises(ScheduleError) as err:
        run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=5,
                                                steps_per_epoch=len(loader))
epochs_started = 0
for epoch in range(5):
    epochs_started += 1
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""", strict=True)
    f = err.value.finding
    assert f.code == "LRD003"
    assert "16 optimizer steps per epoch" in f.message and "step 1/80" in f.message


def test_cosine_sized_in_batches_stepped_per_epoch_is_reported_at_the_end(run_script):
    ran = run_script(PRELUDE + """
epochs = 4
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
for epoch in range(epochs):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""")
    assert ran.codes == ["LRD003"]
    assert "4/64" in ran.only("LRD003").message


def test_scheduler_at_top_of_epoch_loop_is_reported(run_script):
    source = PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
for epoch in range(3):
    scheduler.step()
    for x, y in loader:
        train_batch(x, y)
"""
    ran = run_script(source)
    f = ran.only("LRD001")
    assert f.location.line == line_of(source, "scheduler.step()")
    assert "once before SGD" in f.message


def test_gradient_accumulation_with_per_microbatch_scheduler_is_lrd017_not_lrd001(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=3 * 16)
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        (torch.nn.functional.mse_loss(model(x), y) / 4).backward()
        if (i + 1) % 4 == 0:
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
""")
    assert ran.codes == ["LRD017"]
    assert "4 times per SGD step" in ran.only("LRD017").message


def test_onecycle_overrun_crash_is_explained(run_script):
    with pytest.raises(ValueError, match="Tried to step"):
        run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=20)
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")


def test_overrun_finding_recorded_when_onecycle_raises(tmp_path):
    import runpy

    import lrdoctor

    path = tmp_path / "t.py"
    path.write_text(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=20)
for epoch in range(2):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    w = lrdoctor.watch(echo=lambda m: None)
    with pytest.raises(ValueError):
        with w:
            runpy.run_path(str(path), run_name="__main__")
    codes = [f.code for f in w.findings]
    assert "LRD010" in codes
    assert "raised ValueError at step 21" in next(f for f in w.findings if f.code == "LRD010").message


def test_lambda_warmup_stepped_beside_a_decay_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / 2))
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
    decay.step()
    warmup.step()
""")
    assert ran.codes == ["LRD012"]
    assert "LambdaLR recomputes the LR" in ran.watch.findings[0].message


def test_chainable_schedulers_stepped_back_to_back_are_a_chained_scheduler(run_script):
    # PyTorch documents stepping chainable schedulers one after the other as correct
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
a = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
b = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
    a.step()
    b.step()
""")
    assert ran.codes == [], ran.watch.report()


def test_scheduler_on_replaced_optimizer_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
for epoch in range(3):
    if epoch == 1:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""")
    assert ran.codes == ["LRD014"]
    assert "Adam took 16 steps" in ran.only("LRD014").message


def test_manual_lr_write_while_scheduler_drives_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
    if epoch == 1:
        optimizer.param_groups[0]["lr"] = 0.5
""")
    assert ran.codes == ["LRD008"]
    assert "to 0.5" in ran.only("LRD008").message


def test_amp_skips_explain_pytorchs_order_warning(run_script):
    ran = run_script("""
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, total_iters=100)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
x, y = torch.randn(64, 8), torch.randn(64, 1) * 3
for step in range(30):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
""")
    f = ran.only("LRD005")
    skipped = f.evidence["skipped"]
    assert skipped >= 1 and f.evidence["skipped_at_start"] >= 1
    assert "Detected call of `lr_scheduler.step()` before `optimizer.step()`" in f.message
    assert "not by your call order" in f.message
    assert "LRD001" not in ran.codes


def test_fused_optimizer_skips_count_as_skipped(run_script):
    ran = run_script("""
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, fused=True)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
x, y = torch.randn(64, 8), torch.randn(64, 1) * 3
for step in range(20):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
final_scale = scaler.get_scale()
""")
    info = next(iter(ran.watch.engine.optimizers.values()))
    assert info.attempts == 20
    # each skip halves the scale from 2**20
    import math
    expected_skips = round(math.log2(2.0**20 / ran.ns["final_scale"]))
    assert info.skipped == expected_skips >= 1
    assert info.taken == 20 - expected_skips


# ---- correct loops stay silent -----------------------------------------------------------

CORRECT = {
    "per_epoch_steplr": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""",
    "steplr_sized_in_batches_per_batch": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2 * len(loader), gamma=0.5)
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""",
    "per_batch_onecycle": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=3,
                                                steps_per_epoch=len(loader))
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""",
    "plateau_on_validation_loss": """
val = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1)
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
    with torch.no_grad():
        val_loss = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val)
    scheduler.step(val_loss)
""",
    "sequential_warmup_then_cosine_per_batch": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
warm = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=10)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3 * len(loader) - 10)
scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warm, cos], milestones=[10])
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""",
    "chained_per_epoch": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ChainedScheduler([
    torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=2),
    torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9),
])
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""",
    "gradient_accumulation_stepped_per_update": """
accum = 4
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1,
                                                total_steps=3 * len(loader) // accum)
for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
""",
    "lambda_linear_warmup_per_batch": """
epochs = 3
total = epochs * len(loader)
warmup = 10
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / (total - warmup))
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
for epoch in range(epochs):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""",
    "hand_written_lr_no_scheduler": """
import math
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
it = 0
for epoch in range(3):
    for x, y in loader:
        lr = 1e-3 * 0.5 * (1 + math.cos(math.pi * it / 48))
        for group in optimizer.param_groups:
            group["lr"] = lr
        train_batch(x, y)
        it += 1
""",
    "warm_restarts_with_fractional_epoch": """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2)
iters = len(loader)
for epoch in range(4):
    for i, (x, y) in enumerate(loader):
        train_batch(x, y)
        scheduler.step(epoch + i / iters)
""",
    "amp_scheduler_only_on_real_updates": """
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=3 * len(loader))
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y * 3)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scale = scaler.get_scale()
        scaler.update()
        if scaler.get_scale() >= scale:
            scheduler.step()
""",
    "validation_loader_inside_epoch_and_user_subclass": """
class Warmup(torch.optim.lr_scheduler.LambdaLR):
    def __init__(self, optimizer, steps):
        super().__init__(optimizer, lambda s: min(1.0, (s + 1) / steps))
    def step(self, *args, **kwargs):
        super().step(*args, **kwargs)
val = DataLoader(TensorDataset(torch.randn(100, 8), torch.randn(100, 1)), batch_size=10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = Warmup(optimizer, 20)
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
    with torch.no_grad():
        for x, y in val:
            model(x)
""",
    "two_optimizers_each_with_its_scheduler": """
gen, disc = torch.nn.Linear(8, 8), torch.nn.Linear(8, 1)
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
sched_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=2)
sched_d = torch.optim.lr_scheduler.StepLR(opt_d, step_size=2)
for epoch in range(3):
    for x, _ in loader:
        opt_d.zero_grad()
        disc(gen(x).detach()).mean().backward()
        opt_d.step()
        opt_g.zero_grad()
        (-disc(gen(x)).mean()).backward()
        opt_g.step()
    sched_g.step()
    sched_d.step()
""",
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_loop_is_silent(run_script, name):
    ran = run_script(PRELUDE + CORRECT[name])
    assert ran.codes == [], ran.watch.report()


def test_user_subclass_and_composites_count_user_steps_only(run_script):
    ran = run_script(PRELUDE + CORRECT["sequential_warmup_then_cosine_per_batch"])
    engine = ran.watch.engine
    by_class = {s.cls: s for s in engine.schedulers.values()}
    assert by_class["SequentialLR"].user_steps == 48
    assert by_class["LinearLR"].user_steps == 0 and by_class["LinearLR"].parent_key
    assert by_class["CosineAnnealingLR"].user_steps == 0
    ran = run_script(PRELUDE + CORRECT["validation_loader_inside_epoch_and_user_subclass"])
    (sched,) = ran.watch.engine.schedulers.values()
    assert sched.cls == "Warmup" and sched.user_steps == 48
    assert ran.watch.engine.train_loader.length == 16
    assert sched.epoch_steps == [16, 16, 16]


def test_collapse_after_a_warmup_from_zero_is_measured_against_the_base_lr(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# warm-up from exactly 0 (like HF's linear warm-up), then a decay far too fast per batch
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: s / 4 if s < 4 else 0.5 ** (s - 4))
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    f = ran.only("LRD009")
    assert "fell from 0.1 to" in f.message


def test_lr_of_every_param_group_is_recorded_at_every_change(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD([{"params": model.weight, "lr": 0.1},
                             {"params": model.bias, "lr": 0.01}])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
for epoch in range(3):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""")
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.lr_history == [(1, (0.1, 0.01)), (17, (0.05, 0.005)), (33, (0.025, 0.0025))]
    assert ran.watch.to_dict()["optimizers"][0]["lr_history"][1] == [17, 0.05, 0.005]


def test_training_loader_is_the_one_whose_batch_was_fetched_last(run_script):
    # Lightning's order: the train iterator is made, then a sanity-check pass over the
    # validation loader (kept alive), then training; per-epoch OneCycleLR must be LRD003
    ran = run_script(PRELUDE + """
val = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4 * 16)
for epoch in range(4):
    train_iter = iter(loader)
    val_iter = iter(val)
    sanity = [next(val_iter), next(val_iter)]
    for x, y in train_iter:
        train_batch(x, y)
    scheduler.step()
""")
    assert ran.watch.engine.train_loader.length == 16
    assert ran.codes == ["LRD003"]
