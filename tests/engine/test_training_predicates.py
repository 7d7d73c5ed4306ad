"""A branch on a method that returns a training test (`return still_training and self.training`,
speechbrain's InputNormalization `_should_update`) runs only in training mode, as `if
self.training:` does: its failures are warnings that name training mode. A method that tests
something else stays an error. Measured on torch 2.13: each module is exported `.eval()` with the
example's arguments (non-strict, the default) and fails where the finding stays an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

PREDICATES = {
    # (the method's body, how forward tests it, whether the branch runs only in training mode)
    "conjunction-returned": ("still = epoch is None or epoch < self.until\n        return still and self.training",
                             "self._should_update(epoch)", True),
    "training-first": ("return self.training and not self.frozen", "self._should_update(epoch)", True),
    "operand-of-and": ("return epoch is None and self.training", "self.enabled and self._should_update(epoch)", True),
    "not-a-training-test": ("return epoch is None or epoch < self.until", "self._should_update(epoch)", False),
}

TEMPLATE = """
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.until = 10
        self.frozen = False
        self.enabled = True

    def _should_update(self, epoch=None):
        {body}

    def forward(self, x, epoch=None):
        if {test}:
            n = int(x.sum())
            x = x * n
        return x * 2
"""


@pytest.mark.parametrize("name", PREDICATES)
def test_a_branch_on_a_training_predicate_is_training_only(name: str, tmp_path: Path) -> None:
    body, test, training_only = PREDICATES[name]
    source = TEMPLATE.format(body=body, test=test)
    found = [f for f in check_source(source, "model.py", Config()) if f.code == "XPT203"]
    assert [f.severity for f in found] == [Severity.WARNING if training_only else Severity.ERROR]
    assert ("training mode" in found[0].message) == training_only

    model = load(source, tmp_path).Model().eval()
    try:
        torch.export.export(model, (torch.randn(3),), strict=False)
        exported = True
    except Exception:  # noqa: BLE001 - the failure's type is torch's business; that it fails is the fact
        exported = False
    assert exported == training_only
