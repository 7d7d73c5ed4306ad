"""Attention heads unpacked into names, then tied (issue 24, written from a held-out probe's
misses): `q, k, v = qkv.unbind(0)` gives each the tensor without that dimension, and
`q, k, v = qkv.permute(2, 0, 3, 1, 4)` iterates the first; `attn += bias` broadcasts as
`attn + bias` does. A relative-position table of 16 added to the scores pins the named sequence
`Dim` (a named `Dim` or `Dim.DYNAMIC`), and a padding mask with its own `Dim` ties it to the
sequence's: export fails with a constraint violation in both modes (torch 2.13). Near misses: the
sequence static, a scalar added in place, the mask declared with the sequence's own `Dim`.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 0/5
-> 5/5 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 16, 16),)"
_TABLE_INIT = ("self.num_heads = 2\nself.qkv = torch.nn.Linear(16, 48)\nself.proj = torch.nn.Linear(16, 16)\n"
               "self.rel_bias = torch.nn.Parameter(torch.zeros(2, 16, 16))")
_UNBOUND = """
B, N, C = x.shape
head_dim = C // self.num_heads
qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, head_dim).permute(2, 0, 3, 1, 4)
q, k, v = qkv.unbind(0)
attn = (q * head_dim ** -0.5) @ k.transpose(-2, -1)
attn = attn + self.rel_bias.unsqueeze(0)
x = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, N, C)
return self.proj(x)
"""
_IN_PLACE = """
B, N, C = x.shape
q, k, v = torch.unbind(self.qkv(x).view(B, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4), 0)
attn = q @ k.transpose(-2, -1)
attn += self.rel_bias
return self.proj((attn.softmax(-1) @ v).transpose(1, 2).reshape(B, N, C))
"""
_MASKED = """
B, S, C = x.shape
q, k, v = self.qkv(x).reshape(B, S, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
scores = q @ k.transpose(-1, -2) / math.sqrt(C // self.heads)
scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
return (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, S, C)
"""
_MASK_ARGS = "(torch.randn(2, 10, 16), torch.ones(2, 10, dtype=torch.long))"
_MASK_INIT = "self.heads = 2\nself.qkv = torch.nn.Linear(16, 48)"


def _table(name: str, body: str, shapes: str, fails: bool = True) -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, init=_TABLE_INIT)


def _masked(name: str, shapes: str, fails: bool = True, prelude: str = "") -> Program:
    return Program(name, _MASKED, _MASK_ARGS, shapes, fails=fails, params="x, attention_mask", init=_MASK_INIT,
                   prelude=prelude)


PROGRAMS: list[Program] = [
    _table("unbound-then-table", _UNBOUND, '{"x": {0: Dim("batch"), 1: Dim("n")}}'),
    _table("unbound-then-table-dynamic", _UNBOUND, '{"x": {1: Dim.DYNAMIC}}'),
    _table("table-added-in-place", _IN_PLACE, '{"x": {1: Dim("n")}}'),
    _masked("permuted-then-masked-by-its-own-dim", '{"x": {1: Dim("seq")}, "attention_mask": {1: Dim("mask_len")}}'),
    Program("scores-added-in-place", "b, n, c = x.shape\nq = x.view(b, n, 4, c // 4).transpose(1, 2)\n"
            "attn = q @ q.transpose(-2, -1)\nattn += self.bias\nreturn attn.softmax(-1) @ q", "(torch.randn(2, 12, 16),)",
            '{"x": {1: Dim("seq", max=128)}}', fails=True, init="self.bias = torch.nn.Parameter(torch.zeros(4, 12, 12))"),
    # near misses
    _table("sequence-static", _UNBOUND, '{"x": {0: Dim("batch")}}', fails=False),
    Program("scalar-added-in-place", "b, n, c = x.shape\nq = x.view(b, n, 4, c // 4).transpose(1, 2)\n"
            "attn = q @ q.transpose(-2, -1)\nattn += 1.0\nreturn attn.softmax(-1) @ q", "(torch.randn(2, 12, 16),)",
            '{"x": {1: Dim("seq", max=128)}}', fails=False),
    _masked("mask-shares-the-dim", '{"x": {1: seq}, "attention_mask": {1: seq}}', fails=False,
            prelude='seq = Dim("seq")'),
]

BATCH = ProgramBatch("unpackedheads", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
