"""A buffer sliced along its last dimension by an input size while a dimension kept before it is
longer than 1 (`self.bias[:n, :n]` of a 16x16 causal mask, `self.buf[:, :n]` of a (4, 16) one)
is contiguous only at the whole length: at `max=` the length export guards `n != 16`. Non-strict
fails whatever reads the slice; strict fails where arithmetic or a comparison reads it and exports
where it is only reduced (XPT306). Spellings and near misses, torch 2.13's outcome checked in the
same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_INIT = 'self.register_buffer("bias", torch.tril(torch.ones(16, 16)))\nself.register_buffer("buf", torch.zeros(4, 16))'
_SCORES = "n = x.size(1)\nscores = x @ x.transpose(1, 2)\n"
_SPELLINGS = {
    "scores-times-mask": _SCORES + "return scores * self.bias[:n, :n]",
    "mask-plus-tensor": "n = x.size(1)\nreturn self.bias[:n, :n] + x.sum(-1, keepdim=True)",
    "mask-compared-in-masked-fill": _SCORES + 'return scores.masked_fill(self.bias[:n, :n] == 0, float("-inf"))',
    "mask-matmul": "n = x.size(1)\nreturn self.bias[:n, :n] @ x",
}
_ARGS = "(torch.randn(2, 6, 8),)"

PROGRAMS: list[Program] = []
for label, body in _SPELLINGS.items():
    PROGRAMS += [
        Program(f"{label}-to-length", body, _ARGS, '{"x": {1: Dim("n", max=16)}}', fails=True, init=_INIT),
        Program(f"{label}-below-length", body, _ARGS, '{"x": {1: Dim("n", max=15)}}', fails=False, init=_INIT),
    ]
PROGRAMS += [
    Program("wide-buffer-added", "return x + self.buf[:, : x.shape[2]]", "(torch.randn(2, 4, 6),)",
            '{"x": {2: Dim("n", max=16)}}', fails=True, init=_INIT),
    # reduced only: strict exports
    Program("mask-summed", "n = x.size(1)\nreturn self.bias[:n, :n].sum() + x.sum()", _ARGS,
            '{"x": {1: Dim("n", max=16)}}', fails=True, strict_fails=False, init=_INIT),
]

BATCH = ProgramBatch("stridedslice", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
