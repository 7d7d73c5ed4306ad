"""Whole shapes compared in an `if` that does not raise (issue 24, from a held-out probe's misses):
`if x.shape[-2:] != (16, 16): x = F.interpolate(x, size=(16, 16))`, timm's and ViT's resize of an
input or a position table when the grid differs. Python compares the sizes one by one until two
differ: on the example, export guards each equal pair (a named `Dim` specialised: fails in both
modes) and the first unequal one (`h != 16`: fails non-strict; strict export keeps no guard for it
and exports, measured on torch 2.13). XPT301 judges the comparisons the example makes, in order.
Near misses: the sizes static, a range above the size compared, the first size static and the
example's other size unequal.

Figures (BEFORE is this file run on the engine of `9711616`): failing programs with an error 0/6
-> 6/6 non-strict, 0/4 -> 4/4 strict (a warning before); exporting programs with one 0/3 non-strict,
0/5 strict, before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch
_RESIZE = 'if x.shape[-2:] != (16, 16):\n    x = F.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)\nreturn x * 2'
_HW = '{"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}'
_BOUND = 'size = tuple(x.shape[2:])\nif size != (16, 16):\n    x = F.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)\nreturn x * 2'
_EQUAL = 'if x.shape[2:] == (16, 16):\n    return x * 2\nreturn F.interpolate(x, size=(16, 16), mode="nearest")'
_SELF = 'if x.shape[-2:] != self.size:\n    x = F.interpolate(x, size=self.size, mode="nearest")\nreturn x * 2'
PROGRAMS: list[Program] = [
    Program("resize-unless-the-example-size", _RESIZE, "(torch.randn(1, 3, 16, 16),)", _HW, fails=True),
    Program("resize-unless-another-size", _RESIZE, "(torch.randn(1, 3, 20, 20),)", _HW, fails=True, strict_fails=False),
    Program("resize-bound-first", _BOUND, "(torch.randn(1, 3, 16, 16),)", _HW, fails=True),
    Program("keep-if-the-example-size", _EQUAL, "(torch.randn(1, 3, 16, 16),)", _HW, fails=True),
    Program("keep-if-another-size", _EQUAL, "(torch.randn(1, 3, 20, 20),)", _HW, fails=True, strict_fails=False),
    Program("resize-unless-held-size", _SELF, "(torch.randn(1, 3, 16, 16),)", _HW, fails=True, init="self.size = (16, 16)"),
    # near misses
    Program("resize-sizes-static", _RESIZE, "(torch.randn(2, 3, 16, 16),)", '{"x": {0: Dim("b")}}', fails=False),
    Program("resize-range-above", _RESIZE, "(torch.randn(1, 3, 20, 20),)",
            '{"x": {2: Dim("h", min=17, max=64), 3: Dim("w", min=17, max=64)}}', fails=False),
    Program("resize-first-size-static", _RESIZE, "(torch.randn(1, 3, 20, 20),)", '{"x": {3: Dim("w", min=8, max=64)}}',
            fails=False),
]

BATCH = ProgramBatch("wholeshapes", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
