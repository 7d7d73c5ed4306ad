"""The engine runs in a child process: linting is CPU-bound Python, and in the server's own
process it would compete with the event loop for the GIL (hovers waited hundreds of ms under
load). A crash in the child (a hostile file) costs a restart, not the server."""

from __future__ import annotations

import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

_parser: Any = None


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def _lint(source: str, path: str, config: Any) -> tuple[list[Any], list[str]]:
    """Runs in the child: one parser (statement cache) for every document. Returns the
    findings and the engine's log lines (a failing rule), which the server forwards."""
    global _parser
    from xport_lint.analyzers.incremental import ChunkedParser
    from xport_lint.analyzers.runner import check_source

    if _parser is None:
        _parser = ChunkedParser()
    collect = _Collect()
    engine_log = logging.getLogger("xport_lint")
    engine_log.addHandler(collect)
    try:
        return check_source(source, path, config, _parser), collect.lines
    finally:
        engine_log.removeHandler(collect)


def _warm_up() -> None:
    from xport_lint.analyzers import registry, runner  # noqa: F401


def _die_with_parent() -> None:
    """Runs first in the child: the kernel kills it when the server dies, even by SIGKILL (it
    outlived a killed server, and kept multiprocessing's resource tracker alive with it)."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


class LintProcess:
    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the server has threads, and forking those is unsafe
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_die_with_parent
            )
        return self._pool

    def warm_up(self) -> None:
        self._executor().submit(_warm_up).result()

    def lint(self, source: str, path: str, config: Any) -> tuple[list[Any], list[str]]:
        """Blocks the calling thread (not the event loop) until the child answers."""
        try:
            return self._executor().submit(_lint, source, path, config).result()
        except BrokenProcessPool:
            self._pool = None  # the child died: the next request starts a new one
            raise

    def pid(self) -> int | None:
        processes = getattr(self._pool, "_processes", None) or {}
        return next(iter(processes), None)

    def close(self) -> None:
        """Stop the child now (a lint in progress is abandoned)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.kill()
