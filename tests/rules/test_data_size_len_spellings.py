"""`len()` of a tensor whose length is data, used only as a size, a slice bound or a lone index,
becomes `.shape[0]`, the same number carried as a symbol (XPT203's fix): each spelling fails
non-strict export on torch 2.13 and its fix proves out (exports, equals eager); `len()` tested in a
branch keeps its error and gets the branch's fix instead."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def count_of(t):
    return len(t)


class Model(nn.Module):
    def forward(self, x, labels):
{body}


def xport_example():
    return Model(), (torch.randn(2, 4), torch.tensor([0, 2, 2]))


def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor([1, 1, 3]))]
"""

_FAILS_NON_STRICT = ("GuardOnDataDependentSymNode", None)
#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("len-as-a-zeros-size", "return torch.zeros(len(torch.unique(labels)), x.shape[1]) + x.mean()", *_FAILS_NON_STRICT),
    ("len-bound-first-as-an-arange-end", "n = len(labels[labels > 0])\nreturn torch.arange(n).sum() + x",
     *_FAILS_NON_STRICT),
    ("len-unpacked-as-a-view-size", "u = torch.unique(labels).float()\nn, m = len(u), 1\nreturn u.view(n, m).sum() + x",
     *_FAILS_NON_STRICT),
    ("len-through-a-helper-as-a-zeros-size", "return torch.zeros(count_of(torch.unique(labels)), 4) + x.mean()",
     *_FAILS_NON_STRICT),
    ("len-of-nonzero-as-a-slice-bound", "hits = torch.nonzero(labels)\nreturn x[:, :len(hits)].sum() + x",
     *_FAILS_NON_STRICT),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

#: failing programs (non-strict) whose error has no fix, and why none is offered (`len(t)` returned by a
#: helper every traced call of which uses it as a size is fixed since XPT203 follows the helper's calls)
NO_FIX: dict[str, str] = {}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_proves_out = BATCH.a_fix_offered_proves_out()
