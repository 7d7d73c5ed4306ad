"""XPT305 on facts of the ops, each in several spellings, with torch 2.13's outcome checked in the
same test (both modes): a comparison broadcasts as arithmetic does (`torch.arange(n) < 3`, `x > y`);
`expand` takes the sizes it is given (`cls.expand(x.shape[0], -1, -1)`); a `view` in the statement
that rebinds its input reads the input (`x = x.view(B, H // 4, 4, C)`), in `forward` and in a block
of another file given the declared dims; a size taken down and back up (a strided conv and its
transpose, a pool and an upsample) against the size it came from ties them where they are equal
for only some sizes of the declared range."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_CLS = "self.cls = torch.nn.Parameter(torch.zeros(1, 1, 4))"
_REBOUND = "B, H, C = x.shape\nx = x.view(B, H // 4, 4, C)\nreturn x.sum(2)"
_VIEW_BLOCK = """
class Block(torch.nn.Module):
    def forward(self, t):
        B, H, C = t.shape
        t = t.view(B, H // 2, 2, C)
        return t.mean(2)
"""

_DOWN_UP = ("self.down = torch.nn.Conv1d(2, 2, 3, stride=2, padding=1)\n"
            "self.up = torch.nn.ConvTranspose1d(2, 2, 2, stride=2)")
_POOL_UP = "h = F.interpolate(self.pool(x), scale_factor=2.0, mode=\"nearest\")\nreturn torch.cat([h, x], dim=1)"

PROGRAMS: list[Program] = [
    # comparisons broadcast as arithmetic does
    Program("arange-compared-then-other-length", "keep = torch.arange(y.shape[1]) >= 2\nreturn x * keep",
            "(torch.randn(2, 6), torch.randn(2, 6))", '{"x": {1: Dim("a")}, "y": {1: Dim("b")}}', fails=True,
            params="x, y"),
    Program("two-inputs-compared-apart", "return (x > y).float()", "(torch.randn(3, 4), torch.randn(3, 4))",
            '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}', fails=True, params="x, y"),
    Program("two-inputs-compared-shared", "return (x > y).float()", "(torch.randn(3, 4), torch.randn(3, 4))",
            '{"x": {0: n}, "y": {0: n}}', fails=False, params="x, y", prelude='n = Dim("n")'),
    Program("compared-to-a-number", "return x * (y.sum(1) > 0)[:, None]", "(torch.randn(3, 4), torch.randn(3, 5))",
            '{"x": {0: n}, "y": {0: n, 1: Dim("m")}}', fails=False, params="x, y", prelude='n = Dim("n")'),
    # expand to the sizes given
    Program("class-token-expanded-to-other-batch", "return self.cls.expand(y.shape[0], -1, -1) + x",
            "(torch.randn(2, 1, 4), torch.randn(2, 5, 4))", '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}', fails=True,
            params="x, y", init=_CLS),
    Program("class-token-prefixed-against-derived", "h = torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1)\n"
            "return h + y", "(torch.randn(2, 5, 4), torch.randn(2, 6, 4))", '{"x": {1: t}, "y": {1: t + 1}}',
            fails=False, params="x, y", init=_CLS, prelude='t = Dim("t")'),
    # a view in the statement that rebinds its input
    Program("rebound-by-its-view-named", _REBOUND, "(torch.randn(2, 8, 3),)", '{"x": {1: Dim("h")}}', fails=True),
    Program("rebound-by-its-view-multiple", _REBOUND, "(torch.randn(2, 8, 3),)", '{"x": {1: 4 * k}}', fails=False,
            prelude='k = Dim("k")'),
    Program("block-rebound-by-its-view-named", "return self.block(x)", "(torch.randn(2, 8, 3),)",
            '{"x": {1: Dim("h")}}', fails=True, init="self.block = Block()", block=_VIEW_BLOCK),
    Program("block-rebound-by-its-view-even", "return self.block(x)", "(torch.randn(2, 8, 3),)",
            '{"x": {1: 2 * k}}', fails=False, init="self.block = Block()", block=_VIEW_BLOCK,
            prelude='k = Dim("k")'),
    # down and back up, against the size it came from
    Program("strided-conv-and-back-named", "return self.up(self.down(x)) + x", "(torch.randn(1, 2, 8),)",
            '{"x": {2: Dim("t", min=4)}}', fails=True, init=_DOWN_UP),
    Program("strided-conv-and-back-even", "return self.up(self.down(x)) + x", "(torch.randn(1, 2, 8),)",
            '{"x": {2: 2 * k}}', fails=False, init=_DOWN_UP, prelude='k = Dim("k", min=2)'),
    Program("pooled-and-upsampled-named", _POOL_UP, "(torch.randn(1, 2, 8, 8),)",
            '{"x": {2: Dim("h", min=4), 3: Dim("w", min=4)}}', fails=True, init="self.pool = torch.nn.MaxPool2d(2)"),
    Program("pooled-and-upsampled-even", _POOL_UP, "(torch.randn(1, 2, 8, 8),)", '{"x": {2: 2 * h, 3: 2 * w}}',
            fails=False, init="self.pool = torch.nn.MaxPool2d(2)", prelude='h, w = dims("h", "w", min=2)'),
]

BATCH = ProgramBatch("ties6", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
