"""A function of another file that traced code calls only after a statement where export fails
is never reached by export: it stops at that statement (kornia's DEGENSAC helpers, called by
RANSAC's LM loop after `bool(finite.any())`). Its findings are warnings naming that statement, not
errors. Every traced call counts: a call before the failure, beside it in another branch, or from
a third file without one keeps the errors. Spellings: a function imported by name, one through
its module (`recovery.recover_twice`, which calls the first again), a method of a base class in
the other file called in a nested block. Checked in every order of the files.

Measured on torch 2.13, both modes: `Caller().eval()` below fails at `if x.sum() > 0:` (non-strict:
GuardOnDataDependentSymNode at caller.py:10; strict: "Data-dependent branching"); with that test
made static (`x.shape[0] > 0`) it fails in `recover` at `if int(x.sum()) > 3:`. In one file the
same holds for a helper and its own helpers (`SAME_FILE`: non-strict fails at line 23, strict with
"Data-dependent branching"; with `helper` called before line 23 too, or line 23 under
`if self.training:`, non-strict fails in `helper` at line 10)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.project import check_project

CALLER = """
import torch
from torch import nn

from . import recovery
from .recovery import RecoveryBase, recover


class Caller(RecoveryBase):
    def forward(self, x):
        if x.sum() > 0:  # where export fails
            x = x * 2
        x = recover(x)
        x = recovery.recover_twice(x)
        if x.shape[0] > 1:
            x = self.recover_method(x)
        return x
"""
RECOVERY = """
import torch


def recover(x):
    if int(x.sum()) > 3:
        return x * 2
    return x


def recover_twice(x):
    return recover(recover(x))


class RecoveryBase(torch.nn.Module):
    def recover_method(self, x):
        if x.max() > 1:
            return x / 2
        return x
"""
FILES = {"__init__.py": "", "caller.py": CALLER, "recovery.py": RECOVERY}
#: (file, line) of the code export reaches only after caller.py:10
AFTER_ONLY = {("recovery.py", 5), ("recovery.py", 16)}


def _found(tmp_path: Path, files: dict[str, str], order: tuple[str, ...]) -> dict[tuple[str, int], object]:
    package = write_package(tmp_path, files)
    checked = check_project([str(package / name) for name in ("__init__.py", *order)], Config(), None, jobs=1)
    return {(Path(r.path).name, f.span.start.line): f for r in checked.results for f in r.findings}


@pytest.mark.parametrize("order", list(itertools.permutations(["caller.py", "recovery.py"])))
def test_a_function_called_only_after_a_failure_is_not_where_export_fails(
    tmp_path: Path, order: tuple[str, ...]
) -> None:
    found = _found(tmp_path, FILES, order)
    errors = {place for place, f in found.items() if f.severity.value == "error"}  # type: ignore[attr-defined]
    assert errors == {("caller.py", 10)}
    for place in AFTER_ONLY:
        assert found[place].severity.value == "warning"  # type: ignore[attr-defined]
        assert "caller.py:10, whose failure export meets first" in found[place].message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "caller",
    [
        # the call runs before the failure
        CALLER.replace("        x = recover(x)\n", "").replace("            x = x * 2\n", "            x = x * 2\n")
        .replace("        if x.sum() > 0:", "        x = recover(x)\n        if x.sum() > 0:"),
        # the failure is in a branch the call does not follow
        CALLER.replace("        if x.sum() > 0:  # where export fails\n            x = x * 2\n",
                       "        if x.shape[0] > 2:\n            if x.sum() > 0:\n                x = x * 2\n"),
        # the earlier test is static: nothing fails first
        CALLER.replace("if x.sum() > 0:", "if x.shape[0] > 0:"),
        # a size test of data may pass where torch knows a bound (reach.CERTAIN_FAILURES)
        CALLER.replace("if x.sum() > 0:", "if x.nonzero().shape[0] > 0:"),
    ],
    ids=["call-before", "failure-in-a-branch", "no-failure", "size-test-first"],
)
def test_a_call_export_reaches_keeps_the_errors(tmp_path: Path, caller: str) -> None:
    package = write_package(tmp_path, {**FILES, "caller.py": caller})
    for order in itertools.permutations(["caller.py", "recovery.py"]):
        assert ("recovery.py", 5) in errors_of(package, ("__init__.py", *order))


def test_one_call_of_a_third_file_without_a_failure_keeps_the_errors(tmp_path: Path) -> None:
    plain = "from torch import nn\n\nfrom .recovery import recover\n\n\nclass Plain(nn.Module):\n" \
            "    def forward(self, x):\n        return recover(x)\n"
    package = write_package(tmp_path, {**FILES, "plain.py": plain})
    for order in itertools.permutations(["caller.py", "recovery.py", "plain.py"]):
        errors = errors_of(package, ("__init__.py", *order))
        assert ("recovery.py", 5) in errors and ("recovery.py", 16) not in errors


SAME_FILE = """
import torch
from torch import nn


def inner(x):
    return x[: int(x.max())]


def helper(x):
    if x.min() < 0:
        return x
    return inner(x)


class Model(nn.Module):
    def recover(self, x):
        if bool(x.any()):
            return x
        return x + 1

    def forward(self, x):
        (y, z) = (x * 2, x.sum())
        if z > 0:  # where export fails
            y = y + 1
        y = helper(y)
        if y.shape[0] > 1:
            y = self.recover(y)
        return y
"""


@pytest.mark.parametrize(
    ("source", "errors"),
    [
        (SAME_FILE, {23}),
        # `helper` is also called before the failure: it and `inner` after it keep their errors
        (SAME_FILE.replace("        (y, z) = (x * 2, x.sum())", "        y = helper(x * 2)\n        z = x.sum()"),
         {10, 24}),
        # the earlier test is not a failure on every path (it runs only in training)
        (SAME_FILE.replace("        if z > 0:  # where export fails\n            y = y + 1\n",
                           "        if self.training:\n            if z > 0:\n                y = y + 1\n"),
         {10, 17}),
    ],
    ids=["after-the-failure", "called-before-too", "failure-only-in-training"],
)
def test_a_helper_of_the_same_file_called_only_after_a_failure(
    tmp_path: Path, source: str, errors: set[int]
) -> None:
    found = _found(tmp_path, {"__init__.py": "", "model.py": source}, ("model.py",))
    assert {line for (_, line), f in found.items() if f.severity.value == "error"} == errors  # type: ignore[attr-defined]
    if errors == {23}:
        for line in (10, 17):  # `helper` (and `inner` after its own failure, line 10), `Model.recover`
            assert "model.py:23, whose failure export meets first" in found[("model.py", line)].message  # type: ignore[attr-defined]
