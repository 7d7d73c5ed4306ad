"""The server's children end with it: its lint process and multiprocessing's resource tracker
outlived a server ended by SIGTERM or SIGKILL, and a daemon a confirmed model started outlived
everything. Spoken to over real stdio, killed for real."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD
from tests.cli.test_process_lifetime import end, wait_until_gone


def _send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    assert process.stdin is not None
    process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    process.stdin.flush()


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_children_end_with_the_server(tmp_path: Path, how: signal.Signals) -> None:
    process = subprocess.Popen([sys.executable, "-m", "xport_lint.server"], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _send(process, {"id": 1, "method": "initialize",
                        "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
        _send(process, {"method": "initialized", "params": {}})
        uri = (tmp_path / "m.py").as_uri()
        _send(process, {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": BAD}}})
        deadline = time.monotonic() + 60
        children: set[int] = set()
        while time.monotonic() < deadline and not children:
            time.sleep(0.2)
            children = _descendants(process.pid)
        assert children, "the server started no lint process"
        time.sleep(1)  # the child has imported the engine and linted
        children = _descendants(process.pid)
        os.kill(process.pid, how)
        process.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(pid) for pid in children):
            time.sleep(0.2)
        assert not [pid for pid in children if _alive(pid)]
    finally:
        if process.poll() is None:
            process.kill()


@pytest.mark.torch
@pytest.mark.parametrize("how", ["exit", signal.SIGTERM, signal.SIGKILL], ids=["exit", "SIGTERM", "SIGKILL"])
def test_a_daemon_started_by_a_confirmed_model_ends_with_the_server(tmp_path: Path, how: object) -> None:
    """The model daemonizes when imported (fork, setsid, fork) and then hangs in `forward`: the
    server ends (the client's shutdown and exit, or a signal) while it is being confirmed."""
    pytest.importorskip("torch")
    from tests.confirm.test_descendants import daemon_pid, daemonizing_model

    pid_file = tmp_path / "daemon.pid"
    model = tmp_path / "model.py"
    model.write_text(daemonizing_model(pid_file, at_import=True, hang=True))
    process = subprocess.Popen([sys.executable, "-m", "xport_lint.server"], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tree: set[int] = set()
    try:
        _send(process, {"id": 1, "method": "initialize",
                        "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                                   "initializationOptions": {"trusted": True}}})
        _send(process, {"method": "initialized", "params": {}})
        _send(process, {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": model.as_uri(), "languageId": "python", "version": 1, "text": model.read_text()}}})
        _send(process, {"id": 2, "method": "workspace/executeCommand",
                        "params": {"command": "xport-lint.confirm", "arguments": [model.as_uri()]}})
        daemon = daemon_pid(pid_file)
        tree = _descendants(process.pid) | {daemon}
        if how == "exit":
            _send(process, {"id": 3, "method": "shutdown"})
            _send(process, {"method": "exit"})
        else:
            os.kill(process.pid, how)  # type: ignore[arg-type]
        process.wait(timeout=60)
        assert wait_until_gone(tree) == []
    finally:
        if process.poll() is None:
            process.kill()
        end(tree | ({int(pid_file.read_text())} if pid_file.exists() else set()))


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


class _Responses:
    """Reads the server's stdout on a thread (so that pushed diagnostics never fill the pipe)
    and records the ids of the responses it sees."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.seen: set[object] = set()
        self.changed = threading.Condition()
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        while True:
            length = 0
            while line := process.stdout.readline():
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not length:
                return
            message = json.loads(process.stdout.read(length))
            if "id" in message and "method" not in message:
                with self.changed:
                    self.seen.add(message["id"])
                    self.changed.notify_all()

    def wait(self, wanted: int) -> None:
        """Until the response to `wanted`: every notification sent before it was handled
        (pygls handles messages in order)."""
        with self.changed:
            assert self.changed.wait_for(lambda: wanted in self.seen, timeout=600)


def test_memory_stays_flat_over_thousands_of_edits(tmp_path: Path) -> None:
    """pygls 2.1 kept every notification's future: the server grew ~2.5 KB per edit without
    bound. Thousands of edits later it holds what it held after the first few hundred."""
    process = subprocess.Popen([sys.executable, "-m", "xport_lint.server"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        responses = _Responses(process)
        _send(process, {"id": 1, "method": "initialize",
                        "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                                   "initializationOptions": {"enable": False}}})
        responses.wait(1)
        _send(process, {"method": "initialized", "params": {}})
        uri = (tmp_path / "m.py").as_uri()
        _send(process, {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": BAD}}})

        def edits(first: int, count: int, request_id: int) -> int:
            for version in range(first, first + count):
                _send(process, {"method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": BAD + f"# edit {version}\n"}]}})
            _send(process, {"id": request_id, "method": "textDocument/hover", "params": {
                "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}})
            responses.wait(request_id)
            return _rss_kib(process.pid)

        settled = edits(2, 1000, 2)
        after = edits(1002, 4000, 3)
        assert after - settled < 4096, f"grew {after - settled} KiB over 4,000 edits"
    finally:
        process.kill()
