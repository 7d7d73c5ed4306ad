"""Runs the confirmation worker in the user's interpreter, and survives whatever it does.

One warm worker process (torch is imported once), one request at a time. A request that
outlives its timeout kills the worker's whole process group; a worker that dies (segfault,
`os._exit`, out of memory) is reported with the tail of its stderr and replaced next time.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

WORKER = Path(__file__).with_name("worker.py")
DEFAULT_TIMEOUT = 120.0
_STDERR_TAIL = 64 * 1024


class ConfirmError(Exception):
    """The run could not complete: `kind` is timeout, crash, memory or start."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def default_memory_limit() -> int:
    """Half of this machine's memory, at least 4 GiB: a model that allocates without bound is
    stopped before it makes the editor's machine swap (torch's own import maps about 0.75 GiB)."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 16 * 2**30
    return max(4 * 2**30, physical // 2)


@dataclass(frozen=True)
class WorkerOptions:
    python: str = sys.executable
    timeout: float = DEFAULT_TIMEOUT
    #: address-space limit for the worker, in bytes (None: unlimited)
    memory_limit: int | None = field(default_factory=default_memory_limit)


class Worker:
    def __init__(self, options: WorkerOptions | None = None) -> None:
        self.options = options or WorkerOptions()
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque()
        self._stderr_size = 0
        self._lock = threading.Lock()
        self._cancelled = False
        self.started = 0

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _start(self) -> subprocess.Popen[str]:
        limit = self.options.memory_limit

        def limit_memory() -> None:  # runs in the child before exec
            if limit is not None:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            process = subprocess.Popen(
                [self.options.python, str(WORKER)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", env=env,
                start_new_session=True, preexec_fn=limit_memory if limit is not None else None,  # noqa: PLW1509
            )
        except OSError as error:
            raise ConfirmError("start", f"cannot start {self.options.python}: {error}") from None
        self._lines = queue.Queue()
        self._stderr.clear()
        self._stderr_size = 0
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=self._read_lines, args=(process.stdout, self._lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(process.stderr,), daemon=True).start()
        self.started += 1
        return process

    @staticmethod
    def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _drain(self, stream: IO[str]) -> None:
        """Keep only the tail of stderr: a model that prints megabytes must not fill memory."""
        while chunk := stream.read(8192):
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr_size > _STDERR_TAIL and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    def stderr_tail(self, limit: int = 2000) -> str:
        return "".join(self._stderr)[-limit:]

    def request(self, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        with self._lock:
            self._cancelled = False
            if not self.alive:
                self._process = self._start()
            process = self._process
            assert process is not None and process.stdin is not None
            try:
                process.stdin.write(json.dumps(payload) + "\n")
                process.stdin.flush()
            except (BrokenPipeError, OSError):
                pass  # the read below reports how it died
            line = self._answer(process, timeout or self.options.timeout)
            if line is None:
                code = process.wait()
                self._process = None
                if self._cancelled:
                    raise ConfirmError("cancelled", "the confirmation was cancelled")
                raise ConfirmError(*self._death(code))
            return json.loads(line)

    def _answer(self, process: subprocess.Popen[str], timeout: float) -> str | None:
        """The worker's response line; None when it died. A worker that exits while a child it
        forked keeps the pipe open is seen dead at once, not after the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._lines.get(timeout=min(0.25, max(deadline - time.monotonic(), 0.0)))
            except queue.Empty:
                pass
            if process.poll() is not None:
                try:
                    return self._lines.get(timeout=0.5)  # a response written just before exiting
                except queue.Empty:
                    self._kill_descendants(process.pid)
                    return None
            if time.monotonic() >= deadline:
                self.kill()
                raise ConfirmError("timeout", f"the model did not finish exporting within {timeout:.0f} s")

    def _death(self, code: int) -> tuple[str, str]:
        tail = self.stderr_tail()
        if code < 0:
            name = signal.Signals(-code).name
            kind = "memory" if -code == signal.SIGKILL else "crash"
            return kind, f"the worker was killed by {name} while exporting\n{tail}".strip()
        if "MemoryError" in tail or "can't allocate memory" in tail:
            return "memory", f"the worker ran out of memory while exporting\n{tail}".strip()
        return "crash", f"the worker exited with status {code} while exporting\n{tail}".strip()

    def kill(self) -> None:
        """Stop the worker and everything it started; the next request starts a fresh one."""
        process, self._process = self._process, None
        if process is None:
            return
        self._kill_descendants(process.pid)
        process.wait()

    @staticmethod
    def _kill_descendants(pid: int) -> None:
        """SIGKILL the worker's session (it leads one) and every process started in it, including
        those that left it with `setsid()`: the killpg of the session alone misses them. Found by
        session id and by parent links in /proc."""
        doomed = {pid}
        table: dict[int, tuple[int, int]] = {}  # pid -> (parent, session)
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
            if entry.isdigit():
                try:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                    table[int(entry)] = (int(fields[1]), int(fields[3]))
                except (OSError, IndexError, ValueError):
                    continue
        changed = True
        while changed:
            changed = False
            for child, (parent, session) in table.items():
                if child not in doomed and (parent in doomed or session == pid):
                    doomed.add(child)
                    changed = True
        for victim in doomed:
            for kill in (os.killpg, os.kill):
                try:
                    kill(victim, signal.SIGKILL)
                except (ProcessLookupError, PermissionError, OSError):
                    pass

    def cancel(self) -> None:
        """Abort the running request (from another thread): the worker is killed."""
        self._cancelled = True
        self.kill()

    def close(self) -> None:
        self.kill()
