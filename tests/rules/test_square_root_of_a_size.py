"""The side of a square grid of tokens, `int(n ** 0.5)` (a ViT's patch grid, issue 24: float
arithmetic on sizes): a power by a float is float arithmetic as `math.sqrt` is. Under a named
`Dim`, non-strict export fails wherever it is computed; strict export fails where the result is a
`reshape` size or a slice bound, and exports where it only scales (torch 2.13). Near misses: a
power by an integer, `Dim.AUTO`, the strict uses that keep it symbolic.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 6/6
-> 6/6 non-strict, 1/4 -> 4/4 strict; exporting programs with one 0/2 (strict 0/4) before and
after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 16, 8),)"
_TOKENS = '{"x": {1: Dim("n", min=4, max=256)}}'


def _grid(name: str, body: str, fails: bool = True, strict_fails: bool | None = None, shapes: str = _TOKENS) -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, strict_fails=strict_fails)


PROGRAMS: list[Program] = [
    _grid("power-then-reshape", "b, n, c = x.shape\ns = int(n ** 0.5)\nreturn x.reshape(b, s, s, c)"),
    _grid("sqrt-then-reshape", "b, n, c = x.shape\ns = int(math.sqrt(n))\nreturn x.reshape(b, s, s, c)"),
    _grid("power-inline-view", "s = int(x.shape[1] ** 0.5)\nreturn x.view(x.shape[0], s, s, -1)"),
    _grid("power-slice-bound", "b, n, c = x.shape\ns = int(n ** 0.5)\nreturn x[:, :s]"),
    _grid("power-scales", "b, n, c = x.shape\ns = int(n ** 0.5)\nreturn x * s", strict_fails=False),
    _grid("power-unread", "b, n, c = x.shape\ns = int(n ** 0.5)\nreturn x * 2", strict_fails=False),
    # near misses
    _grid("integer-power", "b, n, c = x.shape\nreturn x.reshape(b, n ** 2 // n, c)", fails=False),
    _grid("auto", "b, n, c = x.shape\ns = int(n ** 0.5)\nreturn x.reshape(b, s, s, c)", fails=False,
          shapes='{"x": {1: Dim.AUTO}}'),
]

BATCH = ProgramBatch("sqrtsizes", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
