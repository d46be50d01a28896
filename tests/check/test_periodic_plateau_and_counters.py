"""An iteration-counted loop: a scheduler step guarded by a counter the loop rebinds
(`iteration = epoch * len(loader) + i`, `if iteration > 0 and ...`) does not run before the
first update, so it is no LRD001; a ReduceLROnPlateau stepped every N iterations inside the
batch loop with the running training loss while the loop also computes a validation loss is
LRD004, also when a setting picks between two such steps, but not when the other branch of
that setting feeds the validation loss."""

from __future__ import annotations

from tests.check.helpers import codes

COUNTER_GUARD = """
    import torch

    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    finder = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: 1.1 ** i)
    loader = [torch.randn(8, 4) for _ in range(10)]
    for epoch in range(3):
        for i, x in enumerate(loader):
            iteration = epoch * len(loader) + i
            if {guard}:
                finder.step()
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
"""


def test_step_guarded_by_a_counter_past_zero_never_precedes_the_first_update() -> None:
    assert "LRD001" not in codes(COUNTER_GUARD.format(guard="iteration > 0 and iteration % 5 == 0"))


def test_step_guarded_only_by_a_setting_still_precedes_every_update() -> None:
    source = COUNTER_GUARD.format(guard="torch.cuda.is_available() or True")
    assert "LRD001" in codes(source)


PERIODIC_PLATEAU = """
    import torch


    def evaluate(model, loader):
        with torch.no_grad():
            return sum(model(x).sum().item() for x in loader) / len(loader)


    def main(args):
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5)
        loader = [torch.randn(8, 4) for _ in range(50)]
        val_loader = [torch.randn(8, 4) for _ in range(5)]
        total_loss = 0.0
        for epoch in range(10):
            for i, x in enumerate(loader):
                iteration = epoch * len(loader) + i
                if iteration > 0 and iteration % args.every == 0:
                    if args.quick:
                        plateau.step(total_loss)
                    else:
                        plateau.step({other})
                    total_loss = 0.0
                optimizer.zero_grad()
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
                total_loss += loss.item()
                if iteration % args.every == 0:
                    valid_loss = evaluate(model, val_loader)
                    print(valid_loss)
"""


def test_plateau_stepped_every_n_iterations_with_the_training_loss_is_lrd004() -> None:
    assert "LRD004" in codes(PERIODIC_PLATEAU.format(other="total_loss"))


def test_setting_that_picks_the_validation_loss_in_its_other_branch_is_left_alone() -> None:
    assert "LRD004" not in codes(PERIODIC_PLATEAU.format(other="valid_loss"))
