"""A round of a project check (workspace.Workspace's rounds): its files in worker processes, each
isolated, so that a file that crashes or hangs the analysis costs only its own result, and the
findings cache consulted before and filled after."""

from __future__ import annotations

import faulthandler
import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from .cache import Cache
from .config import Config
from .files import SourceFile, read
from .index import EMPTY_CONTEXT, FileContext, ModuleSummary
from .model import Finding, Position, Severity, Span

if TYPE_CHECKING:  # the engine is imported where a file is checked (a second run checks none)
    from .runner import FileCheck

    CheckBatch = Callable[[list[str], Config, dict[str, FileContext]], list[tuple[SourceFile, FileCheck]]]

#: A file whose check runs longer than this is given up (its worker is ended by faulthandler's
#: watchdog, which fires even inside libcst's native parser): libcst's time grows steeply on
#: pathological expressions (a 10,000-term sum: 30 s, then SIGSEGV).
FILE_TIME_LIMIT = 300


def _check_one(path: str, config: Config, context: FileContext) -> tuple[SourceFile, FileCheck]:
    from .runner import FileCheck, check_file

    source = read(path)
    if source.text is None:
        return source, FileCheck([])
    return source, check_file(source.text, path, config, context=context)


def _check_batch(
    paths: list[str], config: Config, contexts: dict[str, FileContext]
) -> list[tuple[SourceFile, FileCheck]]:
    """Runs in a worker process, each file under a watchdog (see FILE_TIME_LIMIT).

    The cyclic collector is off while a file is checked and collects the youngest generation
    after it: a file's libcst tree is acyclic and freed by reference counting when its check
    ends, but a collection during the check walks every node built so far, to free nothing
    (about a tenth of a cold check, measured on the bench corpus). What a file's check leaves
    in cycles (a few thousand objects) is all young, so the collection after it is cheap."""
    out = []
    with open(os.devnull, "w") as quiet:
        for path in paths:
            faulthandler.dump_traceback_later(FILE_TIME_LIMIT, exit=True, file=quiet)
            gc.disable()
            try:
                out.append(_check_one(path, config, contexts.get(path, EMPTY_CONTEXT)))
            finally:
                gc.enable()
                faulthandler.cancel_dump_traceback_later()
            gc.collect(0)
    return out


class FileResult:
    """One file's findings, and its source: read when first asked for where a second run knew
    the file unchanged from its stat and has no findings in it to show (`unread`)."""

    __slots__ = ("path", "findings", "_source")

    def __init__(self, source: SourceFile, findings: list[Finding]) -> None:
        self.path = source.path
        self.findings = findings
        self._source: SourceFile | None = source

    @classmethod
    def unread(cls, path: str, findings: list[Finding]) -> FileResult:
        """A readable file's result whose text is read only if something asks for it."""
        result = cls.__new__(cls)
        result.path, result.findings, result._source = path, findings, None
        return result

    @property
    def source(self) -> SourceFile:
        if self._source is None:
            self._source = read(self.path)
        return self._source

    @property
    def text(self) -> str | None:
        return self.source.text

    @property
    def problem(self) -> str | None:
        """Why the file could not be read (None for an unread one: it was readable)."""
        return None if self._source is None else self._source.problem

    @property
    def skipped(self) -> bool:
        return False if self._source is None else self._source.skipped


def tune_gc() -> None:
    """Collect the young generation less often. libcst allocates millions of short-lived,
    acyclic nodes per file; at CPython's default threshold (700) the cyclic collector runs
    thousands of times per file for nothing (about 10% of a run, measured on the bench corpus)."""
    gc.set_threshold(200_000, 50, 1_000)


#: a followed file before the index says what of it is traced: nothing
FOLLOWED = FileContext(entries_only=True)


#: told how many files are done of how many the first round checks (the rest are cache hits)
Progress = Callable[[int, int], None]


def check_round(
    files: list[str], config: Config, cache: Cache | None, jobs: int | None, contexts: dict[str, FileContext],
    progress: Progress | None, sources: dict[str, SourceFile] | None = None,
) -> Iterator[tuple[FileResult, ModuleSummary | None]]:
    """`sources`: files already read (the caller's, so a file is read once a round)."""
    todo: list[str] = []
    keys: dict[str, str] = {}
    for path in files:
        if cache is None:
            todo.append(path)
            continue
        source = sources[path] if sources is not None and path in sources else read(path)
        if source.text is None:
            yield FileResult(source, []), None
            continue
        key = cache.key(source.text, path, config, contexts[path])
        hit = cache.get(key, path)
        if hit is not None:
            yield FileResult(source, hit[0]), hit[1]
        else:
            keys[path] = key
            todo.append(path)
    for done, (source, checked) in enumerate(
        check_isolated(todo, config, jobs or os.cpu_count() or 1, contexts=contexts), start=1
    ):
        if cache is not None and source.path in keys and source.text is not None and not any(
            f.internal for f in checked.findings
        ):
            cache.put(keys[source.path], checked.findings, checked.summary)
        if progress is not None:
            progress(done, len(todo))
        yield FileResult(source, checked.findings), checked.summary


def check_isolated(
    paths: list[str], config: Config, workers: int, check: CheckBatch = _check_batch,
    contexts: dict[str, FileContext] | None = None,
) -> Iterator[tuple[SourceFile, FileCheck]]:
    """Every file checked in worker processes, so that one file that crashes the process
    (libcst's native parser) or outruns the watchdog costs only its own result. When a worker
    dies, the files not yet done are re-run one at a time in a one-worker pool: a file that
    breaks it is the culprit, reported as an internal error, and a fresh pool takes the rest."""
    # biggest files first, in many small batches: a free worker takes the next one, so the
    # run does not end waiting on one long batch (8 big batches cost ~12% on 2 cores)
    ordered = sorted(paths, key=_size, reverse=True)
    done: set[str] = set()
    size = max(1, len(ordered) // (workers * 32))
    batches = [ordered[i : i + size] for i in range(0, len(ordered), size)]
    try:
        with _pool(min(workers, len(batches))) as pool:
            for future in [pool.submit(check, batch, config, _only(contexts, batch)) for batch in batches]:
                for item in future.result():
                    done.add(item[0].path)
                    yield item
        return
    except BrokenProcessPool:
        pass
    # one file at a time: only the file in flight can break the pool, so it is the culprit
    pool = _pool(1)
    try:
        for path in (p for p in ordered if p not in done):
            try:
                checked = pool.submit(check, [path], config, _only(contexts, [path])).result()
            except BrokenProcessPool:
                pool.shutdown()
                pool = _pool(1)
                checked = [_crashed(path)]
            yield from checked
    finally:
        pool.shutdown()


def _only(contexts: dict[str, FileContext] | None, paths: list[str]) -> dict[str, FileContext]:
    """The non-empty contexts of `paths` (what a worker needs, and little to send it)."""
    if not contexts:
        return {}
    return {p: c for p in paths if (c := contexts.get(p, EMPTY_CONTEXT)) != EMPTY_CONTEXT}


def _pool(workers: int) -> ProcessPoolExecutor:
    """Workers that die with this process, even when it is killed (lifetime.die_with_parent).
    fork: the parent has imported the engine already, so a worker starts in milliseconds."""
    from . import runner  # noqa: F401 - the engine, imported before the workers fork
    from .lifetime import die_with_parent

    return ProcessPoolExecutor(
        max_workers=max(workers, 1), mp_context=multiprocessing.get_context("fork"),
        initializer=die_with_parent, initargs=(os.getpid(), tune_gc),
    )


def _crashed(path: str) -> tuple[SourceFile, FileCheck]:
    from .runner import FileCheck, internal_failure

    message = (
        f"checking this file crashed xport-lint's worker or ran past {FILE_TIME_LIMIT} s "
        "(libcst's parser on pathologically long or deep code); it was not checked"
    )
    source = read(path)
    return source, FileCheck([internal_failure(message)])


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def problem_finding(problem: str) -> Finding:
    from . import registry
    from .runner import SYNTAX_CODE

    rule = registry.RULES[SYNTAX_CODE]
    span = Span(Position(1, 0), Position(1, 0))
    return Finding(SYNTAX_CODE, rule.NAME, problem, Severity.ERROR, span, url=rule.url())
