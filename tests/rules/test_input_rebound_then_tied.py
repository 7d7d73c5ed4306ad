"""A size tie after the `forward` input's name is rebound (issue 24; ViT's `x = torch.cat([cls, x],
1)` then `x + self.pos_embed`): each read of `x` is the value bound last before its statement, the
input itself up to (and in) the statement that first rebinds it. A fixed table added after the
rebinding ties the declared size (`n + 1 == 9`: torch specialises `n`, both modes, torch 2.13).
Near misses: the same code with the batch declared instead, a reduction that drops the declared
size before the table, a table of size 1 that broadcasts, a rebinding in a loop (not followed).

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error 0/5 ->
5/5 in both modes; exporting programs with one 0/4 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'
_BATCH = '{"x": {0: Dim("b", min=2, max=64)}}'
_TABLES = "self.cls = torch.nn.Parameter(torch.zeros(1, 1, 16))\nself.pos = torch.nn.Parameter(torch.zeros(1, 9, 16))"
_CLS = "cls = self.cls.expand(x.shape[0], -1, -1)\nx = torch.cat([cls, x], dim=1)\n"


def _rebound(name: str, body: str, shapes: str = _SEQ, fails: bool = True, init: str = _TABLES) -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, init=init)


PROGRAMS: list[Program] = [
    _rebound("cls-cat-then-table", _CLS + "return x + self.pos"),
    _rebound("cls-cat-then-table-bound", _CLS + "x = x + self.pos\nreturn x.sum(1)"),
    _rebound("scaled-then-sliced-table", "x = x * 2\nreturn x + self.pos[:, 1:]"),
    _rebound("projected-then-table", "x = self.proj(x)\nreturn x + self.pos[:, 1:]",
             init=_TABLES + "\nself.proj = torch.nn.Linear(16, 16)"),
    _rebound("transposed-then-weight", "x = x.transpose(1, 2)\nreturn x + self.w",
             init="self.w = torch.nn.Parameter(torch.zeros(1, 16, 8))"),
    # near misses
    _rebound("cls-cat-batch-declared", _CLS + "return x + self.pos", shapes=_BATCH, fails=False),
    _rebound("reduced-then-table", "x = x.mean(1, keepdim=True)\nreturn x + self.pos[:, :1]", fails=False),
    _rebound("transposed-then-broadcast", "x = x.transpose(1, 2)\nreturn x + self.w", fails=False,
             init="self.w = torch.nn.Parameter(torch.zeros(1, 16, 1))"),
    _rebound("rebound-twice-then-sum", "x = x * 2\nx = x.sum(1)\nreturn x + self.pos[0, 0]", fails=False),
]

BATCH = ProgramBatch("reboundtie", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
