"""The facts shape batch 7 (tests/truth/test_shape_cases_7.py) taught the XPT3xx rules, each in
several spellings, with torch 2.13's outcome checked in the same test (both modes): a literal in a
`view` where a derived `Dim` was splits it without a guard when it divides the derived size's
scale and offset (`(2, 8*t).view(-1, 8)` exports, `.view(-1, 16)` fails); a local bound more than
once reads the binding before its statement (`h = self.conv(x)`, then `h = h + t[:, :, None, None]`
ties `h`'s batch); a block of another file given its caller's inputs whole knows their rank
(`x + self.proj(cond)` there ties two batches); `torch.where`'s condition broadcasts against both
values; `narrow` takes the length given; `triu`/`tril` keep every size; a size read from a slice
of the shape (`input_shape = x.size()[:-1]`, then `input_shape[1]`); an example size no integer
root gives for a derived `Dim` (`2 * d` and 5: XPT506); `chunk(2)` along a size declared `2 * d`
while another input's size is `d` itself (torch guards the number of pieces: fails; with no input
carrying `d`, or `unflatten`, it exports); a helper of the file (function or method) whose check
reads a tensor parameter's size (`torch._check(t.shape[-1] % k == 0)`, `if t.shape[1] > limit: raise`) guards the call's
argument (XPT304), in a block of another file too."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_TIME_INIT = "self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)\nself.proj = torch.nn.Linear(6, 4)"
_FUSE_BLOCK = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(6, 4)

    def forward(self, x, cond):
        return x + self.proj(cond)
"""
_FUSE_BLOCK_BOUND = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(6, 4)

    def forward(self, x, cond):
        c = self.proj(cond)
        out = x * c
        return out
"""
_POS_INIT = 'self.register_buffer("position_ids", torch.arange(32).expand((1, -1)), persistent=False)'
_VIEW_BLOCK = """
class Block(torch.nn.Module):
    def forward(self, t):
        return t.view(-1, 8).sum(1)
"""

PROGRAMS: list[Program] = [
    # a literal dividing a derived Dim's scale (and offset) splits it cleanly
    Program("view-eight-of-eight-t", "return x.view(-1, 8).sum(1)", "(torch.randn(2, 16),)", '{"x": {1: 8 * t}}',
            fails=False, prelude='t = Dim("t")'),
    Program("view-eight-bound-first-tuple", "rows = x.view((-1, 8))\nreturn rows.sum(1)", "(torch.randn(2, 16),)",
            '{"x": {1: 8 * t}}', fails=False, prelude='t = Dim("t")'),
    Program("reshape-two-of-offset-derived", "return x.reshape(-1, 2).sum(1)", "(torch.randn(2, 18),)",
            '{"x": {1: 8 * t + 2}}', fails=False, prelude='t = Dim("t")'),
    Program("view-eight-in-a-block", "return self.block(x)", "(torch.randn(2, 16),)", '{"x": {1: 8 * t}}',
            fails=False, init="self.block = Block()", block=_VIEW_BLOCK, prelude='t = Dim("t")'),
    # a literal that does not divide it still fails
    Program("view-sixteen-of-eight-t", "return x.view(-1, 16).sum(1)", "(torch.randn(2, 16),)", '{"x": {1: 8 * t}}',
            fails=True, prelude='t = Dim("t")'),
    Program("view-four-of-doubled-batch", "return x.view(4, -1).sum(1)", "(torch.randn(4, 6),)", '{"x": {0: 2 * b}}',
            fails=True, prelude='b = Dim("b")'),
    Program("view-eight-of-plain-named", "rows = x.view(-1, 8)\nreturn rows.sum(1)", "(torch.randn(2, 16),)",
            '{"x": {1: Dim("t")}}', fails=True),
]

PROGRAMS += [
    # a local rebound: each read takes the binding before its statement
    Program("rebound-sum-time-apart", "h = self.conv(x)\nh = h + self.proj(temb)[:, :, None, None]\nreturn h",
            "(torch.randn(2, 4, 8, 8), torch.randn(2, 6))", '{"x": {0: Dim("b")}, "temb": {0: Dim("tb")}}',
            fails=True, params="x, temb", init=_TIME_INIT),
    Program("rebound-three-times-apart", "h = self.conv(x)\nh = F.silu(h)\nt = self.proj(temb)\nh = h * t[:, :, None, None]\n"
            "return h", "(torch.randn(2, 4, 8, 8), torch.randn(2, 6))", '{"x": {0: Dim("b")}, "temb": {0: Dim("tb")}}',
            fails=True, params="x, temb", init=_TIME_INIT),
    Program("rebound-three-times-shared", "h = self.conv(x)\nh = F.silu(h)\nt = self.proj(temb)\nh = h * t[:, :, None, None]\n"
            "return h", "(torch.randn(2, 4, 8, 8), torch.randn(2, 6))", '{"x": {0: b}, "temb": {0: b}}',
            fails=False, params="x, temb", init=_TIME_INIT, prelude='b = Dim("b")'),
    Program("rebound-then-tested-decided", "h = self.proj(x)\nh = h * 2\nif h.shape[0] > 64:\n    h = h[:64]\nreturn h",
            "(torch.randn(3, 6),)", '{"x": {0: Dim("b", max=64)}}', fails=False, init=_TIME_INIT),
    Program("rebound-then-tested-named", "h = self.proj(x)\nh = h * 2\nif h.shape[0] > 64:\n    h = h[:64]\nreturn h",
            "(torch.randn(3, 6),)", '{"x": {0: Dim("b")}}', fails=True, init=_TIME_INIT),
    # a block of another file given its caller's inputs whole
    Program("block-fuses-apart", "return self.block(x, c)", "(torch.randn(3, 4), torch.randn(3, 6))",
            '{"x": {0: Dim("bx")}, "c": {0: Dim("bc")}}', fails=True, params="x, c", init="self.block = Block()",
            block=_FUSE_BLOCK),
    Program("block-fuses-bound-apart", "return self.block(x, c)", "(torch.randn(3, 4), torch.randn(3, 6))",
            '{"x": {0: Dim("bx")}, "c": {0: Dim("bc")}}', fails=True, params="x, c", init="self.block = Block()",
            block=_FUSE_BLOCK_BOUND),
    Program("block-fuses-keywords-shared", "return self.block(x=x, cond=c)", "(torch.randn(3, 4), torch.randn(3, 6))",
            '{"x": {0: b}, "c": {0: b}}', fails=False, params="x, c", init="self.block = Block()",
            block=_FUSE_BLOCK_BOUND, prelude='b = Dim("b")'),
    # torch.where's condition, narrow, triu
    Program("where-condition-apart", "keep = m > 0\nreturn torch.where(keep, x, 0.0)",
            "(torch.randn(3, 5), torch.randn(3, 5))", '{"x": {1: Dim("t")}, "m": {1: Dim("s")}}', fails=True,
            params="x, m"),
    Program("where-condition-shared", "keep = m > 0\nreturn torch.where(keep, x, 0.0)",
            "(torch.randn(3, 5), torch.randn(3, 5))", '{"x": {1: t}, "m": {1: t}}', fails=False, params="x, m",
            prelude='t = Dim("t")'),
    Program("narrow-tail-apart", "return torch.narrow(x, 1, 2, x.shape[1] - 2) * y",
            "(torch.randn(2, 7), torch.randn(2, 5))", '{"x": {1: Dim("n")}, "y": {1: Dim("m")}}', fails=True,
            params="x, y"),
    Program("narrow-method-derived", "tail = x.narrow(1, 2, x.size(1) - 2)\nreturn tail * y",
            "(torch.randn(2, 7), torch.randn(2, 5))", '{"x": {1: m + 2}, "y": {1: m}}', fails=False, params="x, y",
            prelude='m = Dim("m")'),
    Program("tril-mask-of-other-length", "n = q.shape[1]\nmask = torch.ones(n, n).tril()\nreturn k * mask",
            "(torch.randn(2, 5), torch.randn(5, 5))", '{"q": {1: Dim("lq")}, "k": {0: Dim("lk"), 1: Dim("lk2")}}',
            fails=True, params="q, k"),
    Program("triu-function-one-length", "n = q.shape[1]\nmask = torch.triu(torch.ones(n, n), 1)\nreturn k * mask",
            "(torch.randn(2, 5), torch.randn(5, 5))", '{"q": {1: n}, "k": {0: n, 1: n}}', fails=False, params="q, k",
            prelude='n = Dim("n")'),
    # a size read from a slice of the shape
    Program("shape-slice-then-buffer-past", "input_shape = x.size()[:-1]\nn = input_shape[1]\n"
            "return self.position_ids[:, :n] * 2", "(torch.randn(2, 10, 4),)", '{"x": {1: Dim("seq", max=64)}}',
            fails=True, init=_POS_INIT),
    Program("shape-tail-slice-then-test", "hw = x.shape[2:]\nif hw[0] > 32:\n    x = x[:, :, :32]\nreturn x",
            "(torch.randn(1, 3, 8, 8),)", '{"x": {2: Dim("h")}}', fails=True),
    Program("shape-tail-slice-then-test-bounded", "hw = x.shape[2:]\nif hw[0] > 32:\n    x = x[:, :, :32]\nreturn x",
            "(torch.randn(1, 3, 8, 8),)", '{"x": {2: Dim("h", max=32)}}', fails=False),
    # an example size no integer root gives
    Program("example-odd-for-twice-root", "return x * 2", "(torch.randn(2, 7),)", '{"x": {1: 2 * d}}', fails=True,
            prelude='d = Dim("d")', violation=False),
    Program("example-off-for-offset-root", "return x * 2", "(torch.randn(2, 8),)", '{"x": {1: 3 * d + 1}}',
            fails=True, prelude='d = Dim("d")', violation=False),
    Program("example-fits-offset-root", "return x * 2", "(torch.randn(2, 7),)", '{"x": {1: 3 * d + 1}}',
            fails=False, prelude='d = Dim("d")'),
]

PROGRAMS += [
    Program("chunk-doubled-root-carried-unpacked", "a, b = x.chunk(2, dim=1)\nreturn a + b, y * 2",
            "(torch.randn(2, 8), torch.randn(2, 4))", '{"x": {1: 2 * d}, "y": {1: d}}', fails=True, params="x, y",
            prelude='d = Dim("d")'),
    Program("chunk-doubled-root-carried-indexed", "return x.chunk(2, 1)[0] * y", "(torch.randn(2, 8), torch.randn(2, 4))",
            '{"x": {1: 2 * d}, "y": {1: d}}', fails=True, params="x, y", prelude='d = Dim("d")'),
    Program("chunk-function-root-carried", "a, b = torch.chunk(x, 2, 1)\nreturn a * y + b",
            "(torch.randn(2, 8), torch.randn(2, 4))", '{"x": {1: 2 * d}, "y": {1: d}}', fails=True, params="x, y",
            prelude='d = Dim("d")'),
    Program("chunk-doubled-root-not-carried", "a, b = x.chunk(2, dim=1)\nreturn a + b, y * 2",
            "(torch.randn(2, 8), torch.randn(2, 4))", '{"x": {1: 2 * d}, "y": None}', fails=False, params="x, y",
            prelude='d = Dim("d")'),
    Program("sliced-half-root-carried", "return x[:, : y.shape[1]] * y", "(torch.randn(2, 8), torch.randn(2, 4))",
            '{"x": {1: 2 * d}, "y": {1: d}}', fails=False, params="x, y", prelude='d = Dim("d")'),
]

_MULTIPLE = "def ensure_multiple(t, k):\n    torch._check(t.shape[-1] % k == 0)\n    return t\n"
_AT_MOST = "def check_length(t, limit):\n    if not t.shape[1] <= limit:\n        raise ValueError(\"too long\")\n"
_METHOD = "def _check_tokens(self, t):\n    assert t.size(1) <= 64, \"too many tokens\""
PROGRAMS += [
    Program("helper-checks-multiple-named", "return ensure_multiple(x, 4) * 2", "(torch.randn(2, 12),)",
            '{"x": {1: Dim("w")}}', fails=True, top=_MULTIPLE),
    Program("helper-checks-multiple-derived", "return ensure_multiple(x, 4) * 2", "(torch.randn(2, 12),)",
            '{"x": {1: 4 * k}}', fails=False, top=_MULTIPLE, prelude='k = Dim("k")'),
    Program("helper-checks-multiple-of-computed", "h = self.proj(x)\nh = ensure_multiple(h, 4)\nreturn h",
            "(torch.randn(12, 6),)", '{"x": {0: Dim("n")}}', fails=False, top=_MULTIPLE,
            init="self.proj = torch.nn.Linear(6, 8)"),
    Program("helper-raises-past-limit-named", "check_length(x, 64)\nreturn x * 2", "(torch.randn(2, 10),)",
            '{"x": {1: Dim("t")}}', fails=True, top=_AT_MOST),
    Program("helper-raises-past-limit-keyword-bounded", "check_length(t=x, limit=64)\nreturn x * 2",
            "(torch.randn(2, 10),)", '{"x": {1: Dim("t", max=64)}}', fails=False, top=_AT_MOST),
    Program("method-asserts-tokens-named", "self._check_tokens(x)\nreturn x * 2", "(torch.randn(2, 10),)",
            '{"x": {1: Dim("t")}}', fails=True, methods=_METHOD),
    Program("method-asserts-tokens-batch-only", "self._check_tokens(x)\nreturn x * 2", "(torch.randn(2, 10),)",
            '{"x": {0: Dim("b")}}', fails=False, methods=_METHOD),
]

_RAISES_PAST = "def reject_long(t, limit):\n    if t.shape[1] > limit:\n        raise ValueError(\"too long\")\n"
_WIDTH_BLOCK = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.width = 8

    def _check(self, t):
        if t.shape[-1] != self.width:
            raise ValueError("width")

    def forward(self, x):
        self._check(x)
        return x * 2
"""
PROGRAMS += [
    Program("helper-raises-when-past-named", "reject_long(x, 64)\nreturn x * 2", "(torch.randn(2, 10),)",
            '{"x": {1: Dim("t")}}', fails=True, top=_RAISES_PAST),
    Program("helper-raises-when-past-bounded", "reject_long(x, 64)\nreturn x * 2", "(torch.randn(2, 10),)",
            '{"x": {1: Dim("t", max=64)}}', fails=False, top=_RAISES_PAST),
    Program("block-method-raises-on-width-named", "return self.block(x)", "(torch.randn(2, 8),)",
            '{"x": {1: Dim("w")}}', fails=True, init="self.block = Block()", block=_WIDTH_BLOCK),
    Program("block-method-raises-on-width-batch", "return self.block(x)", "(torch.randn(2, 8),)",
            '{"x": {0: Dim("b")}}', fails=False, init="self.block = Block()", block=_WIDTH_BLOCK),
]

BATCH = ProgramBatch("batch7spell", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
