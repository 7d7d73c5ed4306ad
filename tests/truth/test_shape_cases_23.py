"""Symbolic shapes, a twenty-third batch: pooling along a named `Dim`. Each outcome measured on
torch 2.13.0 in both modes on a (2, 3, 16, 16) input (a (2, 3, 16) one for 1-d pools), the height
declared as named, and torch must still agree:

- a pool whose output is 1 long at the range's low end (`nn.MaxPool2d(3, 2)` at `min=4`,
  `F.max_pool2d(x, 2)`, `F.avg_pool1d(x, 2)`, `nn.AvgPool2d(2)` at `min=2`): non-strict export
  guards the output `!= 1` and fails, whatever follows; strict export fails once an op computes
  on the output (`* 2`, `+ 1`, `torch.relu`, `.flatten(1)`), as after a convolution, and exports
  the output returned, permuted, summed or convolved.

BEFORE (the engine at 191cfda, the batch written after measuring torch): non-strict 10 of 10
failures flagged, strict 0 of 5, no false error. AFTER (XPT307 reports a pool's 1-long output in
strict mode where an op computes on it): strict 5/5, no false error on the 5 programs that export
strict.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")
_FROM_4 = '{"x": {2: Dim("h", min=4, max=64)}}'
_FROM_2 = '{"x": {2: Dim("h", min=2, max=64)}}'
_VIOLATION = "UserError"


def case(name: str, non_strict: bool, strict: bool, lines: str, shapes: str, init: str = "", rank: int = 4) -> None:
    """`lines` of `forward` (after `init` in `__init__`); each flag: that mode fails with a
    constraint violation."""
    body = "\n".join("        " + line for line in lines.strip().splitlines())
    built = "".join("\n        " + line for line in init.strip().splitlines())
    ctor = f"    def __init__(self):\n        super().__init__(){built}\n\n" if init else ""
    sizes = "2, 3, 16, 16" if rank == 4 else "2, 3, 16"
    other = "2, 3, 20, 16" if rank == 4 else "2, 3, 20"
    CASES.case(name, _VIOLATION if non_strict else None, _VIOLATION if strict else None, f"""
from torch.export import Dim


class M(nn.Module):
{ctor}    def forward(self, x):
{body}


def xport_example():
    return {{"model": M(), "args": (torch.randn({sizes}),), "dynamic_shapes": {shapes}}}


def xport_inputs():
    return [(torch.randn({other}),)]
""")


# -- a pool 1 long at the low end: non-strict always, strict where an op computes on it ---------
_POOL = "self.pool = nn.MaxPool2d(3, 2)"
case("max-pool-returned", True, False, "return self.pool(x)", _FROM_4, _POOL)
case("max-pool-times", True, True, "h = self.pool(x)\nreturn h * 2", _FROM_4, _POOL)
case("max-pool-relu", True, True, "h = self.pool(x)\nreturn torch.relu(h)", _FROM_4, _POOL)
case("max-pool-flatten", True, True, "h = self.pool(x)\nreturn h.flatten(1)", _FROM_4, _POOL)
case("max-pool-permuted", True, False, "h = self.pool(x)\nreturn h.permute(0, 2, 3, 1)", _FROM_4, _POOL)
case("max-pool-convolved", True, False, "h = self.pool(x)\nreturn self.conv(h)", _FROM_4,
     _POOL + "\nself.conv = nn.Conv2d(3, 4, 1)")
case("functional-max-pool-times", True, True, "h = F.max_pool2d(x, 2)\nreturn h * 2", _FROM_2)
case("functional-max-pool-returned", True, False, "return F.max_pool2d(x, 2)", _FROM_2)
case("avg-pool-1d-plus", True, True, "h = F.avg_pool1d(x, 2)\nreturn h + 1", _FROM_2, rank=3)
case("avg-pool-summed", True, False, "h = self.pool(x)\nreturn h.sum()", _FROM_2, "self.pool = nn.AvgPool2d(2)")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
