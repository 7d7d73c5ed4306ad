"""`int()` / `float()` of a size the data decides (`picked.numel()` of a masked selection,
`idx.size(0)` of `nonzero`): non-strict export has no concrete value to convert and fails
(GuardOnDataDependentSymNode); strict export carries the symbol. XPT203 reports it in non-strict
mode, and drops `int()` (the size is an int already) where the symbol is carried: a size, an
index, an operand of tensor arithmetic. Each spelling's torch outcome is checked in the same test,
both modes, and every fix offered proven (export + equal to eager): in place, bound to a name
first, through a helper, a size `nonzero` decides, and near misses (a static size of the same
tensor, the size without `int()`)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

case("int-of-a-masked-numel-as-a-view-size", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        return picked.view(int(picked.numel()), 1)
""")

case("int-of-a-masked-shape-bound-then-a-reshape-size", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        rows = int(picked.shape[0])
        return picked.reshape(rows, 1)
""")

case("int-of-a-nonzero-size-as-a-new-zeros-size", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        return x.new_zeros(int(idx.size(0))).sum() + x.sum()
""")

case("int-of-a-masked-numel-scaling-a-tensor", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        return x * int(picked.numel())
""")

case("int-of-a-masked-numel-through-a-helper", 'GuardOnDataDependentSymNode', None, """
def _count(t):
    return int(t.numel())


class A(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        return picked.view(_count(picked), 1)
""")

case("float-of-a-masked-numel-scaling-a-tensor", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        return x * float(picked.numel())
""")

case("int-of-the-static-width-of-nonzero", None, None, """
class A(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        return x * int(idx.shape[1])
""")

case("a-masked-numel-as-a-view-size", None, None, """
class A(nn.Module):
    def forward(self, x):
        picked = x[x > 0]
        return picked.view(picked.numel(), 1)
""")

case("int-of-a-static-size", None, None, """
class A(nn.Module):
    def forward(self, x):
        return x.view(int(x.shape[0]), -1)
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "float-of-a-masked-numel-scaling-a-tensor": "`float()` of the size: dropping it changes the number's type",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
