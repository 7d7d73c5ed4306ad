"""The example a keyword input is given (`kwargs=` of the example) is checked against its
declaration as a positional one is: a `Dim` whose range the example is outside of fails export
before tracing (XPT506), an example of 1 under a named `Dim` is specialized (a constraint
violation). Spelled keyword-only, a positional parameter filled by keyword, one positional and
one keyword input, the keywords bound to a name first; an example within the range is the near
miss. Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _range(name: str, params: str, rows: int, fails: bool, args: str = "()", **more: str) -> Program:
    """`x * 2` with a keyword example of `rows` rows under `Dim("b", min=8)`."""
    kwargs = more.pop("kwargs", f'{{"x": torch.randn({rows}, 3)}}')
    return Program(name, "return x * 2", args, '{"x": {0: Dim("b", min=8)}}', fails=fails, params=params,
                   kwargs=kwargs, violation=False, **more)


PROGRAMS: list[Program] = [
    _range("keyword-only-below-min", "*, x", 4, True),
    _range("keyword-only-within", "*, x", 9, False),
    _range("positional-by-keyword-below-min", "x", 4, True),
    _range("positional-by-keyword-within", "x", 9, False),
    _range("bound-first-below-min", "*, x", 4, True, kwargs="inputs", prelude='inputs = {"x": torch.randn(4, 3)}'),
    Program("second-by-keyword-below-min", "return x * y", "(torch.randn(3),)",
            '{"x": None, "y": {0: Dim("b", min=8)}}', fails=True, params="x, y", kwargs='{"y": torch.randn(4, 3)}',
            violation=False),
    Program("keyword-example-of-one", "return x * 2", "()", '{"x": {0: Dim("b")}}', fails=True, params="*, x",
            kwargs='{"x": torch.randn(1, 3)}'),
    Program("keyword-example-of-two", "return x * 2", "()", '{"x": {0: Dim("b")}}', fails=False, params="*, x",
            kwargs='{"x": torch.randn(2, 3)}'),
]

BATCH = ProgramBatch("keywordexamples", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
