"""The HTML report opened in a real headless Chromium (Debian's ``chromium`` package, which
``scripts/dev setup`` installs when missing): no console errors, the plot and the findings are
visible in a screenshot, and the rendered DOM has the findings, the axis labels and hostile
strings as plain text.

Without Chromium the tests skip with a loud reason, except in CI (``.ci/run`` sets
``LRDOCTOR_REQUIRE_CHROMIUM=1``; ``CI`` set does the same), where they fail.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lrdoctor.report.html import render_html

HOSTILE = "<script>alert('pwned')</script>\"'"


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    reason = ("NO CHROMIUM: the HTML report's browser tests did not run. Install it with "
              "`apt-get install -y chromium` (scripts/dev setup does this when apt-get is usable)")
    if os.environ.get("LRDOCTOR_REQUIRE_CHROMIUM") or os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def browse(page: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0", "--force-device-scale-factor=1",
         f"--user-data-dir={tmp / 'chromium-profile'}", "--window-size=1100,1400",
         *args, page.as_uri()],
        capture_output=True, text=True, timeout=90)


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit non-interlaced PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and color in (2, 6) and interlace == 0
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, bpp, rows


def pixels_like(rows: list[bytes], bpp: int, rgb: tuple[int, int, int], tol: int = 30
                ) -> list[tuple[int, int]]:
    out = []
    for y, row in enumerate(rows):
        for x in range(0, len(row), bpp):
            if all(abs(row[x + k] - rgb[k]) <= tol for k in range(3)):
                out.append((x // bpp, y))
    return out


class Dom(HTMLParser):
    """Text by element id/class, and every tag seen, from Chromium's --dump-dom output."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.classes: list[str] = []
        self.texts: dict[str, list[str]] = {}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        key = a.get("id") or (a.get("class") or "").split(" ")[0] or tag
        self.classes.append(a.get("class") or "")
        self._open.append(key)

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open:
            self.texts.setdefault(self._open[-1], []).append(data)


@pytest.fixture(scope="module")
def hostile_run_report(tmp_path_factory) -> dict:
    """A real watched run of a script whose file name and param-group name hold ``<script>`` and
    quotes, with a finding message made hostile too."""
    pytest.importorskip("torch")
    import runpy

    import lrdoctor

    tmp = tmp_path_factory.mktemp("hostile")
    script = tmp / "<script>alert('x')<\"train.py"
    script.write_text(f"""
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD([{{"params": model.weight, "name": {HOSTILE!r}}},
                             {{"params": model.bias, "lr": 0.01}}], lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
loader = torch.utils.data.DataLoader(data, batch_size=8)
for epoch in range(4):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""")
    with lrdoctor.watch(echo=lambda _: None) as w:
        runpy.run_path(str(script), run_name="__main__")
    report = w.to_dict()
    report["script"] = str(script)
    assert [f["code"] for f in report["findings"]] == ["LRD002"]
    report["findings"][0]["message"] = HOSTILE + " " + report["findings"][0]["message"]
    return report


def test_report_opens_in_chromium_with_no_console_errors_and_shows_plot_and_findings(
        hostile_run_report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render_html(hostile_run_report), encoding="utf-8")
    shot = tmp_path / "shot.png"
    result = browse(page, tmp_path, f"--screenshot={shot}")
    assert shot.exists(), result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    width, bpp, rows = read_png(shot)
    curve = pixels_like(rows, bpp, (0x1f, 0x77, 0xb4), tol=20)  # group 0's line
    finding_bar = pixels_like(rows, bpp, (0xcc, 0x00, 0x00), tol=12)  # error findings' border
    assert len(curve) > 300, "no LR curve drawn"
    xs = [x for x, _ in curve]
    assert max(xs) - min(xs) > 600, "the curve does not span the plot"
    assert len(finding_bar) > 150, "no finding visible"
    # the error finding's left border (at the page's left margin) is below the plot
    border = [y for x, y in finding_bar if x < 70]
    assert len(border) > 150 and min(border) > max(y for _, y in curve)


def test_rendered_dom_has_findings_axis_labels_and_hostile_text_as_text(hostile_run_report,
                                                                         tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render_html(hostile_run_report), encoding="utf-8")
    result = browse(page, tmp_path, "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    dom = Dom()
    dom.feed(result.stdout)
    assert "script" not in dom.tags  # nothing from the report became an element
    assert sum(1 for c in dom.classes if c.split(" ")[0] == "finding") == 1
    assert "".join(dom.texts["finding-count"]) == "1 finding"
    assert "optimizer step" in dom.texts["xlabel"]
    assert "learning rate (log scale)" in dom.texts["ylabel"]
    assert dom.tags.count("svg") == 1 and "circle" in dom.tags  # the finding's marker
    assert "".join(dom.texts["msg"]).startswith(HOSTILE)
    assert any(HOSTILE in t for t in dom.texts["legend"])
    assert any("<script>alert('x')<\"train.py" in t for t in dom.texts["meta"])
    assert any("<script>alert('x')<\"train.py" in t for t in dom.texts["loc"])


def test_console_errors_would_be_caught(tmp_path):
    """The console check above can fail: a page with a script error is seen."""
    page = tmp_path / "bad.html"
    page.write_text("<html><body><script>console.error('boom'); missing();</script></body></html>")
    result = browse(page, tmp_path, "--dump-dom")
    messages = console_messages(result.stderr)
    assert any("boom" in m for m in messages) and any("missing" in m for m in messages)
