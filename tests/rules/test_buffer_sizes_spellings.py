"""A buffer `__init__` computes through its locals has the sizes those ops give it (a rotary cache:
`torch.outer(torch.arange(64).float(), inv)`, `torch.cat((freqs, freqs), dim=-1)`, `.cos()`,
arithmetic with a number; a position table by `.repeat`; `torch.arange(0, 16, 2)`), so slicing it
by an input size bounds that size as a literal-sized buffer does (XPT306). torch 2.13's outcome
is checked in the same test, in both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ROPE_INIT = """
inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
freqs = torch.outer(torch.arange(64).float(), inv_freq)
emb = torch.cat((freqs, freqs), dim=-1)
self.register_buffer("cos_cached", emb.cos(), persistent=False)
"""
_ROPE = "cos = self.cos_cached[: x.shape[-2]]\nreturn x * cos"
_TABLE_INIT = "table = torch.arange(32).float().unsqueeze(1).repeat(1, 4)\nself.register_buffer(\"table\", table)"
_TABLE = "return x + self.table[: x.shape[0]]"

PROGRAMS: list[Program] = [
    Program("rotary-cache-past-its-length", _ROPE, "(torch.randn(1, 2, 16, 8),)", '{"x": {2: Dim("seq", max=128)}}',
            fails=True, init=_ROPE_INIT),
    Program("rotary-cache-within-its-length", _ROPE, "(torch.randn(1, 2, 16, 8),)", '{"x": {2: Dim("seq", max=64)}}',
            fails=False, init=_ROPE_INIT),
    Program("repeated-table-past-its-length", _TABLE, "(torch.randn(8, 4),)", '{"x": {0: Dim("t", max=64)}}',
            fails=True, init=_TABLE_INIT),
    Program("repeated-table-within-its-length", _TABLE, "(torch.randn(8, 4),)", '{"x": {0: Dim("t", max=32)}}',
            fails=False, init=_TABLE_INIT),
]

BATCH = ProgramBatch("buffers6", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
