"""Confirmation from the editor: only on request, only when trusted, never blocking the server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_cli import BAD
from tests.server.conftest import apply_text_edits, open_document, pull, replace_text, start, wait_for

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


def plain(value: Any) -> Any:
    """A payload as JSON has it (pygls hands a custom message's objects over as named tuples)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    return [plain(item) for item in value] if isinstance(value, list) else value


def watch_confirmations(client: LanguageClient) -> list[dict[str, Any]]:
    """The `xport-lint/confirmationChanged` notifications the server sends, in order."""
    changes: list[dict[str, Any]] = []

    @client.feature("xport-lint/confirmationChanged")
    def changed(params: Any) -> None:
        changes.append(plain(params))

    return changes


async def lens_titles(client: LanguageClient, uri: str) -> list[str]:
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    return [lens.command.title for lens in lenses or [] if lens.command is not None]


async def test_a_confirmed_finding_says_so_outside_its_message(client: LanguageClient, tmp_path: Path) -> None:
    """The "[confirmed by draft_export: ...]" tail was cut off in the Problems panel: the message
    stays the static one; the verdict is data, related information, and the hover's."""
    changes = watch_confirmations(client)
    await start(client, tmp_path, pull=True, options=TRUSTED)
    path = tmp_path / "gate.py"
    path.write_text(BAD + EXAMPLE)
    uri = open_document(client, path, BAD + EXAMPLE)
    (before,) = await pull(client, uri)
    assert "confirmation" not in before.data
    assert await lens_titles(client, uri) == ["Confirm with draft_export"]
    result = await confirm(client, uri)
    assert result["status"] == "ran" and result["exportOk"] is False and result["state"] == "failed"
    (after,) = await pull(client, uri)
    assert after.message == before.message
    verdict = after.data["confirmation"]
    assert verdict["state"] == "confirmed" and verdict["by"] == "draft_export"
    assert verdict["kind"] == "DATA_DEPENDENT_ERROR" and verdict["detail"]
    assert f"confirmed by draft_export: {verdict['detail']}" in [r.message for r in after.related_information or []]
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=after.range.start))
    assert hover is not None and f"**Confirmed by draft_export:** {verdict['detail']}" in hover.contents.value  # type: ignore[union-attr]
    assert client.progress_reports, "confirmation reports $/progress"
    assert [c["state"] for c in changes] == ["running", "failed"] and changes[-1]["uri"] == uri
    assert changes[-1]["confirmed"] == 1 and changes[-1]["summary"] == result["summary"]
    assert await lens_titles(client, uri) == ["Export fails (confirmed by draft_export) · Confirm again"]


async def test_a_confirmation_result_is_per_file_and_goes_stale_on_an_edit(client: LanguageClient, tmp_path: Path) -> None:
    """The status bar's result was global and stayed after the fix: the server keeps one per
    file, for the text it ran on, says when an edit makes it stale, and answers per file."""
    changes = watch_confirmations(client)
    await start(client, tmp_path, pull=True, options=TRUSTED)
    path, other = tmp_path / "gate.py", tmp_path / "other.py"
    path.write_text(BAD + EXAMPLE)
    uri = open_document(client, path, BAD + EXAMPLE)
    other_uri = open_document(client, other, BAD)
    await confirm(client, uri)

    async def asked(of: str) -> dict[str, Any]:
        return plain(await client.protocol.send_request_async("xport-lint/confirmation", {"uri": of}))

    assert (await asked(uri))["state"] == "failed" and (await asked(other_uri))["state"] == "none"
    fixed = (BAD + EXAMPLE).replace("if x.sum() > 0:", "if True:")
    replace_text(client, uri, fixed, 2)
    await wait_for(lambda: changes[-1]["state"] == "stale")
    assert (await asked(uri))["state"] == "stale"
    assert await pull(client, uri) == []  # the fixed text's own (static) findings: none
    replace_text(client, uri, BAD + EXAMPLE, 3)  # undone: the result holds again
    await wait_for(lambda: changes[-1]["state"] == "failed")
    (again,) = await pull(client, uri)
    assert again.data["confirmation"]["state"] == "confirmed"
    # other settings may change the verdict: the result is forgotten, and the client told
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={**TRUSTED, "strict": True}))
    await wait_for(lambda: changes[-1]["state"] == "none")
    assert (await asked(uri))["state"] == "none"


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
    # announced on the example's dynamic_shapes, not only in one line's Ctrl+. menu
    (announced,) = [d for d in await pull(client, uri) if d.data.get("suggestion")]
    assert announced.range.start.line == 13 and GUARDED.splitlines()[13][announced.range.start.character:].startswith("shapes}")
    assert announced.severity == types.DiagnosticSeverity.Information and announced.message == (
        "torch.export.export fails with these dynamic_shapes; torch suggests: narrow `n` (x.shape[0]) to [0, 4] "
        "(export then succeeds)")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=announced.range.start))
    assert hover is not None and "**Fix:** Narrow `n` (x.shape[0]) to [0, 4] (torch's suggestion: export then succeeds)" \
        in hover.contents.value  # type: ignore[union-attr]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=announced.range,
            context=types.CodeActionContext(diagnostics=[announced]),
        )
    )
    action = actions[0]  # first, before "Disable for this line" (Ctrl+. then Enter picks it)
    assert isinstance(action, types.CodeAction) and action.is_preferred
    assert action.title == "Narrow `n` (x.shape[0]) to [0, 4]" and action.edit is not None
    (edit,) = action.edit.changes[uri]
    fixed = apply_text_edits(GUARDED, [edit])
    # the Dim is narrowed where it is written: nothing is left defined and unused
    assert 'shapes = {"x": {0: Dim("n", max=4)}, "y": {0: Dim("m")}}' in fixed and '"dynamic_shapes": shapes' in fixed
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


HEAD = '''\
import torch
from torch.export import Dim


class Head(torch.nn.Module):
    def forward(self, boxes, x):
        kept = boxes[boxes[:, 0] > 0]
        n = kept.shape[0]
        if n == 1:
            return kept * 2
        if x.shape[0] > 16:
            return x[:16].sum() + kept.sum()
        return kept.sum() + x.sum()


def xport_example():
    shapes = {"boxes": None, "x": {0: Dim("seq")}}
    return {"model": Head(), "args": (torch.randn(8, 4), torch.randn(20, 3)), "dynamic_shapes": shapes}
'''


async def test_torch_symbols_are_shown_in_the_source_names(client: LanguageClient, tmp_path: Path) -> None:
    """Details said `Eq(u0, 1)` and `s77 > 16`: torch's report says which local or input size
    each symbol is, and the example which Dim, so the details say `n == 1` and `seq > 16`."""
    await start(client, tmp_path, pull=True, options=TRUSTED)
    path = tmp_path / "head.py"
    path.write_text(HEAD)
    uri = open_document(client, path, HEAD)
    await confirm(client, uri)
    details = {d.code: d.data["confirmation"]["detail"] for d in await pull(client, uri) if "confirmation" in d.data}
    assert "`n == 1` (torch: `Eq(u0, 1)`)" in details["XPT105"]
    assert re.search(r"`seq > 16` \(`seq` is x\.shape\[0\]; torch: `s\d+ > 16`\)", details["XPT301"]), details
