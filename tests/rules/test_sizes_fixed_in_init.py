"""Sizes `__init__` fixes, met by a named `Dim` (issue 24): a `LayerNorm` over a normalized shape
that includes a spatial size (`LayerNorm([8, 16, 16])` pins both; XPT305); a rotary cache built
as `torch.cat([torch.outer(t, inv_freq)] * 2, dim=-1)` of 64 positions, sliced by a sequence
declared longer (XPT306); position ids sliced by twice the length (XPT306); a positional table
sliced by the length a strided convolution computes
(Whisper's `self.positional_embedding[: x.shape[1]]` after a stride-2 `Conv1d`: at `max=100` the
length reaches 50 of a 20-long table; XPT306). Each fails with a constraint violation in both
modes (torch 2.13). Near misses: the norm over the channels only, or over static sizes; the
declared ranges that fit (`max=64`, `max=40`).

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 0/6
-> 6/6 in both modes; exporting programs with one 0/6 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_IMAGE = "(torch.randn(2, 3, 16, 16),)"
_HW = '{"x": {2: Dim("h"), 3: Dim("w")}}'
_ROPE = """
inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
t = torch.arange(64).float()
emb = torch.cat([torch.outer(t, inv_freq)] * 2, dim=-1)
self.register_buffer("cos_cached", emb.cos(), persistent=False)
"""
_ROTATED = "seq_len = x.shape[-2]\nreturn x * self.cos_cached[:seq_len].to(x.dtype)"
_AUDIO = ("self.conv1 = torch.nn.Conv1d(8, 16, 3, padding=1)\nself.conv2 = torch.nn.Conv1d(16, 16, 3, stride=2, padding=1)\n"
          "self.register_buffer('positional_embedding', torch.randn(20, 16))")
_ENCODED = ("x = F.gelu(self.conv1(x))\nx = F.gelu(self.conv2(x))\nx = x.permute(0, 2, 1).contiguous()\n"
            "return x + self.positional_embedding[: x.shape[1]]")
_ENCODED_NAMED = ("h = F.gelu(self.conv2(F.gelu(self.conv1(x))))\nn = h.shape[-1]\n"
                  "return h.transpose(1, 2).contiguous() + self.positional_embedding[:n]")


def _frames(top: int) -> str:
    return f'{{"x": {{2: Dim("frames", min=3, max={top})}}}}'


PROGRAMS: list[Program] = [
    Program("norm-over-channels-and-space", "return self.norm(self.conv(x))", _IMAGE, _HW, fails=True,
            init="self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)\nself.norm = torch.nn.LayerNorm([8, 16, 16])"),
    Program("norm-over-space-tuple", "return self.norm(x)", _IMAGE, '{"x": {3: Dim("w")}}', fails=True,
            init="self.norm = torch.nn.LayerNorm((16, 16))"),
    Program("rotary-cache-of-a-repeated-list", _ROTATED, "(torch.randn(2, 4, 10, 8),)",
            '{"x": {2: Dim("seq_len", max=128)}}', fails=True, init=_ROPE),
    Program("table-after-a-strided-conv", _ENCODED, "(torch.randn(2, 8, 40),)", _frames(100), fails=True, init=_AUDIO),
    Program("table-after-a-strided-conv-named", _ENCODED_NAMED, "(torch.randn(2, 8, 40),)", _frames(100), fails=True,
            init=_AUDIO),
    Program("position-ids-sliced-by-twice-the-length", "n = x.shape[1]\nreturn self.pos[:, : n * 2] * 2",
            "(torch.randn(2, 8),)", '{"x": {1: Dim("n", min=2, max=40)}}', fails=True,
            init="self.register_buffer('pos', torch.arange(64).expand((1, -1)))"),
    # near misses
    Program("position-ids-twice-the-length-fits", "n = x.shape[1]\nreturn self.pos[:, : n * 2] * 2",
            "(torch.randn(2, 8),)", '{"x": {1: Dim("n", min=2, max=32)}}', fails=False,
            init="self.register_buffer('pos', torch.arange(64).expand((1, -1)))"),
    Program("norm-over-channels", "return self.norm(x.permute(0, 2, 3, 1))", _IMAGE, _HW, fails=False,
            init="self.norm = torch.nn.LayerNorm([3])"),
    Program("norm-over-static-sizes", "return self.norm(x)", _IMAGE, '{"x": {0: Dim("b")}}', fails=False,
            init="self.norm = torch.nn.LayerNorm([3, 16, 16])"),
    Program("rotary-cache-fits", _ROTATED, "(torch.randn(2, 4, 10, 8),)", '{"x": {2: Dim("seq_len", max=64)}}',
            fails=False, init=_ROPE),
    Program("table-fits", _ENCODED, "(torch.randn(2, 8, 40),)", _frames(40), fails=False, init=_AUDIO),
    Program("table-fits-named", _ENCODED_NAMED, "(torch.randn(2, 8, 40),)", _frames(40), fails=False, init=_AUDIO),
]

BATCH = ProgramBatch("initsizes", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
