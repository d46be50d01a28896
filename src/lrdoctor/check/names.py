"""What a name or a constructor call is, in the user's words: optimizer, scheduler, scaler, loader.

Two sources of knowledge, in order of trust:

1. the constructor, resolved through the file's imports (``from torch.optim import lr_scheduler
   as sch; sch.StepLR(...)`` is ``torch.optim.lr_scheduler.StepLR``);
2. the name a value is bound to when nothing else is known (a function parameter called
   ``optimizer``, an attribute ``self.lr_scheduler``). Such objects carry no class, so rules
   that need the class (granularity, horizons) stay silent about them.

>>> classify_constructor("torch.optim.lr_scheduler.StepLR")
('scheduler', 'StepLR', 'torch')
>>> guess_kind_from_name("train_loader")
'loader'
"""

from __future__ import annotations

import re

from lrdoctor.schedulers import HF_WARMUP_BUILDERS, SCHEDULERS

OPTIMIZER_CLASSES = frozenset(
    {
        "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "Adagrad",
        "Adadelta", "ASGD", "LBFGS", "SparseAdam", "Adafactor", "Lion", "Lamb", "LAMB", "LARS",
        "FusedAdam", "FusedLAMB", "FusedSGD", "AdamW8bit", "Adam8bit", "PagedAdamW",
        "PagedAdamW8bit", "Lion8bit", "SGD8bit", "ZeroRedundancyOptimizer", "Muon", "Sophia",
        "AdaBelief", "Ranger", "AdamP", "SGDP", "NovoGrad", "Adan", "ScheduleFreeAdamW",
    }
)
OPTIMIZER_BUILDERS = frozenset({"create_optimizer", "create_optimizer_v2", "build_optimizer"})
ADAM_FAMILY = frozenset({"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "SparseAdam"})
SCALER_CLASSES = frozenset({"GradScaler", "ShardedGradScaler"})
LOADER_CLASSES = frozenset({"DataLoader", "StatefulDataLoader"})
LOADER_BUILDERS = frozenset({"create_loader", "build_dataloader", "build_loader"})
TIMM_SCHEDULER_BUILDERS = frozenset({"create_scheduler", "create_scheduler_v2"})
# pytorch_transformers 1.x / early transformers: LambdaLR subclasses stepped per update,
# `WarmupLinearSchedule(optimizer, warmup_steps, t_total)` (pytorch_pretrained_bert's classes of
# the same names are not LR schedulers: they are given to BertAdam and take no optimizer)
LEGACY_HF_WARMUPS = frozenset(
    {"WarmupLinearSchedule", "WarmupCosineSchedule", "WarmupConstantSchedule",
     "WarmupCosineWithHardRestartsSchedule", "ConstantLRSchedule"}
)
# calls that go over their second argument one item at a time, handing back what a function
# makes of each item (`map(to_device, loader)`) or the items it keeps: a loop over them runs
# once per item of that argument at most
ITEMWISE_CALLS = frozenset({"map", "filter", "itertools.starmap", "itertools.filterfalse"})
# calls that hand back (an iterator over) their first argument: a loop over them iterates it
ITER_WRAPPERS = frozenset(
    {
        "enumerate", "tqdm", "trange", "iter", "zip", "tqdm_notebook", "tnrange", "islice", "cycle", "chain", "track",
        "progress_bar", "ProgressBar", "MetricLogger", "log_every", "prefetch", "Prefetcher",
        "CudaPrefetcher", "DataPrefetcher", "BackgroundGenerator", "ParallelLoader",
        "MpDeviceLoader", "per_device_loader", "skip_first_batches", "reversed", "sorted",
        "list",
    }
)
# calls that return their arguments unchanged, wrapped for a distributed/accelerated setup (or
# unwrapped from it: `accelerator.unwrap_model(self.scheduler)` is the scheduler)
PASSTHROUGH_CALLS = frozenset(
    {"prepare", "setup", "initialize", "wrap", "setup_dataloaders", "setup_optimizers",
     "setup_module", "prepare_data_loader", "prepare_optimizer", "prepare_scheduler",
     "prepare_model", "unwrap_model"}
)

_OPT_NAME = re.compile(r"^(opt|optim|optimizer|optimiser)(_\w+)?$|_(opt|optim|optimizer)$")
_SCHED_NAME = re.compile(r"sched|lr_scheduler|lr_schedule\b")
_SCALER_NAME = re.compile(r"(^|_)(grad_)?scaler$|^scaler")
_LOADER_NAME = re.compile(r"loader|(^|_)dl$|^dl_|dataloader")


# a schedule of something other than the learning rate, named by what it schedules
# (`mask_scheduler`, `noise_scheduler`, `beta_schedule`, `temp_sched`, `kl_scheduler`,
# `teacher_momentum_scheduler`): masking and noise levels, loss weights, temperatures,
# momenta, sampling and teacher-forcing ratios
_NOT_LR_SCHEDULE = re.compile(
    r"(^|_)(mask|masking|noise|beta|betas|temp|temperature|kl|momentum|ema|tau|dropout|"
    r"sampling|curriculum|tf|teacher_forcing|ratio|prob|probability|wd|weight_decay|"
    r"alpha|gamma|lambda|margin)_(sched|scheduler|schedule|schedular)$")


def guess_kind_from_name(name: str) -> str:
    """The kind a bare name suggests ('' when it suggests nothing). A name that says what it
    schedules, when that is not the learning rate (`mask_scheduler`), suggests nothing."""
    last = name.rsplit(".", 1)[-1].lower()
    if _SCHED_NAME.search(last):
        return "" if _NOT_LR_SCHEDULE.search(last) else "scheduler"
    if _SCALER_NAME.search(last):
        return "scaler"
    if _OPT_NAME.search(last):
        return "optimizer"
    if _LOADER_NAME.search(last):
        return "loader"
    return ""


def classify_constructor(qualname: str) -> tuple[str, str, str] | None:
    """``(kind, class, origin)`` for a call to ``qualname``, or None if it constructs nothing
    lrdoctor tracks. ``origin`` is ``torch``, ``hf``, ``timm`` or ``""`` (a known class name
    from a library whose module lrdoctor cannot see)."""
    parts = qualname.split(".")
    last = parts[-1]
    root = parts[0]
    if last in SCHEDULERS and "scheduler" in qualname.lower() or (
        last in SCHEDULERS and root == "torch"
    ):
        return ("scheduler", last, "torch")
    if last in SCHEDULERS and len(parts) == 1:
        # a bare name that was not imported from anywhere we know: most likely
        # `from torch.optim.lr_scheduler import *`; trust the class name
        return ("scheduler", last, "torch")
    if root == "timm" and last == "NativeScaler":
        # timm.utils.NativeScaler: a torch GradScaler behind a call that scales, steps and
        # updates (`loss_scaler(loss, optimizer, clip_grad=..., parameters=...)`)
        return ("scaler", last, "timm")
    if root == "timm" and ".scheduler" in qualname or last in TIMM_SCHEDULER_BUILDERS:
        return ("scheduler", last, "timm")
    if last in LEGACY_HF_WARMUPS and (root in ("pytorch_transformers", "transformers")
                                      or len(parts) == 1):
        return ("scheduler", last, "hf")
    if last in HF_WARMUP_BUILDERS:
        if last == "get_scheduler" and root not in ("transformers", "diffusers"):
            return None
        return ("scheduler", last, "hf")
    if last in SCALER_CLASSES and (root == "torch" or len(parts) == 1 or parts == ["amp", last]):
        # a bare `GradScaler` or `amp.GradScaler` whose name was bound nowhere lrdoctor can
        # see (a notebook cell saved as a file, its imports in another cell): torch.amp and
        # torch.cuda.amp both hold the GradScaler, so it is one either way (which of the two,
        # LRD101's question, stays unknown)
        return ("scaler", last, "torch")
    if last in OPTIMIZER_CLASSES and not qualname.startswith("torch.optim.lr_scheduler"):
        return ("optimizer", last, "torch" if root == "torch" else "")
    if last in OPTIMIZER_BUILDERS:
        return ("optimizer", last, "")
    if last in LOADER_CLASSES or last in LOADER_BUILDERS:
        return ("loader", last, "torch" if root == "torch" else "")
    return None


# -- units of a horizon expression ---------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# the lowercased names of the scheduler classes whose name holds a unit word ("step" in StepLR
# and MultiStepLR), and "multistep", the schedule's usual name in settings
# (`--lr_scheduler multistep`), longest first so that "multisteplr" is read whole
_CLASS_SPELLED = re.compile("|".join(sorted(
    {*(re.escape(name.lower()) for name in SCHEDULERS if "step" in name.lower()), "multistep"},
    key=len, reverse=True)))
_BATCH_WORDS = ("step", "iter", "batch", "update", "num_training", "sample", "len")


# `epoch_steps`, `iters_epoch`, `epoch_len`: how many batches one epoch has (plural or a
# length: a singular `epoch_step` may well be "every N epochs")
EPOCH_COUNT = re.compile(
    r"epoch_?(steps|iters|iterations|batches|len|length)$|^(steps|iters|batches)_?(in_)?epoch$")


# `epos`, `n_epos`, `max_epo`: "epo", an abbreviation of epoch, as the whole name
_EPOCH_ABBREVIATED = re.compile(r"^(n_?|num_?|max_?|total_?)?epos?$")


def unit_of_word(word: str) -> str:
    """``batch`` / ``epoch`` / ``""`` for one identifier: ``steps_per_epoch`` counts batches,
    ``num_epochs`` counts epochs, ``T_max`` says nothing. A scheduler's class spelled inside
    the name (``MULTISTEPLR_MILESTONES_DEFAULT``, ``steplr_gamma``) names the class, not a
    unit: its "step" is not a batch."""
    w = _CLASS_SPELLED.sub("_", word.lower())
    if "per_epoch" in w or "perepoch" in w or EPOCH_COUNT.search(w):
        return "batch"
    if "epoch" in w or w in ("ep", "eps_total", "n_ep") or _EPOCH_ABBREVIATED.match(w):
        return "epoch" if w != "eps_total" else ""
    if any(b in w for b in _BATCH_WORDS):
        return "batch"
    return ""


def words(text: str) -> list[str]:
    return _IDENT.findall(text)


# (the short words stand alone between letters, not between underscores: `val_map`,
# `mean_iou`, `val_r2`, `val_cer` say them; `heatmap`, `cancer` do not)
# (a count or share of correct predictions is one too: `correct / total`, `n_correct`; not
# `incorrect`, nor `corrected` / `correction`)
ACC_WORDS = re.compile(
    r"acc|accuracy|top1|top5|f1|auc|bleu|rouge|(?<![a-z])map(?![a-z])|miou|(?<![a-z])iou(?![a-z])"
    r"|dice|precision|recall|(?<![a-z0-9])r2(?![a-z0-9])|psnr|ssim|(?<!in)correct(?!ed|ion)"
)
LOSS_WORDS = re.compile(r"loss|err|error|perplexity|ppl|wer|(?<![a-z])cer(?![a-z])|mse|mae|rmse|nll")
# "vali" is the Time-Series-Library family's spelling (`vali_loss`, `vali_loader`, `self.vali`)
VALIDATION_WORDS = re.compile(r"(^|_)(val|vali|valid|validation|eval|evaluation|test|dev)(_|$|\d)")
