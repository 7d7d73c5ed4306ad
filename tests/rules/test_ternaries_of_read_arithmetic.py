"""A conditional expression on a number read from data whose arms compute with that number
(`gain = 1.0 / peak if peak > 1.0 else 1.0`, read only as an operand of a tensor): with the number
bound as the tensor it is read from, the arms are tensors too, and `torch.where` selects between
them (rewrites.cond.where_rewrite). Before, an arm that was neither a tensor nor a literal refused
the rewrite. Each spelling's torch outcome is checked in the same test, both modes, and every fix
offered proven (export + equal to eager on inputs driving each arm): a name bound to `.item()`, the
reads written in place, a bare name arm and its negation, a one-line helper's read; refused where
the result is a size (`x[: int(k)]`); and the tensor form itself exports with no error."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

_BRANCHES = '''

def xport_inputs():
    return [(torch.rand(2, 3) * 0.5,), (torch.rand(2, 3) * 4 + 2,), (-torch.rand(2, 3) - 1,)]
'''

case("gain-from-a-peak-bound-to-an-item", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, wave):
        peak = wave.abs().amax().item()
        gain = 1.0 / peak if peak > 1.0 else 1.0
        return wave * gain
""" + _BRANCHES)

case("scale-with-the-reads-in-place", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        scale = 2.0 / x.abs().max().item() if x.abs().max().item() > 1 else 1.0
        return x * scale
""" + _BRANCHES)

case("absolute-mean-as-a-bare-name-and-its-negation", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        m = x.mean().item()
        shift = m if m > 0 else -m
        return x - shift
""" + _BRANCHES)

case("gain-from-a-one-line-helper-read", 'GuardOnDataDependentSymNode', 'UserError', """
def _peak(t):
    return t.abs().max().item()


class A(nn.Module):
    def forward(self, x):
        peak = _peak(x)
        return x * (1.0 / peak if peak > 1.0 else 1.0)
""" + _BRANCHES)

case("ternary-of-a-read-used-as-a-size", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        m = x.abs().mean().item()
        k = m * 2 if m > 0.5 else 1
        return x[:, : int(k)]
""" + _BRANCHES)

case("gain-as-a-where-of-tensors", None, None, """
class A(nn.Module):
    def forward(self, wave):
        peak = wave.abs().amax()
        return wave * torch.where(peak > 1.0, 1.0 / peak, 1.0)
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "ternary-of-a-read-used-as-a-size": "the selected number is a slice bound: torch.where would hand a tensor there",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
