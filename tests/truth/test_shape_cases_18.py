"""Symbolic shapes, an eighteenth batch: a size asked for a Python number (`int(H)`, `float(H)`),
and more spellings that make a size text (issue 24's misses after batch 17: `format()`,
`str(x.shape)`, `str(int(H))`, `f"{H}" + "px"`, a one-line helper). Each outcome measured on
torch 2.13.0 in both modes, under `Dim("height", min=16, max=64)`, `Dim.DYNAMIC` or `Dim.AUTO` on
the height of a (2, 3, 32, 32) input, and torch must still agree:

- `int()`/`float()` of a size (`int(H)`, `int(x.size(2))`, `int(h)` of `h = x.shape[2]`,
  `int(H + 1)`, `int(x.numel())`, `float(H)`): non-strict export fails under a named `Dim` or
  `Dim.DYNAMIC` (constraint violation: the size becomes the example's value); `int(H // 2)` under
  a named `Dim` only; nothing under `Dim.AUTO`. Strict export keeps every one symbolic.
- `format(H)`: strict fails (`AsPythonConstantNotImplementedError`); `format(H, "d")` also fails
  non-strict (`TypeError` in `SymInt.__format__`).
- `str(x.shape)`, `str(x.size())`, `str(int(H))`: strict fails (`Unsupported`); `f"{H}" + "px"`:
  strict fails (constraint violation), as a joining f-string; the same through a one-line helper.
- near misses that export in both modes: `f"{x.shape}"`, `format(B, "d")` of a static size, a
  helper returning a lone `f"{v}"`, `int(H // 2)` under `Dim.DYNAMIC`, `int(H)` under `Dim.AUTO`.

BEFORE (the engine at 9da0933, the batch written after measuring torch): non-strict 0 of 11
failures flagged, strict 0 of 9, no false error. AFTER (XPT303 reads `int()`/`float()` of a size in
non-strict mode; XPT309 the spellings above): non-strict 11/11, strict 9/9, no error on the 13
(non-strict) and 15 (strict) exporting programs. The `int()` fix (drop it: a size already is an
int) proves out on each of the 7 programs it is offered for; none where the `int()` is made text.
Later: `f"{int(H)}"` and `"%s" % (int(H),)` fail non-strict as `int(H)` does. `f"{H}"` and
`"%s" % (H,)` export in both modes, but where the text is used (`x * len(s)`) non-strict export
gives a program that differs from eager and strict fails (measured), so no fix drops the `int()`
of a size made text in any spelling.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import math")
_SHAPES = {
    "named": 'Dim("height", min=16, max=64)',
    "dynamic": "Dim.DYNAMIC",
    "auto": "Dim.AUTO",
}
_HELPERS = '''
def _name(v):
    return "h" + str(v)


def _label(v):
    return f"h {v}"


def _lone(v):
    return f"{v}"


def _described(shape):
    return "input " + str(shape)
'''


def case(name: str, non_strict: str | None, strict: str | None, lines: str, shapes: str = "named") -> None:
    """`lines` after the input's sizes are unpacked, ending in the model's `return`."""
    body = "\n".join("        " + line for line in lines.strip().splitlines())
    CASES.case(name, non_strict, strict, f"""
from torch.export import Dim
{_HELPERS}

class M(nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
{body}


def xport_example():
    return {{"model": M(), "args": (torch.randn(2, 3, 32, 32),), "dynamic_shapes": {{"x": {{2: {_SHAPES[shapes]}}}}}}}


def xport_inputs():
    return [(torch.randn(2, 3, 48, 32),), (torch.randn(2, 3, 17, 32),)]
""")


# -- int() and float() of a size: non-strict ------------------------------------------------------
case("int-bound", "UserError", None, "n = int(H)\nreturn x * n")
case("int-shape-dynamic", "UserError", None, "top = int(x.shape[2]) // 4\nreturn x[:, :, top:] * 2", "dynamic")
case("int-size-call", "UserError", None, "n = int(x.size(2))\nreturn x.reshape(B, C, n * W)")
case("int-through-name", "UserError", None, "h = x.shape[2]\nn = int(h)\nreturn x.reshape(B, C * n, W)")
case("int-plus-one-dynamic", "UserError", None, "n = int(H + 1)\nreturn x * n", "dynamic")
case("int-floor-half", "UserError", None, "n = int(H // 2)\nreturn x * n")
case("int-numel-dynamic", "UserError", None, "n = int(x.numel())\nreturn x / n", "dynamic")
case("float-bound", "UserError", None, "s = float(H)\nreturn x / s")
case("float-dynamic", "UserError", None, "return x / float(x.shape[2])", "dynamic")
# near misses
case("int-floor-half-dynamic", None, None, "n = int(H // 2)\nreturn x * n", "dynamic")
case("int-auto", None, None, "n = int(H)\nreturn x * n", "auto")
case("int-static-batch", None, None, "n = int(B)\nreturn x * n")

# -- more spellings making a size text: XPT309 ----------------------------------------------------
case("format-spec", "TypeError", "AsPythonConstantNotImplementedError", "s = format(H, 'd')\nreturn x * 2")
case("format-plain-dynamic", None, "AsPythonConstantNotImplementedError", "s = format(H)\nreturn x * 2", "dynamic")
case("str-shape", None, "Unsupported", "s = str(x.shape)\nreturn x * 2")
case("str-size-dynamic", None, "Unsupported", "s = str(x.size())\nreturn x * 2", "dynamic")
case("str-int", "UserError", "Unsupported", "s = str(int(H))\nreturn x * 2")
case("fstring-plus-text", None, "UserError", "s = f'{H}' + 'px'\nreturn x * 2")
case("helper-str", None, "Unsupported", "s = _name(H)\nreturn x * 2")
case("helper-fstring-dynamic", None, "UserError", "s = _label(H)\nreturn x * 2", "dynamic")
case("helper-str-shape", None, "Unsupported", "s = _described(x.shape)\nreturn x * 2")
# near misses
case("fstring-shape", None, None, "s = f'{x.shape}'\nreturn x * 2")
case("format-static-batch", None, None, "s = format(B, 'd')\nreturn x * 2")
case("helper-lone-fstring", None, None, "s = _lone(H)\nreturn x * 2")

# -- int() made text in a spelling that exports for a bare size: still no fix (see NO_FIX) ---------
case("lone-fstring-int", "UserError", None, "s = f'{int(H)}'\nreturn x * 2")
case("percent-tuple-int", "UserError", None, "s = '%s' % (int(H),)\nreturn x * 2")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "float-bound": "float() of a size: dropping it changes the value's type (int division stays true division, "
    "but the value is no float); no rewrite is sound for every use",
    "float-dynamic": "float() of a size, as above",
    "format-spec": "the text is the author's: no rewrite",
    "str-int": "the text is the author's; dropping int() leaves str(H), which fails strict export",
    "lone-fstring-int": "dropping int() leaves f'{H}': exports, but where the text is used the non-strict "
    "program differs from eager (measured with `x * len(s)`)",
    "percent-tuple-int": "as lone-fstring-int, for '%s' % (H,)",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
