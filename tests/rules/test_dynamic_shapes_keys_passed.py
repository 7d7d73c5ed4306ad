"""The top-level keys of a `dynamic_shapes` dict are the inputs the export passes, no more and no
fewer (XPT502; torch 2.13, both modes: "its top-level keys must be the arg names [...] of
`inputs`"): a key for a parameter left to its default (`"mask": None` where only `x` is given, as
transformers' masks are) fails, as does an input passed, positionally or as a keyword, with no key.
Near misses: keys for exactly the inputs given, positionally, by keyword, with `None` for one
without dynamic sizes; keys read through a variable.

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error 0/5 ->
5/5 in both modes; exporting programs with one 0/4 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ONE = "(torch.randn(2, 4),)"
_TWO = "(torch.randn(2, 4), torch.ones(2, 4))"
_BODY = "return x * 2 if mask is None else x * mask"
_PARAMS = "x, mask=None"


def _keyed(name: str, args: str, shapes: str, fails: bool, kwargs: str = "", prelude: str = "") -> Program:
    return Program(name, _BODY, args, shapes, fails=fails, params=_PARAMS, kwargs=kwargs, prelude=prelude,
                   violation=False)


PROGRAMS: list[Program] = [
    _keyed("default-keyed-none", _ONE, '{"x": {0: Dim("b")}, "mask": None}', fails=True),
    _keyed("default-keyed-dims", _ONE, '{"x": {0: Dim("b")}, "mask": {0: Dim("b")}}', fails=True),
    _keyed("default-keyed-through-a-name", _ONE, "shapes", fails=True,
           prelude='shapes = {"x": {0: Dim("b")}, "mask": None}'),
    _keyed("passed-positionally-no-key", _TWO, '{"x": {0: batch}}', fails=True, prelude='batch = Dim("batch")'),
    _keyed("passed-by-keyword-no-key", _ONE, '{"x": {0: Dim("b")}}', fails=True, kwargs='{"mask": torch.ones(2, 4)}'),
    # near misses
    _keyed("only-the-passed-input", _ONE, '{"x": {0: Dim("b")}}', fails=False),
    _keyed("both-passed-both-keyed", _TWO, '{"x": {0: batch}, "mask": {0: batch}}', fails=False,
           prelude='batch = Dim("batch")'),
    _keyed("keyword-keyed", _ONE, '{"x": {0: batch}, "mask": {0: batch}}', fails=False,
           kwargs='{"mask": torch.ones(2, 4)}', prelude='batch = Dim("batch")'),
    _keyed("passed-keyed-none", _TWO, '{"x": None, "mask": None}', fails=False),
]

BATCH = ProgramBatch("passedkeys", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
