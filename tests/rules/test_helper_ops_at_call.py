"""An op a helper computes on the model's tensors ties or bounds a size as the op written in
`forward` does: export traces `to_tokens(x)` of `def to_tokens(t): return t.reshape(t.shape[0], 4,
8)` as the reshape of `x`. Judged at the call with the helper's `return` written there (XPT305,
XPT306, XPT308): a helper of the same file (one line, or straight-line statements), a method of
the model, a helper of another file imported by name or called through its module, the result
bound to a name first; with the near misses that declare another dimension. And a reshape whose
target sizes fix the element count under `Dim.DYNAMIC` (specialised: a constraint violation)
against `Dim.AUTO` (exports). Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_TOKENS = "def to_tokens(t):\n    return t.reshape(t.shape[0], 4, 8)"
_TOKENS_STEPS = "def to_tokens(t):\n    batch = t.shape[0]\n    return t.reshape(batch, 4, 8)"
_TABLE = "def add_table(t, table):\n    return t + table[: t.shape[0]]"
_CLS = "def with_cls(t, cls):\n    return torch.cat([cls, t], dim=0)"
_BLOCK = """
class Block(torch.nn.Module):
    def forward(self, x):
        return x


def project(t, weight):
    return t @ weight


def take_first(t, count):
    return t.narrow(1, 0, count)
"""
_WEIGHT = "self.weight = torch.nn.Parameter(torch.randn(8, 4))"
_PROJECT_METHOD = "def _project(self, t):\n    return t @ self.weight"


def _pair(name: str, body: str, args: str, failing: str, exporting: str, **more: str) -> list[Program]:
    """The program under a declaration that breaks the op, and under one that does not."""
    return [Program(f"{name}-tied", body, args, failing, fails=True, **more),
            Program(f"{name}-apart", body, args, exporting, fails=False, **more)]


PROGRAMS: list[Program] = [
    *_pair("same-file-reshape", "return to_tokens(x).sum(1)", "(torch.randn(2, 32),)", '{"x": {1: Dim("w")}}',
           '{"x": {0: Dim("b")}}', top=_TOKENS),
    *_pair("same-file-reshape-steps", "tokens = to_tokens(x)\nreturn tokens.relu()", "(torch.randn(2, 32),)",
           '{"x": {1: Dim("w")}}', '{"x": {0: Dim("b")}}', top=_TOKENS_STEPS),
    *_pair("same-file-buffer-slice", "return add_table(x, self.table)", "(torch.randn(6, 4),)",
           '{"x": {0: Dim("n", max=64)}}', '{"x": {0: Dim("n", max=16)}}', top=_TABLE,
           init='self.register_buffer("table", torch.zeros(16, 4))'),
    *_pair("same-file-cat-parameter", "return with_cls(x, self.cls)", "(torch.randn(5, 8),)",
           '{"x": {1: Dim("c")}}', '{"x": {0: Dim("n")}}', top=_CLS,
           init="self.cls = torch.nn.Parameter(torch.zeros(1, 8))"),
    *_pair("model-method-matmul", "return self._project(x).relu()", "(torch.randn(3, 8),)", '{"x": {1: Dim("k")}}',
           '{"x": {0: Dim("b")}}', init=_WEIGHT, methods=_PROJECT_METHOD),
    *_pair("file-helper-matmul-bound-first", "weight = self.weight\nout = project(x, weight)\nreturn out * 2",
           "(torch.randn(3, 8),)", '{"x": {1: Dim("k")}}', '{"x": {0: Dim("b")}}', init=_WEIGHT, block=_BLOCK,
           top="from .blocks import project"),
    *_pair("file-module-narrow", "return blocks.take_first(x, 4) * 2", "(torch.randn(2, 8),)",
           '{"x": {1: Dim("w")}}', '{"x": {1: Dim("w", min=5)}}', block=_BLOCK, top="from . import blocks"),
    # strict export fails `narrow` to the range's low end where arithmetic reads it
    *_pair("file-narrow-at-min-times", "return take_first(x, 4) * 2", "(torch.randn(2, 8),)",
           '{"x": {1: Dim("w", min=4)}}', '{"x": {1: Dim("w", min=5)}}', top="from .blocks import take_first",
           block=_BLOCK),
    *_pair("method-narrow-at-min-added", "return 1 + self._first(x)", "(torch.randn(2, 8),)",
           '{"x": {1: Dim("w", min=4)}}', '{"x": {1: Dim("w", min=5)}}', methods="def _first(self, t):\n    return t.narrow(1, 0, 4)"),
    # the element count fixed by the target sizes: Dim.DYNAMIC specialised, Dim.AUTO takes it
    *_pair("dynamic-view-count", "return x.view(x.size(0), 4, 8)", "(torch.randn(2, 32),)",
           '{"x": {1: Dim.DYNAMIC}}', '{"x": {1: Dim.AUTO}}'),
    *_pair("dynamic-reshape-bound-batch", "b = x.shape[0]\nreturn x.reshape(b, 32) + 1", "(torch.randn(2, 4, 8),)",
           '{"x": {2: Dim.DYNAMIC}}', '{"x": {2: Dim.AUTO}}'),
    *_pair("dynamic-reshape-in-helper", "return to_tokens(x)", "(torch.randn(2, 32),)", '{"x": {1: Dim.DYNAMIC}}',
           '{"x": {0: Dim.DYNAMIC}}', top=_TOKENS),
]

BATCH = ProgramBatch("helperops", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
