"""A module class that overrides `__call__` (torch_geometric's `Aggregation.__call__` fills
`dim_size` from `int(index.max())`, then `super().__call__` runs `forward`): torch.export binds the
example to `forward`'s signature, then calls the module, so the override runs first, in both
modes, for the exported module, for a submodule called as `self.inner(x)`, and inherited from a
base class. Its first failing line is a finding; an override that reads no data is none.
Measured on torch 2.13 (each case below exports or fails as asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

OWN = """
import torch
class M(torch.nn.Module):
    def __call__(self, x):
        if x.sum() > 0:
            x = x * 2
        return super().__call__(x)

    def forward(self, x):
        return x + 1
"""
INHERITED = """
import torch
def positive(x):
    return bool(x.sum() > 0)
class Base(torch.nn.Module):
    def __call__(self, x, *args, **kwargs):
        out = super().__call__(x, *args, **kwargs)
        if positive(x):
            return out * 2
        return out
class M(Base):
    def forward(self, x):
        return x + 1
"""
SUBMODULE = """
import torch
class Inner(torch.nn.Module):
    def __call__(self, x, scale=None):
        scale = x.max().item() if scale is None else scale
        if scale > 1:
            return super().__call__(x) * 2
        return super().__call__(x)

    def forward(self, x):
        return x + 1
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x)
"""
THROUGH_FORWARD = """
import torch
class M(torch.nn.Module):
    def __call__(self, x, n=None):
        n = int(x.max())
        return self.forward(x, n)

    def forward(self, x, n=None):
        return x[:n]
"""
PLAIN = """
import torch
class M(torch.nn.Module):
    def __call__(self, x):
        return super().__call__(x) * 3

    def forward(self, x):
        return x + 1
"""
#: source -> (the line of the first failure, the modes whose export fails there)
FAILING = {
    "own": (OWN, "        if x.sum() > 0:", (False, True)),
    "inherited": (INHERITED, "    return bool(x.sum() > 0)", (False, True)),
    "submodule": (SUBMODULE, "        if scale > 1:", (False, True)),
    # strict export keeps `int(x.max())` as an unbacked size there: only non-strict fails
    "through-self-forward": (THROUGH_FORWARD, "        n = int(x.max())", (False,)),
}


def exports(source: str, folder: Path, strict: bool) -> bool:
    module = load(source.lstrip("\n"), folder)
    try:
        torch.export.export(module.M().eval(), (torch.arange(6).float(),), strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    return True


@pytest.mark.parametrize("case", FAILING.values(), ids=list(FAILING))
def test_the_first_failing_line_of_a_call_override_is_an_error(case: tuple[str, str, tuple[bool, ...]],
                                                                tmp_path: Path) -> None:
    source, failing, failing_modes = case
    source = source.lstrip("\n")
    line = source.splitlines().index(failing) + 1
    errors = [f for f in check_source(source, "m.py", Config()) if f.severity is Severity.ERROR]
    assert min(f.span.start.line for f in errors) == line
    for strict in (False, True):
        assert exports(source, tmp_path, strict) is (strict not in failing_modes)


def test_an_override_reading_no_data_has_no_finding(tmp_path: Path) -> None:
    assert check_source(PLAIN.lstrip("\n"), "m.py", Config()) == []
    for strict in (False, True):
        assert exports(PLAIN, tmp_path, strict)
