"""XPT406 tells state a later call reads (a warning: the exported program never updates it) from
scratch state this call sets and reads back (info: the program computes what eager does),
however the reading is spelled: in the writing function, in a method it calls after the write,
in a method such a method calls, or in a method that writes the attribute itself before reading
it. Each module is exported on torch 2.13 in both modes and compared with eager on a second
input, so the severity's claim is measured, not assumed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

#: (module source, the attribute, whether the next call reads what this one left)
MODULES = {
    "read-by-a-helper-called-after-the-write": ("""
class Model(torch.nn.Module):
    def forward(self, x):
        self.width = x.shape[-1]
        self.cache = x * 2
        return self.combine(x)

    def combine(self, x):
        return x + self.cache * self.width
""", "cache", False),
    "read-two-helpers-down": ("""
class Model(torch.nn.Module):
    def forward(self, x):
        self.cache = x * 2
        return self._forward(x)

    def _forward(self, x):
        return self.combine(x) + 1

    def combine(self, x):
        return x + self.cache
""", "cache", False),
    "written-first-by-the-reading-method": ("""
class Model(torch.nn.Module):
    def forward(self, x):
        self.count = x.shape[0]
        return self.again(x) if self.count > 1 else x

    def again(self, x):
        self.count = x.shape[0] + 1
        return x * self.count
""", "count", False),
    "read-by-a-helper-before-the-write": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(3, 2)

    def forward(self, x):
        y = self.combine(x)
        self.cache = x * 2
        return y

    def combine(self, x):
        return x + self.cache
""", "cache", True),
    "read-by-a-method-the-next-call-runs-first": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.previous = None

    def forward(self, x):
        y = self.blend(x)
        self.previous = x
        return y

    def blend(self, x):
        return x if self.previous is None else (x + self.previous) / 2
""", "previous", True),
    "set-by-a-helper-the-caller-runs-first": ("""
class Model(torch.nn.Module):
    def forward(self, x):
        y = self.prepare(x)
        return self.step(y) + self.offset

    def prepare(self, x):
        self.offset = x * 2
        return x + 1

    def step(self, y):
        return y * self.offset
""", "offset", False),
    "set-by-a-helper-through-tuple-unpacking": ("""
class Model(torch.nn.Module):
    def forward(self, x):
        y, z = self.prepare(x)
        return self.combine(y) * z

    def combine(self, y):
        return y + self.scale

    def prepare(self, x):
        self.scale = x.abs() + 1
        return x - 1, x + 1
""", "scale", False),
    "set-by-a-helper-after-an-early-return": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = torch.zeros(3, 2)

    def forward(self, x):
        self.prepare(x, x.shape[0] > 5)
        return x + self.offset

    def prepare(self, x, skip: bool):
        if skip:
            return
        self.offset = self.offset + x
""", "offset", True),
    "rewritten-from-its-own-fresh-value": ("""
class Model(torch.nn.Module):
    def forward(self, x):
        self.steps = x.shape[0] * 2
        self.steps = self.limit(self.steps)
        return x * self.steps

    def limit(self, steps):
        return min(steps, 4)
""", "steps", False),
    "read-then-cleared-by-the-caller": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._alpha = None

    def forward(self, x):
        out = self.propagate(x)
        alpha = self._alpha
        assert alpha is not None
        self._alpha = None
        return out * alpha

    def propagate(self, x):
        return self.message(x)

    def message(self, x):
        self._alpha = x.sigmoid()
        return x + 1
""", "_alpha", False),
    "read-and-cleared-before-the-write": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pending = torch.zeros(3, 2)

    def forward(self, x):
        previous = self.pending
        self.pending = None
        out = self.propagate(x)
        return out * previous

    def propagate(self, x):
        return self.message(x)

    def message(self, x):
        self.pending = x.sigmoid()
        return x + 1
""", "pending", True),
    "read-and-kept-by-the-caller": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = torch.zeros(3, 2)

    def forward(self, x):
        previous = self.seen
        out = self.propagate(x)
        return out * previous

    def propagate(self, x):
        return self.message(x)

    def message(self, x):
        self.seen = x.sigmoid()
        return x + 1
""", "seen", True),
    "a-table-rebuilt-when-its-size-key-changes": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("inv_freq", torch.tensor([1.0, 0.5]))
        self._seq_len_cached = None
        self._cos_cached = None

    def _update_tables(self, x, seq_dimension=0):
        seq_len = x.shape[seq_dimension]
        if seq_len != self._seq_len_cached:
            self._seq_len_cached = seq_len
            t = torch.arange(x.shape[seq_dimension], device=x.device).type_as(self.inv_freq)
            freqs = torch.einsum("i,j->ij", t, self.inv_freq)
            self._cos_cached = freqs.cos()
        return self._cos_cached, self._seq_len_cached

    def forward(self, x):
        self._cos_cached, n = self._update_tables(x)
        return x * self._cos_cached + n
""", "_cos_cached", False),
    "a-table-keyed-by-shape-or-unset": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.anchors = None
        self.previous_shape = None

    def forward(self, x):
        if self.anchors is None or self.previous_shape != x.shape:
            steps = torch.arange(x.shape[-1]).float()
            self.anchors = steps * 2
            self.previous_shape = x.shape
        return x + self.anchors
""", "anchors", False),
    "a-table-of-the-input-values-under-a-size-key": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.width = None
        self.table = None

    def forward(self, x):
        if x.shape[-1] != self.width:
            self.width = x.shape[-1]
            self.table = x.mean(0)
        return self.combine(x)

    def combine(self, x):
        return x + self.table
""", "table", True),
    # speechbrain's `_ensure_stft_setup`: a setup method returns first once a flag it sets last is
    # set, and builds what it keeps from sizes and settings only
    "set-up-once-behind-a-ready-flag": ("""
class Model(torch.nn.Module):
    def _setup(self):
        if getattr(self, "_ready", False):
            return
        self.window = torch.hann_window(2)
        self._ready = True

    def forward(self, x):
        self._setup()
        return x * self.window
""", "window", False),
    "set-up-once-behind-self-flag-from-the-input-sizes": ("""
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ready = False

    def forward(self, x):
        if self.ready:
            return x * self.scale
        self.scale = torch.ones(x.shape[-1]) * 3
        self.ready = True
        return x * self.scale
""", "scale", False),
    # read by the class's override of a method its base (in the file) calls, after the write
    # (Ultralytics' pose assigner: `self.anc_strides = ...; return super().forward(...)`)
    "read-by-an-override-super-forward-reaches": ("""
class Assigner(torch.nn.Module):
    def forward(self, x):
        return self._forward(x) + 1

    def _forward(self, x):
        return self.select(x)

    def select(self, x):
        return x


class Model(Assigner):
    def forward(self, x):
        self.strides = x * 2
        return super().forward(x)

    def select(self, x):
        return x + self.strides
""", "strides", False),
    "read-by-an-override-an-inherited-method-calls": ("""
class Runner(torch.nn.Module):
    def run(self, x):
        return self.combine(x) * 3

    def combine(self, x):
        return x


class Model(Runner):
    def forward(self, x):
        self.cache = x.sin()
        return self.run(x)

    def combine(self, x):
        return x - self.cache
""", "cache", False),
    "read-by-an-override-super-forward-reaches-before-the-write": ("""
class Assigner(torch.nn.Module):
    def forward(self, x):
        return self.select(x)

    def select(self, x):
        return x


class Model(Assigner):
    def __init__(self):
        super().__init__()
        self.strides = torch.zeros(3, 2)

    def forward(self, x):
        y = super().forward(x)
        self.strides = x * 2
        return y

    def select(self, x):
        return x + self.strides
""", "strides", True),
    # counter-spellings: the kept value is the first input's, or the flag is never set
    "set-up-once-from-the-input-values": ("""
class Model(torch.nn.Module):
    def _setup(self, x):
        if getattr(self, "_ready", False):
            return
        self.window = x.mean(0)
        self._ready = True

    def forward(self, x):
        self._setup(x)
        return x + self.window
""", "window", True),
}


@pytest.mark.parametrize("name", MODULES)
def test_severity_says_whether_the_next_call_reads_the_state(name: str, tmp_path: Path) -> None:
    source, attribute, read_by_next_call = MODULES[name]
    program = "import torch\n" + textwrap.dedent(source)
    # a reset to a fresh value (`self.x = None`) is info on its own: the writes of values are judged
    found = [f for f in check_source(program, "model.py", Config()) if f.code == "XPT406"
             and f.message.startswith(f"`self.{attribute}`") and "is reset at export time" not in f.message]
    assert found, "XPT406 reports the write"
    expected = Severity.WARNING if read_by_next_call else Severity.INFO
    assert {f.severity for f in found} == {expected}, [f.message for f in found]

    for strict in (False, True):
        module = load(program, tmp_path)
        first, second = torch.randn(3, 2), torch.randn(3, 2)
        # a module of its own for eager: a non-strict export leaves trace-time values in what it sets
        exported = torch.export.export(module.Model(), (first,), strict=strict).module()
        eager = module.Model()
        eager(first)  # eager's state after the export's call
        assert torch.allclose(exported(second), eager(second)) != read_by_next_call, strict


GLOBALS = """
import torch

_scale = None
_calls = 0


def _pick():
    global _scale
    if _scale is None:
        _scale = 2.0
    return _scale


class Scaled(torch.nn.Module):
    def forward(self, x):
        return x * _pick()


class Counted(torch.nn.Module):
    def forward(self, x):
        global _calls
        _calls = _calls + 1
        return x + _calls
"""


def test_a_global_chosen_once_under_is_none_is_info_and_a_counter_a_warning(tmp_path: Path) -> None:
    """A global set on the first call under `if _g is None:` from no tensor's values (a solver, a
    scale): every later call reuses it, in eager as in the program. A global counter changes
    on each eager call and never in the program."""
    found = {f.message.split("`")[1]: f.severity for f in check_source(GLOBALS, "model.py", Config())
             if f.code == "XPT406"}
    assert found == {"_scale": Severity.INFO, "_calls": Severity.WARNING}
    for strict in (False, True):
        module, x = load(GLOBALS, tmp_path), torch.randn(3)
        for name, equal in (("Scaled", True), ("Counted", False)):
            eager = getattr(module, name)()
            exported = torch.export.export(eager, (x,), strict=strict).module()
            eager(x)
            assert torch.allclose(exported(x), eager(x)) == equal, (name, strict)
