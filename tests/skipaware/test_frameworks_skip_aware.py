"""SkipAwareScheduler unchanged inside the frameworks: returned from Lightning's
configure_optimizers, passed to Hugging Face Trainer as ``optimizers=(opt, sched)``, and
prepared by Accelerate. Each run makes GradScaler really skip its first updates (float16
autocast in Lightning; a float32 overflow at scale 2**127 elsewhere, since neither HF nor
Accelerate builds a GradScaler on the CPU), and the LR each real update trains with must be
the schedule a run without skips applies: tiny models, a few seconds in all."""

from __future__ import annotations

import socket
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
import lrdoctor  # noqa: E402

ORDER_WARNING = "Detected call of `lr_scheduler.step()` before `optimizer.step()`"


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    def refuse(self: Any, address: Any, *args: Any, **kwargs: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError("network access attempted in a test")
        return real_connect(self, address, *args, **kwargs)

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", refuse)


def one_cycle(opt: torch.optim.Optimizer) -> Any:
    return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=40,
                                               cycle_momentum=False)


def schedule_without_skips(updates: int) -> list[float]:
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    sched = one_cycle(opt)
    out = []
    for _ in range(updates):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


class UpdateLog:
    """The LR of each real update (one that changed the parameters), read as the optimizer's
    step starts: a pre-hook for the LR, a post-hook that compares the parameters."""

    def __init__(self, opt: torch.optim.Optimizer) -> None:
        self.lrs: list[float] = []
        self.attempts = 0
        self._params = [p for g in opt.param_groups for p in g["params"]]
        self._before: list[Any] = []
        self._lr = 0.0
        opt.register_step_pre_hook(self._pre)
        opt.register_step_post_hook(self._post)

    def _pre(self, opt: Any, args: Any, kwargs: Any) -> None:
        self._lr = opt.param_groups[0]["lr"]
        self._before = [p.detach().clone() for p in self._params]

    def _post(self, opt: Any, args: Any, kwargs: Any) -> None:
        self.attempts += 1
        if any(not torch.equal(b, p) for b, p in zip(self._before, self._params)):
            self.lrs.append(self._lr)


def tiny_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


# ---- Lightning ----------------------------------------------------------------------------


def lightning_run(wrap: bool) -> tuple[UpdateLog, Any, list[str]]:
    import lightning as L
    from lightning.pytorch.plugins import MixedPrecision
    from torch.utils.data import DataLoader, TensorDataset

    logs: list[UpdateLog] = []

    class Regression(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = tiny_model()

        def training_step(self, batch: Any, index: int) -> Any:
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self) -> Any:
            opt = torch.optim.AdamW(self.parameters(), lr=0.1)
            logs.append(UpdateLog(opt))
            sched = one_cycle(opt)
            if wrap:
                sched = lrdoctor.SkipAwareScheduler(sched)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=4)
    trainer = L.Trainer(
        max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
        enable_progress_bar=False, enable_model_summary=False,
        plugins=[MixedPrecision("16-mixed", "cpu",
                                scaler=torch.amp.GradScaler("cpu", init_scale=2.0**20))],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit(Regression(), loader)
    return logs[0], trainer.lr_scheduler_configs[0].scheduler, [str(w.message) for w in caught]


def test_lightning_scheduler_from_configure_optimizers_follows_real_updates() -> None:
    log, sched, caught = lightning_run(wrap=True)
    assert isinstance(sched, lrdoctor.SkipAwareScheduler)
    assert 3 <= len(log.lrs) <= 12  # of 16 batches: float16 really skipped updates
    assert log.lrs == pytest.approx(schedule_without_skips(len(log.lrs)), rel=1e-12)
    assert sched.last_epoch == len(log.lrs)
    assert not any(ORDER_WARNING in w for w in caught)

    bare_log, _, bare_caught = lightning_run(wrap=False)  # what the wrapper fixes
    assert bare_log.lrs != pytest.approx(schedule_without_skips(len(bare_log.lrs)), rel=1e-12)
    assert any(ORDER_WARNING in w for w in bare_caught)


# ---- Hugging Face Trainer ------------------------------------------------------------------


def hf_run(wrap: bool, tmp_path: Any) -> tuple[UpdateLog, Any]:
    from torch.utils.data import Dataset
    from transformers import Trainer, TrainingArguments

    class Pairs(Dataset):
        def __len__(self) -> int:
            return 64

        def __getitem__(self, i: int) -> dict[str, Any]:
            g = torch.Generator().manual_seed(i)
            return {"x": torch.randn(8, generator=g), "labels": 100 * torch.randn(1, generator=g)}

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = tiny_model()

        def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
            out = self.net(x)
            return {"loss": torch.nn.functional.mse_loss(out, labels), "logits": out}

    model = Net()
    # fused: Accelerate's own skip detection (was optimizer.step() called?) misses a fused
    # optimizer's skips, so Trainer steps the scheduler after them; the wrapper does not move
    opt = torch.optim.AdamW(model.parameters(), lr=0.1, fused=True)
    log = UpdateLog(opt)
    sched = one_cycle(opt)
    if wrap:
        sched = lrdoctor.SkipAwareScheduler(sched)
    args = TrainingArguments(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_train_epochs=1,
        use_cpu=True, report_to=[], save_strategy="no", logging_strategy="no",
        disable_tqdm=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=Pairs(), optimizers=(opt, sched))
    # the GradScaler HF builds for fp16 on a GPU; on the CPU it has to be given
    trainer.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**127)
    trainer.train()
    return log, sched


def test_hf_trainer_scheduler_passed_in_follows_real_updates(tmp_path: Any) -> None:
    log, sched = hf_run(True, tmp_path)
    assert log.attempts == 16 and 1 <= len(log.lrs) < 16
    assert log.lrs == pytest.approx(schedule_without_skips(len(log.lrs)), rel=1e-12)
    assert sched.last_epoch == len(log.lrs)
    bare_log, _ = hf_run(False, tmp_path)
    assert bare_log.lrs != pytest.approx(schedule_without_skips(len(bare_log.lrs)), rel=1e-12)


# ---- Accelerate --------------------------------------------------------------------------


def _reset_accelerate() -> None:
    from accelerate.state import AcceleratorState, GradientState, PartialState

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    PartialState._reset_state()


def accelerate_run(wrap: bool, accumulate: int, on_prepared: bool = False) -> tuple[UpdateLog, Any]:
    from accelerate import Accelerator
    from torch.utils.data import DataLoader, TensorDataset

    _reset_accelerate()
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=accumulate)
    model = tiny_model()
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    log = UpdateLog(opt)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), 100 * torch.randn(64, 1)), batch_size=4)
    if on_prepared:  # the scheduler built on Accelerate's optimizer wrapper, then prepared
        model, popt, loader = accelerator.prepare(model, opt, loader)
        sched = one_cycle(popt)
        if wrap:
            sched = lrdoctor.SkipAwareScheduler(sched)
        psched = accelerator.prepare(sched)
    else:
        sched = one_cycle(opt)
        if wrap:
            sched = lrdoctor.SkipAwareScheduler(sched)
        model, popt, loader, psched = accelerator.prepare(model, opt, loader, sched)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**127)
    for x, y in loader:
        with accelerator.accumulate(model), warnings.catch_warnings():
            if wrap:  # no order warning from the wrapped scheduler
                warnings.filterwarnings("error", message=".*lr_scheduler.step")
            loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            if accelerator.sync_gradients:
                scaler.step(popt)
                scaler.update()
            psched.step()
            popt.zero_grad()
    _reset_accelerate()
    return log, psched


@pytest.mark.parametrize(("accumulate", "on_prepared"), [(1, False), (2, False), (2, True)])
def test_accelerate_prepared_scheduler_follows_real_updates(accumulate: int, on_prepared: bool) -> None:
    log, psched = accelerate_run(True, accumulate, on_prepared)
    assert psched.scheduler.__class__.__name__ == "SkipAwareScheduler"  # inside Accelerate's
    # the user's GradScaler skips the prepared optimizer: Accelerate's scheduler cannot tell
    assert 1 <= len(log.lrs) < 16 // accumulate
    assert log.lrs == pytest.approx(schedule_without_skips(len(log.lrs)), rel=1e-12)
    bare_log, _ = accelerate_run(False, accumulate, on_prepared)
    assert bare_log.lrs != pytest.approx(schedule_without_skips(len(bare_log.lrs)), rel=1e-12)


def test_accelerate_steps_once_per_process_share_one_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    """AcceleratedScheduler steps its scheduler once per process in one call (per-process
    batches, by design): after a real update all of those steps happen, after a skip none."""
    from types import SimpleNamespace

    from accelerate import scheduler as accelerate_scheduler
    from accelerate.scheduler import AcceleratedScheduler

    _reset_accelerate()
    monkeypatch.setattr(accelerate_scheduler, "AcceleratorState",
                        lambda: SimpleNamespace(num_processes=3))
    opt = torch.optim.SGD(tiny_model().parameters(), lr=0.1)
    sched = lrdoctor.SkipAwareScheduler(torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5))
    # Accelerate's own check (AcceleratedOptimizer.step_was_skipped) sees nothing wrong
    accelerated = AcceleratedScheduler(sched, SimpleNamespace(step_was_skipped=False))
    opt.step()
    accelerated.step()
    assert sched.last_epoch == 3  # three processes' worth after one real update
    accelerated.step()  # no update since: none of the three
    assert sched.last_epoch == 3
    opt.step()
    accelerated.step()
    assert sched.last_epoch == 6
    _reset_accelerate()
