"""LRD102 as real code casts a model to float16: the dtype or eps through variables, argparse
defaults and config constants, `convert_to_fp16()`, parameters gathered in a list first, a
helper that returns the cast model; and the fp16 copy exported after training is no bug."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

TRAIN = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--dtype", default="float16")
parser.add_argument("--eps", type=float, default=1e-8)
args = parser.parse_args()
DTYPE = torch.float16
{setup}
for step in range(10):
    loss = model(torch.randn(2, 4, dtype=torch.float16)).float().sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
{after}
"""


def train(setup: str, after: str = "") -> str:
    return TRAIN.format(setup=setup.strip(), after=after.strip())


def test_model_cast_through_a_dtype_constant_is_reported() -> None:
    src = train("""
model = torch.nn.Linear(4, 1).to(DTYPE)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
""")
    assert findings(src) == [("LRD102", 11)]


def test_model_cast_through_an_argparse_dtype_default_is_reported() -> None:
    src = train("""
model = torch.nn.Linear(4, 1)
model.to(dtype=getattr(torch, args.dtype))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
""")
    assert codes(src) == ["LRD102"]


def test_eps_from_an_argparse_default_is_read() -> None:
    src = train("""
model = torch.nn.Linear(4, 1).half()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=args.eps)
""")
    assert codes(src) == ["LRD102"]
    assert "Adam(eps=1e-08)" in messages(src)[0]


def test_large_eps_from_a_constant_is_fine() -> None:
    src = train("""
EPS = 1e-4
model = torch.nn.Linear(4, 1).half()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=EPS)
""")
    assert codes(src) == []


def test_convert_to_fp16_is_a_cast() -> None:
    src = train("""
model = torch.nn.Linear(4, 1)
model.convert_to_fp16()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
""")
    assert codes(src) == ["LRD102"]


def test_parameters_gathered_in_a_list_first_are_followed() -> None:
    src = train("""
model = torch.nn.Linear(4, 1).half()
params = []
for name, p in model.named_parameters():
    if p.requires_grad:
        params.append(p)
optimizer = torch.optim.Adam(params, lr=1e-3)
""")
    assert codes(src) == ["LRD102"]


def test_parameters_of_a_float32_model_gathered_in_a_list_are_fine() -> None:
    src = train("""
model = torch.nn.Linear(4, 1)
teacher = torch.nn.Linear(4, 1).half()
params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.Adam(params, lr=1e-3)
""")
    assert codes(src) == []


def test_model_returned_cast_by_a_helper_is_reported() -> None:
    src = train("""
def build_model():
    net = torch.nn.Linear(4, 1)
    net.half()
    return net

model = build_model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
""")
    assert codes(src) == ["LRD102"]


def test_fp16_copy_exported_after_training_is_fine() -> None:
    src = train("""
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
""", after="""
model.half()
torch.save(model.state_dict(), "model_fp16.pt")
""")
    assert codes(src) == []


def test_fp16_export_after_a_training_function_is_fine() -> None:
    src = """
    import torch

    def fit(model, optimizer):
        for step in range(10):
            loss = model(torch.randn(2, 4)).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    fit(model, optimizer)
    model = model.half()
    torch.save(model.state_dict(), "model_fp16.pt")
    """
    assert codes(src) == []


def test_cast_before_a_training_function_is_reported() -> None:
    src = """
    import torch

    def fit(model, optimizer):
        for step in range(10):
            loss = model(torch.randn(2, 4, dtype=torch.float16)).float().sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    model = torch.nn.Linear(4, 1)
    model = model.half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    fit(model, optimizer)
    """
    assert codes(src) == ["LRD102"]
