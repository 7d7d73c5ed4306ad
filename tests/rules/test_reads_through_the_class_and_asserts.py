"""Numbers read from data tested by an `assert` with a message, through a lambda kept on `self`
in `__init__` and through a one-line `@property` (XPT104), each in several spellings; torch's outcome checked in the same test, both
modes, and every fix offered proven (export + equal to eager).

Measured on torch 2.13: non-strict export turns an `assert` on a read number with no message into
a runtime check and exports; with a message (a plain string or an f-string) it fails, and
`torch._check(<test>)` exports in both modes. Strict export fails where the message is not a string
literal or the test holds `not` (tests/rules/test_method_kept_reads_and_asserts.py). A lambda kept on `self` is what it computes:
`self.count = lambda t: int((t > 0).sum())` then `if self.count(x) > 3:` reads data (its
`torch.cond` fix had tested the Python number and failed export); so is a property
(`return self.temperature.item()` of a buffer: buffers are lifted to inputs, their data unknown)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

case("assert-on-an-item-with-a-message", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert x.abs().max().item() < 1e6, "input too large"
        return x * 2
""")

case("assert-on-a-read-bound-first-with-an-f-string", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        peak = x.max().item()
        assert peak < 100, f"peak {peak} too large"
        return x - peak
""")

case("assert-without-a-message-on-a-read-through-a-helper", None, None, """
def _peak(t):
    return t.abs().max().item()


class A(nn.Module):
    def forward(self, x):
        assert _peak(x) < 1e6
        return x + 1
""")

case("assert-without-a-message-on-reads-unpacked-from-a-tuple", None, None, """
class A(nn.Module):
    def forward(self, x):
        lo, hi = x.min().item(), x.max().item()
        assert lo <= hi
        return (x - lo) * 2
""")

case("assert-negated-on-an-int-read", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        assert not (x > 1e6).sum().item() > 0, "huge values"
        return x * 3
""")

case("assert-on-a-static-size", None, None, """
class A(nn.Module):
    def forward(self, x):
        assert x.shape[1] == 3, "three channels"
        return x * 2
""")

case("lambda-on-self-reading-an-item", 'GuardOnDataDependentSymNode', 'UserError', """
class L(nn.Module):
    def __init__(self):
        super().__init__()
        self.peak = lambda t: t.abs().max().item()

    def forward(self, x):
        if self.peak(x) > 1.0:
            return x / 2
        return x
""")

case("lambda-on-self-bool-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class L(nn.Module):
    def __init__(self):
        super().__init__()
        self.has_neg = lambda t: bool((t < 0).any())

    def forward(self, x):
        if not self.has_neg(x):
            return x.sqrt()
        return x.abs().sqrt()
""")

case("lambda-on-self-count-bound-first", 'GuardOnDataDependentSymNode', 'UserError', """
class L(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = lambda t: int((t > 0).sum())

    def forward(self, x):
        n = self.count(x)
        if n > 3:
            return x * 2
        return x
""")

case("lambda-on-self-of-a-size", None, None, """
class L(nn.Module):
    def __init__(self):
        super().__init__()
        self.width = lambda t: t.shape[-1]

    def forward(self, x):
        if self.width(x) > 2:
            return x * 2
        return x
""")

case("lambda-on-self-of-tensors", None, None, """
class L(nn.Module):
    def __init__(self):
        super().__init__()
        self.double = lambda t: t * 2

    def forward(self, x):
        return self.double(x) + 1
""")

case("assert-on-a-read-through-a-helper", 'GuardOnDataDependentSymNode', None, """
def _peak(t):
    return t.abs().max().item()


class A(nn.Module):
    def forward(self, x):
        assert _peak(x) < 1e6, "input too large"
        return x + 1
""")

case("assert-on-reads-unpacked-from-a-tuple", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        lo, hi = x.min().item(), x.max().item()
        assert lo <= hi, "empty range"
        return (x - lo) * 2
""")


case("property-float-of-a-buffer-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class P(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gain", torch.tensor(0.5))

    @property
    def g(self):
        return float(self.gain)

    def forward(self, x):
        return x * 2 if self.g > 0.1 else x
""")

case("property-bool-of-a-buffer-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class P(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("flag", torch.tensor(True))

    @property
    def enabled(self):
        return bool(self.flag)

    def forward(self, x):
        if not self.enabled:
            return x
        return x.relu()
""")

case("property-read-bound-first-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class P(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("temperature", torch.tensor(2.0))

    @property
    def temp(self):
        return self.temperature.item()

    def forward(self, x):
        t = self.temp
        if t > 1.0:
            return x / 2
        return x
""")

case("property-read-only-in-arithmetic", None, None, """
class P(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("temperature", torch.tensor(2.0))

    @property
    def temp(self):
        return self.temperature.item()

    def forward(self, x):
        return x / self.temp
""")

case("property-of-a-tensor-in-where", None, None, """
class P(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("limit", torch.tensor(1.0))

    @property
    def bound(self):
        return self.limit * 2

    def forward(self, x):
        return torch.where(x > self.bound, self.bound, x)
""")

case("property-of-a-python-constant-tested", None, None, """
class P(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.depth = depth

    @property
    def deep(self):
        return self.depth > 1

    def forward(self, x):
        if self.deep:
            return x * 2
        return x
""")


#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "assert-negated-on-an-int-read": "`not` inside `torch._check` asks for the value too (measured: fails)",
    "property-read-bound-first-then-tested": "the number is bound to a name (`t = self.temp`) read by the test",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
