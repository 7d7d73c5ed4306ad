"""The facts shape batch 8 (tests/truth/test_shape_cases_8.py) taught the XPT3xx rules, each in
several spellings, with torch 2.13's outcome checked in the same test (both modes): a Python number
(`math.sqrt(8)`, a size `q.size(-1) ** -0.5`, a constant of `__init__`, a name bound to one, a
one-line helper's scale) keeps a tensor's sizes through `*`/`/`, so attention scores scaled by one
still tie the query length to a padding mask of another `Dim`; a layer built in `__init__` from an
argument with an integer default (`nn.LayerNorm(width)`, `nn.Linear(in_features=dim, ...)`,
`nn.GroupNorm(groups, channels)`) or from a constant it set (`self.width`) fixes its input size
like a literal does, in this file or a block of another (a named `Dim` there fails whatever value
the block is built with: `Block(16)` ties to 16); a block of this file given the model's inputs
whole knows their ranks from the declaration's example (export_site: the declared config carries
them), so `x + self.proj(cond)` there ties two batches, as a block of another file's does."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_QKV_INIT = "self.qkv = torch.nn.Linear(8, 24)"
_ARGS = "(torch.randn(2, 6, 8), torch.zeros(2, 6))"
_APART = '{"hidden": {1: Dim("q_len")}, "mask": {1: Dim("mask_len")}}'
_SHARED = '{"hidden": {1: seq}, "mask": {1: seq}}'
_SCALE_HELPER = "def _scaled(s):\n    return s / math.sqrt(8)\n"


def _attention(scaled: str) -> str:
    """Scores of `q, k, v = self.qkv(hidden).chunk(3, -1)`, scaled as `scaled` writes (from `raw`),
    plus the padding mask."""
    return ("q, k, v = self.qkv(hidden).chunk(3, dim=-1)\nraw = q @ k.transpose(-1, -2)\n"
            f"{scaled}\nreturn (scores + mask[:, None, :]).softmax(-1) @ v")


_SPELLINGS = {
    "sqrt-of-literal": "scores = raw / math.sqrt(8)",
    "size-to-a-power": "scores = raw * q.size(-1) ** -0.5",
    "bound-scale-of-size": "scale = 1.0 / math.sqrt(q.shape[-1])\nscores = scale * raw",
    "init-constant-scale": "scores = raw / self.head_dim",
    "one-line-helper": "scores = _scaled(raw)",
}

PROGRAMS: list[Program] = []
for label, scaled in _SPELLINGS.items():
    init = _QKV_INIT + ("\nself.head_dim = 8" if "self.head_dim" in scaled else "")
    top = _SCALE_HELPER if "_scaled" in scaled else ""
    PROGRAMS += [
        Program(f"mask-apart-{label}", _attention(scaled), _ARGS, _APART, fails=True, params="hidden, mask",
                init=init, top=top),
        Program(f"mask-shared-{label}", _attention(scaled), _ARGS, _SHARED, fails=False, params="hidden, mask",
                init=init, top=top, prelude='seq = Dim("seq")'),
    ]

PROGRAMS += [
    # a size of another input divides, it does not broadcast: nothing is tied
    Program("divided-by-other-batch", "return x / y.shape[0]", "(torch.randn(4, 3), torch.randn(5, 3))",
            '{"x": {0: Dim("n")}, "y": {0: Dim("m")}}', fails=False, params="x, y"),
    Program("negated-scale-apart", "return (x * -2.0) + y", "(torch.randn(4, 3), torch.randn(4, 3))",
            '{"x": {0: Dim("n")}, "y": {0: Dim("m")}}', fails=True, params="x, y"),
]

_NORM_OF_ARGUMENT = """
class Block(torch.nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.width = width
        self.norm = torch.nn.LayerNorm(self.width)

    def forward(self, t):
        return self.norm(t)
"""
_NORM_OF_DEFAULT = """
class Block(torch.nn.Module):
    def __init__(self, width=8, eps=1e-6):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width, eps=eps)

    def forward(self, t):
        return self.norm(t)
"""
_TOKENS = "(torch.randn(2, 5, 8),)"
PROGRAMS += [
    Program("block-norm-of-default-argument-width", "return self.block(x)", _TOKENS, '{"x": {2: Dim("w")}}',
            fails=True, init="self.block = Block()", block=_NORM_OF_DEFAULT),
    Program("block-norm-of-default-argument-length", "return self.block(x)", _TOKENS, '{"x": {1: Dim("n")}}',
            fails=False, init="self.block = Block()", block=_NORM_OF_DEFAULT),
    Program("linear-of-keyword-default-width", "return self.head(x)", _TOKENS, '{"x": {2: Dim("w")}}', fails=True,
            init="self.dim = 8\nself.head = torch.nn.Linear(in_features=self.dim, out_features=4)"),
    Program("linear-of-keyword-default-length", "return self.head(x)", _TOKENS, '{"x": {1: Dim("n")}}', fails=False,
            init="self.dim = 8\nself.head = torch.nn.Linear(in_features=self.dim, out_features=4)"),
    Program("group-norm-of-attribute-channels", "return self.norm(x)", "(torch.randn(2, 4, 6),)",
            '{"x": {1: Dim("c")}}', fails=True, init="self.channels = 4\nself.norm = torch.nn.GroupNorm(2, self.channels)"),
    Program("group-norm-of-attribute-length", "return self.norm(x)", "(torch.randn(2, 4, 6),)",
            '{"x": {2: Dim("n")}}', fails=False, init="self.channels = 4\nself.norm = torch.nn.GroupNorm(2, self.channels)"),
    Program("block-norm-of-attribute-width", "return self.block(x)", _TOKENS, '{"x": {2: Dim("w")}}', fails=True,
            init="self.block = Block()", block=_NORM_OF_ARGUMENT),
    Program("block-norm-built-wider-width", "return self.block(x)", "(torch.randn(2, 5, 16),)", '{"x": {2: Dim("w")}}',
            fails=True, init="self.block = Block(16)", block=_NORM_OF_ARGUMENT),
    Program("block-norm-built-wider-batch", "return self.block(x)", "(torch.randn(2, 5, 16),)", '{"x": {0: Dim("b")}}',
            fails=False, init="self.block = Block(16)", block=_NORM_OF_ARGUMENT),
]

_FUSE = """
class Fuse(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(6, 4)

    def forward(self, x, cond):
        return x + self.proj(cond)
"""
_FUSE_BOUND = """
class Fuse(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(6, 4)

    def forward(self, x, cond):
        c = self.proj(cond)
        out = x * c
        return out
"""
_PAIR = "(torch.randn(3, 4), torch.randn(3, 6))"
PROGRAMS += [
    Program("same-file-block-fuses-apart", "return self.block(x, c)", _PAIR, '{"x": {0: Dim("bx")}, "c": {0: Dim("bc")}}',
            fails=True, params="x, c", init="self.block = Fuse()", top=_FUSE),
    Program("same-file-block-fuses-shared", "return self.block(x, c)", _PAIR, '{"x": {0: b}, "c": {0: b}}',
            fails=False, params="x, c", init="self.block = Fuse()", top=_FUSE, prelude='b = Dim("b")'),
    Program("same-file-block-keywords-apart", "return self.block(x=x, cond=c)", _PAIR,
            '{"x": {0: Dim("bx")}, "c": {0: Dim("bc")}}', fails=True, params="x, c", init="self.block = Fuse()",
            top=_FUSE),
    Program("same-file-block-bound-tuple-apart", "return self.block(x, c)", _PAIR, '({0: Dim("bx")}, {0: Dim("bc")})',
            fails=True, params="x, c", init="self.block = Fuse()", top=_FUSE_BOUND),
    Program("same-file-block-bound-tuple-shared", "return self.block(x, c)", _PAIR, "({0: b}, {0: b})",
            fails=False, params="x, c", init="self.block = Fuse()", top=_FUSE_BOUND, prelude='b = Dim("b")'),
    Program("same-file-block-fuses-batch-and-auto", "return self.block(x, c)", _PAIR,
            '{"x": {0: Dim("bx")}, "c": {0: Dim.AUTO}}', fails=False, params="x, c", init="self.block = Fuse()",
            top=_FUSE),
]

BATCH = ProgramBatch("batch8spell", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
