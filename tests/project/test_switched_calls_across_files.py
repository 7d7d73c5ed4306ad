"""A function of another file that traced code calls only under a configuration switch the
default leaves off inherits the switch: its findings (and its own helpers') are warnings naming
it, not errors (kornia's DEGENSAC helpers in `geometry/_degensac.py`, called by RANSAC only with
`degensac=True`). Every traced call counts: a helper a third file calls unswitched stays an error.
Spellings: a function imported by name, one through its module (`recovery.recover_twice`, which
calls the first again), a method of a base class in the other file. Checked in every order of the
files, and measured on torch 2.13 (tests/truth/test_reachability.py)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.project import check_project

SWITCHED = """
import torch
from torch import nn

from . import recovery
from .recovery import RecoveryBase, recover


class Ransac(RecoveryBase):
    def __init__(self, degensac: bool = False):
        super().__init__()
        self.degensac = degensac

    def forward(self, x):
        if self.degensac:
            x = recover(x)
        if self.degensac:
            x = recovery.recover_twice(x)
        if self.degensac:
            x = self.recover_method(x)
        if x.sum() > 0:  # runs by default: the error export fails on
            x = x * 2
        return x
"""
RECOVERY = """
import torch


def recover(x):
    if int(x.sum()) > 3:
        return x * 2
    return trim(x)


def recover_twice(x):
    return recover(recover(x))


def trim(x):
    return x[: int(x.max())]


class RecoveryBase(torch.nn.Module):
    def recover_method(self, x):
        if x.max() > 1:
            return x / 2
        return x
"""
PLAIN = """
from torch import nn

from .recovery import trim


class Plain(nn.Module):
    def forward(self, x):
        return trim(x)
"""
FILES = {"__init__.py": "", "switched.py": SWITCHED, "recovery.py": RECOVERY, "plain.py": PLAIN}
#: (file, line) of the code only `degensac=True` runs
SWITCHED_ONLY = {("recovery.py", 5), ("recovery.py", 20)}


@pytest.mark.parametrize("order", list(itertools.permutations(["switched.py", "recovery.py", "plain.py"])))
def test_a_function_called_only_under_a_switch_of_another_file_inherits_it(
    tmp_path: Path, order: tuple[str, ...]
) -> None:
    package = write_package(tmp_path, FILES)
    checked = check_project([str(package / name) for name in ("__init__.py", *order)], Config(), None, jobs=1)
    found = {(Path(r.path).name, f.span.start.line): f for r in checked.results for f in r.findings}
    errors = {place for place, f in found.items() if f.severity.value == "error"}
    assert errors == {("switched.py", 20), ("recovery.py", 15)}  # `trim` is called unswitched by Plain
    for place in SWITCHED_ONLY:
        assert found[place].severity.value == "warning" and "only with `degensac=True`" in found[place].message


def test_one_unswitched_call_in_another_file_keeps_the_errors(tmp_path: Path) -> None:
    plain = PLAIN.replace("trim", "recover")
    package = write_package(tmp_path, {**FILES, "plain.py": plain})
    errors = errors_of(package, ("__init__.py", "plain.py", "recovery.py", "switched.py"))
    # `trim` (line 15) runs only after line 5, where export fails first (measured on torch 2.13,
    # both modes: Plain's export fails at recovery.py:5; tests/project/test_calls_after_a_failure_across_files.py)
    assert ("recovery.py", 5) in errors and ("recovery.py", 15) not in errors
