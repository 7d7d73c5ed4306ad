"""Re-parse only the top-level statements an edit touched.

libcst takes about half a second for a 4,000-line file; an editor sends a new version on every
keystroke. CPython's `ast` (ten times faster) splits the file into top-level statements; each
statement's text is parsed by libcst once and reused while it is unchanged, and the module is
reassembled from the pieces. Half-typed code that `ast` rejects is parsed whole, which gives the
usual XPT000 at the error.
"""

from __future__ import annotations

import ast
from collections import OrderedDict

import libcst as cst

from .positions import split_lines

#: Cached statement text, in characters (about 40,000 lines): enough for the files being edited,
#: bounded because libcst trees take roughly 100x the memory of their text.
_CAPACITY = 1_500_000
#: and at most this many statements: a tree costs far more than its text, and edits at the end
#: of a file add a new small chunk each (the lint process grew past 100 MB over 12,000 edits)
_MAX_CHUNKS = 1_000


class ChunkedParser:
    """A libcst parser with a cache of top-level statements, keyed by their exact text."""

    def __init__(self, capacity: int = _CAPACITY) -> None:
        self.capacity = capacity
        self._chunks: OrderedDict[str, cst.Module] = OrderedDict()
        self._size = 0
        self.hits = 0
        self.misses = 0

    def parse(self, source: str) -> tuple[cst.Module, ast.Module | None]:
        """The libcst module (and the `ast` tree, for positions) of `source`."""
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return cst.parse_module(source), None
        if not tree.body or "\r" in source:
            return cst.parse_module(source), tree
        lines = split_lines(source)
        starts = sorted({_first_line(stmt) for stmt in tree.body})
        boundaries = [1, *starts[1:], len(lines) + 1]
        body: list[cst.BaseStatement] = []
        header: tuple[cst.EmptyLine, ...] = ()
        carried: list[cst.EmptyLine] = []  # blank lines and comments between statements
        first: cst.Module | None = None
        piece: cst.Module | None = None
        for index, (start, end) in enumerate(zip(boundaries, boundaries[1:], strict=False)):
            piece = self._chunk("".join(lines[start - 1 : end - 1]))
            statements = list(piece.body)
            if index == 0:
                first, header = piece, tuple(piece.header)
            else:
                carried.extend(piece.header)
            if statements and carried:
                statements[0] = statements[0].with_changes(
                    leading_lines=[*carried, *statements[0].leading_lines]
                )
                carried = []
            body.extend(statements)
            carried.extend(piece.footer)
        footer = tuple(carried)
        assert first is not None and piece is not None
        module = first.with_changes(
            body=body, header=header, footer=footer, has_trailing_newline=piece.has_trailing_newline
        )
        return module, tree

    def _chunk(self, text: str) -> cst.Module:
        cached = self._chunks.get(text)
        if cached is not None:
            self.hits += 1
            self._chunks.move_to_end(text)
            return cached
        self.misses += 1
        parsed = cst.parse_module(text)
        self._chunks[text] = parsed
        self._size += len(text)
        while (self._size > self.capacity or len(self._chunks) > _MAX_CHUNKS) and len(self._chunks) > 1:
            evicted, _ = self._chunks.popitem(last=False)
            self._size -= len(evicted)
        return parsed


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return min(d.lineno for d in decorators)
    return stmt.lineno
