"""`nn.utils.rnn.pad_sequence` of several tensors whose sizes depend on data fails strict export
(it guards on which is longer, `u1 > u0`) and exports non-strict: XPT105 in strict only, however
the pieces are made (a `split` by a list read from data, in place, bound first or through `list()`;
masked selections in a list; a comprehension of `nonzero`s), while pieces of static sizes, one
data-sized piece alone, or pieces stacked rather than padded export. Each spelling is a case of its
own, torch 2.13's outcome checked in both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
from torch.nn.utils.rnn import pad_sequence


class Padded(nn.Module):
    def forward(self, x, lengths):
{body}


def xport_example():
    return Padded(), (torch.randn(2, 3), torch.tensor([1, 2]))


def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([2, 1]))]
"""

_STRICT_FAILS = (None, "UserError")

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("split-by-a-read-list", "return pad_sequence(list(torch.split(x.T, lengths.tolist())))", *_STRICT_FAILS),
    ("split-bound-first", "sizes = lengths.tolist()\nparts = x.T.split(sizes)\nreturn pad_sequence(parts, batch_first=True)",
     *_STRICT_FAILS),
    ("full-name", "return nn.utils.rnn.pad_sequence(torch.split(x.T, lengths.tolist()))", *_STRICT_FAILS),
    ("masked-rows", "rows = [x[0][x[0] > 0], x[1][x[1] > 0]]\nreturn pad_sequence(rows, batch_first=True)", *_STRICT_FAILS),
    ("nonzero-comprehension", "return pad_sequence([r.nonzero().float() for r in x.unbind(0)], batch_first=True)",
     *_STRICT_FAILS),
    ("split-static", "return pad_sequence(list(torch.split(x.T, [1, 2])), batch_first=True)", None, None),
    ("one-masked-row", "return pad_sequence([x[0][x[0] > 0]], batch_first=True)", None, None),
    ("split-by-a-read-list-stacked", "return torch.stack([p.sum(0) for p in torch.split(x.T, lengths.tolist())])",
     None, None),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
