"""Parts of a `cat` whose sizes are declared with one named `Dim` (`{"x": {1: d}, "y": {1: d}}`)
are one symbol to torch: the joined size is `2 * d`, tied to what it meets (XPT305) where that is
another named `Dim`, and exporting where it is declared `2 * d`. Spelled along dim 1 and dim 0,
three parts, `torch.concat`, bound to a name first; parts under two different `Dim`s against a
third export (measured), and get no error. Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ROWS = "(torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 6))"
_COLUMNS = "(torch.randn(3, 2), torch.randn(3, 2), torch.randn(6, 2))"
_D = 'd = Dim("d")'


def _pair(name: str, body: str, args: str, axis: int, times: int = 2) -> list[Program]:
    """`body` with the parts under one `Dim` `d` and the third input under `Dim("c")` (fails) or `times * d`."""
    parts = f'"x": {{{axis}: d}}, "y": {{{axis}: d}}'
    return [Program(f"{name}-apart", body, args, f'{{{parts}, "z": {{{axis}: Dim("c")}}}}', fails=True,
                    params="x, y, z", prelude=_D),
            Program(f"{name}-derived", body, args, f'{{{parts}, "z": {{{axis}: {times} * d}}}}', fails=False,
                    params="x, y, z", prelude=_D)]


PROGRAMS: list[Program] = [
    *_pair("cat-columns", "return torch.cat([x, y], dim=1) * z", _ROWS, 1),
    *_pair("cat-rows", "return torch.cat((x, y)) - z", _COLUMNS, 0),
    *_pair("concat-bound-first", "joined = torch.concat([x, y], dim=-1)\nreturn joined + z", _ROWS, 1),
    *_pair("cat-three", "return torch.cat([x, y, x], dim=1) + z", "(torch.randn(2, 3), torch.randn(2, 3), "
           "torch.randn(2, 9))", 1, times=3),
    # measured: exports (torch keeps `a + b == c` as a relation between three symbols), and no claim is made
    Program("cat-parts-apart-exports", "return torch.cat([x, y], dim=1) * z", _ROWS,
            '{"x": {1: Dim("a")}, "y": {1: Dim("b")}, "z": {1: Dim("c")}}', fails=False, params="x, y, z"),
]

BATCH = ProgramBatch("catonedim", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
