"""A size the code writes as a module-level constant (`PATCH = 4`, `WS = 4`) is that integer, as a
literal or a constant `__init__` keeps on `self` is: `assert H % PATCH == 0` under a named `Dim`
splits it (XPT304), and `x.view(B, H // WS, WS, ...)` needs it a multiple (XPT305), both modes on
torch 2.13, also through a helper of the file given the constant. Near misses declare the sizes as
multiples (`4 * h`), and a name the function binds itself is not the module's. Found by a helper's
probe. Torch's outcome checked in the same test.

Figures (BEFORE is this file run on the engine of `4556e6d`): failing programs with an error
0/3 -> 3/3 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_TOP = """
WS = 4
PATCH = 4


def partition(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws, ws, W // ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, C)
"""
_IMG = "(torch.randn(2, 3, 32, 32),)"
_WIN = "(torch.randn(2, 16, 16, 8),)"
_NAMED_H = '{"x": {2: Dim("H")}}'
_NAMED_HW = '{"x": {1: Dim("H"), 2: Dim("W")}}'
_MULTIPLES = '{"x": {1: 4 * h, 2: 4 * w}}'
_HW = 'h, w = Dim("h"), Dim("w")'

PROGRAMS: list[Program] = [
    Program("assert-divisible-by-constant", "B, C, H, W = x.shape\nassert H % PATCH == 0\nreturn x * 2", _IMG,
            _NAMED_H, fails=True, top=_TOP),
    Program("window-view-by-constant", "B, H, W, C = x.shape\nreturn x.view(B, H // WS, WS, W // WS, WS, C).sum(2)",
            _WIN, _NAMED_HW, fails=True, top=_TOP),
    Program("window-helper-given-constant", "return partition(x, WS)", _WIN, _NAMED_HW, fails=True, top=_TOP),
    # near misses
    Program("window-view-of-multiples", "B, H, W, C = x.shape\nreturn x.view(B, H // WS, WS, W // WS, WS, C).sum(2)",
            _WIN, _MULTIPLES, fails=False, top=_TOP, prelude=_HW),
    Program("window-helper-of-multiples", "return partition(x, WS)", _WIN, _MULTIPLES, fails=False, top=_TOP,
            prelude=_HW),
    Program("constant-rebound-locally", "PATCH = x.shape[2]\nB, C, H, W = x.shape\nassert H % PATCH == 0\n"
            "return x * 2", _IMG, _NAMED_H, fails=False, top=_TOP),
]

BATCH = ProgramBatch("moduleconst", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
