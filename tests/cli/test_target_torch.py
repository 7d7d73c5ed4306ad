"""The torch version findings speak for, through the real CLI: `--target-torch`, `target-torch`
in `[tool.xport-lint]`, and by default the torch installed in the interpreter running the CLI,
read from its package metadata (never imported). Two facts changed between torch 2.13 and 2.14
(measured on 2.13.0, 2.14.1 and 2.15.0): strict export refuses a user context-manager instance
built in `__init__` and `nn.Parameter`s kept in a plain dict on 2.13 only."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

INSTANCE = """\
import torch
class Scope:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scope = Scope()
    def forward(self, x):
        with self.scope:
            return x * 2
"""

PARAMETER_DICT = """\
import torch
from torch import nn
class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = {"a": nn.Parameter(torch.ones(4)), "b": nn.Parameter(torch.zeros(4))}
    def forward(self, x):
        return x * self.weights["a"] + self.weights["b"]
"""

PATTERNS = pytest.mark.parametrize(("source", "code"), [(INSTANCE, "XPT410"), (PARAMETER_DICT, "XPT408")],
                                   ids=["context-manager-instance", "parameter-dict"])


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    return subprocess.run([exe, "check", "--no-cache", "--format", "json", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "NO_COLOR": "1", **(env or {})}, timeout=120,
                          stdin=subprocess.DEVNULL)


def errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [f["code"] for f in json.loads(result.stdout) if f["severity"] == "error"]


def installed_as(folder: Path, torch_version: str) -> dict[str, str]:
    """An environment in which the interpreter's package metadata says torch `torch_version` is
    installed: a dist-info folder ahead of site-packages (no torch module: it must not be imported)."""
    info = folder / f"torch-{torch_version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {torch_version}\n")
    return {"PYTHONPATH": os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])}


@PATTERNS
def test_strict_export_refuses_it_on_2_13_and_not_on_2_15(source: str, code: str, tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(source)
    old = run("--strict", "--target-torch", "2.13", "model.py", cwd=tmp_path)
    new = run("--strict", "--target-torch", "2.15", "model.py", cwd=tmp_path)
    assert errors(old) == [code] and old.returncode == 1
    assert "torch 2.13" in json.loads(old.stdout)[0]["message"]
    assert errors(new) == []


@PATTERNS
def test_the_project_configuration_sets_the_target(source: str, code: str, tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nstrict = true\ntarget-torch = "2.14"\n')
    assert errors(run("model.py", cwd=tmp_path)) == []
    assert errors(run("--target-torch", "2.13", "model.py", cwd=tmp_path)) == [code], "the flag wins"


@PATTERNS
@pytest.mark.parametrize("installed", ["2.13.0", "2.15.0+cu132"])
def test_by_default_the_installed_torch_decides(source: str, code: str, installed: str, tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(source)
    result = run("--strict", "model.py", cwd=tmp_path, env=installed_as(tmp_path / "site", installed))
    assert errors(result) == ([code] if installed.startswith("2.13") else [])
    assert result.stderr == ""


def test_the_default_suite_judges_for_its_own_torch(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(INSTANCE)
    expected = errors(run("--strict", "--target-torch", version("torch"), "model.py", cwd=tmp_path))
    assert errors(run("--strict", "model.py", cwd=tmp_path)) == expected


def test_a_version_outside_the_measured_ones_is_said_once(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(INSTANCE)
    result = run("--strict", ".", cwd=tmp_path, env=installed_as(tmp_path / "site", "2.16.0"))
    assert result.stderr.count("torch 2.16") == 1, result.stderr
    assert "outside the versions" in result.stderr and "those of torch 2.15" in result.stderr
    assert errors(result) == [], "judged as the newest measured torch"


def test_a_target_that_is_no_version_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(INSTANCE)
    result = run("--target-torch", "latest", "model.py", cwd=tmp_path)
    assert result.returncode == 2 and "--target-torch: expected a torch version" in result.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\ntarget-torch = 2.14\n")
    result = run("model.py", cwd=tmp_path)
    assert result.returncode == 2 and "target-torch: expected a torch version" in result.stderr
