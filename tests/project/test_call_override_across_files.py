"""A `__call__` override of a project base class (torch_geometric's `Aggregation.__call__` in
aggr/base.py, whose subclasses' `forward` live in other files) runs whenever a subclass module
is called: its first failing line is an error in the base class's file, in every order of the
files. Measured on torch 2.13: `Net` below fails non-strict export at `int(index.max())`
(tests/truth/test_call_override.py measures the spellings in one file)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package

BASE = '''
import torch


class Aggregation(torch.nn.Module):
    def __call__(self, x, index, dim_size=None):
        if dim_size is None:
            dim_size = int(index.max()) + 1
        return super().__call__(x, index, dim_size=dim_size)
'''
SUM = '''
from .base import Aggregation


class SumAggregation(Aggregation):
    def forward(self, x, index, dim_size=None):
        return x.new_zeros(dim_size, x.size(1)).index_add(0, index, x)
'''
MODEL = '''
import torch
from .sum import SumAggregation


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.aggr = SumAggregation()

    def forward(self, x, index):
        return self.aggr(x, index)
'''
FILES = {"__init__.py": "", "base.py": BASE, "sum.py": SUM, "model.py": MODEL}
SIZE_READ = BASE.lstrip("\n").splitlines().index("            dim_size = int(index.max()) + 1") + 1


@pytest.mark.parametrize("order", list(itertools.permutations(["base.py", "sum.py", "model.py"])))
def test_a_base_class_call_override_is_traced_in_every_order(tmp_path: Path, order: tuple[str, ...]) -> None:
    package = write_package(tmp_path, FILES)
    assert errors_of(package, ("__init__.py", *order)) == {("base.py", SIZE_READ)}
