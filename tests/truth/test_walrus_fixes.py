"""An `if` whose test binds a number read from a tensor, or a tensor, with `:=` gets the
`torch.cond` fix its hoisted spelling gets: the tensor is bound to the name before the call and
the branches take it as an operand. Each spelling is proven with real torch 2.13 (exports non-strict, equal to eager on
inputs that drive both branches); where the name is read after the `if`, or the `:=` may not be
evaluated, no fix is offered (never one that fails)."""

from __future__ import annotations

import pytest

from tests.truth.harness import prove_snippet

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_HEAD = "import torch\nimport torch.nn as nn\n\n\ndef _count(mask):\n    return mask.sum()\n\n\n"
_TAIL = """
def xport_example():
    return Head(), (torch.randn(4, 3), torch.ones(4))

def xport_inputs():
    return [(torch.randn(4, 3), torch.zeros(4)), (torch.randn(4, 3), torch.tensor([1.0, 1.0, 0.0, 0.0]))]
"""

PROVEN = {
    "int-of-a-sum-returned-in-the-branch": """
class Head(nn.Module):
    def forward(self, x, mask):
        if (n := int(mask.sum())) > 2:
            return x[:2] * n
        return x
""",
    "item-assigned-in-both-branches": """
class Head(nn.Module):
    def forward(self, x, mask):
        if (total := mask.sum().item()) > 0:
            y = x / total
        else:
            y = x * 0
        return y + 1
""",
    "through-a-helper": """
class Head(nn.Module):
    def forward(self, x, mask):
        if (n := int(_count(mask))) > 2:
            return x * n
        return x
""",
    "negated-test": """
class Head(nn.Module):
    def forward(self, x, mask):
        if not (n := int(mask.sum())) > 2:
            return x
        return x * n
""",
    "read-on-an-attribute-mask": """
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x, mask):
        if (n := int(mask.sum() * self.scale)) > 4:
            return x * n
        return x
""",
    "a-tensor-bound-then-divided-by": """
class Head(nn.Module):
    def forward(self, x, mask):
        if (peak := mask.abs().amax()) > 0.5:
            x = x / peak
        return x
""",
    "a-tensor-from-a-helper": """
class Head(nn.Module):
    def forward(self, x, mask):
        if (total := _count(mask)) > 2:
            return x * total
        return x
""",
    "a-tensor-on-the-right": """
class Head(nn.Module):
    def forward(self, x, mask):
        if 2 < (total := mask.sum()):
            return x * total
        return x - 1
""",
    "a-tensor-negated": """
class Head(nn.Module):
    def forward(self, x, mask):
        if not (total := mask.sum()) > 2:
            return x
        return x * total
""",
}

NO_FIX = {
    "read-after-the-if": """
class Head(nn.Module):
    def forward(self, x, mask):
        if (n := int(mask.sum())) > 2:
            x = x * 2
        return x + n
""",
    "a-tensor-bound-under-an-or": """
class Head(nn.Module):
    def forward(self, x, mask):
        if x.shape[0] > 8 or (total := mask.sum()) > 2:
            return x + 1
        return x
""",
    "bound-under-an-and": """
class Head(nn.Module):
    def forward(self, x, mask):
        if x.shape[0] > 1 and (n := int(mask.sum())) > 2:
            return x * n
        return x
""",
}


@pytest.mark.parametrize("name", list(PROVEN))
def test_a_walrus_read_in_the_test_gets_a_proven_fix(name: str) -> None:
    status, detail = prove_snippet(_HEAD + PROVEN[name] + _TAIL)
    assert status == "proven", f"{status}: {detail}"


@pytest.mark.parametrize("name", list(NO_FIX))
def test_no_fix_where_hoisting_would_change_the_program(name: str) -> None:
    status, detail = prove_snippet(_HEAD + NO_FIX[name] + _TAIL)
    assert status == "no fix", f"{status}: {detail}"
