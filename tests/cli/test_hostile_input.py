"""Hostile and odd input, as an attacker or an unlucky user brings it: a cloned repository may
not make the static path run code, a fix keeps every byte it does not edit, and one bad file is
one finding while the other files are still reported."""

from __future__ import annotations

import ast
import faulthandler
import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD, GOOD, run
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.files import SourceFile
from xport_lint.analyzers.fixes import apply_fixes
from xport_lint.analyzers.runner import FileCheck
from xport_lint.analyzers.workers import check_isolated

ASSERTING = 'import torch\nclass Check(torch.nn.Module):\n    def forward(self, x):\n        assert (x > 0).all(), "neg{sep}ative"\n        return x\n'
BRANCHING = (
    "import torch\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n        if x.sum() > 0:\n"
    '            y = x * 2  # a{sep}b\n            s = "p{sep}q"\n        else:\n            y = x\n        return y\n'
)


class Payload:
    """Unpickling this runs `touch <marker>`: what a planted pickle cache could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def test_a_planted_pickle_cache_is_never_loaded(tmp_path: Path) -> None:
    """Older releases kept a pickle in `.xport-lint-cache/` of the project (or of the current
    folder): a repository could ship one and run code on `xport-lint check`."""
    marker = tmp_path / "pwned"
    (tmp_path / "bad.py").write_text(BAD)
    for folder in (tmp_path / ".xport-lint-cache", tmp_path / "sub" / ".xport-lint-cache"):
        folder.mkdir(parents=True)
        (folder / "findings.pickle").write_bytes(pickle.dumps({"engine": "x", "entries": Payload(marker)}))
    for cwd in (tmp_path, tmp_path / "sub"):
        result = run("check", str(tmp_path / "bad.py"), cwd=cwd)
        assert result.returncode == 1 and "XPT101" in result.stdout, result.stderr
    assert not marker.exists()


def test_a_corrupt_or_tampered_cache_is_a_miss(tmp_path: Path, _private_cache: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    assert run("check", ".", cwd=tmp_path).returncode == 1
    (database,) = (_private_cache / "xport-lint").glob("*.sqlite3")
    with sqlite3.connect(database) as db:  # well-formed rows that claim "no findings" or garbage
        db.execute("UPDATE findings SET body = ?", (json.dumps([{"code": 1}]),))
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 1 and "XPT101" in result.stdout and "Traceback" not in result.stderr
    database.write_bytes(b"not a database at all" * 100)
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 1 and "XPT101" in result.stdout and "Traceback" not in result.stderr


def test_a_cache_damaged_on_disk_is_a_miss(tmp_path: Path, _private_cache: Path) -> None:
    """Bytes flipped on disk: in a row's text (still valid JSON, so only the row's digest tells),
    or in the table's schema (its text no longer decodes as UTF-8)."""
    (tmp_path / "bad.py").write_text(BAD)
    expected = run("check", ".", cwd=tmp_path).stdout
    assert "XPT101" in expected
    (database,) = (_private_cache / "xport-lint").glob("*.sqlite3")
    original = database.read_bytes()
    assert original.count(b"XPT101") >= 1
    database.write_bytes(original.replace(b"XPT101", b"XPT102"))
    result = run("check", ".", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, expected) and "Traceback" not in result.stderr
    schema = original.index(b"CREATE TABLE findings")
    database.write_bytes(original[: schema + 7] + b"\x90" + original[schema + 8 :])
    result = run("check", ".", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, expected) and "Traceback" not in result.stderr
    assert "damaged" in result.stderr


def test_configuration_above_the_repository_is_not_read(tmp_path: Path) -> None:
    """A pyproject.toml in the folder that holds a checkout silenced every rule in it."""
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nignore = ["XPT"]\n')
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "bad.py").write_text(BAD)
    result = run("check", "bad.py", cwd=repo)
    assert result.returncode == 1 and "XPT101" in result.stdout
    # named explicitly, it applies
    assert run("check", "--config", str(tmp_path / "pyproject.toml"), "bad.py", cwd=repo).returncode == 0


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\x0c", "\x1c"])
def test_fixes_keep_string_literals_with_odd_line_breaks(separator: str) -> None:
    """`str.splitlines` breaks at these; Python does not. Re-indenting by it split a literal."""
    for template in (ASSERTING, BRANCHING):
        source = template.format(sep=separator)
        fixed = apply_fixes(source, check_source(source, "m.py", Config()), unsafe=True)
        assert fixed != source
        ast.parse(fixed)
        for literal in (f'"neg{separator}ative"', f'"p{separator}q"', f"# a{separator}b"):
            assert source.count(literal) == fixed.count(literal)


@pytest.mark.parametrize(
    ("encoding", "prefix", "newline"),
    [("latin-1", b"# -*- coding: latin-1 -*-\n", "\n"), ("utf-8", b"\xef\xbb\xbf", "\n"), ("utf-8", b"", "\r\n"),
     ("utf-8", b"", "\r")],
    ids=["latin-1-cookie", "utf-8-bom", "crlf", "cr"],
)
def test_fix_writes_back_in_the_files_own_encoding_bom_and_line_endings(
    tmp_path: Path, encoding: str, prefix: bytes, newline: str
) -> None:
    source = ASSERTING.format(sep="").replace('"negative"', '"négative — é"' if encoding != "latin-1" else '"négative é"')
    data = prefix + source.replace("\n", newline).encode(encoding)
    path = tmp_path / "check.py"
    path.write_bytes(data)
    result = run("check", "--fix", "--unsafe-fixes", "check.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    fixed = path.read_bytes()
    assert fixed.startswith(prefix)
    expected = data.replace(b"assert (x > 0).all(), ", b"torch._assert_async((x > 0).all(), ")
    expected = expected.replace("é\"".encode(encoding), "é\")".encode(encoding))
    assert fixed == expected
    assert run("check", "--fix", "--unsafe-fixes", "check.py", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == fixed  # idempotent


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("(" * 2000 + "x" + ")" * 2000, "syntax error: too many nested parentheses"),
        ("[" * 300 + "]" * 300, "syntax error: too many nested parentheses"),
        (
            "x" + ".relu()" * 3000,
            f"cannot compile: the expression on this line nests deeper than Python {sys.version_info.major}."
            f"{sys.version_info.minor} compiles (RecursionError: maximum recursion depth exceeded during compilation)",
        ),
    ],
    ids=["2000-parentheses", "300-deep-list", "3000-call-chain"],
)
def test_deep_nesting_is_one_finding_and_the_other_files_are_reported(
    tmp_path: Path, body: str, message: str
) -> None:
    """2,000 parentheses crashed libcst's native parser (the whole run exited 139)."""
    (tmp_path / "deep.py").write_text(f"import torch\nclass Deep(torch.nn.Module):\n    def forward(self, x):\n        return {body}\n")
    (tmp_path / "bad.py").write_text(BAD)
    for jobs in ("1", "2"):
        result = run("check", "--no-cache", "-j", jobs, "--format", "json", ".", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        found = {(Path(f["filename"]).name, f["code"], f["message"]) for f in json.loads(result.stdout)}
        assert ("deep.py", "XPT000", message) in found
        assert any(name == "bad.py" and code == "XPT101" for name, code, _ in found)


def crash_on_crash_py(paths: list[str], config: Config, contexts: dict) -> list[tuple[SourceFile, FileCheck]]:
    """A worker that dies the way a native crash kills it, on one file."""
    from xport_lint.analyzers.workers import _check_batch

    if any(p.endswith("crash.py") for p in paths):
        faulthandler.disable()  # pytest's handler would print the worker's stack
        os.abort()
    return _check_batch(paths, config, contexts)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_worker_crash_costs_only_its_own_file(tmp_path: Path, workers: int) -> None:
    paths = []
    for i in range(12):
        path = tmp_path / (f"m{i}.py" if i != 5 else "crash.py")
        path.write_text(BAD if i % 2 else GOOD)
        paths.append(str(path))
    results = {
        Path(s.path).name: checked.findings
        for s, checked in check_isolated(paths, Config(), workers, check=crash_on_crash_py)
    }
    assert len(results) == 12
    (crashed,) = results["crash.py"]
    assert crashed.internal and crashed.message.startswith("checking this file crashed")
    assert all(len(findings) == (1 if i % 2 else 0) for i in range(12) if i != 5
               for findings in [results[f"m{i}.py"]])


#: a sitecustomize that breaks one rule (a RecursionError-free bug) in the process it starts in
BROKEN_RULE = Path(__file__).parents[1] / "server" / "broken_rule"


def check_with_a_broken_rule(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "bad.py").write_text(BAD)
    env = {**os.environ, "PYTHONPATH": str(BROKEN_RULE), "NO_COLOR": "1"}
    exe = str(Path(sys.executable).with_name("xport-lint"))
    return subprocess.run([exe, "check", "--no-cache", *args, "bad.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=120)


def test_a_rule_that_fails_is_an_internal_error_never_a_clean_pass(tmp_path: Path) -> None:
    """The real CLI with XPT101 broken: the file is named with what failed, not a rule's finding."""
    result = check_with_a_broken_rule(tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "bad.py: internal error: XPT101 (tensor-branch) raised KeyError" in result.stdout
    assert "XPT000" not in result.stdout and "All checks passed" not in result.stdout


def test_an_internal_error_is_its_own_kind_in_json_and_sarif(tmp_path: Path) -> None:
    """JSON: `kind` says it and `code` is null (ruff's way for what no rule found); SARIF: a tool
    execution notification, the run not successful, no result. Both exit 2."""
    result = check_with_a_broken_rule(tmp_path, "--format", "json")
    assert result.returncode == 2, result.stderr
    (failure,) = [f for f in json.loads(result.stdout) if f["kind"] == "internal-error"]
    assert failure["code"] is None and failure["filename"] == "bad.py"
    assert failure["message"].startswith("internal error: XPT101 (tensor-branch) raised KeyError")
    sarif = check_with_a_broken_rule(tmp_path, "--format", "sarif")
    assert sarif.returncode == 2, sarif.stderr
    (run,) = json.loads(sarif.stdout)["runs"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error" and "raised KeyError" in notification["message"]["text"]
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"
    assert all(r["ruleId"].startswith("XPT") for r in run["results"])


def test_a_file_whose_facts_fail_is_one_internal_error_and_the_others_are_reported(tmp_path: Path) -> None:
    """A bug below the rules (tests/cli/broken_facts breaks the dataflow of any function named
    `explode`) ended the whole run with a traceback from a worker; now that file says it was not
    fully checked and the other files keep their findings."""
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "boom.py").write_text(
        "import torch\n\n\nclass Boom(torch.nn.Module):\n    def forward(self, x):\n        return explode(x)\n"
        "\n\ndef explode(x):\n    return x + 1\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).with_name("broken_facts")), "NO_COLOR": "1"}
    exe = str(Path(sys.executable).with_name("xport-lint"))
    result = subprocess.run([exe, "check", "--no-cache", "--format", "json", "bad.py", "boom.py"], cwd=tmp_path,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2, result.stderr
    found = json.loads(result.stdout)
    (failure,) = [f for f in found if f["kind"] == "internal-error"]
    assert failure["filename"] == "boom.py" and "raised KeyError" in failure["message"]
    assert any(f["filename"] == "bad.py" and f["code"] == "XPT101" for f in found)


def test_fifos_are_never_read(tmp_path: Path) -> None:
    """A FIFO in a linted folder hung the CLI forever (and the server's workspace diagnostics)."""
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", "--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 1 and "bad.py" in result.stdout and "pipe.py" not in result.stdout
    named = run("check", "--no-cache", "pipe.py", "bad.py", cwd=tmp_path)
    assert "pipe.py: skipped: not a regular file" in named.stderr and "bad.py" in named.stdout


def test_symlink_loops_and_dangling_links_are_per_file_messages(tmp_path: Path) -> None:
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", "--no-cache", "loop.py", "gone.py", "bad.py", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "loop.py:1:1: XPT000 cannot read" in result.stdout and "gone.py:1:1: XPT000 cannot read" in result.stdout
    assert "bad.py:4:12: XPT101" in result.stdout


def test_an_unreadable_folder_is_reported_not_skipped(tmp_path: Path) -> None:
    """Root reads a mode-0 folder (CAP_DAC_OVERRIDE), and CI runs as root: there the CLI runs
    without the two capabilities that bypass permissions (setpriv drops them from the bounding
    set), so the folder is as unreadable to it as to any user."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "bad.py").write_text(BAD)
    (tmp_path / "bad.py").write_text(BAD)
    exe = str(Path(sys.executable).with_name("xport-lint"))
    command = [exe, "check", "--no-cache", "."]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "running as root needs util-linux's setpriv to drop CAP_DAC_OVERRIDE"
        command = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *command]
    locked.chmod(0)
    try:
        result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                                env={**os.environ, "NO_COLOR": "1"})
    finally:
        locked.chmod(0o755)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "locked:1:1: XPT000 cannot read" in result.stdout and "bad.py:4:12: XPT101" in result.stdout


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ("exclude = [1]", "exclude: expected a list of gitignore-style patterns"),
        ("severity = 5", "severity: expected a table"),
        ('per-file-ignores = ["x"]', "per-file-ignores: expected a table"),
        ('per-file-ignores = { "*" = "XPT" }', "per-file-ignores.*: expected a list of rule codes"),
        ('ignore = ["XPT9999"]', "ignore: unknown rule code or prefix XPT9999"),
        ('severity = { XPT101 = "fatal" }', "severity.XPT101: 'fatal' is not one of error, warning, info"),
        ("tool = 1", "[tool.xport-lint] unknown key(s): tool"),
        ("extend_select = []", "[tool.xport-lint] unknown key(s): extend_select (did you mean extend-select?)"),
        ('dynamic-shapes = { "m.M" = { x = { 0 = { name = "b", min = 8, max = 2 } } } }',
         "torch.export.Dim refuses this range (Cannot create Dim with inconsistent min=8, max=2)"),
    ],
)
def test_bad_configuration_is_exit_2_naming_the_key(tmp_path: Path, table: str, named: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.xport-lint]\n{table}\n")
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{tmp_path / 'pyproject.toml'}: " in result.stderr and named in result.stderr, result.stderr


def test_a_cache_others_could_write_is_not_used(tmp_path: Path) -> None:
    """A shared or world-writable cache folder could hold rows someone else planted."""
    (tmp_path / "bad.py").write_text(BAD)
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o777)
    for _ in range(2):
        result = run("check", "--cache-dir", str(shared), "bad.py", cwd=tmp_path)
        assert result.returncode == 1 and "XPT101" in result.stdout
    assert not list(shared.iterdir())
