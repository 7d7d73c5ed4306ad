"""A slice of an input to `min(n, 16)` of its own named `Dim` fails export whatever the range's top
(torch 2.13 cannot prove `min(16, n) <= n`: even `max=8` and `max=16` fail) and exports where the
range starts above 16, or under `Dim.AUTO` (XPT308). Spelled bound to a name first, inline under
arithmetic, with the arguments swapped and through `.size()`; torch's outcome checked in the same
test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_SPELLINGS = {
    "bound-first": "n = min(x.shape[1], 16)\nreturn x[:, :n]",
    "inline-under-arithmetic": "return x[:, : min(x.shape[1], 16)] * 2",
    "swapped-size-call": "return x[:, : min(16, x.size(1))] + 1",
}

PROGRAMS: list[Program] = []
for label, body in _SPELLINGS.items():
    PROGRAMS += [
        Program(f"{label}-unbounded", body, "(torch.randn(2, 8),)", '{"x": {1: Dim("t")}}', fails=True),
        Program(f"{label}-below-cap", body, "(torch.randn(2, 8),)", '{"x": {1: Dim("t", max=8)}}', fails=True),
        Program(f"{label}-above-cap", body, "(torch.randn(2, 20),)", '{"x": {1: Dim("t", min=17)}}', fails=False),
        Program(f"{label}-auto", body, "(torch.randn(2, 8),)", '{"x": {1: Dim.AUTO}}', fails=False),
    ]

BATCH = ProgramBatch("mincap", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
