"""Elements of the list of a tensor flattened to rank 1 (`x.flatten().tolist()[-1]`, `.ravel()`,
`.view(-1)`, `.reshape(-1)`), and Python's `max` / `any` over it: each element is a number whatever
the rank of `x`, the 0-d tensor `x.flatten()[-1]` of the same value, so the branch rewrites test
the tensor (rewrites.predicates._flat_list). Each spelling's torch outcome is checked in the same
test, both modes, and every fix offered proven (export + equal to eager on inputs driving each
branch): indexed in the test, bound to a name first, a negated test, a ternary, `max()` and
`any()` of the list; refused where the rank is not shown (`x[0].tolist()[-1]`: of a 3-d input the
element is a list); and the tensor form itself exports with no error."""

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
    return [(-torch.ones(2, 3),), (torch.ones(2, 3) * 6,), (torch.randn(2, 3),)]
'''

case("last-of-a-flattened-list-tested", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        if x.flatten().tolist()[-1] > 0:
            return x.clamp(min=0)
        return x
""" + _BRANCHES)

case("first-of-a-raveled-list-bound-then-negated", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        first = x.ravel().tolist()[0]
        if not first < 0:
            return x * 2
        return x
""" + _BRANCHES)

case("element-of-a-viewed-list-in-a-ternary", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        return x * 2 if x.view(-1).tolist()[1] > 0.5 else x - 1
""" + _BRANCHES)

case("max-of-a-reshaped-list", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        if max(x.reshape(-1).tolist()) > 5:
            return x.tanh()
        return x
""" + _BRANCHES)

case("any-of-a-flattened-mask-list", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        if any((x > 3).flatten().tolist()):
            return x / 3
        return x
""" + _BRANCHES)

case("last-of-a-row-list-rank-not-shown", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        if x[0].tolist()[-1] > 0:
            return x * 2
        return x
""" + _BRANCHES)

case("last-of-a-flattened-tensor-in-a-where", None, None, """
class A(nn.Module):
    def forward(self, x):
        return torch.where(x.flatten()[-1] > 0, x.clamp(min=0), x)
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "last-of-a-row-list-rank-not-shown": "`x[0].tolist()[-1]`: the rank of `x[0]` is not shown, the element may be a list",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
