"""An input the export's example fills with a boolean tensor is a mask (issue 25: `sel = x[mask]`
then `if sel.numel() == 0:`): indexing with it keeps as many rows as it holds `True`, a size export
cannot guard on (XPT105, both modes, torch 2.13). The example says the dtype: a comparison, a
`dtype=torch.bool` factory, `.bool()`, passed by position or by keyword. An integer index input selects a fixed number of rows and
exports; a masked selection that is only reduced exports."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def selected(x, keep):
    return x[keep]


class Model(nn.Module):
    def forward(self, x, mask):
{body}


def xport_example():
    return Model(), (torch.randn(4, 8), {example})


def xport_inputs():
    return [(torch.randn(4, 8), {other})]
"""

_FAILS = ("GuardOnDataDependentSymNode", "UserError")
_COMPARED = ("torch.randn(4, 8) > 0", "torch.randn(4, 8) < 0")
_BUILT = ("torch.ones(4, dtype=torch.bool)", "torch.tensor([True, False, True, True])")
_CAST = ("torch.tensor([1, 0, 1, 1]).bool()", "torch.tensor([0, 1, 1, 0]).bool()")
_INDICES = ("torch.tensor([0, 2])", "torch.tensor([3, 1])")
#: (name, the body of forward, (example, another input), torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("selection-bound-then-numel-tested", "sel = x[mask]\nif sel.numel() == 0:\n    return x\nreturn x * 2",
     _COMPARED, *_FAILS),
    ("selection-numel-tested-in-place", "if x[mask].numel() == 0:\n    return x\nreturn x * 2", _COMPARED, *_FAILS),
    ("selection-rows-tested", "sel = x[mask]\nif sel.shape[0] > 0:\n    return x * 2\nreturn x", _COMPARED, *_FAILS),
    ("selection-size-tested-not", "rows = x[mask]\nif not rows.size(0):\n    return x\nreturn x * 2",
     _BUILT, *_FAILS),
    ("selection-from-a-helper", "sel = selected(x, mask)\nif sel.shape[0] == 0:\n    return x\nreturn x * 2",
     _BUILT, *_FAILS),
    ("masked-select-numel-tested", "if torch.masked_select(x, mask).numel() > 4:\n    return x * 2\nreturn x",
     _COMPARED, *_FAILS),
    ("cast-example-rows-tested", "sel = x[mask]\nif sel.shape[0] >= 2:\n    return x * 2\nreturn x", _CAST, *_FAILS),
    ("selection-summed", "return x[mask].sum() * x", _COMPARED, None, None),
    ("selection-of-rows-summed", "return x[mask].sum(0) + x", _BUILT, None, None),
    ("index-input-rows-tested", "sel = x[mask]\nif sel.shape[0] == 2:\n    return sel * 2\nreturn sel",
     _INDICES, None, None),
]
for name, body, (example, other), non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(
        body="\n".join(" " * 8 + line for line in body.splitlines()), example=example, other=other))

CASES.case("keyword-example-mask-rows-tested", *_FAILS, """
class Model(nn.Module):
    def forward(self, x, mask=None):
        sel = x[mask]
        if sel.shape[0] == 0:
            return x
        return x * 2


def xport_example():
    x = torch.randn(4, 8)
    return Model(), (x,), {"mask": x[:, 0] > 0}
""")

CASES.case("mask-passed-to-a-submodule", *_FAILS, """
class Block(nn.Module):
    def forward(self, x, keep):
        picked = x[keep]
        if picked.shape[0] > 2:
            return x * 2
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, mask):
        return self.block(x, mask)


def xport_example():
    return Model(), (torch.randn(4, 8), torch.ones(4, dtype=torch.bool))


def xport_inputs():
    return [(torch.randn(4, 8), torch.tensor([True, False, True, True]))]
""")

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
