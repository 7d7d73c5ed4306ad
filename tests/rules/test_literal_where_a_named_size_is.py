"""A `view` that changes the rank and puts a constant where a named size is, after the sizes it
keeps (issue 24: ops that specialise a `Dim`): `x.view(b, 8, 2, -1)` or `x.view(b, 4, -1)` of
`(b, n, 16)`. Export compares the named size with the constant (pinned to 8, guarded `!= 4`, or
guarded even for a 2 beside a `-1`) and fails with a constraint violation in both modes (torch
2.13). Spellings: on the input, after a layer that keeps the size, through the shape unpacked
first, `reshape`, a block's own `forward` given the input whole. Near misses: a 1 put there (an added dimension), the `-1` there, the size kept.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 4/6
-> 6/6 in both modes (after a layer and in a block are new: the other four were judged as element
counts and splits already); exporting programs with one 0/4 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'


_HEADS = """
class Heads(torch.nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, x):
        b, n, c = x.shape
        return x.view(b, {sizes}).sum(-1)
"""


def _viewed(name: str, body: str, fails: bool = True, init: str = "", top: str = "") -> Program:
    return Program(name, body, _ARGS, _SEQ, fails=fails, init=init, top=top)


PROGRAMS: list[Program] = [
    _viewed("pinned-after-a-layer", "x = self.fc(x)\nreturn x.view(x.shape[0], 8, 2, -1).sum(-1)",
            init="self.fc = torch.nn.Linear(16, 16)"),
    _viewed("guarded-beside-minus-one", "return x.view(x.shape[0], 4, -1)"),
    _viewed("even-beside-minus-one", "return x.view(x.shape[0], 2, -1, 16)"),
    _viewed("unpacked-first", "b, n, c = x.shape\nreturn x.reshape(b, 16, -1)"),
    _viewed("heads-of-init", "b, n, c = x.shape\nreturn x.view(b, self.heads, -1, c).sum(1)", init="self.heads = 4"),
    _viewed("in-a-block-built-with-an-argument", "return self.heads(x)", init="self.heads = Heads(4)",
            top=_HEADS.format(sizes="8, self.heads, -1")),
    # near misses
    _viewed("block-keeping-the-size", "return self.heads(x)", fails=False, init="self.heads = Heads(4)",
            top=_HEADS.format(sizes="n, self.heads, c // self.heads")),
    _viewed("one-added", "return x.view(x.shape[0], 1, -1, 16)", fails=False),
    _viewed("minus-one-there", "b, n, c = x.shape\nreturn x.view(b, -1, 4, 4)", fails=False),
    _viewed("size-kept", "b, n, c = x.shape\nreturn x.view(b, n, 2, 8)", fails=False),
]

BATCH = ProgramBatch("literalnamed", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
