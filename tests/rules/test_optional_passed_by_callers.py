"""A helper's parameter defaulting to None that every traced call of the file passes a value that is
not None is passed on a default export: what `mask is not None` guards there runs, and a data branch
behind it fails export (measured on torch 2.13, both modes), so it is an error, not a warning "only
when `mask` is passed". Where some call leaves it None, passes None, or passes an argument that may be
None (`forward`'s own `mask=None`), it stays a warning. Each spelling's torch outcome is checked in
the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

case("mask-bound-to-a-name-first", "GuardOnDataDependentSymNode", "Unsupported", """
def _pool(x, mask=None):
    if mask is not None:
        if mask.any():
            return (x * mask).sum(dim=0)
    return x.mean(dim=0)


class A(nn.Module):
    def forward(self, x):
        keep = x > 0
        return _pool(x, keep)
""")

case("guard-and-data-test-joined", "GuardOnDataDependentSymNode", "Unsupported", """
class A(nn.Module):
    def _pool(self, x, mask=None):
        if mask is not None and mask.sum() > 1:
            return x[0]
        return x.mean(dim=0)

    def forward(self, x):
        return self._pool(x, mask=torch.ones_like(x))
""")

case("negated-guard-returning-early", "GuardOnDataDependentSymNode", "Unsupported", """
def _pool(x, weights=None):
    if weights is None:
        return x.mean(dim=0)
    if not (weights > 0).all():
        return x.sum(dim=0)
    return (x * weights).sum(dim=0)


class A(nn.Module):
    def forward(self, x):
        return _pool(x, weights=x.softmax(dim=-1))
""")

case("two-callers-both-passing", "GuardOnDataDependentSymNode", "Unsupported", """
def _pool(x, mask=None):
    if mask is not None:
        if mask.any():
            return x[0]
    return x.mean(dim=0)


class A(nn.Module):
    def forward(self, x):
        return _pool(x, x > 0) + _pool(x, mask=x < 0)
""")

case("forward-input-handed-on", "GuardOnDataDependentSymNode", "Unsupported", """
class A(nn.Module):
    def _pool(self, x, mask=None):
        if mask is not None:
            if mask.any():
                return x[0]
        return x.mean(dim=0)

    def forward(self, x, mask):
        return self._pool(x, mask)


def xport_example():
    return A(), (torch.randn(2, 3), torch.tensor([[True, False, True], [False, False, True]]))


def xport_inputs():
    return [(torch.randn(2, 3), torch.zeros(2, 3, dtype=torch.bool))]
""")

# near misses: not every call passes a value that is not None (export runs the default path only)
case("never-passed-exports", None, None, """
def _pool(x, mask=None):
    if mask is not None:
        if mask.any():
            return x[0]
    return x.mean(dim=0)


class A(nn.Module):
    def forward(self, x):
        return _pool(x)
""")

case("forward-default-none-handed-on-exports", None, None, """
class A(nn.Module):
    def _pool(self, x, mask=None):
        if mask is not None:
            if mask.any():
                return x[0]
        return x.mean(dim=0)

    def forward(self, x, mask=None):
        return self._pool(x, mask)
""")

case("passed-none-explicitly-exports", None, None, """
def _pool(x, mask=None):
    if mask is not None and mask.any():
        return x[0]
    return x.mean(dim=0)


class A(nn.Module):
    def forward(self, x):
        return _pool(x, mask=None)
""")

case("passed-and-only-multiplied-exports", None, None, """
def _pool(x, mask=None):
    if mask is not None:
        x = x * mask
    return x.mean(dim=0)


class A(nn.Module):
    def forward(self, x):
        return _pool(x, mask=(x > 0).float())
""")

case("passed-a-lookup-that-answers-none-exports", None, None, """
def _pool(x, mask=None):
    if mask is not None:
        if mask.any():
            return x[0]
    return x.mean(dim=0)


class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.masks = {}

    def forward(self, x):
        return _pool(x, self.masks.get("keep")) + _pool(x, mask=getattr(self, "keep", None))
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
