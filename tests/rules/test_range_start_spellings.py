"""A loop over `range(start, n)` with `n` read from data (XPT201) gets the same `torch.while_loop`
fix as `range(n)`, the counter starting at `start`, however the bound is written (`int(t) + 1` in
place, `.item()` bound to a name first, a tuple element, a one-line helper) and whatever the
start (a literal, a static size); a start read from data keeps no fix. Each spelling is a case of
its own, torch 2.13's outcome checked in both modes, every fix offered proven (exports, equals
eager on the example and on other inputs)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def count(t):
    return int(t.item())


class Steps(nn.Module):
    def forward(self, x, steps):
{body}
        return x


def xport_example():
    return Steps(), (torch.randn(3), torch.tensor(3))


def xport_inputs():
    return [(torch.randn(3), torch.tensor(5)), (torch.randn(3), torch.tensor(0))]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("one-based-in-place", "for i in range(1, int(steps) + 1):\n    x = x / i", "GuardOnDataDependentSymNode", "UserError"),
    ("bound-to-a-name-first", "n = steps.item()\nfor i in range(2, n):\n    x = x + i", "GuardOnDataDependentSymNode", "UserError"),
    ("tuple-element", "n, scale = steps.item(), 0.5\nfor _ in range(1, n):\n    x = x * scale", "GuardOnDataDependentSymNode", "UserError"),
    ("through-a-helper", "for i in range(1, count(steps)):\n    x = x - i", "GuardOnDataDependentSymNode", "UserError"),
    ("from-a-static-size", "for i in range(x.shape[0], int(steps) + 3):\n    x = x * 0.9", "GuardOnDataDependentSymNode", "UserError"),
    ("start-read-from-data", "for i in range(int(steps) - 2, int(steps)):\n    x = x + i", "GuardOnDataDependentSymNode", "UserError"),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

NO_FIX = {"start-read-from-data": "the loop's start is read from data too"}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
