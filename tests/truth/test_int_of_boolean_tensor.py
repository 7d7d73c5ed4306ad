"""`int()` of a boolean tensor in strict export (issue 25: a strict failure with no finding, seen as
`n = sum(int(r.sum() > 0) for r in x)`). Measured on torch 2.13: Dynamo reads the boolean tensor
as a symbolic bool and `int()` of it guards on its value (`Could not guard on data-dependent
expression Eq(u0, 1)`), even where the number is never used. `float()` of it, `.item()` of it,
`int()` of an integer tensor (`.long()`) export in strict mode. Non-strict export fails on every
`int()`/`float()` of a tensor (XPT203 already). The fix, `.long().item()`, reads the same 0 or 1
as a symbolic int.

BEFORE (the engine at 9126cac, the batch written after measuring torch): strict 0 of 10 failures
flagged, and in non-strict mode the two programs using the number as a size or a slice bound got
the `.item()` fix, which fails export (a boolean symbol: `slice indices must be integers`,
`Eq(u0, 1)`). AFTER: strict 10/10, no error on the four exporting programs; `.long().item()`
proven on those two.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_EXAMPLE = """

def xport_example():
    return M(), (torch.randn(4, 8),)


def xport_inputs():
    return [(torch.randn(4, 8),), (-torch.ones(4, 8),), (torch.ones(4, 8),)]
"""

_HELPERS = """
def _flag(t):
    return int(t.sum() > 0)

"""


def case(name: str, non_strict: str | None, strict: str | None, lines: str) -> None:
    body = "\n".join("        " + line for line in lines.strip().splitlines())
    CASES.case(name, non_strict, strict, _HELPERS + f"""
class M(nn.Module):
    def forward(self, x):
{body}
""" + _EXAMPLE)


_GUARD = "GuardOnDataDependentSymNode"
# -- int() of a boolean tensor: strict fails -------------------------------------------------------
case("comparison-scales", _GUARD, "UserError", "n = int(x.sum() > 0)\nreturn x * n")
case("comparison-unused", _GUARD, "UserError", "n = int(x.sum() > 0)\nreturn x * 2")
case("mask-bound-first", _GUARD, "UserError", "positive = x.sum() > 0\nn = int(positive)\nreturn x * n")
case("any-in-place", _GUARD, "UserError", "return x * int((x > 0).any())")
case("torch-any", _GUARD, "UserError", "n = int(torch.any(x > 3))\nreturn x + n")
case("cast-to-bool", _GUARD, "UserError", "n = int(x.sum().bool())\nreturn x * n")
case("summed-over-rows", _GUARD, "UserError", "n = sum(int(r.sum() > 0) for r in x)\nreturn x.new_zeros(n)")
case("through-a-helper", _GUARD, "UserError", "n = _flag(x)\nreturn x * n")
case("slice-bound", _GUARD, "UserError", "n = int(x.sum() > 0)\nreturn x[:n]")
case("new-tensor-size", _GUARD, "UserError", "return x.new_zeros(int((x > 0).any()) + 1, 3)")
# -- near misses: strict exports ---------------------------------------------------------------------
case("float-of-comparison", _GUARD, None, "n = float(x.sum() > 0)\nreturn x * n")
case("item-of-comparison", None, None, "n = (x.sum() > 0).item()\nreturn x * n")
case("int-of-long", "GuardOnDataDependentSymNode", None, "n = int((x.sum() > 0).long())\nreturn x * n")
case("long-item-slice", None, None, "n = (x.sum() > 0).long().item()\nreturn x[:n]")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_SCALES = ("the number scales a tensor or is summed first: `.long().item()` is offered only where the number is "
           "a size, an index or a slice bound, where it is proven")
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    name: _SCALES for name in (
        "comparison-scales", "comparison-unused", "mask-bound-first", "any-in-place", "torch-any", "cast-to-bool",
        "summed-over-rows", "through-a-helper", "int-of-long",
    )
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
