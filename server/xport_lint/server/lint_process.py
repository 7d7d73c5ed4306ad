"""The engine runs in a child process: linting is CPU-bound Python, and in the server's own
process it would compete with the event loop for the GIL (hovers waited hundreds of ms under
load). A crash in the child (a hostile file) costs a restart, not the server."""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from xport_lint.analyzers.lifetime import die_with_parent

_parser: Any = None


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


class _Workspace:
    """The project index of the workspace, kept in the child: the summaries of the files on disk
    (checked a few at a time between lints, through the findings cache) and of the open documents
    (from their editor text). It tells each lint what the rest of the project makes of the file,
    and which open documents a change to another file affects."""

    #: seconds of indexing per step (at least one file): a lint waits for at most one step
    STEP_SECONDS = 0.05

    def __init__(self) -> None:
        self.files: list[str] = []
        self.todo: list[str] | None = None
        self.summaries: dict[str, Any] = {}
        #: the context each file on disk was summarized with (open documents: linted with)
        self.contexts: dict[str, Any] = {}
        self.open: set[str] = set()
        self.index: Any = None
        #: an open document's summary changed since the index was built
        self.dirty = False

    def context(self, path: str) -> Any:
        from xport_lint.analyzers.index import EMPTY_CONTEXT

        return self.index.context(path) if self.index is not None else EMPTY_CONTEXT

    def step(self, folders: list[str], config: Any) -> tuple[bool, list[str]]:
        from xport_lint.analyzers.cache import Cache
        from xport_lint.analyzers.files import discover, read
        from xport_lint.analyzers.runner import check_file

        if self.todo is None:
            self.files = discover(folders, config.exclude)
            self.todo = list(self.files)
        cache = Cache()
        deadline = time.monotonic() + self.STEP_SECONDS
        done = 0
        try:
            while done < len(self.todo) and (done == 0 or time.monotonic() < deadline):
                path = self.todo[done]
                done += 1
                if path in self.open:
                    continue  # its editor text, not the disk's, is what counts
                source = read(path)
                if source.text is None:
                    continue
                context = self.context(path)
                key = cache.key(source.text, path, config, context)
                hit = cache.get(key, path)
                if hit is None:
                    checked = check_file(source.text, path, config, context=context)
                    cache.put(key, checked.findings, checked.summary)
                    hit = (checked.findings, checked.summary)
                self.contexts[path] = context
                if hit[1] is not None:
                    self.summaries[path] = hit[1]
                else:
                    self.summaries.pop(path, None)
            cache.save()
        finally:
            del self.todo[:done]
            cache.close()
        if self.todo:
            return False, []
        self.dirty = False
        stale = self.refresh()
        # files on disk whose context changed are summarized again (one more call further)
        self.todo = [p for p in stale if p not in self.open]
        return not self.todo, [p for p in stale if p in self.open]

    def refresh(self) -> list[str]:
        """Rebuild the index; the files whose context changed."""
        from xport_lint.analyzers.index import ProjectIndex

        self.index = ProjectIndex(self.files, self.summaries, previous=self.index)
        return [p for p, used in self.contexts.items() if self.index.context(p) != used]

    def linted(self, path: str, context: Any, summary: Any) -> bool:
        """Record an open document's lint. Whether the project index needs rebuilding (its
        summary changed): done by the next `step`, off the path of the edit's own diagnostics."""
        self.open.add(path)
        self.contexts[path] = context
        before = self.summaries.get(path)
        if summary is not None:
            self.summaries[path] = summary
        if path not in self.files:
            self.files.append(path)
        unchanged = before is not None and summary is not None and before.to_plain() == summary.to_plain()
        if self.index is not None and not unchanged:
            self.dirty = True
        return self.dirty


_workspace = _Workspace()


def _lint(source: str, path: str, config: Any, is_open: bool) -> tuple[list[Any], list[str], bool]:
    """Runs in the child: one parser (statement cache) for every document. Returns the
    findings, the engine's log lines (a failing rule), which the server forwards, and whether
    the project index needs a step (the document's summary changed)."""
    global _parser
    from xport_lint.analyzers.incremental import ChunkedParser
    from xport_lint.analyzers.runner import check_file

    if _parser is None:
        _parser = ChunkedParser()
    collect = _Collect()
    engine_log = logging.getLogger("xport_lint")
    engine_log.addHandler(collect)
    try:
        context = _workspace.context(path)
        checked = check_file(source, path, config, _parser, context)
        stale = _workspace.linted(path, context, checked.summary) if is_open else False
        return checked.findings, collect.lines, stale
    finally:
        engine_log.removeHandler(collect)


def _size_facts(source: str, path: str, config: Any) -> list[Any]:
    from xport_lint.analyzers.runner import size_facts

    return size_facts(source, path, config, _workspace.context(path))


def _fix_all(source: str, path: str, config: Any) -> str:
    from xport_lint.analyzers.runner import fix_source

    return fix_source(source, path, config, unsafe=False, context=_workspace.context(path))


def _index_step(folders: list[str], config: Any) -> tuple[bool, list[str]]:
    return _workspace.step(folders, config)


def _closed(path: str) -> None:
    _workspace.open.discard(path)


def _warm_up() -> None:
    from xport_lint.analyzers import registry, runner  # noqa: F401


class LintProcess:
    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the server has threads, and forking those is unsafe. The child dies
            # with the server, even by SIGKILL (it outlived a killed server, and kept
            # multiprocessing's resource tracker alive with it)
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_parent, initargs=(os.getpid(),),
            )
        return self._pool

    def warm_up(self) -> None:
        self._executor().submit(_warm_up).result()

    def lint(self, source: str, path: str, config: Any, is_open: bool = True) -> tuple[list[Any], list[str], bool]:
        """Blocks the calling thread (not the event loop) until the child answers. `is_open`: the
        text is an open document's (it stands for the file in the project index)."""
        return self._call(_lint, source, path, config, is_open)

    def size_facts(self, source: str, path: str, config: Any) -> list[Any]:
        """(span, markdown) for each input size the document's models read (runner.size_facts)."""
        return self._call(_size_facts, source, path, config)

    def fix_all(self, source: str, path: str, config: Any) -> str:
        """`source` with every safe fix applied, round after round (runner.fix_source)."""
        return self._call(_fix_all, source, path, config)

    def index_step(self, folders: list[str], config: Any) -> tuple[bool, list[str]]:
        """Index a few more workspace files: (all done, open documents to lint again)."""
        return self._call(_index_step, folders, config)

    def closed(self, path: str) -> None:
        self._call(_closed, path)

    def _call(self, function: Any, *args: Any) -> Any:
        try:
            return self._executor().submit(function, *args).result()
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
