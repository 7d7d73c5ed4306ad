"""Re-parse only the top-level statements an edit touched.

libcst takes about half a second for a 4,000-line file; an editor sends a new version on every
keystroke. CPython's `ast` (ten times faster) splits the file into top-level statements; each
statement's text is parsed by libcst once and reused while it is unchanged, and the module is
reassembled from the pieces. Half-typed code that `ast` rejects is parsed whole, which gives the
usual XPT000 at the error; so is a text where a piece would end in a backslash continuation (a
line holding only `\\` between two statements), which libcst rejects alone.

An unchanged statement is the very same libcst node from one parse to the next (blank lines and
comments before it included), so facts computed from a statement can be kept by its identity
(`per_statement`): an edit re-derives them only for the statements it touched.

`ast` itself runs only over what changed when an edit keeps the line count (a keystroke within
a line): the top-level statements around the changed lines are parsed alone and the places of
the others kept (`Top`), since a column-0 statement after a complete one starts the tokenizer
afresh. An edit that adds or removes lines, or whose region does not parse alone, parses the
whole text, as before.
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from dataclasses import dataclass

import libcst as cst

from .fact_store import FactStore, PerStatement, facts_kept_in
from .positions import split_lines

#: the fact store's names, which the parser's users import from here too
__all__ = ["ChunkedParser", "FactStore", "PerStatement", "Top", "facts_kept_in"]

#: Cached statement text, in characters (about 40,000 lines): enough for the files being edited,
#: bounded because libcst trees take roughly 100x the memory of their text.
_CAPACITY = 1_500_000
#: and at most this many statements: a tree costs far more than its text, and edits at the end
#: of a file add a new small chunk each (the lint process grew past 100 MB over 12,000 edits)
_MAX_CHUNKS = 1_000
#: text with which the statement places are taken from a whole parse: line breaks other than
#: \n, and the one `__future__` import that changes the grammar for the rest of the file
_ODD_TEXT = ("\r", "\f", "\v", "barry_as_FLUFL")


@dataclass(frozen=True)
class Top:
    """A top-level statement of the last text parsed: its lines, and what the editor's lenses
    need of it (so the lint child never parses the whole text again for them)."""

    #: its first line (its decorators' when it has any) and its last
    first: int
    end: int
    #: a class defining `forward`: (name, line, forward's required parameters) for each
    #: `forward`, as `confirm.model_classes` gives them
    models: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    #: `def xport_example()`: the names it calls
    example_calls: frozenset[str] | None = None


def _top(stmt: ast.stmt, offset: int) -> Top:
    """`stmt`'s place and lens facts; `offset`: lines before the text it was parsed from."""
    models: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    example = None
    if isinstance(stmt, ast.ClassDef):
        from .confirm import model_classes

        alone = ast.Module(body=[stmt], type_ignores=[])
        models = tuple((name, line + offset, tuple(params)) for name, line, params in model_classes("", alone))
    elif isinstance(stmt, ast.FunctionDef) and stmt.name == "xport_example":
        calls = (node for node in ast.walk(stmt) if isinstance(node, ast.Call))
        example = frozenset(call.func.id for call in calls if isinstance(call.func, ast.Name))
    return Top(_first_line(stmt) + offset, (stmt.end_lineno or stmt.lineno) + offset, models, example)


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
        #: the last source parsed and its top-level statements (None: `ast` rejects it)
        self.last: tuple[str, list[Top] | None] = ("", None)
        #: texts whose statements' places came from parsing only the lines an edit changed
        self.partial = 0
        #: the facts of its trees' nodes that the checks of its parses asked for (see FactStore)
        self.facts = FactStore()

    def parse(self, source: str) -> tuple[cst.Module, ast.Module | None]:
        """The libcst module of `source`, and its `ast` tree when `ast` parsed it whole (None:
        only the changed statements were; positions then parse regions as they need them)."""
        self.facts.age()
        lines = split_lines(source)
        tops = self._tops_after_edit(source, lines)
        tree = None
        if tops is None:
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self.last = (source, None)
                return cst.parse_module(source), None
            tops = [_top(stmt, 0) for stmt in tree.body]
        else:
            self.partial += 1
        self.last = (source, tops)
        if not tops or "\r" in source:
            return cst.parse_module(source), tree
        ends = [0, *(top.end for top in tops)]
        starts = sorted({_start(top, lines, end) for top, end in zip(tops, ends, strict=False)})
        if any(_continued(lines[start - 2]) for start in starts[1:]):
            return cst.parse_module(source), tree  # a chunk would end inside a logical line
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
            elif (piece.default_indent, piece.default_newline) != (first.default_indent, first.default_newline):  # type: ignore[union-attr]
                # the module renders every statement with one indent: a statement indented its
                # own way (an 8-space body after 4-space ones) would come out re-indented
                return cst.parse_module(source), tree
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

    def _tops_after_edit(self, source: str, lines: list[str]) -> list[Top] | None:
        """The top-level statements of `source` from the last text's, with those around the
        lines that differ parsed again alone; None when the whole text must be parsed (no last
        text, another line count, line breaks `ast` and `split_lines` may count differently, or
        a region that does not parse alone: half-typed code, a line indented into the statement
        before). Sound: the lines before the region end a complete statement and the region's
        statements start at column 0, so the whole text tokenizes as the pieces do."""
        before, tops = self.last
        if tops is None or not before or any(odd in source or odd in before for odd in _ODD_TEXT):
            return None
        old = split_lines(before)
        if len(old) != len(lines):
            return None
        first = next((i for i, (a, b) in enumerate(zip(old, lines, strict=True)) if a != b), None)
        if first is None:
            return tops
        last = next(i for i in range(len(lines) - 1, first - 1, -1) if old[i] != lines[i])
        changed_from, changed_to = first + 1, last + 1  # 1-based lines
        start = max((top.end for top in tops if top.end < changed_from), default=0) + 1
        stop = min((top.first for top in tops if top.first > changed_to), default=len(lines) + 1) - 1
        kept_before = [top for top in tops if top.end < start]
        kept_after = [top for top in tops if top.first > stop]
        replaced = tops[len(kept_before) : len(tops) - len(kept_after)]
        if any(top.first < start or top.end > stop for top in replaced):
            return None  # a statement straddles the region (two on one line)
        if start > 1 and _continued(lines[start - 2]):
            return None  # the region's first line continues the line before it
        try:
            region = ast.parse("".join(lines[start - 1 : stop]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        return [*kept_before, *(_top(stmt, start - 1) for stmt in region.body), *kept_after]

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


def _start(top: Top, lines: list[str], previous_end: int) -> int:
    """The first line of `top`'s chunk: its own first line, after the blank lines and
    unindented comments since the statement before (libcst's leading lines of the statement).
    So the lines before a statement are its own chunk's: an edit of the statement above leaves
    it alone."""
    start = top.first
    while start - 1 > previous_end and (not lines[start - 2].strip() or lines[start - 2].startswith("#")):
        start -= 1
    return start


def _continued(line: str) -> bool:
    """Whether `line` ends in a backslash continuation: the next line is the same logical line
    (`\\` alone on a line between two statements), so no chunk may end after it (alone, the chunk
    would end in a continuation at end of file, which libcst rejects) and no region start after it.
    A comment ending in a backslash is counted too: rare, and a whole parse is always right."""
    return line.rstrip("\r\n").endswith("\\")


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return min(d.lineno for d in decorators)
    return stmt.lineno
