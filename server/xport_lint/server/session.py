"""The session: one client's documents, settings and the last results, over the engine's
project model (analyzers/workspace.py) in the lint child (lint_process.py). Work is debounced
per document and run on one background thread; a result is published only for the document
version it was computed from, and only if that is still the latest version. Nothing here runs
analysis on the event loop."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from xport_lint.analyzers.lines import split_lines
from xport_lint.analyzers.model import Finding, Span

from . import confirmations, convert, models, rpc, suggestions
from .boundary import HandlerFailed
from .child import Stopped
from .documents import PythonLinesDocument
from .lint_process import Linted, LintProcess
from .settings import Settings

if TYPE_CHECKING:  # both import libcst: loaded with the engine, not with the server
    from xport_lint.analyzers.config import Config
    from xport_lint.analyzers.confirm import Confirmer

VERSION = "0.1.0"
FIX_ALL_KIND = "source.fixAll.xport-lint"
FIX_ALL_COMMAND = "xport-lint.fixAll"
CONFIRM_COMMAND = "xport-lint.confirm"
CANCEL_CONFIRM_COMMAND = "xport-lint.cancelConfirm"
ADD_EXAMPLE_COMMAND = "xport-lint.addExample"
REPAIR_COMMAND = "xport-lint.repair"
log = logging.getLogger("xport_lint.server")
#: seconds without an edit or a lint before the workspace index takes the lint thread
IDLE_BEFORE_INDEXING = 0.5

@dataclass(frozen=True)
class Result:
    version: int | None
    findings: list[Finding]
    diagnostics: list[types.Diagnostic]
    #: SHA-256 of the text checked (a confirmation's result holds for this text only)
    digest: str | None = None
    #: where the code lenses go, worked out with the findings (a lens request never parses)
    lenses: tuple[Lens, ...] = ()
    #: the model classes (name, 0-based line) and whether the file has an `xport_example()`:
    #: what the Add xport_example() action needs, without parsing on the event loop
    models: tuple[tuple[str, int], ...] = ()
    has_example: bool = False


@dataclass(frozen=True)
class SizeHovers:
    """What export makes of each input size of one text: (span, markdown, the span's text)."""

    #: (document version, session generation) they were computed for
    key: tuple[int | None, int]
    facts: tuple[tuple[Span, str, str], ...]


@dataclass(frozen=True)
class Lens:
    """A model class (0-based line) and what its lens offers."""

    line: int
    name: str
    command: str


class XportLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "xport-lint", VERSION, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    cells=[types.NotebookCellLanguage(language="python")], notebook="*")],
                save=True,
            ),
            protocol_cls=rpc.Protocol,
        )
        self.settings = Settings()
        self.debounce = 0.1
        self.results: dict[str, Result] = {}
        #: notebook uri -> (its cells and their versions, the check: cell uri -> findings in the cell's lines)
        self.notebook_results: dict[str, tuple[tuple[object, ...], asyncio.Future[dict[str, list[Finding]]]]] = {}
        #: bumped when results change without a new document version (settings, confirmation),
        #: so a pulled result id from before never reads as "unchanged"
        self.generation = 0
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.linter = LintProcess()
        self.configs: dict[str, Config] = {}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xport-lint")
        # confirmations run user code for up to minutes: never on the lint thread
        self.confirm_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xport-lint-confirm")
        self.confirmer: Confirmer | None = None
        #: uri -> the last confirmation run on it, for the text it ran on
        self.confirmations: dict[str, confirmations.Stored] = {}
        #: uris with a confirmation under way
        self.confirming: set[str] = set()
        #: uri -> the confirmation state last told to the client
        self.told: dict[str, str] = {}
        #: uri -> the input sizes' hovers last computed (a hover answers from them at once, on
        #: what still reads the same, while newer ones are computed)
        self.size_hovers: dict[str, SizeHovers] = {}
        self.size_refresh: dict[str, asyncio.Future[SizeHovers | None]] = {}
        self._toasted = False
        #: notes said once a session (a target torch outside the measured versions)
        self.said: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.indexing: asyncio.Future[None] | None = None
        #: set when an edit changed what a document defines or calls (the index needs a step)
        self.index_wanted = asyncio.Event()
        #: event-loop time of the last change to a document or the end of the last lint
        #: (indexing waits for a pause in both)
        self.last_activity = 0.0

    # -- settings and configuration -----------------------------------------------------

    def apply_settings(self, raw: object) -> None:
        settings, problems = Settings.from_json(raw)
        for problem in problems:
            self.log(f"settings: {problem}; using the default", types.MessageType.Warning)
        if self.confirmer is not None and (settings.python, settings.confirm_timeout, settings.confirm_memory_gb) != (
            self.settings.python,
            self.settings.confirm_timeout,
            self.settings.confirm_memory_gb,
        ):
            self.confirmer.close()
            self.confirmer = None
        self.settings = settings
        self.configs.clear()

    def config_for(self, uri: str) -> Config:
        from xport_lint.analyzers.config import Config, ConfigError

        path = to_fs_path(uri)
        directory = str(Path(path).parent) if path else ""
        base = self.configs.get(directory)
        if base is None:
            base = Config()
            folder = self._workspace_folder(path) if path else None
            if folder is not None:
                try:
                    # never above the workspace folder: a pyproject.toml beside it silenced it all
                    base = Config.discover(Path(directory), boundary=Path(folder))
                except ConfigError as error:
                    self.log(f"{error}; using defaults", types.MessageType.Warning)
            self.configs[directory] = base
        s = self.settings
        from xport_lint.analyzers.model import Severity

        severity = {**base.severity, **{k: Severity(v) for k, v in s.severity.items()}}
        config = base.merged(
            select=s.select, extend_select=s.extend_select, ignore=s.ignore, strict=s.strict, severity=severity,
            target_torch=s.target_torch,
        )
        note = config.target.note
        if note is not None and note not in self.said:  # once a session, not once a keystroke
            self.said.add(note)
            self.log(note, types.MessageType.Warning)
        return config

    def _in_workspace(self, path: str) -> bool:
        return self._workspace_folder(path) is not None

    def _workspace_folder(self, path: str) -> str | None:
        """The innermost workspace folder holding `path`, if any."""
        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        holding = [f for f in folders if f and os.path.commonpath([f, path]) == f]
        return max(holding, key=len) if holding else None

    # -- documents --------------------------------------------------------------------------

    def document(self, uri: str) -> TextDocument | None:
        """The open document; else the file on disk, read now (pygls' convention for a request
        on a document the client never opened); else None, and the request gets an empty answer
        (as ruff's and ty's servers do), not an error: a pull racing a close is no fault."""
        if uri in self.workspace.text_documents:
            return self.workspace.get_text_document(uri)
        from xport_lint.analyzers.files import read

        path = to_fs_path(uri) if uri.startswith("file:") else None
        text = read(path).text if path else None
        if text is None:
            return None
        return PythonLinesDocument(uri, source=text, position_codec=self.workspace.position_codec)

    # -- analysis ---------------------------------------------------------------------------

    def analyse_now(self, uri: str, source: str, version: int | None) -> Result:
        """Runs on the worker thread: the engine call, the conversion and the lenses' places."""
        if not self.settings.enable:
            return Result(version, [], [])
        digest = confirmations.digest(source)
        confirmed = self.confirmations.get(uri)
        suggestion = None
        if version is not None and uri in self.workspace.text_documents:
            if self.workspace.get_text_document(uri).version != version:
                return Result(version, [], [])  # stale: a newer version is queued; never published
        path = to_fs_path(uri) or uri
        linted = Linted([], [], False)
        try:
            linted = self.linter.lint(source, path, self.config_for(uri), uri in self.workspace.text_documents)
            for problem in linted.problems:
                self.log(problem, types.MessageType.Error)
            if linted.index_stale and self.loop is not None:
                self.loop.call_soon_threadsafe(self.index_wanted.set)
            findings = linted.findings
            if confirmed is not None and confirmed.digest == digest:
                findings, suggestion = confirmed.findings, confirmed.suggestion
        except Stopped:
            return Result(version, [], [])  # the server is stopping: nothing is published
        except Exception:  # noqa: BLE001 - a bug in the engine must not take the server down
            log.exception("xport-lint failed on %s", uri)
            self.toast_once()
            findings = []
        lines = split_lines(source)
        diagnostics = [convert.diagnostic(uri, lines, f) for f in findings]
        if suggestion is not None:
            diagnostics.append(suggestions.diagnostic(lines, suggestion))
        lenses = self._lenses(len(lines), findings, linted)
        return Result(version, findings, diagnostics, digest, lenses, linted.models, linted.example_builds is not None)

    def _lenses(self, line_count: int, findings: list[Finding], linted: Linted) -> tuple[Lens, ...]:
        """`codeLens`: all: one above each model class ("Confirm with draft_export", or "Add
        xport_example()" without one); failing: at most one a file, above the model
        `xport_example()` builds, else above the first model with an error (one that exports
        nothing), else none; off: none."""
        mode = self.settings.code_lens
        if mode == "off":
            return ()
        built = linted.example_builds
        command = CONFIRM_COMMAND if built is not None else ADD_EXAMPLE_COMMAND
        lenses = tuple(Lens(line, name, command) for name, line in linted.models)
        if mode == "all" or not lenses:
            return lenses
        if built is not None:
            return tuple(lens for lens in lenses if lens.name in built)[:1] or lenses[:1]
        errors = sorted(f.span.start.line - 1 for f in findings if f.severity.value == "error")
        ends = [lens.line for lens in lenses[1:]] + [line_count]
        failing = [lens for lens, end in zip(lenses, ends, strict=True) if any(lens.line <= e < end for e in errors)]
        return tuple(failing[:1])

    async def analyse(self, uri: str) -> Result:
        """The open document's result (cached per version), or the file's on disk (never cached:
        nothing tells when it changes), or no findings for a document that is neither."""
        document = self.document(uri)
        if document is None:
            return Result(None, [], [])
        if self.workspace.get_notebook_document(cell_uri=uri) is not None:
            return await self.analyse_cell(uri, document.version)
        cached = self.results.get(uri)
        if cached is not None and cached.version == document.version and document.version is not None:
            return cached
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self.executor, self.analyse_now, uri, document.source, document.version)
        if self.is_open(uri, result.version):
            self.results[uri] = result
        return result

    async def analyse_cell(self, uri: str, version: int | None) -> Result:
        """A notebook cell's result: its notebook's code cells checked as one module (a model in
        one cell reaches its helper in another), each finding in its own cell's lines."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        assert notebook is not None
        documents = [(c.document, self.workspace.get_text_document(c.document)) for c in notebook.cells]
        key = (self.generation,
               *((c.document, c.kind, d.version) for c, (_, d) in zip(notebook.cells, documents, strict=True)))
        cached = self.notebook_results.get(notebook.uri)
        if cached is None or cached[0] != key:  # one check per notebook version, whichever cell asks
            cells = [(u, d.source if c.kind == types.NotebookCellKind.Code else None)
                     for c, (u, d) in zip(notebook.cells, documents, strict=True)]
            loop = asyncio.get_running_loop()
            cached = key, loop.run_in_executor(self.executor, self.analyse_notebook_now, notebook.uri, cells)
            self.notebook_results[notebook.uri] = cached
        findings = (await asyncio.shield(cached[1])).get(uri, [])
        lines = split_lines(self.workspace.get_text_document(uri).source)
        return Result(version, findings, [convert.diagnostic(uri, lines, f) for f in findings])

    def analyse_notebook_now(self, uri: str, cells: list[tuple[str, str | None]]) -> dict[str, list[Finding]]:
        """Runs on the worker thread: the notebook's findings by cell uri, each in its cell's
        lines. `cells`: each cell's uri and text (None: not code)."""
        from xport_lint.analyzers.notebooks import from_cells

        notebook = from_cells([source for _, source in cells])
        per_cell: dict[str, list[Finding]] = {}
        for finding in self.analyse_now(uri, notebook.text, None).findings:
            number, moved = notebook.in_cell(finding)
            per_cell.setdefault(cells[number - 1][0], []).append(moved)
        return per_cell

    def is_open(self, uri: str, version: int | None) -> bool:
        """`uri` is open in the editor at `version`."""
        documents = self.workspace.text_documents
        return version is not None and uri in documents and documents[uri].version == version

    def schedule(self, uri: str, delay: float | None = None) -> None:
        """Re-check `uri` after the debounce; a newer change cancels this one."""
        if self.loop is not None:
            self.last_activity = self.loop.time()
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = asyncio.ensure_future(
            self._check_and_publish(uri, self.debounce if delay is None else delay)
        )

    async def _check_and_publish(self, uri: str, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            result = await self.analyse(uri)
        except asyncio.CancelledError:
            return
        finally:
            if self.loop is not None:
                self.last_activity = self.loop.time()

        if uri not in self.workspace.text_documents:
            return  # closed meanwhile
        if result.version != self.workspace.get_text_document(uri).version:
            return  # stale: a newer version is on its way
        self.tell_confirmation(uri, result.digest)
        # a notebook cell's are pushed to every client: VS Code's client (vscode-languageclient 9)
        # pulls diagnostics for text editors' documents only, never for notebook cells
        if self.push_diagnostics or self.workspace.get_notebook_document(cell_uri=uri) is not None:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=result.diagnostics, version=result.version)
            )
        models.service.changed(self)

    @property
    def push_diagnostics(self) -> bool:
        """Push only to clients that cannot pull (pull avoids duplicate work and stale results)."""
        text_document = self.client_capabilities.text_document
        return text_document is None or text_document.diagnostic is None

    def relint_open_documents(self) -> None:
        self.generation += 1
        self.results.clear()
        self.confirmations.clear()  # settings changed: a result may no longer hold; told as "none"
        for uri in list(self.workspace.text_documents):
            self.schedule(uri, 0)
        workspace = self.client_capabilities.workspace
        if workspace is not None and workspace.diagnostics is not None and workspace.diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def relint_paths(self, paths: list[str]) -> None:
        """Open documents whose project context changed (another file's edit, the workspace
        index finished): checked again, and pulled again by pull clients."""
        wanted = set(paths)
        uris = [uri for uri in self.workspace.text_documents if (to_fs_path(uri) or uri) in wanted]
        if not uris:
            return
        self.generation += 1
        for uri in uris:
            self.results.pop(uri, None)
            self.schedule(uri, 0)
        workspace = self.client_capabilities.workspace
        if workspace is not None and workspace.diagnostics is not None and workspace.diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    async def index_workspace(self) -> None:
        """The project index of the workspace folders, built on the lint thread about 50 ms at a
        time, and only while no lint is due or running and neither an edit nor a lint came in
        the last half second (a step queued behind a long lint made the next keystroke's
        diagnostics wait for it too); kept up to date after edits that change what a document
        calls or defines. Open documents whose context it changes are checked again."""
        folders = [p for f in self.workspace.folders.values() if (p := to_fs_path(f.uri))]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        if not folders or not self.settings.enable:
            return
        config = self.config_for(Path(folders[0], "__init__.py").as_uri())
        loop = asyncio.get_running_loop()
        announced = False
        try:
            while True:
                while self.linting() or loop.time() - self.last_activity < IDLE_BEFORE_INDEXING:
                    await asyncio.sleep(IDLE_BEFORE_INDEXING / 2)
                done, affected = await loop.run_in_executor(self.executor, self.linter.index_step, folders, config)
                self.relint_paths(affected)
                if done:
                    if not announced:
                        self.log(f"project index of {', '.join(folders)} ready")
                        announced = True
                    await self.index_wanted.wait()
                    self.index_wanted.clear()
        except Stopped:
            return
        except Exception:  # noqa: BLE001 - without the index, files are still checked one by one
            log.exception("xport-lint could not index the workspace")

    def linting(self) -> bool:
        """A document's lint is waiting for its debounce or running."""
        return any(not task.done() for task in self.pending.values())

    def stop_confirmer(self) -> None:
        """The worker runs in its own session: stop it explicitly, or it outlives the server."""
        self.linter.close()
        models.service.close()
        if self.confirmer is not None:
            self.confirmer.close()
            self.confirmer = None

    # -- confirmation results ----------------------------------------------------------------

    def tell_confirmation(self, uri: str, digest: str | None) -> None:
        """`xport-lint/confirmationChanged` when the file's confirmation state differs from what
        the client was last told (a run started or ended, an edit made the result stale, an
        undo made it fresh); nothing for a file never confirmed."""
        stored = self.confirmations.get(uri)
        running = uri in self.confirming
        state = confirmations.state(stored, digest, running)
        if self.told.get(uri, "none") == state:
            return
        self.told[uri] = state
        self.protocol.notify(confirmations.CHANGED, confirmations.payload(uri, stored, digest, running))
        workspace = self.client_capabilities.workspace
        if workspace is not None and workspace.code_lens is not None and workspace.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    # -- logging ------------------------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        if self.protocol._workspace is None:  # LSP: nothing goes to the client before `initialize`
            print(f"xport-lint: {message}", file=sys.stderr)
            return
        self._on_loop(self.window_log_message, types.LogMessageParams(type=kind, message=message))

    def toast_once(self) -> None:
        if not self._toasted:
            self._toasted = True
            params = types.ShowMessageParams(
                type=types.MessageType.Error, message="xport-lint hit a problem; see Output"
            )
            self._on_loop(self.window_show_message, params)

    def _on_loop(self, send: Callable[[Any], object], params: object) -> None:
        """Messages from the worker thread are sent from the event loop's thread."""
        loop = self.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is not None and running is not loop:
            loop.call_soon_threadsafe(send, params)
        else:
            send(params)

    def report_server_error(self, error: Exception, source: object) -> None:
        """pygls reports both the client's faults (invalid params, an unknown method, a message
        it could not read), which the client has had its answer to: logged only; and the
        server's own failures: logged, and one toast per session (ruff's convention)."""
        if source is JsonRpcException or (
            isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError)
        ):
            log.warning("protocol: %s", error)
            return
        if isinstance(error, HandlerFailed):  # the boundary logged it, with its traceback
            self.toast_once()
            return
        log.error("server error (%s): %r", getattr(source, "__name__", source), error)
        self.toast_once()

    def serve_stdio(self) -> int:
        """Serve the client on stdin/stdout until `exit`, or until the input ends or cannot be read
        as messages (rpc.serve); the exit status to end the process with."""
        self.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
        try:
            return asyncio.run(rpc.serve(self.protocol, sys.stdin.buffer, self.thread_pool))
        except BrokenPipeError:  # the client no longer reads what the server writes
            return 1
