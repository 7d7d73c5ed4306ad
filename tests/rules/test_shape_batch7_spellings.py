"""The facts shape batch 7 (tests/truth/test_shape_cases_7.py) taught the XPT3xx rules, each in
several spellings, with torch 2.13's outcome checked in the same test (both modes): a literal in a
`view` where a derived `Dim` was splits it without a guard when it divides the derived size's
scale and offset (`(2, 8*t).view(-1, 8)` exports, `.view(-1, 16)` fails)."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

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

BATCH = ProgramBatch("batch7spell", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
