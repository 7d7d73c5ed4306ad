"""A number read from data and converted (`int(r)`, `int(r.item())`) then handed to a one-line
helper of the file that uses it once as a size (`x.expand(times, -1)`) is carried as a symbol
there: XPT203's fix (`.item()`, or dropping `int()`) holds however the helper is written (a method,
a staticmethod, a module-level function) and however the number gets there (in place, bound to a
name first). Used twice in the helper, or passed by keyword (the dataflow writes a helper at its
call for positional arguments only), no fix. Each spelling is a case of its own, torch 2.13's
outcome checked in both modes, every fix offered proven (exports, equals eager)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def tile(x, times):
    return x.expand(times, -1)


def scaled_tile(x, times):
    return x.expand(times, -1) * times


class Broadcast(nn.Module):
    def _tile(self, x, times):
        return x.expand(times, -1)

    @staticmethod
    def _rows(x, n):
        return x.repeat(n, 1)

    def forward(self, x, r):
{body}


def xport_example():
    return Broadcast(), (torch.randn(1, 3), torch.tensor(2))


def xport_inputs():
    return [(torch.randn(1, 3), torch.tensor(4))]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("method", "return self._tile(x, int(r))", "GuardOnDataDependentSymNode", None),
    ("staticmethod", "return self._rows(x, int(r))", "GuardOnDataDependentSymNode", None),
    ("module-level-helper", "return tile(x, int(r.item()))", "GuardOnDataDependentSymNode", None),
    ("bound-to-a-name-first", "k = int(r.item())\nreturn tile(x, k)", "GuardOnDataDependentSymNode", None),
    ("used-twice-in-the-helper", "return scaled_tile(x, int(r))", "GuardOnDataDependentSymNode", None),
    ("passed-by-keyword", "return self._tile(x, times=int(r))", "GuardOnDataDependentSymNode", None),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

NO_FIX = {
    "used-twice-in-the-helper": "the helper reads the number twice: one use is not a size",
}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
