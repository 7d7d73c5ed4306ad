"""Symbolic shapes, a twenty-first batch: a size taken through a float and back (`round(H / 2)`,
`math.floor`, `math.ceil`, `math.trunc`) judged by how its result is used, and floor-divided slice
bounds written with a minus sign. Each outcome measured on torch 2.13.0 in both modes on a
(2, 3, 16, 16) input, the height declared `Dim("h", min=4, max=64)` unless named, and torch must
still agree:

- the result never read (bound to a name, to a `self.` attribute, in a tuple, or a statement of
  its own), or read only as arithmetic with a tensor (`x * n`, `x.sum() + n`): export adds no
  guard on it and succeeds in both modes;
- as a new tensor's size (`x.new_zeros(n)`, `torch.zeros(n)`, `torch.arange(n)`): strict export
  keeps it; non-strict fails where the result can be 0 or 1 over the range (`H / 4` from
  `min=4`), not where it cannot (`H / 2`);
- as a slice bound: fails in both modes; `int(H / 2)` fails non-strict even unread.
- `x[:, :, : -(-H // 4)]` (a ceiling by floor division), the same bound through a name, and
  `x[:, :, -(H // 4):]` fail in both modes as `x[:, :, : H // 4]` does, on the first dimension
  too.

BEFORE (the engine at a61f888, the batch written after measuring torch): every float step had an
error in both modes: 9 false errors non-strict, 13 strict (the four that fail non-strict only
included); the four negated bounds had no finding in either mode. AFTER: no false error, every
failure flagged in the mode it fails (non-strict 9/9, strict 5/5).
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import math")
_H = '{"x": {2: Dim("h", min=4, max=64)}}'


def case(name: str, non_strict: str | None, strict: str | None, lines: str, shapes: str = _H,
         example: str = "2, 3, 16, 16") -> None:
    """`lines` after the input's sizes are unpacked, ending in the model's `return`."""
    body = "\n".join("        " + line for line in ("B, C, H, W = x.shape\n" + lines.strip()).splitlines())
    CASES.case(name, non_strict, strict, f"""
from torch.export import Dim


class M(nn.Module):
    def forward(self, x):
{body}


def xport_example():
    return {{"model": M(), "args": (torch.randn({example}),), "dynamic_shapes": {shapes}}}


def xport_inputs():
    return [(torch.randn(2, 3, 8, 8),), (torch.randn(2, 3, 20, 20),)]
""")


# -- a float step whose result export never guards ------------------------------------------------
case("floor-unread", None, None, "n = math.floor(H / 2)\nreturn x * 2")
case("round-unread", None, None, "n = round(H / 2)\nreturn x * 2")
case("floor-statement", None, None, "math.floor(H / 2)\nreturn x * 2")
case("floor-in-tuple-unread", None, None, "a, b = math.floor(H / 2), 3\nreturn x * b")
case("floor-attribute-unread", None, None, "self.n = math.floor(H / 2)\nreturn x * 2")
case("floor-scales-tensor", None, None, "n = math.floor(H / 2)\nreturn x * n")
case("ceil-added-to-tensor", None, None, "n = math.ceil(H / 4)\nreturn x.sum() + n")
# -- as a new tensor's size: non-strict fails where the size can be 0 or 1 ------------------------
case("round-half-new-zeros", None, None, "n = round(H / 2)\nreturn x.new_zeros(n)")
case("floor-half-ones", None, None, "n = math.floor(H / 2)\nreturn torch.ones(n, 3)")
case("round-quarter-new-zeros", "UserError", None, "n = round(H / 4)\nreturn x.new_zeros(n)")
case("ceil-quarter-zeros-in-place", "UserError", None, "return torch.zeros(math.ceil(H * 0.25))")
case("trunc-quarter-arange", "UserError", None, "n = math.trunc(H / 4)\nreturn torch.arange(n)")
# -- guarded: fails --------------------------------------------------------------------------------
case("floor-slice", "UserError", "UserError", "n = math.floor(H / 2)\nreturn x[:, :, :n]")
case("int-true-division-unread", "UserError", None, "n = int(H / 2)\nreturn x * 2")
# -- a floor-divided bound behind a minus sign (XPT308) --------------------------------------------
case("ceiling-slice", "UserError", "UserError", "return x[:, :, : -(-H // 4)]")
case("ceiling-through-name", "UserError", "UserError", "n = -(-H // 4)\nreturn x[:, :, :n]")
case("quarter-from-end", "UserError", "UserError", "return x[:, :, -(H // 4):]")
case("ceiling-first-dimension", "UserError", "UserError", "return x[: -(-x.shape[0] // 4)]",
     '{"x": {0: Dim("b", min=4, max=64)}}', "16, 3, 4, 4")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_FLOAT_STEP = "a float step on the size: an integer spelling changes the value for some sizes; no rewrite is sound"
_CEILING = "the declaration needs the size a multiple of 4 (`4 * hh`): an edit of the export call, not offered"
#: failing programs whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "round-quarter-new-zeros": _FLOAT_STEP,
    "ceil-quarter-zeros-in-place": _FLOAT_STEP,
    "trunc-quarter-arange": _FLOAT_STEP,
    "floor-slice": _FLOAT_STEP,
    "int-true-division-unread": _FLOAT_STEP,
    "ceiling-slice": _CEILING,
    "ceiling-through-name": _CEILING,
    "quarter-from-end": _CEILING,
    "ceiling-first-dimension": _CEILING,
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
