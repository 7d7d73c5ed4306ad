"""`dynamic_shapes` built by a dict comprehension over a display of input names is read as the dict
it builds (shapes.py `ShapesReader`): a `Dim` per input named by an f-string ties apart under
broadcasting (XPT305), one `Dim` bound before the comprehension is shared. Spelled inline, bound
to a name first, returned by a function, over a list; torch 2.13's outcome checked in the same
test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(4, 3), torch.randn(4, 3))"
_APART = '{name: {0: Dim(f"rows_{name}")} for name in ("x", "y")}'
_SHARED = '{name: {0: rows} for name in ("x", "y")}'

PROGRAMS: list[Program] = [
    Program("inline-apart", "return x + y", _ARGS, _APART, fails=True, params="x, y"),
    Program("inline-shared", "return x + y", _ARGS, _SHARED, fails=False, params="x, y", prelude='rows = Dim("rows")'),
    Program("bound-first-apart", "return x * y", _ARGS, "spec", fails=True, params="x, y", prelude=f"spec = {_APART}"),
    Program("bound-first-shared", "return x * y", _ARGS, "spec", fails=False, params="x, y",
            prelude=f'rows = Dim("rows")\nspec = {_SHARED}'),
    Program("returned-by-function-apart", "return x - y", _ARGS, "make_shapes()", fails=True, params="x, y",
            top=f"def make_shapes():\n    return {_APART}"),
    Program("over-list-apart", "return torch.cat([x, y], 0)", _ARGS, '{n: {1: Dim(f"cols_{n}")} for n in ["x", "y"]}', fails=True,
            params="x, y"),
    Program("over-list-other-dim", "return torch.cat([x, y], 0)", _ARGS, '{n: {0: Dim(f"rows_{n}")} for n in ["x", "y"]}',
            fails=False, params="x, y"),
]

BATCH = ProgramBatch("shapecomp", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
