"""A slice of the `forward` input where the name is rebound to it (issue 24; ViT's `x = x[:, 1:]`
before pooling the patch tokens): `x = x[:, 1:]` reads the input, so what follows is a slice of it
by a literal, judged as the same slice written inline (XPT307: a mean over a size that is 1 long
at the range's low end fails non-strict export; XPT308: a slice to a literal length fails where
the range holds larger sizes). Measured on torch 2.13 in both modes. Near misses: a range whose
low end leaves the slice longer than 1, and the batch declared instead.

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error,
non-strict 3/5 -> 5/5, strict 0/1 -> 1/1 (arithmetic on the slice through the rebound name);
exporting programs with one 0/2 and 0/6 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_FROM_TWO = '{"x": {1: Dim("n", min=2, max=64)}}'
_FROM_FOUR = '{"x": {1: Dim("n", min=4, max=64)}}'

PROGRAMS: list[Program] = [
    Program("strip-cls-inline", "return x[:, 1:].mean(dim=1)", _ARGS, _FROM_TWO, fails=True, strict_fails=False),
    Program("strip-cls-new-name", "tokens = x[:, 1:]\nreturn tokens.mean(dim=1)", _ARGS, _FROM_TWO, fails=True,
            strict_fails=False),
    Program("strip-cls-rebound", "x = x[:, 1:]\nreturn x.mean(dim=1)", _ARGS, _FROM_TWO, fails=True, strict_fails=False),
    Program("strip-cls-rebound-sum", "x = x[:, 1:]\nx = x.sum(1)\nreturn x", _ARGS, _FROM_TWO, fails=True,
            strict_fails=False),
    Program("first-four-rebound", "x = x[:, :4]\nreturn x * 2", _ARGS, _FROM_FOUR, fails=True),
    # near misses
    Program("strip-cls-rebound-min-three", "x = x[:, 1:]\nreturn x.mean(dim=1)", _ARGS,
            '{"x": {1: Dim("n", min=3, max=64)}}', fails=False),
    Program("strip-cls-rebound-batch", "x = x[:, 1:]\nreturn x.mean(dim=1)", _ARGS, '{"x": {0: Dim("b")}}', fails=False),
]

BATCH = ProgramBatch("reboundslice", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
