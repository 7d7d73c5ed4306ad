"""A number read from data passed through `max()`/`min()` with other numbers, then used only as a
size or a slice bound: export carries `max(u0, 1)` as a symbol (measured on torch 2.13:
`torch.zeros(max(k.item(), 1), 8)` and `x[: min(k.item(), 2)]` export in both modes and equal
eager for every k tried), so XPT203's fix (`int(t)` -> `t.item()`) holds through them. Where the
result is tested, the branch rewrite's fix (the number kept a tensor, `torch.cond`) applies.

BEFORE (9da0933): every failing program had an error; the three used as sizes or bounds had no
fix; AFTER: they get the fix, proven (export + equal to eager); the tested one keeps its own.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")
case = CASES.case

_EXAMPLE = """

def xport_example():
    return M(), (torch.randn(4, 8), torch.tensor(3))


def xport_inputs():
    return [(torch.randn(4, 8), torch.tensor(0)), (torch.randn(4, 8), torch.tensor(9))]
"""

case("max-of-int-as-size", "GuardOnDataDependentSymNode", None, """
class M(nn.Module):
    def forward(self, x, n):
        m = max(int(n), 1)
        return torch.zeros(m, 8) + x.sum()
""" + _EXAMPLE)

case("min-of-int-as-slice-bound", "GuardOnDataDependentSymNode", None, """
class M(nn.Module):
    def forward(self, x, n):
        return x[: min(int(n), 2)]
""" + _EXAMPLE)

case("max-of-int-item-in-new-zeros", "GuardOnDataDependentSymNode", None, """
class M(nn.Module):
    def forward(self, x, n):
        rows = max(int(n.sum().item()), 1)
        return x.new_zeros(rows, 2)
""" + _EXAMPLE)

case("max-of-int-then-tested", "GuardOnDataDependentSymNode", "UserError", """
class M(nn.Module):
    def forward(self, x, n):
        m = max(int(n), 1)
        if m > 2:
            return x * 2
        return x
""" + _EXAMPLE)

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
