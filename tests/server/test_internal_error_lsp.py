"""An internal error in the editor: the real server with a rule broken by a sitecustomize
(tests/server/broken_rule) shows the file as not fully checked, as its own kind of diagnostic."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.cli.test_cli import BAD
from tests.server.conftest import open_document, start, wait_for

BROKEN_RULE = Path(__file__).with_name("broken_rule")


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "xport_lint.server"],
    server_env={**os.environ, "PYTHONPATH": str(BROKEN_RULE)},
))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        """The server watches pyproject.toml (conftest's client accepts it alike)."""

    yield lsp_client
    await lsp_client.shutdown_session()


async def test_an_internal_error_is_a_diagnostic_of_its_own_kind(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=False)
    uri = open_document(client, tmp_path / "model.py", BAD)
    await wait_for(lambda: bool(client.diagnostics.get(uri)), timeout=60)
    (failure,) = [d for d in client.diagnostics[uri] if d.code == "internal-error"]
    assert failure.source == "xport-lint" and failure.severity == types.DiagnosticSeverity.Error
    assert failure.message.startswith("internal error: XPT101 (tensor-branch) raised KeyError")
    assert failure.code_description is None and failure.data is None  # no rule page, nothing to fix or suppress
    assert failure.range.start == types.Position(line=0, character=0)
