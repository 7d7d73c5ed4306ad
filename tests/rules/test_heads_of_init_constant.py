"""A `view`/`reshape` whose other sizes are constants `__init__` sets (`self.num_heads = 4`, then
`x.view(b, n, self.num_heads, -1)`) splits a named `Dim` as literals do: the `-1` needs it a
multiple, a guard a named `Dim` does not give (XPT305 reads the constant through
`Sizes.integer`). Spellings and near misses, torch 2.13's outcome checked in the same test, both
modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_INIT = "self.num_heads = 4\nself.head_dim = 4\nself.single = 1"
_SPELLINGS = {
    "heads-then-minus-one": "b, n, _ = x.shape\nreturn x.view(b, n, self.num_heads, -1).transpose(1, 2)",
    "heads-bound-first": "b, n, _ = x.shape\nheads = self.num_heads\nreturn x.reshape(b, n, heads, -1)",
    "minus-one-then-head-dim": "b, n, _ = x.shape\nreturn x.view(b, n, -1, self.head_dim)",
}
_ARGS = "(torch.randn(2, 5, 16),)"

PROGRAMS: list[Program] = []
for label, body in _SPELLINGS.items():
    PROGRAMS += [
        Program(f"{label}-named", body, _ARGS, '{"x": {2: Dim("c")}}', fails=True, init=_INIT),
        Program(f"{label}-derived", body, _ARGS, '{"x": {2: 4 * c}}', fails=False, init=_INIT,
                prelude='c = Dim("c")'),
        Program(f"{label}-tokens", body, _ARGS, '{"x": {1: Dim("n")}}', fails=False, init=_INIT),
    ]
PROGRAMS += [
    Program("one-head-named", "b, n, _ = x.shape\nreturn x.view(b, n, self.single, -1)", _ARGS,
            '{"x": {2: Dim("c")}}', fails=False, init=_INIT),
]

BATCH = ProgramBatch("initheads", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
