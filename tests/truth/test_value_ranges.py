"""Branches that `torch._check` bounds decide leave no guard, so export passes and xport-lint
says nothing; a branch the bounds leave open is an error. Each case runs through real torch 2.13
in both modes, and the engine's verdict must agree."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

TEMPLATE = """
import torch
class M(torch.nn.Module):
    def forward(self, x, y):
        a = x.item()
        {checks}
        {prelude}
        if {test}:
            return y.sin()
        return y.cos()
"""


@pytest.mark.parametrize(("checks", "prelude", "test"), [
    ("torch._check(a >= 0); torch._check(a <= 5)", "", "a < 6"),  # ExportDB constrain_as_value_example
    ("torch._check(0 <= a); torch._check(a < 6)", "", "a <= 5"),
    ("torch._check(a >= 0); torch._check(a <= 5)", "b = a + 1", "b < 7"),
    ("torch._check(a >= 0); torch._check(a <= 5)", "", "a * 2 < 11"),
    ("torch._check(a >= 0); torch._check(a <= 5)", "", "a * 2 < 9"),  # open: 4 and 5 disagree
    ("torch._check(a >= 0); torch._check(a <= 5)", "b = a - 3", "b > 0"),
    ("torch._check(a >= 0)", "", "a < 6"),
])
@pytest.mark.parametrize("strict", [False, True])
def test_bounds_that_decide_a_branch_agree_with_torch(
    checks: str, prelude: str, test: str, strict: bool, tmp_path: Path
) -> None:
    source = textwrap.dedent(TEMPLATE).format(checks=checks, prelude=prelude or "pass", test=test)
    config = Config(select=("ALL",), strict=strict)
    errors = [f for f in check_source(source, "m.py", config) if f.severity is Severity.ERROR]
    module = load(source, tmp_path)
    try:
        torch.export.export(module.M(), (torch.tensor(4), torch.randn(3)), strict=strict)
        failed = ""
    except Exception as error:  # noqa: BLE001 - any failure is the fact under test
        failed = f"{type(error).__name__}: {error}"[:200]
    assert bool(errors) == bool(failed), failed or [f.message for f in errors]


CONSTANT = """
import torch
class M(torch.nn.Module):
    def forward(self, x, y):
        approx = float(x.shape[-1]) / 32.0
        return y * 2 ** float(torch.tensor(approx).log2().round())
"""


@pytest.mark.parametrize("strict", [False, True])
def test_a_number_read_back_from_a_tensor_of_python_numbers_exports(strict: bool, tmp_path: Path) -> None:
    """torchvision's poolers: `float(torch.tensor(approx_scale).log2().round())`."""
    config = Config(select=("ALL",), strict=strict)
    assert [f for f in check_source(CONSTANT, "m.py", config) if f.severity is Severity.ERROR] == []
    module = load(CONSTANT, tmp_path)
    torch.export.export(module.M(), (torch.randn(2, 8), torch.randn(3)), strict=strict)
