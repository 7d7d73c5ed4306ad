"""`xport-lint repair` end to end: the real command on small project models, exported by real
torch in the same interpreter. Each kept step is a fix whose failure torch no longer reports and
whose exported program equals eager, on the example and on a second size of the dynamic dim."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

OPS = '''\
import torch


def keep_positive(x):
    boxes = x[x > 0]
    if boxes.numel() > 3:
        out = boxes.sum()
    else:
        out = boxes.mean()
    return out
'''
MODEL = '''\
import torch
from torch import nn

from .ops import keep_positive


class Head(nn.Module):
    def forward(self, x):
        total = keep_positive(x)
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        return y + total


def xport_example():
    return {"model": Head(), "args": (torch.randn(2, 8),),
            "dynamic_shapes": ({0: torch.export.Dim("batch")},)}
'''
BLOCKED = '''\
import torch
from torch import nn


class Count(nn.Module):
    def forward(self, x, idx):
        out = x
        for c in torch.unique(idx):
            out = out + c
        return out


def xport_example():
    return Count(), (torch.randn(4), torch.tensor([0, 1, 1, 2]))
'''


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _repair(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xport_lint.analyzers.cli", "repair", *args],
        cwd=project, capture_output=True, text=True, timeout=900,
    )


def test_repair_fixes_each_failure_where_torch_names_it_and_proves_the_result(tmp_path: Path) -> None:
    project = _project(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": MODEL})
    done = _repair(project, "pkg/model.py")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    # the first failure is in the helper the model calls, reached through a relative import
    assert lines[0].startswith("before: fails: GuardOnDataDependentSymNode")
    assert lines[1] == "  at pkg/ops.py:6 <- pkg/model.py:9"
    assert lines[2].startswith("step 1 [kept] XPT105 Rewrite as torch.cond") and lines[2].endswith("in pkg/ops.py")
    assert any(line.startswith("step 2 [kept] XPT101 Rewrite as torch.cond") for line in lines)
    assert "after: exports, equals eager on the example, equals eager on inputs (3, 8)" in lines
    # the whole diff, both files; nothing written without --write
    assert "+++ b/pkg/ops.py" in done.stdout and "+++ b/pkg/model.py" in done.stdout
    assert (project / "pkg/ops.py").read_text() == OPS and (project / "pkg/model.py").read_text() == MODEL

    written = _repair(project, "pkg/model.py", "--write")
    assert written.returncode == 0
    assert "torch.cond(boxes.numel() > 3" in (project / "pkg/ops.py").read_text()
    again = _repair(project, "pkg/model.py", "--format", "json")
    report = json.loads(again.stdout)
    assert report["before"]["equal"] and report["steps"] == [] and report["diff"] == ""


def test_repair_stops_at_a_blocker_and_says_what_to_do(tmp_path: Path) -> None:
    project = _project(tmp_path, {"count.py": BLOCKED})
    done = _repair(project, "count.py")
    assert done.returncode == 1
    assert "blocker: count.py:8:" in done.stdout
    assert "what to do: " in done.stdout
    assert "---" not in done.stdout  # no change kept, no diff
    assert (project / "count.py").read_text() == BLOCKED


PINNED_BY_A_BRANCH = '''\
import torch
from torch import nn


class Tile(nn.Module):
    def forward(self, x):
        if x.shape[0] == 4:
            return x * 2
        return x + 1


def xport_example():
    return {"model": Tile(), "args": (torch.randn(4, 3),),
            "dynamic_shapes": ({0: torch.export.Dim("batch")},)}
'''
PINNED_BY_A_RESHAPE = PINNED_BY_A_BRANCH.replace(
    "        if x.shape[0] == 4:\n            return x * 2\n        return x + 1\n", "        return x.reshape(4, 3) + 1\n"
)


def test_a_dim_torch_would_pin_is_kept_dynamic_by_fixing_the_line_that_pins_it(tmp_path: Path) -> None:
    project = _project(tmp_path, {"tile.py": PINNED_BY_A_BRANCH})
    done = _repair(project, "tile.py")
    assert done.returncode == 0, done.stdout
    assert "step 1 [kept] XPT301 Rewrite as torch.cond" in done.stdout
    assert "after: exports, equals eager on the example, equals eager on inputs (5, 3)" in done.stdout
    pinning = next(line for line in done.stdout.splitlines() if line.startswith("lines that may pin a dynamic dim: "))
    assert "tile.py:7 (guard Eq(" in pinning and "tile.py:7 (XPT301)" in pinning  # torch's guard, the finding
    assert "dynamic_shapes" not in "".join(line for line in done.stdout.splitlines() if line.startswith("+"))


def test_making_a_dim_static_is_the_labelled_last_resort(tmp_path: Path) -> None:
    project = _project(tmp_path, {"tile.py": PINNED_BY_A_RESHAPE})
    refused = _repair(project, "tile.py")
    assert refused.returncode == 1
    assert "torch would make dynamic_shapes[0][0] = 4 static" in refused.stdout
    assert "Last resort: `--allow-static`" in refused.stdout
    done = _repair(project, "tile.py", "--allow-static")
    assert done.returncode == 0
    assert "[kept] dynamic_shapes: make dynamic_shapes[0][0] = 4 static (last resort" in done.stdout
    assert "no dimension stayed dynamic" in done.stdout


def test_a_model_named_by_import_path_uses_its_configured_example(tmp_path: Path) -> None:
    model = PINNED_BY_A_BRANCH.split("\n\ndef xport_example")[0] + "\n"
    project = _project(tmp_path, {
        "shapes/__init__.py": "",
        "shapes/tile.py": model,
        "shapes/examples.py": "import torch\n\nfrom .tile import Tile\n\n\ndef tile():\n"
        '    return {"model": Tile(), "args": (torch.randn(4, 3),), "dynamic_shapes": ({0: torch.export.Dim("b")},)}\n',
    })
    (project / "pyproject.toml").write_text('[tool.xport-lint.examples]\n"shapes.tile.Tile" = "shapes.examples:tile"\n')
    done = _repair(project, "--model", "shapes.tile:Tile", "--format", "json")
    report = json.loads(done.stdout)
    # the line that pins the dim, from torch's own guard, gets its fix: the dim stays dynamic
    assert done.returncode == 0 and report["after"]["equal"], done.stdout
    assert report["pinning"][0].startswith("shapes/tile.py:7 (guard ")
    (step,) = report["steps"]
    assert step["path"] == "shapes/tile.py" and step["title"].startswith("XPT301 Rewrite as torch.cond")
