"""Symbolic shapes, a twentieth batch: ties and divisibility spelled in ways batches 1-19 did not
read. Each outcome measured on torch 2.13.0 in both modes on a (2, 3, 16, 16) input, height and
width declared `Dim("h", min=4, max=64)` and `Dim("w", min=4, max=64)` unless named, and torch must
still agree:

- two sizes unpacked from `.shape` tested equal (`assert h == w`, `torch._check(h == w)`, `if h !=
  w: raise`, `if h == w:` where the example is square): export ties two named `Dim`s and fails in
  both modes; one shared `Dim`, `Dim.AUTO` or `Dim.DYNAMIC` export, and so does a branch the
  example takes the unequal side of.
- `x.unflatten(2, (h // 2, 2))` and `F.pixel_unshuffle(x, 2)` need the height even: both modes fail
  under a named `Dim`, export declared `2 * hh`.

BEFORE (the engine at 9da0933, the batch written after measuring torch): 1 of 7 failures flagged
in each mode (the named height tested against a static width), no false error; AFTER: 7/7 in both
modes, no error on an exporting program. The two named `Dim`s tested equal get the fix XPT301 gave
a branch on two inputs' sizes (the second declared with the first's `Dim`), proven on the four
programs.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")
_HW = '{"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}'


def case(name: str, fails: bool, lines: str, shapes: str = _HW, prelude: str = "", example: str = "16, 16") -> None:
    """`lines` after `B, C, h, w = x.shape`; fails (a constraint violation) in both modes or neither."""
    body = "\n".join("        " + line for line in ("B, C, h, w = x.shape\n" + lines.strip()).splitlines())
    failure = "UserError" if fails else None
    CASES.case(name, failure, failure, f"""
from torch.export import Dim


class M(nn.Module):
    def forward(self, x):
{body}


def xport_example():
    {prelude or "pass"}
    return {{"model": M(), "args": (torch.randn(2, 3, {example}),), "dynamic_shapes": {shapes}}}


def xport_inputs():
    return [(torch.randn(2, 3, 8, 8),), (torch.randn(2, 3, 20, 20),)]
""")


# -- two unpacked sizes tested equal ----------------------------------------------------------------
case("assert-square", True, "assert h == w\nreturn x * 2")
case("check-square", True, "torch._check(h == w)\nreturn x * 2")
case("raise-unless-square", True, "if h != w:\n    raise ValueError('square images only')\nreturn x * 2")
case("branch-on-square", True, "if h == w:\n    return x * 2\nreturn x")
case("assert-square-one-named", True, "assert h == w\nreturn x * 2", '{"x": {2: Dim("h", min=4, max=64)}}')
# near misses
case("assert-square-shared-dim", False, "assert h == w\nreturn x * 2", '{"x": {2: s, 3: s}}', 's = Dim("s", min=4, max=64)')
case("assert-square-auto", False, "assert h == w\nreturn x * 2", '{"x": {2: Dim.AUTO, 3: Dim.AUTO}}')
case("assert-square-dynamic", False, "assert h == w\nreturn x * 2", '{"x": {2: Dim.DYNAMIC, 3: Dim.DYNAMIC}}')
case("branch-on-square-unequal-example", False, "if h == w:\n    return x * 2\nreturn x", example="16, 12")

# -- a height that must be even -----------------------------------------------------------------------
case("unflatten-half", True, "return x.unflatten(2, (h // 2, 2))")
case("pixel-unshuffle", True, "return F.pixel_unshuffle(x, 2)")
case("unflatten-half-derived", False, "return x.unflatten(2, (h // 2, 2))", '{"x": {2: 2 * hh}}', 'hh = Dim("hh", min=2, max=32)')
case("pixel-unshuffle-derived", False, "return F.pixel_unshuffle(x, 2)", '{"x": {2: 2 * hh, 3: 2 * ww}}',
     'hh, ww = Dim("hh", min=2, max=32), Dim("ww", min=2, max=32)')

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "assert-square-one-named": "a named Dim tied to a static size: declaring the width fixes nothing the code can",
    "unflatten-half": "the declaration needs the height a multiple of 2 (`2 * hh`): an edit of the export call",
    "pixel-unshuffle": "the declaration needs the height a multiple of 2 (`2 * hh`): an edit of the export call",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
