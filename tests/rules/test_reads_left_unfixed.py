"""Fixes that would not prove are not offered (issue 25: an offered fix that is not proven is not
offered), each spelling's torch outcome checked in the same test, both modes:
- `sum(int(r.sum()) for r in x) > 0`: each row's sum is truncated before adding up, so `x.sum()` is
  not the same number, and the torch.cond rewrite left `int(r.sum())` in its predicate (a read of the
  comprehension's variable, a tensor only in the flow of the original nodes): export failed again
  (rewrites.predicates.python_read, given the test the predicate was written from);
- `float()` of a tensor in a dict display a helper returns: `.item()` reads the same number, which
  the caller tests by key (`stats["peak"] > 1.0`) and fails on as before; the dict's entries are not
  followed to their tests, so no `.item()` is offered there (XPT203 `_returned_in_a_dict`).
The row sums read as floats (`float(r.sum())`) still add up to `x.sum()` and keep their proven fix."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

_SIGNS = '''

def xport_inputs():
    return [(torch.ones(2, 3),), (-torch.ones(2, 3),)]
'''

_SCALES = '''

def xport_inputs():
    return [(torch.randn(2, 3) * 0.01,), (torch.randn(2, 3) * 10,)]
'''

case("int-of-each-row-sum-summed-in-the-test", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def forward(self, x):
        if sum(int(r.sum()) for r in x) > 0:
            return x * 2
        return x
""" + _SIGNS)

case("int-of-each-row-sum-in-a-list-negated", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def forward(self, x):
        if not sum([int(row.sum()) for row in x.relu()]) > 0:
            return x - 1
        return x
""" + _SIGNS)

case("float-of-each-row-sum-summed-in-the-test", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def forward(self, x):
        if sum(float(r.sum()) for r in x) > 0:
            return x * 2
        return x
""" + _SIGNS)

case("float-in-a-dict-a-helper-returns", "GuardOnDataDependentSymNode", "UserError", """
def _stats(t):
    return {"peak": float(t.abs().max())}


class A(nn.Module):
    def forward(self, x):
        if _stats(x)["peak"] > 1.0:
            return x / 2
        return x
""" + _SCALES)

case("float-in-a-dict-bound-then-returned", "GuardOnDataDependentSymNode", "UserError", """
def _stats(t):
    stats = {"peak": float(t.abs().max()), "mean": float(t.mean())}
    return stats


class A(nn.Module):
    def forward(self, x):
        stats = _stats(x)
        if stats["peak"] > 1.0:
            return x / stats["peak"]
        return x
""" + _SCALES)

case("tensor-in-a-dict-a-helper-returns-then-scaled", None, None, """
def _peak(t):
    return {"peak": t.abs().max()}


class A(nn.Module):
    def forward(self, x):
        return x / (_peak(x)["peak"] + 1.0)
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    **{(name, Mode.STRICT): "a helper returning a dict of reads, read by key: the entry is not followed"
       for name in ("float-in-a-dict-a-helper-returns", "float-in-a-dict-bound-then-returned")},
}

NO_FIX = {
    "int-of-each-row-sum-summed-in-the-test": "each row's sum truncated: not `x.sum()`",
    "int-of-each-row-sum-in-a-list-negated": "each row's sum truncated: not `x.sum()`",
    "float-in-a-dict-a-helper-returns": "the dict's entry is not followed to the caller's test",
    "float-in-a-dict-bound-then-returned": "the dict's entry is not followed to the caller's test",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
