"""Repair from the editor: the server's `xport-lint.repair` command runs the same loop as the
CLI (in a child process) and answers with the report; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.repair.test_repair_cli import MODEL, OPS
from tests.server.conftest import open_document, start

pytest.importorskip("torch")
pytestmark = pytest.mark.torch


async def test_the_repair_command_answers_with_each_step_and_the_diff(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text(OPS)
    (package / "model.py").write_text(MODEL)
    await start(client, tmp_path, pull=False, options={"trusted": True})
    uri = open_document(client, package / "model.py", MODEL)
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="xport-lint.repair", arguments=[uri])
    )
    assert report["status"] == "exported"
    assert report["before"]["failure"]["kind"] == "GuardOnDataDependentSymNode"
    assert [(s["path"], s["kept"]) for s in report["steps"]] == [("pkg/ops.py", True), ("pkg/model.py", True)]
    assert "+++ b/pkg/ops.py" in report["diff"] and "torch.cond(" in report["files"]["pkg/model.py"]
    assert (package / "model.py").read_text() == MODEL


async def test_the_repair_command_needs_a_trusted_workspace(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=False)
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    uri = open_document(client, path, MODEL)
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="xport-lint.repair", arguments=[uri])
    )
    assert report["status"] == "untrusted"
