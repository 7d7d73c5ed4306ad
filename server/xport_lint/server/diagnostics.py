"""Documents in, diagnostics out: open, change, save and close (text documents and notebooks),
pushed or pulled (document and workspace diagnostics)."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.uris import to_fs_path

from .boundary import Features
from .session import (
    XportLanguageServer,
)

features = Features()


@features.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: XportLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@features.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: XportLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
    for cell in params.notebook_document.cells:
        ls.schedule(cell.document, 0)


@features.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: XportLanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
    """Any cell's edit can change every cell's findings (a helper in one, its caller in another)."""
    notebook = ls.workspace.get_notebook_document(notebook_uri=params.notebook_document.uri)
    for cell in notebook.cells if notebook is not None else ():
        ls.schedule(cell.document)


@features.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: XportLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.notebook_results.pop(params.notebook_document.uri, None)
    for cell in params.cell_text_documents:
        task = ls.pending.pop(cell.uri, None)
        if task is not None:
            task.cancel()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))


@features.feature(types.TEXT_DOCUMENT_DID_CHANGE)
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


@features.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: XportLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@features.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: XportLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.results.pop(uri, None)
    ls.confirmations.pop(uri, None)
    ls.told.pop(uri, None)
    ls.size_hovers.pop(uri, None)
    ls.size_refresh.pop(uri, None)
    path = to_fs_path(uri)
    if path:
        asyncio.get_running_loop().run_in_executor(ls.executor, ls.linter.closed, path)
    if ls.push_diagnostics:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@features.feature(
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


@features.feature(types.WORKSPACE_DIAGNOSTIC)
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

