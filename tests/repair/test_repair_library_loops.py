"""`xport-lint repair --allow PACKAGE` on a loop over a dynamic size inside library code.

A library file declares no `dynamic_shapes`, so linted on its own its shape loops are not known to
be dynamic. When torch says a dim the model declares dynamic is pinned at such a loop, repair
reads the library file as if every dim were dynamic and tries the loop's rewrite there: the
state-space recurrence (rows of several tensors read by the counter, on different dimensions)
becomes one scan, and the dim stays dynamic. Real CLI, real torch, a real package on the path.
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


def test_a_library_loop_that_pins_a_dynamic_dim_becomes_a_scan(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "ssmlib").mkdir(parents=True)
    (site / "ssmlib" / "__init__.py").write_text(LIBRARY)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "case.py").write_text(CASE)
    done = subprocess.run(
        [sys.executable, "-m", "xport_lint.analyzers.cli", "repair", "case.py", "--allow", "ssmlib",
         "--format", "json"],
        cwd=project, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PYTHONPATH": str(site)},
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
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
    assert (site / "ssmlib" / "__init__.py").read_text() == LIBRARY
