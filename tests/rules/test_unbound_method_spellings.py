"""A tensor method called unbound, `torch.Tensor.item(t)`, is `t.item()`: the same number read
from data, the same size, the same data-dependent tensor, whatever the method (non-strict export fails
earlier on `torch.Tensor.tolist(t)`: RuntimeError, no `tolist()` of a FakeTensor). Each spelling is a
case of its own, torch 2.13's outcome checked in both modes, with the bound spelling beside it."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def steps_of(t):
    return torch.Tensor.item(t)


class Unbound(nn.Module):
    def forward(self, x, n):
{body}


def xport_example():
    return Unbound(), (torch.randn(4, 3), torch.tensor(2))


def xport_inputs():
    return [(torch.randn(4, 3), torch.tensor(3))]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("item-in-place", "for _ in range(torch.Tensor.item(n)):\n    x = x.sin()\nreturn x", "GuardOnDataDependentSymNode", "UserError"),
    ("item-bound", "k = n.item()\nfor _ in range(k):\n    x = x.sin()\nreturn x", "GuardOnDataDependentSymNode", "UserError"),
    ("item-bound-unbound", "k = torch.Tensor.item(n)\nfor _ in range(k):\n    x = x.sin()\nreturn x", "GuardOnDataDependentSymNode", "UserError"),
    ("item-through-a-helper", "for _ in range(steps_of(n)):\n    x = x.sin()\nreturn x", "GuardOnDataDependentSymNode", "UserError"),
    ("item-tested", "if torch.Tensor.item(n) > 2:\n    return x * 2\nreturn x", "GuardOnDataDependentSymNode", "UserError"),
    ("tolist-unpacked", "a, = torch.Tensor.tolist(n.reshape(1))\nif a > 2:\n    return x * 2\nreturn x", "RuntimeError", "UserError"),
    ("nonzero-length-tested", "hits = torch.Tensor.nonzero(x > 0)\nif hits.shape[0] > 2:\n    return x * 2\nreturn x", "GuardOnDataDependentSymNode", "UserError"),
    ("item-as-a-multiplier", "return x * torch.Tensor.item(n)", None, None),
    ("size-in-a-range", "for i in range(torch.Tensor.size(x, 0)):\n    x = x + i\nreturn x", None, None),
    ("nonzero-summed", "return x + torch.Tensor.nonzero(x > 0).sum()", None, None),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
