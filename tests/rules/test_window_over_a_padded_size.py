"""A patch convolution or pool over a size padded up to a multiple of its window (a padded patch
embedding, issue 24): `pad = (p - h % p) % p`, `F.pad`, then `Conv2d(k=p, stride=p)` or a pool of
`p`. Export's range analysis counts the `%` from 0, so it bounds the padded size from below by `h`
alone: where the window may not fit the shortest size of the declared range it cannot show the
output is at least 1 long, and fails with a constraint violation in both modes (torch 2.13); with
`min` at least the window (8 here) it exports. Also a pool whose window does not fit the shortest
size itself. Near misses: `min=8`, the size declared a multiple of the patch.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 0/4
-> 4/4 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(1, 3, 18, 16),)"
_PATCHES = """
_, _, H, W = x.shape
pad_h = (self.patch - H % self.patch) % self.patch
pad_w = (self.patch - W % self.patch) % self.patch
x = F.pad(x, (0, pad_w, 0, pad_h))
return self.proj(x).flatten(2).transpose(1, 2)
"""
_PATCH_INIT = "self.patch = 4\nself.proj = torch.nn.Conv2d(3, 8, 4, stride=4)"
_POOLED = "_, _, H, W = x.shape\npad_h = (4 - H % 4) % 4\nx = F.pad(x, (0, 0, 0, pad_h))\n"


def _windowed(name: str, body: str, shapes: str, fails: bool = True, init: str = "", prelude: str = "") -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, init=init, prelude=prelude)


PROGRAMS: list[Program] = [
    _windowed("patch-embedding", _PATCHES, '{"x": {2: Dim("h"), 3: Dim("w")}}', init=_PATCH_INIT),
    _windowed("pooled", _POOLED + "return F.avg_pool2d(x, 4)", '{"x": {2: Dim("h")}}'),
    _windowed("pool-layer-then-scaled", _POOLED + "return self.pool(x) * 2", '{"x": {2: Dim("h")}}',
              init="self.pool = torch.nn.AvgPool2d(4)"),
    _windowed("pool-of-the-size-itself", "return F.avg_pool2d(x, 4)", '{"x": {2: Dim("h")}}'),
    # near misses
    _windowed("patch-embedding-min-8", _PATCHES, '{"x": {2: Dim("h", min=8), 3: Dim("w", min=8)}}', fails=False,
              init=_PATCH_INIT),
    _windowed("pooled-min-8", _POOLED + "return F.avg_pool2d(x, 4)", '{"x": {2: Dim("h", min=8)}}', fails=False),
    Program("patch-embedding-declared-multiple", _PATCHES, "(torch.randn(1, 3, 16, 16),)", '{"x": {2: 4 * h, 3: 4 * w}}',
            fails=False, init=_PATCH_INIT, prelude='h, w = dims("h", "w")'),
]

BATCH = ProgramBatch("paddedwindows", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
