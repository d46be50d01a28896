"""fphunt64: a name that says validation only by its `val` for value.

A head trained on full batches with no validation set keeps the number of its training loss
as `loss_val = loss.item()` after `loss.backward()`, for its early stopping, and steps a
ReduceLROnPlateau with `loss.item()`. lrdoctor read `loss_val` as a validation metric and
reported LRD004 ("stepped with the training loss while a validation metric exists"). A name
bound to the number of a value (`x.item()`, `float(x)`, `x.detach()`) that the code
backpropagates - the statements before it in its block, or in the blocks around, reach
`x.backward()` (`scaler.scale(x).backward()`, `accelerator.backward(x)`) before any
statement binds `x` anew, or the statements after it in its own block do - holds the
training loss, not a validation metric. Still LRD004: a validation loss computed from the
validation split into such a name, and one computed after a validation pass rebinds `x`.

The same head moves its training data to the device as `x_train_dev` / `y_train_dev`, and
lrdoctor then cited `y_train_dev` (`dev` for a development split) as the validation metric.
A name read in computing a value the code backpropagates - a statement binding a name from
it is followed in its block by that name's backward call (or by a statement binding another
name from it that is, up to two links) before the name is bound anew - is training data,
whatever its words say. Still LRD004: a dev split whose loss is computed and not
backpropagated, also when the dev pass reuses the name `loss`.
"""

from __future__ import annotations

from .helpers import codes

_HEAD = """
import torch
from torch import nn

x = torch.randn(256, 16)
y = torch.randint(0, 3, (256,))
xv = torch.randn(64, 16)
yv = torch.randint(0, 3, (64,))
head = nn.Linear(16, 3)
opt = torch.optim.Adam(head.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=5)
loss_fn = nn.CrossEntropyLoss()
best = float("inf")
"""

_FULL_BATCH = _HEAD + """
for epoch in range(200):
    logits = head(x)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step(loss.item())
    {copy}
    if loss_val < best:
        best = loss_val
"""

_COPY_FIRST = _HEAD + """
for epoch in range(200):
    loss = loss_fn(head(x), y)
    loss_val = loss.item()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss_val)
    sched.step(loss.item())
"""

_AFTER_THE_BATCHES = _HEAD + """
batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 256, 32)]
for epoch in range(200):
    for xb, yb in batches:
        loss = loss_fn(head(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    {after}
    print(epoch, loss_val)
    sched.step(loss.item())
"""

_STEP_FUNCTION = _HEAD + """
def train_step(xb, yb):
    loss = loss_fn(head(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    loss_val = loss.item()
    return loss_val


for epoch in range(200):
    train_loss = 0.0
    for i in range(0, 256, 32):
        train_loss += train_step(x[i:i + 32], y[i:i + 32])
    sched.step(train_loss)
"""


def test_the_copied_training_loss_is_no_validation_metric() -> None:
    assert codes(_FULL_BATCH.format(copy="loss_val = loss.item()")) == []


def test_float_and_annotated_copies_are_no_validation_metric() -> None:
    assert codes(_FULL_BATCH.format(copy="loss_val = float(loss)")) == []
    assert codes(_FULL_BATCH.format(copy="loss_val: float = loss.detach().item()")) == []


def test_a_copy_made_before_the_backward_call_is_no_validation_metric() -> None:
    assert codes(_COPY_FIRST) == []


def test_a_copy_after_the_batch_loop_is_no_validation_metric() -> None:
    assert codes(_AFTER_THE_BATCHES.format(after="loss_val = loss.item()")) == []


def test_a_copy_returned_by_the_update_function_is_no_validation_metric() -> None:
    assert codes(_STEP_FUNCTION) == []


def test_a_validation_loss_in_the_same_name_is_still_found() -> None:
    # the number of a loss computed on the validation split: LRD004 as before
    copy = "loss_val = loss_fn(head(xv), yv).item()"
    assert codes(_FULL_BATCH.format(copy=copy)) == ["LRD004"]


def test_a_copy_after_a_validation_pass_rebinds_the_loss_is_still_found() -> None:
    # `loss` is bound anew to the validation loss before it is copied
    after = "loss = loss_fn(head(xv), yv)\n    loss_val = loss.item()"
    assert codes(_AFTER_THE_BATCHES.format(after=after)) == ["LRD004"]


def test_a_copy_of_a_value_nothing_backpropagates_is_still_found() -> None:
    # `other` is never backpropagated: its copy is a validation metric by its name
    copy = "other = loss_fn(head(xv), yv)\n    loss_val = other.item()"
    assert codes(_FULL_BATCH.format(copy=copy)) == ["LRD004"]


_DEVICE_COPIES = """
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(256, 16)
y = torch.randint(0, 3, (256,))
x_dev = torch.randn(64, 16)
y_dev = torch.randint(0, 3, (64,))
head = nn.Linear(16, 3).to(device)
opt = torch.optim.Adam(head.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", patience=5)
loss_fn = nn.CrossEntropyLoss()
x_train_dev = x.to(device)
y_train_dev = y.to(device)
for epoch in range(200):
    logits = head(x_train_dev)
    loss = loss_fn(logits, y_train_dev)
    opt.zero_grad()
    loss.backward()
    opt.step()
    train_loss = loss.item()
    {dev}
    sched.step(train_loss)
"""


def test_device_copies_of_the_training_data_are_no_validation_metric() -> None:
    assert codes(_DEVICE_COPIES.format(dev="pass")) == []


def test_a_dev_split_loss_is_still_found() -> None:
    dev = "with torch.no_grad():\n        dev_loss = loss_fn(head(x_dev), y_dev).item()"
    assert codes(_DEVICE_COPIES.format(dev=dev)) == ["LRD004"]


def test_a_dev_pass_reusing_the_loss_name_is_still_found() -> None:
    # `loss` is bound again from the dev split and never backpropagated there
    dev = "with torch.no_grad():\n        loss = loss_fn(head(x_dev), y_dev)"
    assert codes(_DEVICE_COPIES.format(dev=dev)) == ["LRD004"]


# -- fphunt64's p02, found by lead55: the plateau stepped with such a copy ---------------------

_STEPPED_WITH_THE_COPY = _HEAD + """
batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 256, 32)]
for epoch in range(200):
    for xb, yb in batches:
        loss = loss_fn(head(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_val = loss.item()
    {validation}
    sched.step(loss_val)
"""


def test_plateau_stepped_with_a_copy_of_the_training_loss_beside_a_validation_loss() -> None:
    found = codes(_STEPPED_WITH_THE_COPY.format(
        validation="with torch.no_grad():\n        val_loss = loss_fn(head(xv), yv).item()"))
    assert found == ["LRD004"]


def test_plateau_stepped_with_the_copy_and_no_validation_is_silent() -> None:
    assert codes(_STEPPED_WITH_THE_COPY.format(validation="pass")) == []


def test_plateau_stepped_with_a_validation_loss_of_that_name_is_silent() -> None:
    src = _STEPPED_WITH_THE_COPY.format(
        validation="with torch.no_grad():\n        loss_val = loss_fn(head(xv), yv).item()")
    assert codes(src) == []
