"""`view`/`reshape` whose target keeps one input size and writes the others out (`b = x.shape[0]`,
then `x.view(b, 8, 4, 4)` of a `(b, n, 16)` input with `b` and `n` named `Dim`s): the kept size is
the same factor on both sides, so the written-out sizes fix the other named size, and export fails
with a constraint violation (XPT305, both modes, torch 2.13). Spelt with a literal, a constant
`__init__` keeps on `self`, sizes unpacked from `.shape`, a tuple argument, `reshape`; near misses
keep both sizes, leave `-1` where the named size was, declare it static, or leave a `-1` the
constants divide. Torch's outcome checked in the same test.

A constant where a named size was, beside a `-1` elsewhere (`x.view(b, 8, -1)`), fails too (measured).

The size may come from a required argument of `__init__` that every call building the model passes
as one literal (`Model(8)`), as a default does.

Figures (BEFORE is this file run on the engine of `dc88b66`): failing programs with an error
0/9 -> 8/9 in both modes (the miss: a target size computed from a static one, `c // 4`);
exporting programs with one 0/7 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, Program, ProgramBatch
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_X = "(torch.randn(2, 8, 16),)"
_BOTH = '{"x": {0: Dim("b"), 1: Dim("n")}}'
_BATCH_ONLY = '{"x": {0: Dim("b")}}'

PROGRAMS: list[Program] = [
    Program("literal-sizes", "b = x.shape[0]\nreturn x.view(b, 8, 4, 4).transpose(1, 2)", _X, _BOTH, fails=True),
    Program("kept-on-self", "b = x.shape[0]\nreturn x.view(b, self.seq, 4, 4).transpose(1, 2)", _X, _BOTH,
            fails=True, init="self.seq = 8"),
    Program("unpacked-shape", "b, n, c = x.shape\nreturn x.reshape(b, 8, 4, c // 4)", _X, _BOTH, fails=True),
    Program("size-call", "return x.view(x.size(0), 8, 2, 8)", _X, _BOTH, fails=True),
    Program("tuple-argument", "b = x.shape[0]\nreturn x.reshape((b, 8, 16)) * 2", _X, _BOTH, fails=True),
    Program("other-order", "b = x.shape[0]\nreturn x.reshape(8, b, 16) * 2", _X, _BOTH, fails=True),
    # near misses
    Program("both-kept", "b, n, _ = x.shape\nreturn x.view(b, n, 4, 4).transpose(1, 2)", _X, _BOTH, fails=False),
    Program("minus-one-where-named", "b = x.shape[0]\nreturn x.view(b, -1, 4, 4).transpose(1, 2)", _X, _BOTH,
            fails=False),
    Program("named-size-static", "b = x.shape[0]\nreturn x.view(b, 8, 4, 4).transpose(1, 2)", _X, _BATCH_ONLY,
            fails=False),
    Program("minus-one-elsewhere", "b = x.shape[0]\nreturn x.view(b, 8, -1) * 2", _X, _BOTH, fails=True),
    Program("unpacked-kept-static", "b, _, c = x.shape\nreturn x.reshape(b, 8, c) * 2", _X, _BOTH, fails=True),
    Program("kept-on-self-static", "b = x.shape[0]\nreturn x.view(b, self.seq, 4, 4)", _X, _BATCH_ONLY,
            fails=False, init="self.seq = 8"),
    Program("minus-one-where-named-static-split", "b = x.shape[0]\nreturn x.view(b, -1, 4) * 2", _X, _BOTH,
            fails=False),
    Program("flattened", "b = x.shape[0]\nreturn x.reshape(b, -1) * 2", _X, _BOTH, fails=False),
]

#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES = {
    ("unpacked-shape", mode): "a target size computed from a static size (`c // 4`) is not evaluated to its number"
    for mode in Mode
}

BATCH = ProgramBatch("viewkept", {"spellings": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()

#: the size kept on `self` from a required argument of `__init__` the example builds the model with
_BUILT = """
from torch.export import Dim


class Model(nn.Module):
    def __init__(self, seq):
        super().__init__()
        self.seq = seq

    def forward(self, x):
        b = x.size(0)
        return x.view(b, self.seq, 4, 4)


def xport_example():
    return {{"model": Model(8), "args": (torch.randn(2, 8, 16),), "dynamic_shapes": {{"x": {shapes}}}}}
"""
BUILT = Cases("")
BUILT.case("constructor-argument", "UserError", "UserError", _BUILT.format(shapes='{0: Dim("b"), 1: Dim("n")}'))
BUILT.case("constructor-argument-static", None, None, _BUILT.format(shapes='{0: Dim("b")}'))
BUILT_BATCH = CaseBatch(BUILT, {})
test_torch_says_what_is_recorded = BUILT_BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BUILT_BATCH.an_error_exactly_where_export_fails()
