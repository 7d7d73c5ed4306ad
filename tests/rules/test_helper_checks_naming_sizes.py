"""A size check in a helper of the file that names the size first (issue 24: an assert helper
specialises as `assert` does): `n = t.shape[1]`, then `assert n == expected`; `_, n, _ = t.shape`,
then `if n != expected: raise`; a half of it checked. The helper's locals bound once are written
out before the call's arguments go in (`x.shape[1] == 8`), and the check is judged as the
caller's own: a named `Dim` pinned fails (both modes, torch 2.13). Near misses: a check the
declared range passes, a check of a static size.

Figures (BEFORE is this file run on the engine of `5dc9469`): failing programs with an error 0/4 ->
4/4 in both modes; exporting programs with one 0/2 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8, 16),)"
_SEQ = '{"x": {1: Dim("n", min=2, max=64)}}'
_NAMED = """
def check_len(t, expected):
    n = t.shape[1]
    assert n == expected, f"bad length {n}"
"""
_UNPACKED = """
def check_len(t, expected):
    _, n, _ = t.shape
    if n != expected:
        raise ValueError("bad length")
"""
_HALVED = """
def check_len(t, expected):
    n = t.size(1)
    half = n // 2
    torch._check(half == expected)
"""
_AT_MOST = """
def check_len(t, longest):
    n = t.shape[1]
    assert n <= longest, "too long"
"""
_CALL = "check_len(x, {value})\nreturn x * 2"


def _checked(name: str, helper: str, value: str, shapes: str = _SEQ, fails: bool = True) -> Program:
    return Program(name, _CALL.format(value=value), _ARGS, shapes, fails=fails, top=helper)


PROGRAMS: list[Program] = [
    _checked("named-then-asserted", _NAMED, "8"),
    _checked("unpacked-then-raised", _UNPACKED, "8"),
    _checked("halved-then-checked", _HALVED, "4"),
    _checked("named-then-asserted-keyword", _NAMED, "expected=8"),
    # near misses
    _checked("at-most-the-range-top", _AT_MOST, "64", fails=False),
    _checked("named-static-size", _NAMED, "8", shapes='{"x": {0: Dim("b")}}', fails=False),
]

BATCH = ProgramBatch("helperchecks", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
