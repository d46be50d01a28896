"""The catalog of diagnosis codes: the single source for the CLI, the docs and the reports.

Every entry carries its documentation (what, why it hurts, how to fix) and a wrong and a right
example. The examples are real, runnable training scripts stored beside this module in
``lrdoctor/examples/LRDnnn_wrong.py`` and ``LRDnnn_right.py``; the test suite runs every engine
that implements a code over them (the wrong one must be found, the right one must not).

Codes are forever: a code is never reused or renumbered.

>>> CATALOG["LRD002"].name
'epoch-scheduler-per-batch'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from importlib import resources

STATIC = "S"
RUNTIME = "R"


@dataclass(frozen=True)
class Entry:
    code: str
    name: str
    severity: str
    engines: str  # "S", "R" or "SR": where the design places the check
    summary: str
    why: str
    fix: str
    fix_hint: str  # the one-line fix shown under a finding
    references: tuple[str, ...] = ()

    @cached_property
    def wrong_example(self) -> str | None:
        return _example(self.code, "wrong")

    @cached_property
    def right_example(self) -> str | None:
        return _example(self.code, "right")

    def page(self) -> str:
        """The documentation page printed by ``lrdoctor explain``, in ruff's order."""
        engines = found_by(self.code)
        parts = [
            f"{self.code} {self.name}  [{self.severity}]",
            "",
            self.summary,
            "",
            f"Found by: {engines}." if engines else
            "Not detected yet: the design places it in "
            + " and ".join({"S": "`lrdoctor check`", "R": "`lrdoctor run`"}[e] for e in self.engines)
            + ".",
            "",
            "## Why it hurts",
            "",
            self.why.strip(),
            "",
            "## How to fix",
            "",
            self.fix.strip(),
        ]
        if self.wrong_example:
            parts += ["", "## Wrong", "", _indent(self.wrong_example)]
        if self.right_example:
            parts += ["", "## Right", "", _indent(self.right_example)]
        if self.references:
            parts += ["", "## References", ""] + [f"- {r}" for r in self.references]
        return "\n".join(parts).rstrip() + "\n"


def found_by(code: str) -> str:
    """Which engines really implement ``code`` (read from the engines, not from the design)."""
    from lrdoctor.check import STATIC_CODES
    from lrdoctor.ckpt import CKPT_CODES
    from lrdoctor.runtime import CRASH_EXPLAINED_CODES, DISTRIBUTED_CODES, RUNTIME_CODES

    parts = []
    if code in STATIC_CODES:
        parts.append("`lrdoctor check` (static)")
    if code in RUNTIME_CODES:
        parts.append("`lrdoctor run` (runtime)")
    elif code in DISTRIBUTED_CODES:
        parts.append("`torchrun ... -m lrdoctor run` (runtime: rank 0 compares the ranks' traces)")
    elif code in CRASH_EXPLAINED_CODES:
        parts.append("`lrdoctor run` when the script crashes with its error")
    if code in CKPT_CODES:
        parts.append("`lrdoctor ckpt` (saved checkpoints)")
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 2 else " and ".join(parts)


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else "" for line in text.rstrip().splitlines())


def _example(code: str, kind: str) -> str | None:
    try:
        return (
            resources.files("lrdoctor.examples").joinpath(f"{code}_{kind}.py").read_text("utf-8")
        )
    except (FileNotFoundError, OSError):
        return None


_ENTRIES = [
    Entry(
        "LRD001",
        "scheduler-before-optimizer",
        "warning",
        "SR",
        "The LR scheduler steps before its optimizer has stepped, so the first LR value is skipped.",
        """
Since PyTorch 1.1 a scheduler must be stepped *after* `optimizer.step()`. Stepping it first
(typically `scheduler.step()` at the top of the epoch loop) advances the schedule before any
update used the initial LR: the first value of the schedule is never trained with, warm-ups
start one step late and step decays come one epoch early. PyTorch prints "Detected call of
`lr_scheduler.step()` before `optimizer.step()`" once, and nothing afterwards.
""",
        """
Move `scheduler.step()` after `optimizer.step()`: at the end of the epoch body for per-epoch
schedulers, right after `optimizer.step()` for per-batch ones. `lrdoctor check --unsafe-fixes
--diff` shows that move (after the batch loop, or after the update), `--fix` makes it.
""",
        "call scheduler.step() after optimizer.step() (end of the epoch, or right after the update)",
        ("https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",),
    ),
    Entry(
        "LRD002",
        "epoch-scheduler-per-batch",
        "error",
        "SR",
        "A scheduler whose horizon is sized in epochs (step_size, T_max, milestones, patience) "
        "is stepped every batch.",
        """
`StepLR(step_size=7)`, `MultiStepLR(milestones=[30, 60])`, `CosineAnnealingLR(T_max=epochs)`
count scheduler steps. Sized in epochs but stepped once per batch, the whole schedule passes in
the first few hundred batches: a StepLR with gamma=0.1 stepped 938 times divides the LR by
10^134 in one epoch, a cosine with T_max=10 oscillates every 20 batches. Training continues with
an LR of ~0 and the loss "just doesn't go down".
""",
        """
Either step the scheduler once per epoch (outside the batch loop), or size its horizon in
batches: `StepLR(opt, step_size=7 * len(loader))`, `CosineAnnealingLR(opt,
T_max=epochs * len(loader))`.
""",
        "step it once per epoch, or size the horizon in batches (e.g. T_max=epochs * len(loader))",
    ),
    Entry(
        "LRD003",
        "batch-scheduler-per-epoch",
        "error",
        "SR",
        "A scheduler whose horizon is sized in batches (OneCycleLR, CyclicLR, warm-up to "
        "num_training_steps) is stepped once per epoch, or once per update under gradient "
        "accumulation while its horizon counts every micro-batch.",
        """
`OneCycleLR(epochs=10, steps_per_epoch=len(loader))` expects one step per batch. Stepped once
per epoch it takes 10 of its 10*len(loader) steps: the run ends still inside the warm-up, at a
fraction of max_lr, and never anneals. The same holds for `CyclicLR` and for warm-up schedules
built to `num_training_steps`. In PyTorch Lightning, a scheduler returned from
`configure_optimizers` without `"interval": "step"` is stepped per epoch. The same shortfall,
smaller, comes with gradient accumulation: a schedule sized `epochs * len(loader)` but stepped
with the optimizer, once every `accum` batches, runs 1/accum of its course (the warm-up lasts
accum times longer and the decay never finishes). A horizon is judged by the numbers the
program states, not by its name: `StepLR(step_size=args.lr_decay_iters)` whose default (50) is
within the 200 epochs that step it decays every 50 epochs, a schedule that plays out, and is
not reported; a default of 5000 would never come, and is.
""",
        """
Call `scheduler.step()` right after `optimizer.step()` inside the batch loop; in Lightning
return `{"scheduler": sched, "interval": "step"}`. Under gradient accumulation size the horizon
in updates: `num_training_steps=epochs * (len(loader) // accum)`.
""",
        "step it after every optimizer.step() inside the batch loop (Lightning: interval='step'), "
        "with its horizon counted in those updates",
    ),
    Entry(
        "LRD004",
        "plateau-metric",
        "error",
        "SR",
        "ReduceLROnPlateau stepped without a metric, with the training loss while a validation "
        "metric exists, or with a mode that contradicts the metric.",
        """
ReduceLROnPlateau reduces the LR when its metric stops improving. Fed nothing it fails;
fed the training loss it reacts to noise of single batches, not to generalisation; with
`mode="min"` on an accuracy it cuts the LR every time accuracy *improves*.
""",
        """
Pass the validation metric once per epoch: `scheduler.step(val_loss)`; use `mode="max"` for
accuracies and scores.
""",
        "pass the validation metric once per epoch, with mode='max' for accuracy-like metrics",
    ),
    Entry(
        "LRD005",
        "scheduler-steps-on-skipped-update",
        "warning",
        "SR",
        "GradScaler skipped the optimizer step (inf/NaN gradients) but the scheduler stepped "
        "anyway; this is what triggers PyTorch's misleading order warning.",
        """
With float16 AMP, GradScaler starts at scale 65536 and skips `optimizer.step()` whenever the
scaled gradients overflow, typically for the first few iterations. The scheduler steps anyway,
so PyTorch warns "Detected call of `lr_scheduler.step()` before `optimizer.step()`". The warning
blames your call order, but your order (`scaler.step(optimizer)`, then `scheduler.step()`) is
correct: the cause is the skipped optimizer step. The schedule runs ahead of the real updates
by the number of skipped steps.
""",
        """
Usually harmless for a few skips at the start: the warning can be ignored. To keep the schedule
aligned with real updates, wrap the scheduler where it is built; its `step()` then advances only
when the optimizer really updated since the last step (exact for fused and non-fused
optimizers, no device synchronization, checkpoints unchanged: `state_dict()` is the wrapped
scheduler's). It needs torch, not `lrdoctor run`, and works as the scheduler given to
Lightning, Hugging Face Trainer and Accelerate:

    scheduler = lrdoctor.SkipAwareScheduler(OneCycleLR(optimizer, ...))
    ...
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()  # a no-op after a skipped update

or guard the step by hand: `if not lrdoctor.step_was_skipped(optimizer): scheduler.step()`.
Comparing `scaler.get_scale()` before and after `update()` also works, but reads the scale
from the device every step. `lrdoctor check --unsafe-fixes` wraps the scheduler for you.
""",
        "wrap the scheduler: scheduler = lrdoctor.SkipAwareScheduler(scheduler) steps it only "
        "after real updates",
    ),
    Entry(
        "LRD006",
        "deprecated-epoch-argument",
        "warning",
        "S",
        "`scheduler.step(epoch)`: the epoch argument is deprecated.",
        """
Passing an epoch to `step()` switches the scheduler to its closed form, which some schedulers
lack, ignores chaining, and is deprecated. (`CosineAnnealingWarmRestarts.step(epoch + i / iters)`
is documented usage and is not reported.)
""",
        """
Call `scheduler.step()` with no argument, once per epoch (or per batch for per-batch schedules).
`lrdoctor check --unsafe-fixes --fix` drops the argument where that leaves correct code (not at
the top of an epoch loop, where it would become LRD001).
""",
        "call scheduler.step() without the epoch argument",
    ),
    Entry(
        "LRD007",
        "checkpoint-missing-state",
        "warning",
        "SR",
        "A resumable checkpoint stores the optimizer but not the scheduler (or the GradScaler "
        "under AMP), or a resume restores one without the other.",
        """
Resuming from such a checkpoint rebuilds the scheduler at step 0 and the GradScaler at 65536,
which skips the first steps again. What that does to the LR depends on the class (each checked
against torch, with the optimizer's state restored): a schedule computed from its step count
(`LambdaLR` and the Hugging Face warm-ups, `OneCycleLR`, `CyclicLR`, warm restarts, custom
classes) restarts from its first value: warm-up again, LR back at its peak. PyTorch's
chainable schedulers scale the LR they find instead, and that LR comes back with the
optimizer's param groups, so they replay their decays from there: each `StepLR` decay comes up
to `step_size` steps late; a `MultiStepLR` counts its milestones again (milestones already
passed decay the LR again); a `CosineAnnealingLR` bends a new cosine from the restored LR over
`T_max` more steps and a `PolynomialLR` decays over `total_iters` again; a `LinearLR` warm-up
multiplies the restored LR by its whole ramp again (ending `end_factor / start_factor` times
above the plan), and a `ConstantLR` resumed after its phase divides the LR by `factor` once more.
`lrdoctor check` and `lrdoctor run` say which happens; `lrdoctor ckpt` cannot tell the class from
the file and says both.

Where it is found:

- `lrdoctor check`: a checkpoint dict, `dict(k=v)`, dataclass or `vars()` with the optimizer's
  state and not the scheduler's; an `accelerator.save_state()` whose accelerator was given the
  optimizer (`prepare`) but not the scheduler (`prepare` or `register_for_checkpointing`); a
  resume that loads the optimizer only.
- `lrdoctor run`: at the `torch.save` whose object holds an optimizer's `state_dict()` (at any
  depth, under any key) but not the state of a scheduler driving that optimizer, nor that of a
  GradScaler in use; the saves made before the next optimizer step count as one checkpoint
  (Hugging Face writes optimizer.pt and scheduler.pt separately). And at the
  `optimizer.load_state_dict()` that restores a trained optimizer while its scheduler is never
  loaded and steps on from `last_epoch` 0, or while the GradScaler that steps it is never
  loaded and starts again from its initial scale.
- `lrdoctor ckpt FILE_OR_FOLDER`: a saved optimizer whose param groups carry `initial_lr` (a
  scheduler drove it) with no scheduler state beside it; fp16 training arguments without
  scaler.pt; a scheduler whose `last_epoch` is ahead of its optimizer's updates.

`ReduceLROnPlateau` is the mild case: its reductions live in the optimizer's LRs, so the LR
comes back with the optimizer's state; what a resume loses is its best metric and its count of
bad epochs, which restart, so the next reduction can come up to `patience` epochs late or early.
`lrdoctor check` reports that as an info, not a warning, where the program resumes (it writes a
checkpoint with the optimizer's state and loads one back into the optimizer) and neither saves
nor restores the plateau's state; `lrdoctor run` reports the same info at the optimizer's
`load_state_dict()` when a plateau never loaded steps after the resume. A save without it is
not reported, nor by `lrdoctor ckpt`.

Not reported: a scheduler never stepped yet (its state is a fresh one's); one the code
positions itself on resume (built with `last_epoch=`, stepped with `step(epoch)`, or
fast-forwarded before training); weights-only saves; `ExponentialLR`, whose next LR is gamma
times the one restored with the optimizer, exactly as without the resume. `lrdoctor check` also
leaves out a
`LambdaLR` whose function ignores the step count it is given (the LR follows a counter of the
program's own, not the scheduler's).
""",
        """
Save and restore `scheduler.state_dict()` and `scaler.state_dict()` next to the optimizer's,
under any key; load them on resume before training continues.
""",
        "save and load scheduler.state_dict() (and scaler.state_dict()) with the optimizer",
    ),
    Entry(
        "LRD008",
        "manual-lr-vs-scheduler",
        "warning",
        "SR",
        "Code writes `param_group['lr']` while an LR scheduler drives the same optimizer.",
        """
Chainable schedulers compute the next LR from the current `param_group['lr']`; a manual write
is silently folded into (or overwritten by) the schedule, so neither the manual value nor the
schedule is what trains.

`lrdoctor ckpt` reports it when a saved optimizer's LRs differ from its scheduler's `_last_lr`
(the LR was written after the scheduler's last step).
""",
        """
Express the manual change as a scheduler (LambdaLR, SequentialLR with a warm-up), or stop
using the scheduler for that optimizer.
""",
        "express the manual LR change as part of the schedule (LambdaLR / SequentialLR)",
    ),
    Entry(
        "LRD009",
        "lr-collapse",
        "error",
        "R",
        "The LR fell below 1e-6 of the LR it had reached, early in training, and stayed there.",
        """
An LR a million times below the one the run had reached trains nothing. Early in a run this is
almost always a schedule stepped far more often than intended or decayed with the wrong factor.
A warm-up that starts at 0 is not a fall, and a schedule that climbs back (a warm restart) is
not a collapse: neither is reported.
""",
        """
Check how often the scheduler is stepped and its gamma / horizon; `lrdoctor explain LRD002`.
""",
        "check the scheduler's step frequency and decay factor",
    ),
    Entry(
        "LRD010",
        "schedule-overrun",
        "error",
        "SR",
        "A scheduler is stepped past its horizon (OneCycleLR's crash, a cosine climbing back up).",
        """
OneCycleLR raises "Tried to step N times. The specified number of total steps is M" one step
past `total_steps`; CosineAnnealingLR past `T_max` climbs back towards the initial LR. A
common way in is a warm-up: `T_max=epochs - warmup_epochs` (or a loop over `range(warmup +
epochs)`) while the cosine is stepped on every epoch, the warm-up ones included.
""",
        """
Size the horizon from the real number of steps: `total_steps=epochs * len(loader)` (divided by
the accumulation steps when accumulating gradients), and step exactly once per update. A cosine
that leaves room for a warm-up must be held back during it (`SequentialLR`, or step it only
once `epoch >= warmup_epochs`).
""",
        "size the horizon from the real number of scheduler steps",
    ),
    Entry(
        "LRD011",
        "schedule-underrun",
        "warning",
        "R",
        "Training ended with the schedule far from complete.",
        """
A cosine or one-cycle schedule that ends at 20% of its horizon never anneals: the final epochs
train at a high LR and the model ends where the schedule expected the middle of training.
""",
        """
Make the horizon match the run: `T_max`/`total_steps` from the number of epochs and batches
actually trained.
""",
        "set the horizon from the steps actually trained",
    ),
    Entry(
        "LRD012",
        "competing-schedulers",
        "error",
        "SR",
        "Several schedulers step one optimizer independently and one erases the other's changes "
        "(or one scheduler is stepped at two loop levels).",
        """
Schedulers in PyTorch's chainable form (StepLR, MultiStepLR, ExponentialLR, LinearLR,
ConstantLR, CosineAnnealingLR, PolynomialLR, MultiplicativeLR, ReduceLROnPlateau) multiply the
LR already in the param group, so two of them stepped back to back compose exactly as
`ChainedScheduler` would, and lrdoctor does not report that. LambdaLR (and every Hugging Face
`get_*_schedule_with_warmup`), OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts and SWALR
instead recompute the LR from their base values at every step: stepped beside another
scheduler, they silently erase its decay or warm-up. A decay sized to start after the warm-up
(`T_max=epochs - warmup_epochs`) but stepped from the first epoch beside it runs past its
horizon. One scheduler stepped once per epoch and again after every update competes with
itself: it advances one step per batch plus one per epoch, ahead of whichever design it was
sized for. SWALR holds the LR at `swa_lr` once SWA starts; another scheduler of the same
optimizer still stepped in those epochs moves it away, so they train with neither schedule.
""",
        """
Combine them: `SequentialLR(opt, [warmup, main], milestones=[n])` for hand-offs,
`ChainedScheduler([a, b])` for products. Step a single scheduler at one loop level only. For
SWA, step one or the other: `if epoch > swa_start: swa_scheduler.step()` / `else:
scheduler.step()`.
""",
        "combine two schedulers with SequentialLR or ChainedScheduler; step each scheduler in one place only",
    ),
    Entry(
        "LRD013",
        "rank-divergent-lr",
        "error",
        "SR",
        "Distributed ranks train with different LRs.",
        """
ReduceLROnPlateau stepped with a per-rank metric (each rank's loss on its own shard) reduces the
LR on some ranks only; a scheduler stepped under `if rank == 0:` advances the schedule on the
main process only. DDP then averages gradients that the ranks apply with different step sizes:
the replicas drift apart silently, nothing errors. `lrdoctor check` finds both in the code;
under `torchrun ... -m lrdoctor run` rank 0 compares every rank's LRs step by step and reports
the first optimizer step at which they differ, the epoch, and each rank's LR.
""",
        """
All-reduce the metric before `scheduler.step(metric)` so every rank sees the same value
(`dist.all_reduce`, `accelerator.gather`, Lightning's `self.log(..., sync_dist=True)`), and
step schedulers on every rank: keep only logging and saving under the rank guard.
""",
        "all-reduce the metric across ranks before scheduler.step(metric)",
    ),
    Entry(
        "LRD014",
        "stale-optimizer",
        "error",
        "SR",
        "The scheduler drives an optimizer that is no longer the one being stepped.",
        """
After `optimizer = Adam(...)` is rebuilt (unfreezing layers, a new phase), a scheduler built on
the old optimizer keeps changing the old optimizer's LR; the new one trains at a constant LR.
The same happens when the helper that builds the scheduler calls the optimizer factory again
(`CosineAnnealingLR(self.make_optimizer(), T_max=epochs)`): the schedule moves a second
optimizer that nothing steps, while its `get_last_lr()` makes the logs look right.
""",
        """
Create a new scheduler for the new optimizer (or add param groups to the existing optimizer
with `optimizer.add_param_group`).
""",
        "build the scheduler on the optimizer that is actually stepped",
    ),
    Entry(
        "LRD015",
        "get-lr-outside-step",
        "info",
        "S",
        "`get_lr()` is used for logging; `get_last_lr()` is the value in force.",
        """
`get_lr()` computes the *next* value from the chainable formula, and for several schedulers
returns a wrong number when called outside `step()` (PyTorch warns about it).
""",
        """
Use `scheduler.get_last_lr()` or read `optimizer.param_groups[i]['lr']`
(`lrdoctor check --unsafe-fixes --fix` rewrites the call).
""",
        "use scheduler.get_last_lr()",
    ),
    Entry(
        "LRD017",
        "scheduler-per-microbatch",
        "error",
        "SR",
        "The scheduler is stepped more often than its optimizer (gradient accumulation).",
        """
With gradient accumulation the optimizer steps every k micro-batches; a scheduler stepped every
micro-batch runs k times faster than the updates: warm-ups end early, decays come k times too
soon, and OneCycleLR crashes past its total steps. A hand-written scheduler (a class of the
project whose `step()` advances its own counter and writes the LR from it) stepped every
micro-batch runs ahead the same way. The same happens to a `ReduceLROnPlateau`
passed to `accelerator.prepare`: Accelerate steps a prepared scheduler once per process for each
call, so under N processes every evaluation counts N times toward its patience and the LR is
cut N times too early.
""",
        """
Step the scheduler inside the `if (i + 1) % accum_steps == 0:` block, right after
`optimizer.step()`, and size its horizon in updates (`len(loader) // accum_steps`).
""",
        "step the scheduler only where the optimizer steps (inside the accumulation block)",
    ),
    Entry(
        "LRD101",
        "deprecated-cuda-amp",
        "warning",
        "S",
        "`torch.cuda.amp.GradScaler/autocast` are deprecated; use `torch.amp`.",
        """
`torch.cuda.amp.GradScaler()` and `torch.cuda.amp.autocast()` emit FutureWarnings and tie the
code to CUDA.
""",
        """
Use `torch.amp.GradScaler("cuda")` and `torch.autocast("cuda")` (`lrdoctor check --fix`
rewrites them).
""",
        'use torch.amp.GradScaler("cuda") / torch.autocast("cuda")',
    ),
    Entry(
        "LRD102",
        "fp16-adam-eps",
        "error",
        "SR",
        "Adam-family eps is below float16's smallest subnormal while the parameters are float16.",
        """
float16's smallest positive value is 6e-8; Adam's default `eps=1e-8` rounds to exactly 0 on
float16 parameters. Wherever a gradient is 0 (an embedding row not in the batch) the update is
0/0 = NaN and the parameter is destroyed.
""",
        """
Keep float32 master parameters (autocast + GradScaler instead of `.half()`), or use
`eps=1e-4` (or larger) for float16 parameters.
""",
        "keep parameters in float32 under autocast, or use eps >= 1e-4 with float16 parameters",
    ),
    Entry(
        "LRD103",
        "unsafe-log-in-low-precision",
        "warning",
        "SR",
        "BCELoss / log of probabilities computed under autocast or on half tensors.",
        """
A probability that rounds to 0 (or 1) in float16 makes `log` return -inf and the loss NaN.
PyTorch refuses `BCELoss` under autocast for this reason. Focal losses written by hand take
`log(p)` and `log(1 - p)`: float16 holds nothing between 1 - 2**-12 and 1, so `1 - p` is 0 for
any confident positive, and a clamp to `1 - 1e-6` does not help (the bound itself rounds to 1).
A lower clamp such as `p.clamp(min=1e-6)` does keep `log(p)` finite (1e-6 is a float16
subnormal, not 0). A softmax is the exception under CUDA's autocast, which computes it in
float32 (on a `.half()` model, or under the CPU's autocast, it stays in float16): `check`
reports `log(softmax(x))` only where the softmax runs in float16.
""",
        """
Work with logits: `BCEWithLogitsLoss`, `F.log_softmax`, `F.logsigmoid` instead of
`log(sigmoid(x))` / `log(softmax(x))`, and `F.logsigmoid(-x)` for `log(1 - sigmoid(x))`.
""",
        "use BCEWithLogitsLoss / log_softmax / logsigmoid on logits",
    ),
    Entry(
        "LRD104",
        "non-finite-loss",
        "error",
        "R",
        "The loss became NaN or inf.",
        """
Once the loss is non-finite, gradients are too; under GradScaler the step is skipped, without
it the parameters are destroyed. The first op that produced the value is the place to fix.
""",
        """
Look at the op and module named in the finding; usual fixes: compute in log space, clamp
before log/division, keep reductions in float32. The first non-finite loss is reported at once
with its step and line (and the op, where walking the loss's graph names one); module calls are
recorded from then on, so a NaN made inside a module is named with its module when it recurs.
To have the first occurrence named with its module, run `lrdoctor run --nan-record` (or
`--nan-trace`, which checks every op).
""",
        "fix the op named in the finding (log-space losses, clamps, float32 reductions)",
    ),
    Entry(
        "LRD105",
        "non-finite-params",
        "error",
        "R",
        "An optimizer step wrote NaN/inf into parameters.",
        """
A NaN parameter poisons every later forward pass; training cannot recover.
""",
        """
Find the cause named in the finding (a 0/0 in Adam with float16 eps, unscaled inf gradients
stepped without GradScaler); use GradScaler with float16.
""",
        "see the cause in the finding; use GradScaler with float16",
    ),
    Entry(
        "LRD106",
        "scale-collapse",
        "error",
        "R",
        "GradScaler keeps skipping: gradients are non-finite step after step.",
        """
Each skipped step halves the scale. Skips while the scale comes down from a high `init_scale`
are GradScaler finding a scale that fits, and are not reported. Gradients still non-finite
once the scale is below 1 (nothing is scaled up any more) are non-finite for a reason no scale
fixes; once the scale reaches a subnormal or 0, PyTorch's own inf check misses and the next
step writes NaN into every parameter. Training that ends inside a long run of skips never
trained at all.
""",
        """
Find the op producing inf/NaN in the backward pass (the finding names it when it can).
""",
        "find the op that produces non-finite gradients",
    ),
    Entry(
        "LRD108",
        "clip-before-unscale",
        "error",
        "SR",
        "Gradients are clipped while still multiplied by the GradScaler's scale.",
        """
`clip_grad_norm_(max_norm=1.0)` on gradients scaled by 65536 clips almost everything to
nothing: the effective max norm is 1/65536.
""",
        """
Call `scaler.unscale_(optimizer)` before clipping.
""",
        "call scaler.unscale_(optimizer) before clip_grad_norm_",
    ),
    Entry(
        "LRD109",
        "step-bypasses-scaler",
        "error",
        "SR",
        "The loss is scaled for backward, but `optimizer.step()` is called instead of "
        "`scaler.step(optimizer)`.",
        """
The gradients are multiplied by the scale (65536 by default) and never divided back, and the
inf/NaN gradients GradScaler exists to catch (float16 overflow) are stepped into the
parameters instead of skipped. With SGD and other optimizers that step along the gradient,
every update is 65536 times too large. Adam, AdamW, RMSprop, Adagrad and the like divide by
the gradients' running size, so their updates come out about right and the run can look
healthy until the first overflow turns the weights to NaN; a gradient clip before the step
then clips gradients 65536 times too large.
""",
        """
Use `scaler.step(optimizer)` followed by `scaler.update()`.
""",
        "use scaler.step(optimizer); scaler.update()",
    ),
    Entry(
        "LRD110",
        "scaler-update-missing",
        "error",
        "SR",
        "`scaler.step()` without `scaler.update()`.",
        """
Without `update()` the scale never adapts and the per-optimizer state is never reset: the next
`scaler.step()` raises "step() has already been called since the last update()", or skipped
steps repeat forever.
""",
        """
Call `scaler.update()` once per iteration after all `scaler.step()` calls.
""",
        "call scaler.update() after scaler.step()",
    ),
    Entry(
        "LRD111",
        "fp16-backward-without-scaling",
        "warning",
        "S",
        "The loss is computed under float16 autocast and back-propagated without a GradScaler.",
        """
Under float16 autocast the backward pass produces float16 gradients for every op autocast ran
in float16. float16 cannot hold a magnitude below about 6e-8 (its smallest subnormal) and
loses precision well above that: small gradients flush to zero, and the updates they carry are
lost without any error or warning. Loss scaling (GradScaler) multiplies the loss before
backward so those gradients stay representable, then unscales them before the update. bfloat16
has float32's range and needs no scaling.
""",
        """
Create `scaler = torch.amp.GradScaler("cuda")` once, then per step
`scaler.scale(loss).backward()`, `scaler.step(optimizer)`, `scaler.update()` (with
`scaler.unscale_(optimizer)` before any gradient clipping). Or autocast to `torch.bfloat16`
where the hardware supports it.
""",
        "scale the loss with torch.amp.GradScaler, or autocast to torch.bfloat16",
        ("https://pytorch.org/docs/stable/amp.html#gradient-scaling",),
    ),
]

CATALOG: dict[str, Entry] = {e.code: e for e in _ENTRIES}
NAMES: dict[str, str] = {e.name: e.code for e in _ENTRIES}


def lookup(code_or_name: str) -> Entry | None:
    """Find an entry by code (``LRD002``, ``lrd002``, ``2``) or name."""
    key = code_or_name.strip()
    if key.upper() in CATALOG:
        return CATALOG[key.upper()]
    if key in NAMES:
        return CATALOG[NAMES[key]]
    if key.isdigit():
        return CATALOG.get(f"LRD{int(key):03d}")
    return None


def select_codes(select: list[str] | None, ignore: list[str] | None) -> set[str]:
    """Codes enabled by ruff-style prefix lists. Raises ValueError on a prefix matching nothing."""
    def expand(prefixes: list[str]) -> set[str]:
        out: set[str] = set()
        for raw in prefixes:
            p = raw.strip().upper()
            if not p:
                continue
            if p == "ALL":
                out |= set(CATALOG)
                continue
            hit = {c for c in CATALOG if c.startswith(p)}
            if not hit:
                raise ValueError(f"unknown code or prefix {raw!r} (see `lrdoctor explain --list`)")
            out |= hit
        return out

    enabled = expand(select) if select else set(CATALOG)
    if ignore:
        enabled -= expand(ignore)
    return enabled
