"""`int()` of a Python `math` function of a number read from data (`int(math.sqrt(n.item()))`),
used only as a size or a slice bound, gets XPT203's fix: torch's op on the tensor, truncated by
`.int()` and read by `.item()`, a symbol export carries; however the read gets there (in place,
bound to a name first, `float()` of the tensor, a tuple element) and whichever function (`sqrt`,
`log2`). A number a branch tests too keeps no fix. Each spelling is a case of its own, torch
2.13's outcome checked in both modes, every fix offered proven (exports, equals eager)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import math")

_MODEL = """
class Grid(nn.Module):
    def forward(self, tokens, valid):
{body}


def xport_example():
    return Grid(), (torch.randn(16, 2), torch.ones(9))


def xport_inputs():
    return [(torch.randn(16, 2), (torch.arange(9) < 4).float()), (torch.randn(16, 2), (torch.arange(9) < 7).float())]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("in-place", "side = int(math.sqrt(valid.sum().item()))\nreturn tokens[: side * side].reshape(side, side, -1)",
     "GuardOnDataDependentSymNode", None),
    ("read-bound-first", "total = valid.sum().item()\nside = int(math.sqrt(total))\n"
     "return tokens[: side * side].reshape(side, side, -1)", "GuardOnDataDependentSymNode", None),
    ("float-of-the-tensor", "side = int(math.sqrt(float(valid.sum())))\nreturn tokens[: side * side].sum(0)",
     "GuardOnDataDependentSymNode", None),
    ("tuple-element", "side, ch = int(math.sqrt(valid.sum().item())), 2\nreturn tokens[:side, :ch].sum(0)", "GuardOnDataDependentSymNode", None),
    ("log2-as-a-size", "depth = int(math.log2(valid.sum().item()))\nreturn tokens.new_zeros(depth, 2) + tokens[0]",
     "GuardOnDataDependentSymNode", "SpecViolationError"),
    ("tested-by-a-branch", "side = int(math.sqrt(valid.sum().item()))\nif side > 3:\n    return tokens * 2\n"
     "return tokens", "GuardOnDataDependentSymNode", "UserError"),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

NO_FIX = {"tested-by-a-branch": "a branch tests the number: torch's op would move the failure there"}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
