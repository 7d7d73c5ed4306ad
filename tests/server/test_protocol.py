"""The server never goes deaf: every request gets an answer, whatever the client sends; faults
of the client's are logged, never shown as toasts; and input that can no longer be read as
messages ends the process (non-zero), so that the client's restart fires."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.cli.test_cli import BAD, FIXABLE
from tests.server.conftest import open_document, pull, start, wait_for

START = types.Position(line=0, character=0)


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def raw_request(client: LanguageClient, msg_id: str, method: str, params: object) -> Any:
    """Send a request as a misbehaving client would (no typing, no checks on this side) and
    wait for the server's answer: its result, or the JsonRpcException it answered with."""
    answer: Future[Any] = Future()
    client.protocol._request_futures[msg_id] = answer  # where pygls routes the response by id
    client.protocol.writer.write(frame({"id": msg_id, "method": method, "params": params}))
    return await asyncio.wait_for(asyncio.wrap_future(answer), timeout=60)


def no_toast_and_no_traceback(client: LanguageClient) -> None:
    assert client.messages == []  # no window/showMessage
    assert not [m for m in client.log_messages if "Traceback" in m.message]
    assert client.error is None


async def test_a_request_with_invalid_params_is_answered_with_invalid_params(
    client: LanguageClient, tmp_path: Path
) -> None:
    await start(client, tmp_path, pull=True)
    with pytest.raises(JsonRpcInvalidParams) as raised:
        await raw_request(client, "bad-1", types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": 5})
    assert raised.value.code == -32602
    assert "text_document.uri" in raised.value.message and "range" in raised.value.message
    # the server is still listening
    uri = open_document(client, tmp_path / "model.py", BAD)
    assert [d.code for d in await pull(client, uri)] == ["XPT101"]
    assert any("rejected (-32602)" in m.message for m in client.log_messages)
    no_toast_and_no_traceback(client)


async def test_a_fix_all_action_without_its_document_is_invalid_params(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    action = types.CodeAction(title="xport-lint: Fix all safely fixable issues", kind="source.fixAll.xport-lint", data={})
    with pytest.raises(JsonRpcInvalidParams):
        await client.code_action_resolve_async(action)
    no_toast_and_no_traceback(client)


async def test_requests_on_a_document_that_does_not_exist_get_empty_answers(
    client: LanguageClient, tmp_path: Path
) -> None:
    """As ruff's and ty's servers answer for a document they do not have: no findings, no
    actions, no edit; not an error (a pull can race the document's close)."""
    await start(client, tmp_path, pull=True)
    uri = (tmp_path / "never.py").as_uri()
    document = types.TextDocumentIdentifier(uri=uri)
    assert await pull(client, uri) == []
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=document, range=types.Range(start=START, end=START), context=types.CodeActionContext(diagnostics=[])
        )
    )
    assert actions is not None and len(actions) == 0
    fix_all = types.CodeAction(title="Fix all", kind="source.fixAll.xport-lint", data={"uri": uri})
    resolved = await client.code_action_resolve_async(fix_all)
    assert resolved.edit == types.WorkspaceEdit(changes={})
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=document))
    assert lenses is not None and len(lenses) == 0
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="xport-lint.fixAll", arguments=[uri])
    )
    no_toast_and_no_traceback(client)


async def test_requests_on_a_file_never_opened_read_it_from_disk(client: LanguageClient, tmp_path: Path) -> None:
    """pygls' convention for a document the client did not open: the file on disk."""
    (tmp_path / "model.py").write_text(BAD)
    (tmp_path / "snap.py").write_text(FIXABLE)
    await start(client, tmp_path, pull=True)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=(tmp_path / "model.py").as_uri()))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["XPT101"]
    assert report.result_id is None  # nothing tells the server when a file on disk changes
    snap = (tmp_path / "snap.py").as_uri()
    resolved = await client.code_action_resolve_async(
        types.CodeAction(title="Fix all", kind="source.fixAll.xport-lint", data={"uri": snap})
    )
    assert resolved.edit is not None and resolved.edit.changes is not None
    (edit,) = resolved.edit.changes[snap]
    assert "x.clone() + 1" in edit.new_text
    no_toast_and_no_traceback(client)


async def test_a_malformed_message_is_logged_not_shown(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    client.protocol.writer.write(b"Content-Length: 9\r\n\r\n{not json")
    client.protocol.writer.write(frame({"method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": 1}}))
    client.protocol.writer.write(frame({"id": "no-version", "method": "initialize", "jsonrpc": "1.0"}))
    await wait_for(lambda: any("rejected (-32700): not JSON" in m.message for m in client.log_messages))
    await wait_for(lambda: any("textDocument/didOpen ignored: invalid params" in m.message for m in client.log_messages))
    await wait_for(lambda: any("rejected (-32600)" in m.message for m in client.log_messages))
    uri = open_document(client, tmp_path / "model.py", BAD)
    assert [d.code for d in await pull(client, uri)] == ["XPT101"]
    no_toast_and_no_traceback(client)


async def test_a_request_of_an_unknown_method_is_logged_not_shown(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    with pytest.raises(JsonRpcException) as raised:
        await raw_request(client, "unknown-1", "xport-lint/noSuchThing", {})
    assert raised.value.code == -32601
    no_toast_and_no_traceback(client)


# -- the raw stream: a real server process, bytes written to its stdin -------------------------

INITIALIZE = frame({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})


def exit_status(stdin: bytes, close: bool = False) -> int:
    """Start the server, write `stdin` (then close it if `close`), and wait for the process to
    end; its exit status. A server that never ends fails the test (after a generous wait)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "xport_lint.server"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    try:
        process.stdin.write(stdin)
        process.stdin.flush()
        if close:
            process.stdin.close()
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert process.returncode is not None, "the server is still running: alive but deaf"
        return process.returncode
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize(
    "stdin",
    [
        pytest.param(INITIALIZE + b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}", id="no-content-length"),
        pytest.param(INITIALIZE + b"GET / HTTP/1.1\r\n", id="garbage-header"),
        pytest.param(b"Content-Length: lots\r\n\r\n{}", id="length-not-a-number"),
        pytest.param(b"\x00" * 10_000, id="binary-garbage"),
    ],
)
def test_input_that_breaks_the_framing_ends_the_server(stdin: bytes) -> None:
    """The stream stays open, but nothing after this can be read as a message."""
    assert exit_status(stdin) != 0


@pytest.mark.parametrize(
    "stdin",
    [
        pytest.param(INITIALIZE, id="between-messages"),
        pytest.param(b"Content-Length: 50\r\n", id="in-the-headers"),
        pytest.param(INITIALIZE + b"Content-Length: 50\r\n\r\n{", id="in-a-body"),
    ],
)
def test_the_input_ending_without_shutdown_ends_the_server_non_zero(stdin: bytes) -> None:
    assert exit_status(stdin, close=True) != 0


def test_shutdown_then_exit_ends_the_server_with_success() -> None:
    """LSP's `exit`: 0 after `shutdown`, 1 without it."""
    shutdown = frame({"id": 2, "method": "shutdown"})
    leave = frame({"method": "exit"})
    assert exit_status(INITIALIZE + shutdown + leave) == 0
    assert exit_status(INITIALIZE + leave) == 1


def messages(stdin: bytes) -> list[dict[str, Any]]:
    """Run the server on `stdin` (ending with `exit`) to its end; what it wrote, in order."""
    process = subprocess.run(
        [sys.executable, "-m", "xport_lint.server"], input=stdin, capture_output=True, timeout=300, check=False
    )
    found = []
    rest = process.stdout
    while rest:
        header, _, rest = rest.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        found.append(json.loads(rest[:length]))
        rest = rest[length:]
    return found


def test_requests_outside_the_session_are_answered_as_lsp_says() -> None:
    """Before `initialize`: -32002 (ServerNotInitialized), or -32602 for invalid params, and no
    log message yet (LSP allows none). After `shutdown`: -32600 (InvalidRequest). pygls left
    these unanswered, or failed them with a traceback."""
    hover = {"textDocument": {"uri": "file:///m.py"}, "position": {"line": 0, "character": 0}}
    written = messages(
        frame({"id": "early", "method": "textDocument/hover", "params": hover})
        + frame({"id": "early-bad", "method": "textDocument/hover", "params": {}})
        + INITIALIZE
        + frame({"id": 2, "method": "shutdown"})
        + frame({"id": "late", "method": "textDocument/hover", "params": hover})
        + frame({"method": "exit"})
    )
    got = {m["id"]: m for m in written if "method" not in m}
    assert got["early"]["error"]["code"] == -32002
    assert got["early-bad"]["error"]["code"] == -32602
    assert "result" in got[1] and got[2] == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert got["late"]["error"]["code"] == -32600
    initialized = written.index(got[1])
    assert not [m for m in written[:initialized] if "method" in m]
