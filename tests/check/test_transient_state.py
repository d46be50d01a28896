"""State a checkpoint cannot hold: a warm-up scheduler that `train_one_epoch` builds for the
first epoch and steps only inside that call (every call builds its own, a resumed run too),
and a GradScaler behind a local `amp = False` that is never built. The epoch scheduler the
loop keeps across epochs, and a scaler behind `amp = True`, still have to be saved."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

WARMUP_PER_EPOCH_CALL = """
    import torch
    from torch.optim.lr_scheduler import LambdaLR, StepLR


    def warmup_scheduler(optimizer, iters):
        return LambdaLR(optimizer, lambda i: min(1.0, (i + 1) / iters))


    def train_one_epoch(model, optimizer, loader, epoch):
        warmup = None
        if epoch == 0:
            warmup = warmup_scheduler(optimizer, len(loader) - 1)
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
            if warmup is not None:
                warmup.step()


    def main():
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = [torch.randn(8, 4) for _ in range(10)]
        {built}
        for epoch in range(12):
            train_one_epoch(model, optimizer, loader, epoch)
            {stepped}
            torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch}}, "last.pt")


    main()
"""


def test_first_epoch_warmup_built_inside_the_epoch_function_needs_no_checkpoint() -> None:
    source = WARMUP_PER_EPOCH_CALL.format(built="lr = 0.1", stepped="pass")
    assert "LRD007" not in codes(source)


def test_the_epoch_scheduler_kept_across_epochs_must_still_be_saved() -> None:
    source = WARMUP_PER_EPOCH_CALL.format(built="scheduler = StepLR(optimizer, step_size=3)",
                                          stepped="scheduler.step()")
    assert findings(source) == [("LRD007", 30)]  # the torch.save
    assert "`scheduler`, StepLR" in messages(source)[0]


SCALER_BEHIND_A_LOCAL_SWITCH = """
    import torch


    def main():
        amp = {amp}  # needs a GPU
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3)
        scaler = torch.amp.GradScaler("cuda") if amp else None
        loader = [torch.randn(8, 4) for _ in range(10)]
        for epoch in range(12):
            for x in loader:
                optimizer.zero_grad()
                with torch.autocast("cuda", enabled=scaler is not None):
                    loss = model(x).sum()
                if scaler is not None:
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    loss.backward()
                    optimizer.step()
            scheduler.step()
            torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "lr_scheduler": scheduler.state_dict(), "epoch": epoch}}, "last.pt")


    main()
"""


def test_scaler_behind_a_local_switch_set_to_false_is_never_missing() -> None:
    assert "LRD007" not in codes(SCALER_BEHIND_A_LOCAL_SWITCH.format(amp="False"))


def test_scaler_behind_a_local_switch_set_to_true_must_be_saved() -> None:
    assert "LRD007" in codes(SCALER_BEHIND_A_LOCAL_SWITCH.format(amp="True"))


TRAINER_THAT_BUILDS_ON_RESUME = """
    import torch


    class Trainer:
        def __init__(self, model, epochs):
            self.model = model
            self.epochs = epochs
            self.current_epoch = 0
            self.optimizer = self.scheduler = None
            self.ready = False

        def initialize(self):
            self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, self.epochs)
            self.ready = True

        def load_checkpoint(self, path):
            if not self.ready:
                self.initialize()
            checkpoint = torch.load(path, weights_only=True)
            self.model.load_state_dict(checkpoint["weights"])
            self.optimizer.load_state_dict(checkpoint["optimizer"])
            self.current_epoch = checkpoint["epoch"] + 1

        def run(self, loader):
            if not self.ready:
                self.initialize()
            while self.current_epoch < self.epochs:
                self.scheduler.{step}
                for x in loader:
                    self.optimizer.zero_grad()
                    self.model(x).sum().backward()
                    self.optimizer.step()
                self.current_epoch += 1
"""


def test_resume_method_that_builds_its_own_scheduler_stepped_by_epoch_elsewhere_is_fine() -> None:
    source = TRAINER_THAT_BUILDS_ON_RESUME.format(step="step(self.current_epoch)")
    assert "LRD007" not in codes(source)


def test_resume_method_is_reported_when_the_scheduler_steps_on_its_own_count() -> None:
    source = TRAINER_THAT_BUILDS_ON_RESUME.format(step="step()")
    assert ("LRD007", 23) in findings(source)  # self.optimizer.load_state_dict


def test_optimizer_rebuilt_for_sharding_beside_an_unstepped_scheduler_parameter_is_fine() -> None:
    source = """
        import torch


        def describe(scheduler):
            return scheduler.get_lr()


        def reshard(model, optimizer, scheduler, state):
            params = [p for p in model.parameters() if p.requires_grad]
            new_optimizer = optimizer.__class__(params, **optimizer.defaults)
            new_optimizer.load_state_dict(state)
            print(describe(scheduler))
            return new_optimizer
    """
    assert "LRD007" not in codes(source)


def test_resume_in_a_helper_that_steps_its_scheduler_parameter_without_restoring_it() -> None:
    source = """
        import torch


        def resume_and_train(model, optimizer, scheduler, loader, path):
            state = torch.load(path, weights_only=True)
            optimizer.load_state_dict(state["optimizer"])
            for epoch in range(state["epoch"] + 1, 90):
                for x in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                scheduler.step()
    """
    assert "LRD007" in codes(source)


# The whole training is one call that the driver makes in `for epoch in range(args.epochs)`;
# how often that loop runs is what the file states for the setting
_WHOLE_RUN_CALL = """
import argparse
import torch


def train(model, optimizer, loader, iterations):
    scaler = torch.amp.GradScaler("cuda")
    for it, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if it % 1000 == 0:
            torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict()}}, "last.pt")
        if it >= iterations:
            break


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default={epochs})
args = parser.parse_args()
model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)))
for epoch in range(args.epochs):
    train(model, optimizer, loader, 2 ** 20)
"""


def test_a_scaler_built_by_a_call_the_driver_makes_once_belongs_to_the_whole_run() -> None:
    # `range(args.epochs)` with a default of 1: the call is the run, its scaler the run's
    assert ("LRD007", 16) in findings(_WHOLE_RUN_CALL.format(epochs=1))


def test_control_a_scaler_built_afresh_every_epoch_has_no_state_for_the_mid_epoch_save() -> None:
    assert "LRD007" not in codes(_WHOLE_RUN_CALL.format(epochs=100))
