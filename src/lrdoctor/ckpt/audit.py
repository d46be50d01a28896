"""What a checkpoint holds, and what a resume from it would get wrong.

A checkpoint is one ``torch.save`` file (any nesting; Lightning's ``.ckpt`` is one too) or a
Hugging Face Trainer checkpoint folder (``optimizer.pt``, ``scheduler.pt``, ``scaler.pt``,
``trainer_state.json``, the model's weights). Its parts are recognised by their shape
(:mod:`lrdoctor.statedicts`), wherever they sit, and then judged:

- LRD007, missing scheduler state: an optimizer whose param groups carry ``initial_lr`` (every
  LRScheduler writes it there when it is built, so a scheduler drove this optimizer) with no
  scheduler state in the checkpoint. Optimizers never driven by a scheduler, and
  ReduceLROnPlateau (it writes no ``initial_lr``; its reductions are in the optimizer's LRs),
  are not reported.
- LRD007, missing GradScaler state: only where the checkpoint itself says AMP was on (a Hugging
  Face folder whose training arguments have ``fp16``) and no scaler state is saved.
- LRD007, a scheduler ahead of its optimizer: ``last_epoch`` above the optimizer's step count by
  more than skipped AMP steps explain (no granularity, per batch or per epoch, steps a schedule
  more often than the optimizer updates; stepping per micro-batch does, and is a bug). In a
  Hugging Face folder, where the Trainer steps the scheduler once per update, any difference
  from the update count beyond that slack.
- LRD008, the optimizer's LRs differ from the scheduler's ``_last_lr``: something wrote
  ``param_group['lr']`` after the scheduler's last step.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lrdoctor.findings import Finding, Location
from lrdoctor.statedicts import (
    is_optimizer_state,
    is_scaler_state,
    is_scheduler_state,
    optimizer_steps,
    scheduler_class,
    walk,
)

HF_FILES = ("optimizer.pt", "scheduler.pt", "scaler.pt", "trainer_state.json")
COUNTER_KEYS = ("epoch", "epochs", "global_step", "step", "steps", "iteration", "iter", "num_updates")


@dataclass
class Part:
    """One recognised piece of a checkpoint: ``kind`` is model, optimizer, scheduler, scaler."""

    kind: str
    where: str  # the path inside the file (``['optimizer']``), or the file in a folder
    info: dict[str, Any] = field(default_factory=dict)
    state: Any = None  # the state dict itself (not serialised)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "where": self.where, **self.info}


@dataclass
class Audit:
    path: str
    format: str  # "torch.save", "lightning", "hf-trainer"
    parts: list[Part] = field(default_factory=list)
    counters: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    fp16: bool | None = None  # what the checkpoint says about AMP, when it says anything

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "contents": [p.to_dict() for p in self.parts],
            "counters": self.counters,
            "notes": self.notes,
            "findings": [f.to_dict() for f in self.findings],
        }


# ---- reading the parts --------------------------------------------------------------------


def _number(v: Any) -> Any:
    if hasattr(v, "item") and getattr(v, "numel", lambda: 0)() == 1:
        v = v.item()
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v
    return None


def _numbers(values: Any) -> list[Any]:
    return [_number(v) for v in values] if isinstance(values, (list, tuple)) else []


def _is_tensor(x: Any) -> bool:
    return type(x).__name__ in ("Tensor", "Parameter") and hasattr(x, "numel")


def _is_model_state(x: Any) -> bool:
    """A module's ``state_dict()``: string keys, tensor values."""
    return (isinstance(x, dict) and len(x) > 0 and all(isinstance(k, str) for k in x)
            and all(_is_tensor(v) for v in x.values()))


def _is_part(x: Any) -> bool:
    return is_optimizer_state(x) or is_scheduler_state(x) or is_scaler_state(x) or _is_model_state(x)


def read_parts(obj: Any, audit: Audit, prefix: str = "") -> None:
    """Add every recognised part of ``obj`` (and its counters) to ``audit``."""
    if _is_tensor(obj):
        audit.parts.append(Part("model", prefix or "(the file)", {"tensors": 1, "parameters": obj.numel()}))
        return
    for where, x in walk(obj, prefix, leaf=_is_part):
        where = where or "(the file)"
        if is_optimizer_state(x):
            audit.parts.append(_optimizer_part(where, x))
        elif is_scheduler_state(x):
            audit.parts.append(_scheduler_part(where, x))
        elif is_scaler_state(x):
            audit.parts.append(Part("scaler", where, {"scale": _number(x.get("scale")),
                                                      "growth_tracker": _number(x.get("_growth_tracker"))}, x))
        elif _is_model_state(x):
            audit.parts.append(Part("model", where, {"tensors": len(x),
                                                     "parameters": sum(int(v.numel()) for v in x.values())}))
        elif isinstance(x, dict):
            for key in COUNTER_KEYS:
                value = x.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    audit.counters.setdefault(f"{where if where != '(the file)' else ''}[{key!r}]", value)


def _optimizer_part(where: str, d: dict[str, Any]) -> Part:
    groups = d["param_groups"]
    info: dict[str, Any] = {
        "steps": optimizer_steps(d),
        "param_groups": len(groups),
        "parameters_with_state": len(d["state"]),
        "lrs": [_number(g.get("lr")) for g in groups],
    }
    if all("initial_lr" in g for g in groups):
        info["initial_lrs"] = [_number(g["initial_lr"]) for g in groups]
    return Part("optimizer", where, info, d)


def _scheduler_part(where: str, d: dict[str, Any]) -> Part:
    info: dict[str, Any] = {
        "class": scheduler_class(d),
        "last_epoch": _number(d.get("last_epoch")),
        "last_lr": _numbers(d.get("_last_lr")),
    }
    children = d.get("_schedulers")
    if isinstance(children, list):
        info["children"] = [scheduler_class(c) if isinstance(c, dict) else None for c in children]
        if info["last_epoch"] is None:  # ChainedScheduler: its children's count
            epochs = [_number(c.get("last_epoch")) for c in children if isinstance(c, dict)]
            epochs = [e for e in epochs if isinstance(e, (int, float))]
            info["last_epoch"] = max(epochs) if epochs else None
    return Part("scheduler", where, info, d)


def _base_lrs(d: dict[str, Any]) -> list[Any]:
    if "base_lrs" in d:
        return _numbers(d["base_lrs"])
    for child in d.get("_schedulers") or ():
        if isinstance(child, dict) and "base_lrs" in child:
            return _numbers(child["base_lrs"])
    return []


# ---- formats -------------------------------------------------------------------------------


def audit_object(obj: Any, path: str) -> Audit:
    is_lightning = isinstance(obj, dict) and "pytorch-lightning_version" in obj
    audit = Audit(path, "lightning" if is_lightning else "torch.save")
    read_parts(obj, audit)
    if is_lightning:
        audit.notes.append(f"Lightning {obj.get('pytorch-lightning_version')} checkpoint")
    judge(audit)
    return audit


def is_hf_folder(folder: Path) -> bool:
    return any((folder / name).is_file() for name in HF_FILES)


def audit_hf_folder(folder: Path, load: Any) -> Audit:
    """A Hugging Face Trainer checkpoint folder; ``load(path)`` reads one .pt file (and may
    raise the loader's error, which then stands for the whole folder)."""
    audit = Audit(str(folder), "hf-trainer")
    for name in ("optimizer.pt", "scheduler.pt", "scaler.pt"):
        file = folder / name
        if file.is_file():
            read_parts(load(file), audit, name)
    for weights in ("model.safetensors", "pytorch_model.bin"):
        file = folder / weights
        if file.is_file():
            if weights.endswith(".safetensors"):
                tensors, params = _safetensors_size(file)
                audit.parts.append(Part("model", weights, {"tensors": tensors, "parameters": params}))
            else:
                read_parts(load(file), audit, weights)
    state_file = folder / "trainer_state.json"
    if state_file.is_file():
        try:
            state = json.loads(state_file.read_text())
        except (OSError, ValueError) as exc:
            audit.notes.append(f"trainer_state.json cannot be read: {exc}")
        else:
            for key in ("global_step", "epoch", "max_steps", "num_train_epochs"):
                if isinstance(state.get(key), (int, float)):
                    audit.counters[f"trainer_state.json[{key!r}]"] = state[key]
    rng = sorted(p.name for p in folder.glob("rng_state*.pth"))
    if rng:
        audit.notes.append(f"RNG state saved ({', '.join(rng)}; not loaded)")
    args_file = folder / "training_args.bin"
    if args_file.is_file():
        from lrdoctor.ckpt.loading import pickled_flags

        flags = pickled_flags(args_file, ("fp16",))
        audit.fp16 = flags.get("fp16")
        audit.notes.append("training arguments saved (training_args.bin, read without unpickling"
                           + (f": fp16={audit.fp16})" if audit.fp16 is not None else ")"))
    judge(audit)
    return audit


def _safetensors_size(file: Path) -> tuple[int | None, int | None]:
    """Tensor and parameter counts from a .safetensors header (JSON after an 8-byte length)."""
    try:
        with open(file, "rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            if size > 100_000_000:
                return None, None
            header = json.loads(f.read(size))
    except (OSError, ValueError, struct.error):
        return None, None
    tensors = [v for k, v in header.items() if k != "__metadata__" and isinstance(v, dict)]
    return len(tensors), sum(math.prod(v.get("shape", [])) for v in tensors)


# ---- judging -------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return True  # not comparable: never a finding
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def _fmt(values: list[Any]) -> str:
    shown = [f"{v:.3g}" if isinstance(v, float) else str(v) for v in values]
    return shown[0] if len(set(shown)) == 1 else "[" + ", ".join(shown) + "]"


def _top_schedulers(audit: Audit) -> list[Part]:
    """Scheduler states that are not a child inside a composite's state."""
    scheds = [p for p in audit.parts if p.kind == "scheduler"]
    return [p for p in scheds if not any(q is not p and p.where.startswith(q.where + "['_schedulers']")
                                         for q in scheds)]


def _pairs(audit: Audit) -> list[tuple[Part, Part]]:
    """(optimizer, scheduler) pairs: a scheduler's base_lrs are its optimizer's initial_lrs."""
    opts = [p for p in audit.parts if p.kind == "optimizer"]
    scheds = _top_schedulers(audit)
    if len(opts) == 1 and len(scheds) == 1:
        return [(opts[0], scheds[0])]
    pairs = []
    for s in scheds:
        base = _base_lrs(s.state)
        hits = [o for o in opts if base and o.info.get("initial_lrs") is not None
                and len(base) == len(o.info["initial_lrs"])
                and all(_same(a, b) for a, b in zip(base, o.info["initial_lrs"]))]
        if len(hits) == 1:
            pairs.append((hits[0], s))
    return pairs


def judge(audit: Audit) -> None:
    opts = [p for p in audit.parts if p.kind == "optimizer"]
    scheds = _top_schedulers(audit)
    scalers = [p for p in audit.parts if p.kind == "scaler"]
    pairs = _pairs(audit)
    paired_opts = {id(o) for o, _ in pairs}
    location = Location(audit.path)

    # a scheduler drove the optimizer, and its state is not here
    unpaired_scheds = [s for s in scheds if all(s is not t for _, t in pairs)]
    for opt in opts:
        if "initial_lrs" not in opt.info or id(opt) in paired_opts or unpaired_scheds:
            continue
        if scheds and len(opts) == 1:
            continue
        steps = opt.info.get("steps")
        audit.findings.append(Finding(
            "LRD007",
            f"the optimizer state at {opt.where}{_steps_text(steps)} was driven by an LR scheduler "
            f"(its param groups carry initial_lr {_fmt(opt.info['initial_lrs'])}; LR now "
            f"{_fmt(opt.info['lrs'])}) but the checkpoint holds no scheduler state: a resume "
            "rebuilds the scheduler at step 0 (unless the resume code passes last_epoch=): a "
            "schedule computed from its step count (LambdaLR and the warm-ups, OneCycleLR) "
            "restarts from its first value, and a chainable one (StepLR, MultiStepLR, "
            "CosineAnnealingLR) replays its decays from the LR restored with the optimizer",
            location, evidence={"optimizer": opt.where, "steps": steps},
        ))

    if audit.fp16 and not scalers and opts:
        audit.findings.append(Finding(
            "LRD007",
            "the training arguments say fp16=True but the checkpoint holds no GradScaler state "
            "(scaler.pt): a resume restarts the loss scale at its initial value and skips steps again",
            location, evidence={"fp16": True},
        ))

    # the LRs are compared only where one scheduler alone sets them (a warm-up beside a
    # ReduceLROnPlateau is two writers, and which wrote last is not in the file)
    one_writer = not unpaired_scheds and len({id(o) for o, _ in pairs}) == len(pairs)
    for opt, sched in pairs:
        steps, last_epoch = opt.info.get("steps"), sched.info.get("last_epoch")
        if isinstance(steps, int) and isinstance(last_epoch, (int, float)):
            _judge_counts(audit, opt, sched, steps, int(last_epoch), location)
        if one_writer:
            _judge_lrs(audit, opt, sched, location)


def _steps_text(steps: Any) -> str:
    return f" (step {steps})" if isinstance(steps, int) else ""


def _judge_counts(audit: Audit, opt: Part, sched: Part, steps: int, last_epoch: int,
                  location: Location) -> None:
    # skipped AMP steps step the scheduler but not the optimizer's count: a few at the start
    # (the scale coming down from 65536) and a rare one later
    slack = 25 + steps // 100
    name = sched.info.get("class") or "the scheduler"
    if last_epoch > steps + slack:
        ratio = last_epoch / steps if steps else None
        per_micro = (f" ({ratio:.3g} scheduler steps per update: stepped once per micro-batch "
                     "under gradient accumulation?)" if ratio and ratio >= 1.5 else "")
        audit.findings.append(Finding(
            "LRD007",
            f"{name} at {sched.where} has last_epoch {last_epoch}, more than the {steps} updates "
            f"of the optimizer at {opt.where}{per_micro}: no granularity steps a schedule more "
            "often than its optimizer updates; the two states are out of step (one was restored "
            "on a resume and the other was not, or the scheduler steps per micro-batch)",
            location, severity="warning",
            evidence={"last_epoch": last_epoch, "optimizer_steps": steps},
        ))
    elif audit.format == "hf-trainer" and last_epoch < steps - slack:
        audit.findings.append(Finding(
            "LRD007",
            f"{name} at {sched.where} has last_epoch {last_epoch} but the optimizer at {opt.where} "
            f"made {steps} updates: the Trainer steps its scheduler once per update, so the "
            "scheduler restarted while the optimizer was restored (a resume without scheduler.pt?)",
            location, severity="warning",
            evidence={"last_epoch": last_epoch, "optimizer_steps": steps},
        ))


def _judge_lrs(audit: Audit, opt: Part, sched: Part, location: Location) -> None:
    lrs, last = opt.info.get("lrs") or [], sched.info.get("last_lr") or []
    if len(lrs) != len(last) or all(_same(a, b) for a, b in zip(lrs, last)):
        return
    name = sched.info.get("class") or "the scheduler"
    audit.findings.append(Finding(
        "LRD008",
        f"the optimizer at {opt.where} has LR {_fmt(lrs)} but {name} at {sched.where} last set "
        f"{_fmt(last)}: something wrote param_group['lr'] after the scheduler's last step (or the "
        "two states were saved at different moments); a resume trains at the optimizer's value "
        "until the scheduler's next step overrides it",
        location, severity="warning", evidence={"optimizer_lrs": lrs, "scheduler_last_lr": last},
    ))
