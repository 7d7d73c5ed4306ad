"""An eleventh batch of held-out-style programs for issue 25, written the way library authors write
them: numbers read from data through a module-level helper (unpacked), a `@property` over a buffer,
a class attribute as the limit, a `@staticmethod` doing the read, an update method keeping a read on
`self`; `int()` / `float()` / `bool()` / `.item()` / `.tolist()` / `sum()` / `min()` / `math.*` in
several orders; loops building lists then `torch.stack`; data-dependent split, interpolate and
repeat sizes; `nonzero` and masked selections feeding shapes and branches; strict-only failures
(`mock.patch.object`, `warnings.catch_warnings()` + `simplefilter`, `torch.manual_seed`, an `assert`
with an f-string message on a read) and near misses that export.

Measured on torch 2.13.0, some of them surprising:
- `x - float(t.mean())` (through a helper) fails non-strict and exports strict, where `x - t.mean().item()`
  exports in both; `math.sqrt(x.var().item())` in arithmetic fails non-strict only, `math.log` of a read
  through a helper fails both.
- `int(t.sum())` as a `repeat` count fails non-strict only; `F.interpolate(scale_factor=s.item())`
  raises TypeError non-strict (Unsupported strict).
- `assert int((x > 100).sum()) == 0` (no message) fails non-strict and exports strict; with an f-string
  message on the read (`assert peak < 1000, f"...{peak}"`) it fails both.
- `torch.autocast("cpu", dtype=torch.bfloat16)` around a Linear, its output added to a float32 input,
  exports in both modes; `torch.stack([x[i] for i in idx.tolist()])` exports in both (unbacked indices).
- `mock.patch.object(self, ...)`, `warnings.catch_warnings()` + `simplefilter` and `torch.manual_seed`
  in `forward` fail strict only (Unsupported).

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside
it (the exception type, or None where it exports). 43 programs: 26 fail non-strict, 25 strict, 14
export in both.

The batch was written, and measured, before any change it prompted. Before (the engine of e5156be):
    non-strict: 26/26 failing programs with an error, 0/17 exporting programs with one
    strict:     23/25 failing programs with an error, 0/18 exporting programs with one
    the misses (strict): a read kept on `self` by an update method (`self._update(x)` sets
    `self.spread = float(x.std())`) and tested in `forward`; an `assert` on a read with an f-string message
    fixes (non-strict, `prove_snippet`): 11 proven, 14 no fix, 1 FAILED (the read kept on `self` by an
    update method: the fix leaves the test on the attribute, the fixed program still fails): 11/26 (42 %)
After the changes it prompted (the tests below keep these):
    non-strict: 26/26 failing programs with an error, 0/17 exporting programs with one
    strict:     25/25 failing programs with an error, 0/18 exporting programs with one
    fixes (non-strict): 13 proven, 13 no fix (`NO_FIX`, each with why), 0 failed: 13/26 (50 %)
    what changed, each a fact rather than a spelling: a number kept on `self` by a method `forward`
    calls as a statement is read back after the call (and its XPT406 step writes the assignment in
    place of the call, as a local); an `assert` on a read fails strict export where its message is
    not a string literal, and both modes where its test holds `not`/`and`/`or` or a chained
    comparison (tests/rules/test_method_kept_reads_and_asserts.py); a tuple a one-line helper
    returns, unpacked and tested, is written at the call as a step (tests/rules/test_helper_tuple_steps.py)
Later, with batch 12: fixes 15/26 (`math.sqrt` of a read plus an epsilon dividing a tensor: `torch.sqrt`
of the tensor, proven, tests/rules/test_number_functions_in_tests.py; `assert int((x > 100).sum()) == 0`:
`.item()`, proven, tests/rules/test_integer_asserts.py).
Later, with batch 13: fixes 16/26 (`mean = x.mean().item(); mean = float(mean)`: the conversion dropped,
tests/rules/test_identity_conversion_steps.py).
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module, large_with_near_misses
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("import math\nimport warnings\nfrom unittest import mock", exporting_last_module)
case = CASES.case

# -- numbers read from data through helpers, unpacking, properties, class attributes, staticmethods --

case("bounds-from-a-module-helper-unpacked-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
def _bounds(t):
    return t.min().item(), t.max().item()


class Rescale(nn.Module):
    def forward(self, x):
        lo, hi = _bounds(x)
        if hi - lo < 1e-3:
            return x - lo
        return (x - lo) / (hi - lo)
""")

case("property-returning-float-of-a-buffer-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Gain(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gain", torch.tensor(1.5))

    @property
    def scale(self):
        return float(self.gain)

    def forward(self, x):
        if self.scale > 1.0:
            return x * self.scale
        return x
""")

case("class-attribute-limit-against-an-int-of-a-sum", 'GuardOnDataDependentSymNode', 'UserError', """
class Sparse(nn.Module):
    MAX_ACTIVE = 4

    def forward(self, x):
        active = int((x > 0).sum())
        if active > self.MAX_ACTIVE:
            return x.clamp(max=0)
        return x
""")

case("staticmethod-bool-of-all-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class Sanitise(nn.Module):
    @staticmethod
    def _finite(t):
        return bool(torch.isfinite(t).all())

    def forward(self, x):
        if not self._finite(x):
            x = torch.nan_to_num(x)
        return x * 2
""")

case("float-after-item-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class Centre(nn.Module):
    def forward(self, x):
        mean = x.mean().item()
        mean = float(mean)
        return x - mean if mean > 0 else x + 1
""")

case("tolist-pair-unpacked-and-compared", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Order(nn.Module):
    def forward(self, x):
        a, b = x[0, :2].tolist()
        if a > b:
            return x.flip(0)
        return x
""")

case("sum-of-a-tolist-tested", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Positive(nn.Module):
    def forward(self, x):
        if sum(x[:, 0].tolist()) > 0:
            return x.relu()
        return -x
""")

case("steps-from-a-helper-with-a-cap", 'GuardOnDataDependentSymNode', 'UserError', """
def _steps(t, cap=4):
    return min(int(t.abs().sum()), cap)


class Smooth(nn.Module):
    def forward(self, x):
        for _ in range(_steps(x)):
            x = 0.5 * (x + x.roll(1, dims=1))
        return x
""")

case("item-kept-on-self-by-an-update-method", 'GuardOnDataDependentSymNode', 'UserError', """
class Adaptive(nn.Module):
    def _update(self, x):
        self.spread = float(x.std())

    def forward(self, x):
        self._update(x)
        if self.spread > 1.0:
            return x / self.spread
        return x
""")

case("int-of-argmax-by-a-staticmethod-indexing-heads", 'GuardOnDataDependentSymNode', 'UserError', """
class Router(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)])

    @staticmethod
    def _pick(t):
        return int(t.mean(0).argmax())

    def forward(self, x):
        return self.heads[self._pick(x)](x)
""")

case("bool-of-an-item-in-a-while", 'GuardOnDataDependentSymNode', 'UserError', """
class Halve(nn.Module):
    def forward(self, x):
        while bool((x.abs() > 4).any().item()):
            x = x / 2
        return x
""")

case("property-steps-from-a-buffer-as-a-range", 'GuardOnDataDependentSymNode', 'UserError', """
class Unrolled(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("n_steps", torch.tensor(2))

    @property
    def steps(self):
        return int(self.n_steps)

    def forward(self, x):
        for _ in range(self.steps):
            x = x.tanh()
        return x
""")

# -- loops building lists, then torch.stack ---------------------------------------------------------

case("stack-of-steps-counted-by-an-item", 'GuardOnDataDependentSymNode', 'UserError', """
class Roll(nn.Module):
    def forward(self, x, n):
        states = []
        for _ in range(n.item()):
            x = x.roll(1, dims=1)
            states.append(x)
        return torch.stack(states)

def xport_example():
    return Roll(), (torch.randn(2, 3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(2))]
""")

case("stack-over-the-rows-of-a-tolist", None, None, """
class Gather(nn.Module):
    def forward(self, x, idx):
        return torch.stack([x[i] for i in idx.tolist()])

def xport_example():
    return Gather(), (torch.randn(4, 3), torch.tensor([0, 2]))

def xport_inputs():
    return [(torch.randn(4, 3), torch.tensor([3, 1]))]
""")

case("stack-of-branches-per-row-on-a-read", 'GuardOnDataDependentSymNode', 'Unsupported', """
class PerRow(nn.Module):
    def forward(self, x):
        rows = []
        for row in x:
            rows.append(row * 2 if row.sum() > 0 else row)
        return torch.stack(rows)
""")

# -- data-dependent split / interpolate / repeat sizes -------------------------------------------------

case("split-by-an-int-of-an-item", 'GuardOnDataDependentSymNode', 'UserError', """
class Pieces(nn.Module):
    def forward(self, x, size):
        parts = torch.split(x, int(size.item()), dim=1)
        return torch.cat([p.flip(1) for p in parts], dim=1)

def xport_example():
    return Pieces(), (torch.randn(2, 4), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor(2))]
""")

case("interpolate-scale-from-an-item", 'TypeError', 'Unsupported', """
class Zoom(nn.Module):
    def forward(self, x, scale):
        return F.interpolate(x, scale_factor=scale.item(), mode="nearest")

def xport_example():
    return Zoom(), (torch.randn(1, 2, 4), torch.tensor(2.0))

def xport_inputs():
    return [(torch.randn(1, 2, 4), torch.tensor(2.0))]
""")

case("repeat-by-an-int-of-a-sum-through-a-helper", 'GuardOnDataDependentSymNode', None, """
def _copies(t):
    return int(t.sum())


class Tile(nn.Module):
    def forward(self, x, counts):
        return x.repeat(_copies(counts), 1)

def xport_example():
    return Tile(), (torch.randn(2, 3), torch.tensor([1, 1]))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 1]))]
""")

# -- nonzero / masked selections feeding shapes --------------------------------------------------------

case("nonzero-count-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class AnyHit(nn.Module):
    def forward(self, x):
        hits = torch.nonzero(x > 0)
        if hits.shape[0] > 0:
            return x * 2
        return x
""")

case("masked-select-numel-as-a-range", 'GuardOnDataDependentSymNode', 'UserError', """
class Walk(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        total = x.sum()
        for i in range(picked.numel()):
            total = total + i
        return total
""")

case("len-of-masked-rows-compared-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class Fallback(nn.Module):
    def forward(self, x):
        kept = x[x[:, 0] > 0]
        return kept.mean(0) if len(kept) > 0 else x.mean(0)
""")

case("unique-values-looped", 'GuardOnDataDependentSymNode', 'UserError', """
class PerClass(nn.Module):
    def forward(self, x, labels):
        out = torch.zeros_like(x)
        for c in torch.unique(labels):
            out = out + (labels == c).unsqueeze(1) * x.mean(0)
        return out

def xport_example():
    return PerClass(), (torch.randn(4, 3), torch.tensor([0, 1, 1, 0]))

def xport_inputs():
    return [(torch.randn(4, 3), torch.tensor([1, 1, 1, 0]))]
""")

# -- strict-only failures --------------------------------------------------------------------------------

case("mock-patch-object-in-forward", None, 'Unsupported', """
class Patched(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 1.0

    def forward(self, x):
        with mock.patch.object(self, "scale", 2.0):
            return x * self.scale
""")

case("catch-warnings-with-simplefilter", None, 'Unsupported', """
class Quiet(nn.Module):
    def forward(self, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return x.log1p()
""")

case("autocast-mixing-dtypes", None, None, """
class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.lin(x)
        return y + x
""")

case("manual-seed-in-forward", None, 'Unsupported', """
class Noisy(nn.Module):
    def forward(self, x):
        torch.manual_seed(0)
        return x + 0 * torch.rand_like(x)
""")

case("math-sqrt-of-a-read-variance", 'GuardOnDataDependentSymNode', None, """
class Whiten(nn.Module):
    def forward(self, x):
        std = math.sqrt(x.var().item())
        return x / (std + 1e-5)
""")

case("math-log-of-a-read-through-a-helper", 'GuardOnDataDependentSymNode', 'UserError', """
def _log_scale(t):
    return math.log(t.abs().max().item() + 1.0)


class LogNorm(nn.Module):
    def forward(self, x):
        return x * _log_scale(x)
""")

case("assert-on-an-int-of-a-read", 'GuardOnDataDependentSymNode', None, """
class Validated(nn.Module):
    def forward(self, x):
        assert int((x > 100).sum()) == 0
        return x + 1
""")

case("assert-with-an-f-string-on-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class Described(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        assert peak < 1000, f"activation blew up: {peak}"
        return x * 2
""")

# -- near misses that export -------------------------------------------------------------------------------

case("item-in-arithmetic-through-a-staticmethod", None, None, """
class Offset(nn.Module):
    @staticmethod
    def _centre(t):
        return t.mean().item()

    def forward(self, x):
        return x - self._centre(x)
""")

case("shape-pair-unpacked-from-a-helper-then-tested", None, None, """
def _dims(t):
    return t.shape[0], t.shape[1]


class Reshaper(nn.Module):
    def forward(self, x):
        rows, cols = _dims(x)
        if cols > 1:
            return x.reshape(rows * cols)
        return x.flatten()
""")

case("class-attribute-step-count-as-a-range", None, None, """
class Iterated(nn.Module):
    STEPS = 3

    def forward(self, x):
        outs = []
        for _ in range(self.STEPS):
            x = x.sigmoid()
            outs.append(x)
        return torch.stack(outs)
""")

case("masked-rows-reduced-by-a-helper", None, None, """
def _positive_mean(t):
    return t[t > 0].sum() / t.numel()


class Summary(nn.Module):
    def forward(self, x):
        return x - _positive_mean(x)
""")

case("math-sqrt-of-a-static-width", None, None, """
class Attention(nn.Module):
    def forward(self, x):
        return (x @ x.transpose(0, 1)) / math.sqrt(x.shape[-1])
""")

case("property-of-a-python-float-tested", None, None, """
class Damped(nn.Module):
    def __init__(self, decay=0.9):
        super().__init__()
        self._decay = decay

    @property
    def decay(self):
        return float(self._decay)

    def forward(self, x):
        if self.decay < 1.0:
            return x * self.decay
        return x
""")

case("torch-where-on-a-per-row-read", None, None, """
class RowGate(nn.Module):
    def forward(self, x):
        gate = x.sum(dim=1, keepdim=True) > 0
        return torch.where(gate, x * 2, x)
""")

case("no-grad-around-a-buffer-read-in-arithmetic", None, None, """
class Calibrated(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tensor(0.25))

    def forward(self, x):
        with torch.no_grad():
            shift = self.bias.item()
        return x + shift
""")

case("nonzero-count-as-a-new-zeros-size", None, None, """
class Slots(nn.Module):
    def forward(self, x):
        n = torch.nonzero(x > 0).shape[0]
        return x.sum() + x.new_zeros(n).sum()
""")

case("float-of-a-read-in-arithmetic-via-a-module-helper", 'GuardOnDataDependentSymNode', None, """
def _mean(t):
    return float(t.mean())


class Centred(nn.Module):
    def forward(self, x):
        return x - _mean(x)
""")

case("bool-of-a-python-flag-attribute-negated", None, None, """
class Switch(nn.Module):
    def __init__(self, enabled=True):
        super().__init__()
        self.enabled = enabled

    def forward(self, x):
        if not bool(self.enabled):
            return x
        return x * 2
""")

case("shape-list-unpacked-into-a-reshape", None, None, """
class Flat(nn.Module):
    def forward(self, x):
        rows, cols = list(x.shape)
        return x.reshape(rows * cols)
""")

case("clamp-by-a-tensor-bound-not-a-read", None, None, """
class Capped(nn.Module):
    def forward(self, x):
        return torch.clamp(x, max=x.mean())
""")


#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_A_LOOP_AS_LONG_AS_THE_DATA = "a loop as long as the data says"

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "tolist-pair-unpacked-and-compared": "the test compares two elements unpacked from `.tolist()`",
    "steps-from-a-helper-with-a-cap": _A_LOOP_AS_LONG_AS_THE_DATA + " (through a helper's `min(int(...), cap)`)",
    "stack-of-steps-counted-by-an-item": _A_LOOP_AS_LONG_AS_THE_DATA + " (the stacked size is the count)",
    "split-by-an-int-of-an-item": "the number of pieces is the data",
    "interpolate-scale-from-an-item": "the resampling kernel needs a concrete float in both modes",
    "masked-select-numel-as-a-range": _A_LOOP_AS_LONG_AS_THE_DATA + " (the selected count)",
    "len-of-masked-rows-compared-in-a-ternary": "the branch tests a size the data decides, and its arms differ in shape",
    "unique-values-looped": _A_LOOP_AS_LONG_AS_THE_DATA + " (one step per distinct value)",
    "math-log-of-a-read-through-a-helper": "`math.log` of a read in a helper: `torch.log` changes the result's type",
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 30, 3, (Mode.NON_STRICT, Mode.STRICT))


BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
