"""One child process the server runs engine work in, started on first use and restarted after a
crash, never after the server has stopped it.

A lint or an index step on the worker thread still running when the client said `shutdown`
started a fresh child after the server had stopped its own: that child outlived the shutdown,
and Python's exit hook, waking its pool's manager thread while the thread closed its pipe,
printed "OSError: Bad file descriptor" to stderr as the server stopped."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from xport_lint.analyzers.lifetime import die_with_parent, stop_pool

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")


class Stopped(Exception):
    """The server stopped the child: the work is dropped, and no new child starts."""


class Child:
    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._stopped = False
        #: `submit` runs on worker threads, `close` on the event loop's
        self._lock = threading.Lock()

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        """`function(*args)` in the child. Raises `Stopped` once `close` was called."""
        from concurrent.futures.process import BrokenProcessPool

        with self._lock:
            if self._stopped:
                raise Stopped
            if self._pool is None:
                self._pool = self._start()
            pool = self._pool
        try:
            future = pool.submit(function, *args)
        except (BrokenProcessPool, RuntimeError):  # RuntimeError: shut down meanwhile
            self._forget(pool)
            raise
        future.add_done_callback(lambda done: self._forget(pool) if _broken(done) else None)
        return future

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in the child, blocking the calling thread (never the event loop's)
        until it answers. Work the server's stop cut short raises `Stopped`."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self.submit(function, *args).result()
        except (BrokenProcessPool, RuntimeError):
            if self._stopped:
                raise Stopped from None
            raise

    def _start(self) -> ProcessPoolExecutor:
        # imported here: the server answers `initialize` before it starts a child
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn, not fork: the server has threads, and forking those is unsafe. The child dies
        # with the server, even by SIGKILL (it outlived a killed server, and kept
        # multiprocessing's resource tracker alive with it)
        return ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"),
            initializer=die_with_parent, initargs=(os.getpid(),),
        )

    def _forget(self, pool: ProcessPoolExecutor) -> None:
        """The child died: the next request starts a new one (unless the server is stopping)."""
        with self._lock:
            if self._pool is pool:
                self._pool = None

    def stopped(self) -> bool:
        return self._stopped

    def close(self) -> None:
        """Stop the child now (work in progress is abandoned) and start none from now on."""
        with self._lock:
            self._stopped = True
            pool, self._pool = self._pool, None
        if pool is not None:
            stop_pool(pool)


def _broken(done: Future[Any]) -> bool:
    from concurrent.futures.process import BrokenProcessPool

    return not done.cancelled() and isinstance(done.exception(), BrokenProcessPool)
