"""A helper of another file that traced code calls only in an `except` handler runs only when the
`try` body raises (reach.HANDLER_ONLY): its data reads are warnings naming that, in every order of
the files; the same helper called on the default path is an error (tests/truth/test_except_handlers.py
measures the handler spellings on torch 2.13)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package

UTILS = '''
import torch


def explain(x, idx):
    if (idx < 0).any():
        raise IndexError("negative index")
    return x
'''
MODEL = '''
import torch
from .utils import explain


class Select(torch.nn.Module):
    def forward(self, x, idx):
        try:
            return x.index_select(0, idx)
        except (IndexError, RuntimeError):
            return explain(x, idx)
'''
FILES = {"__init__.py": "", "utils.py": UTILS, "model.py": MODEL}
DATA_TEST = UTILS.lstrip("\n").splitlines().index("    if (idx < 0).any():") + 1


@pytest.mark.parametrize("order", list(itertools.permutations(["utils.py", "model.py"])))
def test_a_helper_called_only_in_a_handler_is_no_error(tmp_path: Path, order: tuple[str, ...]) -> None:
    package = write_package(tmp_path, FILES)
    assert errors_of(package, ("__init__.py", *order)) == set()


@pytest.mark.parametrize("order", list(itertools.permutations(["utils.py", "model.py"])))
def test_the_same_helper_on_the_default_path_is_an_error(tmp_path: Path, order: tuple[str, ...]) -> None:
    called = MODEL.replace("            return x.index_select(0, idx)", "            return explain(x, idx)")
    package = write_package(tmp_path, {**FILES, "model.py": called})
    assert errors_of(package, ("__init__.py", *order)) == {("utils.py", DATA_TEST)}
