"""A size read of the `forward` input's name after it is rebound (issue 24: "size tests through
intermediate values", spelt as models spell them: `x = self.proj(x)`, then `if x.shape[1] > 4:`):
the read is of the value bound last before it, followed to the input dimension it is (`Linear` and
norms keep all but the last, `transpose` moves them), and judged against the declared `Dim` as the
same test on the input is (a named `Dim` split by the test fails, both modes, torch 2.13). Near
misses: a test of a static size, of a dimension a reduction left static.

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error 0/5 ->
5/5 in both modes; exporting programs with one 0/2 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'
_BATCH = '{"x": {0: Dim("b", min=2, max=64)}}'
_LAYERS = "self.proj = torch.nn.Linear(16, 16)\nself.norm = torch.nn.LayerNorm(16)"
_TEST = "if {read} > 4:\n    return x * 2\nreturn x"


def _rebound(name: str, step: str, read: str, shapes: str = _SEQ, fails: bool = True) -> Program:
    return Program(name, step + "\n" + _TEST.format(read=read), _ARGS, shapes, fails=fails, init=_LAYERS)


PROGRAMS: list[Program] = [
    _rebound("projected-length", "x = self.proj(x)", "x.shape[1]"),
    _rebound("projected-batch", "x = self.proj(x)", "x.shape[0]", shapes=_BATCH),
    _rebound("normed-then-projected", "x = self.norm(x)\nx = self.proj(x)", "x.size(1)"),
    _rebound("transposed-length", "x = x.transpose(1, 2)", "x.shape[-1]"),
    _rebound("scaled-length-bound", "x = x * 0.5\nn = x.shape[1]", "n"),
    # near misses
    _rebound("projected-features", "x = self.proj(x)", "x.shape[2]", fails=False),
    _rebound("reduced-then-features", "x = x.mean(1)", "x.shape[1]", fails=False),
]

BATCH = ProgramBatch("reboundsize", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
