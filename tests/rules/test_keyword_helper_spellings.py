"""A number read from data handed by keyword to a one-line helper or method that uses it once as a
size is carried like one passed by position: the dataflow writes the call with each keyword in its
parameter's place, so XPT203's fix (`int(r)` -> `r.item()`) is offered and proves out on torch 2.13
(non-strict export fails before it) in each spelling."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def tiled(x, times):
    return x.expand(times, -1)


class Model(nn.Module):
    def _rows(self, x, count):
        return x.repeat(count, 1)

    @staticmethod
    def _zeros(width, height):
        return torch.zeros(height, width)

    def forward(self, x, r):
{body}


def xport_example():
    return Model(), (torch.randn(1, 3), torch.tensor(2))


def xport_inputs():
    return [(torch.randn(1, 3), torch.tensor(4))]
"""

_FAILS_NON_STRICT = ("GuardOnDataDependentSymNode", None)
#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("module-helper-by-keyword", "return tiled(x, times=int(r)) * 2", *_FAILS_NON_STRICT),
    ("module-helper-all-by-keyword-reordered", "return tiled(times=int(r), x=x) * 2", *_FAILS_NON_STRICT),
    ("method-by-keyword-bound-first", "n = int(r)\nreturn self._rows(x, count=n)", *_FAILS_NON_STRICT),
    ("staticmethod-by-keyword", "return self._zeros(3, height=int(r)) + x", *_FAILS_NON_STRICT),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_proves_out = BATCH.a_fix_offered_proves_out()
