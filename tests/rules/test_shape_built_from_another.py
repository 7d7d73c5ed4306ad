"""A `view` whose shape is built from another tensor's (BERT's head split, issue 24):
`x.view(x.size()[:-1] + (heads, head_dim))`, through a name bound first, or as
`x.view(*x.shape[:-1], 4, 4)`. The sizes it keeps are the input's, so a later `view` or `reshape`
to literal sizes fixes the element count and ties the named `Dim` to a constant: export fails in
both modes (torch 2.13). Near misses: the later reshape with a `-1`, or with the sizes read back.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 0/5
-> 5/5 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'
_HEADS = "self.heads = 4\nself.head_dim = 4"


def _split(name: str, body: str, fails: bool = True, init: str = "") -> Program:
    return Program(name, body, _ARGS, _SEQ, fails=fails, init=init)


PROGRAMS: list[Program] = [
    _split("named-shape-then-literal", "new_shape = x.size()[:-1] + (self.heads, self.head_dim)\nx = x.view(new_shape)\n"
           "x = x.permute(0, 2, 1, 3)\nreturn x.reshape(2, 4, 32)", init=_HEADS),
    _split("inline-shape-then-literal", "h = x.view(x.size()[:-1] + (4, 4))\nreturn h.reshape(2, 8, 16)"),
    _split("starred-shape-then-literal", "h = x.view(*x.shape[:-1], 4, 4)\nreturn h.reshape(2, 8, 4, 4)"),
    _split("named-shape-then-literal-view", "new_shape = x.size()[:-1] + (4, 4)\nh = x.view(new_shape)\n"
           "return h.view(2, 8, 16)"),
    _split("shape-list-then-literal", "shape = list(x.shape[:-1])\nh = x.reshape(x.shape[:2] + (2, 8))\n"
           "return h.flatten(2).reshape(2, 8, 16)"),
    # near misses
    _split("then-minus-one", "new_shape = x.size()[:-1] + (self.heads, self.head_dim)\nx = x.view(new_shape)\n"
           "x = x.permute(0, 2, 1, 3)\nreturn x.reshape(2, 4, -1)", fails=False, init=_HEADS),
    _split("sizes-read-back", "new_shape = x.size()[:-1] + (4, 4)\nh = x.view(new_shape)\n"
           "return h.reshape(h.shape[0], h.shape[1], 16)", fails=False),
    _split("starred-then-merged", "h = x.view(*x.shape[:-1], 4, 4)\nreturn h.flatten(2) * 2", fails=False),
]

BATCH = ProgramBatch("builtshapes", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
