"""Python reading a tensor's values where the code does not say `.item()` (issue 25: the same fact
however it is spelled): `torch._assert` of a tensor, membership `0 in mask`, Python's `max()`,
`min()` and `sorted()` over a tensor or a list read from one, a class count read from data given to
`F.one_hot`, and a list read from data used as an index. Each is measured on torch 2.13 in both
modes, beside spellings that export (a test of sizes, `torch._assert_async`, membership in a
tuple or in `x.shape`, `max()` of sizes, a count written out, numbers of a list read one by one).

Figures (static against the recorded outcomes; BEFORE is this file run on the engine of `dc88b66`):
failing programs with an error, non-strict 3/20 -> 20/20, strict 2/17 -> 17/17; exporting programs
with one 0/12 and 0/15 before and after. Fixes (`--fix --unsafe-fixes`, export and equal to eager):
0 proven of 20 -> 17, and the one offered before (`if all(t):` as `torch.cond(all(t), ...)`)
failed export; the other 3 say why none (`NO_FIX`)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def has_zero(m):
    return 0.0 in m


def longest(lengths):
    return max(lengths)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.classes = 4
        self.kept = (0, 2)

    def forward(self, x, t):
{body}


def xport_example():
    return Model(), (torch.randn(4, 8), {example})


def xport_inputs():
    return [(torch.randn(4, 8), {other})]
"""

_MASK = ("torch.tensor([1, 0, 1, 1])", "torch.tensor([1, 1, 1, 1])")
_LABELS = ("torch.tensor([1, 0, 2, 1])", "torch.tensor([3, 0, 2, 1])")
_LENGTHS = ("torch.tensor([5, 3, 7, 1])", "torch.tensor([2, 6, 1, 4])")
_ROWS = ("torch.tensor([2, 0])", "torch.tensor([1, 3])")
_GUARD = ("GuardOnDataDependentSymNode", "UserError")
_SPECIALISE = ("GuardOnDataDependentSymNode", "UserError")
#: (name, the body of forward, (example, another input), torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    # torch._assert is a Python `assert` of its condition: bool() of the tensor
    ("torch-assert-reduction", 'torch._assert((t >= 0).all(), "negative entry")\nreturn x * 2', _MASK, *_GUARD),
    ("torch-assert-name-bound-first", 'ok = t.sum() > 0\ntorch._assert(ok, "empty mask")\nreturn x * 2', _MASK, *_GUARD),
    ("torch-assert-not", 'torch._assert(not torch.isnan(x).any(), "nan")\nreturn x * 2', _MASK, *_GUARD),
    ("torch-assert-read-number", 'torch._assert(t.sum().item() > 0, "empty")\nreturn x * 2', _MASK, *_GUARD),
    ("torch-assert-of-sizes", 'torch._assert(x.shape[1] == 8, "width")\nreturn x * t.sum()', _MASK, None, None),
    ("torch-assert-async", 'torch._assert_async((t >= 0).all(), "negative entry")\nreturn x * 2', _MASK, None, None),
    # `v in tensor` is Tensor.__contains__: `(tensor == v).any()` read as a Python bool
    ("membership-tested", "if 0 in t:\n    return x\nreturn x * 2", _MASK, *_GUARD),
    ("non-membership-tested", "if 0 not in t:\n    return x\nreturn x * 2", _MASK, *_GUARD),
    ("membership-bound-first", "found = 3 in t\nreturn x * 2 if found else x", _LABELS, *_GUARD),
    ("membership-from-a-helper", "flag = has_zero(t)\nreturn x * 2 if flag else x", _MASK, *_GUARD),
    ("membership-in-a-tuple", "if 2 in self.kept:\n    return x * t.sum()\nreturn x", _MASK, None, None),
    ("membership-in-a-shape", "if 8 in x.shape:\n    return x * t.sum()\nreturn x", _MASK, None, None),
    # Python's max/min/sorted iterate and compare the elements in Python
    ("python-max-of-a-tensor", "m = max(t)\nreturn x * m", _LENGTHS, "TypeError", None),
    ("python-min-of-a-tensor", "return x * min(t)", _LENGTHS, "TypeError", None),
    ("python-max-through-a-helper", "return x * longest(t)", _LENGTHS, "TypeError", None),
    ("python-sorted-of-a-tensor", "s = sorted(t)\nreturn x * s[0]", _LENGTHS, "GuardOnDataDependentSymNode", "Unsupported"),
    ("python-sorted-of-a-read-list", "s = sorted(t.tolist(), reverse=True)\nreturn x * s[0]", _LENGTHS,
     "GuardOnDataDependentSymNode", "Unsupported"),
    ("python-max-of-a-read-list", "return x * max(t.tolist())", _LENGTHS, None, None),
    ("python-any-of-a-comparison", "return x * 2 if any(t > 2) else x", _LENGTHS, "GuardOnDataDependentSymNode",
     "Unsupported"),
    ("python-all-of-a-tensor", "if all(t):\n    return x * 2\nreturn x", _LENGTHS, "GuardOnDataDependentSymNode",
     "Unsupported"),
    ("python-max-of-a-generator", "return x * max(v for v in t)", _LENGTHS, None, None),
    ("python-max-of-sizes", "return x * max(x.shape) * t.sum()", _LENGTHS, None, None),
    ("python-max-of-a-constant-tuple", "return x * max(self.kept) * t.sum()", _LENGTHS, None, None),
    # a class count read from data: one_hot needs a concrete int
    ("one-hot-count-read", "c = t.max().item() + 1\nreturn x.sum(1, keepdim=True) * F.one_hot(t, num_classes=c)",
     _LABELS, *_SPECIALISE),
    ("one-hot-count-converted", "return x.sum(1, keepdim=True) * F.one_hot(t, int(t.max()) + 1)", _LABELS, *_SPECIALISE),
    ("one-hot-count-kept", "return x.sum(1, keepdim=True) * F.one_hot(t, num_classes=self.classes)", _LABELS,
     None, None),
    # a list read from data, used whole as an index
    ("index-by-a-read-list", "return x[t.tolist()]", _ROWS, *_SPECIALISE),
    ("index-by-a-read-list-bound-first", "rows = t.tolist()\nreturn x[rows] * 2", _ROWS, *_SPECIALISE),
    ("index-by-read-numbers-one-by-one", "i, j = t.tolist()\nreturn x[i] + x[j]", _ROWS, None, None),
    ("index-by-the-tensor", "return x[t] * 2", _ROWS, None, None),
]
for name, body, (example, other), non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(
        body="\n".join(" " * 8 + line for line in body.splitlines()), example=example, other=other))

CASES.case("torch-assert-imported-in-a-submodule", *_GUARD, """
from torch import _assert


class Block(nn.Module):
    def forward(self, x, m):
        _assert(m.sum() > 0, "empty mask")
        return x * m[:, None]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, mask):
        return self.block(x, mask) + 1


def xport_example():
    return Model(), (torch.randn(4, 8), torch.tensor([1, 0, 1, 1]))


def xport_inputs():
    return [(torch.randn(4, 8), torch.tensor([1, 1, 1, 1]))]
""")

CASES.case("torch-assert-imported-on-sizes", None, None, """
from torch import _assert


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.img_size = (8, 8)
        self.proj = nn.Conv2d(3, 4, 4, 4)

    def forward(self, x):
        B, C, H, W = x.shape
        _assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
        return self.proj(x)


def xport_example():
    return PatchEmbed(), (torch.randn(2, 3, 8, 8),)


def xport_inputs():
    return [(torch.randn(2, 3, 8, 8),)]
""")

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX = {
    "python-max-through-a-helper": "`max()` of a helper's parameter: another caller may pass the helper a list",
    "one-hot-count-read": "the class count is data: only the count the model knows exports",
    "one-hot-count-converted": "the class count is data: only the count the model knows exports",
}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
