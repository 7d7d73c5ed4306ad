"""`split`/`chunk` by one number computed from a read and a static size (`x.shape[0] // int(n)`)
makes a number of pieces that depends on data: XPT205 in both modes, however the number gets there
(written in place, bound to a name first, through a method of the module), while sections made of
the same numbers (`[k, x.shape[0] - k]`, in place or bound to a name) export. Each spelling is a
case of its own, torch 2.13's outcome checked in both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
class Pieces(nn.Module):
    def _piece(self, x, n):
        return x.shape[0] // n.item()

    def forward(self, x, n):
{body}


def xport_example():
    return Pieces(), (torch.randn(6, 2), torch.tensor(3))


def xport_inputs():
    return [(torch.randn(6, 2), torch.tensor(2))]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("size-in-place", "return torch.split(x, x.shape[0] // n.item())[0]", "GuardOnDataDependentSymNode", "UserError"),
    ("size-bound-first", "size = x.size(0) // n.item()\nreturn x.split(size)[0]", "GuardOnDataDependentSymNode", "UserError"),
    ("size-unpacked", "size, _ = x.shape[0] // n.item(), 0\nreturn x.split(size)[-1]", "GuardOnDataDependentSymNode", "UserError"),
    ("size-from-a-method", "return x.split(self._piece(x, n))[0]", "GuardOnDataDependentSymNode", "UserError"),
    ("count-as-a-difference", "return x.chunk(x.shape[0] - n.item())[0]", "GuardOnDataDependentSymNode", "UserError"),
    ("sections-in-place", "k = n.item()\nreturn x.split([k, x.shape[0] - k])[0]", None, None),
    ("sections-bound-first", "k = n.item()\nsections = [k, x.shape[0] - k]\nreturn x.split(sections)[1]", None, None),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
