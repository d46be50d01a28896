"""Shapes met in the fresh real-code batch "fresh-2026-12f" of issue 7 (bench/realcode, dev
half: research scripts and GAN / super-resolution trainers): each test is the general shape in
our own words, next to the control that must still be reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes, findings

# -- a list of schedulers built per optimizer, stepped in a loop -----------------------------
# A model class keeps its optimizers in a list and builds one scheduler per optimizer with a
# comprehension; a method steps them all in a loop. The comprehension holds one scheduler per
# optimizer, so the loop steps each of them.

_PER_OPTIMIZER = """
import torch


def make_scheduler(optimizer, cfg):
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg.decay_epochs, gamma=0.5)


class Translator:
    def __init__(self, cfg, gen, disc):
        self.gen, self.disc = gen, disc
        self.opt_gen = torch.optim.Adam(gen.parameters(), lr=cfg.lr)
        self.opt_disc = torch.optim.Adam(disc.parameters(), lr=cfg.lr)
        self.optimizers = [self.opt_gen, self.opt_disc]

    def prepare(self, cfg):
        self.schedulers = {BUILD}

    def decay(self):
        for sched in self.schedulers:
            sched.step()

    def fit_batch(self, x):
        self.opt_disc.zero_grad()
        self.disc(x).backward()
        self.opt_disc.step()
        self.opt_gen.zero_grad()
        self.gen(x).backward()
        self.opt_gen.step()


def run(cfg, gen, disc, loader):
    model = Translator(cfg, gen, disc)
    model.prepare(cfg)
    for epoch in range(cfg.epochs):
        {BEFORE}
        for x in loader:
            model.fit_batch(x)
        {AFTER}
"""


def _per_optimizer(build: str, before: str = "pass", after: str = "pass") -> str:
    return (_PER_OPTIMIZER.replace("{BUILD}", build).replace("{BEFORE}", before)
            .replace("{AFTER}", after))


_COMPREHENSION = "[make_scheduler(o, cfg) for o in self.optimizers]"


def test_comprehension_of_schedulers_stepped_before_the_updates_is_lrd001() -> None:
    # one finding at the step, which both schedulers reach
    assert codes(_per_optimizer(_COMPREHENSION, before="model.decay()")) == ["LRD001"]


def test_comprehension_of_schedulers_stepped_after_the_updates_is_silent() -> None:
    assert codes(_per_optimizer(_COMPREHENSION, after="model.decay()")) == []


def test_comprehension_over_appended_optimizers_is_followed() -> None:
    source = _per_optimizer(_COMPREHENSION, before="model.decay()").replace(
        "self.optimizers = [self.opt_gen, self.opt_disc]",
        "self.optimizers = []\n        self.optimizers.append(self.opt_gen)\n"
        "        self.optimizers.append(self.opt_disc)",
    )
    assert codes(source) == ["LRD001"]


def test_comprehension_with_a_filter_is_not_guessed() -> None:
    # `if` in the comprehension: which optimizers get a scheduler is not known, nothing said
    build = "[make_scheduler(o, cfg) for o in self.optimizers if cfg.decay]"
    assert codes(_per_optimizer(build, before="model.decay()")) == []


def test_list_comprehension_over_data_is_not_a_list_of_schedulers() -> None:
    source = """
    import torch


    def run(cfg, net, loader):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
        for epoch in range(cfg.epochs):
            sizes = [len(x) for x in loader]
            for x in loader:
                opt.zero_grad()
                net(x).backward()
                opt.step()
            sched.step()
    """
    assert codes(source) == []


# -- a list of choices: each builder picks a class per setting --------------------------------
# `[build(opt_g, cfg), build(opt_d, cfg)]` where `build` returns StepLR or LambdaLR depending
# on a setting: the loop steps one option of each choice, never two options of one choice.

_CHOICE = """
import torch
from torch.optim import lr_scheduler


def build(optimizer, cfg):
    if cfg.policy == "linear":
        sched = lr_scheduler.LambdaLR(optimizer, lambda e: 1.0 - e / cfg.epochs)
    elif cfg.policy == "plateau":
        sched = lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=5)
    else:
        sched = lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    return sched


def run(cfg, gen, disc, loader, validate):
    opt_g = torch.optim.Adam(gen.parameters(), lr=cfg.lr)
    opt_d = torch.optim.Adam(disc.parameters(), lr=cfg.lr)
    schedulers = [build(opt_g, cfg), build(opt_d, cfg)]
    for epoch in range(cfg.epochs):
        for x in loader:
            opt_d.zero_grad()
            disc(x).backward()
            opt_d.step()
            opt_g.zero_grad()
            gen(x).backward()
            opt_g.step()
        metric = validate(gen)
        for sched in schedulers:
            {STEP}
"""

_BY_SETTING = """if cfg.policy == "plateau":
                sched.step(metric)
            else:
                sched.step()"""


def test_list_of_choices_stepped_per_epoch_is_silent() -> None:
    # one option of each choice per run: no LRD012 between LambdaLR and CosineAnnealingLR
    assert codes(_CHOICE.replace("{STEP}", _BY_SETTING)) == []


def test_step_with_a_metric_only_reaches_the_option_the_setting_builds() -> None:
    # `sched.step(metric)` runs only when cfg.policy == "plateau": the ReduceLROnPlateau
    # option; it is no epoch argument passed to LambdaLR or CosineAnnealingLR (LRD006)
    assert "LRD006" not in codes(_CHOICE.replace("{STEP}", _BY_SETTING))


def test_step_with_a_metric_on_every_option_is_still_lrd006() -> None:
    # control: no test of the setting at the call, so the LambdaLR / cosine options get the
    # metric as their (deprecated) epoch argument
    assert "LRD006" in codes(_CHOICE.replace("{STEP}", "sched.step(metric)"))


def test_list_of_choices_stepped_before_the_updates_is_lrd001() -> None:
    source = _CHOICE.replace("{STEP}", "pass").replace(
        "    for epoch in range(cfg.epochs):\n        for x in loader:",
        "    for epoch in range(cfg.epochs):\n        for s in schedulers:\n"
        "            s.step()\n        for x in loader:",
    )
    # (the plateau option stepped without a metric is LRD004 as well; no LRD012: one option
    # of each choice runs)
    assert sorted({code for code, _ in findings(source)}) == ["LRD001", "LRD004"]


# -- a callable wrapper that owns the GradScaler and steps the scheduler ----------------------
# `scaler(loss, optimizer, scheduler)` calls the project class's `__call__`: backward on the
# scaled loss, scaler.step, update, then scheduler.step() whether or not the step was skipped.

_WRAPPER = """
import torch


class AmpStepper:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, scheduler=None):
        self._scaler.scale(loss).backward()
        self._scaler.step(optimizer)
        self._scaler.update()
        optimizer.zero_grad()
        if scheduler is not None:
            {STEP}


def make_stepper(cfg):
    {MAKE}
    return torch.nn.CrossEntropyLoss(), stepper


def run(cfg, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1,
                                                    total_steps=cfg.epochs * len(loader))
    criterion, stepper = make_stepper(cfg)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            loss = criterion(model(x), y)
            if cfg.amp:
                stepper(loss, optimizer, scheduler)
            else:
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
"""

_ALWAYS = "stepper = AmpStepper()"
_BY_FLAG = "if cfg.amp:\n        stepper = AmpStepper()\n    else:\n        stepper = None"
_SKIP_AWARE = """before = self._scaler.get_scale()
            self._scaler.update()
            if self._scaler.get_scale() >= before:
                scheduler.step()"""


def _wrapper(make: str, step: str = "scheduler.step()") -> str:
    return _WRAPPER.replace("{MAKE}", make).replace("{STEP}", step)


def test_calling_a_wrapper_instance_runs_its_call_method() -> None:
    assert codes(_wrapper(_ALWAYS)) == ["LRD005"]


def test_wrapper_built_only_when_a_flag_is_on_is_still_followed() -> None:
    # `stepper = AmpStepper()` on one branch, None on the other: the name holds the instance
    assert codes(_wrapper(_BY_FLAG)) == ["LRD005"]


def test_wrapper_that_steps_only_after_a_real_update_is_silent() -> None:
    assert codes(_wrapper(_ALWAYS, _SKIP_AWARE)) == []


def test_module_call_is_not_traced_as_a_call_method() -> None:
    # `net(x)` runs the module's forward() (torch's Module.__call__, followed since rcnew51);
    # this forward builds a new optimizer and scheduler on every call and steps each once, so
    # no scheduler is stepped once per batch (see tests/check/test_trainer_modules.py)
    source = """
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            opt = torch.optim.SGD(self.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
            sched.step()
            return x


    def run(cfg, loader):
        net = Net()
        for epoch in range(cfg.epochs):
            for x in loader:
                net(x)
    """
    assert codes(source) == []


# -- the setting read as a mapping key ---------------------------------------------------------
# `cfg["scheduler"] == "plateau"` (or `cfg.get("scheduler")`) picks the class when the trainer
# is built and picks the call when it steps: the metric reaches the plateau option only.

_KEYED = """
import torch


class Trainer:
    def __init__(self, cfg, model, train_dl, valid_dl):
        self.cfg, self.model = cfg, model
        self.train_dl, self.valid_dl = train_dl, valid_dl
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.scheduler = None
        if cfg["scheduler"] is not None:
            if {SETTING} == "plateau":
                self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer)
            elif {SETTING} == "exponential":
                self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, 0.98)

    def fit(self, validate):
        for epoch in range(self.cfg["epochs"]):
            for xb, yb in self.train_dl:
                self.optimizer.zero_grad()
                self.model(xb, yb).backward()
                self.optimizer.step()
            val_loss = validate(self.model, self.valid_dl)
            if self.cfg["scheduler"] is not None:
                if {SETTING} == "plateau":
                    self.scheduler.step(val_loss)
                elif {SETTING} == "exponential":
                    {OTHER}
"""


def _keyed(setting: str, other: str = "self.scheduler.step()") -> str:
    return _KEYED.replace("{SETTING}", setting).replace("{OTHER}", other)


def test_setting_read_by_key_keeps_the_metric_on_the_plateau_option() -> None:
    # the builder reads `cfg["scheduler"]`, the step `self.cfg["scheduler"]`: one setting,
    # named by its key; `step(val_loss)` runs on the plateau option only (no LRD006)
    source = _keyed('cfg["scheduler"]').replace(
        'if cfg["scheduler"] == "plateau":\n                    self.scheduler.step(val_loss)',
        'if self.cfg["scheduler"] == "plateau":\n                    self.scheduler.step(val_loss)',
    )
    assert 'self.cfg["scheduler"] == "plateau"' in source
    assert codes(source) == []


def test_setting_read_with_get_keeps_the_metric_on_the_plateau_option() -> None:
    source = _keyed('cfg.get("scheduler")').replace(
        'if cfg.get("scheduler") == "plateau":\n                    self.scheduler.step(val_loss)',
        'if self.cfg.get("scheduler") == "plateau":\n                    self.scheduler.step(val_loss)',
    )
    assert "LRD006" not in codes(source)


def test_metric_passed_to_the_other_option_is_still_lrd006() -> None:
    # control: the exponential option stepped with the metric too
    source = _keyed('cfg["scheduler"]', other="self.scheduler.step(val_loss)")
    assert "LRD006" in codes(source)


# -- a LightningModule calling its own configure_optimizers() --------------------------------
# Lightning calls configure_optimizers() itself and steps the optimizer of that call; a
# scheduler built in __init__ on the optimizer of the module's own call never reaches training.

_OWN_CONFIGURE = """
import torch
import pytorch_lightning as pl


class Recognizer(pl.LightningModule):
    def __init__(self, net, lr):
        super().__init__()
        self.net, self.lr = net, lr
        {INIT}

    def configure_optimizers(self):
        {CONFIGURE}

    def training_step(self, batch, batch_idx):
        return self.net(*batch)

    def on_validation_epoch_end(self):
        {EPOCH_END}
"""

_OWN_INIT = "self.sched = torch.optim.lr_scheduler.StepLR(self.configure_optimizers(), step_size=10)"


def _own(init: str, configure: str, epoch_end: str) -> str:
    return (_OWN_CONFIGURE.replace("{INIT}", init).replace("{CONFIGURE}", configure)
            .replace("{EPOCH_END}", epoch_end))


def test_scheduler_on_the_modules_own_configure_call_is_lrd014() -> None:
    source = _own(_OWN_INIT, "return torch.optim.AdamW(self.net.parameters(), self.lr)",
                  "self.sched.step()")
    assert findings(source) == [("LRD014", 10)]


def test_scheduler_returned_from_configure_optimizers_is_silent() -> None:
    configure = ("opt = torch.optim.AdamW(self.net.parameters(), self.lr)\n"
                 "        return [opt], [torch.optim.lr_scheduler.StepLR(opt, step_size=10)]")
    assert codes(_own("pass", configure, "pass")) == []


def test_own_configure_call_whose_optimizer_the_module_steps_is_silent() -> None:
    # a module driving its own loop: the optimizer of its call is the one stepped
    source = """
    import torch
    import pytorch_lightning as pl


    class Tiny(pl.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def configure_optimizers(self):
            return torch.optim.SGD(self.net.parameters(), lr=0.1)

        def fit_by_hand(self, loader, epochs):
            opt = self.configure_optimizers()
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
            for epoch in range(epochs):
                for batch in loader:
                    opt.zero_grad()
                    self.net(batch).backward()
                    opt.step()
                sched.step()
    """
    assert codes(source) == []


# -- get_lr() on a scheduler built one way or another -----------------------------------------
# A MultiStepLR built at `last_epoch=start_epoch` on resume and plainly otherwise: whichever
# branch ran, `get_lr()` is the chainable next value, not the LR in force.

_GET_LR_CHOICE = """
import torch


def run(cfg, model, loader, resume):
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    if resume:
        start_epoch = resume(model, optimizer) + 1
        scheduler = {RESUMED}
    else:
        start_epoch = 0
        scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [200, 400], gamma=0.1)
    for epoch in range(start_epoch, cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        scheduler.step()
        lr = scheduler.get_lr()[0]
        print(epoch, lr)
"""


def test_get_lr_on_either_chainable_option_is_lrd015() -> None:
    resumed = ("torch.optim.lr_scheduler.MultiStepLR(optimizer, [200, 400], gamma=0.1, "
               "last_epoch=start_epoch)")
    assert codes(_GET_LR_CHOICE.replace("{RESUMED}", resumed)) == ["LRD015"]


def test_get_lr_when_one_option_is_closed_form_is_silent() -> None:
    # control: LambdaLR's get_lr() is the value in force; which option runs the file does not say
    resumed = "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.1 ** (e // 200))"
    assert codes(_GET_LR_CHOICE.replace("{RESUMED}", resumed)) == []
