"""Data-dependent values cross files: a tensor whose size a score filter decided, passed to a
helper of another file, makes that helper's size test an error; the same helper called with an
input of static size stays clean. Checked against real torch 2.13 in both modes."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers.config import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.model import Severity
from xport_lint.analyzers.project import check_project

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

OPS = """
import torch


def batched(boxes, scores, k: int):
    if boxes.numel() > k:
        return boxes[:k]
    return boxes * scores[:, None]
"""
MODEL = """
import torch

from .ops import batched


class {name}(torch.nn.Module):
    def forward(self, boxes, scores):
        {body}
"""
CASES = {
    "Detector": "keep = scores > 0.5\n        return batched(boxes[keep], scores[keep], 4)",
    "Plain": "return batched(boxes, scores, 4)",
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_data_dependent_argument_crosses_files(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / f"pkg_{name.lower()}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text(textwrap.dedent(OPS).lstrip())
    (package / "model.py").write_text(textwrap.dedent(MODEL).lstrip().format(name=name, body=CASES[name]))
    checked = check_project(discover([str(package)], ()), Config(), None, jobs=1)
    errors = [(Path(r.path).name, f.code) for r in checked.results for f in r.findings if f.severity is Severity.ERROR]
    monkeypatch.syspath_prepend(str(tmp_path))
    model = getattr(importlib.import_module(f"{package.name}.model"), name)()
    args = (torch.randn(6, 4), torch.tensor([0.9, 0.1, 0.8, 0.7, 0.2, 0.95]))
    for strict in (False, True):
        try:
            torch.export.export(model, args, strict=strict)
            failed = False
        except Exception:  # noqa: BLE001 - failing is the fact checked
            failed = True
        assert failed == bool(errors), (strict, errors)
    assert errors == ([("ops.py", "XPT105")] if name == "Detector" else [])
    sys.modules.pop(f"{package.name}.model", None)
