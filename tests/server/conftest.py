"""A real client (pytest-lsp) talking to the real server process over stdio."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "xport_lint.server"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    registrations: list[types.RegistrationParams] = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        registrations.append(params)

    yield lsp_client
    await lsp_client.shutdown_session()


def capabilities(pull: bool) -> types.ClientCapabilities:
    """Explicit capabilities: pytest-lsp's bundled profiles differ in pull support."""
    text = types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True, related_information=True),
        diagnostic=types.DiagnosticClientCapabilities(related_document_support=False) if pull else None,
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(value_set=["quickfix", "source.fixAll"])
            ),
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]),
            data_support=True,
            is_preferred_support=True,
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
    )
    workspace = types.WorkspaceClientCapabilities(
        configuration=True,
        did_change_configuration=types.DidChangeConfigurationClientCapabilities(dynamic_registration=False),
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
        diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True) if pull else None,
        workspace_folders=True,
        apply_edit=True,
    )
    return types.ClientCapabilities(
        text_document=text,
        workspace=workspace,
        window=types.WindowClientCapabilities(work_done_progress=True),
    )


async def start(
    client: LanguageClient, folder: Path, *, pull: bool, options: dict[str, Any] | None = None
) -> types.InitializeResult:
    uri = folder.as_uri()
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(pull),
            root_uri=uri,
            workspace_folders=[types.WorkspaceFolder(uri=uri, name=folder.name)],
            initialization_options={"debounceMs": 20, **(options or {})},
        )
    )


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


def replace_text(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.02)


async def pull(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    return list(report.items)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (ASCII test text: UTF-16 columns equal code points)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[min(p.line, len(lines))] + p.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
        lines = text.splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
    return text
