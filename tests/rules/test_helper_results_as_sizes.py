"""`int()` of a tensor in a helper whose result every traced call uses only as a size (a factory's
size, a slice end, `arange`'s end, through integer arithmetic): non-strict export has no concrete
value for it (GuardOnDataDependentSymNode), strict export takes it (measured on torch 2.13). XPT203
offers `.item()` in the helper, as it does where the conversion is written at its use, only where
every traced call of the helper in the file is so used (`FileReach.calls_of`); a call used in a
branch, or a helper another file's code reaches, keeps it unfixed. Each spelling's torch outcome is
checked here in both modes, each fix proven non-strict, and the fixed programs still export strict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from tests.truth.harness import example, fix_source, load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

_SIGNS = """

def xport_inputs():
    return [(torch.ones(2, 3),), (-torch.ones(2, 3),)]
"""

case(
    "module-helper-as-a-zeros-size",
    "GuardOnDataDependentSymNode",
    None,
    """
def _positives(t):
    return int((t > 0).sum())


class A(nn.Module):
    def forward(self, x):
        return torch.zeros(_positives(x), 2)
"""
    + _SIGNS,
)

case(
    "helper-after-the-class-bound-then-a-slice-end",
    "GuardOnDataDependentSymNode",
    None,
    """
class A(nn.Module):
    def forward(self, x):
        n = _count(x)
        return x.flatten()[:n] * 2


def _count(t):
    return int((t > 0).sum())
"""
    + _SIGNS,
)

case(
    "staticmethod-through-self-as-an-arange-end",
    "GuardOnDataDependentSymNode",
    None,
    """
class A(nn.Module):
    @staticmethod
    def _count(t):
        count = int((t > 0).sum())
        return count

    def forward(self, x):
        return torch.arange(self._count(x)) + x.sum()
"""
    + _SIGNS,
)

case(
    "helper-of-a-helper-plus-one-as-a-new-zeros-size",
    "GuardOnDataDependentSymNode",
    None,
    """
def _count(t):
    return int((t > 0).sum())


def _slots(t):
    return _count(t)


class A(nn.Module):
    def forward(self, x):
        return x.new_zeros(_slots(x) + 1)
"""
    + _SIGNS,
)

case(
    "helper-as-a-size-and-a-range-end",
    "GuardOnDataDependentSymNode",
    "UserError",
    """
def _count(t):
    return int((t > 0).sum())


class A(nn.Module):
    def forward(self, x):
        y = torch.zeros(_count(x), 2)
        for _ in range(_count(x)):
            y = y + 1
        return y
"""
    + _SIGNS,
)

case(
    "helper-result-a-range-end",
    "GuardOnDataDependentSymNode",
    "UserError",
    """
class A(nn.Module):
    def forward(self, x):
        n = _count(x)
        for _ in range(n):
            x = x + 1
        return x


def _count(t):
    return int((t > 0).sum())
"""
    + _SIGNS,
)

case(
    "helper-of-a-static-size",
    None,
    None,
    """
def _rows(t):
    return int(t.shape[0])


class A(nn.Module):
    def forward(self, x):
        return torch.zeros(_rows(x), 2)
""",
)

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: a call of the helper is a `range()` end, where `.item()` would fail as well: XPT203 offers no fix
#: in the helper (the loop's own rewrite, XPT201's `torch.while_loop`, fixes these programs)
NOT_ONLY_SIZES = ("helper-as-a-size-and-a-range-end", "helper-result-a-range-end")

BATCH = CaseBatch(CASES, KNOWN_MISSES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name) for c in CASES if c.non_strict and c.name not in NOT_ONLY_SIZES]
)
def test_the_fixed_program_still_exports_strict(case, tmp_path: Path) -> None:
    """The programs export strict before the fix; `.item()` in the helper keeps that."""
    fixed = fix_source(case.source, "snippet.py", Config(), unsafe=True)
    assert fixed != case.source
    model, args, options = example(load(fixed, tmp_path))
    torch.export.export(model, tuple(args), **options, strict=True)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.name in NOT_ONLY_SIZES])
def test_no_item_where_a_call_is_not_a_size(case) -> None:
    conversions = [f for f in check_source(case.source, "snippet.py", Config()) if f.code == "XPT203"]
    assert conversions and all(f.fix is None for f in conversions)
