"""LRD101 in every way code reaches `torch.cuda.amp`: module paths, `from` imports of the names
or of the module, aliases, a decorator, the autocast dtype keyword; and the spellings of the
new API, or of a guarded fallback to the old one, that must stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_DEPRECATED = {
    "full_path_scaler": """
import torch
scaler = torch.cuda.amp.GradScaler()
""",
    "full_path_autocast_with_dtype": """
import torch
with torch.cuda.amp.autocast(dtype=torch.bfloat16):
    pass
""",
    "import_of_the_submodule": """
import torch.cuda.amp
scaler = torch.cuda.amp.GradScaler(init_scale=2 ** 14)
""",
    "from_import_of_the_names": """
from torch.cuda.amp import GradScaler
scaler = GradScaler(enabled=True)
""",
    "from_import_of_autocast_under_an_alias": """
from torch.cuda.amp import autocast as amp_autocast
with amp_autocast(enabled=True):
    pass
""",
    "module_from_torch_cuda_under_an_alias": """
from torch.cuda import amp as cuda_amp
scaler = cuda_amp.GradScaler()
""",
    "decorator_on_forward": """
import torch

class Net(torch.nn.Module):
    @torch.cuda.amp.autocast()
    def forward(self, x):
        return x
""",
    "imported_name_used_as_decorator": """
import torch
from torch.cuda.amp import autocast

class Net(torch.nn.Module):
    @autocast()
    def forward(self, x):
        return x
""",
    "inside_a_method": """
import torch

class Trainer:
    def __init__(self, fp16):
        self.scaler = torch.cuda.amp.GradScaler(enabled=fp16)
""",
}


@pytest.mark.parametrize("spelling", sorted(_DEPRECATED))
def test_deprecated_cuda_amp_spelling_is_lrd101(spelling: str) -> None:
    found = codes(_DEPRECATED[spelling])
    assert found and set(found) == {"LRD101"}


_SILENT = {
    "torch_amp_scaler": """
import torch
scaler = torch.amp.GradScaler("cuda")
""",
    "torch_autocast": """
import torch
with torch.autocast(device_type="cuda", dtype=torch.float16):
    pass
""",
    "from_torch_amp_import": """
from torch.amp import GradScaler, autocast
scaler = GradScaler("cuda")
with autocast("cuda"):
    pass
""",
    "from_torch_import_amp": """
from torch import amp
scaler = amp.GradScaler("cuda")
""",
    "cpu_autocast_through_torch": """
import torch
with torch.autocast("cpu", dtype=torch.bfloat16):
    pass
""",
    "fallback_import_under_module_not_found": """
try:
    from torch.amp import GradScaler
except ModuleNotFoundError:
    from torch.cuda.amp import GradScaler
scaler = GradScaler("cuda")
""",
    "hasattr_capability_test": """
import torch
if hasattr(torch.amp, "GradScaler"):
    scaler = torch.amp.GradScaler("cuda")
else:
    scaler = torch.cuda.amp.GradScaler()
""",
    "a_string_that_mentions_it": """
HELP = "torch.cuda.amp.GradScaler is deprecated; use torch.amp.GradScaler"
""",
}


@pytest.mark.parametrize("spelling", sorted(_SILENT))
def test_new_amp_spelling_or_guarded_fallback_is_silent(spelling: str) -> None:
    assert codes(_SILENT[spelling]) == []
