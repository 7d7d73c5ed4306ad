"""A `while` bounded by a number read from data gets the `torch.while_loop` fix when the read is
bound to a name (the name is bound to the tensor instead); kept on `self` as scratch state in
`forward`, or in an entry of a dict or list literal, a step first makes it a local name (XPT406's,
XPT104's). Rewritten with the number still kept there, the loop's condition would read it as a
number, and the program fails export (measured on torch 2.13: UncapturedHigherOrderOpError), so no
rewrite reads it there. torch's outcome is checked in both modes; the fix proofs run non-strict."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
class Limit(nn.Module):
    def forward(self, x, n):
{body}


def xport_example():
    return Limit(), (torch.randn(2, 3), torch.tensor(2))


def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(3))]
"""

_LOOP = "i = 0\nwhile i < {bound}:\n    x = x * 0.9\n    i += 1\nreturn x"
_FAILS = ("GuardOnDataDependentSymNode", "UserError")

#: (name, the body of forward)
_SPELLINGS = [
    ("bound-to-a-name", "limit = n.item()\n" + _LOOP.format(bound="limit")),
    ("kept-on-self", "self.limit = n.item()\n" + _LOOP.format(bound="self.limit")),
    ("kept-in-a-dict", "cfg = {'limit': n.item()}\n" + _LOOP.format(bound="cfg['limit']")),
    ("kept-in-a-list", "seen = [n.item()]\n" + _LOOP.format(bound="seen[0]")),
    ("kept-on-self-negated", "self.limit = n.item()\n" + _LOOP.format(bound="self.limit").replace(
        "i < self.limit", "not i >= self.limit")),
]
for name, body in _SPELLINGS:
    CASES.case(name, *_FAILS, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {}, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
