"""Which classes are `nn.Module`s, whatever file their bases live in. A class with a `forward`
over a base imported from elsewhere is taken for a module while that base is unseen (a
`PreTrainedModel` of a library not linted); where the project shows the base chain ends at the
standard library (`abc.ABC`, `typing.Generic`: torch_geometric's data transforms), the class is
plain Python and export never takes it as a model. A module that calls such an object
(`self.norm(x)`, `self.norm.forward(x)`) still traces its methods, so their failures stay errors.
Checked in every order of the files, and the torch fact it rests on measured on torch 2.13."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package

BASE = """
from abc import ABC, abstractmethod


class BaseTransform(ABC):
    def __call__(self, data):
        return self.forward(data)

    @abstractmethod
    def forward(self, data):
        pass
"""

TRANSFORMS = """
import torch

from .base import BaseTransform


class Normalise(BaseTransform):
    def forward(self, data):
        scale = float(data.abs().max())  # line 8
        return data / scale
"""

MODEL = """
import torch
from torch import nn

from .transforms import Normalise


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Normalise()

    def forward(self, x):
        return CALL + 1
"""

FILES = ("__init__.py", "base.py", "transforms.py")


@pytest.mark.parametrize("order", list(itertools.permutations(FILES)))
def test_a_forward_over_a_standard_library_base_of_another_file_is_no_module(
    tmp_path: Path, order: tuple[str, ...]
) -> None:
    package = write_package(tmp_path, {"__init__.py": "", "base.py": BASE, "transforms.py": TRANSFORMS})
    assert errors_of(package, order) == set()


@pytest.mark.parametrize("base", ["ABC", "abc.ABC", "Generic[T]", "object"])
def test_a_forward_over_a_standard_library_base_of_the_same_file_is_no_module(tmp_path: Path, base: str) -> None:
    source = f"""
        import abc
        from abc import ABC
        from typing import Generic, TypeVar

        import torch

        T = TypeVar("T")


        class Normalise({base}):
            def forward(self, data):
                return data / float(data.abs().max())
    """
    package = write_package(tmp_path, {"__init__.py": "", "transforms.py": source})
    assert errors_of(package, ("__init__.py", "transforms.py")) == set()


@pytest.mark.parametrize("call", ["self.norm(x)", "self.norm.forward(x)"])
@pytest.mark.parametrize("order", list(itertools.permutations(["base.py", "transforms.py", "model.py"])))
def test_a_module_calling_such_an_object_traces_it(tmp_path: Path, call: str, order: tuple[str, ...]) -> None:
    package = write_package(tmp_path, {
        "__init__.py": "", "base.py": BASE, "transforms.py": TRANSFORMS, "model.py": MODEL.replace("CALL", call),
    })
    assert errors_of(package, ("__init__.py", *order)) == {("transforms.py", 8)}


def test_a_forward_over_a_library_base_not_linted_stays_a_module(tmp_path: Path) -> None:
    source = """
        from lightning import LightningModule


        class Classifier(LightningModule):
            def forward(self, x):
                if x.sum() > 0:  # line 6
                    return x
                return -x
    """
    package = write_package(tmp_path, {"__init__.py": "", "model.py": source})
    assert errors_of(package, ("__init__.py", "model.py")) == {("model.py", 6)}


@pytest.mark.torch
def test_export_takes_only_modules() -> None:
    """The fact the rule rests on: torch.export refuses an object that is no `nn.Module`, so a
    plain class's `forward` runs under export only where a module calls it."""
    torch = pytest.importorskip("torch")

    class Normalise:
        def forward(self, data):  # pragma: no cover - never run: export refuses the object
            return data / float(data.abs().max())

    with pytest.raises(ValueError, match="nn.Module"):
        torch.export.export(Normalise(), (torch.randn(3),), strict=False)  # type: ignore[arg-type]
