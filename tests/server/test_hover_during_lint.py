"""Hovers answer from the last facts at once, in the server process: never queued behind the
lint of an edit (on a 20,000-line file that lint takes about a second; the latency is measured
in bench/server_bench.py, not asserted here)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_document, replace_text, start, wait_for
from tests.server.test_lsp import SIZED

MORE_MODELS = "".join(
    f"""

class Block{n}(torch.nn.Module):
    def forward(self, x):
        if x.sum() > {n}:
            x = x * 2
        return x.relu() + x.shape[0]
"""
    for n in range(250)
)


def _hover_params(uri: str, line: int, character: int) -> types.HoverParams:
    return types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)
    )


def _value(hover: types.Hover | None) -> str | None:
    return hover.contents.value if hover is not None and isinstance(hover.contents, types.MarkupContent) else None


async def test_a_size_hover_during_an_edits_lint_answers_before_its_diagnostics(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The sized model followed by 250 more models: its lint takes a while. The edit's lint
    starts at once (no debounce); the hover that follows is answered from the facts of the
    text before the edit, before the edit's diagnostics are published."""
    await start(client, tmp_path, pull=False, options={"debounceMs": 0})
    text = SIZED + MORE_MODELS
    uri = open_document(client, tmp_path / "big.py", text)
    await wait_for(lambda: uri in client.diagnostics, timeout=120)
    line = text.count("\n", 0, text.index("hidden[:, : hidden.shape[1]]"))
    column = text.splitlines()[line].index("hidden.shape[1]") + 3
    first = _value(await client.text_document_hover_async(_hover_params(uri, line, column)))
    assert first is not None and first.startswith("`hidden.shape[1]` is dynamic")
    published = client.diagnostics[uri]
    replace_text(client, uri, text + "# an edit\n", 2)
    during = _value(await client.text_document_hover_async(_hover_params(uri, line, column)))
    assert client.diagnostics[uri] is published, "the hover waited for the edit's lint"
    assert during == first
    await wait_for(lambda: client.diagnostics[uri] is not published, timeout=120)


async def test_a_size_hover_after_its_expression_changed_waits_for_the_new_facts(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The last facts answer only where the text still reads as it did: an edited expression
    gets no stale hover, and the facts of the new text answer the next one."""
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", SIZED)
    line = 6
    column = SIZED.splitlines()[line].index("hidden.shape[1]") + 3
    assert _value(await client.text_document_hover_async(_hover_params(uri, line, column))) is not None
    edited = SIZED.replace("hidden.shape[1]", "hidden.shape[2]")
    replace_text(client, uri, edited, 2)
    stale = _value(await client.text_document_hover_async(_hover_params(uri, line, column)))
    assert stale is None or stale.startswith("`hidden.shape[2]`")

    answer = None
    for _ in range(600):  # polled: the new facts are computed in the background after the lint
        answer = _value(await client.text_document_hover_async(_hover_params(uri, line, column)))
        if answer is not None:
            break
        await asyncio.sleep(0.05)
    assert answer is not None and answer.startswith("`hidden.shape[2]`")
