"""`sorted(t.tolist())` is fixed as `t.sort().values.tolist()` only where `t` is known to hold
integers (dtypes.py: the op that makes it, a cast, the export's example input): strict export traces `.tolist()` of integer tensors only ("Tensor.tolist() with
non-integer tensor", torch 2.13), so the fix on a float tensor (a beam's scores) failed strict
export where the original failed too. Proven with real torch in every mode the original fails in."""

from __future__ import annotations

import pytest

from tests.truth.harness import prove_snippet

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_HEAD = "import torch\nimport torch.nn as nn\n\n\n"
_TAIL = """
def xport_example():
    return Ranker(), (torch.randn(4, 8), torch.tensor([[5, 3, 0], [1, 0, 0], [2, 2, 2], [0, 0, 0]]))

def xport_inputs():
    return [(torch.randn(4, 8), torch.tensor([[1, 0, 0], [4, 4, 0], [0, 0, 0], [7, 7, 7]]))]
"""

PROVEN = {
    "a-count-of-a-mask": """
class Ranker(nn.Module):
    def forward(self, x, tokens):
        lengths = (tokens != 0).sum(-1)
        ordered = sorted(lengths.tolist(), reverse=True)
        return x * ordered[0]
""",
    "indices": """
class Ranker(nn.Module):
    def forward(self, x, tokens):
        best = tokens.argmax(-1)
        order = sorted(best.tolist())
        return x * order[-1]
""",
    "an-integer-example-input": """
class Ranker(nn.Module):
    def forward(self, x, tokens):
        first = tokens[:, 0]
        ordered = sorted(first.tolist())
        return x * ordered[-1]
""",
    "cast-to-long": """
class Ranker(nn.Module):
    def forward(self, x, tokens):
        widths = tokens.sum(-1).long()
        ordered = sorted(widths.tolist())
        return x + ordered[0]
""",
}

NO_FIX = {
    "scores-of-a-layer": """
class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(8, 1)

    def forward(self, x, tokens):
        scores = self.score(x).squeeze(-1)
        ranked = sorted(scores.tolist(), reverse=True)
        return scores - ranked[0]
""",
    "an-output-of-unknown-dtype": """
class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 4)

    def forward(self, x, tokens):
        picked = self.head(x).max(-1).values
        ordered = sorted(picked.tolist())
        return x * ordered[0]
""",
}


@pytest.mark.parametrize("name", list(PROVEN))
def test_sorting_integers_read_into_a_list_gets_a_proven_fix(name: str) -> None:
    status, detail = prove_snippet(_HEAD + PROVEN[name] + _TAIL)
    assert status == "proven", f"{status}: {detail}"


@pytest.mark.parametrize("name", list(NO_FIX))
def test_no_fix_where_the_elements_may_be_floats(name: str) -> None:
    status, detail = prove_snippet(_HEAD + NO_FIX[name] + _TAIL)
    assert status == "no fix", f"{status}: {detail}"
