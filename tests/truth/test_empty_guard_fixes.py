"""A guard that skips work on an empty selection (`if idx.numel() > 0:`, `if mask.any():`, `if
top_x.shape[0] == 0: continue`) is dropped where the code it skips writes only through the
selection: with an empty selection that code writes nothing, so it computes what the guard did
(held-out probe 26: a MoE expert loop, a token router, SpecAugment's masked fill had no fix).
Each spelling is proven with real torch in every mode the original fails in, on the example and
on an input whose selection is empty. Where the skipped code reduces over the selection or
leaves a value behind, the guard stays and no fix is offered."""

from __future__ import annotations

import pytest

from tests.truth.harness import prove_snippet

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_HEAD = "import torch\nimport torch.nn as nn\n\n\n"
_ROUTER = """
class Router(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 1)
        self.expert = nn.Linear(8, 8)

    def forward(self, tokens):
        routed = self.gate(tokens).squeeze(-1) > 0
        idx = torch.nonzero(routed).squeeze(1)
        out = tokens.clone()
{guard}
        return out

def xport_example():
    return Router(), (torch.randn(10, 8),)

def xport_inputs():
    return [(torch.zeros(10, 8) - 1e3,)]
"""
_EXPERTS = """
class Experts(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 4, bias=False)
        self.experts = nn.ModuleList([nn.Linear(8, 8) for _ in range(4)])

    def forward(self, x):
        weights, chosen = torch.topk(self.gate(x).softmax(-1), 2, dim=-1)
        final = torch.zeros_like(x)
        hits = torch.nn.functional.one_hot(chosen, num_classes=4).permute(2, 1, 0)
        for e in range(4):
            slot, top_x = torch.where(hits[e])
{guard}
        return final

def xport_example():
    return Experts(), (torch.randn(6, 8),)

def xport_inputs():
    return [(torch.zeros(6, 8),)]
"""
_MASKED = """
class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Parameter(torch.ones(8))

    def forward(self, h, mask):
{guard}
        return h

def xport_example():
    return Masked(), (torch.randn(2, 6, 8), torch.tensor([[0, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1]]).bool())

def xport_inputs():
    return [(torch.randn(2, 6, 8), torch.zeros(2, 6, dtype=torch.bool))]
"""


def _indented(code: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line if line else line for line in code.strip("\n").split("\n"))


def _router(guard: str) -> str:
    return _HEAD + _ROUTER.format(guard=_indented(guard, 8))


def _experts(guard: str) -> str:
    return _HEAD + _EXPERTS.format(guard=_indented(guard, 12))


def _masked(guard: str) -> str:
    return _HEAD + _MASKED.format(guard=_indented(guard, 8))


PROVEN = {
    "numel-above-zero": _router("if idx.numel() > 0:\n    out[idx] = self.expert(tokens[idx])"),
    "count-bound-first": _router("n = idx.numel()\nif n > 0:\n    out[idx] = self.expert(tokens[idx])"),
    "len-not-zero": _router("if len(idx) != 0:\n    out[idx] = self.expert(tokens[idx])"),
    "zero-below-size": _router("if 0 < idx.size(0):\n    picked = tokens[idx]\n    out[idx] = self.expert(picked)"),
    "index-copy-in-place": _router("if idx.shape[0] > 0:\n    out.index_copy_(0, idx, self.expert(tokens[idx]))"),
    "continue-on-an-empty-expert": _experts(
        "if top_x.shape[0] == 0:\n    continue\n"
        "current = self.experts[e](x[top_x]) * weights[top_x, slot, None]\nfinal.index_add_(0, top_x, current)"
    ),
    "continue-on-a-flag": _experts(
        "empty = top_x.numel() == 0\nif empty:\n    continue\n"
        "final = final.index_add(0, top_x, self.experts[e](x[top_x]) * weights[top_x, slot, None])"
    ),
    "mask-any": _masked("if mask.any():\n    h = h.clone()\n    h[mask] = self.embed.to(h.dtype)"),
    "torch-any": _masked("if torch.any(mask):\n    h = h.clone()\n    h[mask] = h[mask] * 2 + self.embed"),
    "mask-sum-above-zero": _masked("if mask.sum() > 0:\n    h = h.masked_fill(mask.unsqueeze(-1), 0.0)\n    h[mask] += self.embed"),
}

NO_FIX = {
    # the maximum of zero rows raises: the guard keeps that from running
    "a-reduction-over-the-selection": _router("if idx.numel() > 0:\n    out[idx] = tokens[idx].amax(0)"),
    # `hit` outlives the guard: on an empty selection it would be bound where it was not
    "a-value-left-behind": _router(
        "hit = tokens[:1]\nif idx.numel() > 0:\n    out[idx] = self.expert(tokens[idx])\n    hit = out[idx]\nout = out + hit.sum()"
    ),
}


@pytest.mark.parametrize("name", list(PROVEN))
def test_a_guard_on_an_empty_selection_goes_and_the_fix_proves_out(name: str) -> None:
    status, detail = prove_snippet(PROVEN[name])
    assert status == "proven", f"{status}: {detail}"


@pytest.mark.parametrize("name", list(NO_FIX))
def test_the_guard_stays_where_the_skipped_code_needs_it(name: str) -> None:
    status, detail = prove_snippet(NO_FIX[name])
    assert status == "no fix", f"{status}: {detail}"
