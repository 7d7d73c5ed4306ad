"""One error boundary for every handler (boundary.py): a handler that raises is answered as an
LSP error (pygls sends a JsonRpcException raised by a handler as the request's error), logged
once with its traceback; deliberate protocol answers pass through untouched."""

from __future__ import annotations

import logging

import pytest
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams

from xport_lint.server.app import server
from xport_lint.server.boundary import HandlerFailed, guarded


def broken(ls: object, params: object) -> None:
    raise KeyError("missing")


async def broken_later(ls: object, params: object) -> None:
    raise KeyError("missing")


def refuses(ls: object, params: object) -> None:
    raise JsonRpcInvalidParams("needs {uri}")


def test_a_handler_that_raises_becomes_one_logged_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="xport_lint.server"), pytest.raises(HandlerFailed) as raised:
        guarded(broken)(None, None)
    assert isinstance(raised.value, JsonRpcInternalError)
    assert "broken failed: KeyError" in str(raised.value)
    assert [r.getMessage() for r in caplog.records] == ["broken failed"]
    assert caplog.records[0].exc_info is not None


async def test_an_async_handler_too(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="xport_lint.server"), pytest.raises(HandlerFailed):
        await guarded(broken_later)(None, None)
    assert [r.getMessage() for r in caplog.records] == ["broken_later failed"]


def test_a_deliberate_protocol_error_passes_through_unlogged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="xport_lint.server"), pytest.raises(JsonRpcInvalidParams):
        guarded(refuses)(None, None)
    assert not caplog.records


def test_every_handler_of_the_server_is_behind_the_boundary() -> None:
    """pygls keeps the registered function (bound to the server by a partial): each is the
    boundary's wrapper of a feature module's handler (the readiness request registers its own)."""
    manager = server.protocol.fm
    handlers = {**manager.features, **manager.commands}
    ours = [getattr(handler, "func", handler) for name, handler in handlers.items() if name != "xport-lint/models"]
    assert len(ours) > 20
    assert all(getattr(handler, "__wrapped__", None) is not None for handler in ours)
