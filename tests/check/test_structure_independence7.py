"""The loop over batches, however it is spelled, is the batch loop: `for x, y in loader:`,
`it = iter(loader)` then `while True: try: x, y = next(it) except StopIteration: break`,
`for _ in range(len(loader)): x, y = next(it)`, `while (batch := next(it, None)) is not None:`,
or a loop over a project generator that yields once per batch of the loader (`for b in
loader: yield b`, `yield from loader`). Other layouts real projects use are checked here too:
the per-batch step in a closure handed to a helper, `while epoch < max_epochs:`, the step in a
`finally:` or a `with` block, an optimizer and scheduler returned as a tuple by a builder,
`main(parse_args())` against `fire.Fire(main)` / `typer.run(main)` / a click command.

Each layout comes as a twin pair: the buggy program, which must be reported, and the same
program written correctly, which must stay silent."""

from __future__ import annotations

import pytest

from .helpers import findings, messages

HEAD = """
import itertools

import torch
from torch.optim.lr_scheduler import ExponentialLR, OneCycleLR, StepLR


def batches(loader):
    for batch in loader:
        yield batch


def passed_on(loader):
    yield from loader


def draw(iterator):
    return next(iterator)
"""

# (set-up at the top of the epoch body, the batch loop's header with the batch bound)
LOOPS = {
    "for": ("pass", "for i, (x, y) in enumerate(loader):"),
    "while_next": (
        "it = iter(enumerate(loader))",
        "while True:\n"
        "            try:\n"
        "                i, (x, y) = next(it)\n"
        "            except StopIteration:\n"
        "                break",
    ),
    "range_len_next": ("it = iter(loader)",
                       "for i in range(len(loader)):\n            x, y = next(it)"),
    "next_default": (
        "it = iter(loader)\n        i = -1",
        "while True:\n"
        "            batch = next(it, None)\n"
        "            if batch is None:\n"
        "                break\n"
        "            x, y = batch\n"
        "            i += 1",
    ),
    "walrus": ("it = iter(loader)\n        i = -1",
               "while (batch := next(it, None)) is not None:\n            x, y = batch\n"
               "            i += 1"),
    "generator": ("pass", "for i, (x, y) in enumerate(batches(loader)):"),
    "yield_from": ("pass", "for i, (x, y) in enumerate(passed_on(loader)):"),
    "islice": ("pass", "for i, (x, y) in enumerate(itertools.islice(loader, 1000)):"),
    "enumerate_start": ("pass", "for i, (x, y) in enumerate(loader, start=1):"),
    "zip": ("pass", "for i, ((x, y), extra) in enumerate(zip(loader, loader)):"),
    "cycle": ("pass", "for i, (x, y) in zip(range(len(loader)), itertools.cycle(loader)):"),
    "helper_next": ("it = iter(loader)",
                    "for i in range(len(loader)):\n            x, y = draw(it)"),
}

TRAIN = HEAD + """

def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}
    for epoch in range(epochs):
        {setup}
        {header}
            opt.zero_grad()
            loss = model(x).mean()
            loss.backward()
            opt.step()
            {in_batch}
        {in_epoch}
"""


def program(build: str, loop: str, in_batch: str = "pass", in_epoch: str = "pass") -> str:
    setup, header = LOOPS[loop]
    return (TRAIN.replace("{build}", build).replace("{setup}", setup)
            .replace("{header}", header).replace("{in_batch}", in_batch)
            .replace("{in_epoch}", in_epoch))


def codes_of(source: str) -> list[str]:
    return sorted({code for code, _ in findings(source)} - {"LRD101"})


STEP_LR = "StepLR(opt, step_size=30)"
ONE_CYCLE = "OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))"


# -- LRD002: an epoch-sized StepLR stepped per batch, however the batches are drawn ----------


@pytest.mark.parametrize("loop", list(LOOPS))
def test_step_lr_stepped_in_the_batch_loop_is_reported(loop: str) -> None:
    assert codes_of(program(STEP_LR, loop, in_batch="sched.step()")) == ["LRD002"]


@pytest.mark.parametrize("loop", list(LOOPS))
def test_step_lr_stepped_per_epoch_is_silent(loop: str) -> None:
    assert codes_of(program(STEP_LR, loop, in_epoch="sched.step()")) == []


@pytest.mark.parametrize("loop", list(LOOPS))
def test_exponential_lr_stepped_in_the_batch_loop_is_reported(loop: str) -> None:
    build = "ExponentialLR(opt, gamma=0.9)"
    assert codes_of(program(build, loop, in_batch="sched.step()")) == ["LRD002"]
    assert codes_of(program(build, loop, in_epoch="sched.step()")) == []


def test_the_message_names_the_iterator_of_a_while_loop() -> None:
    said = messages(program(STEP_LR, "while_next", in_batch="sched.step()"))
    assert len(said) == 1 and "the batch loop over `next(it)`" in said[0]


# -- LRD003: a per-batch schedule stepped once per epoch -------------------------------------


@pytest.mark.parametrize("loop", list(LOOPS))
def test_one_cycle_stepped_per_epoch_is_reported(loop: str) -> None:
    assert codes_of(program(ONE_CYCLE, loop, in_epoch="sched.step()")) == ["LRD003"]


@pytest.mark.parametrize("loop", list(LOOPS))
def test_one_cycle_stepped_per_batch_is_silent(loop: str) -> None:
    assert codes_of(program(ONE_CYCLE, loop, in_batch="sched.step()")) == []


@pytest.mark.parametrize("loop", list(LOOPS))
def test_one_cycle_stepped_on_the_last_batch_only_is_reported(loop: str) -> None:
    last = "if i == len(loader) - 1:\n                sched.step()"
    if loop == "enumerate_start":
        last = "if i == len(loader):\n                sched.step()"
    assert codes_of(program(ONE_CYCLE, loop, in_batch=last)) == ["LRD003"]


# -- not a batch loop: a batch drawn for a look, one batch per epoch -------------------------

LOOK = HEAD + """

def fit(model, loader, val_loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    shown = iter(val_loader)
    {epochs}
        for x, y in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
        sample = {sample}
        sched.step()
        {count}
"""


@pytest.mark.parametrize("sample", ["next(shown)", "next(iter(val_loader))"])
@pytest.mark.parametrize("epochs", ["for epoch in range(epochs):", "while True:"])
def test_a_sample_batch_drawn_in_the_epoch_loop_does_not_make_it_a_batch_loop(
        sample: str, epochs: str) -> None:
    count = "epoch += 1\n        if epoch >= epochs:\n            break" \
        if epochs.startswith("while") else "pass"
    source = LOOK.replace("{epochs}", ("epoch = 0\n    " if count != "pass" else "") + epochs)
    source = source.replace("{sample}", sample).replace("{count}", count)
    assert codes_of(source) == []


ONE_PER_EPOCH = HEAD + """

def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    it = iter(loader)
    epoch = 0
    while epoch < epochs:
        x, y = next(it)
        opt.zero_grad()
        model(x).mean().backward()
        opt.step()
        sched.step()
        epoch += 1
"""


def test_one_batch_per_epoch_from_an_iterator_is_not_a_batch_loop() -> None:
    assert codes_of(ONE_PER_EPOCH) == []


# -- other layouts: the findings hold ---------------------------------------------------------

LAYOUTS = {
    "closure": """
def run_epoch(loader, step_fn):
    for x, y in loader:
        step_fn(x, y)


def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}

    def train_step(x, y):
        opt.zero_grad()
        model(x).mean().backward()
        opt.step()
        {B}

    for epoch in range(epochs):
        run_epoch(loader, train_step)
        {E}
""",
    "while_epoch": """
def fit(model, loader, max_epochs):
    epochs = max_epochs
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}
    epoch = 0
    while epoch < max_epochs:
        for x, y in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
            {B}
        {E}
        epoch += 1
""",
    "finally": """
def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}
    for epoch in range(epochs):
        for x, y in loader:
            try:
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
            finally:
                {B}
        try:
            pass
        finally:
            {E}
""",
    "with": """
def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda", enabled=False):
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
            {B}
        with torch.no_grad():
            {E}
""",
    "builder_tuple": """
def build(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}
    return opt, sched


def fit(model, loader, epochs):
    opt, sched = build(model, loader, epochs)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
            {B}
        {E}
""",
}

MAIN = """
import argparse


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    return parser.parse_args()


def main(args):
    model = torch.nn.Linear(2, 2)
    loader = torch.utils.data.DataLoader(list(range(10)), batch_size=2)
    epochs = args.epochs
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = {build}
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x).mean().backward()
            opt.step()
            {B}
        {E}
"""
ENTRIES = {
    "main_parse_args": "\nif __name__ == '__main__':\n    main(parse_args())\n",
    "fire": "\nimport fire\n\nif __name__ == '__main__':\n    fire.Fire(main)\n",
    "typer": "\nimport typer\n\nif __name__ == '__main__':\n    typer.run(main)\n",
    "click": "\nimport click\n\n\n@click.command()\n@click.option('--epochs', default=10)\n"
             "def cli(epochs):\n    main(argparse.Namespace(epochs=epochs))\n\n\n"
             "if __name__ == '__main__':\n    cli()\n",
}
for _name, _tail in ENTRIES.items():
    LAYOUTS["entry_" + _name] = MAIN + _tail


def layout(name: str, build: str, per_batch: bool) -> str:
    return HEAD + (LAYOUTS[name].replace("{build}", build)
                   .replace("{B}", "sched.step()" if per_batch else "pass")
                   .replace("{E}", "pass" if per_batch else "sched.step()"))


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layouts_keep_the_epoch_schedule_per_batch_finding(name: str) -> None:
    assert codes_of(layout(name, STEP_LR, per_batch=True)) == ["LRD002"]
    assert codes_of(layout(name, STEP_LR, per_batch=False)) == []


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layouts_keep_the_batch_schedule_per_epoch_finding(name: str) -> None:
    assert codes_of(layout(name, ONE_CYCLE, per_batch=False)) == ["LRD003"]
    assert codes_of(layout(name, ONE_CYCLE, per_batch=True)) == []
