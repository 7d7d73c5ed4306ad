"""What `--fix` writes, and what it must not: an edit saved during the run, a symlink, hard
links, a read-only file, another user's file. Then reading from stdin, file-level suppression,
the `[*]`/`[~]` marks everywhere, and a fix run that keeps each file's project context."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD, FIXABLE, run
from xport_lint.analyzers.files import read, write_back

FIXED = FIXABLE.replace("copy.deepcopy(x)", "x.clone()")
#: an export-failing branch with only an unsafe fix (torch.cond)
UNSAFE_ONLY = BAD


# --- an edit saved while the run goes on -------------------------------------------------------


def test_the_engine_does_not_write_over_an_edit_saved_after_the_read(tmp_path: Path) -> None:
    path = tmp_path / "snap.py"
    path.write_text(FIXABLE)
    source = read(str(path))
    edited = FIXABLE + "# saved in the editor while xport-lint was running\n"
    path.write_text(edited)
    problem = write_back(source, FIXED)
    assert problem is not None and "changed since it was read" in problem
    assert path.read_text() == edited


def test_the_engine_writes_when_the_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "snap.py"
    path.write_text(FIXABLE)
    assert write_back(read(str(path)), FIXED) is None
    assert path.read_text() == FIXED


RACED = '''\
import copy
from pathlib import Path
import torch
EDIT = "# saved in the editor while xport-lint was running\\n"
class Snap(torch.nn.Module):
    def forward(self, x):
        return copy.deepcopy(x) + 1
def xport_example():
    # runs while `--fix --confirm` proves the fix, between the read and the write: it stands
    # for an editor saving this file during the run
    original = Path(__file__).with_name("model.py")
    if EDIT not in original.read_text():
        original.write_text(original.read_text() + EDIT)
    return Snap(), (torch.randn(3),)
'''


@pytest.mark.torch
def test_fix_skips_a_file_edited_during_the_run_and_says_so(tmp_path: Path) -> None:
    """The fix is proven by re-exporting the fixed copy, which runs `xport_example()`: it edits
    model.py on disk after xport-lint read it. The edit is kept, the fix is not written."""
    model = tmp_path / "model.py"
    model.write_text(RACED)
    result = run("check", "--no-cache", "--fix", "--confirm", "model.py", cwd=tmp_path, timeout=600)
    text = model.read_text()
    assert text.endswith("# saved in the editor while xport-lint was running\n"), text
    assert "copy.deepcopy(x)" in text and "x.clone()" not in text
    assert "model.py: fix not written: the file changed since it was read" in result.stderr
    assert "fixed 0 files; 1 not written" in result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    assert "XPT407" in result.stdout  # still reported: it was not fixed


# --- the file stays the same file ------------------------------------------------------------


def test_fix_through_a_symlink_writes_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "snap.py"
    target.write_text(FIXABLE)
    link = tmp_path / "snap.py"
    link.symlink_to(target)
    result = run("check", "--fix", "snap.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "xport-lint: fixed 1 file" in result.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == FIXED


def test_fix_keeps_hard_links(tmp_path: Path) -> None:
    first = tmp_path / "snap.py"
    first.write_text(FIXABLE)
    second = tmp_path / "snap_copy.py"
    os.link(first, second)
    assert run("check", "--fix", "snap.py", cwd=tmp_path).returncode == 0
    assert os.stat(first).st_ino == os.stat(second).st_ino and os.stat(first).st_nlink == 2
    assert second.read_text() == FIXED


def test_fix_refuses_a_read_only_file_even_as_root(tmp_path: Path) -> None:
    path = tmp_path / "snap.py"
    path.write_text(FIXABLE)
    path.chmod(0o444)
    result = run("check", "--fix", "snap.py", cwd=tmp_path)
    assert "snap.py: fix not written: the file is read-only (mode 0444)" in result.stderr
    assert "fixed 0 files; 1 not written" in result.stderr
    assert path.read_text() == FIXABLE and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert result.returncode == 1 and "XPT407" in result.stdout


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_fix_as_root_keeps_another_users_file_theirs(tmp_path: Path) -> None:
    path = tmp_path / "snap.py"
    path.write_text(FIXABLE)
    os.chown(path, 1000, 1000)
    path.chmod(0o640)
    assert run("check", "--fix", "snap.py", cwd=tmp_path).returncode == 0
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1000, 1000, 0o640)
    assert path.read_text() == FIXED


# --- stdin -------------------------------------------------------------------------------------


def test_stdin_is_checked_under_the_name_given(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nper-file-ignores = { "tests/*" = ["XPT1"] }\n')
    result = run("check", "-", "--stdin-filename", "pkg/model.py", cwd=tmp_path, stdin=BAD)
    assert result.returncode == 1 and "pkg/model.py:4:12: XPT101" in result.stdout
    # the configuration applies by that name
    ignored = run("check", "-", "--stdin-filename", "tests/model.py", cwd=tmp_path, stdin=BAD)
    assert ignored.returncode == 0 and "All checks passed!" in ignored.stdout


def test_stdin_with_fix_prints_the_fixed_text_and_reports_on_stderr(tmp_path: Path) -> None:
    result = run("check", "--fix", "--stdin-filename", "snap.py", cwd=tmp_path, stdin=FIXABLE)
    assert result.returncode == 0 and result.stdout == FIXED
    assert "All checks passed!" in result.stderr
    unfixable = run("check", "--fix", "-", "--stdin-filename", "gate.py", cwd=tmp_path, stdin=BAD)
    assert unfixable.returncode == 1 and unfixable.stdout == BAD and "gate.py:4:12: XPT101" in unfixable.stderr
    assert not list(tmp_path.iterdir())  # nothing written


def test_stdin_with_diff_and_json(tmp_path: Path) -> None:
    diff = run("check", "--diff", "-", cwd=tmp_path, stdin=FIXABLE)
    assert diff.returncode == 1 and "+        return x.clone() + 1  # keep this comment" in diff.stdout
    (item,) = json.loads(run("check", "--format", "json", "-", "--stdin-filename", "m.py", cwd=tmp_path,
                             stdin=BAD).stdout)
    assert item["filename"] == "m.py" and item["code"] == "XPT101"


def test_stdin_cannot_be_mixed_with_paths(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(BAD)
    result = run("check", "-", "a.py", cwd=tmp_path, stdin=BAD)
    assert result.returncode == 2 and "cannot be combined with other paths" in result.stderr


# --- file-level suppression --------------------------------------------------------------------

DEBUGGED = """\
import torch
class Gate(torch.nn.Module):
    def forward(self, x):
        print(x)
        if x.sum() > 0:
            return x
        return -x
"""


def test_file_level_noqa_silences_the_whole_file_or_the_codes_listed(tmp_path: Path) -> None:
    (tmp_path / "all.py").write_text(DEBUGGED + "# xport-lint: noqa\n")
    assert run("check", "all.py", cwd=tmp_path).returncode == 0
    (tmp_path / "some.py").write_text(DEBUGGED.replace("import torch\n", "import torch\n# xport-lint: noqa: XPT101\n"))
    codes = [f["code"] for f in json.loads(run("check", "--format", "json", "some.py", cwd=tmp_path).stdout)]
    assert codes == ["XPT404"]


def test_file_level_noqa_inside_a_string_is_not_a_suppression(tmp_path: Path) -> None:
    (tmp_path / "doc.py").write_text('NOTE = """\n# xport-lint: noqa\n"""\n' + DEBUGGED)
    codes = {f["code"] for f in json.loads(run("check", "--format", "json", "doc.py", cwd=tmp_path).stdout)}
    assert codes == {"XPT101", "XPT404"}


def test_unused_suppression_reports_file_level_codes_nothing_raises(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(DEBUGGED.replace("import torch\n", "import torch\n# xport-lint: noqa: XPT101, XPT203\n"))
    result = run("check", "--format", "json", "--extend-select", "XPT001", "m.py", cwd=tmp_path)
    unused = [(f["location"]["row"], f["message"]) for f in json.loads(result.stdout) if f["code"] == "XPT001"]
    assert unused == [(2, "unused suppression for XPT203")]


# --- one meaning for [*] and [~] -----------------------------------------------------------------


def test_statistics_and_rules_mark_fixes_as_check_does(tmp_path: Path) -> None:
    """`[*]`: `--fix` applies the fix (safe); `[~]`: it needs `--unsafe-fixes`."""
    (tmp_path / "gate.py").write_text(UNSAFE_ONLY)
    (tmp_path / "snap.py").write_text(FIXABLE)
    checked = run("check", ".", cwd=tmp_path).stdout
    assert "XPT101 [~]" in checked and "XPT407 [*]" in checked
    stats = run("check", "--statistics", ".", cwd=tmp_path).stdout
    assert "XPT101\t[~] tensor-branch" in stats and "XPT407\t[*] tensor-identity" in stats
    rules = {line.split()[0]: line for line in run("rules", cwd=tmp_path).stdout.splitlines() if line.startswith("XPT")}
    assert rules["XPT101"].startswith("XPT101 [~]") and rules["XPT102"].startswith("XPT102 [~]")
    assert rules["XPT407"].startswith("XPT407 [*]") and rules["XPT205"].startswith("XPT205    ")
    listed = {row["code"]: row for row in json.loads(run("rules", "--format", "json", cwd=tmp_path).stdout)}
    assert listed["XPT407"]["fix_applicability"] == ["safe"] and listed["XPT102"]["fix_applicability"] == ["unsafe"]


# --- a fix run keeps the project --------------------------------------------------------------


def make_package(root: Path, forward_body: str = "return keep_positive(x)") -> Path:
    """pkg/model.py's `forward` calls `keep_positive` in pkg/ops.py, which branches on a tensor:
    an export error that only the project context finds (ops.py alone traces nothing)."""
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(
        "import copy\nimport torch\nfrom pkg.ops import keep_positive\n\n"
        f"class Model(torch.nn.Module):\n    def forward(self, x):\n        {forward_body}\n"
    )
    (package / "ops.py").write_text("def keep_positive(x):\n    if x.sum() > 0:\n        return x\n    return -x\n")
    return package


def test_fix_keeps_the_error_another_files_forward_reaches(tmp_path: Path) -> None:
    make_package(tmp_path)
    for _ in range(2):  # cold, then from the cache
        result = run("check", "--fix", "pkg", cwd=tmp_path)
        assert result.returncode == 1, result.stdout
        assert "pkg/ops.py:2:8: XPT101" in result.stdout and "All checks passed" not in result.stdout


def test_fix_that_writes_a_file_rechecks_it_with_its_project(tmp_path: Path) -> None:
    package = make_package(tmp_path, "return keep_positive(copy.deepcopy(x))")
    result = run("check", "--no-cache", "--fix", "pkg", cwd=tmp_path)
    assert "keep_positive(x.clone())" in (package / "model.py").read_text()
    assert result.returncode == 1 and "pkg/ops.py:2:8: XPT101" in result.stdout
    assert "XPT407" not in result.stdout


def test_unsafe_fixes_of_a_reached_helper_are_applied_with_its_context(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    result = run("check", "--no-cache", "--fix", "--unsafe-fixes", "pkg", cwd=tmp_path)
    assert "torch.cond(" in (package / "ops.py").read_text()
    assert result.returncode == 0 and "All checks passed!" in result.stdout
