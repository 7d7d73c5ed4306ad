"""XPT406 on state written under a setting's test (`if self.subtract_last: self.last = ... else:
self.mean = ...`, RevIN in neuralforecast) and read under the same test later in the same call: a
setting (an attribute only `__init__` sets) takes one branch for the whole call, so every path that
reads the attribute has written it first: scratch state, info. Read before the write, or under a
test the call itself changes, it stays a warning. Each module's parent is exported on torch 2.13 in
both modes, with every value of the setting, and compared with eager on two more inputs, so the
severity's claim is measured, not assumed."""

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
    def __init__(self, **settings):
        super().__init__()
        self.norm = Norm(**settings)
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(self.norm(x))
"""

#: (the module, the attribute, the settings it is built with, whether the next call reads the state)
MODULES = {
    "else-branch-read-by-a-helper": (
        """
class Norm(torch.nn.Module):
    def __init__(self, subtract_last=False):
        super().__init__()
        self.subtract_last = subtract_last

    def forward(self, x):
        self._statistics(x)
        return self._normalize(x)

    def _statistics(self, x):
        if self.subtract_last:
            self.last = x[:, -1:, :]
        else:
            self.mean = x.mean(1, keepdim=True).detach()

    def _normalize(self, x):
        if self.subtract_last:
            return x - self.last
        else:
            return x - self.mean
""",
        "mean",
        [{}, {"subtract_last": True}],
        False,
    ),
    "negated-test-read-in-forward": (
        """
class Norm(torch.nn.Module):
    def __init__(self, plain=False):
        super().__init__()
        self.plain = plain

    def forward(self, x):
        self._statistics(x)
        if self.plain:
            return x
        return x / self.scale

    def _statistics(self, x):
        if not self.plain:
            self.scale = x.abs().amax(1, keepdim=True) + 1.0
""",
        "scale",
        [{}, {"plain": True}],
        False,
    ),
    "elif-chain-on-a-string-setting-tuple-unpacked": (
        """
class Norm(torch.nn.Module):
    def __init__(self, center="mean"):
        super().__init__()
        self.center = center

    def forward(self, x):
        self.prepare(x)
        return self.apply_centre(x)

    def prepare(self, x):
        if self.center == "last":
            self.ref = x[:, -1:, :]
        elif self.center == "mean":
            self.ref, self.spread = x.mean(1, keepdim=True), x.std(1, keepdim=True) + 1e-5

    def apply_centre(self, x):
        if self.center == "last":
            return x - self.ref
        elif self.center == "mean":
            return (x - self.ref) / self.spread
        return x
""",
        "spread",
        [{}, {"center": "last"}, {"center": "none"}],
        False,
    ),
    "written-on-both-branches-read-on-one": (
        """
class Norm(torch.nn.Module):
    def __init__(self, independent=0):
        super().__init__()
        self.independent = independent

    def forward(self, x):
        if self.independent == 1:
            self.feature = x.flip(1)
        else:
            self.feature = x.mean(1, keepdim=True)
        return self._mix(x)

    def _mix(self, x):
        if self.independent == 1:
            return x + self.feature
        return x * 2
""",
        "feature",
        [{}, {"independent": 1}],
        False,
    ),
    # counter-spellings: the same tests, but the read meets the previous call's value
    "read-before-the-write-on-its-path": (
        """
class Norm(torch.nn.Module):
    def __init__(self, subtract_last=False):
        super().__init__()
        self.subtract_last = subtract_last
        self.mean = torch.zeros(2, 1, 4)

    def forward(self, x):
        if not self.subtract_last:
            out = x - self.mean
        else:
            out = x
        self._statistics(x)
        return out

    def _statistics(self, x):
        if not self.subtract_last:
            self.mean = x.mean(1, keepdim=True).detach()
""",
        "mean",
        [{}],
        True,
    ),
    "read-before-the-write-on-the-same-branch": (
        """
class Norm(torch.nn.Module):
    def __init__(self, independent=1):
        super().__init__()
        self.independent = independent
        self.feature = torch.zeros(2, 1, 4)

    def forward(self, x):
        out = x * 2
        if self.independent == 1:
            out = x + self.feature
        if self.independent == 1:
            self.feature = x.mean(1, keepdim=True)
        return out
""",
        "feature",
        [{}],
        True,
    ),
    "test-on-state-the-call-flips": (
        """
class Norm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.flag = False
        self.mean = torch.zeros(2, 1, 4)

    def forward(self, x):
        self._statistics(x)
        self.flag = not self.flag
        if self.flag:
            return x - self.mean
        return x

    def _statistics(self, x):
        if self.flag:
            self.mean = x.mean(1, keepdim=True).detach()
""",
        "mean",
        [{}],
        True,
    ),
}


@pytest.mark.parametrize("name", MODULES)
def test_severity_says_whether_the_next_call_reads_the_state(name: str, tmp_path: Path) -> None:
    norm, attribute, settings, read_by_next_call = MODULES[name]
    program = "import torch\n" + textwrap.dedent(norm) + _PARENT
    found = [
        f
        for f in check_source(program, "model.py", Config())
        if f.code == "XPT406" and f.message.startswith(f"`self.{attribute}`")
    ]
    assert found, "XPT406 reports the write"
    expected = Severity.WARNING if read_by_next_call else Severity.INFO
    assert {f.severity for f in found} == {expected}, [f.message for f in found]
    module = load(program, tmp_path)
    for setting in settings:
        for strict in (False, True):
            first, *later = (torch.randn(2, 6, 4) * scale + scale for scale in (1, 3, 5))
            torch.manual_seed(0)
            exported_module = module.Model(**setting)
            eager = module.Model(**setting)
            eager.load_state_dict(exported_module.state_dict())
            exported = torch.export.export(exported_module, (first,), strict=strict).module()
            assert torch.allclose(exported(first), eager(first), atol=1e-5), (setting, strict)
            same = all([torch.allclose(exported(x), eager(x), atol=1e-5) for x in later])
            assert same != read_by_next_call, (setting, strict)


@pytest.mark.parametrize("order", ["helpers-first", "forward-first"])
def test_the_order_of_methods_and_files_does_not_matter(order: str) -> None:
    """The same module with its methods in another order, and alone in a file of its own (its
    parent elsewhere), gets the same findings."""
    norm = textwrap.dedent(MODULES["else-branch-read-by-a-helper"][0])
    head, forward, rest = norm.partition("    def forward(self, x):\n")
    forward_body, helpers_start, helpers = rest.partition("    def _statistics")
    if order == "helpers-first":
        norm = head + helpers_start + helpers + "\n" + forward + forward_body
    found = [
        f
        for f in check_source("import torch\n" + norm, "norm.py", Config())
        if f.code == "XPT406" and f.message.startswith("`self.mean`")
    ]
    assert {f.severity for f in found} == {Severity.INFO}, [f.message for f in found]
