"""``lrdoctor ckpt PATH...``: list what checkpoints hold and flag what a resume gets wrong.

Exit codes: 0 nothing flagged, 1 findings, 2 a path could not be audited (missing, not a
checkpoint, truncated, refused because it needs unpickling) or a usage error. One bad file
never stops the others: each gets its one-line error and the rest are audited.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lrdoctor.ckpt.audit import Audit, audit_hf_folder, audit_object, is_hf_folder
from lrdoctor.ckpt.loading import UNSAFE_WARNING, CheckpointError, load

SUFFIXES = (".pt", ".pth", ".ckpt", ".bin", ".tar")
NOT_CHECKPOINTS = ("training_args.bin",)  # pickled settings, read by audit_hf_folder itself

DESCRIPTION = """\
Audit checkpoint files and folders: torch.save files of any nesting, Lightning .ckpt files, and
Hugging Face Trainer checkpoint folders (optimizer.pt, scheduler.pt, scaler.pt,
trainer_state.json). Lists what each holds (model tensors and parameters; optimizer step count
and LRs; scheduler class, last_epoch and last LR; GradScaler scale; epoch/step counters) and
flags what a resume from it would get wrong: scheduler or GradScaler state missing (LRD007), a
scheduler whose last_epoch is ahead of its optimizer's updates (LRD007), optimizer LRs that
differ from the scheduler's last LRs (LRD008).

Files are loaded with torch.load(weights_only=True): nothing in them is run. A file that needs
full unpickling is refused and names what it would import."""

EPILOG = """\
examples:
  lrdoctor ckpt last.pt                      one torch.save file
  lrdoctor ckpt lightning_logs/ out/         every checkpoint under these folders
  lrdoctor ckpt out/checkpoint-500           a Hugging Face Trainer checkpoint folder
  lrdoctor ckpt --format json last.pt

exit codes: 0 nothing flagged, 1 findings, 2 a path could not be audited (missing, not a
checkpoint, truncated, refused) or a usage error"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="checkpoint files, or folders to search (Hugging Face checkpoint folders "
                   f"are audited as one checkpoint; other files ending in {', '.join(SUFFIXES)})")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json: an object with 'checkpoints' and 'errors'")
    p.add_argument("--unsafe-load", action="store_true",
                   help="load files that need full unpickling (torch.load(weights_only=False)). "
                   "DANGEROUS: unpickling runs any code the file names; only for files you trust")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_arguments(parser)


def _targets(path: Path) -> list[Path]:
    """The checkpoints a PATH names: itself, or what a folder holds."""
    if path.is_file() or is_hf_folder(path):
        return [path]
    found: list[Path] = []
    hf = sorted({p.parent for name in ("optimizer.pt", "trainer_state.json") for p in path.rglob(name)})
    found += hf
    for file in sorted(path.rglob("*")):
        if (file.is_file() and file.suffix in SUFFIXES and file.name not in NOT_CHECKPOINTS
                and not file.name.startswith("rng_state") and file.parent not in hf):
            found.append(file)
    return found


def audit_path(path: Path, unsafe: bool = False) -> Audit:
    """Audit one checkpoint (a file or a Hugging Face folder); raises CheckpointError."""

    def read(file: Path) -> Any:
        if unsafe:
            print(UNSAFE_WARNING.format(path=file), file=sys.stderr)
        return load(file, unsafe=unsafe)

    if path.is_dir():
        return audit_hf_folder(path, read)
    return audit_object(read(path), str(path))


def run(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        print("lrdoctor ckpt: reading checkpoints needs PyTorch (2.2 or newer)", file=sys.stderr)
        return 2
    audits: list[Audit] = []
    errors: list[dict[str, str]] = []
    for raw in args.paths:
        path = Path(raw)
        if not path.exists():
            errors.append({"path": raw, "error": "no such file or folder"})
            continue
        targets = _targets(path)
        if not targets:
            errors.append({"path": raw, "error": "no checkpoint files in this folder"})
        for target in targets:
            try:
                audits.append(audit_path(target, unsafe=args.unsafe_load))
            except CheckpointError as exc:
                errors.append({"path": str(target), "error": str(exc)})
            except Exception as exc:  # never a traceback for one file; the others go on
                errors.append({"path": str(target),
                               "error": f"cannot be audited ({type(exc).__name__}: {exc})"})
    if args.format == "json":
        print(json.dumps({"checkpoints": [a.to_dict() for a in audits], "errors": errors}, indent=2))
    else:
        print(render(audits, errors))
    for e in errors:
        print(f"lrdoctor ckpt: {e['path']}: {e['error']}", file=sys.stderr)
    if errors:
        return 2
    return 1 if any(a.findings for a in audits) else 0


# ---- text ------------------------------------------------------------------------------------


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "?" if v is None else str(v)


def _lrs(values: list[Any]) -> str:
    shown = [_num(v) for v in values]
    return shown[0] if shown and len(set(shown)) == 1 else "[" + ", ".join(shown) + "]"


def describe_part(kind: str, info: dict[str, Any]) -> str:
    if kind == "model":
        n = info.get("tensors")
        return f"{_num(n)} tensor{'' if n == 1 else 's'}, {_num(info.get('parameters'))} parameters"
    if kind == "optimizer":
        steps = info.get("steps")
        text = f"step {steps}" if steps is not None else "no step count (SGD-like)"
        groups = info.get("param_groups")
        text += f", {groups} param group{'s' if groups != 1 else ''}, lr {_lrs(info.get('lrs') or [])}"
        if "initial_lrs" in info:
            text += f" (initial {_lrs(info['initial_lrs'])}: a scheduler drove it)"
        return text
    if kind == "scheduler":
        name = info.get("class") or "class unknown"
        text = f"{name}, last_epoch {_num(info.get('last_epoch'))}"
        if info.get("last_lr"):
            text += f", last LR {_lrs(info['last_lr'])}"
        if info.get("children"):
            text += f", children {', '.join(c or '?' for c in info['children'])}"
        return text
    if kind == "scaler":
        return f"scale {_num(info.get('scale'))}, growth tracker {_num(info.get('growth_tracker'))}"
    return ""


def render(audits: list[Audit], errors: list[dict[str, str]]) -> str:
    lines: list[str] = []
    for audit in audits:
        lines.append(f"{audit.path}  ({audit.format})")
        top_level = [p for p in audit.parts
                     if not (p.kind == "scheduler" and "['_schedulers']" in p.where)]
        if not top_level:
            lines.append("  nothing recognised (no model, optimizer, scheduler or scaler state)")
        for part in top_level:
            lines.append(f"  {part.kind:<10} {part.where}: {describe_part(part.kind, part.info)}")
        for key, value in audit.counters.items():
            lines.append(f"  {'counter':<10} {key} = {_num(value)}")
        for note in audit.notes:
            lines.append(f"  {'note':<10} {note}")
        for f in audit.findings:
            lines.append(f"  {f.code} [{f.severity}] {f.message}")
            lines.append(f"    fix: {f.fix}")
        lines.append("")
    n = sum(len(a.findings) for a in audits)
    summary = (f"{len(audits)} checkpoint{'s' if len(audits) != 1 else ''} audited, "
               f"{n} finding{'s' if n != 1 else ''}")
    if errors:
        summary += f", {len(errors)} could not be audited (listed on stderr)"
    lines.append(summary + ".")
    return "\n".join(lines)
