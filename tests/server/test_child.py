"""The server's engine child: restarted after a crash, never started again once the server has
stopped it. A lint still running on the worker thread when the client said `shutdown` started a
fresh child after the server had stopped its own; at exit, Python's hook raced that child's pool
and printed "OSError: Bad file descriptor" on the server's stderr (seen once in CI)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from xport_lint.server.child import Child, Stopped


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_child_that_crashed_is_started_again() -> None:
    child = Child()
    try:
        first = child.call(os.getpid)
        with pytest.raises(BrokenProcessPool):
            child.call(os._exit, 3)
        second = child.call(os.getpid)
        assert second != first
    finally:
        child.close()


def test_no_child_starts_after_the_server_stopped_it() -> None:
    child = Child()
    pid = child.call(os.getpid)
    child.close()
    with pytest.raises(Stopped):
        child.call(os.getpid)
    with pytest.raises(Stopped):
        child.submit(os.getpid)
    deadline = time.monotonic() + 10
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid)


def test_work_the_stop_cuts_short_says_stopped() -> None:
    """Not a crash: the thread that waited for it drops its work quietly."""
    child = Child()
    child.call(os.getpid)
    raised: list[BaseException] = []

    def wait_for_a_long_call() -> None:
        try:
            child.call(time.sleep, 60)
        except BaseException as error:  # noqa: BLE001 - the test looks at what was raised
            raised.append(error)

    waiting = threading.Thread(target=wait_for_a_long_call)
    waiting.start()
    time.sleep(0.5)
    child.close()
    waiting.join(timeout=30)
    assert not waiting.is_alive()
    assert [type(error) for error in raised] == [Stopped]


def test_a_process_exits_silently_when_a_worker_thread_asks_after_the_stop() -> None:
    """The server's own order: stop the child, then a queued lint asks the child for work while
    the interpreter exits."""
    script = textwrap.dedent("""
        import os, threading
        from concurrent.futures import ThreadPoolExecutor
        from xport_lint.server.child import Child, Stopped

        child = Child()
        worker = ThreadPoolExecutor(max_workers=1)
        worker.submit(child.call, os.getpid).result()
        child.close()

        def late_lint():
            try:
                child.call(os.getpid)
            except Stopped:
                print("stopped")

        worker.submit(late_lint)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "stopped\n", "")
