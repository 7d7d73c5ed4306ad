"""`int()` of a floor-divided size bounding a slice (`h = int(x.shape[1] // 2)`, then `x[:, :h]`):
non-strict export makes the size a constant at `int()` (XPT303); strict keeps `int()` the symbolic
size, and the slice then fails as `x[:, : x.shape[1] // 2]` does (XPT308: torch 2.13 cannot prove
`s // 2 <= s` over a named Dim). Without a division the slice exports in strict mode; under
`Dim.DYNAMIC` both modes export."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("from torch.export import Dim")

_MODEL = """
def half_of(n):
    return int(n // 2)


class Model(nn.Module):
    def forward(self, x):
{body}


def xport_example():
    return {{"model": Model(), "args": (torch.randn(2, 16, 32),), "dynamic_shapes": {{"x": {{1: {spec}}}}}}}


def xport_inputs():
    return [(torch.randn(2, 24, 32),)]
"""

_NAMED = 'Dim("s", min=2, max=64)'
#: (name, the body of forward, the Dim of x's dimension 1, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("int-of-half-bound-first", "h = int(x.shape[1] // 2)\nreturn x[:, :h]", _NAMED, "UserError", "UserError"),
    ("int-of-half-in-place", "return x[:, int(x.shape[1] // 2):] * 2", _NAMED, "UserError", "UserError"),
    ("int-of-a-quarter-of-a-name", "n = x.shape[1]\nh = int(n // 4)\nreturn x[:, :h] * 2", _NAMED,
     "UserError", "UserError"),
    ("int-of-half-from-a-helper", "return x[:, : half_of(x.size(1))] * 2", _NAMED, "UserError", "UserError"),
    ("int-of-the-whole-size", "h = int(x.shape[1])\nreturn x[:, :h] * 2", _NAMED, "UserError", None),
    ("int-of-half-under-dynamic", "h = int(x.shape[1] // 2)\nreturn x[:, :h] * 2", "Dim.DYNAMIC", None, None),
]
for name, body, spec, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(
        body="\n".join(" " * 8 + line for line in body.splitlines()), spec=spec))

KNOWN_MISSES = {
    ("int-of-half-from-a-helper", Mode.NON_STRICT): "XPT303 does not read `int()` inside the helper that returns it",
}
BATCH = CaseBatch(CASES, KNOWN_MISSES)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
