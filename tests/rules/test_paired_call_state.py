"""XPT406 on state handed from one call of a module to the call paired with it (a normalizer's
statistics: RevIN's `forward(x, "norm")` stores them, `forward(y, "denorm")` reads them; or
`forward` stores them and `reverse()` reads them): a model calling both within its own forward
exports them together, so it is info; state the same call reads back on the next call stays a
warning. Each module's parent is exported on torch 2.13 in both modes and compared with eager on a
second input, so the severity's claim is measured, not assumed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PARENT = """
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Norm()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        {body}
"""
_BY_MODE = 'y = self.proj(self.norm(x, "norm"))\n        return self.norm(y, "denorm")'
_BY_METHOD = "y = self.proj(self.norm(x))\n        return self.norm.reverse(y)"

#: (the normalizer, the parent's forward, the attribute, whether the parent's next call reads it)
MODULES = {
    "mode-written-by-a-helper": ("""
class Norm(torch.nn.Module):
    def forward(self, x, mode: str):
        if mode == "norm":
            self._statistics(x)
            return (x - self.mean) / self.std
        elif mode == "denorm":
            return x * self.std + self.mean
        raise NotImplementedError

    def _statistics(self, x):
        self.mean = x.mean(1, keepdim=True).detach()
        self.std = x.std(1, keepdim=True).detach() + 1e-5
""", _BY_MODE, "mean", False),
    "mode-written-in-forward-read-by-a-helper": ("""
class Norm(torch.nn.Module):
    def forward(self, x, mode: str):
        if mode == "norm":
            self.mean = x.mean(1, keepdim=True)
            return x - self.mean
        elif mode == "denorm":
            return self._denormalize(x)
        raise ValueError(mode)

    def _denormalize(self, x):
        return x + self.mean
""", _BY_MODE, "mean", False),
    "mode-tuple-unpacked": ("""
class Norm(torch.nn.Module):
    def forward(self, x, mode: str):
        if mode == "norm":
            self.mean, self.std = x.mean(1, keepdim=True), x.std(1, keepdim=True) + 1e-5
            return (x - self.mean) / self.std
        if mode == "denorm":
            return x * self.std + self.mean
        return x
""", _BY_MODE, "std", False),
    "reverse-method": ("""
class Norm(torch.nn.Module):
    def forward(self, x):
        self.mean = x.mean(1, keepdim=True).detach()
        return x - self.mean

    def reverse(self, x):
        return x + self.mean
""", _BY_METHOD, "mean", False),
    # counter-spellings: the paired call is there, but the writing call reads the last call's value
    "mode-step-reads-the-last-step": ("""
class Norm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.prev = torch.zeros(2, 1, 4)

    def forward(self, x, mode: str):
        if mode == "norm":
            out = x - self.prev
            self.prev = x.mean(1, keepdim=True)
            return out
        elif mode == "denorm":
            return x + self.prev
        raise ValueError(mode)
""", _BY_MODE, "prev", True),
    "reverse-method-and-a-running-value": ("""
class Norm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = torch.zeros(2, 1, 4)

    def forward(self, x):
        self.mean = 0.5 * self.mean + 0.5 * x.mean(1, keepdim=True)
        return x - self.mean

    def reverse(self, x):
        return x + self.mean
""", _BY_METHOD, "mean", True),
}


@pytest.mark.parametrize("name", MODULES)
def test_severity_says_whether_the_next_call_reads_the_state(name: str, tmp_path: Path) -> None:
    norm, body, attribute, read_by_next_call = MODULES[name]
    program = "import torch\n" + textwrap.dedent(norm) + _PARENT.format(body=body)
    found = [f for f in check_source(program, "model.py", Config()) if f.code == "XPT406"
             and f.message.startswith(f"`self.{attribute}`")]
    assert found, "XPT406 reports the write"
    expected = Severity.WARNING if read_by_next_call else Severity.INFO
    assert {f.severity for f in found} == {expected}, [f.message for f in found]
    for strict in (False, True):
        module = load(program, tmp_path)
        first, second = torch.randn(2, 6, 4), torch.randn(2, 6, 4) * 3 + 1
        torch.manual_seed(0)
        exported_module = module.Model()
        eager = module.Model()
        eager.load_state_dict(exported_module.state_dict())
        exported = torch.export.export(exported_module, (first,), strict=strict).module()
        assert torch.allclose(exported(first), eager(first), atol=1e-5), strict
        assert torch.allclose(exported(second), eager(second), atol=1e-5) != read_by_next_call, strict


def test_the_pair_split_across_files_is_judged_alike(tmp_path: Path) -> None:
    """The normalizer's severity depends on its own class only: the same module in a file of its
    own (its parent in another) gets the same finding."""
    norm = "import torch\n" + textwrap.dedent(MODULES["mode-written-by-a-helper"][0])
    found = [f for f in check_source(norm, "norm.py", Config()) if f.code == "XPT406"]
    assert {f.severity for f in found} == {Severity.INFO}, [f.message for f in found]
