"""Starts the confirmation worker as its child and leaves nothing the model started running.

Standalone like the worker (stdlib only, run by path in the user's interpreter):
`python launcher.py SUPERVISOR_PID WORKER_PATH`. On Linux it is a child subreaper
(`PR_SET_CHILD_SUBREAPER`), so every process the model starts whose parent exits is reparented
here, double-forked daemons that left the session with `setsid()` included; they would
otherwise go to init, out of reach. It kills:

- the orphans (and their trees), when the supervisor sends SIGUSR1 (after each answer and
  before the next request: a finished confirmation leaves nothing behind);
- everything, and then exits mirroring the worker's status, when the worker dies, when the
  supervisor sends SIGTERM (timeout, cancel, close), or when the supervisor itself is gone
  (killed by any signal: the launcher polls its parent, which needs no cooperation from it).

Without /proc or prctl (not Linux) it falls back to the worker's process group.
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: how often the parent is polled, seconds (signals wake the loop at once)
TICK = 0.2
_SIGNALS = {signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1}


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int] | None:
    """pid -> parent pid of every process, from /proc (None without /proc)."""
    if not os.path.isdir("/proc"):
        return None
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
                table[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    return table


def _tree(roots: set[int], parents: dict[int, int]) -> set[int]:
    found, frontier = set(roots), set(roots)
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _kill(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class Launcher:
    def __init__(self, supervisor: int, worker: str) -> None:
        self.supervisor = supervisor
        self.subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
        self.status: int | None = None
        self.worker = self._start(worker)

    def _start(self, worker: str) -> int:
        launcher = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
                os.setpgid(0, 0)  # the fallback's handle where there is no subreaper
                if _prctl(PR_SET_PDEATHSIG, signal.SIGKILL) and os.getppid() != launcher:
                    os._exit(1)  # the launcher died before the death signal was armed
                os.execv(sys.executable, [sys.executable, worker])
            except BaseException as error:  # noqa: BLE001 - nothing may return into the launcher's loop
                os.write(2, f"xport-lint: cannot start the confirmation worker: {error}\n".encode())
            os._exit(127)
        return pid

    def reap(self, block: bool = False) -> bool:
        """Collect dead children (the worker's status among them); False once none are left."""
        while True:
            try:
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.worker:
                self.status = status
            if block:
                return True

    def sweep(self) -> None:
        """Kill the orphans reparented here (every child but the worker) and their trees."""
        parents = _parents()
        if parents is None or not self.subreaper:
            return
        me = os.getpid()
        orphans = {pid for pid, parent in parents.items() if parent == me and pid != self.worker}
        _kill(_tree(orphans, parents))
        self.reap()

    def kill_all(self) -> None:
        """SIGKILL every descendant until none is left: a process that forks while its tree is
        being killed leaves a child, reparented here and found by the next scan."""
        while True:
            parents = _parents()
            if parents is None or not self.subreaper:
                try:
                    os.killpg(self.worker, signal.SIGKILL)
                except OSError:
                    pass
                _kill({self.worker})
                if self.status is None:
                    _, self.status = os.waitpid(self.worker, 0)
                return
            _kill(_tree({os.getpid()}, parents) - {os.getpid()})
            if not self.reap(block=True):
                return

    def run(self) -> None:
        while self.status is None:
            info = signal.sigtimedwait(_SIGNALS, TICK)
            signo = info.si_signo if info is not None else None
            if signo in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT) or os.getppid() != self.supervisor:
                break
            if signo == signal.SIGUSR1:
                self.sweep()
            self.reap()
        self.kill_all()
        self.exit()

    def exit(self) -> None:
        """Exit as the worker did, so that the supervisor reads its status as the worker's."""
        status = self.status if self.status is not None else 0
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                import resource

                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            except (ImportError, ValueError, OSError):
                pass
            signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {number})
            os.kill(os.getpid(), number)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def main() -> None:
    supervisor, worker = int(sys.argv[1]), sys.argv[2]
    # blocked before the fork: the loop takes them with sigtimedwait, none is lost or fatal
    signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    if os.getppid() != supervisor:
        os._exit(1)  # the supervisor is already gone
    launcher = Launcher(supervisor, worker)
    # the protocol pipes are the worker's alone: its death is seen as their end
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    launcher.run()


if __name__ == "__main__":
    main()
