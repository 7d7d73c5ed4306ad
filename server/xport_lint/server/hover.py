"""Hovers: a finding's rule and message, and what export makes of an input size."""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from xport_lint.analyzers.lines import split_lines
from xport_lint.analyzers.model import Span

from . import convert, words
from .boundary import Features
from .session import SizeHovers, XportLanguageServer

log = logging.getLogger("xport_lint.server")

features = Features()


@features.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: XportLanguageServer, params: types.HoverParams) -> types.Hover | None:
    """A diagnostic's rule and message; elsewhere, on an input size a model's `forward` reads,
    what the export makes of it (static, Dim.AUTO, a named Dim and its range, and from where).
    Both from the last facts, at once, even while a lint runs: only a document's first size
    hover waits for its facts."""
    found = _diagnostic_hover(ls, params)
    if found is not None:
        return found
    uri = params.text_document.uri
    if uri not in ls.workspace.text_documents or not ls.settings.enable:
        return None
    document = ls.workspace.get_text_document(uri)
    if "shape" not in document.source and "size(" not in document.source and "len(" not in document.source:
        return None
    key = (document.version, ls.generation)
    known = ls.size_hovers.get(uri)
    if known is None:
        known = await _size_facts(ls, uri, document, key)
        if known is None:
            return None
    elif known.key != key:
        _refresh_soon(ls, uri, document, key)
    lines = list(document.lines)
    here = (params.position.line + 1, params.position.character)
    for span, text, written in known.facts:
        if (span.start.line, span.start.column) <= here <= (span.end.line, span.end.column):
            if _span_text(lines, span) != written:
                return None  # edited since: the refreshed facts answer the next hover
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                range=convert.lsp_range(lines, span),
            )
    return None


async def _size_facts(
    ls: XportLanguageServer, uri: str, document: TextDocument, key: tuple[int | None, int]
) -> SizeHovers | None:
    """The document's size facts for this text, computed in the lint child (after the lint
    under way, if any) and kept with the text of each span."""
    loop = asyncio.get_running_loop()
    source = document.source
    try:
        facts = await loop.run_in_executor(
            ls.executor, ls.linter.size_facts, source, to_fs_path(uri) or uri, ls.config_for(uri)
        )
    except Exception:  # noqa: BLE001 - a hover is never worth an error
        log.exception("size facts of %s", uri)
        return None
    lines = split_lines(source)
    known = SizeHovers(key, tuple((span, text, _span_text(lines, span)) for span, text in facts))
    if uri in ls.workspace.text_documents:  # newer than what was kept, even if edited since
        ls.size_hovers[uri] = known
    return known


def _refresh_soon(ls: XportLanguageServer, uri: str, document: TextDocument, key: tuple[int | None, int]) -> None:
    """Facts for the new text, computed in the background (one refresh a document at a time)."""
    running = ls.size_refresh.get(uri)
    if running is not None and not running.done():
        return
    ls.size_refresh[uri] = asyncio.ensure_future(_size_facts(ls, uri, document, key))


def _span_text(lines: list[str], span: Span) -> str:
    """The text a span covers (a fact holds while its expression reads the same)."""
    if not 0 < span.start.line <= span.end.line <= len(lines):
        return ""
    if span.start.line == span.end.line:
        return lines[span.start.line - 1][span.start.column : span.end.column]
    first, last = lines[span.start.line - 1][span.start.column :], lines[span.end.line - 1][: span.end.column]
    return first + "".join(lines[span.start.line : span.end.line - 1]) + last


def _diagnostic_hover(ls: XportLanguageServer, params: types.HoverParams) -> types.Hover | None:
    """From the last result, at once: a few lines per finding under the cursor, not the rule's
    whole page (the link leads there)."""
    result = ls.results.get(params.text_document.uri)
    if result is None:
        return None
    here = params.position
    found = [
        d for d in result.diagnostics
        if (d.range.start.line, d.range.start.character) <= (here.line, here.character)
        <= (d.range.end.line, d.range.end.character)
    ]
    if not found:
        return None
    text = "\n\n---\n\n".join(words.finding_hover(d) for d in found)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=found[0].range)

