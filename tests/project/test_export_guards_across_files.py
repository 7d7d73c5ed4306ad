"""An export guard defined in another file decides its callers' branches: a module-level name bound
to `getattr(torch.compiler, "is_compiling", None)`, functions returning it (kornia's
`core/utils.py`: `is_compiling`, `is_exporting` behind `torch.jit.is_scripting()`), a wrapper of
that wrapper in a third file, a method of a base class in the guards' file, and a helper that
returns False under `is_compiling()` before it reads data (kornia's
`_needs_convolution_for_extreme_cpu_values`). The project index carries what each function
returns while exporting (`FunctionSummary.exporting`); code a default export never runs gets no
finding, and the one block that does run under the guard stays an error, in every order of the
files (measured on torch 2.13: tests/truth/test_reachability.py)."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers.config import Config
from xport_lint.analyzers.project import check_project

GUARDS = """
import torch

_torch_is_compiling = getattr(torch.compiler, "is_compiling", None) or getattr(torch._dynamo, "is_compiling", None)
_torch_is_exporting = getattr(torch.compiler, "is_exporting", None)


def is_compiling() -> bool:
    return bool(_torch_is_compiling()) if _torch_is_compiling is not None else False


def _is_exporting_eager() -> bool:
    if _torch_is_exporting is not None:
        return bool(_torch_is_exporting())
    return is_compiling()


def is_exporting() -> bool:
    if torch.jit.is_scripting():
        return False
    return _is_exporting_eager()


def needs_fallback(x: torch.Tensor, terms: int) -> bool:
    if x.device.type != "cpu" or terms <= 1 or is_compiling():
        return False
    return not (x.abs().max().item() <= 1e30)


class Base(torch.nn.Module):
    def _capturing(self) -> bool:
        return is_exporting()
"""
WRAPPERS = """
from . import utils


def capturing():
    return utils.is_compiling()
"""
MODEL = """
import torch

from . import utils
from .utils import Base, is_compiling, is_exporting, needs_fallback
from .wrappers import capturing


class M(Base):
    def forward(self, x):
        if not is_exporting():
            if x.sum() > 0:
                raise ValueError("positive")
        if utils.is_compiling():
            y = x
        else:
            y = x[: int(x.max())]
        exporting = is_exporting()
        if not exporting and x.mean() > 0:
            y = y * 2
        if needs_fallback(x, 3):
            y = y[: int(x.min())]
        if not self._capturing():
            y = y[: int(x.max())]
        if capturing():
            y = y + 1
        else:
            y = y[: int(x.max())]
        if is_compiling():
            n = int(x.argmax())  # runs while exporting: the first line export fails on
            y = y * n
        return y
"""
#: the line of MODEL export fails on (non-strict), the only error
RUNS_WHILE_EXPORTING = 29
FILES = {"__init__.py": "", "utils.py": GUARDS, "wrappers.py": WRAPPERS, "model.py": MODEL}


def write_package(folder: Path, files: dict[str, str]) -> Path:
    """`files` as the package `pkg` in `folder`."""
    package = folder / "pkg"
    package.mkdir(parents=True)
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return package


def errors_of(package: Path, order: tuple[str, ...]) -> set[tuple[str, int]]:
    """(file, line) of each error of the package checked as a project, its files in `order`."""
    checked = check_project([str(package / name) for name in order], Config(), None, jobs=1)
    return {(Path(r.path).name, f.span.start.line) for r in checked.results for f in r.findings
            if f.severity.value == "error"}


@pytest.mark.parametrize("order", list(itertools.permutations(["utils.py", "wrappers.py", "model.py"])))
def test_guards_of_another_file_decide_branches_in_every_order(tmp_path: Path, order: tuple[str, ...]) -> None:
    package = write_package(tmp_path, FILES)
    assert errors_of(package, ("__init__.py", *order)) == {("model.py", RUNS_WHILE_EXPORTING)}


def test_a_helper_reading_data_without_a_guard_is_still_an_error_at_its_call(tmp_path: Path) -> None:
    unguarded = GUARDS.replace(" or is_compiling()", "")
    package = write_package(tmp_path, {**FILES, "utils.py": unguarded})
    errors = errors_of(package, ("__init__.py", "model.py", "utils.py", "wrappers.py"))
    assert ("model.py", MODEL.lstrip("\n").splitlines().index("        if needs_fallback(x, 3):") + 1) in errors


def test_a_name_rebound_at_module_level_is_no_guard(tmp_path: Path) -> None:
    """Bound twice, the second time to a test False while exporting: `is_exporting()` is False."""
    rebound = GUARDS + "\n\n_torch_is_exporting = torch.jit.is_scripting\n"
    package = write_package(tmp_path, {**FILES, "utils.py": rebound})
    errors = errors_of(package, ("__init__.py", "utils.py", "wrappers.py", "model.py"))
    assert ("model.py", 11) in errors  # `if x.sum() > 0:` under `not is_exporting()`
