"""Schedule findings that depend on what the file states: get_lr() on schedulers whose value
is right (LRD015 only where it is wrong), and a StepLR's gamma when it comes from a variable."""

from __future__ import annotations

from tests.check.helpers import codes, messages

HEADER = """
import argparse
import torch
from torch.utils.data import DataLoader
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def script(body: str) -> str:
    return HEADER + body


def _logging_get_lr(constructor: str) -> str:
    return script(f"""
scheduler = {constructor}
for epoch in range(5):
    for x in loader:
        optimizer.step()
        scheduler.step()
    print("lr", scheduler.get_lr()[0])
""")


def test_get_lr_on_chainable_steplr_is_reported() -> None:
    src = _logging_get_lr("torch.optim.lr_scheduler.StepLR(optimizer, step_size=100 * len(loader))")
    assert codes(src) == ["LRD015"]


def test_get_lr_on_cosine_annealing_is_reported() -> None:
    src = _logging_get_lr(
        "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5 * len(loader))"
    )
    assert codes(src) == ["LRD015"]


def test_get_lr_on_closed_form_lambda_lr_is_not_reported() -> None:
    src = _logging_get_lr("torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.99 ** s)")
    assert codes(src) == []


def test_get_lr_on_onecycle_is_not_reported() -> None:
    src = _logging_get_lr(
        "torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=5 * len(loader))"
    )
    assert codes(src) == []


def test_get_lr_on_the_projects_own_scheduler_is_not_reported() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import _LRScheduler

    class WarmupPoly(_LRScheduler):
        def get_lr(self):
            return [base * (1 - self.last_epoch / 1000) ** 0.9 for base in self.base_lrs]

    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = WarmupPoly(optimizer)
    for step in range(1000):
        optimizer.step()
        scheduler.step()
        print(scheduler.get_lr()[0])
    """
    assert codes(src) == []


def _steplr_per_batch(gamma: str, setup: str = "") -> str:
    return script(f"""{setup}
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma={gamma})
for epoch in range(90):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")


def test_steplr_gamma_from_an_unknown_variable_is_named_not_assumed() -> None:
    src = _steplr_per_batch("decay", setup="decay = float(input())")
    assert codes(src) == ["LRD002"]
    assert "multiplied by gamma (`decay`) every 30 batches" in messages(src)[0]
    assert "0.1" not in messages(src)[0]


def test_steplr_gamma_from_an_argparse_default_is_stated() -> None:
    src = _steplr_per_batch("args.lr_gamma", setup="""
parser = argparse.ArgumentParser()
parser.add_argument("--lr-gamma", type=float, default=0.5)
args = parser.parse_args()""")
    assert codes(src) == ["LRD002"]
    assert "multiplied by 0.5 every 30 batches" in messages(src)[0]


def test_steplr_gentle_gamma_from_a_constant_is_a_per_step_design() -> None:
    src = _steplr_per_batch("GAMMA", setup="GAMMA = 0.999")
    assert codes(src) == []


def test_steplr_every_10_batches_with_gamma_095_collapses_and_is_reported() -> None:
    # 0.95 looks gentle, but every 10 batches it divides the LR by ~170 per 1000 batches
    src = _steplr_per_batch("0.95").replace("step_size=30", "step_size=10")
    assert codes(src) == ["LRD002"]


def test_steplr_every_10_batches_with_gamma_099_is_a_per_step_design() -> None:
    src = _steplr_per_batch("0.99").replace("step_size=30", "step_size=10")
    assert codes(src) == []


def test_exponential_decay_per_batch_with_gamma_from_a_constant_is_reported() -> None:
    src = script("""
GAMMA = 0.9
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=GAMMA)
for epoch in range(90):
    for x in loader:
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == ["LRD002"]


def test_plateau_stepped_without_metric_only_in_a_branch_beside_a_metric_step_is_left_alone() -> None:
    src = script("""
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)

def train_epoch(step_mode):
    for x in loader:
        optimizer.step()
        if step_mode == "batch":
            plateau.step()

for epoch in range(10):
    train_epoch("epoch")
    val_loss = 1.0
    plateau.step(val_loss)
""")
    assert codes(src) == []


def test_plateau_stepped_without_metric_everywhere_is_reported() -> None:
    src = script("""
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
for epoch in range(10):
    for x in loader:
        optimizer.step()
    plateau.step()
""")
    assert codes(src) == ["LRD004"]


def test_lambda_from_a_bound_step_method_counts_what_its_object_counts() -> None:
    src = script("""
class DecayAfter:
    def __init__(self, n_epochs, offset, decay_start_epoch):
        self.n_epochs, self.offset, self.decay_start_epoch = n_epochs, offset, decay_start_epoch

    def step(self, epoch):
        return 1.0 - max(0, epoch + self.offset - self.decay_start_epoch) / (
            self.n_epochs - self.decay_start_epoch)

n_epochs, decay_epoch = 200, 100
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lr_lambda=DecayAfter(n_epochs, 0, decay_epoch).step)
for epoch in range(n_epochs):
    for x in loader:
        optimizer.step()
    scheduler.step()
""")
    assert codes(src) == []


def test_plateau_metric_chosen_by_a_setting_with_a_fitting_branch_is_left_alone() -> None:
    src = script("""
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")

def train_model(scheduler_on):
    losses, accs = [], []
    for epoch in range(10):
        for x in loader:
            optimizer.step()
            losses.append(1.0)
        accs.append(0.5)
        if scheduler_on == "valid_acc":
            plateau.step(accs[-1])
        elif scheduler_on == "minibatch_loss":
            plateau.step(losses[-1])

train_model(scheduler_on="valid_acc")
""")
    assert codes(src) == []


def test_plateau_in_max_mode_watching_only_a_loss_is_reported() -> None:
    src = script("""
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")
for epoch in range(10):
    for x in loader:
        optimizer.step()
    val_loss = 1.0
    plateau.step(val_loss)
""")
    assert codes(src) == ["LRD004"]
