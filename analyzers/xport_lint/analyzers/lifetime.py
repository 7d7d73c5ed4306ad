"""Child processes that end with their parent, however it ends (SIGKILL included).

A pool worker blocks on its task pipe; forked, it holds that pipe's write end itself, so a
parent killed by SIGKILL or SIGTERM never gives it an end-of-file: it stayed alive for good.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
#: how often the fallback watchdog looks at the parent, seconds
WATCH_INTERVAL = 0.5


def _parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies (`PR_SET_PDEATHSIG`)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent(parent: int, *then: Callable[[], None]) -> None:
    """A pool initializer (`initargs=(os.getpid(), ...)`): end this child when `parent` dies,
    then run `then`. The kernel's parent-death signal where there is one; else a thread that
    polls the parent. The signal is sent when the *thread* that started the child exits, so a
    pool must live within the thread that creates it (as `with pool:` does)."""
    if not _parent_death_signal():
        threading.Thread(target=_watch, args=(parent,), name="xport-lint-watchdog", daemon=True).start()
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)  # the parent died before the signal was armed
    for step in then:
        step()


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Kill a pool's children now (work in progress is abandoned) and wait for its manager
    thread to end. Not waiting raced interpreter exit: Python 3.11's exit hook wakes every
    manager thread through a pipe the thread may be closing at that moment, and printed
    "OSError: Bad file descriptor" to stderr as the server stopped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    pool.shutdown(wait=True)
