"""Sizes an op takes from another tensor or from the module, spelt as models spell them (issue 24):
`x.expand_as(y)`, `x.broadcast_to(y.shape)`, `torch.broadcast_to(x, y.size())` and `x.expand(y.shape)`
broadcast as `x + y` does, so two independently declared `Dim`s they line up are tied; the parts of
`unflatten` and the pieces of `split` given as constants of `__init__` (`self.heads`, `self.k`) are
those numbers; a piece floor-dividing the split size (`[n // 2, n - n // 2]`) needs it a multiple,
which a root `Dim` does not promise at any `min`. All measured on torch 2.13 in both modes. Near
misses: one `Dim` shared, a size 1 that broadcasts, a derived `2 * d`, `Dim.AUTO`, a piece written
as the size less a literal.

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error 0/9 ->
9/9 in both modes; exporting programs with one 0/6 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PAIR = "(torch.randn(2, 1, 16), torch.randn(2, 8, 16))"
_TWO_DIMS = '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}'
_ONE_DIM = '{"x": {0: batch}, "y": {0: batch}}'
_SHARED = 'batch = Dim("batch")'
_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=4, max=64)}}'
_FEATURES = '{"x": {2: Dim("c", min=2, max=64)}}'
_HALVES = "n = x.shape[1]\na, b = x.split([n // 2, n - n // 2], dim=1)\nreturn a.sum(1) + b.sum(1)"


def _pair(name: str, body: str, shapes: str = _TWO_DIMS, fails: bool = True, prelude: str = "") -> Program:
    return Program(name, body, _PAIR, shapes, fails=fails, params="x, y", prelude=prelude)


PROGRAMS: list[Program] = [
    _pair("expand-as", "return x.expand_as(y) + y"),
    _pair("broadcast-to-method", "return x.broadcast_to(y.shape) * y"),
    _pair("broadcast-to-function", "return torch.broadcast_to(x, y.size()) - y"),
    _pair("expand-to-shape", "shaped = x.expand(y.shape)\nreturn shaped + y"),
    Program("unflatten-heads-of-init", "return x.unflatten(-1, (self.heads, -1)).sum(-1)", _ARGS, _FEATURES,
            fails=True, init="self.heads = 4"),
    Program("unflatten-heads-bound", "h = self.heads\nreturn x.unflatten(2, (h, -1)).sum(-1)", _ARGS, _FEATURES,
            fails=True, init="self.heads = 4"),
    Program("split-sizes-of-init", "a, b = x.split([self.k, self.k], dim=1)\nreturn a.sum(1) + b.sum(1)", _ARGS, _SEQ,
            fails=True, init="self.k = 4"),
    Program("split-halves", _HALVES, _ARGS, _SEQ, fails=True),
    Program("split-quarter-bound", "n = x.shape[1]\nh = n // 4\na, b = torch.split(x, [h, n - h], 1)\n"
            "return a.sum(1) + b.sum(1)", _ARGS, _SEQ, fails=True),
    # near misses
    _pair("expand-as-one-dim", "return x.expand_as(y) + y", _ONE_DIM, fails=False, prelude=_SHARED),
    Program("broadcast-to-size-one", "return x.broadcast_to(y.shape) * y", "(torch.randn(1, 8, 16), torch.randn(2, 8, 16))",
            '{"x": None, "y": {0: Dim("b")}}', fails=False, params="x, y"),
    Program("unflatten-heads-multiple", "return x.unflatten(-1, (self.heads, -1)).sum(-1)", _ARGS, '{"x": {2: 4 * d}}',
            fails=False, init="self.heads = 4", prelude='d = Dim("d", min=1, max=16)'),
    Program("split-halves-derived", _HALVES, _ARGS, '{"x": {1: 2 * d}}', fails=False, prelude='d = Dim("d", min=2, max=32)'),
    Program("split-halves-auto", _HALVES, _ARGS, '{"x": {1: Dim.AUTO}}', fails=False),
    Program("split-rest-less-two", "n = x.shape[1]\na, b = x.split([n - 2, 2], dim=1)\nreturn a.sum(1) + b.sum(1)",
            _ARGS, _SEQ, fails=False),
]

BATCH = ProgramBatch("givensizes", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
