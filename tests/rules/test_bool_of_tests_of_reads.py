"""`bool()` of a test of numbers read from data (`bool(float(x.mean()) > 0)`, `bool(a.item() > 0
and b.item() < 5)`): the test is a bool already, so the branch rewrites test it as a bool tensor,
`and` as `torch.logical_and` (rewrites.predicates: `_conversion` and `tensor_predicate`). Before,
the bound spelling had no fix and `bool(... and ...)` in the test got a torch.cond of Python's `and`
of two tensors, which failed export (a FAILED fix). Each spelling's torch outcome is checked in the
same test, both modes, and every fix offered proven (export + equal to eager on inputs driving each
branch): bound to a name then tested, in the test with `and`, negated, in a ternary; a bool of a
test joined by `and` bound to a name first is refused (no fix, never a failing one); and a test
of sizes under `bool()` exports with no error."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

_BRANCHES = '''

def xport_inputs():
    return [(torch.ones(2, 3),), (-torch.ones(2, 3),), (torch.ones(2, 3) * 9,)]
'''

case("bool-of-a-float-comparison-bound-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        positive = bool(float(x.mean()) > 0)
        if positive:
            return x
        return -x
""" + _BRANCHES)

case("bool-of-two-reads-joined-by-and-in-the-test", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if bool(x.mean().item() > 0 and x.max().item() < 5):
            return x * 2
        return x
""" + _BRANCHES)

case("bool-of-a-read-comparison-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if not bool(x.mean().item() > 0):
            return x - 1
        return x
""" + _BRANCHES)

case("bool-of-an-int-comparison-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        first = bool(int(x.sum(0).argmax()) == 0)
        return x * 2 if first else x
""" + _BRANCHES)

case("bool-of-an-and-bound-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        ok = bool(x.mean().item() > 0 and x.max().item() < 5)
        if ok:
            return x * 2
        return x
""" + _BRANCHES)

case("bool-of-a-size-test", None, None, """
class A(nn.Module):
    def forward(self, x):
        if bool(x.shape[0] > 1):
            return x * 2
        return x
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "bool-of-an-and-bound-then-tested": "a bound `bool()` of an `and`: the binding would keep Python's `and` of tensors",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
