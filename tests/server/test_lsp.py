"""The language server end to end, as an editor uses it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.cli.test_cli import BAD, FIXABLE, GOOD
from tests.server.conftest import apply_text_edits, open_document, pull, replace_text, start, wait_for
from xport_lint.analyzers import check_source

EXAMPLES = Path(__file__).parents[2] / "examples"


async def test_push_diagnostics_appear_and_vanish_after_the_fix(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=False)
    uri = open_document(client, tmp_path / "model.py", BAD)
    await wait_for(lambda: bool(client.diagnostics.get(uri)))
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.code == "XPT101" and diagnostic.source == "xport-lint"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start == types.Position(line=3, character=11)
    assert diagnostic.code_description is not None and diagnostic.code_description.href.endswith("#xpt101")
    replace_text(client, uri, GOOD, 2)
    await wait_for(lambda: client.diagnostics.get(uri) is not None and len(client.diagnostics[uri]) == 0)


async def test_pull_diagnostics_with_result_ids(client: LanguageClient, tmp_path: Path) -> None:
    result = await start(client, tmp_path, pull=True)
    assert result.capabilities.diagnostic_provider is not None
    uri = open_document(client, tmp_path / "model.py", BAD)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["XPT101"]
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id
        )
    )
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    await asyncio.sleep(0.2)
    assert uri not in client.diagnostics  # a pull client is not pushed to
    # new settings change the results of the same document version: the old id is stale
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"ignore": ["XPT101"]}))
    await wait_for(lambda: client.diagnostic_refresh_count > 0)
    after = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id
        )
    )
    assert isinstance(after, types.RelatedFullDocumentDiagnosticReport) and not after.items


async def test_push_and_pull_agree(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=False)
    source = (EXAMPLES / "detector_head.py").read_text()
    uri = open_document(client, tmp_path / "head.py", source)
    await wait_for(lambda: bool(client.diagnostics.get(uri)))
    pulled = await pull(client, uri)
    assert [(d.code, d.range) for d in pulled] == [(d.code, d.range) for d in client.diagnostics[uri]]
    related = next(d for d in pulled if d.code == "XPT105").related_information
    assert related and related[0].location.range.start.line == 16  # the boxes[keep] line


async def test_quick_fix_applies_and_clears_the_diagnostic(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "snap.py", FIXABLE)
    (diagnostic,) = await pull(client, uri)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    assert actions is not None
    fix = next(a for a in actions if isinstance(a, types.CodeAction) and a.is_preferred)
    # Ctrl+. then Enter takes the first: the fix, never "Disable for this line"
    assert [a.title for a in actions][:2] == [fix.title, "XPT407: Disable for this line"]
    assert fix.edit is not None and fix.edit.changes is not None
    fixed = apply_text_edits(FIXABLE, list(fix.edit.changes[uri]))
    assert "x.clone() + 1  # keep this comment" in fixed
    replace_text(client, uri, fixed, 2)
    assert await pull(client, uri) == []


LOCKED = """\
import threading
import torch
class Cached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
    def forward(self, x):
        with self.lock:
            return x * 2
program = torch.export.export(Cached(), (torch.randn(2),), strict=True)
"""


async def test_a_rejected_context_manager_is_shown_at_its_with_with_a_quick_fix(
    client: LanguageClient, tmp_path: Path
) -> None:
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "cached.py", LOCKED)
    (diagnostic,) = await pull(client, uri)
    assert diagnostic.code == "XPT410" and diagnostic.range.start.line == 7
    assert "Unsupported context manager" in diagnostic.message
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]),
        )
    )
    (fix,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and "Skip it while exporting" in a.title]
    assert fix.edit is not None and fix.edit.changes is not None
    fixed = apply_text_edits(LOCKED, list(fix.edit.changes[uri]))
    assert "with contextlib.nullcontext() if torch.compiler.is_exporting() else self.lock:" in fixed
    assert "import contextlib" in fixed
    replace_text(client, uri, fixed, 2)
    assert await pull(client, uri) == []


async def test_disable_for_this_line(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", BAD)
    (diagnostic,) = await pull(client, uri)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert actions is not None
    (ignore,) = [a for a in actions if isinstance(a, types.CodeAction) and "Disable" in a.title]
    assert ignore.edit is not None and ignore.edit.changes is not None
    fixed = apply_text_edits(BAD, list(ignore.edit.changes[uri]))
    assert "if x.sum() > 0:  # noqa: XPT101" in fixed
    replace_text(client, uri, fixed, 2)
    assert await pull(client, uri) == []


async def test_fix_all_is_a_resolvable_source_action(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    source = FIXABLE + "def export():\n    return torch.export.export_for_training(Snap(), (torch.ones(2),))\n"
    uri = open_document(client, tmp_path / "snap.py", source)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.xport-lint"]),
        )
    )
    assert actions is not None
    (action,) = actions
    assert isinstance(action, types.CodeAction) and action.edit is None
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None and resolved.edit.changes is not None
    fixed = apply_text_edits(source, list(resolved.edit.changes[uri]))
    assert "x.clone()" in fixed and "torch.export.export(Snap()" in fixed
    replace_text(client, uri, fixed, 2)
    assert await pull(client, uri) == []


async def hover_text(client: LanguageClient, uri: str, line: int, character: int) -> str | None:
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                          position=types.Position(line=line, character=character))
    )
    if hover is None:
        return None
    assert isinstance(hover.contents, types.MarkupContent) and hover.contents.kind == types.MarkupKind.Markdown
    return hover.contents.value


async def test_the_hover_on_a_finding_is_short_and_links_to_the_rule_doc(client: LanguageClient, tmp_path: Path) -> None:
    """It was the message and then the rule's whole page (~600 words, big headings): now the
    message, why in one sentence, the fix, and a link to the rule's section of docs/rules.md."""
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", BAD)
    (diagnostic,) = await pull(client, uri)
    text = await hover_text(client, uri, 3, 14)
    assert text is not None
    head, message, why, fix, link = text.split("\n\n")
    assert head == "**XPT101** `tensor-branch` · error" and message == diagnostic.message
    assert why.startswith("**Why:** Export traces with fake tensors that have no values") and why.endswith(".")
    assert fix.startswith("**Fix:** ")
    assert link == "[XPT101 in the rules documentation](https://github.com/xport-lint/xport-lint/blob/main/docs/rules.md#xpt101)"
    assert "#" not in text.replace("#xpt101", "") and len(text.split()) < 120
    assert await hover_text(client, uri, 0, 0) is None


NO_FIX = BAD.replace("return -x", "return None")


async def test_why_no_fix_is_offered_is_data_and_hover_not_the_message(client: LanguageClient, tmp_path: Path) -> None:
    """A "(no automatic fix: ...)" tail made the message too long for the Problems panel."""
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", NO_FIX)
    (diagnostic,) = await pull(client, uri)
    assert diagnostic.message == "if tests the tensor value `x.sum() > 0`: data-dependent branch"
    reason = "a branch returns `None`, which is not a tensor"
    assert diagnostic.data["noFix"] == reason and "fix" not in diagnostic.data
    assert [r.message for r in diagnostic.related_information or []] == [f"no automatic fix: {reason}"]
    text = await hover_text(client, uri, 3, 14)
    assert text is not None and f"**No automatic fix:** {reason}" in text and "**Fix:**" not in text


async def test_settings_change_applies_without_restart(client: LanguageClient, tmp_path: Path) -> None:
    client.set_configuration({"ignore": ["XPT101"]}, section="xport-lint")
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", BAD)
    assert await pull(client, uri) == []
    client.set_configuration({"ignore": [], "severity": {"XPT101": "warning"}}, section="xport-lint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: client.diagnostic_refresh_count > 0)
    (diagnostic,) = await pull(client, uri)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning


async def test_initialization_options_and_bad_settings(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"select": "XPT1", "strict": True})
    uri = open_document(client, tmp_path / "model.py", BAD)
    assert [d.code for d in await pull(client, uri)] == ["XPT101"]  # bad select fell back to default
    assert any("select" in m.message for m in client.log_messages)


async def test_pyproject_change_is_picked_up(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", BAD)
    assert len(await pull(client, uri)) == 1
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nignore = ["XPT1"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    await wait_for(lambda: client.diagnostic_refresh_count > 0)
    assert await pull(client, uri) == []


async def test_workspace_diagnostics_cover_files_on_disk(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(GOOD)
    await start(client, tmp_path, pull=True)
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_name = {Path(item.uri).name: [d.code for d in item.items] for item in report.items}
    assert by_name == {"a.py": ["XPT101"], "b.py": []}


async def test_close_clears_pushed_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=False)
    uri = open_document(client, tmp_path / "model.py", BAD)
    await wait_for(lambda: bool(client.diagnostics.get(uri)))
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_for(lambda: client.diagnostics.get(uri) is not None and len(client.diagnostics[uri]) == 0)


async def test_every_prefix_of_a_real_model_file(client: LanguageClient, tmp_path: Path) -> None:
    """Half-typed code never crashes the server; the end state matches the CLI."""
    await start(client, tmp_path, pull=False)
    source = (EXAMPLES / "router.py").read_text()
    path = tmp_path / "router.py"
    uri = open_document(client, path, "")
    version = 1
    for cut in range(0, len(source) + 1, 3):
        version += 1
        replace_text(client, uri, source[: cut], version)
    version += 1
    replace_text(client, uri, source, version)
    expected = [f.code for f in check_source(source, str(path))]
    await wait_for(lambda: [d.code for d in client.diagnostics.get(uri, [])] == expected)
    assert [d.code for d in await pull(client, uri)] == expected
    assert client.error is None


async def test_load_stays_responsive(client: LanguageClient, tmp_path: Path) -> None:
    """2,000 rapid edits over 20 documents: every hover is answered while the edits pour in, and
    the diagnostics end matching the CLI. (Latency is measured in bench/server_bench.py, not
    asserted here: a wall-clock bound fails on a loaded machine.)"""
    await start(client, tmp_path, pull=False, options={"debounceMs": 100})  # the default debounce
    await wait_for(lambda: any("ready" in m.message for m in client.log_messages))  # start-up is measured elsewhere
    base = (EXAMPLES / "detector_head.py").read_text()
    uris = [open_document(client, tmp_path / f"m{i}.py", base) for i in range(20)]
    versions = dict.fromkeys(uris, 1)
    hovers = []
    for step in range(2000):
        uri = uris[step % 20]
        versions[uri] += 1
        replace_text(client, uri, base + f"\n# edit {step}\n", versions[uri])
        if step % 100 == 0:
            hovers.append(await client.text_document_hover_async(
                types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uris[0]), position=types.Position(line=17, character=12))
            ))
        if step % 50 == 0:
            await asyncio.sleep(0)
    assert len(hovers) == 20 and client.error is None
    final = base + "\n# edit 1999\n"
    expected = [f.code for f in check_source(final, "m.py")]
    last = uris[1999 % 20]
    await wait_for(lambda: [d.code for d in client.diagnostics.get(last, [])] == expected, timeout=30)


async def test_a_pyproject_beside_the_workspace_is_not_read(client: LanguageClient, tmp_path: Path) -> None:
    """A `pyproject.toml` in the workspace folder's parent silenced every diagnostic."""
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nignore = ["XPT"]\n')
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    await start(client, workspace, pull=True)
    uri = open_document(client, workspace / "model.py", BAD)
    assert [d.code for d in await pull(client, uri)] == ["XPT101"]


BASE = """\
from torch import nn


class GateMixin:
    def gate(self, x):
        if x.mean() > 0:
            return x
        return -x
"""
MODEL = """\
from torch import nn

from .base import GateMixin


class Model(GateMixin, nn.Module):
    def forward(self, x):
        return self.gate(x)
"""


async def test_a_helper_is_checked_as_the_workspace_traces_it(client: LanguageClient, tmp_path: Path) -> None:
    """base.py alone has nothing traced; model.py, not open, makes its mixin traced. Editing
    model.py (now open) so it no longer uses the mixin clears base.py's diagnostic."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(BASE)
    (package / "model.py").write_text(MODEL)
    await start(client, tmp_path, pull=False)
    base = open_document(client, package / "base.py", BASE)
    await wait_for(lambda: bool(client.diagnostics.get(base)), timeout=30)
    (diagnostic,) = client.diagnostics[base]
    assert diagnostic.code == "XPT101" and diagnostic.range.start.line == 5
    (note,) = diagnostic.related_information or []
    assert note.message == "traced: reached from `Model.forward`" and note.location.uri.endswith("/pkg/model.py")

    model = open_document(client, package / "model.py", MODEL)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=model, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=MODEL.replace("return self.gate(x)", "return x"))],
        )
    )
    await wait_for(lambda: client.diagnostics.get(base) is not None and len(client.diagnostics[base]) == 0, timeout=30)


DECODER = """\
import torch


class Decoder(torch.nn.Module):
    def forward(self, hidden):
        if hidden.shape[1] > 4:
            return hidden * 0.5
        return hidden.cumsum(1)
"""
EXPORT_SCRIPT = """\
import torch
from torch.export import Dim

from pkg.model import Decoder

torch.export.export(Decoder(), (torch.randn(2, 3, 8),), dynamic_shapes={"hidden": {1: Dim("seq")}})
"""


async def test_an_export_script_of_the_workspace_sets_shape_severities(client: LanguageClient, tmp_path: Path) -> None:
    """The model alone exports with static shapes (no finding); the workspace's export script,
    never opened, gives the size a named Dim that the branch splits: an error, as the CLI says."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(DECODER)
    (tmp_path / "export_decoder.py").write_text(EXPORT_SCRIPT)
    await start(client, tmp_path, pull=False)
    model = open_document(client, package / "model.py", DECODER)
    await wait_for(lambda: bool(client.diagnostics.get(model)), timeout=30)
    (diagnostic,) = client.diagnostics[model]
    assert diagnostic.code == "XPT301" and diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 5 and "export_decoder" in diagnostic.message
    (note,) = diagnostic.related_information or []
    assert note.location.uri.endswith("/export_decoder.py") and note.location.range.start.line == 5
    assert note.message == 'dynamic shapes declared here (hidden: {1: Dim("seq")})'
    cli = subprocess.run(
        [sys.executable, "-m", "xport_lint.analyzers.cli", "check", "--no-cache", "--format", "json", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    (finding,) = json.loads(cli.stdout)
    assert (finding["code"], finding["severity"], finding["message"]) == ("XPT301", "error", diagnostic.message)


SIZED = """\
import torch
from torch.export import Dim


class Decoder(torch.nn.Module):
    def forward(self, hidden, mask):
        return hidden[:, : hidden.shape[1]] * mask.size(0)


def xport_example():
    shapes = {"hidden": {1: Dim("seq", max=64)}, "mask": None}
    return {"model": Decoder(), "args": (torch.randn(2, 3, 8), torch.ones(2)), "dynamic_shapes": shapes}
"""


async def test_hover_on_an_input_size_says_what_the_export_makes_of_it(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", SIZED)
    column = SIZED.splitlines()[6].index("hidden.shape[1]") + 3
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=column))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith('`hidden.shape[1]` is dynamic, `Dim("seq", max=64)`: `seq ∈ [2, 64]`')
    assert "`xport_example()`" in hover.contents.value
    column = SIZED.splitlines()[6].index("mask.size(0)") + 2
    static = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=column))
    )
    assert static is not None and isinstance(static.contents, types.MarkupContent)
    assert static.contents.value.startswith("`mask.shape[0]` is static")


DERIVED = """\
import torch
from torch.export import Dim


class Pair(torch.nn.Module):
    def forward(self, x, y):
        width = y.shape[-1]
        return torch.cat([x, x], dim=1) * width + y


def xport_example():
    dx = Dim("dx", min=2, max=32)
    shapes = {"x": {1: dx}, "y": {1: 2 * dx}}
    return {"model": Pair(), "args": (torch.randn(2, 3), torch.randn(2, 6)), "dynamic_shapes": shapes}
"""


async def test_hover_on_a_derived_size_shows_its_expression_and_range(client: LanguageClient, tmp_path: Path) -> None:
    """`y.shape[-1]` (counted from the end: the example's rank places it) under the derived
    `2 * dx` shows the expression and the sizes it takes over `dx`'s range."""
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", DERIVED)
    column = DERIVED.splitlines()[6].index("y.shape[-1]") + 3
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=column))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith("`y.shape[1]` is dynamic, `2*dx`: `2*dx ∈ [4, 64]`")


def test_normal_operation_logs_nothing_but_readiness(tmp_path: Path) -> None:
    """The output channel was full of "Cancel notification for unknown message id": a client
    cancels a request whose answer is already on its way, which is normal, and says nothing."""
    server = subprocess.Popen([sys.executable, "-m", "xport_lint.server"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, object]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]

    def receive_until(answered: int) -> list[dict[str, object]]:
        seen = []
        while True:
            length = 0
            while (line := server.stdout.readline().strip()):  # type: ignore[union-attr]
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            seen.append(json.loads(server.stdout.read(length)))  # type: ignore[union-attr]
            if seen[-1].get("id") == answered and "method" not in seen[-1]:
                return seen

    uri = (tmp_path / "model.py").as_uri()
    try:
        send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": tmp_path.as_uri(),
                                                          "capabilities": {}}})
        said = receive_until(1)
        send({"method": "initialized", "params": {}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": BAD}}})
        send({"id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri},
                                                                  "position": {"line": 0, "character": 0}}})
        said += receive_until(2)
        send({"method": "$/cancelRequest", "params": {"id": 2}})  # answered already
        send({"method": "$/cancelRequest", "params": {"id": 77}})  # never asked
        send({"method": "$/someClientExtension", "params": {}})
        send({"id": 3, "method": "shutdown"})
        said += receive_until(3)
        send({"method": "exit"})
        _, errors = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert errors.decode() == ""
    logged = [m["params"]["message"] for m in said if m.get("method") == "window/logMessage"]  # type: ignore[index]
    assert [m for m in logged if "ready" not in m] == [], logged


THREE_MODELS = '''\
import torch


class Encoder(torch.nn.Module):
    def forward(self, x):
        return x * 2


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Decoder(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''


async def lenses(client: LanguageClient, uri: str) -> list[tuple[int, str, str]]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [(lens.range.start.line, lens.command.title, lens.command.command)  # type: ignore[union-attr]
            for lens in found or []]


async def test_code_lenses_by_default_only_where_a_model_exports_nothing(client: LanguageClient, tmp_path: Path) -> None:
    """A real model file had nine "Add xport_example()" lenses, one per class: by default
    (`codeLens: failing`) only the model with an error gets one."""
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "models.py", THREE_MODELS)
    assert await lenses(client, uri) == [(8, "Add xport_example() to confirm with draft_export", "xport-lint.addExample")]
    clean = open_document(client, tmp_path / "clean.py", THREE_MODELS.replace("if x.sum() > 0:", "if True:"))
    assert await lenses(client, clean) == []


async def test_code_lenses_all_or_off(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"codeLens": "all"})
    uri = open_document(client, tmp_path / "models.py", THREE_MODELS)
    assert [line for line, _, _ in await lenses(client, uri)] == [3, 8, 15]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"codeLens": "off"}))
    await wait_for(lambda: client.diagnostic_refresh_count > 0)
    assert await lenses(client, uri) == []


async def test_a_file_with_an_example_gets_one_confirm_lens_on_the_model_it_builds(
    client: LanguageClient, tmp_path: Path
) -> None:
    await start(client, tmp_path, pull=True)
    source = THREE_MODELS + "\n\ndef xport_example():\n    return Decoder(), (torch.randn(2, 3),)\n"
    uri = open_document(client, tmp_path / "models.py", source)
    assert await lenses(client, uri) == [(15, "Confirm with draft_export", "xport-lint.confirm")]


async def test_a_bad_code_lens_setting_falls_back_with_a_warning(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True, options={"codeLens": "sometimes"})
    uri = open_document(client, tmp_path / "models.py", THREE_MODELS)
    assert len(await lenses(client, uri)) == 1
    assert any("codeLens: expected one of all, failing, off" in m.message for m in client.log_messages)
