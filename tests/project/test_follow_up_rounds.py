"""The project's follow-up rounds check a file again only where its new context differs in what
its last check read of it (index.ReadContext): the analysis is a function of the file's text
and of what it read, so a context that changed elsewhere gives the same findings and summary.
Checked against the rounds that re-check every file whose context changed at all."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

import pytest

from xport_lint.analyzers import workers, workspace
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.index import FileContext, ReadContext, Returned, read_changed
from xport_lint.analyzers.project import check_project
from xport_lint.analyzers.runner import check_file

MODEL = """
import torch

from . import helpers


class Model(torch.nn.Module):
    def forward(self, x):
        n = helpers.count(x)
        for _ in range(n):
            x = x + 1
        return helpers.scale(x)
"""

HELPERS = """
def count(t):
    return int(t.sum().item())


def scale(t):
    return t * 2


def unused(t):
    return t.sum().item()
"""

#: a second model reaching the helpers through a base class of another file: more rounds
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": HELPERS,
    "pkg/model.py": MODEL,
    "pkg/base.py": """
        import torch

        from .helpers import count


        class Base(torch.nn.Module):
            def steps(self, x):
                return count(x)
    """,
    "pkg/child.py": """
        from .base import Base


        class Child(Base):
            def forward(self, x):
                if self.steps(x) > 2:
                    return x
                return -x
    """,
}


def test_a_context_change_where_the_analysis_did_not_look_is_not_read() -> None:
    counted = Returned(("DATA",))
    context = FileContext(returns=(("helpers.count", counted),))
    noted = ReadContext(context)
    checked = check_file(textwrap.dedent(MODEL), "pkg/model.py", Config(), context=noted)
    assert ("returns", "helpers.count") in noted.reads and "returns" not in noted.reads
    # another callee's entry: not what this file asked about
    elsewhere = dataclasses.replace(context, returns=(*context.returns, ("helpers.unused", Returned(("DATA",)))))
    assert not read_changed(context, elsewhere, noted.reads)
    assert check_file(textwrap.dedent(MODEL), "pkg/model.py", Config(), context=elsewhere) == checked
    # what the called helper returns: read, and it changes the findings
    tensor = dataclasses.replace(context, returns=(("helpers.count", Returned(("TENSOR",))),))
    assert read_changed(context, tensor, noted.reads)
    assert check_file(textwrap.dedent(MODEL), "pkg/model.py", Config(), context=tensor) != checked


def test_a_field_read_as_a_whole_is_compared_as_a_whole() -> None:
    context = FileContext(module_classes=frozenset({"Other"}))
    noted = ReadContext(context)
    check_file("class Other:\n    pass\n", "pkg/other.py", Config(), context=noted)
    assert "module_classes" in noted.reads
    assert read_changed(context, FileContext(), noted.reads)


def write(root: Path) -> list[str]:
    for name, text in PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return discover([str(root)], ())


def test_the_rounds_give_what_re_checking_every_changed_context_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = write(tmp_path)
    checks: list[str] = []
    real_round = workers.check_round

    def counted_round(todo: list[str], *args: Any, **kwargs: Any) -> Any:
        checks.extend(todo)
        return real_round(todo, *args, **kwargs)

    monkeypatch.setattr(workspace, "check_round", counted_round)
    cut = check_project(files, Config(), None, jobs=1)
    cut_checks = list(checks)
    checks.clear()
    monkeypatch.setattr(workspace, "read_changed", lambda *_: True)  # every changed context re-checked
    every = check_project(files, Config(), None, jobs=1)
    assert [(r.path, r.findings) for r in cut.results] == [(r.path, r.findings) for r in every.results]
    assert {p: s.to_plain() for p, s in cut.summaries.items()} == {p: s.to_plain() for p, s in every.summaries.items()}
    assert any(r.findings for r in cut.results if r.path.endswith("helpers.py"))  # reached across files
    assert len(cut_checks) < len(checks)  # a file whose new context differs only where it did not look
