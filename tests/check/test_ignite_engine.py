"""PyTorch-Ignite: `Engine(update)` runs `update` on every batch of every epoch and calls the
handlers attached to its events around them (`@trainer.on(Events.EPOCH_STARTED)`,
`trainer.add_event_handler(Events.ITERATION_COMPLETED, fn)`). A scheduler stepped on
EPOCH_STARTED steps before the epoch's updates (LRD001, the reid-strong-baseline shape); on
EPOCH_COMPLETED it is fine; a OneCycleLR sized in batches is stepped per batch on
ITERATION_COMPLETED, and once per epoch on EPOCH_COMPLETED (LRD003)."""

from __future__ import annotations

from tests.check.helpers import codes

DECORATED = """
    import torch
    from ignite.engine import Engine, Events


    def do_train(model, loader, optimizer, scheduler, epochs):
        def update(engine, batch):
            model.train()
            optimizer.zero_grad()
            loss = model(batch).sum()
            loss.backward()
            optimizer.step()
            return loss.item()

        trainer = Engine(update)

        @trainer.on(Events.{event})
        def adjust_learning_rate(engine):
            scheduler.step()

        trainer.run(loader, max_epochs=epochs)


    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(torch.randn(80, 4), batch_size=8)
    scheduler = {built}
    do_train(model, loader, optimizer, scheduler, 120)
"""

STEP_LR = "torch.optim.lr_scheduler.MultiStepLR(optimizer, [40, 70])"
ONE_CYCLE = "torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, epochs=120, steps_per_epoch=len(loader))"


def test_scheduler_stepped_when_each_epoch_starts_precedes_its_updates() -> None:
    assert "LRD001" in codes(DECORATED.format(event="EPOCH_STARTED", built=STEP_LR))


def test_scheduler_stepped_when_each_epoch_completes_is_fine() -> None:
    assert codes(DECORATED.format(event="EPOCH_COMPLETED", built=STEP_LR)) == []


def test_onecycle_stepped_after_every_iteration_is_fine() -> None:
    assert codes(DECORATED.format(event="ITERATION_COMPLETED", built=ONE_CYCLE)) == []


def test_onecycle_stepped_once_per_epoch_is_lrd003() -> None:
    assert "LRD003" in codes(DECORATED.format(event="EPOCH_COMPLETED", built=ONE_CYCLE))


def test_handler_attached_with_add_event_handler_counts_too() -> None:
    source = DECORATED.format(event="EPOCH_COMPLETED", built=STEP_LR).replace(
        "@trainer.on(Events.EPOCH_COMPLETED)\n        def adjust_learning_rate(engine):",
        "def adjust_learning_rate(engine):",
    ).replace(
        "        trainer.run(loader, max_epochs=epochs)",
        "        trainer.add_event_handler(Events.EPOCH_STARTED, adjust_learning_rate)\n"
        "        trainer.run(loader, max_epochs=epochs)",
    )
    assert "add_event_handler" in source
    assert "LRD001" in codes(source)


CHECKPOINT_HANDLER = """
    import torch
    from ignite.engine import Engine, Events
    from ignite.handlers import ModelCheckpoint

    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [40, 70])
    loader = torch.utils.data.DataLoader(torch.randn(80, 4), batch_size=8)


    def update(engine, batch):
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()


    trainer = Engine(update)
    checkpointer = ModelCheckpoint("out", "net", n_saved=3)
    trainer.add_event_handler(Events.EPOCH_COMPLETED, checkpointer, {saved})


    @trainer.on(Events.EPOCH_COMPLETED)
    def adjust_learning_rate(engine):
        scheduler.step()


    trainer.run(loader, max_epochs=120)
"""


def test_checkpoint_handler_saving_the_optimizer_without_the_scheduler_is_lrd007() -> None:
    source = CHECKPOINT_HANDLER.format(saved='{"model": model, "optimizer": optimizer}')
    assert codes(source) == ["LRD007"]


def test_checkpoint_handler_saving_the_scheduler_too_is_fine() -> None:
    source = CHECKPOINT_HANDLER.format(
        saved='{"model": model, "optimizer": optimizer, "scheduler": scheduler}')
    assert codes(source) == []
