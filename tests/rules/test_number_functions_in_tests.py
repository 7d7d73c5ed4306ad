"""A branch on Python's number functions of a read (`math.log(x.abs().mean().item() + 1) > 0.5`):
the cond rewrite writes `torch.log` of the 0-d tensor a full reduction gives, and offers no fix where
the function has no such form (`round()`, or a read whose rank the code does not show); a local
named like a tensor method (`norm = float(x.norm())`, `mean, std = ...` beside `t.std()`) is the
local, never the method's name; `float()` / `int()` / `bool()` of a name bound to `.item()` is
converted where the rewrite binds the name to the tensor. Each spelling's torch outcome is checked in the same test, both
modes, and every fix offered proven (export + equal to eager): bound to a name first, through a
helper, negated, in a ternary, kept on `self` by a method. XPT203's `torch.sqrt` fix of a math
function whose result only divides a tensor now sees through arithmetic with a number written out
(`x / (std + 1e-5)`)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import math", exporting_last_module)
case = CASES.case

case("log-of-a-read-in-the-test", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if math.log(x.abs().mean().item() + 1) > 0.5:
            return x * 0.5
        return x
""")

case("log-of-a-read-bound-to-a-name-first", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        level = math.log(x.abs().mean().item() + 1)
        if level > 0.5:
            return x * 0.5
        return x
""")

case("log-of-a-read-through-a-helper", 'GuardOnDataDependentSymNode', 'UserError', """
def _log_level(t):
    return math.log(t.abs().mean().item() + 1)


class A(nn.Module):
    def forward(self, x):
        if _log_level(x) > 0.5:
            return x * 0.5
        return x
""")

case("sqrt-of-a-variance-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if not math.sqrt(x.var().item()) > 1.0:
            return x + 1
        return x / 2
""")

case("exp-of-a-mean-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        return x * 2 if math.exp(x.mean().item()) > 1.0 else x
""")

case("round-of-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if round(x.mean().item(), 2) == 0:
            return x + 1
        return x
""")

case("log-of-an-element-read", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        if math.log(abs(x[0, 0].item()) + 1) > 0.5:
            return x * 0.5
        return x
""")

case("local-named-like-the-method-it-reads", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        norm = float(x.norm())
        if norm > 1.0:
            return x / norm
        return x
""")

case("norm-kept-on-self-by-a-method", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _observe(self, t):
        self.norm = float(t.norm())

    def forward(self, x):
        self._observe(x)
        if self.norm > 1.0:
            return x / self.norm
        return x
""")

case("pair-named-like-the-methods-both-used", 'GuardOnDataDependentSymNode', 'UserError', """
def _moments(t):
    return t.mean().item(), t.std().item()


class A(nn.Module):
    def forward(self, x):
        mean, std = _moments(x)
        if std > 1.0:
            return (x - mean) / std
        return x - mean
""")

case("sqrt-of-a-variance-bound-then-plus-an-epsilon-dividing", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        std = math.sqrt(x.var().item())
        return (x - x.mean()) / (std + 1e-5)
""")

case("sqrt-of-a-variance-in-place-times-two-plus-an-epsilon", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        return x / (2 * math.sqrt(x.var().item()) + 1e-5)
""")

case("sqrt-plus-an-epsilon-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        std = math.sqrt(x.var().item()) + 1e-5
        if std > 1.0:
            return x / std
        return x
""")

case("float-of-a-name-bound-to-an-item", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        if float(peak) > 1.0:
            return x / peak
        return x
""")

case("int-of-a-name-bound-to-an-item-compared", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        count = (x > 0).sum().item()
        if int(count) > 2:
            return x * 2
        return x
""")

case("bool-of-a-name-bound-to-an-item-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        hit = (x > 1).any().item()
        if not bool(hit):
            return x + 1
        return x
""")

case("float-of-a-name-read-through-a-helper-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
def _peak(t):
    return t.abs().max().item()


class A(nn.Module):
    def forward(self, x):
        peak = _peak(x)
        return x / peak if float(peak) > 1.0 else x
""")

case("torch-log-of-a-mean-tested", None, None, """
class A(nn.Module):
    def forward(self, x):
        return torch.where(torch.log(x.abs().mean() + 1) > 0.5, x * 0.5, x)
""")

case("log-of-a-static-size", None, None, """
class A(nn.Module):
    def forward(self, x):
        if math.log(x.shape[-1]) > 1.0:
            return x * 0.5
        return x
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "round-of-a-read": "`round()` of a tensor raises TypeError under export; `torch.round(decimals=)` rounds the float32"
    " value, not the double Python rounds",
    "sqrt-plus-an-epsilon-then-tested": "the name is bound to arithmetic on `math.sqrt` of a read, which the cond rewrite"
    " does not bind to a tensor (the function alone it does)",
    "log-of-an-element-read": "the read's rank is not shown (an element, behind `abs()`): no 0-d tensor form is written",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
