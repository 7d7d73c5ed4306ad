"""Confirmation from the editor: only on request, only when trusted, never blocking the server."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_cli import BAD
from tests.server.conftest import open_document, pull, start, wait_for

pytest.importorskip("torch")
pytestmark = pytest.mark.torch
EXAMPLE = "def xport_example():\n    return Gate(), (torch.randn(4),)\n"


def confirm(client: LanguageClient, uri: str):  # type: ignore[no-untyped-def]
    return client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="xport-lint.confirm", arguments=[uri])
    )


async def test_confirm_command_marks_the_diagnostic_confirmed(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    path = tmp_path / "gate.py"
    path.write_text(BAD + EXAMPLE)
    uri = open_document(client, path, BAD + EXAMPLE)
    (before,) = await pull(client, uri)
    assert "confirmed" not in before.message
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert lenses and lenses[0].command is not None and lenses[0].command.command == "xport-lint.confirm"
    result = await confirm(client, uri)
    assert result["status"] == "ran" and result["exportOk"] is False
    (after,) = await pull(client, uri)
    assert "[confirmed by draft_export" in after.message
    assert client.progress_reports, "confirmation reports $/progress"


async def test_untrusted_workspace_refuses(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"trusted": False})
    path = tmp_path / "gate.py"
    path.write_text(BAD + EXAMPLE)
    uri = open_document(client, path, BAD + EXAMPLE)
    result = await confirm(client, uri)
    assert result["status"] == "untrusted"
    await wait_for(lambda: any("not trusted" in m.message for m in client.messages))


async def test_hanging_model_times_out_and_the_server_stays_responsive(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"confirmTimeout": 6})
    source = BAD.replace("if x.sum() > 0:", "while True:\n            pass\n        if x.sum() > 0:") + EXAMPLE
    path = tmp_path / "gate.py"
    path.write_text(source)
    uri = open_document(client, path, source)
    pending = confirm(client, uri)
    began = time.perf_counter()
    await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))
    )
    assert time.perf_counter() - began < 1
    result = await pending
    assert result["status"] == "timeout"
    codes = [d.code for d in await pull(client, uri)]
    assert "XPT906" in codes


async def test_class_without_example_offers_a_skeleton(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "gate.py", BAD)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert lenses and lenses[0].command is not None and lenses[0].command.command == "xport-lint.addExample"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=1, character=0), end=types.Position(line=1, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.Refactor]),
        )
    )
    assert actions is not None
    (action,) = actions
    assert isinstance(action, types.CodeAction) and action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    assert "def xport_example():" in edit.new_text and "return Gate(), (torch.randn(2, 8),)" in edit.new_text
