"""GradScaler and float16 misuse at run time: LRD102, LRD108, LRD109, LRD110; correct AMP
loops stay silent. GradScaler("cpu") behaves like the CUDA one, so the loops run for real."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

AMP_LOOP = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
for step in range(6):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
{body}
"""


def _loop(body: str) -> str:
    import textwrap

    return AMP_LOOP.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))


def test_clipping_before_unscale_is_reported_with_the_scale(run_script):
    ran = run_script(_loop("""
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # CLIP
        scaler.step(optimizer)
        scaler.update()
    """))
    f = ran.only("LRD108")
    assert f.evidence["scale"] == 65536.0
    assert f.evidence["step"] == 1
    assert "clip_grad_norm_" in f.message and "65536" in f.message
    source = _loop("torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # CLIP")
    assert f.location.line == source.splitlines().index(
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # CLIP") + 1
    assert ran.codes == ["LRD108"]


def test_clip_grad_value_through_the_submodule_is_seen(run_script):
    ran = run_script(_loop("""
        torch.nn.utils.clip_grad.clip_grad_value_(model.parameters(), clip_value=0.5)
        scaler.step(optimizer)
        scaler.update()
    """))
    assert ran.only("LRD108").evidence["function"] == "clip_grad_value_"


def test_unscale_then_clip_is_silent(run_script):
    ran = run_script(_loop("""
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
    """))
    assert ran.codes == []


def test_optimizer_step_instead_of_scaler_step_is_reported(run_script):
    ran = run_script(_loop("""
        optimizer.step()  # STEP
    """))
    f = ran.only("LRD109")
    assert "65536 times too large" in f.message
    assert "LRD110" not in ran.codes
    # AdamW divides by the gradients' running size: its updates are not 65536x, the infs are
    assert "AdamW divides by the gradients' running size" in f.message
    assert "every update is" not in f.message


def test_optimizer_step_instead_of_scaler_step_with_sgd_says_every_update_is_too_large(run_script):
    source = _loop("""
        optimizer.step()  # STEP
    """).replace("torch.optim.AdamW(model.parameters(), lr=1e-3)",
                 "torch.optim.SGD(model.parameters(), lr=1e-3)")
    ran = run_script(source)
    f = ran.only("LRD109")
    assert "every update is 65536 times too large" in f.message


def test_scaler_step_without_update_is_reported(run_script):
    ran = run_script("""
        import torch
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu")
        loss = model(torch.randn(8, 4)).pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # and no scaler.update()
    """)
    assert ran.only("LRD110")


def test_adam_eps_below_float16_subnormal_on_half_params(run_script):
    ran = run_script("""
        import torch
        model = torch.nn.Linear(4, 1).half()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        loss = model(torch.randn(8, 4).half()).float().pow(2).mean()
        loss.backward()
        optimizer.step()
    """)
    f = ran.only("LRD102")
    assert f.evidence["eps"] == 1e-8


def test_half_model_with_eps_1e_4_is_silent(run_script):
    ran = run_script("""
        import torch
        torch.manual_seed(0)
        emb = torch.nn.Embedding(10, 4).half()
        optimizer = torch.optim.Adam(emb.parameters(), lr=1e-3, eps=1e-4)
        for step in range(5):
            loss = emb(torch.randint(0, 9, (16,))).float().pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """)
    assert ran.codes == []


def test_bce_with_logits_under_float16_autocast_is_silent(run_script):
    ran = run_script("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu")
        criterion = torch.nn.BCEWithLogitsLoss()
        for step in range(8):
            x = torch.randn(16, 8) * 50  # saturated logits: sigmoid would round to 0 or 1
            y = (torch.rand(16, 1) > 0.5).float()
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
    """)
    assert ran.codes == []


def test_bf16_autocast_without_scaler_is_silent(run_script):
    ran = run_script("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        for step in range(8):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(torch.randn(16, 8))
                loss = torch.nn.functional.cross_entropy(logits, torch.randint(0, 4, (16,)))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
    """)
    assert ran.codes == []


def test_disabled_scaler_is_silent(run_script):
    ran = run_script(_loop("""
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    """).replace('GradScaler("cpu")', 'GradScaler("cpu", enabled=False)'))
    assert ran.codes == []


def test_fp16_adam_eps_points_at_the_optimizer_constructor(tmp_path):
    import runpy

    import lrdoctor

    script = tmp_path / "train.py"
    script.write_text(
        "import torch\n"
        "model = torch.nn.Linear(4, 1).half()\n"
        "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "for _ in range(2):\n"
        "    optimizer.zero_grad()\n"
        "    model(torch.randn(8, 4).half()).float().sum().backward()\n"
        "    optimizer.step()\n"
    )
    with lrdoctor.watch(echo=lambda m: None) as w:
        runpy.run_path(str(script), run_name="__main__")
    (f,) = [f for f in w.findings if f.code == "LRD102"]
    assert f.location.line == 3
