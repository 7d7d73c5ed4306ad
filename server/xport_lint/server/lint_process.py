"""The engine runs in a child process: linting is CPU-bound Python, and in the server's own
process it would compete with the event loop for the GIL (hovers waited hundreds of ms under
load). A crash in the child (a hostile file) costs a restart, not the server."""

from __future__ import annotations

import ast
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .child import Child, Stopped

if TYPE_CHECKING:  # the engine is imported in the child only
    from xport_lint.analyzers.config import Config
    from xport_lint.analyzers.incremental import ChunkedParser, Top
    from xport_lint.analyzers.model import Finding, Span
    from xport_lint.analyzers.workspace import Workspace


_parser: ChunkedParser | None = None


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


#: seconds of indexing per step (at least one file): a lint waits for at most one step
INDEX_STEP_SECONDS = 0.05

#: the engine's project model (workspace.Workspace), made on first use: the summaries of the
#: files on disk (indexed a few at a time between lints, through the findings cache) and of the
#: open documents (from their editor text). Every request asks it for the file's project context.
_workspace: Workspace | None = None


def _the_workspace(config: Config) -> Workspace:
    global _workspace
    if _workspace is None:
        from xport_lint.analyzers.workspace import Workspace

        _workspace = Workspace(config)
    _workspace.config = config  # settings may have changed since the last request
    return _workspace


@dataclass(frozen=True)
class Linted:
    """A document's lint, as the child hands it to the server."""

    findings: list[Finding]
    #: the engine's log lines (a failing rule), which the server forwards
    problems: list[str]
    #: the project index needs a step (the document's summary changed)
    index_stale: bool
    #: the model classes: (name, 0-based line), where lenses and Add xport_example() go
    models: tuple[tuple[str, int], ...] = ()
    #: the names `xport_example()` calls (the model it builds is among them); None: no example
    example_builds: frozenset[str] | None = None


def _lint(source: str, path: str, config: Config, is_open: bool) -> Linted:
    """Runs in the child: one parser (statement cache) for every document, and the places of
    the model classes (parsing them in the server would take the GIL from its event loop)."""
    global _parser
    from xport_lint.analyzers.incremental import ChunkedParser
    from xport_lint.analyzers.workers import tune_gc

    if _parser is None:
        # the engine's heap holds every open document's trees: at CPython's default thresholds
        # an edit of a 20,000-line module ran the cyclic collector 571 times, 2 of them over the
        # whole heap (counted); tuned as the CLI is, once
        tune_gc()
        _parser = ChunkedParser()
    collect = _Collect()
    engine_log = logging.getLogger("xport_lint")
    engine_log.addHandler(collect)
    try:
        workspace = _the_workspace(config)
        if is_open:
            checked, stale = workspace.update(path, source, _parser)
        else:
            checked, stale = workspace.check(path, source, _parser), False
        parsed, tops = _parser.last
        models, builds = _models(source, tops if parsed is source else None)
        return Linted(checked.findings, collect.lines, stale, models, builds)
    finally:
        engine_log.removeHandler(collect)


def _models(source: str, tops: list[Top] | None) -> tuple[tuple[tuple[str, int], ...], frozenset[str] | None]:
    """The model classes (name, 0-based line), and the names `xport_example()` calls (None
    without one), from the top-level statements the lint's parser found (the text parsed again
    only without them)."""
    from xport_lint.analyzers.confirm import has_example, model_classes

    if tops is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return (), None if not has_example(source) else frozenset()
        models = tuple((name, line - 1) for name, line, _ in model_classes(source, tree))
        if not has_example(source):
            return models, None
        example = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "xport_example"), None)
        if example is None:
            return models, frozenset()
        calls = (node for node in ast.walk(example) if isinstance(node, ast.Call))
        return models, frozenset(call.func.id for call in calls if isinstance(call.func, ast.Name))
    models = tuple((name, line - 1) for top in tops for name, line, _ in top.models)
    if not has_example(source):
        return models, None
    return models, next((top.example_calls for top in tops if top.example_calls is not None), frozenset())


def _size_facts(source: str, path: str, config: Config) -> list[tuple[Span, str]]:
    return _the_workspace(config).size_facts(path, source)


def _fix_all(source: str, path: str, config: Config) -> str:
    return _the_workspace(config).fix(path, source, unsafe=False)


def _index_step(folders: list[str], config: Config) -> tuple[bool, list[str]]:
    return _the_workspace(config).index_step(folders, INDEX_STEP_SECONDS)


def _closed(path: str) -> None:
    if _workspace is not None:
        _workspace.close(path)


def _warm_up() -> None:
    """The engine and its rules (which load on first use), imported before the first lint."""
    from xport_lint.analyzers import registry, runner  # noqa: F401

    registry.select(["ALL"])


class LintProcess:
    def __init__(self) -> None:
        self._child = Child()

    def warm_up(self) -> None:
        self._child.call(_warm_up)

    def lint(self, source: str, path: str, config: Config, is_open: bool = True) -> Linted:
        """Blocks the calling thread (not the event loop) until the child answers. `is_open`: the
        text is an open document's (it stands for the file in the project index)."""
        return self._child.call(_lint, source, path, config, is_open)

    def size_facts(self, source: str, path: str, config: Config) -> list[tuple[Span, str]]:
        """(span, markdown) for each input size the document's models read (runner.size_facts)."""
        return self._child.call(_size_facts, source, path, config)

    def fix_all(self, source: str, path: str, config: Config) -> str:
        """`source` with every safe fix applied, round after round (runner.fix_source)."""
        return self._child.call(_fix_all, source, path, config)

    def index_step(self, folders: list[str], config: Config) -> tuple[bool, list[str]]:
        """Index a few more workspace files: (all done, open documents to lint again)."""
        return self._child.call(_index_step, folders, config)

    def closed(self, path: str) -> None:
        """The document's text no longer stands for its file in the project index."""
        try:
            self._child.call(_closed, path)
        except Stopped:
            pass  # the server is stopping: its index goes with it

    def close(self) -> None:
        """Stop the child now (a lint in progress is abandoned): the server is stopping."""
        self._child.close()
