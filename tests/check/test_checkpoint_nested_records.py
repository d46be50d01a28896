"""A checkpoint that holds, beside the optimizer, a record the program fills under keys
computed at run time (lead60, from a sparse-training study: ``"mask": mask.state_dict()``
whose ``"stats"`` hold per-layer dicts filled in a loop over the parameters). Any partly
unknown dict anywhere in the checkpoint made all of it unknown, so its missing scheduler went
unreported (LRD007). Unknown entries of the checkpoint itself (``**extra``, ``ckpt[k] = v`` for
unknown pairs) may hold any state and still keep it unjudged; a record inside one of its
entries holds values."""

from __future__ import annotations

from .helpers import codes

LOOP = """
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
{build}
for epoch in range(90):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
{save}
"""

PER_LAYER = """
def layer_stats(model):
    norms = {}
    for name, weight in model.named_parameters():
        norms[name] = weight.norm().item()
    return norms
"""


def _program(save: str, build: str = PER_LAYER) -> str:
    return LOOP.format(build=build, save="\n".join("    " + line for line in save.splitlines()))


def test_a_per_layer_record_inside_the_checkpoint_does_not_hide_the_missing_scheduler() -> None:
    save = ('state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),\n'
            '         "stats": {"norms": layer_stats(model), "epoch": epoch}}\n'
            'torch.save(state, "last.pt")')
    assert codes(_program(save)) == ["LRD007"]


def test_a_per_layer_record_stored_directly_under_a_key_is_read_the_same() -> None:
    save = ('state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}\n'
            'state["norms"] = layer_stats(model)\n'
            'torch.save(state, "last.pt")')
    assert codes(_program(save)) == ["LRD007"]


def test_the_same_checkpoint_with_the_scheduler_is_silent() -> None:
    save = ('state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),\n'
            '         "scheduler": scheduler.state_dict(),\n'
            '         "stats": {"norms": layer_stats(model), "epoch": epoch}}\n'
            'torch.save(state, "last.pt")')
    assert codes(_program(save)) == []


def test_unknown_entries_of_the_checkpoint_itself_keep_it_unjudged() -> None:
    # `extra` could carry the scheduler's state under any key
    build = "extra = {}\nfor key, value in EXTRA_STATE.items():\n    extra[key] = value\n"
    save = ('state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}\n'
            'for key, value in extra.items():\n'
            '    state[key] = value\n'
            'torch.save(state, "last.pt")')
    assert codes(_program(save, build)) == []


def test_a_splat_of_something_unknown_inside_an_entry_keeps_it_unjudged() -> None:
    save = ('state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),\n'
            '         "extra": {**EXTRA_STATE}}\n'
            'torch.save(state, "last.pt")')
    assert codes(_program(save)) == []
