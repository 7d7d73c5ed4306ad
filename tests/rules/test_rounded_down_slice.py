"""A slice of an input along a named `Dim` to its size rounded down to a multiple (`x[:, : h // 2 * 2]`,
an even length for a pairwise view): torch cannot prove the bound `<= h` and records it as a guard
the `Dim` does not give, whatever the example's parity (XPT308, both modes, torch 2.13). Spelt inline,
bound to names first, with the factor first, by 4, through `narrow`; near misses declare the size as
a multiple (`2 * d`), leave it to `Dim.AUTO`, or keep it static. Torch's outcome checked in the same test.

Figures (BEFORE is this file run on the engine of `dc88b66`): failing programs with an error
0/5 -> 5/5 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ODD = "(torch.randn(2, 11),)"
_EVEN = "(torch.randn(2, 12),)"
_NAMED = '{"x": {1: Dim("h")}}'

PROGRAMS: list[Program] = [
    Program("inline-odd-example", "return x[:, : x.shape[1] // 2 * 2] * 2", _ODD, _NAMED, fails=True),
    Program("names-even-example", "h = x.size(1)\nend = h // 2 * 2\nreturn x[:, :end].view(x.size(0), -1, 2).sum(-1)",
            _EVEN, _NAMED, fails=True),
    Program("factor-first", "b, h = x.shape\nreturn x[:, : 2 * (h // 2)] + 1", _ODD, _NAMED, fails=True),
    Program("by-four", "h = x.shape[-1]\nreturn x[:, : (h // 4) * 4] * 2", _ODD, _NAMED, fails=True),
    Program("narrowed", "h = x.shape[1]\nreturn x.narrow(1, 0, h // 2 * 2) * 2", _ODD, _NAMED, fails=True),
    # near misses
    Program("declared-multiple", "h = x.size(1)\nreturn x[:, : h // 2 * 2].view(x.size(0), -1, 2).sum(-1)", _EVEN,
            '{"x": {1: 2 * d}}', fails=False, prelude='d = Dim("d", min=2)'),
    Program("auto", "h = x.size(1)\nreturn x[:, : h // 2 * 2] * 2", _ODD, '{"x": {1: Dim.AUTO}}', fails=False),
    Program("static", "h = x.size(1)\nreturn x[:, : h // 2 * 2] * 2", _ODD, '{"x": {0: Dim("b")}}', fails=False),
]

BATCH = ProgramBatch("roundeddown", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
