"""Confirmation from the editor: only on request, only when trusted, never blocking the server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_cli import BAD
from tests.server.conftest import apply_text_edits, open_document, pull, start, wait_for

pytest.importorskip("torch")
pytestmark = pytest.mark.torch
EXAMPLE = "def xport_example():\n    return Gate(), (torch.randn(4),)\n"
TRUSTED = {"trusted": True}
# a model that never finishes tracing
SPINNING = BAD.replace("if x.sum() > 0:", "while True:\n            pass\n        if x.sum() > 0:") + EXAMPLE


def confirm(client: LanguageClient, uri: str):  # type: ignore[no-untyped-def]
    return client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="xport-lint.confirm", arguments=[uri])
    )


async def test_confirm_command_marks_the_diagnostic_confirmed(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options=TRUSTED)
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


async def test_a_client_that_says_nothing_about_trust_runs_no_user_code(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    marker = tmp_path / "ran"
    path = tmp_path / "gate.py"
    source = f"open({str(marker)!r}, 'w').close()\n" + BAD + EXAMPLE
    path.write_text(source)
    uri = open_document(client, path, source)
    result = await confirm(client, uri)
    assert result["status"] == "untrusted" and "trusted" in result["summary"]
    assert not marker.exists()


async def test_confirm_refuses_a_file_neither_open_nor_in_the_workspace(client: LanguageClient, tmp_path: Path) -> None:
    workspace, elsewhere = tmp_path / "workspace", tmp_path / "elsewhere"
    workspace.mkdir()
    elsewhere.mkdir()
    marker = tmp_path / "ran"
    planted = elsewhere / "planted.py"
    planted.write_text(f"open({str(marker)!r}, 'w').close()\n" + BAD + EXAMPLE)
    await start(client, workspace, pull=True, options=TRUSTED)
    result = await confirm(client, planted.as_uri())
    assert result["status"] == "refused" and "neither open nor inside a workspace folder" in result["summary"]
    assert not marker.exists()
    await wait_for(lambda: any("neither open" in m.message for m in client.messages))


async def test_hanging_model_times_out_and_the_server_stays_responsive(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={**TRUSTED, "confirmTimeout": 6})
    source = SPINNING
    path = tmp_path / "gate.py"
    path.write_text(source)
    uri = open_document(client, path, source)
    pending = asyncio.ensure_future(confirm(client, uri))
    await wait_for(lambda: any(client.progress_reports.values()))
    await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))
    )
    assert not pending.done()  # the hover was answered while the model spins
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


GUARDED = '''\
import torch
from torch.export import Dim


class Window(torch.nn.Module):
    def forward(self, x, y):
        if x.shape[0] > 4:
            return x[:4] + y
        return x + y[: x.shape[0]]


def xport_example():
    shapes = {"x": {0: Dim("n")}, "y": {0: Dim("m")}}
    return {"model": Window(), "args": (torch.randn(3, 2), torch.randn(3, 2)), "dynamic_shapes": shapes}
'''


async def test_suggested_dynamic_shapes_become_a_code_action_that_exports(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A guard narrows `n`: torch suggests `Dim('n', max=4)`; applied, export passes."""
    await start(client, tmp_path, pull=True, options=TRUSTED)
    path = tmp_path / "window.py"
    path.write_text(GUARDED)
    uri = open_document(client, path, GUARDED)
    await pull(client, uri)
    result = await confirm(client, uri)
    assert result["exportOk"] is False and result["refinedDynamicShapes"]["export_ok"] is True
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=12, character=0), end=types.Position(line=12, character=0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (action,) = [a for a in actions or [] if "suggested dynamic_shapes" in a.title]
    assert "export then succeeds" in action.title and action.edit is not None
    (edit,) = action.edit.changes[uri]
    assert "torch.export.Dim('n'" in edit.new_text and "max=4" in edit.new_text
    fixed = apply_text_edits(GUARDED, [edit])
    assert fixed.count("shapes = ") == 1 and "dynamic_shapes\": shapes" not in fixed
    path.write_text(fixed)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    again = await confirm(client, uri)
    assert again["exportOk"] is True, again["summary"]


async def test_cancelling_the_progress_stops_a_confirmation(client: LanguageClient, tmp_path: Path) -> None:
    """The progress is cancellable: the client's Cancel kills the worker long before the timeout."""
    await start(client, tmp_path, pull=True, options={**TRUSTED, "confirmTimeout": 60})
    source = SPINNING
    path = tmp_path / "gate.py"
    path.write_text(source)
    uri = open_document(client, path, source)
    pending = asyncio.ensure_future(confirm(client, uri))
    await wait_for(lambda: any(client.progress_reports.values()))
    (token,) = client.progress_reports
    assert client.progress_reports[token][0].cancellable is True
    await asyncio.sleep(3)  # torch imported, the model is spinning
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await pending
    assert result["status"] == "cancelled", result  # killed by the Cancel, not by the 60 s timeout
    assert "XPT906" in [d.code for d in await pull(client, uri)]
