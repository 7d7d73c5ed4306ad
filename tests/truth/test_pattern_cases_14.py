"""A fourteenth batch of held-out-style programs for issue 25 (recall on failing models written by
others): `torch.as_tensor` / `torch.tensor` of reads, `.tolist()` by dtype, Python-side state, numpy,
generators, `functools` wrappers (`lru_cache`, `partial`, `wraps`), dataclasses and namedtuples as inputs
and outputs, context managers of torch, the standard library and user classes, a kept lambda returning a
tuple of reads, and a helper's parameter defaulting to None that the file's caller passes a tensor.

Measured on torch 2.13.0, some of them surprising:
- `torch.as_tensor(t.item())` and `torch.as_tensor(t.tolist())` fail in both modes (any dtype, with or
  without `dtype=`), while `torch.tensor(t.item())` and `torch.tensor(<integer tensor>.tolist())` export
  in both; `torch.as_tensor(list(x.shape))` and `torch.as_tensor(x)` export.
- `.tolist()` of a tensor that is not integral (float, half, double, bool; a float buffer too) fails
  strict export (`Unsupported: Tensor.tolist() with non-integer tensor`) and exports non-strict; of an
  integral one (`.long()`, `.int()`, `argmax`, a count) it exports in both.
- `np.mean(x.detach().cpu().numpy())` fails non-strict only; a kept lambda returning `(mean, std)`
  reads exports in both when only used in arithmetic, and fails both once compared in an `if`.
- an unregistered dataclass as an example input fails in both modes (ValueError / UserError); a
  registered one and a namedtuple (input and output) export.

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside it
(the exception type, or None where it exports). 45 programs: 14 fail non-strict, 27 strict, 17 export
in both.

The batch was written, and measured, before any change it prompted. Before (the engine of fa37fd7):
    non-strict: 6/14 failing programs with an error (43 %), 0/31 exporting programs with one
    strict:     12/27 failing programs with an error (44 %), 0/18 exporting programs with one
    misses: `torch.as_tensor` of reads (3, both modes), `.tolist()` of floats or booleans (6, strict),
    a parameter defaulting to None that the file's caller passes (2, both modes), a dataclass returned
    through a helper (both modes), and those still in `KNOWN_MISSES`

After the changes it prompted (the tests below keep these):
    non-strict: 13/14 failing programs with an error (93 %), 0/31 exporting programs with one
    strict:     25/27 failing programs with an error (93 %), 0/18 exporting programs with one
    by fact, each with its spellings (tests/rules/test_tensor_dtypes.py,
    tests/rules/test_optional_passed_by_callers.py, tests/engine/test_spellings.py):
    - XPT203: `torch.as_tensor` of a number or list read from data, both modes (fix: `torch.tensor`);
      strict `.tolist()` of a tensor known not to hold integers, by a dtype fact (`dtypes.py`: casts,
      ops, factories, the export's example inputs, buffers and parameters `__init__` keeps; unknown
      dtype: no strict error)
    - reach: a helper's parameter defaulting to None that every traced call of the file passes a value
      that is not None is passed on a default export (its guarded data branch is an error)
    - XPT415: an unregistered class returned through a one-line helper of the file
    - XPT416 (new): an example input of the export (positional, keyword, in a list) that builds an
      unregistered class of the file (tests/rules/test_unregistered_inputs.py); its case here now gives
      its example as a dict (`{"model": ..., "args": ...}`), which the engine reads as an export site as
      it reads an export call (a tuple returned by `xport_example()` is the harness's form, not one)
    left (`KNOWN_MISSES`): a `functools.partial` kept on `self` (its call's tensor arguments are not
    followed into the wrapped function: dataflow), strict `int()` of a read handed to an `lru_cache`
    function
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module, large_with_near_misses
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("""import collections
import contextlib
import dataclasses
import functools
import itertools
import random
import threading
import typing
import numpy as np""", exporting_last_module)
case = CASES.case

# -- torch.as_tensor / torch.tensor of reads ---------------------------------------------------------

case("as-tensor-of-tolist-rescaled", "GuardOnDataDependentSymNode", "Unsupported", """
class Rescale(nn.Module):
    def forward(self, x):
        scale = torch.as_tensor(x.amax(dim=0).tolist())
        return x / (scale + 1.0)
""")

case("as-tensor-of-item-bound-first", "GuardOnDataDependentSymNode", "UserError", """
class Offset(nn.Module):
    def forward(self, x):
        peak = x.max().item()
        offset = torch.as_tensor(peak, dtype=x.dtype)
        return x - offset
""")

case("as-tensor-of-item-in-a-helper", "GuardOnDataDependentSymNode", "UserError", """
def _as_bias(t):
    return torch.as_tensor(t.mean().item())


class Centre(nn.Module):
    def forward(self, x):
        return x - _as_bias(x)
""")

case("tensor-of-tolist-rebuilt", None, "Unsupported", """
class Rebuild(nn.Module):
    def forward(self, x):
        values = torch.tensor(x.sum(dim=0).tolist())
        return x * values


def xport_example():
    return {"model": Rebuild(), "args": (torch.randn(2, 3),)}
""")

case("as-tensor-of-a-python-list-of-sizes", None, None, """
class SizeScale(nn.Module):
    def forward(self, x):
        sizes = torch.as_tensor(list(x.shape), dtype=torch.float32)
        return x / sizes.sum()
""")

# -- .tolist() by dtype --------------------------------------------------------------------------------

case("float-tolist-weights-summed", None, "Unsupported", """
class Mix(nn.Module):
    def forward(self, x):
        weights = x.softmax(dim=-1)[0].tolist()
        return x * weights[0] + x * weights[1]
""")

case("float-tolist-through-a-helper", None, "Unsupported", """
def _norms(t):
    return t.norm(dim=1).tolist()


class Norms(nn.Module):
    def forward(self, x):
        first, second = _norms(x)
        return x * first
""")

case("long-tolist-of-argmax-indexing", None, "IndexError", """
class Pick(nn.Module):
    def forward(self, x):
        picked = x.argmax(dim=-1).tolist()
        return x[:, picked[0]]
""")

case("long-tolist-of-an-integer-input", None, "IndexError", """
class Gather(nn.Module):
    def forward(self, x, idx):
        positions = idx.tolist()
        return x[:, positions[0]]


def xport_example():
    return Gather(), (torch.randn(2, 3), torch.tensor([1, 0]))


def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 1]))]
""")

case("float-tolist-of-a-float-cast", None, "Unsupported", """
class Counts(nn.Module):
    def forward(self, x):
        counts = (x > 0).sum(dim=0).float().tolist()
        return x * counts[0]
""")

case("long-tolist-of-a-long-cast-unused-in-control", None, None, """
class Steps(nn.Module):
    def forward(self, x):
        steps = (x > 0).sum(dim=0).long().tolist()
        return x + steps[0]
""")

# -- Python-side state, numpy, generators, functools ------------------------------------------------------

case("call-counter-on-self", None, None, """
class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * 2
""")

case("module-level-cache-keyed-by-shape", None, None, """
_CACHE = {}


def _positions(n):
    if n not in _CACHE:
        _CACHE[n] = torch.arange(n)
    return _CACHE[n]


class Positional(nn.Module):
    def forward(self, x):
        return x + _positions(x.shape[-1])
""")

case("numpy-mean-of-detached-input", "RuntimeError", None, """
class NumpyCentre(nn.Module):
    def forward(self, x):
        mean = np.mean(x.detach().cpu().numpy())
        return x - float(mean)
""")

case("numpy-constant-table-from-init", None, None, """
class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = np.linspace(0.0, 1.0, 3).astype(np.float32)

    def forward(self, x):
        return x * torch.from_numpy(self.table)
""")

case("random-choice-of-a-branch", None, "Unsupported", """
class Drop(nn.Module):
    def forward(self, x):
        if random.random() < 0.5:
            return x * 0.5
        return x
""")

case("generator-of-layers-consumed-by-next", None, "Unsupported", """
class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(2))
        self.order = iter(self.layers)

    def forward(self, x):
        return next(self.order)(x)
""")

case("generator-helper-yielding-data-dependent-rows", "GuardOnDataDependentSymNode", "Unsupported", """
def _positive_rows(t):
    for row in t:
        if row.sum() > 0:
            yield row


class Keep(nn.Module):
    def forward(self, x):
        return torch.stack(list(_positive_rows(x)))
""")

case("lru-cache-method-keyed-by-a-read", "GuardOnDataDependentSymNode", "UserError", """
@functools.lru_cache(maxsize=8)
def _window(n):
    return torch.hann_window(n)


class Window(nn.Module):
    def forward(self, x):
        n = int(x.abs().sum().item()) % 3 + 1
        return x[:, :n] * _window(n)
""")

case("partial-of-a-data-dependent-helper", "GuardOnDataDependentSymNode", "Unsupported", """
def _gate(t, threshold):
    if t.mean() > threshold:
        return t
    return -t


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = functools.partial(_gate, threshold=0.0)

    def forward(self, x):
        return self.gate(x)
""")

case("wraps-decorator-around-a-data-branch", "GuardOnDataDependentSymNode", "UserError", """
def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class Clip(nn.Module):
    @logged
    def forward(self, x):
        if x.max().item() > 1.0:
            return x.clamp(max=1.0)
        return x
""")

case("kept-lambda-returning-a-tuple-of-reads", None, None, """
class Stats(nn.Module):
    def __init__(self):
        super().__init__()
        self.stats = lambda t: (t.mean().item(), t.std().item())

    def forward(self, x):
        mean, std = self.stats(x)
        return (x - mean) / std
""")

# -- dataclasses and namedtuples in and out ---------------------------------------------------------

case("unregistered-dataclass-input", "ValueError", "UserError", """
@dataclasses.dataclass
class Batch:
    features: torch.Tensor
    scale: torch.Tensor


class Head(nn.Module):
    def forward(self, batch):
        return batch.features * batch.scale


def xport_example():
    return {"model": Head(), "args": (Batch(torch.randn(2, 3), torch.randn(2, 3)),)}


def xport_inputs():
    return [(Batch(torch.randn(2, 3), torch.randn(2, 3)),)]
""")

case("namedtuple-input-and-output", None, None, """
Pair = collections.namedtuple("Pair", ["left", "right"])


class Swap(nn.Module):
    def forward(self, pair):
        return Pair(pair.right * 2, pair.left)


def xport_example():
    return Swap(), (Pair(torch.randn(2, 3), torch.randn(2, 3)),)


def xport_inputs():
    return [(Pair(torch.randn(2, 3), torch.randn(2, 3)),)]
""")

case("typed-namedtuple-output", None, None, """
class Output(typing.NamedTuple):
    logits: torch.Tensor
    probs: torch.Tensor


class Classifier(nn.Module):
    def forward(self, x):
        return Output(x, x.softmax(dim=-1))
""")

case("dataclass-output-through-a-helper", "RuntimeError", "AssertionError", """
@dataclasses.dataclass
class Output:
    logits: torch.Tensor


def _wrap(t):
    return Output(logits=t)


class Classifier(nn.Module):
    def forward(self, x):
        return _wrap(x * 2)
""")

# -- context managers -----------------------------------------------------------------------------------

case("lock-held-around-the-forward", None, "Unsupported", """
class Locked(nn.Module):
    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()

    def forward(self, x):
        with self.lock:
            return x * 2
""")

case("user-context-counting-entries", None, "Unsupported", """
class Tracker:
    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        return False


class Tracked(nn.Module):
    def __init__(self):
        super().__init__()
        self.tracker = Tracker()

    def forward(self, x):
        with self.tracker:
            return x + 1
""")

case("suppress-around-a-shape-op", None, None, """
class Safe(nn.Module):
    def forward(self, x):
        with contextlib.suppress(RuntimeError):
            return x.view(3, 2)
        return x
""")

case("fork-rng-around-dropout", None, "Unsupported", """
class Noisy(nn.Module):
    def forward(self, x):
        with torch.random.fork_rng():
            return x + 1
""")

case("autocast-cpu-bfloat16", None, None, """
class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.proj(x)
        return y.float()
""")

case("no-grad-decorated-helper", None, None, """
@torch.no_grad()
def _normalise(t):
    return t / t.norm(dim=-1, keepdim=True)


class Embed(nn.Module):
    def forward(self, x):
        return _normalise(x)
""")

case("set-grad-enabled-from-training-flag", None, None, """
class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        with torch.set_grad_enabled(self.training):
            return self.proj(x)
""")

case("nullcontext-or-no-grad-by-flag", None, None, """
class Maybe(nn.Module):
    def __init__(self, frozen=True):
        super().__init__()
        self.frozen = frozen
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        ctx = torch.no_grad() if self.frozen else contextlib.nullcontext()
        with ctx:
            return self.proj(x)
""")

# -- a parameter defaulting to None, passed by a same-file caller ----------------------------------------

case("none-default-mask-passed-by-forward", "GuardOnDataDependentSymNode", "Unsupported", """
def _masked_mean(x, mask=None):
    if mask is not None:
        if mask.sum() == 0:
            return x.mean(dim=0)
        return (x * mask).sum(dim=0) / mask.sum()
    return x.mean(dim=0)


class Pool(nn.Module):
    def forward(self, x):
        return _masked_mean(x, mask=(x > 0).float())
""")

case("none-default-mask-on-a-method-passed-positionally", "GuardOnDataDependentSymNode", "Unsupported", """
class Pool(nn.Module):
    def _pool(self, x, mask=None):
        if mask is None:
            return x.mean(dim=0)
        if not mask.any():
            return x.mean(dim=0)
        return x[0]

    def forward(self, x):
        return self._pool(x, x > 0)
""")

case("none-default-mask-never-passed", None, None, """
class Pool(nn.Module):
    def _pool(self, x, mask=None):
        if mask is not None and mask.any():
            return x[0]
        return x.mean(dim=0)

    def forward(self, x):
        return self._pool(x)
""")

case("kept-lambda-tuple-of-reads-compared", "GuardOnDataDependentSymNode", "UserError", """
class Stats(nn.Module):
    def __init__(self):
        super().__init__()
        self.stats = lambda t: (t.mean().item(), t.std().item())

    def forward(self, x):
        mean, std = self.stats(x)
        if mean > std:
            return x - mean
        return x
""")

case("tensor-of-item-as-a-bias", None, None, """
class Bias(nn.Module):
    def forward(self, x):
        return x + torch.tensor(x.min().item())
""")

case("float-buffer-tolist-from-init", None, "Unsupported", """
class Weighted(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weights", torch.linspace(0.5, 1.5, 3))

    def forward(self, x):
        w = self.weights.tolist()
        return x * w[0]
""")

case("bool-tolist-of-a-comparison", "GuardOnDataDependentSymNode", "Unsupported", """
class Flags(nn.Module):
    def forward(self, x):
        flags = (x[0] > 0).tolist()
        return x * 2 if flags[0] else x
""")

case("argmax-float-tolist", None, "Unsupported", """
class Pick(nn.Module):
    def forward(self, x):
        positions = x.argmax(dim=-1).float().tolist()
        return x * positions[0]
""")

case("long-tolist-of-a-size-table", None, None, """
class Sizes(nn.Module):
    def forward(self, x):
        sizes = torch.tensor(x.shape).tolist()
        return x.reshape(sizes[1], sizes[0])
""")

case("registered-dataclass-input", None, None, """
@dataclasses.dataclass
class Batch:
    features: torch.Tensor
    scale: torch.Tensor


torch.utils._pytree.register_dataclass(Batch)


class Head(nn.Module):
    def forward(self, batch):
        return batch.features * batch.scale


def xport_example():
    return {"model": Head(), "args": (Batch(torch.randn(2, 3), torch.randn(2, 3)),)}


def xport_inputs():
    return [(Batch(torch.randn(2, 3), torch.randn(2, 3)),)]
""")

case("exit-stack-entering-a-user-tracker", None, "Unsupported", """
class Tracker:
    def __init__(self):
        self.entered = []

    def __enter__(self):
        self.entered.append(1)
        return self

    def __exit__(self, *exc):
        self.entered.pop()
        return False


class Tracked(nn.Module):
    def __init__(self):
        super().__init__()
        self.tracker = Tracker()

    def forward(self, x):
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.tracker)
            return x + 1
""")

#: (case, mode) where xport-lint has no error on a failing program, or one on an exporting program, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    ("lru-cache-method-keyed-by-a-read", Mode.STRICT): "`int()` of a read used as a slice bound: flagged non-strict only",
    **{("partial-of-a-data-dependent-helper", mode): "a `functools.partial` kept on `self` is not followed into its function"
       for mode in Mode},
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 36, 4, tuple(Mode))


BATCH = CaseBatch(CASES, KNOWN_MISSES)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
