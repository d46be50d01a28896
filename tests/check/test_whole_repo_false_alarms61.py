"""fphunt71: whole repositories of video generation, time-series forecasting, graph learning,
OCR, speech enhancement, medical imaging, robotics and a Kaggle solution, checked from their
roots. Found:

1. LRD003 (and LRD001) on a helper's scheduler step that never runs where the helper is
   called per epoch: a forecasting base trainer calls `self._adjust_lr(...)` in the batch
   loop under `if self.config.lradj == "TST":` and after the epoch under `if
   self.config.lradj != "TST":`; the subclass's `_adjust_lr` steps its OneCycleLR only `if
   config.lradj == "TST":` (the base's `config`, passed down). On the per-epoch path the
   step needs the one setting of the one object to be "TST" and not "TST" at once: it never
   runs there. A call made on branches that need a string setting of one object (an
   instance's, a config passed down, an entry point's parameter followed through the calls
   that passed it) to hold values it cannot hold at once is no call of the program. Still
   found: a helper that steps under no test, one whose setting is assigned between the two
   tests, and tests on two different objects.

2. An LRD005 whose GradScaler is built under `if config.use_amp == 1:` said nothing of when:
   an integer switch compared with a number is a condition of the scaler's existence, named
   as such ("when `config.use_amp == 1` holds").

3. A GradScaler built in the `else` of `if self.device == "cpu":` was said to exist "when
   `not self.device == 'cpu'` holds": the negation of one comparison is now written with the
   opposite operator (`self.device != 'cpu'`).
"""

from __future__ import annotations

from .helpers import check_project, codes, findings, messages

# -- 1. code on branches that need one setting to be two things never runs ------------------

_FORECASTER = '''
import torch
from torch.optim import lr_scheduler


class Forecaster:
    def __init__(self, config):
        self.config = config
        self.model = torch.nn.Linear(8, 1)

    def _make_opt(self, loader):
        opt = torch.optim.Adam(self.model.parameters(), lr=self.config.lr)
        self.sched = lr_scheduler.OneCycleLR(opt, max_lr=self.config.lr,
                                             steps_per_epoch=len(loader),
                                             epochs=self.config.epochs)
        return opt

    def _adjust(self, opt, epoch, config):
        for g in opt.param_groups:
            g["lr"] = config.lr * 0.5 ** epoch
        {step}

    def fit(self, loader):
        config = self.config
        opt = self._make_opt(loader)
        for epoch in range(config.epochs):
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                opt.step()
                if config.mode == "onecycle":
                    self._adjust(opt, epoch + 1, config)
            if config.mode != "onecycle":
                self._adjust(opt, epoch + 1, config)
'''


def _forecaster(step: str) -> str:
    return _FORECASTER.replace("{step}", step)


def test_a_helper_stepping_only_under_the_per_batch_setting_is_silent() -> None:
    assert codes(_forecaster(
        'if config.mode == "onecycle":\n            self.sched.step()')) == []


def test_the_helper_reading_the_setting_off_self_is_silent() -> None:
    assert codes(_forecaster(
        'if self.config.mode == "onecycle":\n            self.sched.step()')) == []


def test_a_helper_stepping_under_no_test_is_found_per_epoch() -> None:
    assert findings(_forecaster("self.sched.step()")) == [("LRD003", 21)]


_DICT_SETTING = '''
import torch


class Runner:
    def __init__(self, hp):
        self.hp = hp
        self.net = torch.nn.Linear(4, 1)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=hp["lr"])
        self.sched = torch.optim.lr_scheduler.OneCycleLR(
            self.opt, max_lr=hp["lr"], total_steps=hp["epochs"] * hp["iters"])

    def tick(self):
        if self.hp["unit"] in ("iter", "iters"):
            self.sched.step()

    def run(self, loader):
        for epoch in range(self.hp["epochs"]):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.net(x), y).backward()
                self.opt.step()
                if self.hp["unit"] == "iter":
                    self.tick()
            if self.hp["unit"] not in ("iter", "iters"):
                self.tick()
'''


def test_a_dict_setting_tested_with_in_and_not_in_is_silent() -> None:
    assert codes(_DICT_SETTING) == []


_PASSED_DOWN = '''
import torch


def bump(scheduler, {param}):
    if {param}.sched_unit == "step":
        scheduler.step()


def train(args, other, model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(loader))
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            bump(scheduler, args)
        {between}if {tested}.sched_unit != "step":
            bump(scheduler, args)
'''


def _passed_down(param: str = "opts", tested: str = "args", between: str = "") -> str:
    return _PASSED_DOWN.replace("{param}", param).replace("{tested}", tested).replace(
        "{between}", between)


def test_an_entry_points_setting_passed_down_under_another_name_is_silent() -> None:
    assert codes(_passed_down()) == []
    assert codes(_passed_down(param="args")) == []


def test_the_same_setting_of_another_object_is_found() -> None:
    assert findings(_passed_down(tested="other")) == [("LRD003", 7)]


def test_a_setting_assigned_between_the_two_tests_is_found() -> None:
    assert findings(_passed_down(
        tested="args", between='args.sched_unit = "step"\n        ')) == [("LRD003", 7)]


_AMP_ORDER = '''
import torch


def advance(sched, opts):
    if opts.policy == "cycle":
        sched.step()


def main(opts, loader):
    model = torch.nn.Linear(4, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=0.1, total_steps=opts.epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(opts.epochs):
        if opts.policy != "cycle":
            advance(sched, opts)
        for x, y in loader:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            if opts.policy == "cycle":
                advance(sched, opts)
'''


def test_a_helper_called_first_where_it_does_nothing_still_steps_where_it_does() -> None:
    # the per-epoch call (first in the code) never steps; the per-batch one, after the
    # scaler's step, does: only LRD005 (a trace of the first call must not stand for the
    # second)
    assert findings(_AMP_ORDER) == [("LRD005", 7)]


_BASE = '''
import torch


class Base:
    def __init__(self, config):
        self.config = config
        self.model = torch.nn.Linear(8, 1)

    def _adjust_lr(self, optimizer, epoch, config):
        for g in optimizer.param_groups:
            g["lr"] = config.lr * 0.9 ** epoch

    def fit(self, loader):
        config = self.config
        optimizer = self._init_optimizer(loader)
        for epoch in range(config.num_epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                optimizer.step()
                if self.config.lradj == "TST":
                    self._adjust_lr(optimizer, epoch + 1, config)
            if self.config.lradj != "TST":
                self._adjust_lr(optimizer, epoch + 1, config)
'''

_SUBCLASS = '''
import torch

from base import Base


class Patchy(Base):
    def _init_optimizer(self, loader):
        optimizer = torch.optim.Adam(self.model.parameters(), lr=self.config.lr)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=self.config.lr, steps_per_epoch=len(loader),
            epochs=self.config.num_epochs)
        return optimizer

    def _adjust_lr(self, optimizer, epoch, config):
        super()._adjust_lr(optimizer, epoch, config)
        {step}


def run(config, loader):
    Patchy(config).fit(loader)
'''


def test_a_subclass_stepping_under_the_base_trainers_per_batch_setting_is_silent(
        tmp_path, monkeypatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "base.py": _BASE,
        "patchy.py": _SUBCLASS.replace(
            "{step}", 'if config.lradj == "TST":\n            self.scheduler.step()')})
    assert [f for f in found if f[2] != "LRD101"] == []


def test_a_subclass_stepping_on_every_call_is_found(tmp_path, monkeypatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "base.py": _BASE, "patchy.py": _SUBCLASS.replace("{step}", "self.scheduler.step()")})
    assert ("patchy.py", 17, "LRD003") in found


# -- 2. and 3. the condition a GradScaler exists under -------------------------------------

_SCALER_UNDER = '''
import torch


class Trainer:
    def __init__(self, config, device="cuda:0"):
        self.config = config
        self.device = device
        {build}
        self.model = torch.nn.Linear(4, 1).to(device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: min(1.0, s / 100))

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for x, y in loader:
                with torch.autocast("cuda"):
                    loss = torch.nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                if self.scaler is not None:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.opt)
                    self.scaler.update()
                else:
                    loss.backward()
                    self.opt.step()
                self.sched.step()
'''


def _scaler_under(build: str) -> str:
    return _SCALER_UNDER.replace("{build}", build)


def test_a_scaler_under_an_integer_switch_names_it() -> None:
    source = _scaler_under(
        'self.scaler = None\n        if config.use_amp == 1:\n'
        '            self.scaler = torch.amp.GradScaler("cuda")')
    assert findings(source) == [("LRD005", 29)]
    assert messages(source)[0].startswith("When `config.use_amp == 1` holds, ")


def test_a_scaler_in_the_else_of_a_comparison_names_the_opposite_operator() -> None:
    source = _scaler_under(
        'if self.device == "cpu":\n            self.scaler = None\n        else:\n'
        '            self.scaler = torch.amp.GradScaler("cuda")')
    assert findings(source) == [("LRD005", 30)]
    assert messages(source)[0].startswith("When `self.device != 'cpu'` holds, ")


def test_a_scaler_under_an_integer_switch_bound_off_is_never_built() -> None:
    source = _scaler_under(
        'self.scaler = None\n        use_amp = 0\n        if use_amp == 1:\n'
        '            self.scaler = torch.amp.GradScaler("cuda")')
    assert "LRD005" not in codes(source)
