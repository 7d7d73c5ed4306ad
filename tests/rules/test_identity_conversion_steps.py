"""A number read from data converted again under its own name (`temp = x.std().item()`, then
`temp = float(temp)`): the name is bound twice, which kept the branch, loop and size rewrites from
binding the tensor in its place. The step drops the conversion, which changes nothing for the
tensor it reads (rewrites.state.identity_conversion_dropped), and the rewrites then fix the use.
Each spelling's torch outcome is checked in the same test, both modes, and every fix offered proven
(export + equal to eager on inputs driving each branch): `.item()` then `float()`, with a statement
between, a negated test, a ternary, `float()` twice, `int()` twice, through a one-line helper of the
file and a staticmethod; refused where the conversion changes the number (`int()` of an `.item()`),
where the rebinding sits in a branch; and a static size converted twice exports with no error."""

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
    return [(torch.randn(2, 3) * 0.1,), (torch.randn(2, 3) * 10,), (-torch.ones(2, 3),)]
'''

case("item-then-float-with-a-statement-between", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        temp = x.std().item()
        scale = 2.0
        temp = float(temp)
        if temp > 1.0:
            return x / temp * scale
        return x * scale
""" + _BRANCHES)

case("item-then-float-negated-test", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        peak = float(peak)
        if not peak > 1.0:
            return x
        return x / peak
""" + _BRANCHES)

case("item-then-float-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        mean = x.mean().item()
        mean = float(mean)
        return x - mean if mean > 0 else x + mean
""" + _BRANCHES)

case("float-twice", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        level = float(x.abs().mean())
        level = float(level)
        if level > 1.0:
            return x / level
        return x
""" + _BRANCHES)

case("int-twice-of-a-count", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        hits = int((x > 0).sum())
        hits = int(hits)
        if hits == 0:
            return x - 1
        return x + 1
""" + _BRANCHES)

case("float-of-a-one-line-helper-read", 'GuardOnDataDependentSymNode', 'UserError', """
def _peak(t):
    return t.abs().max().item()


class A(nn.Module):
    def forward(self, x):
        peak = _peak(x)
        peak = float(peak)
        if peak > 1.0:
            return x / peak
        return x
""" + _BRANCHES)

case("float-of-a-staticmethod-read", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    @staticmethod
    def _spread(t):
        return t.std().item()

    def forward(self, x):
        spread = self._spread(x)
        spread = float(spread)
        if spread > 1.0:
            return x / spread
        return x
""" + _BRANCHES)

case("int-of-an-item-truncates", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        level = x.abs().mean().item()
        level = int(level)
        if level > 0:
            return x / 2
        return x
""" + _BRANCHES)

case("float-rebinding-inside-a-branch", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        temp = x.std().item()
        if x.shape[0] > 1:
            temp = float(temp)
        if temp > 1.0:
            return x / temp
        return x
""" + _BRANCHES)

case("static-size-converted-twice", None, None, """
class A(nn.Module):
    def forward(self, x):
        rows = float(x.shape[0])
        rows = float(rows)
        if rows > 1:
            return x / rows
        return x
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "int-of-an-item-truncates": "`int()` of an `.item()` truncates the number: not the same value",
    "float-rebinding-inside-a-branch": "the conversion is bound in a branch: the name's value depends on it",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
