"""A `view`/`reshape` that folds a declared size into the features a `Linear` takes (issue 24):
`x.reshape(b, -1)`, `x.view(b, n * c)`, `x.reshape(x.shape[0], -1)` of `(b, n, c)` with `n` a named
`Dim` make the last size `c * n`, which the layer's input features fix: torch specialises `n`
("you marked n as dynamic but your code specialized it", both modes, torch 2.13), as it does for
`x.flatten(1)`. The target's sizes are read as the analysis reads sizes: an input's size that is
static is its example's size, a product of one declared size and static ones is affine in it, and
a size the target keeps (`b`) cancels from the `-1`. Near misses fold only static sizes into the
layer, keep the declared size out of it, or never reach a layer.

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error 0/6 ->
6/6 in both modes; exporting programs with one 0/4 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'
_BATCH = '{"x": {0: Dim("b", min=2, max=64)}}'
_LAYER = "self.fc = torch.nn.Linear(128, 4)"


def _folded(name: str, body: str, shapes: str = _SEQ, fails: bool = True, init: str = _LAYER) -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, init=init)


PROGRAMS: list[Program] = [
    _folded("reshape-first-size-then-minus-one", "return self.fc(x.reshape(x.shape[0], -1))"),
    _folded("view-unpacked-product", "b, n, c = x.shape\nreturn self.fc(x.view(b, n * c))"),
    _folded("reshape-unpacked-minus-one", "b, n, c = x.shape\nreturn self.fc(x.reshape(b, -1))"),
    _folded("bound-then-layer", "b = x.size(0)\ny = x.reshape(b, -1)\nreturn self.fc(y)"),
    _folded("size-call-product", "return self.fc(x.view(x.size(0), x.size(1) * x.size(2)))"),
    _folded("tuple-target", "b, n, c = x.shape\nreturn self.fc(x.reshape((b, n * c)))"),
    # near misses
    _folded("declared-batch-folded-out", "b, n, c = x.shape\nreturn self.fc(x.view(b, n * c))", shapes=_BATCH, fails=False),
    _folded("declared-size-kept-apart", "b, n, c = x.shape\nreturn self.fc2(x.reshape(b * n, c))",
            fails=False, init="self.fc2 = torch.nn.Linear(16, 4)"),
    _folded("folded-then-summed", "b, n, c = x.shape\nreturn x.reshape(b, -1).sum(-1)", fails=False),
    _folded("split-into-heads", "b, n, c = x.shape\nreturn x.view(b, n, 4, c // 4).sum(-1)", fails=False),
]

BATCH = ProgramBatch("reshapelayer", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
