"""Runs the confirmation worker in the user's interpreter, and survives whatever it does.

One warm worker process (torch is imported once), one request at a time, started by a small
launcher (launcher.py) that is a child subreaper: whatever the model starts, double-forked
daemons included, is killed after each answer, at a timeout, when the worker dies, and when
this process ends, even by SIGKILL. A worker that dies (segfault, `os._exit`, out of memory)
is reported with the tail of its stderr and replaced next time.
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
LAUNCHER = Path(__file__).with_name("launcher.py")
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
    #: the worker script the launcher runs (repair's probe.py answers other requests)
    script: Path = WORKER


class Worker:
    def __init__(self, options: WorkerOptions | None = None) -> None:
        self.options = options or WorkerOptions()
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque()
        self._stderr_size = 0
        self._lock = threading.Lock()
        self._cancelled = False
        #: the launcher has answered once, so it is past its start-up and takes signals
        self._ready = False
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
                [self.options.python, str(LAUNCHER), str(os.getpid()), str(self.options.script)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", env=env,
                start_new_session=True, preexec_fn=limit_memory if limit is not None else None,  # noqa: PLW1509
            )
        except OSError as error:
            raise ConfirmError("start", f"cannot start {self.options.python}: {error}") from None
        self._lines = queue.Queue()
        self._stderr.clear()
        self._stderr_size = 0
        self._ready = False
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
        """Keep only the tail of stderr: a model that prints megabytes must not fill memory.
        Read as it comes (a text stream's read(n) waits for n characters or the end)."""
        while chunk := os.read(stream.fileno(), 8192).decode("utf-8", errors="replace"):
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
            self._sweep(process)  # what the last request left behind, before this one runs
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
            self._ready = True
            self._sweep(process)
            return json.loads(line)

    def _sweep(self, process: subprocess.Popen[str]) -> None:
        """Ask the launcher to kill the processes the model left running (their parent exited)."""
        if self._ready and process.poll() is None:
            try:
                os.kill(process.pid, signal.SIGUSR1)
            except OSError:
                pass

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
                    return None  # the launcher has killed whatever the worker left
            if time.monotonic() >= deadline:
                self.kill()
                raise ConfirmError("timeout", f"the model did not finish exporting within {timeout:.0f} s")

    def _death(self, code: int) -> tuple[str, str]:
        """What killed the worker, in words; its stderr's tail holds the user's own output (torch's
        logging is kept in the answer, not there)."""
        tail = self.stderr_tail()
        if code < 0:
            name = signal.Signals(-code).name
            if -code == signal.SIGKILL:
                cap = self.options.memory_limit
                limit = f"; its memory cap is {cap / 2**30:.1f} GiB" if cap else ""
                return "memory", (f"the worker was killed by SIGKILL while exporting (out of memory: the kernel "
                                  f"kills a process that exhausts the machine{limit})\n{tail}").strip()
            return "crash", f"the worker was killed by {name} while exporting\n{tail}".strip()
        if "MemoryError" in tail or "can't allocate memory" in tail:
            return "memory", f"the worker ran out of memory while exporting\n{tail}".strip()
        return "crash", f"the worker exited with status {code} while exporting\n{tail}".strip()

    def kill(self) -> None:
        """Stop the worker and everything it started; the next request starts a fresh one. The
        launcher does the killing (it is their subreaper); SIGKILL of its tree is the fallback
        for a launcher that does not answer."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            process.terminate()
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._kill_tree(process.pid)
            process.wait()

    @staticmethod
    def _kill_tree(pid: int) -> None:
        """SIGKILL `pid` and its descendants, found by parent links in /proc."""
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
            if entry.isdigit():
                try:
                    parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        doomed, frontier = {pid}, {pid}
        while frontier:
            frontier = {child for child, parent in parents.items() if parent in frontier} - doomed
            doomed |= frontier
        for victim in doomed:
            try:
                os.kill(victim, signal.SIGKILL)
            except OSError:
                pass

    def cancel(self) -> None:
        """Abort the running request (from another thread): the worker is killed."""
        self._cancelled = True
        self.kill()

    def close(self) -> None:
        self.kill()
