"""Symbolic shapes, a seventeenth batch: a size made text by other spellings than batch 16's
joining f-string (issue 24's `str(H)` and `"h %d" % H` misses). Each outcome measured on torch
2.13.0 in both modes under `Dim("height", min=32, max=448)` (and `Dim.AUTO`, `Dim.DYNAMIC` where
named), and torch must still agree:

- `str(H)`, `repr(H)`, `"h " + str(H)`: strict fails (`Unsupported: Failed to trace builtin
  operator` / `repr_impl not implemented`), also under `Dim.AUTO`; non-strict exports.
- `"h %d" % H` (`%i`, a tuple of operands): both modes fail under a named `Dim` or `Dim.DYNAMIC`
  (non-strict: constraint violation; strict: `Unsupported: Observed exception`, a TypeError
  Dynamo observed); under `Dim.AUTO` strict only.
- `"h %s" % (H,)`, `"h %r" % (H,)`: strict fails (constraint violation) under a named `Dim` or
  `Dim.DYNAMIC`, as a joining f-string; a lone `"%r" % (H,)` exports. Without the tuple
  (`"h %s" % H`) strict fails on `str % SymInt` (`Unsupported: Observed exception`), also under
  `Dim.AUTO`.
- a format spec, `f"{H:d}"`, `f"{H:>4}"`: non-strict fails (`TypeError: unsupported format
  string passed to SymInt.__format__`), also under `Dim.AUTO`; strict exports the lone one.
- near misses that export in both modes: a static size (`str(B)`, `"%d" % B`), `"{}".format(H)`,
  a lone `f"{H}"`, `str(H)` as an `assert`'s message or under an `if` the example does not take.

BEFORE (the engine at b265781, XPT309 reading joining f-strings only; the batch was written after
the rule, its outcomes measured on torch first): non-strict 0 of 7 failures flagged, strict 1 of 19
(`f'h {H:>4}'`), no false error. AFTER (XPT309 reads `str`/`repr`, `%` and format specs, under a named `Dim` or `Dim.DYNAMIC`):
non-strict 6/7, strict 15/19 (the known misses below: `Dim.AUTO`, not claimed, and a helper), no
error on the 22 (non-strict) and 10 (strict) exporting programs. Since batch 18's engine (XPT309
reads what a one-line helper returns): strict 16/19, the helper found. Later, one template written
as two adjacent literals, `('height ' '%d') % H`: measured failing both modes, found once XPT309
read `%` through `rules/_text.py` (missed in both before).
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PIXELS = "(torch.randn(2, 3, 224, 224),)"
_HEIGHT = '{"x": {2: Dim("height", min=32, max=448)}}'
_AUTO = '{"x": {2: Dim.AUTO}}'
_DYNAMIC = '{"x": {2: Dim.DYNAMIC}}'
_UNPACK = "B, C, H, W = x.shape\n"
_NAME_HELPER = "def _name(v):\n    return 'h' + str(v)"


def _program(
    name: str, line: str, fails: bool, strict_fails: bool, shapes: str = _HEIGHT, violation: bool = False, **more: str
) -> Program:
    """`line` after the input's sizes are unpacked; the model returns `x * 2`."""
    return Program(
        name, _UNPACK + line + "\nreturn x * 2", _PIXELS, shapes, fails=fails, strict_fails=strict_fails,
        violation=violation, **more,
    )


PROGRAMS: list[Program] = [
    # str() and repr(): strict only, any symbolic size
    _program("str-bound", "s = str(H)", False, True),
    _program("str-derived", "s = str(H // 2)", False, True),
    _program("str-auto", "s = str(H)", False, True, _AUTO),
    _program("str-dynamic", "name = str(H)", False, True, _DYNAMIC),
    _program("repr-bound", "s = repr(H)", False, True),
    _program("str-joined-message", "torch._assert(H % 1 == 0, 'height ' + str(H))", False, True),
    _program("str-shape-index", "s = str(x.shape[2])", False, True),
    _program("str-in-helper", "s = _name(H)", False, True, top=_NAME_HELPER),
    # %d: both modes under a kept-symbolic size, strict only under Dim.AUTO
    _program("percent-d", "s = 'height %d' % H", True, True),
    _program("percent-d-tuple", "s = '%d x %d' % (H, W)", True, True),
    _program("percent-d-concatenated", "s = ('height ' '%d') % H", True, True),
    _program("percent-i-message", "torch._assert(H > 0, 'height %i' % H)", True, True),
    _program("percent-d-dynamic", "s = 'height %d' % H", True, True, _DYNAMIC),
    _program("percent-d-auto", "s = 'height %d' % H", False, True, _AUTO),
    # %s: as a joining f-string
    _program("percent-s-tuple", "s = 'height %s' % (H,)", False, True, violation=True),
    _program("percent-r-tuple", "s = 'height %r' % (H,)", False, True, violation=True),
    # an operand that is no tuple: strict fails on `str % SymInt`, whatever the conversion
    _program("percent-s-bare", "s = 'height %s' % H", False, True),
    _program("percent-r-bare", "s = 'height %r' % H", False, True),
    _program("percent-s-bare-auto", "s = 'height %s' % H", False, True, _AUTO),
    # a format spec: non-strict
    _program("spec-d", "s = f'{H:d}'", True, False),
    _program("spec-auto", "s = f'{H:d}'", True, False, _AUTO),
    _program("spec-width-joined", "s = f'h {H:>4}'", True, True),
    # near misses: export in both modes
    _program("str-static-batch", "s = str(B)", False, False),
    _program("percent-static-batch", "s = 'batch %d' % B", False, False),
    _program("format-method", "s = 'height {}'.format(H)", False, False),
    _program("lone-fstring", "s = f'{H}'", False, False),
    _program("lone-percent-r", "s = '%r' % (H,)", False, False),
    _program("percent-s-tuple-auto", "s = 'height %s' % (H,)", False, False, _AUTO),
    _program("str-assert-message", "assert H > 0, str(H)", False, False),
    _program("str-under-untaken-if", "if x.shape[0] > 100:\n    s = str(H)", False, False),
]

#: (program, mode) -> why xport-lint's verdict still differs from torch's
_AUTO_MISS = (
    "under Dim.AUTO the size stays symbolic only where nothing specialised it first (a 0 or 1 in the "
    "example, an earlier test): not claimed"
)
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    ("str-auto", Mode.STRICT): _AUTO_MISS,
    ("percent-d-auto", Mode.STRICT): _AUTO_MISS,
    ("percent-s-bare-auto", Mode.STRICT): _AUTO_MISS,
    ("spec-auto", Mode.NON_STRICT): _AUTO_MISS,
}

BATCH = ProgramBatch("shapes17", {"sizes made text": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
