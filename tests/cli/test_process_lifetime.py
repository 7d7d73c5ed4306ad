"""Nothing the CLI starts outlives it: its pool workers (forked, they hold their own task pipe
open, so a killed parent never ends them) die with it, by SIGTERM or SIGKILL alike."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD

#: seconds a killed tree gets to disappear: generous, the machine may be loaded
DEADLINE = 60


def children(pid: int) -> set[int]:
    """The live children of `pid`, from /proc/<pid>/task/*/children."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(child) for child in (task / "children").read_text().split()}
        except OSError:
            continue
    return {child for child in found if alive(child)}


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    frontier = children(pid)
    while frontier:
        found |= frontier
        frontier = set().union(*(children(child) for child in frontier)) - found
    return found


def alive(pid: int) -> bool:
    """Running (a zombie has ended: only its exit status is left)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until_gone(pids: set[int]) -> list[int]:
    """The pids still alive after the deadline (polled: no timing is asserted)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.2)
    return [pid for pid in pids if alive(pid)]


def cli(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    return subprocess.Popen([exe, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_pool_workers_die_with_the_cli(tmp_path: Path, how: signal.Signals) -> None:
    """A folder big enough that both workers are busy when the CLI is killed."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    for index in range(400):
        (tmp_path / f"model_{index}.py").write_text(BAD * 40)
    process = cli("check", "--no-cache", "-j", "2", ".", cwd=tmp_path)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and len(workers) < 2 and process.poll() is None:
            time.sleep(0.05)
            workers = descendants(process.pid)
        assert len(workers) >= 2, "the CLI ended (or started no workers) before it could be killed"
        os.kill(process.pid, how)
        process.wait(timeout=DEADLINE)
        assert wait_until_gone(workers | descendants(process.pid)) == []
    finally:
        if process.poll() is None:
            process.kill()
        end(workers)


def end(pids: set[int]) -> None:
    """Kill what a failing test left running (each pid is one this test saw started)."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
