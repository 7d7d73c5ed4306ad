"""What a lambda kept on `self` by `__init__` returns, where it reads one of `__init__`'s names (so
it is never written into `forward`, 340b119): a number read from data where what it returns is one
(a conversion, a comparison or arithmetic of one, a function of `__init__` or of the file returning
one: 499d8e2), a tensor where a conversion only feeds a tensor op (`lambda t: t * float(alpha)`,
`t.view(int(n), -1)`, `torch.full_like(t, float(v))`). A size test on that tensor's result exports,
so it is no error; the same lambda's tensor tested is a tensor branch (XPT101), whose fix writes
`torch.cond`. Each spelling's torch outcome is checked in the same test, both modes, and every fix
offered proven (export + equal to eager)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import functools\nimport operator", exporting_last_module)
case = CASES.case

# -- a tensor returned, a conversion inside: a size test on it exports ---------------------------

case("tensor-times-a-float-of-an-init-name-size-tested", None, None, """
class A(nn.Module):
    def __init__(self, alpha=2):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.scale = lambda t: t * float(alpha)

    def forward(self, x):
        h = self.scale(self.lin(x))
        if h.shape[0] > 1:
            h = h + 1
        return h
""")

case("tensor-times-an-int-size-bound-to-a-name-first-negated", None, None, """
class A(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.scale = lambda t: t * int(k)

    def forward(self, x):
        rows = self.scale(x).shape[0]
        if not rows > 1:
            return x
        return x * 2
""")

case("tensor-viewed-with-an-int-size-unpacked", None, None, """
class A(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.flat = lambda t: t.view(int(n), -1)

    def forward(self, x):
        rows, cols = self.flat(x).shape
        if rows * cols > 4:
            return x * 2
        return x
""")

case("tensor-full-like-a-float-size-tested", None, None, """
class A(nn.Module):
    def __init__(self, value=0.5):
        super().__init__()
        self.fill = lambda t: torch.full_like(t, float(value))

    def forward(self, x):
        h = self.fill(x)
        if h.shape[0] > 1:
            return x + h
        return x
""")

case("tensor-of-a-nested-def-times-a-float-size-tested", None, None, """
class A(nn.Module):
    def __init__(self, a=2):
        super().__init__()

        def scale(t):
            return t * float(a)

        self.scale = lambda t: scale(t)

    def forward(self, x):
        h = self.scale(x)
        if h.shape[0] > 1:
            return h + 1
        return h
""")

case("tensor-of-a-partial-of-a-nested-def-size-tested", None, None, """
class A(nn.Module):
    def __init__(self, alpha=2):
        super().__init__()

        def scale(t, a):
            return t * float(a)

        self.scale = functools.partial(scale, a=alpha)

    def forward(self, x):
        h = self.scale(x)
        if h.shape[0] > 1:
            return h + 1
        return h
""")

case("tensor-of-a-file-function-defined-after-the-class-size-tested", None, None, """
class A(nn.Module):
    def __init__(self, alpha=2):
        super().__init__()
        self.scale = lambda t: _scale(t, alpha)

    def forward(self, x):
        h = self.scale(x)
        if h.shape[0] > 1:
            return h + 1
        return h


def _scale(t, a):
    return t * float(a)


def xport_example():
    return A(), (torch.randn(2, 3),)
""")

case("tensor-compared-with-a-float-tested", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def __init__(self, alpha=2):
        super().__init__()
        self.over = lambda t: t.sum() > float(alpha)

    def forward(self, x):
        if self.over(x):
            return x * 2
        return x
""")

# -- a number returned: a test on it fails ------------------------------------------------------

case("number-times-an-init-name-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self, alpha=2):
        super().__init__()
        self.peak = lambda t: float(t.abs().max()) * alpha

    def forward(self, x):
        if self.peak(x) > 1.0:
            return x * 2
        return x
""")

case("number-of-tolist-indexed-bound-to-a-name-first", 'GuardOnDataDependentSymNode', 'Unsupported', """
class A(nn.Module):
    def __init__(self, offset=1):
        super().__init__()
        self.first = lambda t: t.tolist()[0][0] + offset

    def forward(self, x):
        v = self.first(x)
        if v > 0:
            return x * 2
        return x
""")

case("number-compared-by-operator-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self, limit=3):
        super().__init__()
        self.many = lambda t: operator.gt(int((t > 0).sum()), limit)

    def forward(self, x):
        if not self.many(x):
            return x * 2
        return x
""")

case("number-of-a-partial-of-a-nested-def-in-arithmetic-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self, offset=1):
        super().__init__()

        def count(t, extra):
            return int((t > 0).sum()) + extra

        self.count = functools.partial(count, extra=offset)

    def forward(self, x):
        n = self.count(x)
        if n > 3:
            return x * 2
        return x
""")

case("number-of-a-nested-def-times-a-tensor-size", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self, a=2):
        super().__init__()

        def share(t):
            return float(t.sum()) / t.shape[0]

        self.share = lambda t: share(t) * a

    def forward(self, x):
        if self.share(x) > 0.5:
            return x * 2
        return x
""")

case("number-of-a-file-function-compared-with-an-init-name", 'GuardOnDataDependentSymNode', 'UserError', """
def _count(t):
    return int((t > 0).sum())


class A(nn.Module):
    def __init__(self, limit=3):
        super().__init__()
        self.many = lambda t: _count(t) > limit

    def forward(self, x):
        if self.many(x):
            return x * 2
        return x
""")

case("number-of-a-file-function-times-an-init-name", 'GuardOnDataDependentSymNode', 'UserError', """
def _peak(t):
    return t.abs().max().item()


class A(nn.Module):
    def __init__(self, alpha=2):
        super().__init__()
        self.peak = lambda t: _peak(t) * alpha

    def forward(self, x):
        if self.peak(x) > 1.0:
            return x * 2
        return x
""")

case("number-or-an-init-name-by-a-condition-of-init", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def __init__(self, counting=True, limit=3):
        super().__init__()
        self.count = lambda t: int((t > 0).sum()) if counting else limit

    def forward(self, x):
        if self.count(x) > 3:
            return x * 2
        return x
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_INIT_NAMES = "the lambda reads a name of `__init__`'s scope: written in `forward` it would read another"
_PARTIAL = "a `functools.partial` of a function `__init__` defines: the function is not written in `forward`"

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "number-times-an-init-name-tested": _INIT_NAMES,
    "number-of-tolist-indexed-bound-to-a-name-first": _INIT_NAMES,
    "number-compared-by-operator-negated": _INIT_NAMES,
    "number-of-a-partial-of-a-nested-def-in-arithmetic-tested": _PARTIAL,
    "number-of-a-nested-def-times-a-tensor-size": _INIT_NAMES,
    "number-of-a-file-function-compared-with-an-init-name": _INIT_NAMES,
    "number-of-a-file-function-times-an-init-name": _INIT_NAMES,
    "number-or-an-init-name-by-a-condition-of-init": _INIT_NAMES,
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
