"""A slice of an input to its own size less `k` (`x[:, : h - 1]`) is `x[:, :-1]` spelt with the
size: one long where a named `Dim`'s range holds `h = k + 1`, so elementwise arithmetic on it
guards `h - k != 1` and export fails with a constraint violation (XPT307, both modes, torch 2.13).
Spelt inline with `x.shape[1]`, through a name bound to `x.size(1)`, unpacked from `x.shape`, the
slice bound to a name first; near misses declare a range above it (`min=k + 2`) or slice another
tensor's size. Torch's outcome checked in the same test.

Figures (BEFORE is this file run on the engine of `dc88b66`): failing programs with an error
0/4 -> 4/4 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_X = "(torch.randn(2, 11),)"
_NAMED = '{"x": {1: Dim("h")}}'

PROGRAMS: list[Program] = [
    Program("inline-shape", "return x[:, : x.shape[1] - 1] * 2", _X, _NAMED, fails=True),
    Program("name-bound-size", "h = x.size(1)\nreturn x[:, : h - 1] * 2", _X, _NAMED, fails=True),
    Program("unpacked-shape-by-two", "b, h = x.shape\nreturn x[:, : h - 2] + 1", _X, '{"x": {1: Dim("h", min=3)}}',
            fails=True),
    Program("slice-bound-first", "h = x.shape[-1]\nhead = x[:, : h - 1]\nreturn head * 2", _X, _NAMED, fails=True),
    # near misses
    Program("range-above", "h = x.size(1)\nreturn x[:, : h - 1] * 2", _X, '{"x": {1: Dim("h", min=3)}}', fails=False),
    Program("range-above-by-two", "b, h = x.shape\nreturn x[:, : h - 2] + 1", _X, '{"x": {1: Dim("h", min=4)}}',
            fails=False),
    Program("static-size", "h = x.size(1)\nreturn x[:, : h - 1] * 2", _X, '{"x": {0: Dim("b")}}', fails=False),
]

BATCH = ProgramBatch("lessk", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
