"""The HTML run report and the data behind its plots: what the runtime records, the JSON
fields it adds, downsampling, size, escaping, and ``lrdoctor run --html``."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lrdoctor.report.html import build_charts, render_html, write_csv
from lrdoctor.report.svgplot import downsample
from lrdoctor.runtime.series import MARK_RUNS_CAP, ScaleHistory, StepMarks, expand_marks

HOSTILE = "<script>alert(\"x\")</script>'\"&"


# ---- bounded recording ----------------------------------------------------------------------

def test_scheduler_stepped_every_batch_for_a_million_steps_is_one_run():
    marks = StepMarks()
    for i in range(1, 1_000_001):
        marks.add(i)
    assert marks.to_list() == [[1, 1, 1_000_000]]


def test_scheduler_stepped_per_epoch_is_one_run_with_the_epoch_stride():
    marks = StepMarks()
    for i in (100, 200, 300, 400):
        marks.add(i)
    assert marks.to_list() == [[100, 100, 4]]
    assert expand_marks(marks.to_list()) == [100, 200, 300, 400]


def test_irregular_marks_are_bounded_and_count_what_was_dropped():
    marks = StepMarks()
    n = 0
    for i in range(1, 200_000):
        if i * 7919 % 13 in (0, 1) and i % 3:  # irregular
            marks.add(i)
            n += 1
    assert len(marks.runs) <= MARK_RUNS_CAP
    assert marks.count == n
    placed = sum(r[2] for r in marks.runs)
    assert placed + marks.dropped == n


def test_scale_history_keeps_changes_only_and_stays_bounded():
    h = ScaleHistory()
    for step in range(1, 100_001):
        h.add(step, float(2 ** (step // 3 % 40)))
    assert len(h.points) <= 4097
    assert h.points[0] == (1, 1.0)
    h2 = ScaleHistory()
    for step in range(10):
        h2.add(step, 65536.0)
    assert h2.points == [(0, 65536.0)]


# ---- what a real run records ----------------------------------------------------------------

AMP_SCRIPT = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, total_iters=100)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
x, y = torch.randn(64, 8), torch.randn(64, 1) * 3
scales = []
for step in range(30):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scales.append(scaler.get_scale())
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
"""


def test_amp_run_records_skipped_steps_scale_history_and_scheduler_steps(run_script):
    ran = run_script(AMP_SCRIPT)
    report = ran.watch.to_dict()
    (opt,) = report["optimizers"]
    scales = ran.ns["scales"]
    # a step is skipped exactly when the scale was halved after it
    skipped = [i + 1 for i in range(29) if scales[i + 1] < scales[i]]
    assert skipped and expand_marks(opt["skipped_steps"])[: len(skipped)] == skipped
    assert len(expand_marks(opt["skipped_steps"])) == opt["skipped"]
    (scaler,) = report["scalers"]
    history = scaler["scale_history"]
    assert history[0] == [1, 2.0**20]
    # the scale used at each step, recorded at each change
    for step, scale in history:
        assert scales[step - 1] == scale
    assert [s for _, s in history] == sorted({*scales}, reverse=True)[: len(history)]
    (sched,) = report["schedulers"]
    assert sched["step_at"] == [[1, 1, 30]]


def test_per_epoch_scheduler_marks_and_epoch_ends(run_script):
    from tests.watch.conftest import PRELUDE

    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
    scheduler.step()
""")
    report = ran.watch.to_dict()
    (opt,) = report["optimizers"]
    assert opt["epoch_ends"] == [16, 32, 48, 64]
    assert report["schedulers"][0]["step_at"] == [[16, 16, 4]]
    assert opt["skipped_steps"] == [] and report["scalers"] == []
    chart = build_charts(report)[0]
    assert [x for x, _ in chart.vlines] == [16.5, 32.5, 48.5]
    (group,) = chart.series
    assert group.points == [(1.0, 0.1), (33.0, pytest.approx(0.01))]


# ---- downsampling and size ------------------------------------------------------------------

def test_downsampling_keeps_a_one_step_spike_and_the_exact_step_of_a_cliff():
    points = [(float(s), 0.1 * (0.5 * (1 + math.cos(math.pi * s / 100_000)))) for s in range(1, 100_001)]
    points[54_321] = (54_322.0, 5.0)  # a one-step spike
    points = [(x, y / 1000 if x >= 70_000 else y) for x, y in points]  # a cliff at step 70000
    thin = downsample(points, buckets=800)
    assert len(thin) <= 5 * 800 + 2
    assert (54_322.0, 5.0) in thin
    xs = [x for x, _ in thin]
    assert 70_000.0 in xs and 69_999.0 in xs  # the last value before the cliff and the first after
    assert thin[0] == points[0] and thin[-1] == points[-1]
    # nothing is invented: every kept point is an original one
    original = set(points)
    assert all(p in original for p in thin)


def _synthetic_report(steps: int, name: str = "SGD", group_name: str | None = None) -> dict:
    history = [[s, 0.1 * 0.5 * (1 + math.cos(math.pi * s / steps)), 0.01] for s in range(1, steps + 1)]
    skips = StepMarks()
    for s in range(1, steps, 97):
        skips.add(s + s % 5)
    return {
        "lrdoctor": "0", "schema": 1, "epochs": 100,
        "optimizers": [{"name": name, "steps": steps, "taken": steps, "skipped": skips.count,
                        "lr_first": [0.1, 0.01], "lr_last": [0.0, 0.01], "lr_history": history,
                        "param_groups": [group_name, None], "skipped_steps": skips.to_list(),
                        "epoch_ends": list(range(steps // 100, steps + 1, steps // 100))}],
        "schedulers": [{"name": "CosineAnnealingLR(T_max=100000)", "class": "CosineAnnealingLR",
                        "optimizer": name, "horizon": steps, "steps": steps,
                        "steps_per_epoch": [steps // 100] * 100, "in_composite": False,
                        "location": {"path": "train.py", "line": 3},
                        "lr_first": [0.1], "lr_last": [0.0], "step_at": [[1, 1, steps]]}],
        "scalers": [{"name": "GradScaler", "updates": steps, "scale_first": 65536.0,
                     "scale_min": 1.0,
                     "scale_history": [[s, float(2 ** (s % 17))] for s in range(1, steps, 25)]}],
        "findings": [{"code": "LRD002", "severity": "error", "message": "m", "fix": "f",
                      "location": {"path": "train.py", "line": 3},
                      "evidence": {"optimizer": name, "step": 500}}],
    }


def test_a_100k_step_run_report_stays_under_2_mb():
    page = render_html(_synthetic_report(100_000))
    assert len(page.encode()) < 2 * 1024 * 1024
    assert page.count("<svg") == 2  # the LR chart and the scale chart


def test_csv_holds_the_full_data_next_to_the_report(tmp_path):
    report = _synthetic_report(1000)
    paths = write_csv(report, str(tmp_path / "report.json"))
    assert sorted(os.path.basename(p) for p in paths) == [
        "report.events.csv", "report.lr.csv", "report.scale.csv"]
    rows = list(csv.DictReader(open(tmp_path / "report.lr.csv")))
    assert len(rows) == 2 * 1000
    assert rows[0] == {"rank": "", "optimizer": "SGD", "param_group": "0", "step": "1",
                       "lr": repr(report["optimizers"][0]["lr_history"][0][1])}
    events = list(csv.DictReader(open(tmp_path / "report.events.csv")))
    kinds = {k: sum(1 for e in events if e["kind"] == k) for k in
             ("scheduler_step", "skipped_step", "epoch_end")}
    assert kinds == {"scheduler_step": 1000, "skipped_step": report["optimizers"][0]["skipped"],
                     "epoch_end": 100}


# ---- escaping -------------------------------------------------------------------------------

def test_hostile_strings_are_escaped_everywhere():
    report = _synthetic_report(500, name=HOSTILE, group_name=HOSTILE)
    report["script"] = HOSTILE
    report["findings"][0].update(message=HOSTILE, fix=HOSTILE,
                                 location={"path": HOSTILE, "line": 1}, code=HOSTILE)
    report["schedulers"][0]["name"] = HOSTILE
    page = render_html(report)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#x27;&quot;&amp;" in page
    # attribute values cannot be closed early by a quote
    assert 'aria-label="learning rate: &lt;script&gt;' in page


def test_malformed_report_fields_are_skipped_not_fatal():
    report = {"optimizers": [{"name": "SGD", "lr_history": [["x", 1], [1, "y"], None, [2, 0.1]],
                              "epoch_ends": ["a", 3], "skipped_steps": [["q"]]}, "junk"],
              "schedulers": [None], "scalers": [{"scale_history": [[1], "z"]}],
              "findings": [{"evidence": "nope"}, 3], "ranks": 5}
    page = render_html(report)
    assert "<svg" in page


# ---- lrdoctor run --html --------------------------------------------------------------------

def _lrdoctor(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "lrdoctor", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_run_html_writes_the_page_and_csv_next_to_the_json(tmp_path):
    pytest.importorskip("torch")
    examples = Path(__file__).resolve().parents[2] / "src" / "lrdoctor" / "examples"
    result = _lrdoctor("run", "--json", "out/r.json", "--html", "r.html",
                       str(examples / "LRD002_wrong.py"), cwd=tmp_path)
    assert result.returncode == 2 and "--json" in result.stderr  # out/ did not exist: refused first
    result = _lrdoctor("run", "--json", "r.json", "--html", "r.html",
                       str(examples / "LRD002_wrong.py"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "r.html").read_text()
    assert 'id="finding-1"' in page and "LRD002" in page and "LRD002_wrong.py" in page
    assert {p.name for p in tmp_path.iterdir()} >= {"r.json", "r.html", "r.lr.csv",
                                                     "r.scale.csv", "r.events.csv"}
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["schedulers"][0]["step_at"] == [[1, 1, 96]]


def test_watch_report_html(run_script, tmp_path):
    ran = run_script(AMP_SCRIPT)
    text = ran.watch.report(html=str(tmp_path / "w.html"))
    assert "GradScaler" in text
    page = (tmp_path / "w.html").read_text()
    assert "GradScaler scale" in page
    assert (tmp_path / "w.scale.csv").exists()


# ---- distributed runs and findings on the plot ----------------------------------------------

def test_merged_distributed_report_draws_every_ranks_lr_lines(tmp_path):
    rank0 = _synthetic_report(200)
    rank1 = _synthetic_report(200)
    rank1["optimizers"][0]["lr_history"] = [[1, 0.1, 0.01], [50, 0.05, 0.01]]  # rank 1 drifted
    merged = {"lrdoctor": "0", "schema": 1, "findings": rank0["findings"],
              "ranks": {"0": rank0, "1": rank1}}
    (lr_chart, _scale) = build_charts(merged)
    labels = [s.label for s in lr_chart.series]
    assert labels == ["rank 0: group 0", "rank 0: group 1", "rank 1: group 0", "rank 1: group 1"]
    assert lr_chart.series[2].points == [(1.0, 0.1), (50.0, 0.05)]
    assert lr_chart.series[2].dashed and not lr_chart.series[0].dashed
    page = render_html(merged)
    assert "2 ranks" in page and "rank 1: group 0" in page
    write_csv(merged, str(tmp_path / "run.json"))
    ranks = {row["rank"] for row in csv.DictReader(open(tmp_path / "run.lr.csv"))}
    assert ranks == {"0", "1"}
    # the list form of "ranks" reads the same
    listed = dict(merged, ranks=[dict(rank0, rank=0), dict(rank1, rank=1)])
    assert [s.label for s in build_charts(listed)[0].series] == labels


def test_each_finding_is_a_numbered_marker_at_its_step_linked_both_ways():
    report = _synthetic_report(1000)
    report["findings"].append({"code": "LRD005", "severity": "warning", "message": "late",
                               "evidence": {"epoch": 3}})
    (chart, _) = build_charts(report)
    assert [(m.x, m.label, m.href) for m in chart.markers] == [
        (500.0, "1", "finding-1"), (21.0, "2", "finding-2")]  # epoch 3 starts after step 20
    page = render_html(report)
    assert page.count('<a href="#finding-') == 2
    assert 'id="finding-1"' in page and 'id="finding-2"' in page
    assert page.count('<a href="#charts">') == 2


def test_skipped_updates_finding_is_marked_at_the_first_skip_the_scheduler_stepped_past(
        run_script):
    ran = run_script(AMP_SCRIPT)
    report = ran.watch.to_dict()
    [lrd005] = [f for f in report["findings"] if f["code"] == "LRD005"]
    first_skip = expand_marks(report["optimizers"][0]["skipped_steps"], 100)[0]
    assert lrd005["evidence"]["step"] == first_skip
    (lr_chart, *_) = build_charts(report)
    n = report["findings"].index(lrd005) + 1
    assert [(m.x, m.href) for m in lr_chart.markers
            if m.href == f"finding-{n}"] == [(float(first_skip), f"finding-{n}")]


@pytest.mark.parametrize("code,step", [
    ("LRD001", 1),  # the first update trained with a skipped value
    ("LRD010", 128 + 1),  # T_max=128 (a batch count divided by the batch size again), one
    # step per update: the 129th update's step goes past it
])
def test_order_and_overrun_findings_are_marked_where_they_happened(run_script, code, step):
    examples = Path(__file__).resolve().parents[2] / "src" / "lrdoctor" / "examples"
    ran = run_script((examples / f"{code}_wrong.py").read_text())
    report = ran.watch.to_dict()
    [finding] = report["findings"]
    assert finding["code"] == code and finding["evidence"]["step"] == step
    (lr_chart,) = build_charts(report)
    assert [(m.x, m.href) for m in lr_chart.markers] == [(float(step), "finding-1")]


def test_torchrun_merged_report_shape_is_read(tmp_path):
    """The merged report of a torchrun run: ``ranks`` is a list of ``{"rank", "status",
    "report"}``, a missing rank has no report, and epochs come as ``epoch_steps``."""
    def rank_report(lrs):
        return {"optimizers": [{"name": "SGD", "steps": 20,
                                "lr_history": [[1, 0.05], [9, lrs]], "epoch_steps": [4] * 5}],
                "schedulers": [], "findings": []}

    merged = {"kind": "lrdoctor-distributed-run", "schema": 1, "world_size": 3,
              "missing_ranks": [2],
              "ranks": [{"rank": 0, "status": "finished", "report": rank_report(0.005)},
                        {"rank": 1, "status": "finished", "report": rank_report(0.05)},
                        {"rank": 2, "status": "missing", "why": "killed"}],
              "findings": [{"code": "LRD013", "severity": "error", "message": "ranks differ",
                            "ranks": [0, 1], "evidence": {"step": 9, "epoch": 3}}]}
    (chart,) = build_charts(merged)
    assert [s.label for s in chart.series] == ["rank 0: group 0", "rank 1: group 0"]
    assert [x for x, _ in chart.vlines] == [4.5, 8.5, 12.5, 16.5]
    assert [(m.x, m.href) for m in chart.markers] == [(9.0, "finding-1")]
    assert "2 of 3 ranks reported" in render_html(merged)


def test_a_scale_kept_on_a_device_is_read_in_bulk_not_per_step():
    """On CUDA the hooks hand over a device copy of the scale (reading it would synchronize):
    copies are kept and read 256 at a time, and the rest when watching ends."""
    torch = pytest.importorskip("torch")
    from lrdoctor.runtime.engine import Engine

    class Scaler:
        pass

    class DeviceCopy:
        """A tensor whose reads are counted (standing in for a CUDA tensor)."""

        reads = 0

        def __init__(self, value: float) -> None:
            self.t = torch.tensor(value)

        def detach(self):
            DeviceCopy.reads += 1
            return self.t

        def item(self):
            DeviceCopy.reads += 1
            return self.t.item()

    engine = Engine(echo=lambda _: None)
    scaler = Scaler()
    scales = [65536.0] * 100 + [32768.0] * 200 + [16384.0] * 10
    for i, scale in enumerate(scales):
        engine.most_attempts = i + 1
        engine.on_scaler_update(scaler, DeviceCopy(scale), None)
        if i == 254:
            assert DeviceCopy.reads == 0  # nothing read on the way
    info = next(iter(engine.scalers.values()))
    assert len(info.pending_scales) == len(scales) - 256
    engine.finish()
    assert info.scale_history.points == [(1, 65536.0), (101, 32768.0), (301, 16384.0)]
    assert info.pending_scales == []
