"""`int()` of a number read from data fails non-strict export even where `torch._check` bounds it
(the conversion needs a concrete value); `.item()` alone is carried as a symbol the checks
constrain. XPT203's fix drops `int()` where the number is read only by checks and sizes, however
it is bound (a name, a tuple element) and checked (`_check`, `_check_is_size`, through arithmetic);
a number a branch tests as well keeps no fix. Each spelling is a case of its own, torch 2.13's
outcome checked in both modes, every fix offered proven (exports, equals eager)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
class Reserve(nn.Module):
    def forward(self, x, n):
{body}


def xport_example():
    return Reserve(), (torch.randn(3), torch.tensor(2))


def xport_inputs():
    return [(torch.randn(3), torch.tensor(5))]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("bound-then-checked", "k = int(n.item())\ntorch._check(k >= 0)\ntorch._check(k <= 8)\n"
     "return torch.cat([x, x.new_zeros(k)])", "GuardOnDataDependentSymNode", None),
    ("unpacked-then-checked", "k, pad = int(n.item()), 1\ntorch._check(k <= 8)\ntorch._check_is_size(k)\n"
     "return torch.cat([x, x.new_zeros(k + pad)])", "GuardOnDataDependentSymNode", None),
    ("checked-as-a-size", "k = int(n.item())\ntorch._check_is_size(k, max=8)\nreturn x.new_zeros(k).sum() + x", "GuardOnDataDependentSymNode", None),
    ("checked-through-arithmetic", "k = int(n.item())\ntorch._check(0 <= k * 2)\ntorch._check(k * 2 <= 16)\n"
     "return torch.cat([x, x.new_ones(k * 2)])", "GuardOnDataDependentSymNode", None),
    ("checked-then-tested", "k = int(n.item())\ntorch._check(k >= 0)\nif k > 3:\n    return x * 2\nreturn x",
     "GuardOnDataDependentSymNode", "UserError"),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

NO_FIX = {"checked-then-tested": "a branch tests the number too: dropping `int()` moves the failure there"}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
