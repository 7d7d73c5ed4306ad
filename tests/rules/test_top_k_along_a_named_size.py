"""`topk` / `kthvalue` along a named size (issue 24: a range the declaration does not give):
export guards `k <= n`. A constant `k` above the declared `min` splits the range, and a `k` that
floor-divides the size (`n // 2`) is one export cannot show below it: both fail with a constraint
violation in both modes (torch 2.13, measured at `min` 2, 4, 5 and 6 for `n // 2`). Spellings: the
method, `torch.topk` with `k=`, `kthvalue`, `k` from `__init__`, along the last dimension of a
transposed tensor, `n` unpacked from the shape first. Near misses: `k` at most `min`, along a
static size, `Dim.AUTO`.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 0/8
-> 8/8 in both modes; exporting programs with one 0/5 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'


def _ranked(name: str, body: str, fails: bool = True, shapes: str = _SEQ, init: str = "") -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, init=init)


PROGRAMS: list[Program] = [
    _ranked("method-constant", "v, i = x.topk(5, dim=1)\nreturn v"),
    _ranked("function-keyword", "return torch.topk(x, k=5, dim=1).values"),
    _ranked("half-the-size", "n = x.shape[1]\nreturn x.topk(n // 2, dim=1)[0]"),
    _ranked("half-of-unpacked", "b, n, c = x.shape\nk = n // 2\nreturn torch.topk(x, k, 1)[0]"),
    _ranked("kth-constant", "return x.kthvalue(3, dim=1).values"),
    _ranked("k-of-init", "return x.topk(self.k, dim=1).indices", init="self.k = 4"),
    _ranked("last-of-transposed", "return x.transpose(1, 2).topk(5)[0]"),
    _ranked("kth-negative-dim", "return torch.kthvalue(x.transpose(1, 2), 3, -1)[0]"),
    # near misses
    _ranked("at-most-min", "return x.topk(2, dim=1)[0]", fails=False),
    _ranked("static-size", "return x.topk(5, dim=2)[0]", fails=False),
    _ranked("min-covers-k", "return x.topk(5, dim=1)[0]", fails=False, shapes='{"x": {1: Dim("n", min=5, max=64)}}'),
    _ranked("auto", "return x.topk(5, dim=1)[0]", fails=False, shapes='{"x": {1: Dim.AUTO}}'),
    _ranked("whole-size", "return x.topk(x.shape[1], dim=1)[0]", fails=False),
]

BATCH = ProgramBatch("topks", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
