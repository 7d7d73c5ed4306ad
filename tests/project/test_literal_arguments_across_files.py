"""A function only other files' traced code calls takes the literal arguments those calls pass:
a branch no passed value (nor the default a call leaves) takes runs only with another argument,
a warning naming it (MONAI's `gaussian_1d`: the Bessel kernel of `approx="scalespace"`, where
GaussianFilter passes its default `approx="erf"` from `self.approx`). Spellings: a keyword
argument read from `self` (set in `__init__`), a positional literal through the module
(`kernels.gaussian_1d(s, 3, "sampled")`), a call leaving the default, the helper of the branch;
in every order of the files. A call passing the deciding value keeps the error."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.project import check_project

KERNELS = """
import torch


def gaussian_1d(sigma: torch.Tensor, truncated: float = 4.0, approx: str = "erf") -> torch.Tensor:
    x = torch.arange(-4, 5, dtype=torch.float)
    if approx.lower() == "erf":
        out = torch.exp(-x * x / (2 * sigma * sigma))
    elif approx.lower() == "sampled":
        out = torch.exp(-0.5 / (sigma * sigma) * x**2)
    elif approx.lower() == "scalespace":
        out = bessel(sigma * sigma) * x
    else:
        raise NotImplementedError(approx)
    return out / out.sum()


def bessel(x: torch.Tensor) -> torch.Tensor:
    if torch.abs(x) < 3.75:
        return x * 2
    return x / 2
"""
LAYERS = """
import torch
from torch import nn

from .kernels import gaussian_1d


class GaussianFilter(nn.Module):
    def __init__(self, sigma: float = 1.0, approx: str = "erf") -> None:
        super().__init__()
        self.sigma = torch.tensor(sigma)
        self.approx = approx

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kernel = gaussian_1d(x.std() * self.sigma, truncated=4.0, approx=self.approx)
        return x * kernel.sum()
"""
LOSSES = """
import torch
from torch import nn

from . import kernels


class Loss(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        smooth = kernels.gaussian_1d(torch.tensor(1.0))
        return x * kernels.gaussian_1d(torch.tensor(1.0), 3, "sampled").sum() * smooth.sum()
"""
FILES = {"__init__.py": "", "kernels.py": KERNELS, "layers.py": LAYERS, "losses.py": LOSSES}
#: `if torch.abs(x) < 3.75:` in `bessel`
BESSEL_TEST = ("kernels.py", 18)


@pytest.mark.parametrize("order", list(itertools.permutations(["kernels.py", "layers.py", "losses.py"])))
def test_a_branch_no_call_of_another_file_takes_is_a_warning_naming_the_argument(
    tmp_path: Path, order: tuple[str, ...]
) -> None:
    package = write_package(tmp_path, FILES)
    checked = check_project([str(package / name) for name in ("__init__.py", *order)], Config(), None, jobs=1)
    found = {(Path(r.path).name, f.span.start.line): f for r in checked.results for f in r.findings}
    assert found.keys() == {BESSEL_TEST}
    finding = found[BESSEL_TEST]
    assert finding.severity.value == "warning" and "only with another `approx`" in finding.message


@pytest.mark.parametrize(("file", "text"), [
    ("losses.py", LOSSES.replace('"sampled"', '"scalespace"')),
    ("layers.py", LAYERS.replace('approx: str = "erf"', 'approx: str = "scalespace"')),
])
def test_a_call_passing_the_deciding_value_keeps_the_error(tmp_path: Path, file: str, text: str) -> None:
    package = write_package(tmp_path, {**FILES, file: text})
    assert BESSEL_TEST in errors_of(package, ("__init__.py", "layers.py", "losses.py", "kernels.py"))
