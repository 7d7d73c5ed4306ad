'''A third batch of held-out-style programs for issue 25: values read from data (`.item()`,
`.tolist()`, `int()`/`float()`/`bool()` of tensors, `nonzero`, `torch.where` with one argument,
`unique`, `bincount`, `argmax` used as an index) reaching branches, loops, sizes (`view`, `narrow`,
`new_zeros`, `split`, `interpolate`, `repeat_interleave`, `arange`) and Python containers
(comprehensions over `.tolist()`, `zip`, `enumerate`, `max()`/`min()`/`sum()`), through names,
unpacking, helpers, `self.` attributes, `not`, ternaries, `and`/`or` chains, walrus, f-strings; and
programs that look the same but export: shape arithmetic, Python constants, values read only under
`torch.compiler.is_exporting()` guards or a switch that is off by default, and some spellings that
torch 2.13 traces although they read data (`interpolate(size=(h, w))` of `.tolist()` values,
`torch.arange` of a 0-dim tensor, `repeat_interleave` by an element of `.tolist()`).

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside
it (the exception type, or None where it exports). The tests check that torch still says so, that
xport-lint reports an error exactly on the failing ones (but for `KNOWN_MISSES`, each with why),
and that every fix offered on a program failing non-strict export proves out.

The batch was written, and measured, before any change it prompted. Before (the engine of
173488b, with other work in progress in the checkout):
    non-strict: 24/25 failing programs with an error, 1/22 exporting programs with one
    strict:     17/24 failing programs with an error, 1/23 exporting programs with one
                (both false errors: a branch on `.item()` under `if self.debug:`, `debug=False` the
                module's own `__init__` default)
    misses: a slice bounded by `min()` of `.tolist()` then a branch on its size (both modes);
    strict: a number read from data kept on `self` then tested, an f-string key into a
    `ModuleDict`, an `int()` of data indexing a Python list, `range(int(t))` inside `zip`, a
    0-dim index out of `nonzero(...)[0, 0]`, `.tolist()` of a float tensor of constants
    fixes (non-strict, `prove_snippet`): 9 proven, 11 no fix, 4 failed (a `torch.cond` rewrite of
    a test read through a helper with `not`, of a number kept on `self`, of a walrus in a `while`;
    a per-element rewrite of `zip(layers, gates.tolist())` calling `.tolist()` on a float tensor,
    which strict export refuses), 1 missed
After the changes it prompted (the tests below keep these):
    non-strict: 24/25 with an error, 0/22 exporting programs with one
    strict:     22/24 with an error, 0/23 exporting programs with one (the misses in
                `KNOWN_MISSES`, with why)
    fixes (non-strict): 12 proven, 12 no fix (`NO_FIX`, each with why), 0 failed, 1 missed
    what changed: a switch the module's own `__init__` defaults is judged as a configuration
    switch; a number read from data kept on `self` is read back as that number; `not` of what a
    helper's conversion becomes a tensor is `== 0`; a predicate still holding a Python number
    read from data, or a `while` test binding a name with `:=`, gets no rewrite (with why);
    `float()` tested later gets no `.item()` fix; `zip`/`enumerate` over a data count is a
    data-dependent loop; a Python list, or a `ModuleDict` key spelt from a read number, picked
    by data is XPT204; `nonzero(...)[0, 0]` as an index is a 0-dim read (strict); one-line
    methods (static or not) are read at the call; `ok = bool(t)` only asserted drops `bool()`.
'''

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from tests.truth.batches import CaseBatch, Cases, large_with_near_misses
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.project import check_project

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("""import math""")
case = CASES.case


# -- values read from data reaching branches ----------------------------------------------------

case("and-chain-on-a-static-size-then-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class Guarded(nn.Module):
    def forward(self, x):
        if x.numel() > 0 and x.max().item() > 1.0:
            x = x / x.max()
        return x

def xport_example():
    return Guarded(), (torch.randn(6) * 4,)

def xport_inputs():
    return [(torch.rand(6) * 0.5,)]
""")

case("or-chain-with-a-config-flag-first", 'GuardOnDataDependentSymNode', 'UserError', """
class Clean(nn.Module):
    def __init__(self, force=False):
        super().__init__()
        self.force = force

    def forward(self, x):
        if self.force or bool(torch.isnan(x).any()):
            x = torch.nan_to_num(x)
        return x * 2

def xport_example():
    return Clean(), (torch.randn(5),)

def xport_inputs():
    return [(torch.tensor([1.0, float("nan"), 2.0, 3.0, 4.0]),)]
""")

case("ternary-on-an-element-of-tolist", 'GuardOnDataDependentSymNode', 'UserError', """
class Pick(nn.Module):
    def forward(self, x, flags):
        first = flags.tolist()[0]
        scale = 2.0 if first > 0 else 0.5
        return x * scale

def xport_example():
    return Pick(), (torch.randn(3), torch.tensor([1, 0]))

def xport_inputs():
    return [(torch.randn(3), torch.tensor([0, 1]))]
""")

case("early-return-on-int-of-a-mask-sum", 'GuardOnDataDependentSymNode', 'UserError', """
class Skip(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, mask):
        active = int(mask.sum())
        if active == 0:
            return x
        return self.proj(x)

def xport_example():
    return Skip(), (torch.randn(2, 4), torch.tensor([1, 0, 1]))

def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor([0, 0, 0]))]
""")

case("python-sum-of-tensor-list-in-a-branch", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Balance(nn.Module):
    def forward(self, a, b):
        total = sum([a.sum(), b.sum()])
        if total > 0:
            return a - b
        return a + b

def xport_example():
    return Balance(), (torch.ones(3), torch.ones(3))

def xport_inputs():
    return [(-torch.ones(3), -torch.ones(3))]
""")

case("max-of-a-tolist-compared", 'GuardOnDataDependentSymNode', 'UserError', """
class Cap(nn.Module):
    def forward(self, x, lengths):
        longest = max(lengths.tolist())
        if longest > x.shape[1]:
            raise ValueError("length beyond the input")
        return x.sum(1)

def xport_example():
    return Cap(), (torch.randn(2, 5), torch.tensor([3, 5]))

def xport_inputs():
    return []
""")

case("gates-zipped-with-layers", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(2))

    def forward(self, x, gates):
        for layer, g in zip(self.layers, gates.tolist()):
            if g > 0.5:
                x = layer(x)
        return x

def xport_example():
    return Gated(), (torch.randn(2, 3), torch.tensor([0.9, 0.1]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([0.1, 0.9]))]
""")

case("flag-read-in-a-helper-negated", 'GuardOnDataDependentSymNode', 'UserError', """
def _is_empty(mask):
    return not bool(mask.any())

class Route(nn.Module):
    def forward(self, x, mask):
        if _is_empty(mask):
            return torch.zeros_like(x)
        return x * mask

def xport_example():
    return Route(), (torch.randn(3), torch.tensor([1.0, 0.0, 1.0]))

def xport_inputs():
    return [(torch.randn(3), torch.zeros(3))]
""")

case("threshold-kept-on-self-in-forward", 'GuardOnDataDependentSymNode', 'UserError', """
class Track(nn.Module):
    def forward(self, x):
        self.peak = float(x.abs().max())
        if self.peak > 1.0:
            return x / self.peak
        return x

def xport_example():
    return Track(), (torch.randn(4) * 3,)

def xport_inputs():
    return [(torch.rand(4) * 0.5,)]
""")

case("key-formatted-from-a-read-index", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"h0": nn.Linear(3, 3), "h1": nn.Linear(3, 3)})

    def forward(self, x, which):
        return self.heads[f"h{int(which.item())}"](x)

def xport_example():
    return Heads(), (torch.randn(2, 3), torch.tensor(1))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(0))]
""")

case("argmax-index-into-a-python-list", 'GuardOnDataDependentSymNode', 'UserError', """
class Temper(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperatures = [0.5, 1.0, 2.0]

    def forward(self, x, logits):
        t = self.temperatures[int(logits.argmax())]
        return x / t

def xport_example():
    return Temper(), (torch.randn(3), torch.tensor([0.1, 0.7, 0.2]))

def xport_inputs():
    return [(torch.randn(3), torch.tensor([0.9, 0.0, 0.1]))]
""")

case("loop-over-where-rows", 'GuardOnDataDependentSymNode', 'UserError', """
class Rows(nn.Module):
    def forward(self, x, mask):
        out = torch.zeros_like(x[0])
        for r in torch.where(mask)[0]:
            out = out + x[r]
        return out

def xport_example():
    return Rows(), (torch.randn(4, 2), torch.tensor([True, False, True, False]))

def xport_inputs():
    return [(torch.randn(4, 2), torch.tensor([True, True, True, False]))]
""")

case("range-of-unique-numel", 'GuardOnDataDependentSymNode', 'UserError', """
class Classes(nn.Module):
    def forward(self, x, labels):
        acc = x
        for _ in range(torch.unique(labels).numel()):
            acc = acc + x
        return acc

def xport_example():
    return Classes(), (torch.randn(3), torch.tensor([0, 1, 1]))

def xport_inputs():
    return [(torch.randn(3), torch.tensor([0, 1, 2]))]
""")

case("enumerate-tolist-branch-per-entry", 'GuardOnDataDependentSymNode', 'UserError', """
class PerRow(nn.Module):
    def forward(self, x, keep):
        rows = []
        for i, k in enumerate(keep.tolist()):
            rows.append(x[i] if k else torch.zeros_like(x[i]))
        return torch.stack(rows)

def xport_example():
    return PerRow(), (torch.randn(2, 3), torch.tensor([1, 0]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([0, 1]))]
""")

case("while-counter-below-a-read-bound", 'GuardOnDataDependentSymNode', 'UserError', """
class Steps(nn.Module):
    def forward(self, x, steps):
        limit = steps.item()
        i = 0
        while i < limit:
            x = x * 0.5
            i += 1
        return x

def xport_example():
    return Steps(), (torch.randn(3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(3), torch.tensor(4))]
""")

case("nested-helper-returns-a-read-pair", 'GuardOnDataDependentSymNode', 'UserError', """
def _range_of(t):
    return t.min().item(), t.max().item()

class Norm(nn.Module):
    def forward(self, x):
        lo, hi = _range_of(x)
        if hi == lo:
            return torch.zeros_like(x)
        return (x - lo) / (hi - lo)

def xport_example():
    return Norm(), (torch.randn(4),)

def xport_inputs():
    return [(torch.ones(4),)]
""")

case("bool-of-a-0-dim-comparison-in-assert", 'GuardOnDataDependentSymNode', None, """
class Check(nn.Module):
    def forward(self, x, limit):
        ok = bool((x.abs() <= limit).all())
        assert ok, "input beyond the limit"
        return x * 2

def xport_example():
    return Check(), (torch.rand(3), torch.tensor(2.0))

def xport_inputs():
    return []
""")

# -- sizes read from data -----------------------------------------------------------------------

case("view-by-a-read-width", 'GuardOnDataDependentSymNode', None, """
class Fold(nn.Module):
    def forward(self, x, width):
        return x.view(-1, int(width.item())).sum(-1)

def xport_example():
    return Fold(), (torch.randn(12), torch.tensor(4))

def xport_inputs():
    return [(torch.randn(12), torch.tensor(3))]
""")

case("new-zeros-sized-by-a-bincount-max", 'GuardOnDataDependentSymNode', None, """
class Hist(nn.Module):
    def forward(self, x, labels):
        n = int(torch.bincount(labels).max())
        return x.new_zeros(n, 2).sum() + x.sum()

def xport_example():
    return Hist(), (torch.randn(3), torch.tensor([0, 1, 1, 2]))

def xport_inputs():
    return []
""")

case("interpolate-to-a-read-size-pair", None, None, """
class Resize(nn.Module):
    def forward(self, x, size):
        h, w = size.tolist()
        return F.interpolate(x, size=(h, w), mode="nearest")

def xport_example():
    return Resize(), (torch.randn(1, 1, 4, 4), torch.tensor([8, 6]))

def xport_inputs():
    return []
""")

case("narrow-from-a-read-start", 'GuardOnDataDependentSymNode', None, """
class Window(nn.Module):
    def forward(self, x, start):
        return x.narrow(1, int(start.item()), 2).sum(1)

def xport_example():
    return Window(), (torch.randn(2, 6), torch.tensor(3))

def xport_inputs():
    return [(torch.randn(2, 6), torch.tensor(0))]
""")

case("arange-of-a-0-dim-tensor", None, None, """
class Positions(nn.Module):
    def forward(self, x, length):
        pos = torch.arange(length.max())
        return x.sum() + pos.float().sum()

def xport_example():
    return Positions(), (torch.randn(3), torch.tensor([2, 5]))

def xport_inputs():
    return []
""")

case("split-by-a-comprehension-over-bincount", 'GuardOnDataDependentSymNode', 'UserError', """
class Groups(nn.Module):
    def forward(self, x, labels):
        sizes = [int(c) for c in torch.bincount(labels, minlength=2)]
        parts = x.split(sizes)
        return torch.stack([p.sum(0) for p in parts])

def xport_example():
    return Groups(), (torch.randn(4, 2), torch.tensor([0, 0, 1, 1]))

def xport_inputs():
    return []
""")

case("repeat-interleave-by-a-tolist-element", None, None, """
class Stretch(nn.Module):
    def forward(self, x, factors):
        r = factors.tolist()[0]
        return x.repeat_interleave(r, dim=0)

def xport_example():
    return Stretch(), (torch.randn(2, 3), torch.tensor([2, 1]))

def xport_inputs():
    return []
""")

case("zip-with-a-read-count", 'GuardOnDataDependentSymNode', 'UserError', """
class Mix(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(3))

    def forward(self, x, depth):
        for _, layer in zip(range(int(depth)), self.layers):
            x = layer(x)
        return x

def xport_example():
    return Mix(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("min-of-read-lengths-as-slice-then-branch", 'GuardOnDataDependentSymNode', 'UserError', """
class Crop(nn.Module):
    def forward(self, x, lengths):
        shortest = min(lengths.tolist())
        y = x[:, :shortest]
        if y.shape[1] < 2:
            return x.sum(1)
        return y.sum(1)

def xport_example():
    return Crop(), (torch.randn(2, 6), torch.tensor([4, 5]))

def xport_inputs():
    return [(torch.randn(2, 6), torch.tensor([1, 5]))]
""")

case("nonzero-first-index-0-dim", None, 'UserError', """
class First(nn.Module):
    def forward(self, x, mask):
        first = torch.nonzero(mask)[0, 0]
        return x[first] * 2

def xport_example():
    return First(), (torch.randn(4, 2), torch.tensor([0, 1, 1, 0]))

def xport_inputs():
    return [(torch.randn(4, 2), torch.tensor([1, 0, 0, 0]))]
""")

case("argmax-as-a-0-dim-index-through-a-name", None, 'UserError', """
class Best(nn.Module):
    def forward(self, x, scores):
        best = scores.argmax()
        return x[best]

def xport_example():
    return Best(), (torch.randn(4, 3), torch.tensor([0.1, 0.9, 0.3, 0.2]))

def xport_inputs():
    return [(torch.randn(4, 3), torch.tensor([0.9, 0.1, 0.3, 0.2]))]
""")

case("staticmethod-count-in-range", 'GuardOnDataDependentSymNode', 'UserError', """
class Refine(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = nn.Linear(3, 3)

    @staticmethod
    def _count(steps):
        return int(steps.item())

    def forward(self, x, steps):
        for _ in range(self._count(steps)):
            x = torch.relu(self.step(x))
        return x

def xport_example():
    return Refine(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("walrus-read-in-a-while", 'GuardOnDataDependentSymNode', 'UserError', """
class Halve(nn.Module):
    def forward(self, x):
        while (peak := x.abs().max().item()) > 1.0:
            x = x / 2
        return x * peak

def xport_example():
    return Halve(), (torch.randn(4) * 5,)

def xport_inputs():
    return []
""")

# -- near misses that export --------------------------------------------------------------------

case("shape-product-loop", None, None, """
class Unroll(nn.Module):
    def forward(self, x):
        n = x.shape[0] * x.shape[1]
        acc = x.flatten()[0] * 0
        for i in range(n // 4):
            acc = acc + x.flatten()[i]
        return acc

def xport_example():
    return Unroll(), (torch.randn(2, 4),)

def xport_inputs():
    return []
""")

case("constant-tensor-tolist-loop", None, 'Unsupported', """
class Weights(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = [0.5, 0.25]

    def forward(self, x):
        out = x
        for w in torch.tensor(self.weights).tolist():
            out = out + w * x
        return out

def xport_example():
    return Weights(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("read-only-when-not-exporting", None, None, """
class Logged(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_exporting():
            peak = x.abs().max().item()
            if peak > 100:
                print("large input", peak)
        return x.tanh()

def xport_example():
    return Logged(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("exporting-else-branch-reads", None, None, """
class Adaptive(nn.Module):
    def forward(self, x):
        if torch.compiler.is_exporting():
            steps = 2
        else:
            steps = int(x.abs().sum().item()) % 3 + 1
        for _ in range(steps):
            x = x.sin()
        return x

def xport_example():
    return Adaptive(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("debug-switch-off-by-default", None, None, """
class Debug(nn.Module):
    def __init__(self, debug=False):
        super().__init__()
        self.debug = debug

    def forward(self, x):
        if self.debug:
            stats = x.mean().item()
            if stats > 0:
                print(stats)
        return x + 1

def xport_example():
    return Debug(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("sum-of-tensor-list-as-a-factor", None, None, """
class Pool(nn.Module):
    def forward(self, a, b):
        total = sum(t.mean() for t in (a, b))
        return a * total

def xport_example():
    return Pool(), (torch.randn(3), torch.randn(3))

def xport_inputs():
    return []
""")

case("max-of-two-sizes", None, None, """
class Pad(nn.Module):
    def forward(self, a, b):
        m = max(a.shape[-1], b.shape[-1])
        a = F.pad(a, (0, m - a.shape[-1]))
        b = F.pad(b, (0, m - b.shape[-1]))
        return a + b

def xport_example():
    return Pad(), (torch.randn(2, 3), torch.randn(2, 5))

def xport_inputs():
    return []
""")

case("gather-by-where-indices", None, None, """
class Select(nn.Module):
    def forward(self, x, mask):
        idx = torch.where(mask)[0]
        return x[idx].sum(0)

def xport_example():
    return Select(), (torch.randn(4, 2), torch.tensor([True, False, True, False]))

def xport_inputs():
    return [(torch.randn(4, 2), torch.tensor([True, True, True, False]))]
""")

case("bincount-fixed-length-as-tensor", None, None, """
class Counts(nn.Module):
    def forward(self, x, labels):
        counts = torch.bincount(labels, minlength=3)[:3]
        return x * counts.float()

def xport_example():
    return Counts(), (torch.randn(3), torch.tensor([0, 1, 1, 2]))

def xport_inputs():
    return []
""")

case("len-of-a-tolist-as-factor", None, None, """
class Count(nn.Module):
    def forward(self, x, ids):
        n = len(ids.tolist())
        return x * n

def xport_example():
    return Count(), (torch.randn(3), torch.tensor([4, 5]))

def xport_inputs():
    return []
""")

case("bool-of-a-size", None, None, """
class Empty(nn.Module):
    def forward(self, x):
        if not bool(x.numel()):
            return x
        return x.softmax(-1)

def xport_example():
    return Empty(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("mask-sum-as-a-tensor-divisor", None, None, """
class Mean(nn.Module):
    def forward(self, x, mask):
        return (x * mask).sum() / mask.sum().clamp(min=1)

def xport_example():
    return Mean(), (torch.randn(4), torch.tensor([1.0, 0.0, 1.0, 1.0]))

def xport_inputs():
    return []
""")

case("unique-counts-max-as-tensor", None, None, """
class Mode(nn.Module):
    def forward(self, x, labels):
        _, counts = torch.unique(labels, return_counts=True)
        return x * counts.max()

def xport_example():
    return Mode(), (torch.randn(3), torch.tensor([0, 1, 1, 2]))

def xport_inputs():
    return []
""")

case("repeat-interleave-by-counts-with-output-size", None, None, """
class Expand(nn.Module):
    def forward(self, x, counts):
        return x.repeat_interleave(counts, dim=0, output_size=6).sum(0)

def xport_example():
    return Expand(), (torch.randn(3, 2), torch.tensor([1, 2, 3]))

def xport_inputs():
    return []
""")

case("argmax-gathered-not-indexed", None, None, """
class Best(nn.Module):
    def forward(self, x, scores):
        best = scores.argmax(dim=-1, keepdim=True)
        return x.gather(-1, best)

def xport_example():
    return Best(), (torch.randn(2, 4), torch.randn(2, 4))

def xport_inputs():
    return []
""")

case("ternary-on-a-python-default", None, None, """
class Scale(nn.Module):
    def __init__(self, factor=None):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        factor = self.factor if self.factor is not None else x.shape[-1] ** -0.5
        return x * factor

def xport_example():
    return Scale(), (torch.randn(2, 4),)

def xport_inputs():
    return []
""")

case("fstring-of-a-size-in-an-error", None, None, """
class Check(nn.Module):
    def forward(self, x):
        if x.dim() != 2:
            raise ValueError(f"expected 2 dims, got {x.dim()} with {int(x.shape[0])} rows")
        return x.sum(-1)

def xport_example():
    return Check(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")


#: (case, mode) where xport-lint has no error on a failing program, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    **{
        ("min-of-read-lengths-as-slice-then-branch", mode): (
            "`x[:, :shortest]` with `shortest` read from data has a data-dependent size in one dimension; the"
            " dataflow marks a whole tensor's sizes as data-dependent or not, and marking this one would make"
            " a branch on its static `shape[0]` a false error"
        )
        for mode in Mode
    },
    ("constant-tensor-tolist-loop", Mode.STRICT): (
        "strict export refuses `.tolist()` of a non-integer tensor ('Tensor.tolist() with non-integer tensor');"
        " the analysis does not know dtypes (`torch.tensor(self.weights)` of a list of floats set in `__init__`)"
    ),
}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX = {
    "ternary-on-an-element-of-tolist": "an element of `.tolist()`: its tensor form depends on the tensor's rank",
    "gates-zipped-with-layers": "`g` is a Python number from `.tolist()`, which torch.cond's predicate cannot take"
    " (and strict export refuses `.tolist()` of a float tensor)",
    "key-formatted-from-a-read-index": "the key is a string spelt from the number",
    "argmax-index-into-a-python-list": "an entry of a Python list: the list may hold anything",
    "loop-over-where-rows": "as many steps as the data has hits",
    "range-of-unique-numel": "as many steps as the data has distinct values",
    "enumerate-tolist-branch-per-entry": "each entry is read from data before its selection",
    "split-by-a-comprehension-over-bincount": "the number of pieces is the data",
    "zip-with-a-read-count": "the loop steps through `zip(...)`; the loop rewrite takes `range()` alone",
    "walrus-read-in-a-while": "the test binds `peak` with `:=`, which torch.while_loop's condition cannot hand back",
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 40, 3, (Mode.NON_STRICT, Mode.STRICT))


BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()


# -- a helper in another file -------------------------------------------------------------------

OPS = """
import torch


def steps_of(t):
    return int(t.item())


def rows_of(t):
    return t.shape[0]


def peak_of(t):
    return t.abs().max().item()
"""
MODEL = """
import torch

from .ops import peak_of, rows_of, steps_of


class {name}(torch.nn.Module):
    def forward(self, x, steps):
        {body}
"""
#: model bodies calling the other file's helpers: whether torch 2.13 fails export (both modes)
ACROSS_FILES = {
    "Looped": ("for _ in range(steps_of(steps)):\n            x = x * 0.5\n        return x", True),
    "Tested": ("if peak_of(x) > 1.0:\n            return x / 2\n        return x", True),
    "Sized": ("for i in range(rows_of(x)):\n            x = x + i\n        return x", False),
}


@pytest.mark.parametrize("name", list(ACROSS_FILES))
def test_a_value_read_by_another_files_helper(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper's number read from data reaches the loop or branch through the project index:
    an error in both modes exactly where torch fails, and none for a size it hands back."""
    body, fails = ACROSS_FILES[name]
    package = tmp_path / f"pkg3_{name.lower()}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text(textwrap.dedent(OPS).lstrip())
    (package / "model.py").write_text(textwrap.dedent(MODEL).lstrip().format(name=name, body=body))
    monkeypatch.syspath_prepend(str(tmp_path))
    model = getattr(importlib.import_module(f"{package.name}.model"), name)()
    args = (torch.randn(3) * 4, torch.tensor(2))
    for mode in Mode:
        checked = check_project(discover([str(package)], ()), Config(strict=mode is Mode.STRICT), None, jobs=1)
        errors = [f.code for r in checked.results for f in r.findings if f.severity is Severity.ERROR]
        try:
            torch.export.export(model, args, strict=mode is Mode.STRICT)
            failed = False
        except Exception:  # noqa: BLE001 - failing is the fact checked
            failed = True
        assert failed is fails, mode
        assert bool(errors) is fails, (mode, errors)
    sys.modules.pop(f"{package.name}.model", None)
