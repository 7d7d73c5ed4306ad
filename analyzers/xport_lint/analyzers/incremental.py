"""Re-parse only the top-level statements an edit touched.

libcst takes about half a second for a 4,000-line file; an editor sends a new version on every
keystroke. CPython's `ast` (ten times faster) splits the file into top-level statements; each
statement's text is parsed by libcst once and reused while it is unchanged, and the module is
reassembled from the pieces. Half-typed code that `ast` rejects is parsed whole, which gives the
usual XPT000 at the error.

An unchanged statement is the very same libcst node from one parse to the next (blank lines and
comments before it included), so facts computed from a statement can be kept by its identity
(`per_statement`): an edit re-derives them only for the statements it touched.
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

import libcst as cst

from .positions import split_lines

#: Cached statement text, in characters (about 40,000 lines): enough for the files being edited,
#: bounded because libcst trees take roughly 100x the memory of their text.
_CAPACITY = 1_500_000
#: and at most this many statements: a tree costs far more than its text, and edits at the end
#: of a file add a new small chunk each (the lint process grew past 100 MB over 12,000 edits)
_MAX_CHUNKS = 1_000
T = TypeVar("T")


class ChunkedParser:
    """A libcst parser with a cache of top-level statements, keyed by their exact text and
    which occurrence of that text in the file they are: the same text twice in one file gets
    nodes of its own at each place (the analysis keys facts by node identity; one shared node
    gave both places one line), each kept from one parse to the next."""

    def __init__(self, capacity: int = _CAPACITY) -> None:
        self.capacity = capacity
        self._chunks: OrderedDict[tuple[str, int], cst.Module] = OrderedDict()
        #: (text, occurrence) -> (the chunk before it when that ends in lines the first statement
        #: takes, the statements with their leading lines): rebuilt when either changes
        self._joined: dict[tuple[str, int], tuple[str, list[cst.BaseStatement]]] = {}
        self._size = 0
        self.hits = 0
        self.misses = 0
        #: the last source parsed and its `ast` tree (None: `ast` rejects it)
        self.last: tuple[str, ast.Module | None] = ("", None)

    def parse(self, source: str) -> tuple[cst.Module, ast.Module | None]:
        """The libcst module (and the `ast` tree, for positions) of `source`."""
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self.last = (source, None)
            return cst.parse_module(source), None
        self.last = (source, tree)
        if not tree.body or "\r" in source:
            return cst.parse_module(source), tree
        lines = split_lines(source)
        ends = [0, *(stmt.end_lineno or stmt.lineno for stmt in tree.body)]
        starts = sorted({_start(stmt, lines, end) for stmt, end in zip(tree.body, ends, strict=False)})
        boundaries = [1, *starts[1:], len(lines) + 1]
        body: list[cst.BaseStatement] = []
        header: tuple[cst.EmptyLine, ...] = ()
        carried: list[cst.EmptyLine] = []  # blank lines and comments between statements
        first: cst.Module | None = None
        piece: cst.Module | None = None
        before = ""
        occurrences: dict[str, int] = {}
        for index, (start, end) in enumerate(zip(boundaries, boundaries[1:], strict=False)):
            text = "".join(lines[start - 1 : end - 1])
            key = (text, occurrences.get(text, 0))
            occurrences[text] = key[1] + 1
            piece = self._chunk(key)
            statements = list(piece.body)
            if index == 0:
                first, header = piece, tuple(piece.header)
            else:
                carried.extend(piece.header)
            if statements and carried:
                statements = self._join(before, key, carried, statements)
                carried = []
            body.extend(statements)
            carried.extend(piece.footer)
            before = text if piece.footer else ""  # what the next chunk's first statement depends on
        footer = tuple(carried)
        assert first is not None and piece is not None
        module = first.with_changes(
            body=body, header=header, footer=footer, has_trailing_newline=piece.has_trailing_newline
        )
        return module, tree

    def _join(
        self, before: str, key: tuple[str, int], carried: list[cst.EmptyLine], statements: list[cst.BaseStatement]
    ) -> list[cst.BaseStatement]:
        """`statements` with `carried` (the previous chunk's trailing lines) leading the first."""
        cached = self._joined.get(key)
        if cached is not None and cached[0] == before:
            return cached[1]
        joined = [statements[0].with_changes(leading_lines=[*carried, *statements[0].leading_lines]), *statements[1:]]
        self._joined[key] = (before, joined)
        return joined

    def _chunk(self, key: tuple[str, int]) -> cst.Module:
        cached = self._chunks.get(key)
        if cached is not None:
            self.hits += 1
            self._chunks.move_to_end(key)
            return cached
        self.misses += 1
        parsed = cst.parse_module(key[0])
        self._chunks[key] = parsed
        self._size += len(key[0])
        while (self._size > self.capacity or len(self._chunks) > _MAX_CHUNKS) and len(self._chunks) > 1:
            evicted, _ = self._chunks.popitem(last=False)
            self._joined.pop(evicted, None)
            self._size -= len(evicted[0])
        return parsed


def _start(stmt: ast.stmt, lines: list[str], previous_end: int) -> int:
    """The first line of `stmt`'s chunk: its own first line, after the blank lines and
    unindented comments since the statement before (libcst's leading lines of the statement).
    So the lines before a statement are its own chunk's: an edit of the statement above leaves
    it alone."""
    start = _first_line(stmt)
    while start - 1 > previous_end and (not lines[start - 2].strip() or lines[start - 2].startswith("#")):
        start -= 1
    return start


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return min(d.lineno for d in decorators)
    return stmt.lineno


class PerStatement(Generic[T]):
    """A fact of a top-level statement, computed once per statement node: with ChunkedParser an
    unchanged statement is the same node from one edit to the next, so an edit computes the fact
    again only for the statements it touched. Holds the nodes it keeps facts of (an id is only
    unique while its node lives), the most recent `capacity` of them."""

    def __init__(self, compute: Callable[[cst.CSTNode], T], capacity: int = 4 * _MAX_CHUNKS) -> None:
        self.compute = compute
        self.capacity = capacity
        self._facts: OrderedDict[int, tuple[cst.CSTNode, T]] = OrderedDict()

    def __call__(self, statement: cst.CSTNode) -> T:
        key = id(statement)
        cached = self._facts.get(key)
        if cached is not None and cached[0] is statement:
            self._facts.move_to_end(key)
            return cached[1]
        fact = self.compute(statement)
        self._facts[key] = (statement, fact)
        while len(self._facts) > self.capacity:
            self._facts.popitem(last=False)
        return fact
