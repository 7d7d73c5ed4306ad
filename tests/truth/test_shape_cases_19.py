"""Symbolic shapes, a nineteenth batch: a dynamic dimension turned into a Python count. Each outcome
measured on torch 2.13.0 in both modes on a (8, 16) input, dimension 0 (or 1) declared
`Dim("b")`, `Dim.DYNAMIC` or `Dim.AUTO`, and torch must still agree:

- `len(x)` (XPT303): `Tensor.__len__` hands Python an int, so non-strict export makes the size a
  constant and fails under a named `Dim` or `Dim.DYNAMIC`, also of a tensor computed from the input
  (`len(x * 2)`, `len(x.t())`); strict export keeps it symbolic; `Dim.AUTO` exports. The fix,
  `x.shape[0]`, proves out.
- one piece per index of a dynamic dimension (XPT302): `x.unbind(0)`, `torch.unbind(x, dim=0)`,
  `for row in x`, `list(x)`, `x.split(1, dim=0)`, `x.chunk(x.shape[0])` fail both modes under a
  named `Dim` or `Dim.DYNAMIC` (constraint violation: the count fixes the size); along a static
  dimension they export.

BEFORE (the engine at 9da0933, the batch written after measuring torch): non-strict 0 of 13
failures flagged, strict 0 of 8; AFTER: every failure flagged in both modes, no error on an
exporting program; the `len()` fix proven on each of its 5 programs.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")
_SHAPES = {"named": 'Dim("b")', "dynamic": "Dim.DYNAMIC", "auto": "Dim.AUTO"}


def case(name: str, non_strict: str | None, strict: str | None, lines: str, shapes: str = "named", dim: int = 0) -> None:
    """`lines`, the body of `forward(self, x)` on a (8, 16) input with dimension `dim` declared."""
    body = "\n".join("        " + line for line in lines.strip().splitlines())
    CASES.case(name, non_strict, strict, f"""
from torch.export import Dim


class M(nn.Module):
    def forward(self, x):
{body}


def xport_example():
    return {{"model": M(), "args": (torch.randn(8, 16),), "dynamic_shapes": {{"x": {{{dim}: {_SHAPES[shapes]}}}}}}}


def xport_inputs():
    return [(torch.randn(5, 16),), (torch.randn(12, 16),)] if {dim} == 0 else [(torch.randn(8, 9),)]
""")


# -- len() of a tensor: non-strict ----------------------------------------------------------------
case("len-bound", "UserError", None, "n = len(x)\nreturn x * n")
case("len-dynamic", "UserError", None, "n = len(x)\nreturn x * n", "dynamic")
case("len-as-size", "UserError", None, "return torch.zeros(len(x), 2) + x.sum()")
case("len-of-computed", "UserError", None, "h = x * 2\nreturn h * len(h)")
case("len-of-transpose", "UserError", None, "return x * len(x.t())", dim=1)
# near misses
case("len-auto", None, None, "n = len(x)\nreturn x * n", "auto")
case("len-static-dim", None, None, "return x * len(x)", dim=1)

# -- one piece per index of a dynamic dimension: both modes ---------------------------------------
case("unbind-method", "UserError", "UserError", "return sum(x.unbind(0))")
case("unbind-dynamic", "UserError", "UserError", "return sum(x.unbind(0))", "dynamic")
case("unbind-function", "UserError", "UserError", "rows = torch.unbind(x, dim=0)\nreturn rows[0]")
case("for-over-rows", "UserError", "UserError", "out = []\nfor row in x:\n    out.append(row * 2)\nreturn torch.stack(out)")
case("list-of-rows", "UserError", "UserError", "rows = list(x)\nreturn rows[0]")
case("split-by-one", "UserError", "UserError", "return x.split(1, dim=0)[0]")
case("chunk-by-size", "UserError", "UserError", "return x.chunk(x.shape[0], dim=0)[0]")
case("unbind-last-dim", "UserError", "UserError", "return sum(x.unbind(-1))", dim=1)
# near misses
case("unbind-static-dim", None, None, "return sum(x.unbind(1))")
case("comprehension-static-dim", None, None, "return torch.stack([c * 2 for c in x.t()])")
case("split-by-four", None, None, "parts = x.split(4, dim=1)\nreturn parts[0]")
case("unbind-auto", None, None, "return sum(x.unbind(0))", "auto")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
_VECTORISE = "one piece per index: the rewrite is a vectorised op over the dimension, which depends on the body"
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    name: _VECTORISE
    for name in ("unbind-method", "unbind-dynamic", "unbind-function", "for-over-rows", "list-of-rows",
                 "split-by-one", "chunk-by-size", "unbind-last-dim")
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
