"""A guard on a size declared as a derived `Dim` (`2 * h`, `h + 1`) that narrows its range without
pinning it to one value (`% 4`, `> 40`, `!= 34`; an `assert`, `torch._check`, an `if` that raises or
returns) exports in both modes on torch 2.13: export keeps it as a run-time check of the exported
program instead of raising a constraint violation, as it does for a root `Dim` (`% 4` of `h`).
A test that holds only at one size (`== 32`) still fails. Found by a helper's probe (a patch
embedding's `assert H % self.p == 0` under `2 * h`, an error before). Torch's outcome checked in
the same test.

Figures (BEFORE is this file run on the engine of `4556e6d`): exporting programs with an error
9/9 -> 0/9 in both modes; failing programs with one 2/2 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_X = "(torch.randn(2, 3, 32, 8),)"
_TWICE = '{"x": {2: 2 * h}}'
_H = 'h = Dim("h")'


def _guarded(name: str, guard: str, shapes: str = _TWICE, fails: bool = False, args: str = _X) -> Program:
    return Program(name, f"{guard}\nreturn x * 2", args, shapes, fails=fails, prelude=_H)


PROGRAMS: list[Program] = [
    _guarded("assert-multiple-of-four", 'assert x.shape[2] % 4 == 0, "H not divisible"'),
    _guarded("assert-multiple-no-message", "H = x.shape[2]\nassert H % 4 == 0"),
    _guarded("check-multiple-of-four", "torch._check(x.shape[2] % 4 == 0)"),
    _guarded("raise-unless-multiple", 'if x.shape[2] % 4 != 0:\n    raise ValueError("H not divisible")'),
    _guarded("branch-on-multiple", "if x.size(2) % 4 == 0:\n    return x * 3"),
    _guarded("assert-above", 'assert x.shape[2] > 40, "too small"', args="(torch.randn(2, 3, 48, 8),)"),
    _guarded("assert-not-one-size", 'assert x.shape[2] != 34, "34"'),
    _guarded("assert-even-of-offset", 'assert x.shape[2] % 2 == 0, "odd"', shapes='{"x": {2: h + 1}}'),
    Program("patch-size-on-self", 'B, C, H, W = x.shape\nassert H % self.p == 0, "H not divisible"\n'
            "return self.proj(x).flatten(2).transpose(1, 2)", _X, '{"x": {2: 2 * h, 3: 2 * w}}', fails=False,
            prelude='h, w = Dim("h"), Dim("w")', init="self.proj = torch.nn.Conv2d(3, 16, 4, stride=4)\nself.p = 4"),
    # a test that holds at one size only pins it: export fails
    _guarded("assert-one-size", 'assert x.shape[2] == 32, "32"', fails=True),
    _guarded("assert-one-size-of-root", 'assert x.shape[2] % 4 == 0, "H not divisible"', shapes='{"x": {2: h}}',
             fails=True),
]

BATCH = ProgramBatch("derivedguards", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
