"""JSON-RPC over stdio, strict where pygls 2.1 is lenient: every request gets an answer, and a
stream that can no longer be read ends the process, so the client's restart can fire.

pygls skips what it cannot read: a header block without `Content-Length`, or a line that is no
header, leaves it waiting for a length that never comes (alive, and deaf for good); a request
whose params do not match the LSP types fails while it is decoded, before pygls knows an id to
answer, so the client waits forever; and a message that is not JSON reaches the server's error
report (a toast). Here: a request that cannot be decoded is answered with the JSON-RPC error
code that says why (-32700 not JSON, -32600 no valid request, -32602 invalid params), a
notification that cannot be decoded is logged, and an unreadable stream ends `serve`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, BinaryIO

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcMethodNotFound
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

log = logging.getLogger("xport_lint.server.rpc")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
#: a header line longer than this is no header: the stream is garbage
MAX_HEADER_LINE = 8192
#: methods a client may send before `initialize` has been answered
_BEFORE_INITIALIZE = {types.INITIALIZE, types.SHUTDOWN, types.EXIT}


class StreamError(Exception):
    """The client's stream broke its framing (or ended inside a message): nothing after this
    point can be read as a message."""


async def read_message(stdin: BinaryIO, executor: Executor) -> bytes | None:
    """The next message's body, or None when the input ends between two messages.

    Base protocol: header lines `Name: value\\r\\n`, then an empty line, then exactly
    `Content-Length` bytes. Raises StreamError on anything else."""
    loop = asyncio.get_running_loop()
    length: int | None = None
    first = True
    while True:
        line = await loop.run_in_executor(executor, stdin.readline, MAX_HEADER_LINE)
        if not line:
            if first:
                return None
            raise StreamError("the input ended inside a header block")
        first = False
        if not line.endswith(b"\n"):
            raise StreamError(f"a header line longer than {MAX_HEADER_LINE} bytes")
        if not line.strip():
            break
        name, colon, value = line.partition(b":")
        if not colon:
            raise StreamError(f"not a header line: {line[:80]!r}")
        if name.strip().lower() == b"content-length":
            if not value.strip().isdigit():
                raise StreamError(f"not a length: {line[:80]!r}")
            length = int(value)
    if length is None:
        raise StreamError("a header block without Content-Length")
    body = await loop.run_in_executor(executor, stdin.read, length)
    if len(body) < length:
        raise StreamError(f"the input ended {length - len(body)} bytes before the end of a message")
    return body


@dataclass(frozen=True)
class Unreadable:
    """A JSON value that could not be decoded as the JSON-RPC message it claims to be."""

    data: Any
    reason: str
    code: int = INVALID_PARAMS


class Protocol(LanguageServerProtocol):
    """pygls' protocol, answering what pygls leaves unanswered."""

    def receive(self, body: bytes) -> None:
        """Decode and handle one message body."""
        try:
            data = json.loads(body)
        except ValueError as error:  # includes a body that is not UTF-8
            self.handle_message(Unreadable(None, f"not JSON ({error})", PARSE_ERROR))
            return
        message = self.structure_message(data) if isinstance(data, dict) else data
        self.handle_message(message)

    def structure_message(self, data: dict[str, Any]) -> Any:
        """As pygls (which also calls this as json's object_hook, for every nested object), but
        a message that does not decode becomes an `Unreadable`, not an exception that loses it."""
        if "jsonrpc" not in data:
            return data
        if data["jsonrpc"] != "2.0":
            return Unreadable(data, "not a JSON-RPC 2.0 message", INVALID_REQUEST)
        try:
            if "id" in data and "error" in data:
                return self._converter.structure(data, types.ResponseErrorMessage)
            if "id" in data and "method" in data:
                kind = self.get_message_type(data["method"]) or JsonRPCRequestMessage
            elif "id" in data:
                kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            else:
                kind = self.get_message_type(data.get("method", "")) or JsonRPCNotification
            if kind in (JsonRPCRequestMessage, JsonRPCNotification):
                data = {"params": None, **data}  # optional in JSON-RPC, required by pygls' types
            return self._converter.structure(data, kind)
        except Exception as error:  # noqa: BLE001 - whatever the value, the client gets an answer
            return Unreadable(data, _reason(error))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Unreadable):
            self._reject(message)
        elif not hasattr(message, "jsonrpc"):
            self._reject(Unreadable(message, "not a JSON-RPC 2.0 message", INVALID_REQUEST))
        elif self._workspace is None and getattr(message, "method", types.INITIALIZE) not in _BEFORE_INITIALIZE:
            # LSP: before `initialize`, requests fail with -32002 and notifications are dropped
            if hasattr(message, "id"):
                self._answer_error(message.id, SERVER_NOT_INITIALIZED, "the server is not initialized yet")
        elif self._shutdown and hasattr(message, "id") and getattr(message, "method", types.EXIT) != types.EXIT:
            # LSP: after `shutdown`, requests fail with InvalidRequest (pygls leaves them unanswered)
            self._answer_error(message.id, INVALID_REQUEST, "the server is shutting down")
        else:
            super().handle_message(message)

    def _handle_cancel_notification(self, msg_id: int | str) -> None:
        """A cancel that crosses the answer on the wire is normal (LSP: the client cannot know
        the request has finished): pygls logged a warning for each one, silent here."""
        if msg_id in self._request_futures:
            super()._handle_cancel_notification(msg_id)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        """LSP: a `$/` notification the server does not know may be ignored (pygls warned)."""
        if method_name.startswith("$/") and method_name != types.CANCEL_REQUEST:
            try:
                self._get_handler(method_name)
            except JsonRpcMethodNotFound:
                return
        super()._handle_notification(method_name, params)

    def _reject(self, unreadable: Unreadable) -> None:
        """Answer a request that could not be read, fail our own request whose response could not
        be read, log a notification that could not be read. Never an exception: it is the
        client's fault, and the client is told."""
        data = unreadable.data if isinstance(unreadable.data, dict) else {}
        msg_id = data.get("id")
        valid_id = isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)
        method = data.get("method")
        if "id" in data and "method" not in data:
            future = self._request_futures.pop(msg_id, None) if valid_id else None
            if future is not None and not future.done():
                future.set_exception(JsonRpcInvalidParams(f"unreadable response: {unreadable.reason}"))
            log.warning("a response from the client could not be read: %s", unreadable.reason)
            return
        if "id" not in data and isinstance(method, str) and unreadable.code == INVALID_PARAMS:
            log.warning("notification %s ignored: invalid params: %s", method, unreadable.reason)
            return
        code = unreadable.code
        if code == INVALID_PARAMS and not (valid_id and isinstance(method, str)):
            code = INVALID_REQUEST
        what = f"request {method}" if isinstance(method, str) else "message"
        log.warning("%s from the client rejected (%d): %s", what, code, unreadable.reason)
        self._answer_error(msg_id if valid_id else None, code, unreadable.reason)

    def _answer_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        # written as a plain object: pygls' converter drops an `id` that is None, and JSON-RPC
        # wants `"id": null` when the request's id could not be read
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def _reason(error: Exception) -> str:
    if isinstance(error, cattrs.BaseValidationError):
        return "; ".join(cattrs.transform_error(error))
    return f"{type(error).__name__}: {error}"


async def serve(protocol: Protocol, stdin: BinaryIO, executor: Executor) -> int:
    """Read and handle messages until the input ends, is unreadable, or `exit` arrives. The
    exit status: 0 after `shutdown` (LSP's `exit`), 1 otherwise."""
    while True:
        try:
            body = await read_message(stdin, executor)
        except StreamError as error:
            print(f"xport-lint server: unreadable input from the client: {error}; exiting", file=sys.stderr)
            return 1
        if body is None:
            if not protocol._shutdown:
                print("xport-lint server: the client closed the input without `shutdown`; exiting", file=sys.stderr)
            return 0 if protocol._shutdown else 1
        try:
            protocol.receive(body)
        except SystemExit as stop:  # pygls' `exit` handler: 0 after `shutdown`, else 1
            return stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        except BrokenPipeError:
            print("xport-lint server: the client stopped reading; exiting", file=sys.stderr)
            return 1
        except Exception:  # noqa: BLE001 - a bug handling one message must not stop the others
            log.exception("xport-lint server: failed to handle a message")
