"""The server's copy of the editor's documents: lines as Python and LSP break them, and
notebook cells found by the URI the client sent."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from pygls.workspace import TextDocument, Workspace

from xport_lint.analyzers.lines import split_lines


class PythonLinesDocument(TextDocument):
    """pygls splits lines with `str.splitlines`, which also breaks at U+2028, U+0085, form
    feed...: an incremental edit after one lands on the wrong line, and the server's copy drifts
    from the editor's. LSP (like Python) breaks lines only at \\n, \\r\\n and \\r."""

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(split_lines(self.source))


class _UnquotedKeys(dict[str, TextDocument]):
    """pygls keys open documents by their unquoted URI; VS Code's notebook cell URIs are quoted
    (`...notebook.ipynb#W0sZmlsZQ%3D%3D`): a lookup by the URI as the client sent it finds them."""

    def __contains__(self, uri: object) -> bool:
        return isinstance(uri, str) and super().__contains__(unquote(uri))

    def __getitem__(self, uri: str) -> TextDocument:
        return super().__getitem__(unquote(uri))

    def get(self, uri: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(unquote(uri), default)


class PythonLinesWorkspace(Workspace):
    @property
    def text_documents(self) -> dict[str, TextDocument]:
        if not isinstance(self._text_documents, _UnquotedKeys):
            self._text_documents = _UnquotedKeys(self._text_documents)
        return self._text_documents

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return PythonLinesDocument(doc_uri, source=source, version=version, language_id=language_id,
                                    sync_kind=self._sync_kind, position_codec=self._position_codec)

