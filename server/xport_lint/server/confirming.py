"""Confirmation with draft_export and repair, only when asked: the commands, the state request
and the code lenses that offer them."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from . import confirmations, models
from .boundary import Features
from .session import (
    ADD_EXAMPLE_COMMAND,
    CANCEL_CONFIRM_COMMAND,
    CONFIRM_COMMAND,
    REPAIR_COMMAND,
    XportLanguageServer,
)

features = Features()


@features.command(CONFIRM_COMMAND)
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


@features.command(REPAIR_COMMAND)
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


@features.feature(confirmations.REQUEST)
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


@features.command(CANCEL_CONFIRM_COMMAND)
def cancel_confirm_command(ls: XportLanguageServer, *_: Any) -> None:
    if ls.confirmer is not None:
        ls.confirmer.worker.cancel()

#: a Confirm lens's title by the file's confirmation state
_LENS_TITLES = {
    "none": "Confirm with draft_export",
    "running": "Confirming with draft_export… (cancel)",
    "passed": "Exports (confirmed by draft_export) · Confirm again",
    "failed": "Export fails (confirmed by draft_export) · Confirm again",
    "error": "Confirmation did not run · Confirm again",
    "stale": "Changed since the confirmation · Confirm again",
}


@features.feature(types.TEXT_DOCUMENT_CODE_LENS)
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

