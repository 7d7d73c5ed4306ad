"""A number read from data kept on `self` by a method `forward` calls (`self._update(x)` setting
`self.spread = float(x.std())`), then tested in `forward`; and `assert`s on read numbers, whose
outcome their message and the shape of their test decide. Each spelling's torch outcome is
checked in the same test, both modes, and every fix offered proven (export + equal to eager).

Measured on torch 2.13 (a model loaded from a file; an `exec`'d one has no source for export to
read the assert from and fails non-strict where a file's exports):
- an `assert` of one comparison on a read number: non-strict export keeps it as a runtime check
  with no message and fails with one; strict export keeps it with no message or a string literal
  (an f-string with no field too) and fails on any other message: an f-string with a field (even
  of a constant), `%` or `.format` formatting, a name bound to a string.
- `not`, `and`, `or` or a chained comparison (`0 <= p < 1e6`) in the test fails both modes, with
  or without a message.
- a tensor test (XPT103) in strict export follows the same message rule: `f"bad"` exports."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

# -- kept on self by a method, read in forward ------------------------------------------------

case("kept-by-a-method-item-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _observe(self, t):
        self.peak = t.abs().max().item()

    def forward(self, x):
        self._observe(x)
        if not self.peak > 2.0:
            return x * 2
        return x
""")

case("kept-by-a-method-two-attributes", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _observe(self, t):
        self.lo = t.min().item()
        self.hi = t.max().item()

    def forward(self, x):
        self._observe(x)
        if self.hi - self.lo > 1.0:
            return x / (self.hi - self.lo)
        return x
""")

case("kept-by-a-method-bound-to-a-name-first", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _observe(self, t):
        self.count = int((t > 0).sum())

    def forward(self, x):
        self._observe(x)
        n = self.count
        return x * 2 if n > 3 else x
""")

case("kept-by-a-method-a-static-size", None, None, """
class A(nn.Module):
    def _observe(self, t):
        self.rows = t.shape[0]

    def forward(self, x):
        self._observe(x)
        if self.rows > 1:
            return x * 2
        return x
""")

case("kept-by-a-method-only-in-arithmetic", None, None, """
class A(nn.Module):
    def _observe(self, t):
        self.peak = t.abs().max().item()

    def forward(self, x):
        self._observe(x)
        return x / (self.peak + 1.0)
""")

# -- a lambda kept on self by __init__ that reads __init__'s own names (or a global forward shadows) --
# written in `forward` it would read another variable (a NameError, or forward's local: a different
# result, measured); it is not written there, yet what it computes is a number read from data

case("lambda-on-self-reads-a-loop-target-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        for limit in (3,):
            pass
        self.many = lambda t: int((t > 0).sum()) > limit

    def forward(self, x):
        if self.many(x):
            return x * 2
        return x
""")

case("lambda-on-self-reads-a-global-forward-shadows", 'GuardOnDataDependentSymNode', 'UserError', """
LIMIT = 3


class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.excess = lambda t: int((t > 0).sum()) - LIMIT

    def forward(self, x):
        LIMIT = 100
        if self.excess(x) > 0:
            return x * 2 + LIMIT
        return x
""")

case("lambda-on-self-reads-a-with-target-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
import contextlib


class A(nn.Module):
    def __init__(self):
        super().__init__()
        with contextlib.nullcontext(3) as limit:
            pass
        self.many = lambda t: (t > 0).sum().item() > limit

    def forward(self, x):
        if self.many(x):
            return x * 2
        return x
""")

case("lambda-on-self-reads-an-import-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        import operator
        self.many = lambda t: operator.gt(int((t > 0).sum()), 3)

    def forward(self, x):
        if self.many(x):
            return x * 2
        return x
""")

# -- a lambda kept on self by __init__ that calls a function __init__ defines ---------------------
# not written in `forward` (the function is `__init__`'s name), yet what it computes is what that
# function returns: a number read from data where the function reads one, a tensor otherwise

case("lambda-on-self-calls-a-nested-def-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self):
        super().__init__()

        def positives(t):
            return int((t > 0).sum())

        self.many = lambda t: positives(t) > 3

    def forward(self, x):
        if self.many(x):
            return x * 2
        return x
""")

case("lambda-on-self-calls-a-lambda-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        positives = lambda t: (t > 0).sum().item()
        self.count = lambda t: positives(t)

    def forward(self, x):
        if self.count(x) > 3:
            return x * 2
        return x
""")

case("lambda-on-self-calls-a-nested-def-bound-to-a-name-first-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self):
        super().__init__()

        def positives(t):
            return (t > 0).sum().item()

        def count(t):
            return positives(t)

        self.count = lambda t: count(t)

    def forward(self, x):
        n = self.count(x)
        if not n > 3:
            return x * 2
        return x
""")

case("lambda-on-self-calls-a-nested-def-returning-a-tensor", None, None, """
class A(nn.Module):
    def __init__(self):
        super().__init__()

        def positives(t):
            return (t > 0).sum()

        self.count = lambda t: positives(t) * 2

    def forward(self, x):
        return x * self.count(x)
""")

case("lambda-on-self-calls-a-nested-def-returning-a-tensor-tested", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def __init__(self):
        super().__init__()

        def positives(t):
            return (t > 0).sum()

        self.count = lambda t: positives(t)

    def forward(self, x):
        if self.count(x) > 3:
            return x * 2
        return x
""")

case("partial-on-self-of-a-nested-def-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
import functools


class A(nn.Module):
    def __init__(self):
        super().__init__()

        def positives(t, above):
            return int((t > above).sum())

        self.count = functools.partial(positives, above=0.0)

    def forward(self, x):
        n = self.count(x)
        if n > 3:
            return x * 2
        return x
""")

case("partial-imported-on-self-of-a-lambda-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
from functools import partial


class A(nn.Module):
    def __init__(self):
        super().__init__()
        positives = lambda t: (t > 0).sum().item()
        self.count = partial(positives)

    def forward(self, x):
        if self.count(x) > 3:
            return x * 2
        return x
""")

case("partial-on-self-of-a-nested-def-returning-a-tensor", None, None, """
import functools


class A(nn.Module):
    def __init__(self):
        super().__init__()

        def positives(t):
            return (t > 0).sum()

        self.count = functools.partial(positives)

    def forward(self, x):
        return x * self.count(x)
""")

# -- asserts on read numbers ---------------------------------------------------------------

case("assert-percent-formatted-message", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        assert peak < 1000, "activation blew up: %s" % peak
        return x * 2
""")

case("assert-format-message-of-a-constant", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        assert x.abs().max().item() < 1000, "limit {}".format(1000)
        return x * 2
""")

case("assert-message-bound-to-a-name", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        message = "activation blew up"
        peak = x.abs().max().item()
        assert peak < 1000, message
        return x * 2
""")

case("assert-f-string-without-a-field", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        assert peak < 1000, f"activation blew up"
        return x * 2
""")

case("assert-chained-comparison-without-a-message", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        assert 0 <= peak < 1000
        return x * 2
""")

case("assert-and-of-two-reads-without-a-message", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        lo, hi = x.min().item(), x.max().item()
        assert lo > -1000 and hi < 1000
        return x * 2
""")

case("assert-negated-float-read-without-a-message", 'AssertionError', 'UserError', """
class A(nn.Module):
    def forward(self, x):
        assert not x.abs().max().item() > 1e6
        return x * 2
""")

case("assert-static-size-with-an-f-string", None, None, """
class A(nn.Module):
    def forward(self, x):
        assert x.shape[0] > 0, f"empty batch: {x.shape}"
        return x * 2
""")

case("assert-on-a-tensor-with-an-f-string-without-a-field", 'GuardOnDataDependentSymNode', None, """
class A(nn.Module):
    def forward(self, x):
        assert (x < 1000).all(), f"activation blew up"
        return x * 2
""")

case("assert-on-a-tensor-with-a-constant-field", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def forward(self, x):
        assert (x < 1000).all(), f"limit {1000}"
        return x * 2
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_INIT_NAMES = "the lambda reads a name of `__init__`'s scope (or one `forward` binds): written in `forward` it would read another"
_PARTIAL = "a `functools.partial` of a function `__init__` defines: the function is not written in `forward`"
_ASKS = "`not`, `and` and a chained comparison ask for the value inside `torch._check` too"

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "kept-by-a-method-two-attributes": "the method keeps two attributes: the step writes a one-assignment method only",
    "lambda-on-self-reads-a-loop-target-of-init": _INIT_NAMES,
    "lambda-on-self-reads-a-global-forward-shadows": _INIT_NAMES,
    "lambda-on-self-reads-a-with-target-of-init": _INIT_NAMES,
    "lambda-on-self-reads-an-import-of-init": _INIT_NAMES,
    "lambda-on-self-calls-a-nested-def-of-init": _INIT_NAMES,
    "lambda-on-self-calls-a-lambda-of-init": _INIT_NAMES,
    "lambda-on-self-calls-a-nested-def-bound-to-a-name-first-negated": _INIT_NAMES,
    "partial-on-self-of-a-nested-def-of-init": _PARTIAL,
    "partial-imported-on-self-of-a-lambda-of-init": _PARTIAL,
    "assert-chained-comparison-without-a-message": _ASKS,
    "assert-and-of-two-reads-without-a-message": _ASKS,
    "assert-negated-float-read-without-a-message": _ASKS,
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
