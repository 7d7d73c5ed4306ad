"""A second `check` over an unchanged project is answered from the cache with the contexts the
first run settled on; any change sends it back through the project rounds. Either way the
findings are those of a cold run, including those only the project context finds (an error in
a helper another file's `forward` calls)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from xport_lint.analyzers.cache import unsealed

MODEL = """\
import torch
from .ops import keep_positive


class Net(torch.nn.Module):
    def forward(self, x):
        return keep_positive(x)
"""
UNUSED = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x * 2
"""
OPS = """\
def keep_positive(x):
    if x.sum() > 0:
        return x
    return -x
"""


def check(project: Path, *args: str) -> list[tuple[str, str, int]]:
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    result = subprocess.run(
        [exe, "check", "--format", "json", "--exit-zero", *args, "pkg"], cwd=project, capture_output=True, text=True,
        env={**os.environ, "NO_COLOR": "1"}, timeout=120, check=True,
    )
    return sorted((f["filename"], f["code"], f["location"]["row"]) for f in json.loads(result.stdout))


def settled_runs(cache: Path) -> int:
    """How many settled project runs the cache records (rows of the settled kind are JSON
    objects of path -> [context digest, findings]; a file's row holds a `findings` list, the
    files' stats row a `taken` time)."""
    with sqlite3.connect(cache / "findings-v3.sqlite3") as db:
        bodies = [json.loads(unsealed(body)) for (body,) in db.execute("SELECT body FROM findings")]
    return sum(1 for body in bodies if "findings" not in body and "taken" not in body)


def test_second_run_over_an_unchanged_project_equals_a_cold_run(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "pkg" / "ops.py").write_text(OPS)
    cache = tmp_path / "cache"
    cold = check(tmp_path, "--no-cache")
    # the error in ops.py is found only through model.py's call: the project rounds found it
    assert ("pkg/ops.py", "XPT101", 2) in cold

    assert check(tmp_path, "--cache-dir", str(cache)) == cold
    assert settled_runs(cache) == 1
    assert check(tmp_path, "--cache-dir", str(cache)) == cold  # from the settled run's contexts
    # --fix asks for the project's contexts, built then from the record: ops.py keeps its error
    # (its fix is unsafe), reported with the project context
    assert check(tmp_path, "--cache-dir", str(cache), "--fix") == cold

    # model.py no longer calls the helper: the record does not match, ops.py is clean again
    (tmp_path / "pkg" / "model.py").write_text(UNUSED)
    assert check(tmp_path, "--cache-dir", str(cache)) == check(tmp_path, "--no-cache") == []

    # and back: the first run's record serves again, with the first run's findings
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    assert check(tmp_path, "--cache-dir", str(cache)) == cold


SIZE_BRANCH = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 2:
            return x * 2
        return x
"""


def test_a_second_run_sees_what_the_configuration_says_of_input_dimensions(tmp_path: Path) -> None:
    """`shapes = "dynamic"` turns a branch on a size into a warning: the cached findings of the
    static default must not answer for it (nor the other way round)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(SIZE_BRANCH)
    cache = tmp_path / "cache"
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    assert check(tmp_path, "--cache-dir", str(cache)) == []
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nshapes = "dynamic"\n')
    assert check(tmp_path, "--cache-dir", str(cache)) == [("pkg/model.py", "XPT301", 6)]
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    assert check(tmp_path, "--cache-dir", str(cache)) == []


def test_a_file_rewritten_to_the_same_size_and_modification_time_is_read_again(tmp_path: Path) -> None:
    """A second run trusts a file's stat only as a whole (its change time included, which no one
    can set back) and only for files older than the run that recorded it: an edit that keeps the
    size and puts the modification time back is still seen, as is an edit just after a run."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "pkg").mkdir()
    model = tmp_path / "pkg" / "model.py"
    clean = UNUSED.replace("return x * 2", "return x * 10")
    model.write_text(clean)
    cache = tmp_path / "cache"
    assert check(tmp_path, "--cache-dir", str(cache)) == []
    assert check(tmp_path, "--cache-dir", str(cache)) == []
    before = model.stat()
    edited = clean.replace("return x * 10", "return int(x)")
    assert len(edited) == len(clean)
    model.write_text(edited)
    os.utime(model, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert check(tmp_path, "--cache-dir", str(cache)) == check(tmp_path, "--no-cache") == [("pkg/model.py", "XPT203", 6)]
    model.write_text(clean)
    assert check(tmp_path, "--cache-dir", str(cache)) == []


def test_a_second_run_over_an_unchanged_project_loads_no_rule(tmp_path: Path) -> None:
    """Answered from the record, a second run needs neither the rules nor the analysis: its
    process never imports them (they were most of its time)."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "pkg" / "ops.py").write_text(OPS)
    cache = tmp_path / "cache"
    first = check(tmp_path, "--cache-dir", str(cache))
    assert ("pkg/ops.py", "XPT101", 2) in first
    command = [sys.executable, "-X", "importtime", "-c", "from xport_lint.analyzers.cli import main; main()",
               "check", "--format", "json", "--exit-zero", "--cache-dir", str(cache), "pkg"]
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True)
    assert sorted((f["filename"], f["code"], f["location"]["row"]) for f in json.loads(again.stdout)) == first
    imported = {line.rpartition("|")[2].strip() for line in again.stderr.splitlines()}
    assert "xport_lint.analyzers.runner" not in imported
    assert not any(name.startswith("xport_lint.analyzers.rules.") for name in imported)
