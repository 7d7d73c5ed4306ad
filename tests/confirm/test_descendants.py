"""A model that daemonizes (fork, `setsid()`, fork again: the grandchild belongs to no process
the worker knows) leaves nothing running: not after its confirmation finishes or times out,
not after the CLI that ran it exits or is killed. Real torch, real processes."""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path

import pytest

from tests.cli.test_process_lifetime import DEADLINE, cli, descendants, end, wait_until_gone
from xport_lint.analyzers.confirm import Confirmer, WorkerOptions

pytest.importorskip("torch")
pytestmark = [pytest.mark.torch,
              pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")]

DAEMONIZE = """\
def daemonize():
    \"\"\"The classic double fork; the grandchild writes its pid, then sleeps for good.\"\"\"
    if os.path.exists(PID_FILE):
        return
    first = os.fork()
    if first == 0:
        os.setsid()
        if os.fork() == 0:
            with open(PID_FILE + ".tmp", "w") as out:
                out.write(str(os.getpid()))
            os.rename(PID_FILE + ".tmp", PID_FILE)
            while True:
                time.sleep(60)
        while not os.path.exists(PID_FILE):
            time.sleep(0.01)
        os._exit(0)
    os.waitpid(first, 0)
"""


def daemonizing_model(pid_file: Path, at_import: bool, hang: bool) -> str:
    """A model file that daemonizes when imported or in `forward`, and then hangs or exports."""
    return "\n".join([
        "import os, time, torch",
        f"PID_FILE = {str(pid_file)!r}",
        DAEMONIZE,
        "daemonize()" if at_import else "",
        "class Net(torch.nn.Module):",
        "    def forward(self, x):",
        "        daemonize()" if not at_import else "",
        "        time.sleep(3600)" if hang else "",
        "        return x + 1",
        "def xport_example():",
        "    return Net(), (torch.randn(3),)",
        "",
    ])


def daemon_pid(pid_file: Path) -> int:
    """The grandchild's pid, once it has written it."""
    deadline = time.monotonic() + DEADLINE
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return int(pid_file.read_text())


def test_a_finished_confirmation_leaves_no_daemon_behind(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    source = daemonizing_model(pid_file, at_import=False, hang=False)
    (tmp_path / "model.py").write_text(source)
    confirmer = Confirmer(WorkerOptions(timeout=300))
    try:
        result = confirmer.confirm(str(tmp_path / "model.py"), source, [])
        assert result.status == "ran" and result.export_ok, result.summary
        daemon = daemon_pid(pid_file)
        assert wait_until_gone({daemon}) == []
        assert confirmer.worker.alive  # the warm worker itself stays for the next file
    finally:
        confirmer.close()
        end({int(pid_file.read_text())} if pid_file.exists() else set())


def test_a_timed_out_confirmation_leaves_no_daemon_behind(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    source = daemonizing_model(pid_file, at_import=True, hang=True)
    (tmp_path / "model.py").write_text(source)
    healthy = "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n" \
              "def xport_example():\n    return Net(), (torch.randn(3),)\n"
    (tmp_path / "healthy.py").write_text(healthy)
    confirmer = Confirmer(WorkerOptions(timeout=300))
    try:
        # torch is imported by a first request, so that the short timeout is spent on the model
        assert confirmer.confirm(str(tmp_path / "healthy.py"), healthy, []).status == "ran"
        confirmer.worker.options = dataclasses.replace(confirmer.worker.options, timeout=5)
        result = confirmer.confirm(str(tmp_path / "model.py"), source, [])
        assert result.status == "timeout", result.summary
        assert wait_until_gone({daemon_pid(pid_file)}) == []
    finally:
        confirmer.close()
        end({int(pid_file.read_text())} if pid_file.exists() else set())


def test_no_daemon_outlives_the_cli(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon.pid"
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "model.py").write_text(daemonizing_model(pid_file, at_import=False, hang=False))
    process = cli("check", "--no-cache", "--confirm", "--fail-on", "error", ".", cwd=tmp_path)
    try:
        assert process.wait(timeout=600) == 0  # the example exports (the static warnings are not errors)
        assert wait_until_gone({daemon_pid(pid_file)}) == []
    finally:
        end({int(pid_file.read_text())} if pid_file.exists() else set())


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_nothing_outlives_a_cli_killed_while_confirming(tmp_path: Path, how: signal.Signals) -> None:
    pid_file = tmp_path / "daemon.pid"
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "model.py").write_text(daemonizing_model(pid_file, at_import=True, hang=True))
    process = cli("check", "--no-cache", "--confirm", ".", cwd=tmp_path)
    tree: set[int] = set()
    try:
        daemon = daemon_pid(pid_file)
        tree = descendants(process.pid) | {daemon}  # the launcher, the worker, the daemon
        assert len(tree) >= 3, tree
        os.kill(process.pid, how)
        process.wait(timeout=DEADLINE)
        assert wait_until_gone(tree) == []
    finally:
        if process.poll() is None:
            process.kill()
        end(tree | ({int(pid_file.read_text())} if pid_file.exists() else set()))
