"""One project model (workspace.Workspace): every command analyses a file with the context the
rest of the project gives it. pkg/ops.py alone traces nothing; pkg/model.py's `forward` calls its
`keep_positive`, which deep-copies a tensor (XPT407, a safe fix) and branches on one (XPT101).
The CLI's check and fix, the language server's diagnostics and fix-all, and the engine's
Workspace all say so; a file checked on its own does not."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_cli import run
from tests.server.conftest import apply_text_edits, client, open_document, pull, start
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.runner import check_source
from xport_lint.analyzers.workspace import Workspace

__all__ = ["client"]  # the pytest-lsp fixture, used by the server tests below

MODEL = (
    "import torch\nfrom pkg.ops import keep_positive\n\n\n"
    "class Model(torch.nn.Module):\n    def forward(self, x):\n        return keep_positive(x)\n"
)
OPS = (
    "import copy\n\n\ndef keep_positive(x):\n    y = copy.deepcopy(x)\n"
    "    if x.sum() > 0:\n        return y\n    return -y\n"
)
REACHED = "traced: reached from `Model.forward`"


def make_package(root: Path) -> tuple[Path, Path]:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODEL)
    (package / "ops.py").write_text(OPS)
    return package / "model.py", package / "ops.py"


def test_a_file_alone_has_no_context_the_workspace_gives_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    make_package(tmp_path)
    assert check_source(OPS, "pkg/ops.py") == []
    workspace = Workspace.for_paths(["pkg/model.py", "pkg/ops.py"], Config(), None, 1)
    checked = workspace.check_all()
    (ops,) = [r for r in checked.results if r.path == "pkg/ops.py"]
    assert sorted(f.code for f in ops.findings) == ["XPT101", "XPT407"]
    # a text that is not on disk (the fix prover's candidate, an editor's buffer) gets the same context
    edited = workspace.check("pkg/ops.py", OPS.replace("    if x.sum() > 0:\n        return y\n", ""))
    (copied,) = edited.findings
    assert copied.code == "XPT407" and copied.related[0].message.startswith(REACHED)
    fixed = workspace.fix("pkg/ops.py", OPS)
    assert "x.clone()" in fixed and "deepcopy" not in fixed
    assert [f.code for f in workspace.check("pkg/ops.py", fixed).findings] == ["XPT101"]


def test_an_open_document_stands_for_its_file_once_indexed(tmp_path: Path) -> None:
    """The language server's way in: files on disk indexed a step at a time, then an edit of an
    open document that stops calling the helper leaves the helper untraced."""
    model, ops = make_package(tmp_path)
    workspace = Workspace(Config())
    steps = 0
    settled = False
    while not settled:
        settled, _ = workspace.index_step([str(tmp_path)], seconds=0.0)  # one file a step
        steps += 1
        assert steps < 20, "indexing settles"
    checked, _ = workspace.update(str(ops), OPS)
    assert sorted(f.code for f in checked.findings) == ["XPT101", "XPT407"]
    # the edit's summary is worked out at the index's next step, off the edit's own path: the
    # same as the disk's, so nothing is re-checked
    assert workspace.index_step([str(tmp_path)], seconds=0.0) == (True, [])
    _, stale = workspace.update(str(model), MODEL.replace("return keep_positive(x)", "return x"))
    assert stale, "model.py's summary may have changed: the index needs a step"
    settled, affected = workspace.index_step([str(tmp_path)], seconds=0.0)
    # model.py too: the context it was analysed with told it what `keep_positive` returns
    assert settled and sorted(affected) == sorted([str(model), str(ops)])
    assert workspace.update(str(ops), OPS)[0].findings == []


def test_cli_fix_and_report_use_the_context_of_the_project(tmp_path: Path) -> None:
    _, ops = make_package(tmp_path)
    result = run("check", "--no-cache", "--fix", "--format", "json", "pkg", cwd=tmp_path)
    assert "x.clone()" in ops.read_text()
    left = [(f["filename"], f["code"], f["location"]["row"]) for f in json.loads(result.stdout)]
    assert left == [("pkg/ops.py", "XPT101", 6)]


async def test_server_fix_all_and_diagnostics_use_the_same_context_as_the_cli(
    client: LanguageClient, tmp_path: Path
) -> None:
    """ops.py is open, model.py never is: the server's diagnostics are the CLI's, and its
    fix-all applies the fix only the project context finds."""
    _, ops = make_package(tmp_path)
    cli = json.loads(run("check", "--no-cache", "--format", "json", "pkg/ops.py", "pkg/model.py", cwd=tmp_path).stdout)
    expected = sorted((f["code"], f["location"]["row"]) for f in cli if f["filename"] == "pkg/ops.py")
    assert expected == [("XPT101", 6), ("XPT407", 5)]
    await start(client, tmp_path, pull=True)
    uri = open_document(client, ops, OPS)
    found: list[types.Diagnostic] = []

    async def indexed() -> bool:
        found[:] = await pull(client, uri)
        return len(found) == 2

    await until(indexed)
    assert sorted((d.code, d.range.start.line + 1) for d in found) == expected
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.xport-lint"]),
        )
    )
    assert actions is not None
    (action,) = actions
    assert isinstance(action, types.CodeAction)
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None and resolved.edit.changes is not None
    fixed = apply_text_edits(OPS, list(resolved.edit.changes[uri]))
    assert "x.clone()" in fixed and "if x.sum() > 0:" in fixed


async def until(condition: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    """Until an awaited condition holds (the workspace is indexed between lints)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.1)
