"""A tenth batch of held-out-style programs for issue 25, written the way library authors write
them rather than as this project's examples: numbers read from data through a helper returning a
tuple (unpacked or indexed), a property over a buffer, a class attribute as the threshold, a
`@staticmethod` / `@classmethod` / lambda attribute doing the read, a read kept on `self` by a
method, `int()` / `float()` / `bool()` / `.item()` / `.tolist()` / `round()` / `max()` / `min()` /
`sum()` in several orders; loops building lists then `torch.stack` / `torch.cat`; data-dependent
split, interpolate, repeat, arange, topk and zeros sizes; masked and `nonzero` selections feeding
shapes; an `assert` and a `raise` on data; strict-only failures (`copy.copy` of a dict,
`datetime.now()`) and their look-alikes (`logging`, `warnings.warn`, `lru_cache`, `inspect`,
`os.environ`, a counter on `self`).

Measured on torch 2.13.0, some of them surprising:
- `.item()` (no `int()`) as a `repeat_interleave`, `expand` or `new_zeros` size, `.tolist()` of an
  input as `F.interpolate`'s `size`, `max()` or `sum()` of an input's `.tolist()` as a size, and a
  buffer's `.tolist()` unpacked into `view` sizes export in both modes (unbacked sizes, checked at
  run time); `int(t.max())` as a `repeat` or `arange` size, `max(read, 1e-6)` and `min(int(k), n)`
  as a `topk` size fail non-strict only.
- `x.detach().numpy()` in `forward` fails non-strict (RuntimeError) and exports strict;
  `copy.copy(self.cfg)` and `datetime.datetime.now()` fail strict only (Unsupported); `logging`,
  `warnings.warn`, an `lru_cache`d method, `inspect.signature`, `os.environ.get`, `self.calls += 1`
  and a `.tolist()` returned as an output export in both modes.
- `assert x.min().item() > -100` fails non-strict and exports strict (dynamo turns the assert
  into a runtime check).
- a property returning a buffer's `.item()` and tested fails both modes: buffers are lifted to
  inputs, so their data is unknown at export time like an input's.

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside
it (the exception type, or None where it exports). The tests check that torch still says so, that
xport-lint reports an error exactly on the failing ones (but for `KNOWN_MISSES`, each with why),
and that every fix offered on a program failing non-strict export proves out.

The batch was written, and measured, before any change it prompted. Before (the engine of
54de748), 56 programs:
    non-strict: 25/28 failing programs with an error, 0/28 exporting programs with one
    strict:     21/23 failing programs with an error, 0/33 exporting programs with one
    the misses (both modes): a property returning a buffer's `.item()`, tested; a read kept on
    `self` by a method (`self._observe(x)`) and tested in `forward`; (non-strict) an `assert` on a
    read
    fixes (non-strict, `prove_snippet`): 9 proven, 15 no fix, 1 failed (the `torch.cond` fix of
    `if self.count(x) > 3:`, `count` a lambda attribute doing `int((t > 0).sum())`: the fixed
    program still fails export), 3 missed: 9/28 (32 %)
After the changes it prompted (the tests below keep these):
    non-strict: 27/28 failing programs with an error, 0/28 exporting programs with one
    strict:     22/23 failing programs with an error, 0/33 exporting programs with one
    the miss left (both modes): a read kept on `self` by a method and tested in `forward`
    fixes (non-strict): 12 proven, 15 no fix (`NO_FIX`, each with why), 0 failed, 1 missed: 12/28 (43 %)
    what changed, each a fact rather than a spelling (tests/rules/test_reads_through_the_class_and_asserts.py):
    a lambda kept on `self` in `__init__` is what it computes, so `self.count(x)` is the number
    `int()` reads (XPT104 and its `torch.cond` fix on the tensor; was XPT101 with a fix testing the
    number, which failed); a one-line `@property` is what it returns (`self.temp` of `return
    self.temperature.item()`: a buffer's data is unknown at export, like an input's); an `assert`
    with a message on a read number is an error in non-strict export, fixed as `torch._check(test)`
    (measured: with no message non-strict export turns the assert into a runtime check and exports)
Later, with batch 11 (tests/truth/test_pattern_cases_11.py): 28/28 non-strict, 23/23 strict, 0 false
errors; fixes 14/28 (the read kept on `self` by a method, and the tuple a method returns, proven).
Later, with batch 12: fixes 15/28 (a helper's tuple bound whole and read by index, `stats[1]`, proven).
Later, with batch 15: fixes 16/28 (a classmethod not reading `cls` is written at the call as a staticmethod
is: classmethod-flag-negated proven, tests/rules/test_classmethods_as_static.py).
Later, with batch 26: fixes 17/28 (`max(v.item(), eps)` met only by tensor arithmetic is a `clamp`:
max-of-a-read-and-an-epsilon proven).
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module, large_with_near_misses
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("import copy\nimport datetime\nimport functools\nimport inspect\nimport os\nimport warnings",
              exporting_last_module)
case = CASES.case


# -- numbers read from data, through helpers, tuple unpacking, properties, class attributes --------

case("range-of-a-tuple-helper-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Spread(nn.Module):
    def _range(self, x):
        return x.min().item(), x.max().item()

    def forward(self, x):
        lo, hi = self._range(x)
        if hi - lo > 1.0:
            x = (x - lo) / (hi - lo)
        return x
""")

case("stats-helper-returned-as-a-tuple-then-indexed", 'GuardOnDataDependentSymNode', 'UserError', """
def _stats(t):
    mean = t.mean().item()
    std = t.std().item()
    return mean, std


class Standardise(nn.Module):
    def forward(self, x):
        stats = _stats(x)
        if stats[1] < 1e-6:
            return x - stats[0]
        return (x - stats[0]) / stats[1]
""")

case("property-reading-a-buffer-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Tempered(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("temperature", torch.tensor(2.0))

    @property
    def temp(self):
        return self.temperature.item()

    def forward(self, x):
        if self.temp > 1.0:
            return x / self.temp
        return x
""")

case("class-attribute-threshold-against-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class Sparsify(nn.Module):
    MIN_DENSITY = 0.1

    def forward(self, x):
        density = (x != 0).float().mean().item()
        if density < self.MIN_DENSITY:
            return torch.zeros_like(x)
        return x
""")

case("staticmethod-count-as-a-zeros-size", 'GuardOnDataDependentSymNode', None, """
class Slots(nn.Module):
    @staticmethod
    def _count(mask):
        return int(mask.sum())

    def forward(self, x):
        n = self._count(x > 0)
        return x.sum() + torch.zeros(n, 4).sum()
""")

case("classmethod-flag-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class Guarded(nn.Module):
    @classmethod
    def _has_nan(cls, t):
        return bool(torch.isnan(t).any())

    def forward(self, x):
        if not self._has_nan(x):
            return x * 2
        return torch.nan_to_num(x)
""")

case("float-of-an-item-as-a-branch", 'GuardOnDataDependentSymNode', 'UserError', """
class Norm(nn.Module):
    def forward(self, x):
        peak = float(x.abs().max().item())
        return x / peak if peak > 0 else x
""")

case("int-of-argmax-indexing-a-python-list", 'GuardOnDataDependentSymNode', 'UserError', """
class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)])

    def forward(self, x):
        which = int(x.sum(0).argmax())
        return self.heads[which](x)
""")

case("tolist-elements-compared-in-a-loop", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Clamp(nn.Module):
    def forward(self, x):
        for i, v in enumerate(x.max(dim=1).values.tolist()):
            if v > 1.0:
                x[i] = x[i] / v
        return x
""")

case("bool-of-an-item-of-any", 'GuardOnDataDependentSymNode', 'UserError', """
class Fill(nn.Module):
    def forward(self, x):
        has_neg = bool((x < 0).any().item())
        if has_neg:
            x = x.clamp(min=0)
        return x
""")

case("item-kept-on-self-in-a-method-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Tracker(nn.Module):
    def _observe(self, x):
        self.last_peak = x.max().item()

    def forward(self, x):
        self._observe(x)
        if self.last_peak > 2.0:
            return x * 0.5
        return x
""")

# -- loops building lists, then torch.stack / cat --------------------------------------------------

case("stack-over-a-loop-counted-by-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class Unroll(nn.Module):
    def forward(self, x, steps):
        outs = []
        for _ in range(int(steps.item())):
            x = x.tanh()
            outs.append(x)
        return torch.stack(outs)

def xport_example():
    return Unroll(), (torch.randn(2, 3), torch.tensor(3))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(2))]
""")

case("stack-over-rows-by-the-static-size", None, None, """
class PerRow(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        rows = []
        for i in range(x.shape[0]):
            rows.append(self.proj(x[i]))
        return torch.stack(rows, dim=0)
""")

case("cat-of-pieces-while-a-read-remains", 'GuardOnDataDependentSymNode', 'UserError', """
class Accumulate(nn.Module):
    def forward(self, x):
        pieces = []
        total = 0.0
        while total < 3.0:
            pieces.append(x)
            total += x.abs().mean().item() + 0.5
        return torch.cat(pieces, dim=0)
""")

# -- data-dependent split / interpolate / repeat sizes ------------------------------------------

case("split-size-read-through-a-helper", 'GuardOnDataDependentSymNode', 'UserError', """
def _chunk_len(t):
    return max(1, int(t.abs().sum().item()) % 3 + 1)


class Chunker(nn.Module):
    def forward(self, x):
        parts = x.split(_chunk_len(x), dim=1)
        return torch.cat([p * 2 for p in parts], dim=1)
""")

case("interpolate-size-from-a-tolist", None, None, """
class Resize(nn.Module):
    def forward(self, x, size):
        h, w = size.tolist()
        return F.interpolate(x, size=(h, w), mode="nearest")

def xport_example():
    return Resize(), (torch.randn(1, 2, 4, 4), torch.tensor([8, 8]))

def xport_inputs():
    return [(torch.randn(1, 2, 4, 4), torch.tensor([8, 8]))]
""")

case("repeat-count-from-an-int-of-a-max", 'GuardOnDataDependentSymNode', None, """
class Tile(nn.Module):
    def forward(self, x, reps):
        r = int(reps.max())
        return x.repeat(r, 1)

def xport_example():
    return Tile(), (torch.randn(2, 3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([3, 1]))]
""")

case("repeat-interleave-by-an-item", None, None, """
class Upsample(nn.Module):
    def forward(self, x, factor):
        return x.repeat_interleave(factor.item(), dim=0)

def xport_example():
    return Upsample(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("expand-to-a-read-length-then-added", None, None, """
class Broadcast(nn.Module):
    def forward(self, x, n):
        length = n.item()
        return x.sum(0, keepdim=True).expand(length, -1) + x[:1]

def xport_example():
    return Broadcast(), (torch.randn(2, 3), torch.tensor(4))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(5))]
""")

# -- nonzero / masked selections feeding shapes ---------------------------------------------------

case("nonzero-count-as-a-view-size", None, None, """
class Picked(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x.flatten() > 0).squeeze(1)
        n = idx.shape[0]
        return x.flatten()[idx].view(n, 1) * 2
""")

case("masked-rows-counted-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Keep(nn.Module):
    def forward(self, x):
        kept = x[x.sum(dim=1) > 0]
        if len(kept) == 0:
            return x.new_zeros(1, x.shape[1])
        return kept
""")

case("masked-rows-reduced", None, None, """
class KeepMean(nn.Module):
    def forward(self, x):
        kept = x[x.sum(dim=1) > 0]
        return x + kept.sum(dim=0, keepdim=True)
""")

case("nonzero-rows-reshaped-by-the-static-width", None, None, """
class Rows(nn.Module):
    def forward(self, x):
        rows = x[torch.nonzero(x[:, 0] > 0).squeeze(1)]
        return rows.reshape(-1, x.shape[1]).sum(0)
""")

# -- near misses that export ------------------------------------------------------------------------

case("shape-branch-through-a-property", None, None, """
class Squeeze(nn.Module):
    @property
    def width(self):
        return 3

    def forward(self, x):
        if x.shape[-1] == self.width:
            return x * 2
        return x
""")

case("item-only-in-arithmetic-via-a-helper", None, None, """
def _scale_of(t):
    return t.abs().mean().item()


class Rescale(nn.Module):
    def forward(self, x):
        return x * _scale_of(x) + 1
""")

case("python-float-attribute-through-float", None, None, """
class Scaled(nn.Module):
    def __init__(self, scale=0.5):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * float(self.scale)
""")

case("int-of-a-static-shape-sqrt", None, None, """
class Patch(nn.Module):
    def forward(self, x):
        side = int(x.shape[-1] ** 0.5) + 1
        return x[:, :side] * 2
""")

case("three-argument-where-instead-of-a-branch", None, None, """
class Relu(nn.Module):
    def forward(self, x):
        return torch.where(x.mean() > 0, x, -x)
""")

case("tuple-of-shapes-from-a-staticmethod", None, None, """
class Flatten(nn.Module):
    @staticmethod
    def _dims(t):
        return t.shape[0], t.shape[1]

    def forward(self, x):
        b, c = self._dims(x)
        return x.reshape(b * c)
""")

case("classattr-list-of-sizes-in-a-loop", None, None, """
class Multi(nn.Module):
    SIZES = (1, 2)

    def forward(self, x):
        outs = [x[:, :s].sum(1) for s in self.SIZES]
        return torch.stack(outs, dim=1)
""")

# -- strict-only failures and look-alikes -------------------------------------------------------------

case("logging-of-a-formatted-shape", None, None, """
import logging

log = logging.getLogger(__name__)


class Logged(nn.Module):
    def forward(self, x):
        log.debug("shape %s", tuple(x.shape))
        return x + 1
""")

case("warnings-warn-in-forward", None, None, """
class Warned(nn.Module):
    def forward(self, x):
        if x.shape[0] > 1:
            warnings.warn("batch larger than one")
        return x + 1
""")

case("lru-cached-helper-method", None, None, """
class Cached(nn.Module):
    @functools.lru_cache(maxsize=None)
    def _coeffs(self, n):
        return [1.0 / (i + 1) for i in range(n)]

    def forward(self, x):
        c = self._coeffs(x.shape[1])
        return x * torch.tensor(c)
""")

case("inspect-signature-in-forward", None, None, """
class Introspect(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        if "bias" in inspect.signature(self.lin.forward).parameters:
            return x
        return self.lin(x)
""")

case("copy-of-a-dict-config-in-forward", None, 'Unsupported', """
class Configured(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = {"scale": 2.0}

    def forward(self, x):
        cfg = copy.copy(self.cfg)
        cfg["scale"] *= 0.5
        return x * cfg["scale"]
""")

case("numpy-of-a-tensor-in-forward", 'RuntimeError', None, """
class ToNumpy(nn.Module):
    def forward(self, x):
        arr = x.detach().numpy()
        return x + float(arr.mean())
""")

case("datetime-now-in-forward", None, 'Unsupported', """
class Stamped(nn.Module):
    def forward(self, x):
        hour = datetime.datetime.now().hour
        return x * (1 if hour >= 0 else 2)
""")

case("count-and-rows-returned-by-a-helper-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Select(nn.Module):
    def _select(self, x):
        mask = x.sum(dim=1) > 0
        return int(mask.sum()), x * mask.unsqueeze(1)

    def forward(self, x):
        count, picked = self._select(x)
        if count == 0:
            return x
        return picked / count
""")

case("max-of-a-read-and-an-epsilon", 'GuardOnDataDependentSymNode', None, """
class SafeDiv(nn.Module):
    def forward(self, x):
        denom = max(x.abs().max().item(), 1e-6)
        return x / denom
""")

case("round-of-a-read-as-a-range", 'GuardOnDataDependentSymNode', 'UserError', """
class Iterate(nn.Module):
    def forward(self, x):
        steps = round(x.abs().mean().item() * 2) + 1
        for _ in range(steps):
            x = x * 0.9
        return x
""")

case("arange-to-an-int-of-a-max", 'GuardOnDataDependentSymNode', None, """
class Positions(nn.Module):
    def forward(self, x, lengths):
        pos = torch.arange(int(lengths.max()))
        return x.sum() + pos.float().sum()

def xport_example():
    return Positions(), (torch.randn(2, 3), torch.tensor([2, 3]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([4, 1]))]
""")

case("max-of-a-tolist-of-lengths-as-a-pad-size", None, None, """
class Pad(nn.Module):
    def forward(self, x, lengths):
        max_len = max(lengths.tolist())
        out = x.new_zeros(x.shape[0], max_len)
        return out.sum() + x.sum()

def xport_example():
    return Pad(), (torch.randn(2, 3), torch.tensor([2, 3]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([4, 1]))]
""")

case("assert-on-a-read-minimum", 'GuardOnDataDependentSymNode', None, """
class Positive(nn.Module):
    def forward(self, x):
        assert x.min().item() > -100, "input out of range"
        return x.exp()
""")

case("raise-when-any-nan", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Checked(nn.Module):
    def forward(self, x):
        if torch.isnan(x).any():
            raise ValueError("NaN in input")
        return x * 2
""")

case("topk-k-read-from-a-tensor-then-clipped", 'GuardOnDataDependentSymNode', None, """
class TopK(nn.Module):
    def forward(self, x, k):
        kk = min(int(k), x.shape[1])
        return x.topk(kk, dim=1).values.sum(1)

def xport_example():
    return TopK(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("sum-of-a-tolist-as-a-zeros-size", None, None, """
class Total(nn.Module):
    def forward(self, x, counts):
        n = sum(counts.tolist())
        return torch.zeros(n, 3).sum() + x

def xport_example():
    return Total(), (torch.randn(2, 3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 2]))]
""")

case("counter-on-self-incremented", None, None, """
class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x + 1
""")

case("environment-flag-read-in-forward", None, None, """
class Debuggable(nn.Module):
    def forward(self, x):
        if os.environ.get("MODEL_DEBUG") == "1":
            return x * 0
        return x + 1
""")

case("tolist-returned-as-output", None, None, """
class Scores(nn.Module):
    def forward(self, x):
        return x.softmax(-1), x.argmax(-1).tolist()
""")

case("scale-factor-from-a-float-of-a-buffer", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Upscale(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("factor", torch.tensor(2.0))

    def forward(self, x):
        return F.interpolate(x, scale_factor=float(self.factor), mode="nearest")

def xport_example():
    return Upscale(), (torch.randn(1, 2, 4),)

def xport_inputs():
    return [(torch.randn(1, 2, 4),)]
""")

case("buffer-tolist-unpacked-for-a-view", None, None, """
class Unflatten(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("grid", torch.tensor([3, 1]))

    def forward(self, x):
        h, w = self.grid.tolist()
        return x.view(x.shape[0], h, w)
""")

case("mask-count-through-a-lambda-attribute", 'GuardOnDataDependentSymNode', 'UserError', """
class Lambda(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = lambda t: int((t > 0).sum())

    def forward(self, x):
        if self.count(x) > 3:
            return x * 2
        return x
""")

case("while-a-norm-read-through-a-helper", 'GuardOnDataDependentSymNode', 'UserError', """
def _too_big(t, limit=1.0):
    return t.norm().item() > limit


class Shrink(nn.Module):
    def forward(self, x):
        while _too_big(x):
            x = x / 2
        return x
""")

case("item-of-a-sum-compared-as-a-python-int-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class Choose(nn.Module):
    def forward(self, x):
        hits = (x > 0).sum().item()
        return x * 2 if hits >= 3 else x - 1
""")

case("buffer-read-used-only-in-arithmetic", None, None, """
class Bias(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("offset", torch.tensor(0.5))

    def forward(self, x):
        return x + self.offset.item()
""")

case("static-len-of-a-module-list-as-a-range", None, None, """
class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])

    def forward(self, x):
        outs = []
        for i in range(len(self.layers)):
            x = self.layers[i](x)
            outs.append(x)
        return torch.stack(outs).sum(0)
""")


#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_A_HELPER_TUPLE = "the test reads an element of a helper's returned tuple: the rewrite follows no tuple element back to a tensor"
_A_LOOP_AS_LONG_AS_THE_DATA = "a loop as long as the data says"

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "count-and-rows-returned-by-a-helper-then-tested": _A_HELPER_TUPLE,
    "while-a-norm-read-through-a-helper": "the `while` test calls a helper comparing a read",
    "tolist-elements-compared-in-a-loop": "a per-element branch over `.tolist()` in a loop writing rows in place",
    "stack-over-a-loop-counted-by-a-read": _A_LOOP_AS_LONG_AS_THE_DATA + " (the stacked size is the count)",
    "cat-of-pieces-while-a-read-remains": _A_LOOP_AS_LONG_AS_THE_DATA + " (the number of pieces)",
    "round-of-a-read-as-a-range": _A_LOOP_AS_LONG_AS_THE_DATA,
    "split-size-read-through-a-helper": "the number of pieces is the data",
    "numpy-of-a-tensor-in-forward": "numpy ops have no one rewrite",
    "topk-k-read-from-a-tensor-then-clipped": "the output size is the data",
    "scale-factor-from-a-float-of-a-buffer": "the resampling kernel needs a concrete float in both modes",
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 30, 3, (Mode.NON_STRICT, Mode.STRICT))


BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
