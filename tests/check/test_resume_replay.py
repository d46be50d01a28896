"""A resume that positions the schedule by replaying its steps before training
(``for _ in range(1, start_epoch): scheduler.step()``) loses nothing by not checkpointing the
scheduler; a cosine handed to a warm-up wrapper from a package lrdoctor does not know
(``GradualWarmupScheduler(optimizer, ..., after_scheduler=cosine)``) is stepped through the
wrapper, not on its own. Without the replay the resumed run restarts the warm-up."""

from __future__ import annotations

from tests.check.helpers import codes

WARMUP_WRAPPER_RESUME = """
    import torch
    from warmup_scheduler import GradualWarmupScheduler

    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 97, eta_min=1e-6)
    scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=3, after_scheduler=cosine)
    scheduler.step()
    start_epoch = 1
    if RESUME:
        state = torch.load("latest.pth", weights_only=True)
        model.load_state_dict(state["state_dict"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        {replay}
    loader = [torch.randn(8, 4) for _ in range(10)]
    for epoch in range(start_epoch, 101):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        scheduler.step()
        torch.save({{"epoch": epoch, "state_dict": model.state_dict(),
                    "optimizer": optimizer.state_dict()}}, "latest.pth")
"""

REPLAY = """for _ in range(1, start_epoch):
            scheduler.step()"""


def test_resume_that_replays_the_wrapper_steps_needs_no_scheduler_state() -> None:
    assert "LRD007" not in codes(WARMUP_WRAPPER_RESUME.format(replay=REPLAY))


def test_resume_without_the_replay_restarts_the_warmup() -> None:
    assert "LRD007" in codes(WARMUP_WRAPPER_RESUME.format(replay="pass"))


def test_the_lost_state_is_the_wrappers_not_the_wrapped_cosines() -> None:
    from tests.check.helpers import messages

    found = [m for m in messages(WARMUP_WRAPPER_RESUME.format(replay="pass")) if "restarts" in m]
    assert found and all("`cosine`" not in m for m in found)


BUILDER_GIVEN_THE_RESUMED_EPOCH = """
    import torch
    from project.schedulers import get_scheduler


    def run(config, model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        last_epoch = -1
        if config.resume:
            state = torch.load(config.resume, weights_only=True)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            last_epoch = state["epoch"]
        scheduler = get_scheduler(config, optimizer{position})
        for epoch in range(last_epoch + 1, config.epochs):
            for x in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
            scheduler.step()
            torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch}}, "last.pt")
"""


def test_scheduler_built_by_a_project_builder_from_the_resumed_epoch_is_positioned() -> None:
    assert "LRD007" not in codes(BUILDER_GIVEN_THE_RESUMED_EPOCH.format(position=", last_epoch"))


def test_scheduler_built_by_a_project_builder_from_scratch_restarts() -> None:
    assert "LRD007" in codes(BUILDER_GIVEN_THE_RESUMED_EPOCH.format(position=""))


RESUME_OR_FRESH = """
    from bisect import bisect_right

    import torch


    class WarmupMultiStepLR(torch.optim.lr_scheduler._LRScheduler):
        def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
            self.milestones, self.gamma = milestones, gamma
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            decay = self.gamma ** bisect_right(self.milestones, self.last_epoch)
            return [base_lr * decay for base_lr in self.base_lrs]


    def main(cfg, model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        if cfg.pretrain == "self":
            start_epoch = int(cfg.path.split("_")[-1])
            model.load_state_dict(torch.load(cfg.path, weights_only=True))
            optimizer.load_state_dict(torch.load(cfg.path + ".opt", weights_only=True))
            scheduler = WarmupMultiStepLR(optimizer, [40, 70], 0.1{position})
        else:
            start_epoch = 0
            scheduler = WarmupMultiStepLR(optimizer, [40, 70], 0.1)
        for epoch in range(start_epoch, 120):
            for x in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
            scheduler.step()
"""


def test_scheduler_rebuilt_at_the_resumed_epoch_in_the_resume_branch_is_positioned() -> None:
    assert "LRD007" not in codes(RESUME_OR_FRESH.format(position=", start_epoch"))


def test_resume_that_rebuilds_the_scheduler_from_scratch_restarts_it() -> None:
    # one construction after the resume branch, at no resumed position
    source = RESUME_OR_FRESH.format(position="").replace(
        "            scheduler = WarmupMultiStepLR(optimizer, [40, 70], 0.1)\n"
        "        else:\n"
        "            start_epoch = 0\n"
        "            scheduler = WarmupMultiStepLR(optimizer, [40, 70], 0.1)\n",
        "        else:\n"
        "            start_epoch = 0\n"
        "        scheduler = WarmupMultiStepLR(optimizer, [40, 70], 0.1)\n",
    )
    assert source.count("WarmupMultiStepLR(optimizer") == 1
    assert "LRD007" in codes(source)


def test_checkpoints_of_a_run_whose_resume_rebuilds_the_scheduler_in_place_need_no_state() -> None:
    source = RESUME_OR_FRESH.format(position=", start_epoch").replace(
        "            scheduler.step()\n",
        "            scheduler.step()\n"
        "            torch.save({\"model\": model.state_dict(),\n"
        "                        \"optimizer\": optimizer.state_dict()}, f\"epoch_{epoch}.pth\")\n",
    )
    assert "torch.save" in source
    assert "LRD007" not in codes(source)
