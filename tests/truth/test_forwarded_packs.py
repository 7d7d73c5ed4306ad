"""A `forward(x, *args, **kwargs)` that hands its packs on (`self.p_losses(img, t, *args,
**kwargs)`, denoising-diffusion; ultralytics' `self.predict(x, *args, **kwargs)`): a default
export passes only the example's inputs, the ones the model requires, so the packs fill only the
callee's parameters without a default, and one defaulting to None keeps it (`offset_noise_strength
= default(None, self.offset_noise_strength)`, a float from `__init__`; `embed=None`, a list of
layer indices). Spellings: a method through a `default()` helper, `**kwargs` alone through two
methods, a free helper of the same file, one in another file, a `forward(*inputs)` whose pack
holds the example's input. Near misses keep their error: a branch on the required input's data,
and an export call of the file that fills the pack with a tensor. Measured on torch 2.13: every
default module exports in both modes; each near miss fails in both."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package
from tests.truth.harness import exports as export_runs
from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

DEFAULT = '''
import torch


def default(val, d):
    return val if val is not None else d
'''
SPELLINGS = {
    "method-through-default": DEFAULT + '''

class M(torch.nn.Module):
    def __init__(self, strength=0.0):
        super().__init__()
        self.strength = strength
        self.lin = torch.nn.Linear(4, 4)

    def losses(self, x, noise=None, strength=None, reduction="mean"):
        strength = default(strength, self.strength)
        noise = default(noise, torch.zeros_like(x))
        if strength > 0.0:
            noise = noise + strength
        out = self.lin(x) + noise
        return out if reduction == "none" else out.mean()

    def forward(self, x, *args, reduction="mean", **kwargs):
        return self.losses(x, *args, reduction=reduction, **kwargs)
''',
    "kwargs-through-two-methods": DEFAULT + '''

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x, **kwargs):
        return self.predict(x, **kwargs)

    def predict(self, x, profile=False, embed=None):
        return self._predict_once(x, profile, embed)

    def _predict_once(self, x, profile=False, embed=None):
        embed = frozenset(embed) if embed else {-1}
        last = max(embed)
        for layer in self.layers:
            x = layer(x)
        return x if last == -1 else x.mean()
''',
    "free-helper": DEFAULT + '''

def losses(lin, x, strength=None):
    strength = default(strength, 0.0)
    if strength > 0.0:
        x = x + strength
    return lin(x)


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, *args):
        return losses(self.lin, x, *args)
''',
    "pack-holds-the-input": DEFAULT + '''

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def losses(self, x, strength=None):
        strength = default(strength, 0.0)
        if strength > 0.0:
            x = x + strength
        return self.lin(x)

    def forward(self, *inputs):
        return self.losses(*inputs)
''',
}
#: the data branch each near miss adds on the required input, before the helper's return
DATA_BRANCH = "        if x.sum() > 0:\n            x = x * 2\n"


def exports(source: str, folder: Path, strict: bool) -> bool:
    return export_runs(load(source, folder).M().eval(), (torch.randn(2, 4),), strict)


def errors(source: str) -> list[int]:
    return [f.span.start.line for f in check_source(source, "m.py", Config()) if f.severity is Severity.ERROR]


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_forwarded_pack_leaves_defaults_alone(spelling: str, tmp_path: Path) -> None:
    source = SPELLINGS[spelling].lstrip("\n")
    assert errors(source) == []
    for strict in (False, True):
        assert exports(source, tmp_path, strict)


@pytest.mark.parametrize("spelling", ["method-through-default", "pack-holds-the-input"])
def test_a_branch_on_the_required_input_stays_an_error(spelling: str, tmp_path: Path) -> None:
    source = SPELLINGS[spelling].lstrip("\n")
    test = "        if strength > 0.0:\n"
    branching = source.replace(test, DATA_BRANCH + test)
    assert errors(branching) == [branching.splitlines().index("        if x.sum() > 0:") + 1]
    for strict in (False, True):
        assert not exports(branching, tmp_path, strict)


def test_an_export_call_filling_the_pack_keeps_the_error(tmp_path: Path) -> None:
    source = SPELLINGS["method-through-default"].lstrip("\n") + (
        "\n\nprogram = torch.export.export(M().eval(), (torch.randn(2, 4), torch.zeros(2, 4), torch.tensor(0.5)))\n"
    )
    assert errors(source) == [source.splitlines().index("        if strength > 0.0:") + 1]
    module_source = source.rsplit("\n\nprogram =", 1)[0] + "\n"
    module = load(module_source, tmp_path)
    for strict in (False, True):
        with pytest.raises(Exception):  # noqa: B017, PT011 - any export failure is the fact checked
            torch.export.export(module.M().eval(), (torch.randn(2, 4), torch.zeros(2, 4), torch.tensor(0.5)),
                                strict=strict)


HELPERS = '''
def losses(lin, x, strength=None):
    strength = 0.0 if strength is None else strength
    if strength > 0.0:
        x = x + strength
    return lin(x)
'''
MODEL = '''
import torch
from .helpers import losses


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, *args, **kwargs):
        return losses(self.lin, x, *args, **kwargs)
'''


@pytest.mark.parametrize("order", list(itertools.permutations(["helpers.py", "model.py"])))
def test_a_helper_of_another_file_keeps_its_defaults_in_every_order(tmp_path: Path, order: tuple[str, ...]) -> None:
    package = write_package(tmp_path, {"__init__.py": "", "helpers.py": HELPERS, "model.py": MODEL})
    assert errors_of(package, ("__init__.py", *order)) == set()
