"""A `torch._check` before a test of a data-dependent size decides it (XPT105): after
`torch._check(b.shape[0] > 0)`, torch 2.13 knows `b.shape[0] == 0` is False and exports in both
modes. The check names the size as the test does (`b.shape[0]`, `b.numel()`, `b.size(0)`, or a
name bound to it); a check of another bound, of another tensor, or after the test decides nothing.
`len(b)` in the check itself fails non-strict export (XPT203: `Tensor.__len__` needs an int).
Without a check, torch knows a data-dependent size is at least 0: `b.shape[0] >= 0` (or `< 0`, or
`+ 1 > 0`) is decided and exports; `>= 1` is not."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
class Model(nn.Module):
    def forward(self, scores, boxes):
        b = boxes[scores > 0.5]
{body}


def xport_example():
    return Model(), (torch.rand(10), torch.rand(10, 4))


def xport_inputs():
    return [(torch.rand(10), torch.rand(10, 4))]
"""

_FAILS = ("GuardOnDataDependentSymNode", "UserError")


def _checked(check: str, test: str) -> str:
    return f"{check}\nif {test}:\n    return boxes\nreturn boxes * 2"


#: (name, the rest of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("rows-checked-positive-then-tested-empty", _checked("torch._check(b.shape[0] > 0)", "b.shape[0] == 0"), None, None),
    ("numel-checked-then-tested", _checked("torch._check(b.numel() > 0)", "b.numel() == 0"), None, None),
    ("size-call-checked-then-tested", _checked("torch._check(b.size(0) >= 1)", "b.size(0) < 1"), None, None),
    ("name-of-the-rows-checked", _checked("n = b.shape[0]\ntorch._check(n > 0)", "n == 0"), None, None),
    ("name-checked-as-a-size", _checked("n = b.shape[0]\ntorch._check_is_size(n)", "n < 0"), None, None),
    ("upper-bound-checked-decides", _checked("torch._check(b.shape[0] <= 10)", "b.shape[0] > 10"), None, None),
    ("len-in-the-check", _checked("torch._check(len(b) > 0)", "len(b) == 0"), "GuardOnDataDependentSymNode", None),
    ("bound-that-does-not-decide", _checked("torch._check(b.shape[0] < 10)", "b.shape[0] == 0"), *_FAILS),
    ("another-tensor-checked", _checked("c = boxes[scores > 0.2]\ntorch._check(c.shape[0] > 0)", "b.shape[0] == 0"),
     *_FAILS),
    ("rows-at-least-zero", "if b.shape[0] >= 0:\n    return b * 2\nreturn b", None, None),
    ("numel-below-zero-else", "if b.numel() < 0:\n    return b\nelse:\n    return b * 2", None, None),
    ("nonzero-count-at-least-zero", "n = (scores > 0.5).nonzero().shape[0]\nif n >= 0:\n    return boxes * 2\nreturn boxes",
     None, None),
    ("rows-plus-one-positive", "if b.shape[0] + 1 > 0:\n    return b * 2\nreturn b", None, None),
    ("len-at-least-zero", "if len(b) >= 0:\n    return b * 2\nreturn b", "GuardOnDataDependentSymNode", None),
    ("rows-at-least-one", "if b.shape[0] >= 1:\n    return b * 2\nreturn b", *_FAILS),
    ("checked-after-the-test", "if b.shape[0] == 0:\n    return boxes\ntorch._check(b.shape[0] > 0)\nreturn boxes * 2",
     *_FAILS),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
