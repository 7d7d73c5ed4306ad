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
from dataclasses import dataclass
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


@dataclass(frozen=True)
class WorkerOptions:
    python: str = sys.executable
    timeout: float = DEFAULT_TIMEOUT
    #: address-space limit for the worker, in bytes (None: unlimited)
    memory_limit: int | None = None


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
            try:
                line = self._lines.get(timeout=timeout or self.options.timeout)
            except queue.Empty:
                self.kill()
                raise ConfirmError(
                    "timeout", f"the model did not finish exporting within {timeout or self.options.timeout:.0f} s"
                ) from None
            if line is None:
                code = process.wait()
                self._process = None
                if self._cancelled:
                    raise ConfirmError("cancelled", "the confirmation was cancelled")
                raise ConfirmError(*self._death(code))
            return json.loads(line)

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
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()

    def cancel(self) -> None:
        """Abort the running request (from another thread): the worker is killed."""
        self._cancelled = True
        self.kill()

    def close(self) -> None:
        self.kill()
