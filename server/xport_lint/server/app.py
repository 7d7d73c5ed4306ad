"""The language server: LSP in, `check_source` per document, LSP out. No analysis here.

Work is debounced per document and run on one background thread; a result is published only
for the document version it was computed from, and only if that is still the latest version.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import logging
import os
import signal
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from xport_lint.analyzers.lines import split_lines

from . import confirmations, convert, models, rpc, suggestions, words
from .lint_process import LintProcess
from .settings import Settings

VERSION = "0.1.0"
FIX_ALL_KIND = "source.fixAll.xport-lint"
FIX_ALL_COMMAND = "xport-lint.fixAll"
CONFIRM_COMMAND = "xport-lint.confirm"
CANCEL_CONFIRM_COMMAND = "xport-lint.cancelConfirm"
ADD_EXAMPLE_COMMAND = "xport-lint.addExample"
REPAIR_COMMAND = "xport-lint.repair"
log = logging.getLogger("xport_lint.server")
#: seconds without an edit before the workspace index takes the lint thread
IDLE_BEFORE_INDEXING = 0.5


class _PythonLinesDocument(TextDocument):
    """pygls splits lines with `str.splitlines`, which also breaks at U+2028, U+0085, form
    feed...: an incremental edit after one lands on the wrong line, and the server's copy drifts
    from the editor's. LSP (like Python) breaks lines only at \\n, \\r\\n and \\r."""

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(split_lines(self.source))


class _UnquotedKeys(dict[str, TextDocument]):
    """pygls keys open documents by their unquoted URI; VS Code's notebook cell URIs are quoted
    (`...notebook.ipynb#W0sZmlsZQ%3D%3D`): a lookup by the URI as the client sent it finds them."""

    def __contains__(self, uri: object) -> bool:
        return isinstance(uri, str) and super().__contains__(unquote(uri))

    def __getitem__(self, uri: str) -> TextDocument:
        return super().__getitem__(unquote(uri))

    def get(self, uri: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(unquote(uri), default)


class _PythonLinesWorkspace(Workspace):
    @property
    def text_documents(self) -> dict[str, TextDocument]:
        if not isinstance(self._text_documents, _UnquotedKeys):
            self._text_documents = _UnquotedKeys(self._text_documents)
        return self._text_documents

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return _PythonLinesDocument(doc_uri, source=source, version=version, language_id=language_id,
                                    sync_kind=self._sync_kind, position_codec=self._position_codec)


@dataclass(frozen=True)
class Result:
    version: int | None
    findings: list[Any]
    diagnostics: list[types.Diagnostic]
    #: SHA-256 of the text checked (a confirmation's result holds for this text only)
    digest: str | None = None
    #: where the code lenses go, worked out with the findings (a lens request never parses)
    lenses: tuple[Lens, ...] = ()


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
        self.notebook_results: dict[str, tuple[Any, asyncio.Future[dict[str, list[Any]]]]] = {}
        #: bumped when results change without a new document version (settings, confirmation),
        #: so a pulled result id from before never reads as "unchanged"
        self.generation = 0
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.linter = LintProcess()
        self.configs: dict[str, Any] = {}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xport-lint")
        # confirmations run user code for up to minutes: never on the lint thread
        self.confirm_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xport-lint-confirm")
        self.confirmer: Any = None
        #: uri -> the last confirmation run on it, for the text it ran on
        self.confirmations: dict[str, confirmations.Stored] = {}
        #: uris with a confirmation under way
        self.confirming: set[str] = set()
        #: uri -> the confirmation state last told to the client
        self.told: dict[str, str] = {}
        #: uri -> ((version, generation), the input sizes' hovers): one computation a version
        self.size_hovers: dict[str, tuple[tuple[int | None, int], list[Any]]] = {}
        self._toasted = False
        #: notes said once a session (a target torch outside the measured versions)
        self.said: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.indexing: asyncio.Future[None] | None = None
        #: set when an edit changed what a document defines or calls (the index needs a step)
        self.index_wanted = asyncio.Event()
        #: event-loop time of the last change to a document (indexing waits for a pause)
        self.last_edit = 0.0

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

    def config_for(self, uri: str) -> Any:
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
        return _PythonLinesDocument(uri, source=text, position_codec=self.workspace.position_codec)

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
        try:
            is_open = uri in self.workspace.text_documents
            findings, problems, index_stale = self.linter.lint(source, path, self.config_for(uri), is_open)
            for problem in problems:
                self.log(problem, types.MessageType.Error)
            if index_stale and self.loop is not None:
                self.loop.call_soon_threadsafe(self.index_wanted.set)
            if confirmed is not None and confirmed.digest == digest:
                findings, suggestion = confirmed.findings, confirmed.suggestion
        except Exception:  # noqa: BLE001 - a bug in the engine must not take the server down
            log.exception("xport-lint failed on %s", uri)
            self.toast_once()
            findings = []
        lines = split_lines(source)
        diagnostics = [convert.diagnostic(uri, lines, f) for f in findings]
        if suggestion is not None:
            diagnostics.append(suggestions.diagnostic(lines, suggestion))
        return Result(version, findings, diagnostics, digest, self._lenses(source, findings))

    def _lenses(self, source: str, findings: list[Any]) -> tuple[Lens, ...]:
        """`codeLens`: all: one above each model class ("Confirm with draft_export", or "Add
        xport_example()" without one); failing: at most one a file, above the model
        `xport_example()` builds, else above the first model with an error (one that exports
        nothing), else none; off: none."""
        from xport_lint.analyzers.confirm import has_example, model_classes

        mode = self.settings.code_lens
        if mode == "off":
            return ()
        command = CONFIRM_COMMAND if has_example(source) else ADD_EXAMPLE_COMMAND
        classes = model_classes(source)
        lenses = tuple(Lens(line - 1, name, command) for name, line, _ in classes)
        if mode == "all" or not lenses:
            return lenses
        if command == CONFIRM_COMMAND:
            built = _example_models(source)
            return tuple(lens for lens in lenses if lens.name in built)[:1] or lenses[:1]
        errors = sorted(f.span.start.line - 1 for f in findings if f.severity.value == "error")
        ends = [lens.line for lens in lenses[1:]] + [len(split_lines(source))]
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

    def analyse_notebook_now(self, uri: str, cells: list[tuple[str, str | None]]) -> dict[str, list[Any]]:
        """Runs on the worker thread: the notebook's findings by cell uri, each in its cell's
        lines. `cells`: each cell's uri and text (None: not code)."""
        from xport_lint.analyzers.notebooks import from_cells

        notebook = from_cells([source for _, source in cells])
        per_cell: dict[str, list[Any]] = {}
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
            self.last_edit = self.loop.time()
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
        time, and only while no edit came in the last half second (an edit's diagnostics never
        wait for it); kept up to date after edits that change what a document calls or defines.
        Open documents whose context it changes are checked again."""
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
                while loop.time() - self.last_edit < IDLE_BEFORE_INDEXING:
                    await asyncio.sleep(IDLE_BEFORE_INDEXING / 2)
                done, affected = await loop.run_in_executor(self.executor, self.linter.index_step, folders, config)
                self.relint_paths(affected)
                if done:
                    if not announced:
                        self.log(f"project index of {', '.join(folders)} ready")
                        announced = True
                    await self.index_wanted.wait()
                    self.index_wanted.clear()
        except Exception:  # noqa: BLE001 - without the index, files are still checked one by one
            log.exception("xport-lint could not index the workspace")

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

    def _on_loop(self, send: Any, params: Any) -> None:
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

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls reports both the client's faults (invalid params, an unknown method, a message
        it could not read), which the client has had its answer to: logged only; and the
        server's own failures: logged, and one toast per session (ruff's convention)."""
        if source is JsonRpcException or (
            isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError)
        ):
            log.warning("protocol: %s", error)
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


class _ClientLogHandler(logging.Handler):
    """Engine and server log records go to the client's output (window/logMessage)."""

    def __init__(self, server: XportLanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        kind = types.MessageType.Error if record.levelno >= logging.ERROR else types.MessageType.Log
        try:
            self.server.log(self.format(record), kind)
        except Exception:  # noqa: BLE001 - logging must never raise
            pass


server = XportLanguageServer()
models.register(server)


@server.feature(types.INITIALIZE)
def initialize(ls: XportLanguageServer, params: types.InitializeParams) -> None:
    ls.workspace.__class__ = _PythonLinesWorkspace  # pygls builds it just before this handler
    try:
        ls.loop = asyncio.get_running_loop()
    except RuntimeError:
        ls.loop = None
    ls.apply_settings(params.initialization_options)
    if isinstance(params.initialization_options, dict):
        debounce = params.initialization_options.get("debounceMs")
        if isinstance(debounce, (int, float)) and 0 <= debounce <= 5000:
            ls.debounce = debounce / 1000


@server.feature(types.INITIALIZED)
async def initialized(ls: XportLanguageServer, params: types.InitializedParams) -> None:
    await _fetch_configuration(ls)
    ls.indexing = asyncio.ensure_future(ls.index_workspace())
    workspace = ls.client_capabilities.workspace
    watch = workspace.did_change_watched_files if workspace else None
    if watch is not None and watch.dynamic_registration:
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="xport-lint-pyproject",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
                            ),
                        )
                    ]
                )
            )
        except Exception as error:  # noqa: BLE001 - without the watcher, saves still re-check
            ls.log(f"could not watch pyproject.toml: {error}", types.MessageType.Warning)
    # load the engine now, off the loop, so the first diagnostics do not pay for the import
    await asyncio.get_running_loop().run_in_executor(ls.executor, _warm_up, ls)
    ls.log(f"xport-lint {VERSION} ready")


def _warm_up(ls: XportLanguageServer) -> None:
    from xport_lint.analyzers import registry  # noqa: F401 - hover and code actions need it

    ls.linter.warm_up()


async def _fetch_configuration(ls: XportLanguageServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    try:
        (value,) = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="xport-lint")])
        )
    except Exception as error:  # noqa: BLE001 - a client that fails this keeps the init settings
        ls.log(f"workspace/configuration failed: {error}", types.MessageType.Warning)
        return
    if value is not None:
        ls.apply_settings(value)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: XportLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings
    if isinstance(settings, dict) and settings:
        ls.apply_settings(settings)
    else:
        await _fetch_configuration(ls)
    ls.relint_open_documents()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: XportLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    if any(change.uri.endswith("pyproject.toml") for change in params.changes):
        ls.configs.clear()
        ls.relint_open_documents()


@server.feature(types.SHUTDOWN)
def shutdown(ls: XportLanguageServer, params: None) -> None:
    ls.stop_confirmer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: XportLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: XportLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
    for cell in params.notebook_document.cells:
        ls.schedule(cell.document, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: XportLanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
    """Any cell's edit can change every cell's findings (a helper in one, its caller in another)."""
    notebook = ls.workspace.get_notebook_document(notebook_uri=params.notebook_document.uri)
    for cell in notebook.cells if notebook is not None else ():
        ls.schedule(cell.document)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: XportLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.notebook_results.pop(params.notebook_document.uri, None)
    for cell in params.cell_text_documents:
        task = ls.pending.pop(cell.uri, None)
        if task is not None:
            task.cancel()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: XportLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)
    _forget_finished_notifications(ls)


def _forget_finished_notifications(ls: XportLanguageServer) -> None:
    """pygls 2.1 files every notification's future under a fresh uuid in `_request_futures`
    and never removes it: each edit kept its message and futures alive (about 2.5 KB per
    edit, measured over 8,000 edits). Finished ones are dropped here; pending ones (requests
    still running) stay."""
    futures = getattr(ls.protocol, "_request_futures", None)
    if isinstance(futures, dict) and len(futures) > 64:
        for key in [key for key, future in futures.items() if future.done()]:
            del futures[key]


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: XportLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: XportLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.results.pop(uri, None)
    ls.confirmations.pop(uri, None)
    ls.told.pop(uri, None)
    ls.size_hovers.pop(uri, None)
    path = to_fs_path(uri)
    if path:
        asyncio.get_running_loop().run_in_executor(ls.executor, ls.linter.closed, path)
    if ls.push_diagnostics:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="xport-lint", inter_file_dependencies=False, workspace_diagnostics=True),
)
async def document_diagnostic(
    ls: XportLanguageServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    uri = params.text_document.uri
    result = await ls.analyse(uri)
    if not ls.is_open(uri, result.version):  # a file on disk, or none: no id to compare with later
        return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics)
    result_id = f"{uri}@{result.version}#{ls.generation}"
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics, result_id=result_id)


@server.feature(types.WORKSPACE_DIAGNOSTIC)
async def workspace_diagnostic(
    ls: XportLanguageServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    from pygls.uris import from_fs_path

    from xport_lint.analyzers.files import discover, read

    items: list[types.WorkspaceDocumentDiagnosticReport] = []
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()] or [ls.workspace.root_path]
    loop = asyncio.get_running_loop()
    for folder in filter(None, folders):
        for path in await loop.run_in_executor(ls.executor, discover, [folder]):
            uri = from_fs_path(path) or path
            if uri in ls.workspace.text_documents:
                result = await ls.analyse(uri)
            else:
                source = await loop.run_in_executor(ls.executor, read, path)
                if source.text is None:
                    continue
                result = await loop.run_in_executor(ls.executor, ls.analyse_now, uri, source.text, None)
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=result.version, items=result.diagnostics)
            )
    return types.WorkspaceDiagnosticReport(items=items)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.Refactor,
            types.CodeActionKind.SourceFixAll,
            FIX_ALL_KIND,
        ],
        resolve_provider=True,
    ),
)
def code_action(ls: XportLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    document = ls.document(uri)
    if document is None:
        return []
    actions: list[types.CodeAction] = []
    disable: list[types.CodeAction] = []  # after every fix: Ctrl+. then Enter must never pick it
    only = params.context.only
    wants_quickfix = not only or any(k.startswith(types.CodeActionKind.QuickFix) for k in only)
    if wants_quickfix:
        actions.extend(_suggestion_actions(ls, document, params.range))
    for diagnostic in params.context.diagnostics:
        data = diagnostic.data
        if diagnostic.source != convert.SOURCE or not isinstance(data, dict) or not wants_quickfix:
            continue
        if data.get("suggestion"):
            continue  # offered above, from the stored confirmation
        fix = data.get("fix")
        if fix:
            actions.append(
                types.CodeAction(
                    title=f"{data['code']}: {fix['title']}" + ("" if fix["safe"] else " (unsafe)"),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=bool(fix["safe"]),
                    edit=types.WorkspaceEdit(changes={uri: convert.edits_from_data(fix)}),
                )
            )
        disable.append(
            types.CodeAction(
                title=f"{data['code']}: Disable for this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=types.WorkspaceEdit(changes={uri: [convert.edit_from_data(data["noqa"])]}),
            )
        )
    actions.extend(disable)
    if not only or any(k.startswith(types.CodeActionKind.Refactor) for k in only):
        actions.extend(_add_example_actions(document, params.range))
    wants_fix_all = not only or any(FIX_ALL_KIND.startswith(k) or k.startswith(FIX_ALL_KIND) for k in only)
    if wants_fix_all:
        actions.append(
            types.CodeAction(
                title="xport-lint: Fix all safely fixable issues",
                kind=FIX_ALL_KIND,
                data={"uri": uri},
            )
        )
    return actions


def _suggestion_actions(ls: XportLanguageServer, document: TextDocument, where: types.Range) -> list[types.CodeAction]:
    """After a confirmation whose export failed on `dynamic_shapes`, on the example's
    `dynamic_shapes` (where its diagnostic is): torch's suggestion, preferred when export then
    passes, titled with what it changes. From the stored result of this very text only."""
    result = ls.results.get(document.uri)
    stored = ls.confirmations.get(document.uri)
    if result is None or stored is None or stored.suggestion is None or stored.digest != result.digest:
        return []
    if not ls.is_open(document.uri, result.version):
        return []
    diagnostic = next((d for d in result.diagnostics if isinstance(d.data, dict) and d.data.get("suggestion")), None)
    if diagnostic is None or not _overlaps(diagnostic.range, where):
        return []
    suggestion = stored.suggestion
    lines = list(document.lines)
    return [
        types.CodeAction(
            title=suggestion.title + ("" if suggestion.export_ok else " (export still fails after it)"),
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=suggestion.export_ok,
            edit=types.WorkspaceEdit(changes={document.uri: [convert.text_edit(lines, e) for e in suggestion.edits]}),
        )
    ]


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)
    )


def _add_example_actions(document: TextDocument, where: types.Range) -> list[types.CodeAction]:
    from xport_lint.analyzers.confirm import has_example, model_classes

    source = document.source
    if has_example(source):
        return []
    return [
        types.CodeAction(
            title=f"Add xport_example() for {name} (to confirm with draft_export)",
            kind=types.CodeActionKind.Refactor,
            edit=add_example_edit(document.uri, source, name),
        )
        for name, line, _ in model_classes(source)
        if where.start.line <= line - 1 <= where.end.line
    ]


@server.feature(types.CODE_ACTION_RESOLVE)
async def code_action_resolve(ls: XportLanguageServer, action: types.CodeAction) -> types.CodeAction:
    if action.kind == FIX_ALL_KIND:
        uri = action.data.get("uri") if isinstance(action.data, dict) else None
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(f"{FIX_ALL_KIND} action without the document's uri in its data")
        action.edit = await fix_all_edit(ls, uri)
    return action


async def fix_all_edit(ls: XportLanguageServer, uri: str) -> types.WorkspaceEdit:
    """Safe fixes, applied until none is left, as one whole-document edit; none for a document
    that is neither open nor on disk. The fixing (libcst, CPU-bound) runs in the lint process,
    never on the event loop."""
    document = ls.document(uri)
    if document is None:
        return types.WorkspaceEdit(changes={})
    original = document.source
    loop = asyncio.get_running_loop()
    text = await loop.run_in_executor(
        ls.executor, ls.linter.fix_all, original, to_fs_path(uri) or uri, ls.config_for(uri)
    )
    if document.version is not None and not ls.is_open(uri, document.version):
        # edited (or closed) meanwhile: a whole-document edit of the old text would undo the edit
        raise JsonRpcContentModified(f"{uri} changed while its fixes were computed")
    if text == original:
        return types.WorkspaceEdit(changes={uri: []})
    lines = split_lines(original)
    end = types.Position(line=len(lines), character=0)
    whole = types.Range(start=types.Position(line=0, character=0), end=end)
    return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=text)]})


@server.command(FIX_ALL_COMMAND)
async def fix_all_command(ls: XportLanguageServer, uri: str) -> None:
    edit = await fix_all_edit(ls, uri)
    if edit.changes:
        await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="xport-lint: Fix all"))


@server.command(CONFIRM_COMMAND)
async def confirm_command(ls: XportLanguageServer, uri: str, *_: Any) -> dict[str, Any]:
    """Run draft_export on the file's example: only when asked, only in a trusted workspace."""
    refusal = _confirm_refusal(ls, uri)
    if refusal is not None:
        status, message = refusal
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return {"status": status, "summary": message}
    document = ls.document(uri)
    if document is None:
        return {"status": "refused", "summary": f"xport-lint: cannot confirm {uri}: no such file"}
    path = to_fs_path(uri)
    try:
        on_disk = Path(path).read_text(encoding="utf-8") if path else None
    except OSError:
        on_disk = None
    if on_disk != document.source:
        message = "xport-lint: save the file first; confirmation imports it from disk"
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return {"status": "unsaved", "summary": message}
    token = f"xport-lint-confirm-{uuid.uuid4()}"  # a token per request: the client keeps used ones
    progress = ls.client_capabilities.window is not None and bool(ls.client_capabilities.window.work_done_progress)
    if progress:
        await ls.work_done_progress.create_async(token)
        # the client's Cancel cancels this future: kill the worker, which ends the request
        ls.work_done_progress.tokens[token].add_done_callback(
            lambda future: future.cancelled() and ls.confirmer is not None and ls.confirmer.worker.cancel()
        )
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="Confirming with draft_export", message=Path(path).name, cancellable=True
            ),
        )
    loop = asyncio.get_running_loop()
    digest = confirmations.digest(document.source)
    ls.confirming.add(uri)
    ls.tell_confirmation(uri, digest)
    try:
        outcome = await loop.run_in_executor(
            ls.confirm_executor, _run_confirmation, ls, uri, document.source, document.version
        )
        ls.confirmations[uri] = await loop.run_in_executor(
            ls.confirm_executor, confirmations.stored, outcome, document.source
        )
    finally:
        ls.confirming.discard(uri)
        if progress:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
        now = ls.workspace.text_documents.get(uri)
        ls.tell_confirmation(uri, confirmations.digest(now.source) if now is not None else digest)
    models.service.confirmed(ls, path, document.source, outcome)
    ls.generation += 1
    ls.results.pop(uri, None)
    ls.schedule(uri, 0)
    workspace = ls.client_capabilities.workspace
    if workspace is not None and workspace.diagnostics is not None and workspace.diagnostics.refresh_support:
        ls.workspace_diagnostic_refresh(None)
    ls.log(f"confirmation of {uri}: {outcome.summary}")
    return {
        "status": outcome.status,
        "summary": outcome.summary,
        "exportOk": outcome.export_ok,
        "suggestedFixes": outcome.suggested_fixes,
        "refinedDynamicShapes": outcome.refined,
        "state": confirmations.state(ls.confirmations[uri], digest),
        "contentHash": digest,
    }


@server.command(REPAIR_COMMAND)
async def repair_command(ls: XportLanguageServer, uri: str, *_: Any) -> dict[str, Any]:
    """Repair this model: `xport-lint repair --format json` on the file's example, in a child
    process (it exports the model again and again in the configured interpreter). Writes nothing:
    the report's `diff` and `files` are what the client offers to apply."""
    refusal = _confirm_refusal(ls, uri)
    if refusal is not None:
        status, message = refusal
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        return {"status": status, "summary": message}
    path = to_fs_path(uri)
    command = [sys.executable, "-m", "xport_lint.analyzers.cli", "repair", path, "--format", "json",
               "--python", ls.settings.python or sys.executable]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=str(Path(path).parent)
    )
    out, err = await process.communicate()
    try:
        report: dict[str, Any] = json.loads(out)
    except ValueError:
        return {"status": "error", "summary": err.decode(errors="replace")[-2000:]}
    report["status"] = "exported" if report["after"]["equal"] else "blocked"
    return report


@server.feature(confirmations.REQUEST)
def confirmation_request(ls: XportLanguageServer, params: Any) -> dict[str, Any]:
    """The file's confirmation state for its current text (a status bar following the active
    editor asks this rather than keep the notifications)."""
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(f"{confirmations.REQUEST} needs {{uri}}")
    document = ls.workspace.text_documents.get(uri)
    digest = confirmations.digest(document.source) if document is not None else None
    return confirmations.payload(uri, ls.confirmations.get(uri), digest, uri in ls.confirming)


def _confirm_refusal(ls: XportLanguageServer, uri: str) -> tuple[str, str] | None:
    """Why confirming `uri` must not run (status, message), or None: the client has to say the
    workspace is trusted, and the file has to be open in the editor or inside a workspace folder
    (a command naming any other path would import and run a file the user never chose)."""
    if not ls.settings.trusted:
        return "untrusted", (
            "xport-lint: confirmation runs your model's code, and this workspace is not trusted "
            "(the client has not set `trusted`)"
        )
    path = to_fs_path(uri) if isinstance(uri, str) and uri.startswith("file:") else None
    if path is None:
        return "refused", f"xport-lint: cannot confirm {uri!r}: not a file:// URI"
    if uri not in ls.workspace.text_documents and not ls._in_workspace(path):
        return "refused", f"xport-lint: not confirming {path}: it is neither open nor inside a workspace folder"
    return None


def _run_confirmation(ls: XportLanguageServer, uri: str, source: str, version: int | None) -> Any:
    from xport_lint.analyzers.confirm import Confirmer, WorkerOptions
    from xport_lint.analyzers.runner import check_source

    if ls.confirmer is None:
        options = WorkerOptions(python=ls.settings.python or sys.executable, timeout=ls.settings.confirm_timeout)
        memory = ls.settings.confirm_memory_gb
        if memory is not None:
            options = WorkerOptions(options.python, options.timeout, int(memory * 2**30) if memory else None)
        ls.confirmer = Confirmer(options)
    config = ls.config_for(uri)
    path = to_fs_path(uri) or uri
    static = check_source(source, path, config)
    root = str(config.root) if config.root else None
    return ls.confirmer.confirm(path, source, static, root=root, strict=config.strict)


@server.command(CANCEL_CONFIRM_COMMAND)
def cancel_confirm_command(ls: XportLanguageServer, *_: Any) -> None:
    if ls.confirmer is not None:
        ls.confirmer.worker.cancel()


@server.command(ADD_EXAMPLE_COMMAND)
async def add_example_command(ls: XportLanguageServer, uri: str, name: str) -> None:
    document = ls.document(uri)
    if document is None:
        return
    await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(
            edit=add_example_edit(uri, document.source, name), label="xport-lint: Add xport_example()"
        )
    )


def add_example_edit(uri: str, source: str, name: str) -> types.WorkspaceEdit:
    from xport_lint.analyzers.confirm import example_skeleton

    lines = split_lines(source)
    end = types.Position(line=len(lines), character=0)
    if lines and not lines[-1].endswith("\n"):
        end = types.Position(line=len(lines) - 1, character=len(lines[-1]))
    insert = types.TextEdit(range=types.Range(start=end, end=end), new_text=example_skeleton(source, name))
    return types.WorkspaceEdit(changes={uri: [insert]})


#: a Confirm lens's title by the file's confirmation state
_LENS_TITLES = {
    "none": "Confirm with draft_export",
    "running": "Confirming with draft_export… (cancel)",
    "passed": "Exports (confirmed by draft_export) · Confirm again",
    "failed": "Export fails (confirmed by draft_export) · Confirm again",
    "error": "Confirmation did not run · Confirm again",
    "stale": "Changed since the confirmation · Confirm again",
}


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def code_lens(ls: XportLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    """As many as the `codeLens` setting asks (Result.lenses: placed with the findings, off the
    event loop); a Confirm lens says the file's confirmation state."""
    uri = params.text_document.uri
    result = await ls.analyse(uri)
    state = confirmations.state(ls.confirmations.get(uri), result.digest, uri in ls.confirming)
    lenses = []
    for lens in result.lenses:
        start = types.Position(line=lens.line, character=0)
        at = types.Range(start=start, end=start)
        if lens.command == ADD_EXAMPLE_COMMAND:
            title = "Add xport_example() to confirm with draft_export"
            command = types.Command(title=title, command=ADD_EXAMPLE_COMMAND, arguments=[uri, lens.name])
        elif state == "running":
            command = types.Command(title=_LENS_TITLES[state], command=CANCEL_CONFIRM_COMMAND, arguments=[uri])
        else:
            command = types.Command(title=_LENS_TITLES[state], command=CONFIRM_COMMAND, arguments=[uri, lens.name])
        lenses.append(types.CodeLens(range=at, command=command))
    return lenses


def _example_models(source: str) -> set[str]:
    """The names `xport_example()` calls (the model class it builds is among them)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    example = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "xport_example"), None)
    return {
        node.func.id for node in ast.walk(example) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    } if example is not None else set()


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: XportLanguageServer, params: types.HoverParams) -> types.Hover | None:
    """A diagnostic's rule and message; elsewhere, on an input size a model's `forward` reads,
    what the export makes of it (static, Dim.AUTO, a named Dim and its range, and from where)."""
    found = _diagnostic_hover(ls, params)
    if found is not None:
        return found
    uri = params.text_document.uri
    if uri not in ls.workspace.text_documents or not ls.settings.enable:
        return None
    document = ls.workspace.get_text_document(uri)
    if "shape" not in document.source and "size(" not in document.source and "len(" not in document.source:
        return None
    path = to_fs_path(uri) or uri
    key = (document.version, ls.generation)
    cached = ls.size_hovers.get(uri)
    if cached is not None and cached[0] == key:
        facts = cached[1]  # a second hover on the same text answers at once
    else:
        loop = asyncio.get_running_loop()
        try:
            facts = await loop.run_in_executor(
                ls.executor, ls.linter.size_facts, document.source, path, ls.config_for(uri)
            )
        except Exception:  # noqa: BLE001 - a hover is never worth an error
            return None
        if ls.is_open(uri, document.version):
            ls.size_hovers[uri] = (key, facts)
    here = (params.position.line + 1, params.position.character)
    for span, text in facts:
        if (span.start.line, span.start.column) <= here <= (span.end.line, span.end.column):
            lines = document.lines
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                range=convert.lsp_range(list(lines), span),
            )
    return None


def _diagnostic_hover(ls: XportLanguageServer, params: types.HoverParams) -> types.Hover | None:
    """From the last result, at once: a few lines per finding under the cursor, not the rule's
    whole page (the link leads there)."""
    result = ls.results.get(params.text_document.uri)
    if result is None:
        return None
    here = params.position
    found = [
        d for d in result.diagnostics
        if (d.range.start.line, d.range.start.character) <= (here.line, here.character)
        <= (d.range.end.line, d.range.end.character)
    ]
    if not found:
        return None
    text = "\n\n---\n\n".join(words.finding_hover(d) for d in found)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=found[0].range)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="xport-lint server", description="xport-lint language server")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (debugging)")
    args = parser.parse_args(argv)
    handler = _ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("xport_lint").addHandler(handler)
    logging.getLogger("xport_lint").setLevel(logging.INFO)
    atexit.register(server.stop_confirmer)
    # a client (or a supervisor) that ends the server with SIGTERM: stop the children first
    signal.signal(signal.SIGTERM, lambda *_: (server.stop_confirmer(), os._exit(0)))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
        return
    status = server.serve_stdio()
    server.stop_confirmer()
    # a thread still busy (a lint, a confirmation) must not hold the exit for long: the client
    # restarts a server that exits, never one that lingers
    deadline = threading.Timer(5.0, os._exit, (status,))
    deadline.daemon = True
    deadline.start()
    sys.exit(status)
