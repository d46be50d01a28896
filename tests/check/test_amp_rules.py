"""Mixed-precision rules: deprecated torch.cuda.amp (with its fix), fp16 Adam eps, log of
probabilities in float16, clipping scaled gradients, bypassing or not updating the scaler."""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source
from lrdoctor.check.fix import fixed_sources
from tests.check.helpers import codes, findings

AMP_LOOP = """
import torch
model = torch.nn.Linear(4, 1)
loader = torch.utils.data.DataLoader(list(range(8)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
for x in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda"):
        loss = model(x).sum()
{body}
"""


def amp(body: str) -> str:
    return AMP_LOOP.format(body=textwrap.indent(textwrap.dedent(body).strip(), "    "))


def fix(source: str) -> str:
    source = textwrap.dedent(source)
    diags = check_source(source, "train.py").diagnostics
    return fixed_sources(diags, {"train.py": source}).get("train.py", source)


# -- LRD101 ------------------------------------------------------------------------------------


def test_cuda_amp_spellings_are_reported_and_fixed_preserving_comments() -> None:
    src = """
    import torch
    scaler = torch.cuda.amp.GradScaler()  # keep me
    with torch.cuda.amp.autocast(dtype=torch.float16):  # and me
        pass
    big = torch.cuda.amp.GradScaler(
        init_scale=2.0**10,   # custom
        enabled=True,
    )
    """
    assert codes(src) == ["LRD101", "LRD101", "LRD101"]
    assert fix(src) == textwrap.dedent("""
    import torch
    scaler = torch.amp.GradScaler("cuda")  # keep me
    with torch.autocast("cuda", dtype=torch.float16):  # and me
        pass
    big = torch.amp.GradScaler(
        "cuda",
        init_scale=2.0**10,   # custom
        enabled=True,
    )
    """)


def test_imported_cuda_amp_names_are_fixed_with_their_import() -> None:
    src = """
    from torch.cuda.amp import GradScaler, autocast
    scaler = GradScaler(enabled=True)
    with autocast():
        pass
    """
    assert fix(src) == textwrap.dedent("""
    from torch.amp import GradScaler, autocast
    scaler = GradScaler("cuda", enabled=True)
    with autocast("cuda"):
        pass
    """)


def test_positional_autocast_arguments_are_reported_but_not_rewritten() -> None:
    src = """
    import torch
    with torch.cuda.amp.autocast(True):
        pass
    """
    assert codes(src) == ["LRD101"]
    assert fix(src) == textwrap.dedent(src)


def test_torch_amp_spellings_are_fine() -> None:
    src = """
    import torch
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda"):
        pass
    """
    assert codes(src) == []


# -- LRD102 ------------------------------------------------------------------------------------


def test_adam_with_default_eps_on_half_model_is_reported() -> None:
    src = """
    import torch
    model = torch.nn.Linear(4, 1).cuda().half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    """
    assert findings(src) == [("LRD102", 4)]


def test_adam_with_large_eps_on_half_model_is_fine() -> None:
    src = """
    import torch
    model = torch.nn.Linear(4, 1)
    model.half()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-4)
    sgd = torch.optim.SGD(model.parameters(), lr=1e-3)
    """
    assert codes(src) == []


def test_adam_on_float32_model_under_autocast_is_fine() -> None:
    src = """
    import torch
    model = torch.nn.Linear(4, 1)
    other = torch.nn.Linear(4, 1).half()
    optimizer = torch.optim.Adam(model.parameters())
    """
    assert codes(src) == []


# -- LRD103 ------------------------------------------------------------------------------------


def test_bce_loss_under_autocast_is_reported() -> None:
    src = """
    import torch
    criterion = torch.nn.BCELoss()
    model = torch.nn.Linear(4, 1)
    with torch.autocast("cuda"):
        loss = criterion(torch.sigmoid(model(torch.randn(2, 4))), torch.ones(2, 1))
    """
    assert findings(src) == [("LRD103", 3)]


def test_log_of_sigmoid_under_autocast_is_reported() -> None:
    src = """
    import torch
    import torch.nn.functional as F
    def loss_fn(logits, y):
        p = torch.sigmoid(logits)
        return -(y * torch.log(p)).mean() - F.softmax(logits, -1).log().mean()
    model = torch.nn.Linear(4, 1)
    with torch.autocast("cuda"):
        loss = loss_fn(model(torch.randn(2, 4)), torch.ones(2, 1))
    """
    # CUDA's autocast runs softmax in float32 (the log of its output is safe); the sigmoid
    # stays in float16
    assert findings(src) == [("LRD103", 6)]


def test_log_of_softmax_is_reported_where_softmax_runs_in_float16() -> None:
    # on the CPU autocast keeps softmax in float16; on a half model no autocast lifts it
    body = """
    def loss_fn(logits, y):
        return F.nll_loss(torch.log(F.softmax(logits, -1)), y)
    """
    cpu = """
    import torch
    import torch.nn.functional as F
    """ + body + """
    model = torch.nn.Linear(4, 3)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = loss_fn(model(torch.randn(2, 4)), torch.zeros(2, dtype=torch.long))
    """
    half = """
    import torch
    import torch.nn.functional as F
    """ + body + """
    model = torch.nn.Linear(4, 3).half()
    loss = loss_fn(model(torch.randn(2, 4).half()), torch.zeros(2, dtype=torch.long))
    """
    cuda = cpu.replace('torch.autocast("cpu", dtype=torch.float16)', 'torch.cuda.amp.autocast()')
    assert codes(cpu) == ["LRD103"]
    assert codes(half) == ["LRD103"]
    assert "LRD103" not in codes(cuda)


def test_bce_without_low_precision_is_not_reported() -> None:
    src = """
    import torch
    criterion = torch.nn.BCELoss()
    p = torch.log(torch.sigmoid(torch.zeros(3)))
    """
    assert codes(src) == []


# -- LRD108 / LRD109 / LRD110 ------------------------------------------------------------------


def test_clipping_scaled_gradients_is_reported() -> None:
    src = amp("""
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    """)
    assert findings(src) == [("LRD108", 12)]


def test_clipping_after_unscale_is_fine() -> None:
    src = amp("""
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    """)
    assert codes(src) == []


def test_optimizer_step_bypassing_the_scaler_is_reported() -> None:
    src = amp("""
    scaler.scale(loss).backward()
    optimizer.step()
    scaler.update()
    """)
    assert findings(src) == [("LRD109", 12)]


def test_amp_and_fp32_branches_are_fine() -> None:
    src = amp("""
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    """)
    assert codes(src) == []


def test_scaler_step_without_update_is_reported() -> None:
    src = amp("""
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    """)
    assert findings(src) == [("LRD110", 12)]


def test_scaler_update_in_a_helper_method_counts() -> None:
    src = """
    import torch
    class Trainer:
        def __init__(self, model):
            self.model = model
            self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            self.scaler = torch.amp.GradScaler("cuda")
        def finish_step(self):
            self.scaler.update()
        def train_step(self, x):
            self.scaler.scale(self.model(x).sum()).backward()
            self.scaler.step(self.optimizer)
            self.finish_step()
    """
    assert codes(src) == []


def test_half_cast_in_one_function_does_not_taint_another() -> None:
    src = """
    import torch
    def reference_loss(p, t):
        return torch.nn.functional.binary_cross_entropy(p, t)
    def to_half(model):
        return model.half()
    """
    assert codes(src) == []


def test_module_level_criterion_used_under_autocast_in_train_is_reported() -> None:
    src = """
    import torch
    criterion = torch.nn.BCELoss()
    def train(model, loader):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = criterion(model(x), y)
    """
    assert findings(src) == [("LRD103", 3)]


def test_fix_keeps_windows_line_endings_and_byte_order_mark() -> None:
    from lrdoctor.check.fix import apply_edits

    src = "\ufefffrom torch.cuda.amp import GradScaler\r\nscaler = GradScaler()  # x\r\n"
    diags = check_source(src.lstrip("\ufeff"), "train.py").diagnostics
    edits = [e for d in diags for e in d.edits]
    assert apply_edits(src, edits) == (
        '\ufefffrom torch.amp import GradScaler\r\nscaler = GradScaler("cuda")  # x\r\n'
    )
