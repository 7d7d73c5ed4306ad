"""State a module rebuilds from sizes when the input outgrows it (sinusoidal position tables of
speech and translation models, relative-position tables of conformers): the exported program
computes what eager reads from the table, whether the table was long enough at export or not, so
XPT406 says so as info. State made from the input's values, or an exact-size cache rebuilt
whenever the size changes, stays a warning. Each claim checked statically and with real torch
2.13, the table a submodule's, as in the models."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

HEAD = """
import torch
from torch import nn
"""
OUTER = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Table()
    def forward(self, x):
        return self.inner(x) * 2
"""
#: tables rebuilt only when too short, from sizes: the program equals eager
REBUILT = {
    # m2m_100 / speech_to_text: a helper of Python numbers, called under the size test
    "helper-of-numbers": """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.make_weights(4, 8)
    def make_weights(self, n: int, d: int):
        emb = torch.arange(n).float()[:, None] * torch.ones(d)
        self.weights = nn.Buffer(emb.sin(), persistent=False)
    def forward(self, ids):
        seq = ids.shape[1]
        if seq > self.weights.size(0):
            self.make_weights(seq, 8)
        return ids[..., None] * self.weights[:seq]
""",
    # trocr: the write itself under the size test
    "direct": """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = None
    def forward(self, ids):
        seq = ids.shape[1]
        if self.weights is None or seq > self.weights.size(0):
            self.weights = torch.arange(seq).float()[:, None].sin() * torch.ones(8)
        return ids[..., None] * self.weights[:seq]
""",
    # wav2vec2-bert / seamless_m4t: a method handed the table returns it while long enough
    "handed-back": """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.pe = nn.Buffer(self.extend_pe(torch.zeros(1, 3)), persistent=False)
    def extend_pe(self, x, pe=None):
        if pe is not None:
            if pe.size(1) >= x.size(1) * 2 - 1:
                if pe.dtype != x.dtype:
                    pe = pe.to(dtype=x.dtype)
                return pe
        pos = torch.arange(-(x.size(1) - 1), x.size(1)).float()
        return pos.sin()[None, :, None].to(dtype=x.dtype)
    def forward(self, h):
        self.pe = self.extend_pe(h, self.pe)
        mid = self.pe.size(1) // 2
        return h[..., None] + self.pe[:, mid - h.size(1) + 1 : mid + 1]
""",
}
#: state the rule keeps as a warning: made from the input's values, or rebuilt on any change of size
KEPT = {
    "made-from-data": """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = torch.zeros(1)
    def forward(self, x):
        if x.shape[1] > self.seen.shape[0]:
            self.seen = x[0].clone()
        return x + self.seen[: x.shape[1]]
""",
    "exact-size-cache": """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.rel = torch.zeros(1)
    def forward(self, x):
        if self.rel.shape[0] != x.shape[1]:
            self.rel = torch.arange(x.shape[1]).float()
        return x + self.rel
""",
}


def _xpt406(source: str, strict: bool) -> list[Severity]:
    return [f.severity for f in check_source(source, "model.py", Config(strict=strict)) if f.code == "XPT406"]


@pytest.mark.parametrize("name", sorted(REBUILT))
@pytest.mark.parametrize("length", [2, 6], ids=["long-enough-at-export", "outgrown-at-export"])
def test_a_table_rebuilt_when_outgrown_exports_what_eager_computes(name: str, length: int, tmp_path: Path) -> None:
    source = textwrap.dedent(HEAD + REBUILT[name] + OUTER)
    assert _xpt406(source, strict=False) == [Severity.INFO]
    model_class = load(source, tmp_path).Model
    program = torch.export.export(model_class().eval(), (torch.randn(2, length),), strict=False)
    eager = model_class().eval()
    eager(torch.randn(2, 7))  # eager grows its table on a longer call first
    x = torch.randn(2, length)
    assert torch.allclose(program.module()(x), eager(x))


@pytest.mark.parametrize("name", sorted(REBUILT))
def test_strict_export_of_a_rebuilt_table(name: str, tmp_path: Path) -> None:
    """Strict export refuses an `nn.Buffer` built in `forward` (measured on 2.13: `Unsupported
    python_type() call`): the helper that builds one stays a warning in strict mode."""
    source = textwrap.dedent(HEAD + REBUILT[name] + OUTER)
    builds_a_buffer = name == "helper-of-numbers"
    assert _xpt406(source, strict=True) == [Severity.WARNING if builds_a_buffer else Severity.INFO]
    model_class = load(source, tmp_path).Model
    if builds_a_buffer:
        with pytest.raises(Exception, match="python_type"):
            torch.export.export(model_class().eval(), (torch.randn(2, 6),), strict=True)
    else:
        program = torch.export.export(model_class().eval(), (torch.randn(2, 6),), strict=True)
        x = torch.randn(2, 6)
        assert torch.allclose(program.module()(x), model_class().eval()(x))


@pytest.mark.parametrize("name", sorted(KEPT))
def test_state_made_from_data_or_an_exact_size_cache_stays_a_warning(name: str) -> None:
    source = textwrap.dedent(HEAD + KEPT[name] + OUTER)
    assert _xpt406(source, strict=False) == [Severity.WARNING]


def test_a_table_moved_to_the_inputs_device_through_a_local_is_info() -> None:
    """gptj / codegen: `t = self.embed_positions; if t.device != ids.device: t = t.to(ids.device);
    self.embed_positions = t`: the attribute's own values, moved. A local changed otherwise is
    state."""
    source = textwrap.dedent(
        HEAD
        + """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_positions = torch.ones(4)
        self.last = torch.zeros(4)
    def forward(self, ids):
        table = self.embed_positions
        if table.device != ids.device:
            table = table.to(ids.device)
            self.embed_positions = table
        last = self.last
        last = last * 2
        self.last = last
        return ids * table + self.last
"""
    )
    found = {f.message.split("`")[1]: f.severity for f in check_source(source, "model.py") if f.code == "XPT406"}
    assert found == {"self.embed_positions": Severity.INFO, "self.last": Severity.WARNING}


def test_state_built_on_the_first_call_from_sizes_is_info(tmp_path: Path) -> None:
    """timm's `Conv2dSame`: `if self.pad is None: self.pad = nn.ZeroPad2d(<from sizes>)`, and
    a mask moved to the input's dtype (`self.mask.to(x.dtype) if self.mask is not None else
    None`): the program computes what eager does (measured on 2.13, non-strict). Built from the
    input's values under the same test (a causal cache), it is state the next call reads."""
    source = textwrap.dedent(
        HEAD
        + """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = None
        self.mask = torch.ones(4)
        self.first = None
    def forward(self, x):
        size = x.size()[-1:]
        if self.pad is None:
            self.pad = nn.ConstantPad1d((0, 4 - size[0] % 4), 0.0)
        self.mask = self.mask.to(dtype=x.dtype) if self.mask is not None else None
        if self.first is None:
            self.first = x
        return self.pad(x)[..., :4] * self.mask + self.first.sum()
"""
        + OUTER
    )
    found = {f.message.split("`")[1]: f.severity for f in check_source(source, "model.py") if f.code == "XPT406"}
    assert found == {"self.pad": Severity.INFO, "self.mask": Severity.INFO, "self.first": Severity.WARNING}
    model_class = load(source, tmp_path).Model
    program = torch.export.export(model_class().eval(), (torch.randn(2, 3),), strict=False)
    x = torch.randn(2, 3)
    assert torch.allclose(program.module()(x), model_class().eval()(x))
