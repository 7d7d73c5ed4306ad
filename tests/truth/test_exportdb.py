"""torch's own ExportDB (torch/_export/db/examples, shipped with torch 2.13): every case is
linted as a user would lint it. Cases that export must carry no error; the one case ExportDB
marks as failing on a named Dim (`dynamic_shape_round`) is the only error."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from xport_lint.analyzers import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.model import Severity
from xport_lint.analyzers.project import check_project

pytestmark = pytest.mark.torch


def test_only_dynamic_shape_round_is_an_error() -> None:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed")
    folder = Path(spec.origin).parent / "_export" / "db" / "examples"
    files = [p for p in discover([str(folder)], ()) if not p.endswith("__init__.py")]
    assert len(files) >= 30
    checked = check_project(files, Config(), None, jobs=1)
    errors = sorted(
        (Path(r.path).name, f.code) for r in checked.results for f in r.findings if f.severity is Severity.ERROR
    )
    assert errors == [("dynamic_shape_round.py", "XPT303")]
