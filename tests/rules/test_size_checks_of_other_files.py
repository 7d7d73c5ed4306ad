"""A function of another file that checks its tensor parameter's size (`if t.shape[0] > 8: raise
...`, `assert`, `torch._check`) is judged at each call with the caller's declared `Dim`s
(index: `FunctionSummary.checks`; XPT304), in several spellings, with torch 2.13's outcome checked
in the same test (both modes): the size tested directly, bound to a name first, unpacked from
`.shape`, under `not`, against a limit passed by position or keyword; the function imported by
name, under an alias, or called through its module; the caller's tensor bound to a name first.
Each named spelling fails export (a constraint violation); the same under `max=8` exports."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_HELPERS = """
class Block(torch.nn.Module):
    def forward(self, x):
        return x


def limit_batch(t):
    if t.shape[0] > 8:
        raise ValueError("batch too large")


def limit_bound(t):
    n = t.size(0)
    if n > 8:
        raise ValueError("batch too large")


def limit_unpacked(t):
    n, _ = t.shape
    assert n <= 8, "batch too large"


def limit_negated(t):
    if not t.shape[0] <= 8:
        raise ValueError("batch too large")


def limit_checked(t, limit):
    torch._check(t.shape[0] <= limit)
"""

#: label -> (the caller's statements before `return x + 1`, the model file's import)
_SPELLINGS = {
    "direct": ("limit_batch(x)", "from .blocks import limit_batch"),
    "bound-first": ("limit_bound(x)", "from .blocks import limit_bound"),
    "unpacked": ("limit_unpacked(x)", "from .blocks import limit_unpacked"),
    "negated": ("limit_negated(x)", "from .blocks import limit_negated"),
    "limit-by-position": ("limit_checked(x, 8)", "from .blocks import limit_checked"),
    "limit-by-keyword": ("limit_checked(x, limit=8)", "from .blocks import limit_checked"),
    "aliased": ("check(x)", "from .blocks import limit_batch as check"),
    "through-module": ("blocks.limit_bound(x)", "from . import blocks"),
    "caller-bound-first": ("h = x * 2\nlimit_batch(h)", "from .blocks import limit_batch"),
}

PROGRAMS: list[Program] = []
for label, (calls, imported) in _SPELLINGS.items():
    body = f"{calls}\nreturn x + 1"
    PROGRAMS += [
        Program(f"{label}-named", body, "(torch.randn(3, 4),)", '{"x": {0: Dim("batch")}}', fails=True,
                block=_HELPERS, top=imported),
        Program(f"{label}-bounded", body, "(torch.randn(3, 4),)", '{"x": {0: Dim("batch", max=8)}}', fails=False,
                block=_HELPERS, top=imported),
    ]
PROGRAMS += [
    # the tested size is not the declared one: nothing to report
    Program("width-declared", "limit_batch(x)\nreturn x + 1", "(torch.randn(3, 4),)", '{"x": {1: Dim("width")}}',
            fails=False, block=_HELPERS, top="from .blocks import limit_batch"),
]

BATCH = ProgramBatch("checkselsewhere", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
