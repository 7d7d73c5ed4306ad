"""The real `xport-lint` command, as CI and pre-commit run it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).parents[2]
BAD = """\
import torch
class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x
"""
FIXABLE = """\
import copy
import torch
class Snap(torch.nn.Module):
    def forward(self, x):
        return copy.deepcopy(x) + 1  # keep this comment
"""
GOOD = "import torch\nclass Fine(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"
# The parts of the SARIF 2.1.0 schema that code scanning requires (the full schema is not
# reachable offline): version, tool.driver.name, results with ruleId/message/1-based regions.
SARIF_CORE = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {"rules": {"type": "array", "items": {
                        "type": "object", "required": ["id", "shortDescription"]}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "required": ["ruleId", "message", "locations", "level"],
                    "properties": {
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"]},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "required": ["artifactLocation", "region"],
                                "properties": {"region": {"type": "object", "required": ["startLine"],
                                    "properties": {"startLine": {"type": "integer", "minimum": 1},
                                                   "startColumn": {"type": "integer", "minimum": 1}}}}}}}},
                    }}},
            }}},
    },
}


def run(*args: str, cwd: Path, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def test_text_output_shows_location_code_and_caret(project: Path) -> None:
    result = run("check", "--no-cache", ".", cwd=project)
    assert result.returncode == 1
    assert "bad.py:4:12: XPT101" in result.stdout
    assert "    if x.sum() > 0:" in result.stdout and "^^^^^^^^^^^" in result.stdout
    assert "\x1b[" not in result.stdout  # no colour off a TTY


def test_clean_project_exits_zero(project: Path) -> None:
    (project / "bad.py").unlink()
    result = run("check", ".", cwd=project)
    assert result.returncode == 0, result.stdout
    assert "All checks passed" in result.stdout


def test_json_has_ruff_compatible_keys(project: Path) -> None:
    result = run("check", "--format", "json", ".", cwd=project)
    (item,) = json.loads(result.stdout)
    assert item["code"] == "XPT101" and item["filename"].endswith("bad.py")
    assert item["location"] == {"row": 4, "column": 12}
    assert item["end_location"]["row"] == 4
    assert item["severity"] == "error" and item["confirmation"] is None
    assert item["fix"]["applicability"] == "unsafe" and "torch.cond" in item["fix"]["message"]
    assert item["fix"]["edits"] and {"content", "location", "end_location"} <= set(item["fix"]["edits"][0])
    assert item["url"].endswith("#xpt101")


def test_sarif_is_valid(project: Path) -> None:
    result = run("check", "--format", "sarif", ".", cwd=project)
    sarif = json.loads(result.stdout)
    jsonschema.validate(sarif, SARIF_CORE)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "XPT101"


def test_github_annotations(project: Path) -> None:
    result = run("check", "--format", "github", ".", cwd=project)
    assert result.stdout.startswith("::error title=xport-lint (XPT101),file=")


def test_fix_applies_safe_fixes_and_keeps_comments(project: Path) -> None:
    (project / "snap.py").write_text(FIXABLE)
    diff = run("check", "--diff", "snap.py", cwd=project)
    assert diff.returncode == 1 and "+        return x.clone() + 1  # keep this comment" in diff.stdout
    assert (project / "snap.py").read_text() == FIXABLE
    fixed = run("check", "--fix", "snap.py", cwd=project)
    assert fixed.returncode == 0, fixed.stdout
    assert (project / "snap.py").read_text() == FIXABLE.replace("copy.deepcopy(x)", "x.clone()")


def test_unsafe_fixes_need_the_flag(project: Path) -> None:
    source = BAD.replace("if x.sum() > 0:\n            return x\n        return -x", "assert (x > 0).all()\n        return x")
    (project / "a.py").write_text(source)
    run("check", "--fix", "a.py", cwd=project)
    assert (project / "a.py").read_text() == source
    run("check", "--fix", "--unsafe-fixes", "a.py", cwd=project)
    assert "torch._assert_async((x > 0).all())" in (project / "a.py").read_text()


def test_select_ignore_and_statistics(project: Path) -> None:
    assert run("check", "--ignore", "XPT1", ".", cwd=project).returncode == 0
    assert run("check", "--select", "XPT4", ".", cwd=project).returncode == 0
    stats = run("check", "--statistics", ".", cwd=project)
    assert "XPT101" in stats.stdout and stats.returncode == 1
    assert run("check", "--exit-zero", ".", cwd=project).returncode == 0


def test_usage_errors_exit_two(project: Path) -> None:
    assert run("check", "--select", "NOPE", ".", cwd=project).returncode == 2
    (project / "pyproject.toml").write_text("[tool.xport-lint]\nselekt = ['XPT1']\n")
    result = run("check", ".", cwd=project)
    assert result.returncode == 2 and "selekt" in result.stderr


def test_config_from_pyproject(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.xport-lint]\nignore = ["XPT101"]\n')
    assert run("check", ".", cwd=project).returncode == 0


def test_gitignore_and_exclude_are_respected(project: Path) -> None:
    (project / ".gitignore").write_text("generated/\n")
    (project / "generated").mkdir()
    (project / "generated" / "m.py").write_text(BAD)
    (project / "bad.py").unlink()
    assert run("check", ".", cwd=project).returncode == 0


def test_bad_files_do_not_stop_the_run(project: Path) -> None:
    (project / "half.py").write_text("import torch\nclass M(torch.nn.Module):\n    def forward(self, x\n")
    (project / "latin.py").write_bytes(b"# coding: ascii\nx = '\xe9'\n")
    (project / "loop").symlink_to(project, target_is_directory=True)
    result = run("check", "--format", "json", ".", cwd=project)
    codes = sorted((Path(i["filename"]).name, i["code"]) for i in json.loads(result.stdout))
    assert codes == [("bad.py", "XPT101"), ("half.py", "XPT000"), ("latin.py", "XPT000")]
    assert "Traceback" not in result.stderr


def test_baseline_reports_only_new_findings(project: Path) -> None:
    assert run("check", "--write-baseline", "baseline.json", ".", cwd=project).returncode == 0
    assert run("check", "--baseline", "baseline.json", ".", cwd=project).returncode == 0
    (project / "new.py").write_text(BAD)
    result = run("check", "--baseline", "baseline.json", ".", cwd=project)
    assert result.returncode == 1 and "new.py" in result.stdout and "bad.py" not in result.stdout


def test_many_files_in_parallel_and_from_cache(project: Path, _private_cache: Path) -> None:
    for i in range(40):
        (project / f"m{i}.py").write_text(BAD if i % 2 else GOOD)
    first = run("check", "--format", "json", ".", cwd=project)
    second = run("check", "--format", "json", ".", cwd=project)
    assert len(json.loads(first.stdout)) == 21
    assert first.stdout == second.stdout
    # in the user's cache folder, never in the linted tree (a clone could ship one)
    assert list((_private_cache / "xport-lint").glob("*.sqlite3"))
    assert not list(project.rglob("*cache*"))


def test_rule_docs(project: Path) -> None:
    listing = run("rules", cwd=project)
    assert "XPT101" in listing.stdout and "tensor-branch" in listing.stdout
    doc = run("rule", "XPT101", cwd=project)
    assert "## Why it fails torch.export" in doc.stdout and "# expect" not in doc.stdout
    assert run("rule", "XPT999", cwd=project).returncode == 2


def test_repo_examples_are_linted_as_documented() -> None:
    result = run("check", "--no-cache", "examples", cwd=REPO)
    assert result.returncode == 1
    assert "clean_attention.py" not in result.stdout
    assert "detector_head.py:18:12: XPT105" in result.stdout


STATIC_EXPORT = """\
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return x * 2
program = torch.export.export(Net(), (torch.randn(2, 3),))
"""


def test_fail_on_sets_the_lowest_failing_severity(tmp_path: Path) -> None:
    """An info finding (the opt-in XPT503) is advice: exit 0 unless asked with --fail-on info."""
    (tmp_path / "net.py").write_text(STATIC_EXPORT)
    advised = run("check", "--no-cache", "--extend-select", "XPT503", "net.py", cwd=tmp_path)
    assert advised.returncode == 0 and "XPT503" in advised.stdout
    assert run("check", "--no-cache", "--extend-select", "XPT503", "--fail-on", "info", "net.py",
               cwd=tmp_path).returncode == 1
    (tmp_path / "bad.py").write_text(BAD)
    assert run("check", "--no-cache", "--fail-on", "error", "bad.py", cwd=tmp_path).returncode == 1


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", "missing.py", "bad.py", cwd=tmp_path)
    assert result.returncode == 2 and "no such file or folder: missing.py" in result.stderr
    assert "XPT000" not in result.stdout


def test_confirm_without_torch_says_what_is_missing_and_how(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", "--confirm", "--python", str(bare / "bin" / "python"), "bad.py", cwd=tmp_path)
    assert result.returncode == 2 and "cannot import torch" in result.stderr
    assert "pip install torch==2.13.0" in result.stderr and "--python" in result.stderr


def test_text_output_marks_fixable_findings_and_names_the_flags(tmp_path: Path) -> None:
    """`[*]` applies with --fix, `[~]` only with --unsafe-fixes; --diff alone says unsafe fixes exist."""
    (tmp_path / "gate.py").write_text(FIXABLE + "class Gate(torch.nn.Module):\n    def forward(self, x):\n"
                                      "        y = x * 2 if x.sum() > 0 else x\n        return y\n")
    result = run("check", "--no-cache", "gate.py", cwd=tmp_path)
    assert " [*] " in result.stdout and " [~] " in result.stdout
    assert "fixable with `xport-lint check --fix`" in result.stdout and "--unsafe-fixes" in result.stdout
    (tmp_path / "only_unsafe.py").write_text(
        "import torch\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n"
        "        y = x * 2 if x.sum() > 0 else x\n        return y\n"
    )
    diff = run("check", "--no-cache", "--diff", "only_unsafe.py", cwd=tmp_path)
    assert diff.stdout == "" and "unsafe ones exist" in diff.stderr
