"""A one-line `@property` returning a tuple of numbers read from data (`return self.lo.item(),
self.hi.item()`), unpacked or indexed and then tested, is the data-dependent branch it is on torch
2.13; XPT104's step writes the tuple at the use (`lo, hi = self.lo.item(), self.hi.item()`, as it
does for a helper's call: `rewrites.state.helper_tuple_at_call`), so the branch rewrite binds each
number as the tensor it is read from. Where those tensors are elements of one tensor (`self.stats[0]`,
`self.stats[1]`), `torch.cond` refuses them as aliasing operands (measured on torch 2.13, both modes:
"Encountered aliasing during higher order op tracing"), so the branch rewrite passes a copy of the
second (`self.stats[1].clone()`), written at the use or in the property. Each spelling's torch
outcome is checked here in both modes, and every fix offered proven."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

_BUFFERS = """
    def __init__(self):
        super().__init__()
        self.register_buffer("low", torch.tensor(0.5))
        self.register_buffer("high", torch.tensor(3.0))
"""

case(
    "property-pair-of-two-buffers-unpacked",
    "GuardOnDataDependentSymNode",
    "UserError",
    """
class A(nn.Module):"""
    + _BUFFERS
    + """
    @property
    def bounds(self):
        return self.low.item(), self.high.item()

    def forward(self, x):
        lo, hi = self.bounds
        if hi > lo:
            return (x - lo) / (hi - lo)
        return x
""",
)

case(
    "property-pair-of-two-buffers-indexed",
    "GuardOnDataDependentSymNode",
    "UserError",
    """
class A(nn.Module):"""
    + _BUFFERS
    + """
    @property
    def bounds(self):
        return float(self.low), float(self.high)

    def forward(self, x):
        b = self.bounds
        if b[1] > 1.0:
            return x * b[1]
        return x
""",
)

case(
    "property-pair-of-one-buffers-elements-unpacked",
    "GuardOnDataDependentSymNode",
    "UserError",
    """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("stats", torch.tensor([0.0, 2.0]))

    @property
    def bounds(self):
        return self.stats[0].item(), self.stats[1].item()

    def forward(self, x):
        lo, hi = self.bounds
        if hi > lo:
            return (x - lo) / (hi - lo)
        return x
""",
)

case(
    "one-buffers-elements-read-in-forward",
    "GuardOnDataDependentSymNode",
    "UserError",
    """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("stats", torch.tensor([0.0, 2.0]))

    def forward(self, x):
        lo, hi = self.stats[0].item(), self.stats[1].item()
        if hi > lo:
            return (x - lo) / (hi - lo)
        return x
""",
)

case(
    "property-pair-of-python-numbers",
    None,
    None,
    """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.lo, self.hi = -1.0, 1.0

    @property
    def bounds(self):
        return self.lo, self.hi

    def forward(self, x):
        lo, hi = self.bounds
        if hi > lo:
            return x.clamp(lo, hi)
        return x
""",
)

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}


#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
