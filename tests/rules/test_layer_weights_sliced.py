"""A layer's weight sliced by an input size (issue 24: a fixed table bounds the size): learned
positions kept as `nn.Embedding(64, d)` and read as `self.pos.weight[:n]` bound `n` to 64, so a
named `Dim` declared longer fails with a constraint violation in both modes (torch 2.13), as a
buffer sliced so does. `__init__` gives the weight's sizes: (num_embeddings, embedding_dim) for an
embedding, (out_features, in_features) for a linear layer. Near misses: the declared range fits the
table; the embedding called on `torch.arange(n)` (export does not bound an index it gathers).

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 0/4
-> 4/4 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_LONGER = '{"x": {1: Dim("n", min=2, max=128)}}'
_FITS = '{"x": {1: Dim("n", min=2, max=64)}}'
_TABLE = "self.pos = torch.nn.Embedding(64, 16)"


def _sliced(name: str, body: str, fails: bool = True, shapes: str = _LONGER, init: str = _TABLE) -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, init=init)


PROGRAMS: list[Program] = [
    _sliced("length-named-first", "n = x.shape[1]\nreturn x + self.pos.weight[:n]"),
    _sliced("inline-then-unsqueezed", "return x + self.pos.weight[: x.size(1)].unsqueeze(0)"),
    _sliced("keyword-sizes", "b, n, d = x.shape\nreturn x + self.pos.weight[:n, :]",
            init="self.pos = torch.nn.Embedding(num_embeddings=64, embedding_dim=16)"),
    _sliced("linear-rows", "n = x.shape[1]\nreturn x + self.table.weight[:n]",
            init="self.table = torch.nn.Linear(16, 64)"),
    # near misses
    _sliced("range-fits", "return x + self.pos.weight[: x.size(1)]", fails=False, shapes=_FITS),
    _sliced("gathered-by-arange", "ids = torch.arange(x.shape[1])\nreturn x + self.pos(ids)", fails=False),
    _sliced("static-size", "return x + self.pos.weight[: x.shape[2]].sum()", fails=False),
]

BATCH = ProgramBatch("layerweights", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
