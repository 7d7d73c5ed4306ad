"""Inputs given as keywords (`kwargs=` of the example, `forward(self, *, x)`) are declared and
tied as positional ones are: a `Dim` per input of `x + y` apart fails export (XPT305), a shared
one exports; a `Linear`'s input features tie the last size of a keyword input. Spelled
keyword-only, one positional then one keyword-only, positional parameters filled by keywords,
the keywords bound to a name first, and through a block of another file; a `Dim` on another
dimension is the near miss. Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PAIR = '{"x": torch.randn(4, 3), "y": torch.randn(4, 3)}'
_APART = '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}'
_SHARED = '{"x": {0: n}, "y": {0: n}}'
_LINEAR = "self.proj = torch.nn.Linear(8, 4)"
_BLOCK = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 4)

    def forward(self, *, features):
        return self.proj(features)
"""


def _sum(name: str, params: str, args: str = "()", kwargs: str = _PAIR, **more: str) -> list[Program]:
    """`x + y` under a `Dim` per input (fails) and one shared `Dim` (exports)."""
    return [Program(f"{name}-apart", "return x + y", args, _APART, fails=True, params=params, kwargs=kwargs, **more),
            Program(f"{name}-shared", "return x + y", args, _SHARED, fails=False, params=params, kwargs=kwargs,
                    prelude=more.pop("prelude", "") + '\nn = Dim("n")', **more)]


PROGRAMS: list[Program] = [
    *_sum("keyword-only", "*, x, y"),
    *_sum("positional-then-keyword-only", "x, *, y", args="(torch.randn(4, 3),)",
          kwargs='{"y": torch.randn(4, 3)}'),
    *_sum("positional-by-keyword", "x, y"),
    *_sum("keywords-bound-first", "*, x, y", kwargs="inputs", prelude=f"inputs = {_PAIR}"),
    Program("keyword-linear-width", "return self.proj(x)", "()", '{"x": {1: Dim("w")}}', fails=True,
            params="*, x", kwargs='{"x": torch.randn(3, 8)}', init=_LINEAR),
    Program("keyword-linear-rows", "return self.proj(x)", "()", '{"x": {0: Dim("b")}}', fails=False,
            params="*, x", kwargs='{"x": torch.randn(3, 8)}', init=_LINEAR),
    Program("keyword-into-block-width", "return self.block(features=x)", "()", '{"x": {1: Dim("w")}}', fails=True,
            params="*, x", kwargs='{"x": torch.randn(3, 8)}', init="self.block = Block()", block=_BLOCK),
    Program("keyword-into-block-rows", "return self.block(features=x)", "()", '{"x": {0: Dim("b")}}', fails=False,
            params="*, x", kwargs='{"x": torch.randn(3, 8)}', init="self.block = Block()", block=_BLOCK),
]

BATCH = ProgramBatch("keywords", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
