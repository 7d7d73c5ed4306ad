"""A `torch.Generator` that `__init__` keeps on `self` fails strict export where a random op takes
it (XPT402), however `forward` hands it over: directly, bound to a local first, unpacked, or
returned by a helper of the file. Each spelling is a case of its own, torch 2.13's outcome checked
in both modes (non-strict export traces it)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def _pick(gen):
    return gen


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = torch.Generator().manual_seed(0)

    def forward(self, x):
{handover}
        return x + torch.rand(x.shape, generator=gen)


def xport_example():
    return Noisy(), (torch.randn(2, 3),)
"""

for name, handover in [
    ("bound-to-a-local", "gen = self.gen"),
    ("unpacked-with-another-value", "gen, _ = self.gen, 1"),
    ("returned-by-a-helper", "gen = _pick(self.gen)"),
]:
    CASES.case(name, None, "Unsupported", _MODEL.format(handover=" " * 8 + handover))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
