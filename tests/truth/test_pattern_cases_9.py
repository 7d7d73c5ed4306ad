"""A ninth batch of held-out-style programs for issue 25, written as someone else would write them,
in spellings batches 1-8 do not use: a read through the unbound `torch.Tensor.item(t)`, `.tolist()`
unpacked, `float(t)` as a branch and as a multiplier, `bool(t.any())` under a walrus, `while
float(norm)`; data-dependent sizes (`masked_select`'s `numel()` tested, `nonzero(as_tuple=True)`'s
row count, one-argument `torch.where`'s length as a range, a loop over `unique_consecutive`,
`repeat_interleave` by a tensor then its length tested); `split` by lengths read from data in six
spellings; reads reaching `range`, `while`, a slice bound, `view`, `expand`, `new_full` and `F.pad`
through a helper, a lambda attribute, a `functools.partial`, a staticmethod and a classmethod; a read
kept on `self` in `forward`, in a dict, in a list; `match` on a read and on a Python config value; a
generator over a read range; strict-only failures and look-alikes (context managers:
`nullcontext`, `suppress`, `catch_warnings` + `simplefilter`, `record_function`, `no_grad`,
`inference_mode`, `autocast` to bf16 with an fp32 add, a user context manager built in `__init__`,
`mock.patch.object`; `random.random()`, `np.random.rand()`, `id()`, `time.time()`, a global counter,
`print` of an f-string of a read).

Measured on torch 2.13.0, some of them surprising:
- `torch.split(t, lengths.tolist(), dim=...)` exports in both modes when `lengths` has a fixed number
  of elements, whether `lengths` is an input or computed from data (`mask.sum(1)`), spelled
  `torch.split` or `t.split`, bound to a name first or not, and whatever the pieces feed (`cat`,
  `stack` of unequal pieces, `mean`, `reshape`, `len()` of the pieces: measured on `dim=2` of a
  (2, 3, 5) input too): torch records the lengths as unbacked sizes with a runtime check of their
  sum. It fails both modes when the number of lengths is data (`counts[counts > 0].tolist()`), and
  `t.split(int(n.item()))` (one piece size read from data) fails both modes (the piece count
  `(size + n - 1) // n` is data). `nn.utils.rnn.pad_sequence` of pieces split by a read list exports
  non-strict and fails strict (`u1 > u0`: the longest piece is data).
- `x * torch.Tensor.item(s)` exports both modes, while `x * float(s)` fails non-strict (`float()` of
  the read float guards) and exports strict.
- `int()` of a read as a slice bound, a `view` size, a `new_full` size or an `F.pad` amount fails
  non-strict and exports strict; `.item()` (no `int()`) as an `expand` size exports both modes.
- `print(f"max={x.max().item()}")`, `id(x)` kept as a dict key, a global counter, `record_function`,
  `inference_mode`, `suppress`, `nullcontext` and `autocast("cpu", dtype=torch.bfloat16)` around a
  `Linear` whose bf16 output is added to fp32 export in both modes; `np.random.rand()` fails strict
  (UserError: its `float()` guards), `random.random()`, `time.time()`, `mock.patch.object`,
  `catch_warnings` + `simplefilter` and a user context manager class fail strict (Unsupported).

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside
it (the exception type, or None where it exports). The tests check that torch still says so, that
xport-lint reports an error exactly on the failing ones (but for `KNOWN_MISSES`, each with why),
and that every fix offered on a program failing non-strict export proves out.

The batch was written, and measured, before any change it prompted. Before (the engine of
bfc9008), 52 programs:
    non-strict: 24/24 failing programs with an error, 1/28 exporting programs with one
    strict:     25/26 failing programs with an error, 1/26 exporting programs with one
    the false error, both modes: any `match` statement in `forward` crashes the analysis
    (AttributeError; `internal-error` on line 1), so `match self.kind:` on a Python string gets an
    error, and `match int(mode):` is "flagged" only by the crash
    the miss (strict): `pad_sequence` of pieces split by a read list
    fixes (non-strict, `prove_snippet`): 9 proven, 13 no fix, 2 failed (the `torch.while_loop` fix
    of a loop counted by `torch.Tensor.item(k)` and of a `while` bounded by `self.limit = n.item()`:
    the fixed program fails export), 0 missed: 9/24 (38 %)
After the changes it prompted (the tests below keep these):
    non-strict: 24/24 failing programs with an error, 0/28 exporting programs with one
    strict:     26/26 failing programs with an error, 0/26 exporting programs with one
    fixes (non-strict): 10 proven, 14 no fix (`NO_FIX`, each with why), 0 failed, 0 missed: 10/24 (42 %)
    what changed, each a fact rather than a spelling: a `match` statement is analysed (its cases are
    blocks like an `if`'s), and its subject compared with a `case` value is a tested condition like an
    `if`'s (XPT101/104/105/301); a tensor method called unbound
    (`torch.Tensor.item(t)`) is the bound method's value (its `torch.while_loop` fix had treated the
    number as a tensor; `torch.Tensor.size(x, 0)` in a range was a false error); a `while` bounded
    by a number kept in an attribute, a dict entry or a list element gets no `torch.while_loop` fix
    (it failed export), a name bound to the read keeps its proven one; `nn.utils.rnn.pad_sequence`
    of several tensors whose sizes depend on data is an error in strict export only (XPT105): each
    in several spellings in tests/rules/
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module, large_with_near_misses
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("""import contextlib\nimport functools\nimport random\nimport time\nimport warnings
from unittest import mock\n\nimport numpy as np""", exporting_last_module)
case = CASES.case


# -- numbers read from data, spelled through unbound methods, lists, float(), bool(), walrus -----

case("loop-count-read-by-the-unbound-item", 'GuardOnDataDependentSymNode', 'UserError', """
class Repeat(nn.Module):
    def forward(self, x, k):
        n = torch.Tensor.item(k)
        for _ in range(int(n)):
            x = x.sin()
        return x

def xport_example():
    return Repeat(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("scale-read-by-the-unbound-item-in-arithmetic", None, None, """
class Scale(nn.Module):
    def forward(self, x, s):
        return x * torch.Tensor.item(s)

def xport_example():
    return Scale(), (torch.randn(2, 3), torch.tensor(0.5))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(1.5))]
""")

case("loop-count-unpacked-from-tolist", 'GuardOnDataDependentSymNode', 'UserError', """
class TwoStage(nn.Module):
    def forward(self, x, counts):
        first, second = counts.tolist()
        for _ in range(first):
            x = x * 2
        return x + second

def xport_example():
    return TwoStage(), (torch.randn(2, 3), torch.tensor([2, 1]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([3, 1]))]
""")

case("float-of-a-mean-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Gate(nn.Module):
    def forward(self, x):
        if float(x.mean()) > 0:
            return x * 2
        return -x
""")

case("float-of-a-tensor-as-a-multiplier", 'GuardOnDataDependentSymNode', None, """
class Mul(nn.Module):
    def forward(self, x, s):
        return x * float(s)

def xport_example():
    return Mul(), (torch.randn(2, 3), torch.tensor(0.25))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(2.0))]
""")

case("walrus-bool-any-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Clip(nn.Module):
    def forward(self, x):
        if (big := bool((x.abs() > 1).any())):
            x = x.clamp(-1, 1)
        return x
""")

case("while-float-norm-halving", 'GuardOnDataDependentSymNode', 'UserError', """
class Shrink(nn.Module):
    def forward(self, x):
        while float(x.norm()) > 1.0:
            x = x * 0.5
        return x
""")

# -- data-dependent sizes: masked_select, nonzero(as_tuple), where(cond), unique_consecutive ---

case("numel-of-a-masked-select-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Positives(nn.Module):
    def forward(self, x):
        picked = torch.masked_select(x, x > 0)
        if picked.numel() == 0:
            return x
        return x - picked.mean()
""")

case("masked-select-summed", None, None, """
class PosSum(nn.Module):
    def forward(self, x):
        return x + torch.masked_select(x, x > 0).sum()
""")

case("nonzero-as-tuple-row-count-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Rows(nn.Module):
    def forward(self, x):
        rows, cols = (x > 0).nonzero(as_tuple=True)
        if rows.shape[0] > 2:
            return x * 2
        return x
""")

case("nonzero-as-tuple-gathers", None, None, """
class Gather(nn.Module):
    def forward(self, x):
        rows, cols = (x > 0).nonzero(as_tuple=True)
        return x.sum() + x[rows, cols].sum()
""")

case("one-argument-where-length-as-a-range", 'GuardOnDataDependentSymNode', 'UserError', """
class Each(nn.Module):
    def forward(self, x):
        (idx,) = torch.where(x.flatten() > 0)
        total = x.sum()
        for i in range(len(idx)):
            total = total + i
        return total
""")

case("three-argument-where", None, None, """
class Relu(nn.Module):
    def forward(self, x):
        return torch.where(x > 0, x, torch.zeros_like(x))
""")

case("loop-over-unique-consecutive-values", 'GuardOnDataDependentSymNode', 'UserError', """
class Runs(nn.Module):
    def forward(self, x, labels):
        out = torch.zeros_like(x)
        for v in torch.unique_consecutive(labels):
            out = out + x * v
        return out

def xport_example():
    return Runs(), (torch.randn(2, 3), torch.tensor([1, 1, 2, 3]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 2, 2, 0]))]
""")

case("repeat-interleave-length-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Spread(nn.Module):
    def forward(self, x, counts):
        out = x.repeat_interleave(counts, dim=0)
        if out.shape[0] > 4:
            return out[:4]
        return out

def xport_example():
    return Spread(), (torch.randn(2, 3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([3, 3]))]
""")

# -- split by lengths read from data, several spellings ---------------------------------------

case("split-by-input-lengths-tolist", None, None, """
class Chunks(nn.Module):
    def forward(self, x, lengths):
        parts = torch.split(x, lengths.tolist(), dim=1)
        return torch.cat([p.sum(1, keepdim=True) for p in parts], dim=1)

def xport_example():
    return Chunks(), (torch.randn(2, 3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 1]))]
""")

case("split-method-by-lengths-bound-first", None, None, """
class Chunks(nn.Module):
    def forward(self, x, lengths):
        sizes = lengths.tolist()
        first, second = x.split(sizes, dim=1)
        return first.sum(1) + second.sum(1)

def xport_example():
    return Chunks(), (torch.randn(2, 3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 1]))]
""")

case("split-by-lengths-counted-from-a-mask", None, None, """
class Segments(nn.Module):
    def forward(self, x, mask):
        lengths = mask.sum(1)
        parts = torch.split(x, lengths.tolist(), dim=0)
        return torch.stack([p.mean(0) for p in parts])

def xport_example():
    return Segments(), (torch.randn(3, 4), torch.tensor([[1, 1, 0], [1, 0, 0]]))

def xport_inputs():
    return [(torch.randn(3, 4), torch.tensor([[1, 0, 0], [1, 1, 0]]))]
""")

case("split-by-lengths-of-a-data-dependent-count", 'GuardOnDataDependentSymNode', 'UserError', """
class Kept(nn.Module):
    def forward(self, x, counts):
        lengths = counts[counts > 0]
        parts = torch.split(x, lengths.tolist(), dim=1)
        return torch.cat([p.cumsum(1) for p in parts], dim=1)

def xport_example():
    return Kept(), (torch.randn(2, 3), torch.tensor([1, 0, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([0, 3, 0]))]
""")

case("pad-sequence-of-split-parts", None, 'UserError', """
class Padded(nn.Module):
    def forward(self, x, lengths):
        parts = list(torch.split(x.T, lengths.tolist()))
        return nn.utils.rnn.pad_sequence(parts, batch_first=True)

def xport_example():
    return Padded(), (torch.randn(2, 3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 1]))]
""")

case("split-into-pieces-of-a-read-size", 'GuardOnDataDependentSymNode', 'UserError', """
class Pieces(nn.Module):
    def forward(self, x, n):
        parts = x.split(int(n.item()), dim=1)
        return torch.cat([p * 2 for p in parts], dim=1)

def xport_example():
    return Pieces(), (torch.randn(2, 4), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor(1))]
""")

case("split-by-constant-lengths", None, None, """
class Fixed(nn.Module):
    def forward(self, x):
        a, b = x.split([1, 2], dim=1)
        return torch.cat([b, a], dim=1)
""")

# -- reads through helpers: same file, lambda, partial, staticmethod, classmethod -------------

case("range-of-a-read-through-a-helper", 'GuardOnDataDependentSymNode', 'UserError', """
def steps_of(t):
    return int(t)

class Iterate(nn.Module):
    def forward(self, x, n):
        for _ in range(steps_of(n)):
            x = x.cos()
        return x

def xport_example():
    return Iterate(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(1))]
""")

case("while-bound-read-through-a-lambda", 'GuardOnDataDependentSymNode', 'UserError', """
class Count(nn.Module):
    def __init__(self):
        super().__init__()
        self.read = lambda t: t.item()

    def forward(self, x, n):
        i = 0
        while i < self.read(n):
            x = x + 1
            i += 1
        return x

def xport_example():
    return Count(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("pad-amount-through-a-partial", 'GuardOnDataDependentSymNode', None, """
pad_right = functools.partial(F.pad, mode="constant", value=0.0)

class Pad(nn.Module):
    def forward(self, x, p):
        return pad_right(x, (0, int(p.item())))

def xport_example():
    return Pad(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(1))]
""")

case("slice-bound-read-by-a-staticmethod", 'GuardOnDataDependentSymNode', None, """
class Head(nn.Module):
    @staticmethod
    def width(t):
        return int(t.max())

    def forward(self, x, w):
        return x[:, : self.width(w)].sum(1)

def xport_example():
    return Head(), (torch.randn(2, 4), torch.tensor([1, 3]))

def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor([2, 1]))]
""")

case("expand-rows-read-by-a-classmethod", None, None, """
class Broadcast(nn.Module):
    @classmethod
    def rows(cls, t):
        return t.item()

    def forward(self, x, n):
        return x[:1].expand(self.rows(n), -1) * 2

def xport_example():
    return Broadcast(), (torch.randn(2, 3), torch.tensor(4))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(2))]
""")

case("view-rows-read-through-a-helper", 'GuardOnDataDependentSymNode', None, """
def rows_of(t):
    return int(t.item())

class Fold(nn.Module):
    def forward(self, x, r):
        return x.view(rows_of(r), -1) + 1

def xport_example():
    return Fold(), (torch.randn(2, 6), torch.tensor(3))

def xport_inputs():
    return [(torch.randn(2, 6), torch.tensor(4))]
""")

case("new-full-rows-read-by-int", 'GuardOnDataDependentSymNode', None, """
class Fill(nn.Module):
    def forward(self, x, n):
        return x.new_full((int(n), 3), 0.5).sum(0) + x

def xport_example():
    return Fill(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(5))]
""")

# -- reads kept in attributes, containers, match statements, comprehensions -------------------

case("while-limit-kept-on-self-in-forward", 'GuardOnDataDependentSymNode', 'UserError', """
class Limit(nn.Module):
    def forward(self, x, n):
        self.limit = n.item()
        i = 0
        while i < self.limit:
            x = x * 0.9
            i += 1
        return x

def xport_example():
    return Limit(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
""")

case("range-count-kept-in-a-dict", 'GuardOnDataDependentSymNode', 'UserError', """
class Config(nn.Module):
    def forward(self, x, n):
        cfg = {"steps": int(n)}
        for _ in range(cfg["steps"]):
            x = x.tanh()
        return x

def xport_example():
    return Config(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(1))]
""")

case("branch-on-a-read-kept-in-a-list", 'GuardOnDataDependentSymNode', 'UserError', """
class Flags(nn.Module):
    def forward(self, x):
        seen = [x.max().item()]
        if seen[0] > 1:
            return x / seen[0]
        return x
""")

case("match-on-a-read-mode", 'GuardOnDataDependentSymNode', 'UserError', """
class Switch(nn.Module):
    def forward(self, x, mode):
        match int(mode):
            case 0:
                return x.relu()
            case _:
                return x.sigmoid()

def xport_example():
    return Switch(), (torch.randn(2, 3), torch.tensor(0))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(1))]
""")

case("sum-of-a-generator-over-a-read-range", 'GuardOnDataDependentSymNode', 'UserError', """
class Series(nn.Module):
    def forward(self, x, n):
        return sum(x ** i for i in range(int(n)))

def xport_example():
    return Series(), (torch.randn(2, 3), torch.tensor(3))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(2))]
""")

case("match-on-a-python-config-value", None, None, """
class Act(nn.Module):
    def __init__(self):
        super().__init__()
        self.kind = "relu"

    def forward(self, x):
        match self.kind:
            case "relu":
                return x.relu()
            case _:
                return x
""")

case("comprehension-over-the-batch-size", None, None, """
class PerRow(nn.Module):
    def forward(self, x):
        return torch.stack([x[i] * (i + 1) for i in range(x.shape[0])])
""")

# -- strict only: context managers, Python randomness, identity, time, globals, print ---------

case("nullcontext-around-the-body", None, None, """
class Plain(nn.Module):
    def forward(self, x):
        with contextlib.nullcontext():
            return x * 2
""")

case("suppress-around-the-body", None, None, """
class Quiet(nn.Module):
    def forward(self, x):
        with contextlib.suppress(ValueError):
            x = x + 1
        return x
""")

case("catch-warnings-with-simplefilter", None, 'Unsupported', """
class Hushed(nn.Module):
    def forward(self, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return x.exp()
""")

case("record-function-around-a-block", None, None, """
class Profiled(nn.Module):
    def forward(self, x):
        with torch.profiler.record_function("block"):
            y = x.sin()
        return y + 1
""")

case("no-grad-around-the-body", None, None, """
class Frozen(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            return x * 3
""")

case("inference-mode-around-the-body", None, None, """
class Infer(nn.Module):
    def forward(self, x):
        with torch.inference_mode():
            return x * 3
""")

case("autocast-bf16-linear-added-to-fp32", None, None, """
class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.lin(x)
        return y + x
""")

case("user-context-manager-built-in-init", None, 'Unsupported', """
class Timer:
    def __init__(self):
        self.spans = []

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.spans.append(time.perf_counter() - self.start)
        return False

class Timed(nn.Module):
    def __init__(self):
        super().__init__()
        self.timer = Timer()

    def forward(self, x):
        with self.timer:
            y = x.relu()
        return y
""")

case("patch-object-around-a-call", None, 'Unsupported', """
class Patched(nn.Module):
    def forward(self, x):
        with mock.patch.object(torch, "tanh", torch.sigmoid):
            return torch.tanh(x)
""")

case("python-random-jitter", None, 'Unsupported', """
class Jitter(nn.Module):
    def forward(self, x):
        return x + random.random()
""")

case("numpy-random-noise-scale", None, 'UserError', """
class Noise(nn.Module):
    def forward(self, x):
        return x * float(np.random.rand())
""")

case("id-of-the-input-as-a-key", None, None, """
class Memo(nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = {}

    def forward(self, x):
        self.seen[id(x)] = True
        return x + 1
""")

case("time-time-as-a-seed", None, 'Unsupported', """
class Stamp(nn.Module):
    def forward(self, x):
        return x + time.time() % 1
""")

case("global-call-counter", None, None, """
CALLS = 0

class Counted(nn.Module):
    def forward(self, x):
        global CALLS
        CALLS += 1
        return x * CALLS
""")

case("print-of-a-formatted-read", None, None, """
class Loud(nn.Module):
    def forward(self, x):
        print(f"max={x.max().item()}")
        return x * 2
""")

case("print-of-a-constant-message", None, None, """
class Chatty(nn.Module):
    def forward(self, x):
        print("running forward")
        return x * 2
""")


#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_A_LOOP_AS_LONG_AS_THE_DATA = "a loop as long as the data says"

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "loop-count-read-by-the-unbound-item": "the count is bound to a name (`n = torch.Tensor.item(k)`) before"
    " `range(int(n))`: the `torch.while_loop` rewrite rebinds no count read before the loop (`n = k.item()` gets"
    " none either; rewrites/loops.py)",
    "loop-count-unpacked-from-tolist": "the count is unpacked from `.tolist()` beside a number read after the loop:"
    " the `torch.while_loop` rewrite rebinds no unpacked element (rewrites/loops.py)",
    "one-argument-where-length-as-a-range": _A_LOOP_AS_LONG_AS_THE_DATA + " (the number of hits)",
    "loop-over-unique-consecutive-values": _A_LOOP_AS_LONG_AS_THE_DATA + " (the number of runs)",
    "split-by-lengths-of-a-data-dependent-count": "the number of pieces is the data",
    "split-into-pieces-of-a-read-size": "the number of pieces is the data",
    "pad-amount-through-a-partial": "`F.pad` is called through a `functools.partial` bound to a name, so the"
    " amount is not known to be used only as a size (measured: `F.pad(x, (0, p.item()))` exports in both modes)",
    "match-on-a-read-mode": "no rewrite of a `match` is written (torch.cond takes one test: each `case` would be one)",
    "sum-of-a-generator-over-a-read-range": "a sum of as many terms as the data says",
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 30, 3, (Mode.NON_STRICT, Mode.STRICT))


BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
