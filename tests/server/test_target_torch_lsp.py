"""The `targetTorch` setting through the real server: the torch version decides the verdict on a
fact that changed between releases (strict export refuses a user context-manager instance built in
`__init__` on torch 2.13, and enters it on 2.14+); by default the server judges for the torch of
the interpreter it runs in (the workspace's)."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_target_torch import INSTANCE
from tests.server.conftest import open_document, pull, start, wait_for
from xport_lint.analyzers.versions import parse, show


async def test_the_setting_changes_the_verdict(client: LanguageClient, tmp_path: Path) -> None:
    client.set_configuration({"strict": True, "targetTorch": "2.13"}, section="xport-lint")
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", INSTANCE)
    (diagnostic,) = await pull(client, uri)
    assert diagnostic.code == "XPT410" and diagnostic.severity == types.DiagnosticSeverity.Error
    assert "torch 2.13" in diagnostic.message

    client.set_configuration({"strict": True, "targetTorch": "2.15"}, section="xport-lint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: client.diagnostic_refresh_count > 0)
    assert await pull(client, uri) == []


async def test_by_default_the_server_judges_for_its_interpreters_torch(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"strict": True})
    uri = open_document(client, tmp_path / "model.py", INSTANCE)
    installed = parse(version("torch"))
    assert installed is not None
    codes = [d.code for d in await pull(client, uri)]
    assert codes == (["XPT410"] if installed <= (2, 13) else []), f"torch {show(installed)} is installed"


async def test_a_target_outside_the_measured_versions_is_said_once(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"strict": True, "targetTorch": "2.16"})
    for name in ("a.py", "b.py"):
        uri = open_document(client, tmp_path / name, INSTANCE)
        assert await pull(client, uri) == [], "judged as torch 2.15, the newest measured"
    said = [m.message for m in client.log_messages if "torch 2.16" in m.message]
    assert len(said) == 1 and "findings are those of torch 2.15" in said[0]


async def test_a_bad_target_falls_back_with_a_message(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"strict": True, "targetTorch": "newest"})
    uri = open_document(client, tmp_path / "model.py", INSTANCE)
    await pull(client, uri)
    assert any(m.message.startswith("settings: targetTorch") for m in client.log_messages)
