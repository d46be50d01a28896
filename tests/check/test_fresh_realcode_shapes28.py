"""A shape met while reading the fresh-2026-12zi batch of real code (issue 7), in our own words.

An experiment class with an optimizer factory method (``def make_optimizer(self): return
Adam(...)``) and a scheduler factory that calls it again (``def make_schedule(self, epochs):
return CosineAnnealingLR(self.make_optimizer(), T_max=epochs)``). The training method takes
one optimizer from the factory, steps it every batch, and steps the scheduler every epoch; but
the scheduler wraps a second Adam, built inside the scheduler factory, that nothing ever steps.
The LR in force never changes (and the printed ``get_last_lr()`` follows the cosine, so the
logs look right). lrdoctor knew only the rebinding form of a stale optimizer (``optimizer =``
reassigned after the scheduler was built), so this went unreported (LRD014).

Controls: the scheduler factory given the stepped optimizer; a builder that makes the optimizer
and the scheduler together and returns both (the caller steps that optimizer); two optimizers
of one factory for a GAN, each stepped, with a scheduler on one; and a scheduler on an
instance kept by the object (``self.opt_d``) that the file never steps where lrdoctor can see
(a route it may have lost), which stays silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, findings, messages, project_codes

_CLASS = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class Experiment:
    def __init__(self, model, loader, epochs, amp=False):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.amp = amp

    def make_optimizer(self):
        return torch.optim.Adam(self.model.parameters(), lr=1e-3)

{SCHEDULE}

    def fit(self):
        optimizer = self.make_optimizer()
        scheduler = {BUILD}
        scaler = torch.amp.GradScaler("cuda", enabled=self.amp)
        for epoch in range(self.epochs):
            for inputs, target in self.loader:
                optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(inputs), target)
{UPDATE}
            scheduler.step()
            print(epoch, scheduler.get_last_lr())
"""

_OWN_INSTANCE = """\
    def make_schedule(self, epochs):
        optimizer = self.make_optimizer()
        return CosineAnnealingLR(optimizer, T_max=epochs, eta_min=0)"""

_GIVEN = """\
    def make_schedule(self, optimizer, epochs):
        return CosineAnnealingLR(optimizer, T_max=epochs, eta_min=0)"""

_PLAIN = """\
                loss.backward()
                optimizer.step()"""

_SCALED = """\
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()"""


def _script(schedule: str = _OWN_INSTANCE, build: str = "self.make_schedule(self.epochs)",
            update: str = _PLAIN) -> str:
    return _CLASS.format(SCHEDULE=schedule, BUILD=build, UPDATE=update)


def _lrd014(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD014"]


def test_scheduler_on_a_second_instance_of_the_optimizer_factory_is_reported() -> None:
    source = _script()
    step_line = next(i for i, text in enumerate(source.splitlines(), 1)
                     if text.strip() == "scheduler.step()")
    assert _lrd014(source) == [step_line]
    [message] = [m for m in messages(source) if "drives its own Adam" in m]
    assert "CosineAnnealingLR" in message and "another instance" in message


def test_second_instance_stepped_through_a_grad_scaler_is_reported() -> None:
    assert len(_lrd014(_script(update=_SCALED))) == 1


def test_factory_called_inline_in_the_scheduler_constructor_is_reported() -> None:
    inline = """\
    def make_schedule(self, epochs):
        return CosineAnnealingLR(self.make_optimizer(), T_max=epochs)"""
    assert len(_lrd014(_script(schedule=inline))) == 1


def test_scheduler_factory_given_the_stepped_optimizer_is_silent() -> None:
    source = _script(schedule=_GIVEN, build="self.make_schedule(optimizer, self.epochs)")
    assert _lrd014(source) == []
    assert _lrd014(_script(schedule=_GIVEN, build="self.make_schedule(optimizer, self.epochs)",
                           update=_SCALED)) == []


def test_builder_returning_the_optimizer_with_its_scheduler_is_silent() -> None:
    source = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    def make_optimizer(model):
        return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


    def make_training(model, epochs):
        optimizer = make_optimizer(model)
        return optimizer, StepLR(optimizer, step_size=max(1, epochs // 3))


    def fit(model, loader, epochs):
        warm_start = make_optimizer(model)  # built but never used
        optimizer, scheduler = make_training(model, epochs)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
    """
    assert _lrd014(source) == []


def test_gan_optimizers_from_one_factory_both_stepped_are_silent() -> None:
    source = """
    import torch
    from torch.optim.lr_scheduler import ExponentialLR


    def make_adam(module):
        return torch.optim.Adam(module.parameters(), lr=2e-4, betas=(0.5, 0.999))


    def decay_for(module, gamma):
        optimizer = make_adam(module)
        return optimizer, ExponentialLR(optimizer, gamma=gamma)


    def train(generator, critic, loader, epochs):
        opt_g = make_adam(generator)
        opt_d, sched_d = decay_for(critic, 0.99)
        for epoch in range(epochs):
            for real in loader:
                opt_d.zero_grad()
                critic(real).mean().backward()
                opt_d.step()
                opt_g.zero_grad()
                (-critic(generator(real))).mean().backward()
                opt_g.step()
            sched_d.step()
    """
    assert _lrd014(source) == []


def test_scheduler_on_an_instance_the_object_keeps_is_silent() -> None:
    # the critic's optimizer is kept on the object and stepped by a method lrdoctor does not
    # see called here (a route it may have lost): not reported as an unused second instance
    source = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    class Pair:
        def __init__(self, generator, critic, loader, epochs):
            self.generator, self.critic = generator, critic
            self.loader, self.epochs = loader, epochs

        def make_adam(self, module):
            return torch.optim.Adam(module.parameters(), lr=2e-4)

        def make_critic_schedule(self):
            self.opt_d = self.make_adam(self.critic)
            return StepLR(self.opt_d, step_size=10)

        def fit(self):
            opt_g = self.make_adam(self.generator)
            sched_d = self.make_critic_schedule()
            for epoch in range(self.epochs):
                for real in self.loader:
                    opt_g.zero_grad()
                    (-self.critic(self.generator(real))).mean().backward()
                    opt_g.step()
                sched_d.step()
    """
    assert _lrd014(source) == []


def test_second_instance_across_modules_is_reported(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "exp/base.py": """
            import torch
            from torch.optim.lr_scheduler import CosineAnnealingLR


            class Base:
                def __init__(self, model, epochs):
                    self.model, self.epochs = model, epochs

                def optimizer(self):
                    return torch.optim.AdamW(self.model.parameters(), lr=3e-4)

                def schedule(self):
                    return CosineAnnealingLR(self.optimizer(), T_max=self.epochs)
        """,
        "exp/__init__.py": "",
        "train.py": """
            import torch
            from exp.base import Base


            class Forecast(Base):
                def train(self, loader):
                    optim = self.optimizer()
                    sched = self.schedule()
                    for epoch in range(self.epochs):
                        for x, y in loader:
                            optim.zero_grad()
                            torch.nn.functional.l1_loss(self.model(x), y).backward()
                            optim.step()
                        sched.step()


            Forecast(torch.nn.Linear(8, 1), 20).train([])
        """,
    }, checked=["train.py"])
    assert project_codes(found).count("LRD014") == 1


_MEMOISED = """
import functools
import torch
from torch.optim.lr_scheduler import LambdaLR


class Runner:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = None

{FACTORY}

    def get_scheduler(self):
        return LambdaLR(self.get_optimizer(), lambda s: min(1.0, (s + 1) / 100))

    def run(self):
        optimizer = self.get_optimizer()
        scheduler = self.get_scheduler()
        for batch in self.loader:
            optimizer.zero_grad()
            self.model(batch).sum().backward()
            optimizer.step()
            scheduler.step()
"""


@pytest.mark.parametrize("factory", [
    # builds once, then hands back the instance it keeps
    """\
    def get_optimizer(self):
        if self.optimizer is None:
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        return self.optimizer""",
    # a memoised method: every call returns the first instance
    """\
    @functools.lru_cache(maxsize=None)
    def get_optimizer(self):
        return torch.optim.AdamW(self.model.parameters(), lr=1e-4)""",
    """\
    @functools.cache
    def get_optimizer(self):
        return torch.optim.AdamW(self.model.parameters(), lr=1e-4)""",
])
def test_factory_that_hands_back_one_instance_is_silent(factory: str) -> None:
    assert _lrd014(_MEMOISED.format(FACTORY=factory)) == []


def test_plain_factory_of_the_same_runner_is_reported() -> None:
    # the control for the memoised factories above: the same runner with a factory that
    # builds a new optimizer on every call
    factory = """\
    def get_optimizer(self):
        return torch.optim.AdamW(self.model.parameters(), lr=1e-4)"""
    assert len(_lrd014(_MEMOISED.format(FACTORY=factory))) == 1
