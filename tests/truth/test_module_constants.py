"""A configuration switch decided through a module-level constant (kornia's RANSAC: `if
local_optimization is None: local_optimization = "lm" if model_type in _LM_MODELS else "dlt"`,
`_LM_MODELS` a tuple of model names at the top of the file): the default construction picks one
path, so the other runs only with another argument (a warning naming the switch), and a default
the constant leaves out keeps its error. Spellings: `in` a tuple in a conditional expression, `not
in` with an if/else, `==` a string constant, the test read in `forward` through a method.
Measured on torch 2.13: each default module exports in both modes; the data path fails non-strict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SOURCE = '''
import torch

_LM_MODELS = ("homography", "fundamental")
FAST = "homography"


class Ransac(torch.nn.Module):
    def __init__(self, model_type="homography", local_optimization=None):
        super().__init__()
{choice}
        self.local_optimization = local_optimization

    def _forward_dlt(self, x):
        indices = (x > 0).nonzero().flatten()
        count = len(indices)
        return x.sum() * count

    def forward(self, x):
        if self.local_optimization == "lm":
            return x * 2
        return self._forward_dlt(x)
'''
CHOICES = {
    "in-a-tuple": "        if local_optimization is None:\n"
    "            local_optimization = \"lm\" if model_type in _LM_MODELS else \"dlt\"",
    "not-in-if-else": "        if local_optimization is None:\n            if model_type not in _LM_MODELS:\n"
    "                local_optimization = \"dlt\"\n            else:\n                local_optimization = \"lm\"",
    "equal-a-string-constant": "        if local_optimization is None:\n"
    "            local_optimization = \"lm\" if model_type == FAST else \"dlt\"",
    "through-a-method": "        if local_optimization is None:\n            local_optimization = self._default(model_type)",
}
METHOD = '''
    @staticmethod
    def _default(model_type):
        return "lm" if model_type in _LM_MODELS else "dlt"
'''
SIZE_READ = "        count = len(indices)"


def source_of(choice: str) -> str:
    source = SOURCE.format(choice=CHOICES[choice]).lstrip("\n")
    return source + METHOD if choice == "through-a-method" else source


def exports(source: str, folder: Path, model_type: str, strict: bool) -> bool:
    module = load(source, folder)
    try:
        torch.export.export(module.Ransac(model_type).eval(), (torch.randn(8),), strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    return True


@pytest.mark.parametrize("choice", list(CHOICES))
def test_a_switch_decided_by_a_module_constant(choice: str, tmp_path: Path) -> None:
    source = source_of(choice)
    (finding,) = check_source(source, "m.py", Config())
    assert finding.span.start.line == source.splitlines().index(SIZE_READ) + 1
    assert finding.severity is Severity.WARNING and "only with another" in finding.message
    for strict in (False, True):
        assert exports(source, tmp_path, "homography", strict)
    assert not exports(source, tmp_path, "affine", strict=False)


@pytest.mark.parametrize("choice", list(CHOICES))
def test_a_default_the_constant_leaves_out_keeps_the_error(choice: str, tmp_path: Path) -> None:
    source = source_of(choice).replace('model_type="homography"', 'model_type="affine"')
    (finding,) = check_source(source, "m.py", Config())
    assert finding.severity is Severity.ERROR
    module = load(source, tmp_path)
    with pytest.raises(Exception):  # noqa: B017, PT011 - any export failure is the fact checked
        torch.export.export(module.Ransac().eval(), (torch.randn(8),), strict=False)


def test_a_constant_bound_twice_decides_nothing() -> None:
    source = source_of("in-a-tuple").replace(
        '_LM_MODELS = ("homography", "fundamental")\n',
        '_LM_MODELS = ("homography", "fundamental")\n_LM_MODELS = ("fundamental",)\n',
    )
    (finding,) = check_source(source, "m.py", Config())
    assert finding.severity is Severity.ERROR
