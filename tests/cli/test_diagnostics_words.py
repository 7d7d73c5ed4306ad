"""What the CLI says when something is off: never a silent degradation (a cache that stays cold,
a configuration nobody reads), and every message where and as Python would put it."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD, GOOD, run

EXE = str(Path(sys.executable).with_name("xport-lint"))


def module(line: str) -> str:
    """A module whose `forward` computes `line` and then branches on a tensor (XPT101, line 5)."""
    return (
        "import torch\nclass Deep(torch.nn.Module):\n    def forward(self, x):\n"
        f"        y = {line}\n        if y.sum() > 0:\n            return y\n        return x\n"
    )


# -- the findings cache -------------------------------------------------------------------------


def test_a_damaged_cache_is_rebuilt_with_one_warning(tmp_path: Path, _private_cache: Path) -> None:
    """A cache file that is no database made every later run cold, without a word."""
    (tmp_path / "bad.py").write_text(BAD)
    assert run("check", ".", cwd=tmp_path).returncode == 1
    (database,) = (_private_cache / "xport-lint").glob("*.sqlite3")
    with sqlite3.connect(database) as db:
        entries = db.execute("SELECT count(*) FROM findings").fetchone()[0]  # the file's findings, the run's record
    database.write_bytes(b"not a database at all" * 100)
    damaged = run("check", ".", cwd=tmp_path)
    assert damaged.returncode == 1 and "bad.py:4:12: XPT101" in damaged.stdout
    assert damaged.stderr.count("xport-lint: the findings cache") == 1, damaged.stderr
    assert f"{database} was damaged (file is not a database); rebuilt it empty" in damaged.stderr
    after = run("check", ".", cwd=tmp_path)
    assert after.returncode == 1 and "XPT101" in after.stdout and "cache" not in after.stderr
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM findings").fetchone()[0] == entries  # the rebuilt cache is used


def test_a_cache_that_cannot_be_created_is_named_once(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text(GOOD)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {**os.environ, "NO_COLOR": "1", "XPORT_LINT_CACHE_DIR": str(blocker / "cache")}
    result = subprocess.run([EXE, "check", "bad.py", "good.py"], cwd=tmp_path, capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 1 and "bad.py:4:12: XPT101" in result.stdout
    assert result.stderr.count("xport-lint: ") == 1, result.stderr
    assert f"xport-lint: cannot create the findings cache folder {blocker / 'cache'} (Not a directory)" in result.stderr


def test_a_cache_others_could_write_is_named(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o777)
    result = run("check", "--cache-dir", str(shared), "bad.py", cwd=tmp_path)
    assert result.returncode == 1 and "XPT101" in result.stdout
    assert "not using the findings cache" in result.stderr and "other users can write to it" in result.stderr


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ('[tool.xport_lint]\nignore = ["XPT1"]\n', "[tool.xport_lint] is not read: the table is [tool.xport-lint]"),
        ("[tool.xportlint]\nstrict = true\n", "[tool.xportlint] is not read: the table is [tool.xport-lint]"),
        ('[tool]\nxport-lint = "strict"\n', "tool.xport-lint must be a table ([tool.xport-lint] with keys under it), not str 'strict'"),
        ("[tool.xport-lint]\nignore = [\"XPT1\"]\nstirct = true\n", "[tool.xport-lint] unknown key(s): stirct (did you mean strict?)"),
    ],
    ids=["underscore-table", "no-separator-table", "not-a-table", "unknown-key"],
)
def test_configuration_nobody_would_read_is_an_error_naming_the_file(tmp_path: Path, toml: str, said: str) -> None:
    """Each of these was silently ignored (or, for a bad key, reported without its file)."""
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"Error: {tmp_path / 'pyproject.toml'}: {said}" in result.stderr, result.stderr


def test_a_dim_torch_refuses_is_a_finding_at_the_dim(tmp_path: Path) -> None:
    (tmp_path / "export_model.py").write_text(
        "import torch\nfrom torch.export import Dim\n\n"
        "class Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n"
        'batch = Dim("b", min=8, max=2)\n'
        'program = torch.export.export(Net(), (torch.randn(4, 3),), dynamic_shapes={"x": {0: batch}})\n'
    )
    result = run("check", "--no-cache", "export_model.py", cwd=tmp_path)
    assert result.returncode == 1
    assert ("export_model.py:8:9: XPT505 torch refuses this `Dim` when it is created: "
            "`AssertionError: Cannot create Dim with inconsistent min=8, max=2`") in result.stdout


# -- syntax and depth ---------------------------------------------------------------------------


def test_a_syntax_error_is_where_and_as_python_says_it(tmp_path: Path) -> None:
    """libcst said `parser error: error at 5:12: expected one of !=, %, &, (, ...` on line 6."""
    (tmp_path / "gate.py").write_text(BAD.replace("if x.sum() > 0:", "if x.sum() > 0"))
    with pytest.raises(SyntaxError) as python:
        compile((tmp_path / "gate.py").read_text(), "gate.py", "exec")
    result = run("check", "--no-cache", "gate.py", cwd=tmp_path)
    assert result.returncode == 1
    assert f"gate.py:{python.value.lineno}:{python.value.offset}: XPT000 syntax error: expected ':'" in result.stdout
    assert python.value.lineno == 4


def test_deep_valid_code_is_analysed_to_its_findings(tmp_path: Path) -> None:
    """A 900-term sum and a 500-deep unary minus are valid Python: they were one XPT000 at 1:1
    and the rest of the file went unchecked."""
    (tmp_path / "sum.py").write_text(module(" + ".join(["x"] * 900)))
    (tmp_path / "minus.py").write_text(module("-" * 500 + "x"))
    result = run("check", "--no-cache", "sum.py", "minus.py", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "XPT000" not in result.stdout
    assert "sum.py:5:12: XPT101" in result.stdout and "minus.py:5:12: XPT101" in result.stdout


@pytest.mark.parametrize(
    ("chain", "line"),
    [("x" + ".relu()" * 3000, 4), ("(\n            x\n" + "            .relu()\n" * 3000 + "        )", 6)],
    ids=["one-line", "one-call-a-line"],
)
def test_a_call_chain_python_cannot_compile_is_reported_at_its_line(tmp_path: Path, chain: str, line: int) -> None:
    """A 3,000-call chain took 35 s to end in XPT000 at 1:1 (libcst's parse is quadratic in
    depth); CPython refuses to compile it, and says so at once."""
    (tmp_path / "chain.py").write_text(module(chain))
    (tmp_path / "bad.py").write_text(BAD)
    result = run("check", "--no-cache", "chain.py", "bad.py", cwd=tmp_path)
    assert result.returncode == 1
    said = f"chain.py:{line}:1: XPT000 cannot compile: the expression on this line nests deeper than Python"
    assert said in result.stdout, result.stdout[:300]
    assert "bad.py:4:12: XPT101" in result.stdout


# -- a long file on a terminal ------------------------------------------------------------------


def run_on_terminal(*args: str, cwd: Path) -> tuple[int, str]:
    """The CLI with stderr on a pseudo-terminal (as in a shell); returns (status, stderr)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([EXE, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=follower,
                               env={**os.environ, "NO_COLOR": "1"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the CLI closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=120), b"".join(chunks).decode()


def test_a_long_file_is_announced_on_a_terminal_only(tmp_path: Path) -> None:
    """A 50,000-line file ran for most of a minute with nothing on screen."""
    (tmp_path / "big.py").write_text("".join(f"value_{i} = {i}  # a long generated table\n" for i in range(12_000)))
    status, said = run_on_terminal("check", "--no-cache", "big.py", cwd=tmp_path)
    assert status == 0 and "xport-lint: checking big.py (12,000 lines)..." in said, said
    assert "checking big.py" not in run("check", "--no-cache", "big.py", cwd=tmp_path).stderr  # a pipe
    _, quiet = run_on_terminal("check", "--no-cache", "-q", "big.py", cwd=tmp_path)
    assert "checking big.py" not in quiet


# -- messages that fit ----------------------------------------------------------------------------

NO_FIX = (
    "import torch\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n"
    "        if x.sum() > 0:\n            return x * 2\n        return None\n"
)


def test_why_no_fix_is_offered_is_a_note_of_its_own(tmp_path: Path) -> None:
    """The reason was a "(no automatic fix: ...)" tail of the message, which an editor's problem
    list cuts off: the message stays one short line, and the reason is the note under it."""
    (tmp_path / "gate.py").write_text(NO_FIX)
    result = run("check", "--no-cache", "gate.py", cwd=tmp_path)
    assert result.returncode == 1
    head, *rest = result.stdout.splitlines()
    assert head == "gate.py:4:12: XPT101 if tests the tensor value `x.sum() > 0`: data-dependent branch (error)"
    assert "  = note: no automatic fix: a branch returns `None`, which is not a tensor" in rest
    (finding,) = json.loads(run("check", "--no-cache", "--format", "json", "gate.py", cwd=tmp_path).stdout)
    assert "no automatic fix" not in finding["message"] and finding["fix"] is None
    (note,) = finding["related"]
    assert note["message"] == "no automatic fix: a branch returns `None`, which is not a tensor"
    assert note["location"] == finding["location"]
