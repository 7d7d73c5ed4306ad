"""The language server's wiring: one session, the feature modules' handlers registered through
the error boundary, logging to the client, and the process's start and end. No analysis and
no handler logic here (see the feature modules: diagnostics, actions, hover, confirming,
lifecycle; models.py for the readiness report)."""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import signal
import sys
import threading

from lsprotocol import types

from . import actions, confirming, diagnostics, hover, lifecycle, models
from .session import XportLanguageServer


class _ClientLogHandler(logging.Handler):
    """Engine and server log records go to the client's output (window/logMessage)."""

    def __init__(self, server: XportLanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        kind = types.MessageType.Error if record.levelno >= logging.ERROR else types.MessageType.Log
        try:
            self.server.log(self.format(record), kind)
        except Exception:  # noqa: BLE001 - logging must never raise
            pass


server = XportLanguageServer()
models.register(server)
for feature_module in (lifecycle, diagnostics, actions, hover, confirming):
    feature_module.features.register(server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="xport-lint server", description="xport-lint language server")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (debugging)")
    args = parser.parse_args(argv)
    handler = _ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("xport_lint").addHandler(handler)
    logging.getLogger("xport_lint").setLevel(logging.INFO)
    atexit.register(server.stop_confirmer)
    # a client (or a supervisor) that ends the server with SIGTERM: stop the children first
    signal.signal(signal.SIGTERM, lambda *_: (server.stop_confirmer(), os._exit(0)))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
        return
    status = server.serve_stdio()
    server.stop_confirmer()
    # a thread still busy (a lint, a confirmation) must not hold the exit for long: the client
    # restarts a server that exits, never one that lingers
    deadline = threading.Timer(5.0, os._exit, (status,))
    deadline.daemon = True
    deadline.start()
    sys.exit(status)
