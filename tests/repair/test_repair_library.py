"""`xport-lint repair --allow PACKAGE` on failures inside library code.

A library file read on its own knows neither the model's `dynamic_shapes` nor that a helper of it
is traced (only other files call it). Where torch names the line, repair reads the file as torch
says the code runs there, and tries the rule's fix:
- a dim the model declares dynamic pinned by a loop: the file read as if every dim were dynamic;
  the state-space recurrence (rows of several tensors read by the counter, on different
  dimensions) becomes one scan, and the dim stays dynamic;
- a guard on a data-dependent size in a helper: the helper read as traced, its tensors sized by
  data; an early return for empty input becomes a `torch.cond` that keeps both paths.
Real CLI, real torch, a real package on the path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

LIBRARY = '''\
import torch
from torch import nn


class Recurrence(nn.Module):
    def forward(self, x, readout):
        batch, width, length = x.shape
        state = torch.zeros(batch, width)
        outputs = []
        for t in range(length):
            state = 0.9 * state + x[:, :, t]
            out = state * readout[:, t, :]
            outputs.append(out)
        out = torch.stack(outputs, dim=-1)
        return out
'''

CASE = '''\
import torch

from ssmlib import Recurrence


def xport_example():
    seq = torch.export.Dim("seq", min=2, max=64)
    return {"model": Recurrence(), "args": (torch.randn(2, 3, 5), torch.randn(2, 5, 3)),
            "dynamic_shapes": ({2: seq}, {1: seq})}
'''


BOXES = '''\
import torch


def class_offsets(boxes, idxs):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    top = boxes.max()
    return (idxs.to(boxes) * (top + 1)).long()
'''

DETECTOR = '''\
import torch
from torch import nn

from boxlib import class_offsets


class Head(nn.Module):
    def forward(self, boxes, idxs):
        keep = boxes[:, 0] > 0
        return class_offsets(boxes[keep], idxs[keep])


def xport_example():
    return Head(), (torch.tensor([[1.0, 2.0], [-1.0, 0.5], [3.0, 1.0]]), torch.tensor([0, 1, 2]))
'''


def _repair_with_library(tmp_path: Path, package: str, library: str, case: str) -> tuple[dict, Path]:
    """Repair `case.py` with `package` (the file `library`) allowed; the report and the package's folder."""
    site = tmp_path / "site"
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text(library)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "case.py").write_text(case)
    done = subprocess.run(
        [sys.executable, "-m", "xport_lint.analyzers.cli", "repair", "case.py", "--allow", package,
         "--format", "json"],
        cwd=project, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PYTHONPATH": str(site)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout), site / package


def test_a_library_loop_that_pins_a_dynamic_dim_becomes_a_scan(tmp_path: Path) -> None:
    report, package = _repair_with_library(tmp_path, "ssmlib", LIBRARY, CASE)
    assert "Constraints violated (seq)" in report["before"]["evidence"]
    (step,) = report["steps"]
    assert step["kept"] and step["title"].startswith("XPT302 Rewrite as a scan over the dimension")
    assert step["path"] == "ssmlib/__init__.py"
    assert "readout.narrow(1, 0, length).movedim(1, 0)" in step["diff"]
    # outputs equal eager on the example and on a second length: the dim stayed dynamic
    assert report["after"]["equal"] and "equals eager on inputs" in report["after"]["evidence"]
    # the static last resort torch's first answer led to is no advice once the model exports
    assert report["blocker"] is None and report["advice"] is None
    # nothing is written without --write, and the package on the path is untouched
    assert (package / "__init__.py").read_text() == LIBRARY


def test_an_empty_input_check_in_a_library_helper_becomes_a_cond_keeping_both_paths(tmp_path: Path) -> None:
    report, package = _repair_with_library(tmp_path, "boxlib", BOXES, DETECTOR)
    assert "GuardOnDataDependentSymNode" in report["before"]["evidence"]
    assert report["before"]["failure"]["line"] == 5  # `if boxes.numel() == 0:` in the helper
    (step,) = report["steps"]
    assert step["kept"] and step["title"].startswith("XPT105 Rewrite as torch.cond")
    assert "return torch.cond(boxes.numel() == 0, true_fn, false_fn, (boxes, idxs))" in step["diff"]
    assert report["after"]["equal"]
    assert (package / "__init__.py").read_text() == BOXES
