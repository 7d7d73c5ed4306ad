"""A slice from the start to a literal length at or above its named `Dim`'s top (`x[:, :16]` under
`Dim("t", max=16)`) keeps every size the range holds: export traces no guard and succeeds, where a
range reaching past the length guards `t <= 15` and fails (XPT308). Spellings and near misses,
torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8),)"
_SPELLINGS = {
    "literal": ("return x[:, :16] * 2", ""),
    "start-written": ("return x[:, 0:16] + 1", ""),
    "bound-name": ("cap = 16\nreturn x[:, :cap] * x[:, :cap]", ""),
    "init-attribute": ("return x[:, : self.cap].relu()", "self.cap = 16"),
    "returned-as-is": ("return x[:, :16]", ""),
}

PROGRAMS: list[Program] = []
for label, (body, init) in _SPELLINGS.items():
    PROGRAMS += [
        Program(f"{label}-at-top", body, _ARGS, '{"x": {1: Dim("t", max=16)}}', fails=False, init=init),
        Program(f"{label}-past-top", body, _ARGS, '{"x": {1: Dim("t", max=32)}}', fails=True, init=init),
    ]
PROGRAMS += [
    Program("cut-above-top", "return x[:, :32] * 2", _ARGS, '{"x": {1: Dim("t", min=4, max=16)}}', fails=False),
    Program("cut-below-top", "return x[:, :12] * 2", _ARGS, '{"x": {1: Dim("t", max=16)}}', fails=True),
]

BATCH = ProgramBatch("slicetop", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
