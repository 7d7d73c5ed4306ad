"""A helper of another file returns, to each caller, what that caller's arguments make of it: a
size that depends on data where the caller passes a masked selection, a plain tensor where it
passes an input. The helper's own findings see every caller's arguments (a join), but what it
returns is not the join: `norm(x)` of an input is not data-dependent because another file
normalises a masked selection with the same helper (Kornia's `_l2_normalize`, shared by SIFT's
descriptor, which indexes by `nonzero()`, and the matchers, which take inputs). Each caller's
file is checked as a project, in every order of the files."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers.config import Config
from xport_lint.analyzers.project import check_project

UTIL = """
def norm(x):
    return x / x.norm()


def first(x):
    return x
"""
SELECTS = """
import torch.nn as nn

from .util import first, norm


class Selects(nn.Module):
    def forward(self, x, levels):
        picked = x[(levels == 1).nonzero().flatten()]
        desc = norm(picked)
        if len(desc) == 0:  # a size that depends on data: an error here
            return x
        return first(picked)
"""
MATCHES = """
import torch.nn as nn

from .util import first, norm


def match(y):
    d = norm(y)
    if len(d) == 0:  # the input's own size: no error
        return y
    return first(d)


class Matches(nn.Module):
    def forward(self, y):
        return match(y)
"""
FILES = {"__init__.py": "", "util.py": UTIL, "selects.py": SELECTS, "matches.py": MATCHES}


@pytest.mark.parametrize("order", list(itertools.permutations(["util.py", "selects.py", "matches.py"])))
def test_each_caller_gets_back_what_its_own_arguments_make(tmp_path: Path, order: tuple[str, ...]) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in FILES.items():
        (package / name).write_text(textwrap.dedent(text).lstrip("\n"))
    files = [str(package / name) for name in ("__init__.py", *order)]
    checked = check_project(files, Config(), None, jobs=1)
    errors = {(Path(r.path).name, f.span.start.line) for r in checked.results for f in r.findings
              if f.severity.value == "error"}
    assert ("selects.py", 10) in errors
    assert not [e for e in errors if e[0] == "matches.py"], errors
