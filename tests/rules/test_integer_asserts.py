"""`assert int(count) == 0` on a tensor of integers (a mask's `sum()`, `argmax`, `count_nonzero`):
`int()` fails non-strict export (no concrete value) where `count.item() == 0` exports in both modes
and still raises on bad data, the assert kept as a runtime check (measured on torch 2.13, the
module loaded from a file, as export needs to see the `assert`). XPT203 offers `.item()` there;
with a literal message XPT103's `torch._check` fix follows. Refused on a float tensor (`int()`
truncates, `.item()` does not), and where the test is more than one comparison. Each spelling's
torch outcome is checked in the same test, both modes, and every fix offered proven: in place,
with a literal message, bound to a name first, reversed, of an `argmax`."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

case("int-of-a-nan-count-asserted-zero", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert int(torch.isnan(x).sum()) == 0
        return x * 2
""")

case("int-of-a-count-asserted-with-a-literal-message", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert int((x.abs() > 100).sum()) == 0, "values out of range"
        return x + 1
""")

case("int-of-a-count-bound-then-asserted", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        bad = int(torch.isinf(x).sum())
        assert bad == 0
        return x.relu()
""")

case("zero-asserted-equal-to-an-int-of-a-count", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert 0 == int(torch.isnan(x).sum())
        return x - 1
""")

case("int-of-an-argmax-asserted-in-range", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert int(x.flatten().argmax()) < 6
        return x * 3
""")

case("int-of-a-float-sum-asserted", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert int(x.abs().sum()) < 1000000
        return x + 2
""")

case("item-of-a-nan-count-asserted-zero", None, None, """
class A(nn.Module):
    def forward(self, x):
        assert torch.isnan(x).sum().item() == 0
        return x * 2
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "int-of-a-float-sum-asserted": "`int()` of a float tensor truncates, `.item()` does not",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
