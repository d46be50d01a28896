"""LRD103 counts only code that runs under an enabled autocast: the loss called inside the
block, the functions and model forwards it calls; `autocast(enabled=False)` with `.float()` is
the fix, not evidence."""

from __future__ import annotations

from tests.check import helpers

# The programs below back-propagate a float16 loss without a GradScaler, which is LRD111 (its
# own tests: test_fp16_backward_without_scaling.py); these tests are about LRD103 alone.


def findings(source: str) -> list[tuple[str, int]]:
    return [f for f in helpers.findings(source) if f[0] != "LRD111"]


def codes(source: str) -> list[str]:
    return [code for code, _ in findings(source)]

TRAIN = """
import torch
import torch.nn.functional as F

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)

{extra}

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in [(torch.randn(2, 4), torch.ones(2, 1))]:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
{inside}
    loss.backward()
    optimizer.step()
"""


def train(inside: str, extra: str = "") -> str:
    body = "\n".join("        " + line for line in inside.strip().splitlines())
    return TRAIN.format(inside=body, extra=extra)


def test_bce_loss_called_inside_autocast_is_reported() -> None:
    src = train("loss = criterion(torch.sigmoid(model(x)), y)",
                extra="criterion = torch.nn.BCELoss()")
    assert findings(src) == [("LRD103", 13)]


def test_bce_loss_called_after_the_autocast_block_is_fine() -> None:
    src = train("out = model(x)", extra="criterion = torch.nn.BCELoss()").replace(
        "    loss.backward()", "    loss = criterion(torch.sigmoid(out.float()), y)\n"
        "    loss.backward()"
    )
    assert codes(src) == []


def test_log_of_sigmoid_in_a_loss_function_called_under_autocast_is_reported() -> None:
    src = train("loss = loss_fn(model(x), y)", extra="""
def loss_fn(logits, y):
    p = torch.sigmoid(logits)
    return -(y * torch.log(p)).mean()
""")
    assert codes(src) == ["LRD103"]


def test_log_of_sigmoid_in_the_model_forward_under_autocast_is_reported() -> None:
    src = train("loss = model(x).mean()").replace(
        "        return self.fc(x)", "        return torch.log(torch.sigmoid(self.fc(x)))"
    )
    assert codes(src) == ["LRD103"]


def test_loss_computed_inside_a_disabled_autocast_in_float32_is_the_fix() -> None:
    src = train("""
logits = model(x)
with torch.autocast("cuda", enabled=False):
    loss = F.binary_cross_entropy(torch.sigmoid(logits.float()), y)
""")
    assert codes(src) == []


def test_disabled_autocast_is_no_evidence() -> None:
    src = """
    import torch
    criterion = torch.nn.BCELoss()
    model = torch.nn.Linear(4, 1)
    with torch.autocast("cuda", enabled=False):
        loss = criterion(torch.sigmoid(model(torch.randn(2, 4))), torch.ones(2, 1))
    """
    assert codes(src) == []


def test_autocast_context_held_in_a_variable_counts() -> None:
    src = """
    import torch
    from contextlib import nullcontext
    device = "cuda"
    ctx = nullcontext() if device == "cpu" else torch.autocast("cuda", dtype=torch.float16)
    criterion = torch.nn.BCELoss()
    model = torch.nn.Linear(4, 1)
    with ctx:
        loss = criterion(torch.sigmoid(model(torch.randn(2, 4))), torch.ones(2, 1))
    """
    assert codes(src) == ["LRD103"]


def test_helper_never_called_under_autocast_is_fine() -> None:
    src = train("loss = model(x).mean()", extra="""
def evaluate(logits, y):
    return F.binary_cross_entropy(torch.sigmoid(logits), y)
""")
    assert codes(src) == []
