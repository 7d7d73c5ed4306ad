"""A line holding only `\\` (a backslash continuation) between top-level statements: the lint
child's ChunkedParser must not end a statement's chunk inside that logical line (alone, the chunk
ends in a continuation at end of file, which libcst rejects: the editor showed an XPT000 at line
1 for a file that parses), nor re-parse an edited region that starts right after it. Through the
real server (pytest-lsp), the diagnostics of the opened text and of each edit are those of a cold
check of the same text; and the parser's module is the whole parse's, or fails as it does."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_document, pull, replace_text, start
from xport_lint.analyzers import Config
from xport_lint.analyzers.incremental import ChunkedParser
from xport_lint.analyzers.runner import check_file

MODULE = textwrap.dedent(
    """
    import torch
    from torch import nn

    \\

    class Gate(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return x
    """
).lstrip("\n")


def cold(text: str) -> list[tuple[str, int]]:
    """(code, 0-based line) of a fresh check of `text`, as the editor shows them."""
    return sorted((f.code, f.span.start.line - 1) for f in check_file(text, "model.py", Config()).findings)


def shown(diagnostics: list[types.Diagnostic]) -> list[tuple[str, int]]:
    return sorted((str(d.code), d.range.start.line) for d in diagnostics)


#: edits of MODULE, in the order an editor sends them: within a line (the child re-parses only
#: the statements around it), on the line the continuation joins, and one that adds a line
EDITS = [
    MODULE.replace("x * 2", "x * 3"),
    MODULE.replace("\\\n\n", "\\\nWIDTH = 4\n"),
    MODULE.replace("\\\n\n", "\\\nWIDTH = 4\n").replace("WIDTH = 4\n", "WIDTH = 4\nDEPTH = 2\n"),
    MODULE.replace("\\\n\n", "\\\nWIDTH = 4\n").replace("if x.sum() > 0:", "if x.shape[0] > 0:"),
]


@pytest.mark.asyncio
async def test_a_backslash_line_between_statements_in_an_editor_session(
    client: LanguageClient, tmp_path: Path
) -> None:
    await start(client, tmp_path, pull=True)
    uri = open_document(client, tmp_path / "model.py", MODULE)
    assert cold(MODULE) == [("XPT101", 7)]
    assert shown(await pull(client, uri)) == cold(MODULE)
    for version, text in enumerate(EDITS, start=2):
        replace_text(client, uri, text, version)
        assert shown(await pull(client, uri)) == cold(text), text
    assert cold(EDITS[-1]) == []


#: layouts of a lone `\` line: before the first statement, between two, after a blank line,
#: after an indented body, inside brackets, inside a statement's continuation, at the end
LAYOUTS = [
    "\\\nimport torch\nx = 1\n",
    "x = 1\n\\\ny = 2\n",
    "x = 1\n\n\\\n\ny = 2\n",
    "def f():\n    return 1\n\\\nz = 1\n",
    "class A:\n    x = 1\n\\\n\nclass B:\n    y = 2\n",
    "def f():\n    a = 1\n\\\n    b = 2\n    return b\nz = 1\n",
    "x = (1 +\n\\\n2)\ny = 2\n",
    "x = 1 + \\\n\\\n2\ny = 3\n",
    "x = 1\n\\\n",
]


def whole(text: str) -> str | None:
    try:
        return cst.parse_module(text).code
    except cst.ParserSyntaxError:
        return None


def chunked(parser: ChunkedParser, text: str) -> str | None:
    try:
        return parser.parse(text)[0].code
    except cst.ParserSyntaxError:
        return None


@pytest.mark.parametrize("text", LAYOUTS)
def test_the_parser_gives_the_whole_parse_around_a_backslash_line(text: str) -> None:
    parser = ChunkedParser()
    assert chunked(parser, text) == whole(text)
    # the same text again, then with a line edited in place (the region re-parse)
    assert chunked(parser, text) == whole(text)
    edited = text.replace("1", "7")
    assert chunked(parser, edited) == whole(edited)


def test_an_edit_on_the_line_a_continuation_joins_reparses_the_statement_it_continues() -> None:
    """`x = 1 \\` then a blank line is a whole statement; typing on that blank line extends it
    (`x = 1 + 2`): the statements' places (the editor's lenses read them) are a whole parse's."""
    parser = ChunkedParser()
    before, after = "x = 1 \\\n\ny = 2\n", "x = 1 \\\n+ 2\ny = 2\n"
    parser.parse(before)
    assert chunked(parser, after) == whole(after)
    fresh = ChunkedParser()
    fresh.parse(after)
    assert parser.last == fresh.last
    assert [(top.first, top.end) for top in parser.last[1] or []] == [(1, 2), (3, 3)]
