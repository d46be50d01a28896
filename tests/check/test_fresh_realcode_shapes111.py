"""Shapes seen in the fresh-2026-12zzj109 batch (rcnew109, bench/realcode/README.md):
checkpoint save and resume in super-resolution, segmentation, GAN, speech and detection
trainers (what a resumable checkpoint holds beside the optimizer, save/load helpers in a utils
module, schedulers rebuilt with ``last_epoch`` or replayed on resume, weight-only best-model
files beside resumable ones).

Programs written for these tests; no third-party code.

The batch's dev cases were all found at first sight; what moved is where LRD007 points. A
save helper of the SR templates is ``save_checkpoint(state_dict, file_name, ...)`` whose body
is ``torch.save(state_dict, path)``, called with a dict display per network (``{"epoch": ...,
"optimizer": g_optimizer.state_dict(), "scheduler": ...}``). The finding sat on the helper's
``torch.save``: one line for both callers, in a file that never names what is stored. It is
now reported at the dict display the caller hands over (one finding per caller), where the
missing entry belongs; a helper that builds or fills the dict itself keeps the finding at its
save.

Probing the family in our own words (about 40 programs): checkpoints missing the scheduler or
the GradScaler, written inline, through helpers (by parameter, positionally, by keyword), by
``dict(...)``, by ``torch.save(obj=...)``, by entries added one by one; a trainer class's own
``_save``/``_resume``; a BasicSR-style model keeping lists of optimizers and schedulers; timm's
``NativeScaler``; a GAN with two scalers, one saved; resumes that rebuild the scheduler with
``last_epoch``, replay its steps, or load only the optimizer; weight-only and best-model files;
``ExponentialLR`` (chainable, its LR comes back with the optimizer). lrdoctor was right on each;
the instructive ones are kept below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

# --- where LRD007 points: the dict display a caller hands to a save helper -----------------

SAVE_HELPER = '''
import shutil
import torch


def save_checkpoint(state, path, is_best=False):
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, "best.pth")


def load_state(model, path, optimizer, scheduler):
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["state_dict"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    return ckpt["epoch"]
'''

GAN_DRIVER = '''
import torch
from torch import nn
from torch.optim import lr_scheduler
from utils import save_checkpoint, load_state


def main(resume_g="", resume_d=""):
    g_model = nn.Linear(8, 8).cuda()
    d_model = nn.Linear(8, 1).cuda()
    g_optimizer = torch.optim.Adam(g_model.parameters(), 1e-4)
    d_optimizer = torch.optim.Adam(d_model.parameters(), 1e-4)
    g_scheduler = lr_scheduler.MultiStepLR(g_optimizer, [50, 100], 0.5)
    d_scheduler = lr_scheduler.MultiStepLR(d_optimizer, [50, 100], 0.5)
    start = 0
    if resume_d:
        start = load_state(d_model, resume_d, d_optimizer, d_scheduler)
    if resume_g:
        start = load_state(g_model, resume_g, g_optimizer, g_scheduler)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(start, 150):
        for _ in range(10):
            x = torch.randn(4, 8).cuda()
            g_optimizer.zero_grad()
            with torch.autocast("cuda"):
                g_loss = -d_model(g_model(x)).mean()
            scaler.scale(g_loss).backward()
            scaler.step(g_optimizer)
            scaler.update()
            d_optimizer.zero_grad()
            with torch.autocast("cuda"):
                d_loss = d_model(g_model(x).detach()).mean() - d_model(x).mean()
            scaler.scale(d_loss).backward()
            scaler.step(d_optimizer)
            scaler.update()
        g_scheduler.step()
        d_scheduler.step()
        save_checkpoint({"epoch": epoch + 1,
                         "state_dict": d_model.state_dict(),
                         "optimizer": d_optimizer.state_dict(),
                         "scheduler": d_scheduler.state_dict(){d_extra}},
                        "d_last.pth")
        save_checkpoint({"epoch": epoch + 1,
                         "state_dict": g_model.state_dict(),
                         "optimizer": g_optimizer.state_dict(),
                         "scheduler": g_scheduler.state_dict(){g_extra}},
                        "g_last.pth", is_best=epoch % 10 == 0)


if __name__ == "__main__":
    main()
'''


def _gan(d_extra: str = "", g_extra: str = "") -> dict[str, str]:
    return {"utils.py": SAVE_HELPER,
            "train.py": GAN_DRIVER.replace("{d_extra}", d_extra).replace("{g_extra}", g_extra)}


def test_each_caller_s_dict_is_reported_where_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _gan())
    assert [(p, line) for p, line, c in found if c == "LRD007"] == [
        ("train.py", 38), ("train.py", 43)]


def test_one_caller_storing_the_shared_scaler_completes_the_run_s_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # one GradScaler for both networks, written to the generator's file of the same epoch:
    # the run's state is on disk (the discriminator's file is not judged alone)
    found = check_project(tmp_path, monkeypatch,
                          _gan(g_extra=',\n                         "scaler": scaler.state_dict()'))
    assert "LRD007" not in project_codes(found)


def test_both_callers_storing_the_scaler_are_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = ',\n                         "scaler": scaler.state_dict()'
    found = check_project(tmp_path, monkeypatch, _gan(d_extra=extra, g_extra=extra))
    assert "LRD007" not in project_codes(found)


def test_a_dict_call_at_the_caller_is_reported_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = '''
import torch
from torch import nn
from utils import save_checkpoint


def main():
    model = nn.Linear(8, 1).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(10):
        for _ in range(5):
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(torch.randn(2, 8).cuda()).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        save_checkpoint(dict(model=model.state_dict(), optimizer=optimizer.state_dict(),
                             epoch=epoch), "last.pth")


if __name__ == "__main__":
    main()
'''
    found = check_project(tmp_path, monkeypatch, {"utils.py": SAVE_HELPER, "train.py": driver})
    assert [(p, line) for p, line, c in found if c == "LRD007"] == [("train.py", 19)]


HELPER_FILLS = '''
import torch


def save_checkpoint(state, path, extra=None):
    if extra:
        state.update(extra)
    torch.save(state, path)
'''

HELPER_BUILDS = '''
import torch


def save_checkpoint(model, optimizer, epoch, path):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, path)
'''

PLAIN_DRIVER = '''
import torch
from torch import nn
from utils import save_checkpoint


def main():
    model = nn.Linear(8, 1).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(10):
        for _ in range(5):
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(torch.randn(2, 8).cuda()).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        {save}


if __name__ == "__main__":
    main()
'''


def test_a_helper_that_fills_the_dict_keeps_the_finding_at_its_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = PLAIN_DRIVER.replace(
        "{save}", 'save_checkpoint({"model": model.state_dict(), '
                  '"optimizer": optimizer.state_dict()}, "last.pth")')
    found = check_project(tmp_path, monkeypatch, {"utils.py": HELPER_FILLS, "train.py": driver})
    assert [(p, line) for p, line, c in found if c == "LRD007"] == [("utils.py", 8)]


def test_a_helper_that_builds_the_dict_keeps_the_finding_at_its_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = PLAIN_DRIVER.replace("{save}", 'save_checkpoint(model, optimizer, epoch, "last.pth")')
    found = check_project(tmp_path, monkeypatch, {"utils.py": HELPER_BUILDS, "train.py": driver})
    assert [(p, line) for p, line, c in found if c == "LRD007"] == [("utils.py", 6)]


# --- the family, probed --------------------------------------------------------------------

NATIVE_SCALER = '''
import argparse
import torch
from torch import nn
from timm.utils import NativeScaler


def main(resume=False):
    model = nn.Linear(8, 1).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 50, 0.5)
    start = 1
    if resume:
        ck = torch.load("model_latest.pth")
        model.load_state_dict(ck["state_dict"])
        optimizer.load_state_dict(ck["optimizer"])
        start = ck["epoch"] + 1
        for _ in range(1, start):
            scheduler.step()
    loss_scaler = NativeScaler()
    for epoch in range(start, 300):
        for _ in range(10):
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(torch.randn(4, 8).cuda()).abs().mean()
            loss_scaler(loss, optimizer, parameters=model.parameters())
        scheduler.step()
        torch.save({"epoch": epoch, "state_dict": model.state_dict(),
                    "optimizer": optimizer.state_dict(){extra}}, "model_latest.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''


def test_timm_native_scaler_left_out_of_a_replayed_resume() -> None:
    assert codes(NATIVE_SCALER.replace("{extra}", "")) == ["LRD007"]


def test_timm_native_scaler_stored_and_restored() -> None:
    source = NATIVE_SCALER.replace("{extra}", ', "scaler": loss_scaler.state_dict()').replace(
        "    loss_scaler = NativeScaler()\n",
        "    loss_scaler = NativeScaler()\n"
        "    if resume:\n"
        "        loss_scaler.load_state_dict(torch.load(\"model_latest.pth\")[\"scaler\"])\n")
    assert codes(source) == []


def test_timm_native_scaler_stored_but_never_restored() -> None:
    source = NATIVE_SCALER.replace("{extra}", ', "scaler": loss_scaler.state_dict()')
    assert messages(source) == [
        "`optimizer.load_state_dict(...)` restores the optimizer but the GradScaler "
        "(`loss_scaler`) is never restored: on resume the scale restarts at 65536 and skips "
        "steps again"]


RESUME = '''
import argparse
import torch
from torch import nn
from torch.optim import lr_scheduler


def main(resume=""):
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    start_epoch = 0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
    {build}
    for epoch in range(start_epoch, 100):
        for _ in range(10):
            optimizer.zero_grad()
            model(torch.randn(4, 8)).pow(2).mean().backward()
            optimizer.step()
        scheduler.step()
        torch.save({"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict()}, "ckpt.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''


def test_scheduler_built_fresh_after_the_optimizer_is_restored() -> None:
    source = RESUME.replace("{build}", "scheduler = lr_scheduler.CosineAnnealingLR(optimizer, 100)")
    assert codes(source) == ["LRD007", "LRD007"]


@pytest.mark.parametrize("build", [
    "scheduler = lr_scheduler.MultiStepLR(optimizer, [30, 60], 0.1, last_epoch=start_epoch - 1)",
    "scheduler = lr_scheduler.LambdaLR(optimizer, lambda e: 0.98 ** e, last_epoch=start_epoch - 1)",
    "scheduler = lr_scheduler.MultiStepLR(optimizer, [30, 60], 0.1)\n"
    "    for _ in range(start_epoch):\n        scheduler.step()",
    # chainable: each step multiplies the LR the restored optimizer holds
    "scheduler = lr_scheduler.ExponentialLR(optimizer, 0.95)",
])
def test_scheduler_positioned_on_resume(build: str) -> None:
    assert codes(RESUME.replace("{build}", build)) == []


SR_MODEL = '''
import argparse
import torch
from torch import nn
from torch.optim import lr_scheduler


class SRModel:
    def __init__(self):
        self.net_g = nn.Linear(8, 8)
        self.optimizers = []
        self.schedulers = []
        self.optimizer_g = torch.optim.Adam(self.net_g.parameters(), lr=2e-4)
        self.optimizers.append(self.optimizer_g)
        for optimizer in self.optimizers:
            self.schedulers.append(lr_scheduler.MultiStepLR(optimizer, [200, 400], 0.5))

    def optimize_parameters(self, x):
        self.optimizer_g.zero_grad()
        (self.net_g(x) - x).abs().mean().backward()
        self.optimizer_g.step()

    def update_learning_rate(self):
        for scheduler in self.schedulers:
            scheduler.step()

    def save_training_state(self, epoch, current_iter):
        state = {"epoch": epoch, "iter": current_iter, "optimizers": [], "schedulers": []}
        for o in self.optimizers:
            state["optimizers"].append(o.state_dict())
{save_schedulers}        torch.save(state, f"{current_iter}.state")

    def resume_training(self, resume_state):
        for i, o in enumerate(resume_state["optimizers"]):
            self.optimizers[i].load_state_dict(o)
{load_schedulers}

def main(resume=None):
    model = SRModel()
    start_epoch, current_iter = 0, 0
    if resume:
        state = torch.load(resume)
        model.resume_training(state)
        start_epoch, current_iter = state["epoch"], state["iter"]
    for epoch in range(start_epoch, 1000):
        for _ in range(10):
            current_iter += 1
            model.optimize_parameters(torch.randn(4, 8))
            model.update_learning_rate()
            if current_iter % 500 == 0:
                model.save_training_state(epoch, current_iter)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''


def test_lists_of_optimizers_and_schedulers_saved_and_restored() -> None:
    source = SR_MODEL.replace(
        "{save_schedulers}",
        '        for s in self.schedulers:\n            state["schedulers"].append(s.state_dict())\n'
    ).replace(
        "{load_schedulers}",
        '        for i, s in enumerate(resume_state["schedulers"]):\n'
        '            self.schedulers[i].load_state_dict(s)\n')
    assert codes(source) == []


def test_lists_of_optimizers_restored_without_the_schedulers() -> None:
    source = SR_MODEL.replace("{save_schedulers}", "").replace("{load_schedulers}", "")
    assert "LRD007" in codes(source)


GAN_TWO_SCALERS = '''
import argparse
import torch
from torch import nn


def main(resume=""):
    G = nn.Linear(8, 8).cuda()
    D = nn.Linear(8, 1).cuda()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    scaler_g = torch.amp.GradScaler("cuda")
    scaler_d = torch.amp.GradScaler("cuda")
    start = 0
    if resume:
        ck = torch.load(resume)
        G.load_state_dict(ck["G"])
        D.load_state_dict(ck["D"])
        opt_g.load_state_dict(ck["opt_g"])
        opt_d.load_state_dict(ck["opt_d"])
        scaler_d.load_state_dict(ck["scaler_d"])
        start = ck["epoch"] + 1
    for epoch in range(start, 100):
        for _ in range(10):
            x = torch.randn(4, 8).cuda()
            opt_d.zero_grad()
            with torch.autocast("cuda"):
                d_loss = D(G(x).detach()).mean() - D(x).mean()
            scaler_d.scale(d_loss).backward()
            scaler_d.step(opt_d)
            scaler_d.update()
            opt_g.zero_grad()
            with torch.autocast("cuda"):
                g_loss = -D(G(x)).mean()
            scaler_g.scale(g_loss).backward()
            scaler_g.step(opt_g)
            scaler_g.update()
        torch.save({"G": G.state_dict(), "D": D.state_dict(), "opt_g": opt_g.state_dict(),
                    "opt_d": opt_d.state_dict(), "scaler_d": scaler_d.state_dict(){extra},
                    "epoch": epoch}, "gan.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''


def test_gan_with_a_scaler_per_network_saves_only_one() -> None:
    assert codes(GAN_TWO_SCALERS.replace("{extra}", "")) == ["LRD007"]


def test_gan_with_a_scaler_per_network_saves_both() -> None:
    source = GAN_TWO_SCALERS.replace("{extra}", ', "scaler_g": scaler_g.state_dict()')
    assert codes(source) == []


def test_weights_only_best_file_beside_a_complete_last_checkpoint() -> None:
    source = '''
import argparse
import torch
from torch import nn


def main(resume=""):
    model = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 20, 0.5)
    start, best = 0, 0.0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start = ckpt["epoch"]
    for epoch in range(start, 100):
        for _ in range(10):
            optimizer.zero_grad()
            model(torch.randn(4, 8)).pow(2).mean().backward()
            optimizer.step()
        scheduler.step()
        acc = float(epoch)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), "best.pth")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, "last.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args().resume)
'''
    assert codes(source) == []
