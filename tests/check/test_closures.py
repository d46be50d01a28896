"""A function defined inside the training function reads the names of the call around it:
`def train_step(): scheduler.step(); ...` in the batch loop steps the scheduler that function
built (a StepLR sized in epochs stepped per batch is LRD002), not an unknown object known
only by its name; a schedule class of the project's own that sets the LR of the coming
update in its step() (I-JEPA's WarmupCosineSchedule) is not a torch scheduler stepped too
early."""

from __future__ import annotations

from tests.check.helpers import codes

CLOSURE_STEP = """
    import math
    import torch


    class WarmupCosine:
        def __init__(self, optimizer, warmup, total):
            self.optimizer, self.warmup, self.total, self.count = optimizer, warmup, total, 0

        def step(self):
            self.count += 1
            progress = self.count / self.total
            lr = min(1.0, self.count / self.warmup) * 0.5 * (1 + math.cos(math.pi * progress))
            for group in self.optimizer.param_groups:
                group["lr"] = 1e-3 * lr
            return lr


    def main():
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        dataset = torch.utils.data.TensorDataset(torch.randn(80, 4))
        loader = torch.utils.data.DataLoader(dataset, batch_size=8)
        scheduler = {built}
        for epoch in range(100):
            for (x,) in loader:
                def train_step():
                    scheduler.step()
                    optimizer.zero_grad()
                    loss = model(x).sum()
                    loss.backward()
                    optimizer.step()
                    return float(loss)
                train_step()


    main()
"""


def test_project_schedule_that_sets_the_coming_updates_lr_in_a_closure_is_fine() -> None:
    assert codes(CLOSURE_STEP.format(built="WarmupCosine(optimizer, 10, 1000)")) == []


def test_epoch_steplr_stepped_per_batch_inside_a_closure_is_lrd002() -> None:
    source = CLOSURE_STEP.format(built="torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)")
    assert "LRD002" in codes(source)
