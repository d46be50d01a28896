"""Shapes seen in the fresh-2026-12zx97 batch (rcnew97, bench/realcode/README.md): where the
scheduler steps, per batch or per epoch, in audio, time-series and small classification code.

Programs written for these tests; no third-party code.

One miss of the batch, fixed: a warm-up scheduler stepped after every micro-batch of a
helper's batch loop, under ``if warmup is not None and epoch < 3:``, while the optimizer
steps only every ``accum`` micro-batches (gradient accumulation). ``epoch`` is a parameter of
the helper, handed the caller's epoch-loop variable. LRD017 skipped the step because its
guard was "a guard of its own" whose value the program does not state; Python runs that
guard the same way on every pass of the batch loop, and on the first epochs (``0 < 3``) it
holds, so during the warm-up window the schedule advances once per micro-batch, ``accum``
times faster than the updates it is meant to follow. LRD017 now also reads a guard that is
the same on every pass of the batch loop and holds on the first pass of the loops around it,
a parameter standing for what the traced call handed it when that is an enclosing loop's
variable; ``x is not None`` parts that only ask whether the stepped scheduler exists are read
as holding.

Probing the family: the same reading was missing in LRD002, which takes a steady test on an
enclosing loop's variable (``if ep >= 5:``) as a phase of training and reports an
epoch-sized scheduler stepped per batch under it, but only when the helper's parameter
happened to have the caller's variable's name. A parameter handed that variable under
another name now counts the same.
"""

from __future__ import annotations

import pytest

from .helpers import codes

WARMUP_WINDOW_HELPER_ACCUM = '''
import torch
from torch import nn
from transformers import get_constant_schedule_with_warmup


def run_epoch(loader, net, opt, warmup, epoch, accum):
    net.train()
    opt.zero_grad()
    seen = 0
    for x, y in loader:
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        if seen % accum == 0 and seen > 0:
            opt.step()
            opt.zero_grad()
        seen += 1
        if warmup is not None and epoch < 3:
            warmup.step()


def main(loader, epochs=20, accum=2):
    net = nn.Linear(4, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    warmup = get_constant_schedule_with_warmup(opt, num_warmup_steps=500)
    for epoch in range(epochs):
        run_epoch(loader, net, opt, warmup, epoch, accum)
'''

# the caller's loop variable under another name, the window bound a module constant
WARMUP_WINDOW_RENAMED_PARAMETER = '''
import torch
from torch import nn

WARM_EPOCHS = 2


def one_epoch(net, opt, sched, data, ep, accum=4):
    for i, (x, y) in enumerate(data):
        loss = nn.functional.mse_loss(net(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
        if sched is not None and ep < WARM_EPOCHS:
            sched.step()


def main(data, epochs=30):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=400)
    for k in range(epochs):
        one_epoch(net, opt, sched, data, k)
'''

# handed by keyword
WARMUP_WINDOW_KEYWORD_ARGUMENT = '''
import torch
from torch import nn
from transformers import get_constant_schedule_with_warmup


def train_epoch(loader, model, optimizer, warmup=None, epoch=0, accumulation=2):
    model.train()
    for n, (x, y) in enumerate(loader):
        nn.functional.mse_loss(model(x), y).backward()
        if n % accumulation == 0 and n > 0:
            optimizer.step()
            optimizer.zero_grad()
        if warmup is not None and epoch < 3:
            warmup.step()


def main(loader, epochs=40):
    model = nn.Linear(8, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    warmup = get_constant_schedule_with_warmup(optimizer, num_warmup_steps=500)
    for e in range(epochs):
        train_epoch(loader, model, optimizer, warmup=warmup, epoch=e, accumulation=2)
'''

# the window tested on the epoch loop's own variable, in one function
WARMUP_WINDOW_SAME_FUNCTION = '''
import torch
from torch import nn


def main(data, epochs=30, accum=4):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=400)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(data):
            (nn.functional.mse_loss(net(x), y) / accum).backward()
            if step % accum == accum - 1:
                opt.step()
                opt.zero_grad()
            if epoch < 2:
                warm.step()
'''

# epochs counted from 1: `epoch <= 2` holds on the first pass
WARMUP_WINDOW_FROM_ONE = '''
import torch
from torch import nn


def main(data, epochs=30, accum=4):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=400)
    for epoch in range(1, epochs + 1):
        for step, (x, y) in enumerate(data):
            (nn.functional.mse_loss(net(x), y) / accum).backward()
            if step % accum == accum - 1:
                opt.step()
                opt.zero_grad()
            if epoch <= 2:
                warm.step()
'''

# the window's bound a command-line default
WARMUP_WINDOW_ARGPARSE_BOUND = '''
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--warm_epochs", type=int, default=3)
parser.add_argument("--accum", type=int, default=4)
args = parser.parse_args()


def train_one_epoch(model, loader, optimizer, scheduler, epoch):
    for it, (x, y) in enumerate(loader):
        (nn.functional.cross_entropy(model(x), y) / args.accum).backward()
        if (it + 1) % args.accum == 0:
            optimizer.step()
            optimizer.zero_grad()
        if epoch < args.warm_epochs:
            scheduler.step()


def main(loader):
    model = nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.001, 1.0, total_iters=300)
    for epoch in range(90):
        train_one_epoch(model, loader, optimizer, scheduler, epoch)
'''

# a config class: a warm-up of 300 steps stepped per micro-batch during the first epoch
WARMUP_WINDOW_CONFIG_CLASS = '''
import torch
from torch import nn


class CFG:
    epochs = 20
    accum = 2
    warmup_epochs = 1


def train_fn(model, loader, optimizer, scheduler, epoch):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y) / CFG.accum
        loss.backward()
        if (step + 1) % CFG.accum == 0:
            optimizer.step()
            optimizer.zero_grad()
        if epoch < CFG.warmup_epochs:
            scheduler.step()


def main(loader):
    model = nn.Linear(16, 4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=300)
    for epoch in range(CFG.epochs):
        train_fn(model, loader, optimizer, scheduler, epoch)
'''

# its twin: the warm-up spans len(loader) micro-batches, the first epoch's, as it is stepped
WARMUP_WINDOW_CONFIG_CLASS_ONE_EPOCH_OF_MICRO_BATCHES = '''
import torch
from torch import nn


class CFG:
    epochs = 20
    accum = 2
    warmup_epochs = 1


def train_fn(model, loader, optimizer, scheduler, epoch):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y) / CFG.accum
        loss.backward()
        if (step + 1) % CFG.accum == 0:
            optimizer.step()
            optimizer.zero_grad()
        if epoch < CFG.warmup_epochs:
            scheduler.step()


def main(loader):
    model = nn.Linear(16, 4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=len(loader))
    for epoch in range(CFG.epochs):
        train_fn(model, loader, optimizer, scheduler, epoch)
'''

# twins: stepped inside the accumulation block (once per update)
WARMUP_WINDOW_INSIDE_UPDATE = '''
import torch
from torch import nn


def main(data, epochs=30, accum=4):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=400)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(data):
            (nn.functional.mse_loss(net(x), y) / accum).backward()
            if step % accum == accum - 1:
                opt.step()
                opt.zero_grad()
                if epoch < 2:
                    warm.step()
'''

WARMUP_WINDOW_HELPER_INSIDE_UPDATE = '''
import torch
from torch import nn
from transformers import get_constant_schedule_with_warmup


def run_epoch(loader, net, opt, warmup, epoch, accum):
    seen = 0
    for x, y in loader:
        nn.functional.mse_loss(net(x), y).backward()
        seen += 1
        if seen % accum == 0:
            opt.step()
            opt.zero_grad()
            if warmup is not None and epoch < 3:
                warmup.step()


def main(loader, epochs=20, accum=2):
    net = nn.Linear(4, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    warmup = get_constant_schedule_with_warmup(opt, num_warmup_steps=500)
    for epoch in range(epochs):
        run_epoch(loader, net, opt, warmup, epoch, accum)
'''

# twin: no accumulation, one update per batch
WARMUP_WINDOW_EVERY_BATCH_UPDATES = '''
import torch
from torch import nn


def main(data, epochs=30):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=400)
    for epoch in range(epochs):
        for x, y in data:
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            if epoch < 2:
                warm.step()
'''

# twin: the warm-up is sized in micro-batches (warm_updates * accum)
WARMUP_WINDOW_SIZED_IN_MICRO_BATCHES = '''
import torch
from torch import nn
from transformers import get_linear_schedule_with_warmup


def run(net, opt, sched, data, epoch, accum):
    for i, (x, y) in enumerate(data):
        (nn.functional.mse_loss(net(x), y) / accum).backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
        if epoch < 3:
            sched.step()


def main(data, epochs=30, accum=4, warm_updates=100):
    net = nn.Linear(8, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = get_linear_schedule_with_warmup(opt, warm_updates * accum, epochs * len(data))
    for epoch in range(epochs):
        run(net, opt, sched, data, epoch, accum)
'''

# twin: the caller hands a setting, not its loop variable: nothing says the window holds
WARMUP_WINDOW_PARAMETER_FROM_A_SETTING = '''
import argparse

import torch
from torch import nn
from transformers import get_constant_schedule_with_warmup


def run_epoch(loader, net, opt, warmup, stage, accum):
    seen = 0
    for x, y in loader:
        nn.functional.mse_loss(net(x), y).backward()
        if seen % accum == 0 and seen > 0:
            opt.step()
            opt.zero_grad()
        seen += 1
        if stage < 3:
            warmup.step()


def main(loader, epochs=20, accum=2):
    parser = argparse.ArgumentParser()
    parser.add_argument("--stage", type=int)
    args = parser.parse_args()
    net = nn.Linear(4, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    warmup = get_constant_schedule_with_warmup(opt, num_warmup_steps=500)
    for epoch in range(epochs):
        run_epoch(loader, net, opt, warmup, args.stage, accum)
'''

# twin: the helper's own `epoch`, read from a state dict, only shares the caller's name
WARMUP_WINDOW_LOCAL_NAME_LIKE_THE_CALLERS = '''
import torch
from torch import nn

state = {"ep": 0}


def run(net, opt, warm, data, accum=4):
    epoch = state["ep"]
    for i, (x, y) in enumerate(data):
        (nn.functional.mse_loss(net(x), y) / accum).backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
        if epoch < 2:
            warm.step()


def main(data):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=400)
    for epoch in range(30):
        run(net, opt, warm, data)
'''

# LRD002: an epoch-sized cosine stepped per batch after a few epochs, through a parameter
# named otherwise than the caller's epoch variable
COSINE_PER_BATCH_AFTER_WARM_EPOCHS_RENAMED = '''
import torch
from torch import nn


def one_epoch(net, opt, sched, data, ep):
    for x, y in data:
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()
        if ep >= 5:
            sched.step()


def main(data, epochs=100):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs - 5)
    for k in range(epochs):
        one_epoch(net, opt, sched, data, k)
'''

# its twin: the same cosine stepped once per epoch after the warm epochs
COSINE_PER_EPOCH_AFTER_WARM_EPOCHS_RENAMED = '''
import torch
from torch import nn


def one_epoch(net, opt, data):
    for x, y in data:
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()


def main(data, epochs=100):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs - 5)
    for k in range(epochs):
        one_epoch(net, opt, data)
        if k >= 5:
            sched.step()
'''

# and a batch-sized cosine stepped per batch under the same renamed window: right
BATCH_COSINE_PER_BATCH_AFTER_WARM_EPOCHS_RENAMED = '''
import torch
from torch import nn


def one_epoch(net, opt, sched, data, ep):
    for x, y in data:
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()
        if ep >= 5:
            sched.step()


def main(data, epochs=100):
    net = nn.Linear(8, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=(epochs - 5) * len(data))
    for k in range(epochs):
        one_epoch(net, opt, sched, data, k)
'''


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(WARMUP_WINDOW_HELPER_ACCUM, id="helper_parameter"),
        pytest.param(WARMUP_WINDOW_RENAMED_PARAMETER, id="renamed_parameter"),
        pytest.param(WARMUP_WINDOW_KEYWORD_ARGUMENT, id="keyword_argument"),
        pytest.param(WARMUP_WINDOW_SAME_FUNCTION, id="same_function"),
        pytest.param(WARMUP_WINDOW_FROM_ONE, id="epochs_from_one"),
        pytest.param(WARMUP_WINDOW_ARGPARSE_BOUND, id="argparse_bound"),
        pytest.param(WARMUP_WINDOW_CONFIG_CLASS, id="config_class"),
    ],
)
def test_warmup_window_per_micro_batch_is_reported(source: str) -> None:
    assert codes(source) == ["LRD017"]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(WARMUP_WINDOW_INSIDE_UPDATE, id="inside_update"),
        pytest.param(WARMUP_WINDOW_HELPER_INSIDE_UPDATE, id="helper_inside_update"),
        pytest.param(WARMUP_WINDOW_EVERY_BATCH_UPDATES, id="no_accumulation"),
        pytest.param(WARMUP_WINDOW_SIZED_IN_MICRO_BATCHES, id="sized_in_micro_batches"),
        pytest.param(WARMUP_WINDOW_PARAMETER_FROM_A_SETTING, id="parameter_from_a_setting"),
        pytest.param(WARMUP_WINDOW_CONFIG_CLASS_ONE_EPOCH_OF_MICRO_BATCHES,
                     id="config_class_one_epoch_of_micro_batches"),
        pytest.param(WARMUP_WINDOW_LOCAL_NAME_LIKE_THE_CALLERS, id="local_name_like_the_callers"),
    ],
)
def test_warmup_window_twins_are_silent(source: str) -> None:
    assert codes(source) == []


def test_epoch_sized_cosine_per_batch_through_renamed_parameter() -> None:
    assert codes(COSINE_PER_BATCH_AFTER_WARM_EPOCHS_RENAMED) == ["LRD002"]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(COSINE_PER_EPOCH_AFTER_WARM_EPOCHS_RENAMED, id="per_epoch"),
        pytest.param(BATCH_COSINE_PER_BATCH_AFTER_WARM_EPOCHS_RENAMED, id="batch_sized"),
    ],
)
def test_cosine_window_twins_are_silent(source: str) -> None:
    assert codes(source) == []
