"""A configuration switch held as an Enum member built from a string default
(torch_geometric's SentenceTransformer: `self.pooling_strategy = PoolingStrategy(pooling_strategy)`
with `pooling_strategy='mean'`, then `elif self.pooling_strategy == PoolingStrategy.LAST:
return last_pooling(...)`): the default construction picks one member, so the other branches run
only with another argument, a warning naming the switch; the member the default picks keeps its
errors. Spellings: a plain Enum and a `str` Enum, `==`, `is`, `!=` with an else, `in` a tuple.
Measured on torch 2.13: each default module exports in both modes; built with "last" it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SOURCE = '''
from enum import Enum

import torch


class Pooling({base}):
    MEAN = "mean"
    LAST = "last"


def last_pooling(emb, mask):
    left_padding = mask[:, -1].sum() == mask.size(0)
    if left_padding:
        return emb[:, -1]
    return emb[:, 0]


def mean_pooling(emb, mask):
    return (emb * mask.unsqueeze(-1)).sum(1)


class M(torch.nn.Module):
    def __init__(self, pooling="mean"):
        super().__init__()
        self.pooling = Pooling(pooling)

    def forward(self, emb, mask):
{body}
'''
BODIES = {
    "equal": "        if self.pooling == Pooling.MEAN:\n            return mean_pooling(emb, mask)\n"
    "        elif self.pooling == Pooling.LAST:\n            return last_pooling(emb, mask)\n        return emb",
    "is": "        if self.pooling is Pooling.LAST:\n            return last_pooling(emb, mask)\n"
    "        return mean_pooling(emb, mask)",
    "not-equal-else": "        if self.pooling != Pooling.LAST:\n            return mean_pooling(emb, mask)\n"
    "        else:\n            return last_pooling(emb, mask)",
    "in-a-tuple": "        if self.pooling in (Pooling.LAST,):\n            return last_pooling(emb, mask)\n"
    "        return mean_pooling(emb, mask)",
}
CASES = {f"{name}-{kind}": (base, body) for name, body in BODIES.items()
         for kind, base in (("enum", "Enum"), ("str-enum", "str, Enum"))}
DATA_BRANCH = "    if left_padding:"


def exports(source: str, folder: Path, pooling: str, strict: bool) -> bool:
    module = load(source, folder)
    mask = torch.ones(2, 5, dtype=torch.long)
    try:
        torch.export.export(module.M(pooling).eval(), (torch.randn(2, 5, 3), mask), strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    return True


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_an_enum_member_the_default_leaves_off_is_a_switch(case: tuple[str, str], tmp_path: Path) -> None:
    base, body = case
    source = SOURCE.format(base=base, body=body).lstrip("\n")
    (finding,) = check_source(source, "m.py", Config())
    assert finding.span.start.line == source.splitlines().index(DATA_BRANCH) + 1
    assert finding.severity is Severity.WARNING and "only with another `pooling`" in finding.message
    chosen = source.replace('pooling="mean"', 'pooling="last"')
    (finding,) = check_source(chosen, "m.py", Config())
    assert finding.severity is Severity.ERROR
    for strict in (False, True):
        assert exports(source, tmp_path, "mean", strict)
        assert not exports(source, tmp_path, "last", strict)
