"""A `@classmethod` whose body never reads its class parameter computes from its arguments alone,
as a staticmethod does: called through `self`, its `return` is written at the call (dataflow
`_static_form`), so a pair of reads it returns, unpacked and tested, is the data-dependent branch it
is on torch 2.13, and the branch rewrite binds the numbers as the tensors they are read from. Each
spelling's torch outcome is checked in the same test, both modes, and every fix offered proven: a
pair unpacked, one read tested inline, `float()` bound to a name first; near misses that export: a
pair of sizes, and a classmethod reading its class's constant (not written at the call)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

_SCALES = '''

def xport_inputs():
    return [(torch.randn(2, 3) * 0.01,), (torch.randn(2, 3) * 10,)]
'''

case("classmethod-pair-of-reads-unpacked", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    @classmethod
    def extent(cls, t):
        return t.min().item(), t.max().item()

    def forward(self, x):
        lo, hi = self.extent(x)
        if hi - lo > 1.0:
            return (x - lo) / (hi - lo)
        return x - lo
""" + _SCALES)

case("classmethod-read-tested-inline", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    @classmethod
    def peak(cls, t):
        return t.abs().max().item()

    def forward(self, x):
        if self.peak(x) > 1.0:
            return x / 2
        return x
""" + _SCALES)

case("classmethod-float-bound-then-tested", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    @classmethod
    def energy(cls, t):
        return float(t.pow(2).mean())

    def forward(self, x):
        e = self.energy(x)
        if e > 1.0:
            return x / 2
        return x
""" + _SCALES)

case("classmethod-pair-of-sizes-unpacked", None, None, """
class A(nn.Module):
    @classmethod
    def dims(cls, t):
        return t.shape[0], t.shape[1]

    def forward(self, x):
        h, w = self.dims(x)
        if h < w:
            return x.t()
        return x
""")

case("classmethod-reading-its-class-constant", None, None, """
class A(nn.Module):
    WIDTH = 2

    @classmethod
    def width(cls):
        return cls.WIDTH

    def forward(self, x):
        if x.shape[1] > self.width():
            return x[:, : self.width()]
        return x
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
