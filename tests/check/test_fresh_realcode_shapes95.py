"""Shapes seen in the fresh-2026-12zt93 batch (rcnew93, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A GAN trainer builds one GradScaler under a mixed-precision flag and steps the
  discriminator's and generator's optimizers (attributes of a settings object lrdoctor does
  not follow) through it. The same trainer class also trains, for evaluation, a classifier
  of its own: a local SGD stepped with its own ``optimizer.step()``, no autocast, no scaler,
  saved with its optimizer state. lrdoctor reported that checkpoint for leaving out the
  GradScaler's state. A GradScaler never touches the gradients of an optimizer that is not
  handed to it (``scaler.step`` / ``unscale_``): its scale is nothing that classifier's resume
  needs. lrdoctor now leaves such a checkpoint alone, when every optimizer it holds is seen
  stepped by its own ``step()`` and none is handed to a scaler, by object or, where lrdoctor
  could not bind the argument, by a name ending in the optimizer's own.
- A GAN with a GradScaler per network whose checkpoint stores the discriminator's scaler but
  not the generator's was silent: any stored scaler (or any key with "scaler" in it) counted
  as the scaler stored. Each GradScaler keeps its own scale; the one left out restarts at
  65536 on resume. lrdoctor now reports the scaler left out when it steps an optimizer the
  checkpoint holds, no stored scaler steps that optimizer too, and no key names it.
- The other mixed-precision spellings of the batch (a model class stepping a per-iteration
  MultiStepLR right after ``scaler.step``; its checkpoint without the scaler; timm schedulers
  repositioned with ``step(finished_epoch)`` over a snapshot that holds the scaler; a
  ``GradScaler(enabled=dtype == float16)`` beside bf16 autocast; apex's clipping of
  ``amp.master_params``): lrdoctor already read them; the tests keep it so.
"""

from __future__ import annotations

from .helpers import codes, findings
from .helpers import messages as check_messages

# -- a GradScaler and an optimizer it never steps ----------------------------------------------

GAN_WORKER = '''
import torch


class Worker:
    def __init__(self, cfg, gen, dis):
        self.cfg = cfg
        self.gen, self.dis = gen, dis
        self.opt = cfg.optimization
        if cfg.mixed_precision:
            self.scaler = torch.amp.GradScaler("cuda")

    def train_step(self, real):
        with torch.autocast("cuda", enabled=self.cfg.mixed_precision):
            d_loss = self.dis(self.gen(real)).mean() - self.dis(real).mean()
        if self.cfg.mixed_precision:
            self.scaler.scale(d_loss).backward()
            self.scaler.step(self.opt.d_optimizer)
            self.scaler.update()
        else:
            d_loss.backward()
            self.opt.d_optimizer.step()

    def save(self, step):
        torch.save({"state_dict": self.dis.state_dict(),
                    "optimizer": self.opt.d_optimizer.state_dict(),{scaler_entry}
                    "step": step}, "dis.pth")

    def classifier_score(self, net, loader, epochs):
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad(){classifier_update}
            states = {{"state_dict": net.state_dict(), "optimizer": optimizer.state_dict(),
                      "epoch": epoch + 1}}
            torch.save(states, "classifier.pth")
'''

PLAIN_UPDATE = '''
                loss = torch.nn.functional.cross_entropy(net(x), y)
                loss.backward()
                optimizer.step()'''

SCALED_UPDATE = '''
                with torch.autocast("cuda", enabled=self.cfg.mixed_precision):
                    loss = torch.nn.functional.cross_entropy(net(x), y)
                self.scaler.scale(loss).backward()
                self.scaler.step(optimizer)
                self.scaler.update()'''

SCALER_ENTRY = '''
                    "scaler": self.scaler.state_dict(),'''


def _worker(scaler_entry: str, update: str) -> str:
    return GAN_WORKER.replace("{scaler_entry}", scaler_entry).replace(
        "{classifier_update}", update).replace("{{", "{").replace("}}", "}")


def test_classifier_checkpoint_beside_a_gan_scaler_is_not_the_scalers():
    # the classifier's SGD is stepped plainly and never handed to the scaler
    assert findings(_worker(SCALER_ENTRY, PLAIN_UPDATE)) == []


def test_gan_checkpoint_without_the_scaler_is_still_reported():
    # the discriminator's optimizer is the scaler's: its checkpoint needs the scale
    found = findings(_worker("", PLAIN_UPDATE))
    assert found == [("LRD007", 25)]


def test_classifier_stepped_through_the_scaler_needs_the_scale():
    # the same classifier, scaled: its checkpoint leaves the scaler's state out
    found = findings(_worker(SCALER_ENTRY, SCALED_UPDATE))
    assert [code for code, _ in found] == ["LRD007"]
    assert found[0][1] > 40


def test_unbound_scaler_step_with_the_optimizers_own_name_keeps_the_report():
    # `scaler.step(self.state.optimizer)` lrdoctor cannot bind: it may be the saved one
    source = '''
        import torch


        class Trainer:
            def __init__(self, state, amp):
                self.state = state
                self.scaler = torch.amp.GradScaler("cuda", enabled=amp)

            def fit(self, model, loader, epochs):
                optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
                self.state.optimizer = optimizer
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        with torch.autocast("cuda"):
                            loss = torch.nn.functional.mse_loss(model(x), y)
                        self.scaler.scale(loss).backward()
                        self.scaler.step(self.state.optimizer)
                        self.scaler.update()
                    optimizer.step()
                    torch.save({"model": model.state_dict(),
                                "optimizer": optimizer.state_dict()}, "last.pth")
    '''
    assert codes(source) == ["LRD007"]


# -- the batch's other spellings, already read ---------------------------------------------------

MODEL_CLASS = '''
import torch


class VOSModel:
    def __init__(self, net, para):
        self.net = net
        self.para = para
        self.optimizer = torch.optim.Adam(net.parameters(), lr=para["lr"])
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(
            self.optimizer, para["steps"], para["gamma"])
        if para["amp"]:
            self.scaler = torch.amp.GradScaler("cuda")

    def do_pass(self, data, it):
        with torch.autocast("cuda", enabled=self.para["amp"]):
            loss = self.net(data["x"]).sub(data["y"]).abs().mean()
        self.optimizer.zero_grad(set_to_none=True)
        if self.para["amp"]:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update(){check}
        else:
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()

    def save_checkpoint(self, it):
        torch.save({"it": it, "network": self.net.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(){scaler}}, "ckpt.pth")


def train(model, loader, iterations):
    it = 0
    while it < iterations:
        for data in loader:
            model.do_pass(data, it)
            it += 1
            if it % 1000 == 0:
                model.save_checkpoint(it)
'''

UNCHECKED = '''
            self.scheduler.step()'''

CHECKED = '''
            if self.scaler.get_scale() >= scale_before:
                self.scheduler.step()'''


def _vos(check: str, scaler: str) -> str:
    text = MODEL_CLASS.replace("{check}", check).replace("{scaler}", scaler)
    if "scale_before" in check:
        text = text.replace("            self.scaler.scale(loss).backward()",
                            "            scale_before = self.scaler.get_scale()\n"
                            "            self.scaler.scale(loss).backward()")
    return text


def test_model_class_scheduler_after_scaler_step_and_checkpoint_without_scaler():
    assert sorted(codes(_vos(UNCHECKED, ""))) == ["LRD005", "LRD007"]


def test_model_class_with_skip_check_and_scaler_in_checkpoint_is_silent():
    assert codes(_vos(CHECKED, ', "scaler": self.scaler.state_dict()')) == []


def test_timm_scheduler_repositioned_by_epoch_over_a_snapshot_with_the_scaler():
    source = '''
        import torch
        from timm.scheduler.cosine_lr import CosineLRScheduler

        amp_dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        pt_dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16}[amp_dtype]


        class Trainer:
            def __init__(self, model, loader, epochs, accum, snapshot=None):
                self.model, self.loader, self.accum = model, loader, accum
                self.epochs = epochs
                self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
                self.scheduler = CosineLRScheduler(self.optimizer, t_initial=epochs,
                                                   warmup_t=5, t_in_epochs=True)
                self.scaler = torch.amp.GradScaler("cuda", enabled=amp_dtype == "float16")
                self.epochs_run = 0
                if snapshot is not None:
                    state = torch.load(snapshot)
                    self.model.load_state_dict(state["model"])
                    self.optimizer.load_state_dict(state["optimizer"])
                    self.scaler.load_state_dict(state["scaler"])
                    self.epochs_run = state["epoch"]
                    self.scheduler.step(self.epochs_run)

            def run_epoch(self, epoch):
                updates = (epoch - 1) * ((len(self.loader) + self.accum - 1) // self.accum)
                for it, (x, y) in enumerate(self.loader):
                    with torch.autocast("cuda", dtype=pt_dtype):
                        loss = torch.nn.functional.cross_entropy(self.model(x), y) / self.accum
                    self.scaler.scale(loss).backward()
                    if (it + 1) % self.accum == 0 or it == len(self.loader) - 1:
                        self.scaler.unscale_(self.optimizer)
                        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                        self.scaler.step(self.optimizer)
                        self.scaler.update()
                        self.optimizer.zero_grad(set_to_none=True)
                        updates += 1
                        self.scheduler.step_update(num_updates=updates)
                self.scheduler.step(epoch)

            def save(self, epoch):
                torch.save({"model": self.model.state_dict(),
                            "optimizer": self.optimizer.state_dict(),
                            "scaler": self.scaler.state_dict(), "epoch": epoch}, "snap.pt")

            def train(self):
                for epoch in range(self.epochs_run, self.epochs):
                    self.run_epoch(epoch)
                    self.save(epoch)
    '''
    assert codes(source) == []


def test_apex_clipping_master_params_with_linear_warmup_is_silent():
    source = '''
        import torch
        from apex import amp
        from transformers import get_linear_schedule_with_warmup


        def train(encoder, model, loader, args):
            params = list(encoder.parameters()) + list(model.parameters())
            optimizer = torch.optim.AdamW(params, lr=args.lr)
            (encoder, model), optimizer = amp.initialize([encoder, model], optimizer,
                                                         opt_level="O1")
            total = len(loader) // args.accum * args.epochs
            scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup, total)
            for epoch in range(args.epochs):
                for step, batch in enumerate(loader):
                    loss = model(encoder(batch)) / args.accum
                    with amp.scale_loss(loss, optimizer) as scaled:
                        scaled.backward()
                    torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), 1.0)
                    if (step + 1) % args.accum == 0:
                        optimizer.step()
                        scheduler.step()
                        optimizer.zero_grad()
    '''
    assert codes(source) == []


# -- a GradScaler per network, one of them left out of the checkpoint ------------------------------

TWO_SCALERS = '''
import torch


def train(gen, dis, loader, epochs, amp=True):
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(dis.parameters(), lr=2e-4, betas=(0.0, 0.99))
    scaler_g = torch.amp.GradScaler("cuda", enabled=amp)
    scaler_d = torch.amp.GradScaler("cuda", enabled=amp)
    for epoch in range(epochs):
        for real in loader:
            with torch.autocast("cuda", enabled=amp):
                d_loss = torch.nn.functional.softplus(dis(gen(real).detach())).mean()
            opt_d.zero_grad()
            scaler_d.scale(d_loss).backward()
            scaler_d.step(opt_d)
            scaler_d.update()
            with torch.autocast("cuda", enabled=amp):
                g_loss = torch.nn.functional.softplus(-dis(gen(real))).mean()
            opt_g.zero_grad()
            scaler_g.scale(g_loss).backward()
            scaler_g.step(opt_g)
            scaler_g.update()
        torch.save({{"gen": gen.state_dict(), "dis": dis.state_dict(),
                    {saved}, "epoch": epoch}}, "last.pt")
'''


def _two(saved: str) -> str:
    return TWO_SCALERS.replace("{saved}", saved).replace("{{", "{").replace("}}", "}")


def test_checkpoint_with_one_of_two_scalers_reports_the_other():
    saved = '"opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(), ' \
            '"scaler_d": scaler_d.state_dict()'
    found = findings(_two(saved))
    assert [code for code, _ in found] == ["LRD007"]
    assert "scaler_g" in check_messages(_two(saved))[0]


def test_checkpoint_with_both_scalers_is_silent():
    saved = '"opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(), ' \
            '"scaler_d": scaler_d.state_dict(), "scaler_g": scaler_g.state_dict()'
    assert findings(_two(saved)) == []


def test_checkpoint_of_one_network_with_its_own_scaler_is_silent():
    # the discriminator's file: its optimizer and its scaler; the generator's are elsewhere
    saved = '"opt_d": opt_d.state_dict(), "scaler_d": scaler_d.state_dict()'
    assert findings(_two(saved)) == []


def test_second_scaler_saved_under_a_key_that_names_it_is_silent():
    saved = '"opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(), ' \
            '"scaler_d": scaler_d.state_dict(), "scaler_g": state_of(scaler_g)'
    assert findings(_two(saved)) == []
