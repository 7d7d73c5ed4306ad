"""The one error boundary every handler is registered through: a handler that raises is
logged once (with its traceback) and answered as an LSP error; the server keeps serving.

Feature modules list their handlers in a `Features`; app.py registers them all."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

log = logging.getLogger("xport_lint.server")
Handler = TypeVar("Handler", bound=Callable[..., Any])


class HandlerFailed(JsonRpcInternalError):
    """A handler's own failure, already logged by the boundary (the server's error report
    only tells the user, once a session)."""


def guarded(handler: Handler) -> Handler:
    """`handler` behind the boundary: an exception other than a deliberate JSON-RPC error (an
    invalid-params answer, content modified) or a cancellation becomes HandlerFailed."""
    name = handler.__name__

    def failed(error: Exception) -> HandlerFailed:
        log.exception("%s failed", name)
        return HandlerFailed(f"xport-lint: {name} failed: {type(error).__name__}: {error}")

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def guarded_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(*args, **kwargs)
            except (JsonRpcException, asyncio.CancelledError):
                raise
            except Exception as error:  # noqa: BLE001 - the boundary: logged and answered
                raise failed(error) from error

        return guarded_async  # type: ignore[return-value]

    @functools.wraps(handler)
    def guarded_sync(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except JsonRpcException:
            raise
        except Exception as error:  # noqa: BLE001 - the boundary: logged and answered
            raise failed(error) from error

    return guarded_sync  # type: ignore[return-value]


@dataclass
class Features:
    """A feature module's handlers: LSP methods (with their options) and commands."""

    methods: list[tuple[str, Any, Callable[..., Any]]] = field(default_factory=list)
    commands: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)

    def feature(self, method: str, options: Any = None) -> Callable[[Handler], Handler]:
        def record(handler: Handler) -> Handler:
            self.methods.append((method, options, handler))
            return handler

        return record

    def command(self, name: str) -> Callable[[Handler], Handler]:
        def record(handler: Handler) -> Handler:
            self.commands.append((name, handler))
            return handler

        return record

    def register(self, server: LanguageServer) -> None:
        for method, options, handler in self.methods:
            server.feature(method, options)(guarded(handler))
        for name, handler in self.commands:
            server.command(name)(guarded(handler))
