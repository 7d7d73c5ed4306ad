"""`sum()` of the sum read from each row of a tensor (`sum([row.sum().item() for row in x])`,
`float(row.sum())`, a generator): the rows' sums add up to `x.sum()`, which the branch rewrites test
as a tensor (rewrites.predicates._summed_list). Each spelling's torch outcome is checked in the same
test, both modes, and every fix offered proven (export + equal to eager on inputs driving each
branch): a list bound to a name then tested, `float()` of each row's sum, over a computed tensor,
and a negated test; the tensor form exports with no error."""

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
    return [(torch.ones(2, 3),), (-torch.ones(2, 3),), (torch.zeros(2, 3),)]
'''

case("list-of-row-sums-bound-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        total = sum([row.sum().item() for row in x])
        if total > 0:
            return x * 2
        return x
""" + _BRANCHES)

case("float-of-each-row-sum-in-the-test", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if sum([float(row.sum()) for row in x]) > 0:
            return x * 2
        return x
""" + _BRANCHES)

case("row-sums-of-a-computed-tensor-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        energy = sum([row.sum().item() for row in x.relu()])
        if not energy > 0:
            return x - 1
        return x
""" + _BRANCHES)

case("sum-of-all-as-a-tensor", None, None, """
class A(nn.Module):
    def forward(self, x):
        return torch.where(x.sum() > 0, x * 2, x)
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
