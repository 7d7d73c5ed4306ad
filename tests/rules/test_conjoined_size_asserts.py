"""`assert A and B` on sizes asserts each part (XPT304): `assert H % 8 == 0 and W % 8 == 0` under
named Dims for H and W fails export in both modes on torch 2.13 (`Constraints violated (h, w)`),
as each part alone does; declared as multiples of 8 (`8 * Dim(...)`), or with parts the declared
ranges already hold, it exports. `torch._check(A and B)` is the same check."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("from torch.export import Dim")

_MODEL = """
class Model(nn.Module):
    def forward(self, x):
{body}


def xport_example():
    return {{"model": Model(), "args": (torch.randn(1, 3, 32, 32),), "dynamic_shapes": {{"x": {shapes}}}}}


def xport_inputs():
    return [(torch.randn(1, 3, 48, 64),)]
"""

_NAMED = '{2: Dim("h", min=16, max=128), 3: Dim("w", min=16, max=128)}'
_MULTIPLES = '{2: 8 * Dim("h", min=2, max=16), 3: 8 * Dim("w", min=2, max=16)}'
_FAILS = ("UserError", "UserError")
#: (name, the body of forward, dynamic shapes of x, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("both-sizes-asserted-multiples", "B, C, H, W = x.shape\nassert H % 8 == 0 and W % 8 == 0\nreturn x * 2",
     _NAMED, *_FAILS),
    ("read-in-place-with-a-message", "assert x.shape[2] % 8 == 0 and x.shape[3] % 8 == 0, 'bad size'\nreturn x * 2",
     _NAMED, *_FAILS),
    ("one-part-splits-the-range", "H, W = x.shape[-2:]\nassert H >= 16 and W % 4 == 0\nreturn x * 2", _NAMED, *_FAILS),
    ("checked-as-one-condition", "H, W = x.size(2), x.size(3)\ntorch._check(H % 8 == 0 and W % 8 == 0)\nreturn x * 2",
     _NAMED, *_FAILS),
    ("declared-as-multiples", "B, C, H, W = x.shape\nassert H % 8 == 0 and W % 8 == 0\nreturn x * 2",
     _MULTIPLES, None, None),
    ("parts-the-ranges-hold", "B, C, H, W = x.shape\nassert H >= 16 and W <= 128\nreturn x * 2", _NAMED, None, None),
]
for name, body, shapes, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(
        body="\n".join(" " * 8 + line for line in body.splitlines()), shapes=shapes))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
