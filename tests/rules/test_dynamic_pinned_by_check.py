"""A check that holds only at the example's size (`torch._check(x.shape[0] == 4)`) pins a
`Dim.DYNAMIC` size to it: export fails ("You marked ... as dynamic but your code specialized it
to be a constant"), where a check that narrows the range (`>= 2`, `<= 16`) or the same check under
`Dim.AUTO` exports (XPT304 judges `Dim.DYNAMIC` with the declaration's example sizes). Several
spellings, torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_REQUIRE = 'def _require(ok, message):\n    if not ok:\n        raise ValueError(message)\n'
_PINNED_SPELLINGS = {
    "check-equal": ("torch._check(x.shape[0] == 4)", ""),
    "assert-size-call": ('assert x.size(0) == 4, "batch of four"', ""),
    "bound-then-check": ("n = x.shape[0]\ntorch._check(4 == n)", ""),
    "unpacked-then-assert": ("n, _ = x.shape\nassert n == 4", ""),
    "helper-of-this-file": ('_require(x.shape[0] == 4, "batch of four")', _REQUIRE),
}

PROGRAMS: list[Program] = []
for label, (checked, top) in _PINNED_SPELLINGS.items():
    body = f"{checked}\nreturn x + 1"
    PROGRAMS += [
        Program(f"{label}-dynamic", body, "(torch.randn(4, 3),)", '{"x": {0: Dim.DYNAMIC}}', fails=True, top=top),
        Program(f"{label}-auto", body, "(torch.randn(4, 3),)", '{"x": {0: Dim.AUTO}}', fails=False, top=top),
    ]
PROGRAMS += [
    Program("check-at-least-dynamic", "torch._check(x.shape[0] >= 2)\nreturn x + 1", "(torch.randn(4, 3),)",
            '{"x": {0: Dim.DYNAMIC}}', fails=False),
    Program("assert-at-most-dynamic", "assert x.shape[0] <= 16\nreturn x + 1", "(torch.randn(4, 3),)",
            '{"x": {0: Dim.DYNAMIC}}', fails=False),
    Program("check-width-static-dynamic-batch", "torch._check(x.shape[1] == 3)\nreturn x + 1",
            "(torch.randn(4, 3),)", '{"x": {0: Dim.DYNAMIC}}', fails=False),
]

BATCH = ProgramBatch("dynpinned", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
