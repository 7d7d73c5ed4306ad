"""Source positions for the few nodes that are reported, computed only when needed.

libcst's PositionProvider re-generates the whole file with position tracking: about 2.5x the
cost of parsing it (measured, libcst 1.9). Reports are rare, so instead: CPython's `ast` (10x
cheaper than libcst to parse) gives statement positions; the libcst and `ast` statement lists
are walked in parallel, and a reported expression is found by its text within its statement.

Findings sit in a fifth of a file's lines (measured on the bench corpus), so `ast` parses only
the top-level `def`/`class` that holds them: its header is found by its text at column 0, and
the parse of that region must agree with libcst's statements or the whole file is parsed.
Files `ast` cannot parse (newer grammar than this Python) fall back to libcst.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .lines import split_lines
from .model import Position, Span

_EMPTY = cst.Module(body=[])
_HEADER = re.compile(r"^(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.MULTILINE)
# line breaks that `str.splitlines` and CPython's tokenizer count differently, or at all
#: compound statements whose header (test, iterable, context managers) renders on its own
_HEADER_ONLY: dict[type, bool] = {cst.If: True, cst.While: True, cst.For: True, cst.With: True}
_PASS_BLOCK = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
_ODD_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")




def code_of(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


class Locator:
    def __init__(self, source: str, module: cst.Module, tree: ast.Module | None = None) -> None:
        self.source = source
        self.module = module
        self._tree = tree
        self._lines: list[str] | None = None
        self._statements: dict[int, tuple[ast.stmt, int]] = {}  # id -> (ast node, line offset)
        self._whole = False  # every statement is in `_statements` (or `ast` failed on the file)
        self._top: dict[int, int] | None = None  # id of a statement -> index of its top-level one
        self._regions: set[int] = set()
        self._fallback: dict[cst.CSTNode, object] | None = None
        self._headers: dict[int, int] | None = None
        self._renders: dict[tuple[int, bool], tuple[Any, list[str]] | None] = {}

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.source) or [""]
        return self._lines

    def span(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> Span:
        whole = self.statement_span(statement) if statement is not None else None
        if whole is None:
            whole = self.statement_span(node)
        if whole is None:
            return self._libcst_span(node)
        start, end = whole.start, whole.end
        if node is statement and not isinstance(node, cst.SimpleStatementLine):
            return Span(start, self._first_line_end(start, end))
        anchor = statement if statement is not None and whole is not None else node
        found = self._locate(node, anchor, start, end)
        return found if found is not None else Span(start, self._first_line_end(start, end))

    def exact_span(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> Span:
        """Where `node` is, for an edit: its text within `statement`, else libcst's own positions
        (never a nearby guess, which would make the edit overwrite the wrong code)."""
        whole = self.statement_span(statement) if statement is not None else None
        found = None
        if statement is not None and whole is not None:
            found = self._locate(node, statement, whole.start, whole.end)
        return found if found is not None else self._libcst_span(node)

    def statement_span(self, statement: cst.CSTNode) -> Span | None:
        """The whole of a statement, every line of it (`span` gives a compound one's first line)."""
        anchor = self._anchor(statement)
        if anchor is None:
            return None
        node, offset = anchor
        line = node.lineno + offset
        end_line = (node.end_lineno or node.lineno) + offset
        end_col = node.end_col_offset if node.end_col_offset is not None else 0
        return Span(
            Position(line, self._column(line, node.col_offset)),
            Position(end_line, self._column(end_line, end_col)),
        )

    def lines_of(self, statement: cst.CSTNode) -> tuple[int, int] | None:
        """First and last line (1-based) of a statement, without the comments above it."""
        anchor = self._anchor(statement)
        if anchor is None:
            return None
        node, offset = anchor
        return node.lineno + offset, (node.end_lineno or node.lineno) + offset

    def _first_line_end(self, start: Position, end: Position) -> Position:
        if end.line == start.line:
            return end
        return Position(start.line, len(self.lines[start.line - 1].rstrip("\r\n")))

    def _column(self, line: int, byte_offset: int) -> int:
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))

    def _locate(self, node: cst.CSTNode, statement: cst.CSTNode, start: Position, end: Position) -> Span | None:
        """Where `node` is within `statement` (spanning `start`..`end`): by its text when that
        occurs once there (the common case, and cheap), else by libcst's positions."""
        needle = code_of(node)
        found = self._find(needle, start, end, unique=True)
        if found is not None:
            return found
        return self._within(node, statement, start) or self._find(needle, start, end)

    def _within(self, node: cst.CSTNode, statement: cst.CSTNode, start: Position) -> Span | None:
        """`node`'s span from libcst's positions within its statement alone (rendered without
        the comments above it), moved to where `ast` put the statement: the node itself, not
        the first text that looks like it (`n` in `for step in range(n)` is not the n of `in`)."""
        found, lines = None, []
        for header_only in (True, False) if _HEADER_ONLY.get(type(statement)) else (False,):
            rendered = self._rendered(statement, header_only)
            if rendered is not None:
                positions, lines = rendered
                found = positions.get(node)
                if found is not None:
                    break
        if found is None:
            return None
        begin = self._moved(lines, found.start.line, found.start.column, start)
        stop = self._moved(lines, found.end.line, found.end.column, start)
        return Span(begin, stop) if begin is not None and stop is not None else None

    def _rendered(self, statement: cst.CSTNode, header_only: bool = False) -> tuple[Any, list[str]] | None:
        """libcst's positions of `statement` rendered alone; `header_only`: a compound statement's
        header with a one-line body (a node in an `if` test need not cost its whole body)."""
        key = (id(statement), header_only)
        cached = self._renders.get(key)
        if cached is not None or key in self._renders:
            return cached
        result = None
        if header_only:
            alone: cst.CSTNode | None = statement.with_changes(
                leading_lines=[], body=_PASS_BLOCK, **({"orelse": None} if hasattr(statement, "orelse") else {})
            )
        elif isinstance(statement, cst.BaseSmallStatement):
            alone = cst.SimpleStatementLine(body=[statement])
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            # `ast` places a decorated def at `def`; rendered without decorators, so does libcst
            alone = statement.with_changes(leading_lines=[], decorators=[], lines_after_decorators=[])
        elif isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            alone = statement.with_changes(leading_lines=[])
        else:
            alone = None
        if alone is not None:
            module = cst.Module(body=[alone])  # type: ignore[list-item]
            try:
                positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
                result = (positions, split_lines(module.code))
            except Exception:  # noqa: BLE001 - what libcst cannot place, the text search places
                result = None
        self._renders[key] = result
        return result

    def _moved(self, rendered: list[str], line: int, column: int, start: Position) -> Position | None:
        """A rendered position in the file. The statement was rendered at column 0: lines libcst
        re-indents move by the statement's indentation, continuation lines inside brackets keep
        the file's own whitespace and stay; a line that matches neither is not trusted."""
        if not 0 < line <= len(rendered):
            return None
        file_line = start.line + line - 1
        if file_line > len(self.lines):
            return None
        text, mine = rendered[line - 1].rstrip("\r\n"), self.lines[file_line - 1].rstrip("\r\n")
        indent = mine[: start.column]
        if line == 1:
            # an `elif` renders alone as `if`: two characters short of the file's text
            for shift in (0, 2):
                if mine[start.column + shift :].startswith(text):
                    return Position(file_line, column + start.column + shift)
            return None
        if indent.strip() == "" and mine == indent + text:
            return Position(file_line, column + start.column)
        if mine == text:
            return Position(file_line, column)
        return None

    def _find(self, needle: str, start: Position, end: Position, unique: bool = False) -> Span | None:
        """The first occurrence of `needle` from `start`; with `unique`, only if it is the only one."""
        if not needle:
            return None
        lines = self.lines[start.line - 1 : end.line]
        text = "".join(lines)
        offset = text.find(needle, start.column)
        if offset < 0 or (unique and text.find(needle, offset + 1) >= 0):
            return None
        line = start.line + text.count("\n", 0, offset)
        line_start = text.rfind("\n", 0, offset) + 1
        begin = Position(line, offset - line_start)
        stop = offset + len(needle)
        end_line = start.line + text.count("\n", 0, stop)
        end_line_start = text.rfind("\n", 0, stop) + 1
        return Span(begin, Position(end_line, stop - end_line_start))

    # -- statement map ---------------------------------------------------------------------

    def _anchor(self, statement: cst.CSTNode) -> tuple[ast.stmt, int] | None:
        found = self._statements.get(id(statement))
        if found is None and not self._whole:
            index = self._top_index().get(id(statement))
            if index is None or not self._pair_region(index):
                self._pair_whole()
            found = self._statements.get(id(statement))
        return found

    def _pair_whole(self) -> None:
        self._whole = True
        tree = self._tree
        if tree is None:
            try:
                tree = ast.parse(self.source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return
        try:
            self._pair(self.module.body, tree.body, 0)
        except (IndexError, AttributeError, _Mismatch):
            # grammar disagreement: positions come from libcst instead
            self._statements = {}

    def _top_index(self) -> dict[int, int]:
        if self._top is None:
            self._top = {}
            if self._tree is None and not _ODD_BREAKS.search(self.source):
                for index, stmt in enumerate(self.module.body):
                    for inner in _statements_in(stmt):
                        self._top[id(inner)] = index
        return self._top

    def _pair_region(self, index: int) -> bool:
        """Parse with `ast` only the top-level def/class at `index` (and any plain statements
        up to the next undecorated def/class): False when that cannot be done reliably."""
        if index in self._regions:
            return False
        self._regions.add(index)
        headers = self._header_lines()
        first = headers.get(index)
        if first is None:
            return False
        stop = len(self.module.body)
        for later in range(index + 1, len(self.module.body)):
            stmt = self.module.body[later]
            if later in headers and isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and not stmt.decorators:
                stop = later
                break
        end = headers[stop] if stop < len(self.module.body) else len(self.lines) + 1
        try:
            tree = ast.parse("".join(self.lines[first - 1 : end - 1]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        region = self.module.body[index:stop]
        expected = sum(len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1 for s in region)
        head = tree.body[0] if tree.body else None
        name = getattr(head, "name", None)
        if len(tree.body) != expected or name != region[0].name.value:  # type: ignore[attr-defined]
            return False
        added: dict[int, tuple[ast.stmt, int]] = {}
        saved, self._statements = self._statements, added
        try:
            self._pair(region, tree.body, first - 1)
        except (IndexError, AttributeError, _Mismatch):
            return False
        finally:
            self._statements = saved
        self._statements.update(added)
        return True

    def _header_lines(self) -> dict[int, int]:
        """Line of each top-level def/class header, by the statement's index in the module:
        column-0 `def name`/`class name` lines, matched in order (one inside a string at column 0
        can only mismatch, which the region's parse then catches). Computed once per file: per
        region it made time quadratic in file size."""
        if self._headers is not None:
            return self._headers
        found: list[tuple[str, str, int]] = []
        line, last = 1, 0
        for match in _HEADER.finditer(self.source):
            line += self.source.count("\n", last, match.start())
            last = match.start()
            found.append((match.group(1), match.group(2), line))
        out: dict[int, int] = {}
        position = 0
        for index, stmt in enumerate(self.module.body):
            if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            kind = "def" if isinstance(stmt, cst.FunctionDef) else "class"
            while position < len(found) and found[position][:2] != (kind, stmt.name.value):
                position += 1
            if position == len(found):
                break
            out[index] = found[position][2]
            position += 1
        self._headers = out
        return out

    def _pair(self, cst_body: Sequence[cst.CSTNode], ast_body: list[ast.stmt], offset: int) -> None:
        index = 0
        for stmt in cst_body:
            if isinstance(stmt, cst.SimpleStatementLine):
                self._statements[id(stmt)] = (ast_body[index], offset)
                for small in stmt.body:
                    self._statements[id(small)] = (ast_body[index], offset)
                    index += 1
                continue
            node = ast_body[index]
            index += 1
            self._statements[id(stmt)] = (node, offset)
            self._pair_compound(stmt, node, offset)

    def _pair_suite(self, suite: cst.BaseSuite, body: list[ast.stmt], offset: int) -> None:
        if isinstance(suite, cst.SimpleStatementSuite):
            for small, node in zip(suite.body, body, strict=False):
                self._statements[id(small)] = (node, offset)
        else:
            self._pair(suite.body, body, offset)

    def _pair_compound(self, stmt: cst.CSTNode, node: ast.stmt, offset: int) -> None:
        expected = _AST_KINDS.get(type(stmt))
        if expected is not None and not isinstance(node, expected):
            raise _Mismatch(f"{type(stmt).__name__} paired with {type(node).__name__}")
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.With)):
            self._pair_suite(stmt.body, node.body, offset)  # type: ignore[attr-defined]
        elif isinstance(stmt, cst.If):
            assert isinstance(node, ast.If)
            self._pair_suite(stmt.body, node.body, offset)
            if isinstance(stmt.orelse, cst.If):
                self._statements[id(stmt.orelse)] = (node.orelse[0], offset)
                self._pair_compound(stmt.orelse, node.orelse[0], offset)
            elif isinstance(stmt.orelse, cst.Else):
                self._pair_suite(stmt.orelse.body, node.orelse, offset)
        elif isinstance(stmt, (cst.For, cst.While)):
            self._pair_suite(stmt.body, node.body, offset)  # type: ignore[attr-defined]
            if stmt.orelse is not None:
                self._pair_suite(stmt.orelse.body, node.orelse, offset)  # type: ignore[attr-defined]
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self._pair_suite(stmt.body, node.body, offset)  # type: ignore[attr-defined]
            for handler, ast_handler in zip(stmt.handlers, node.handlers, strict=False):  # type: ignore[attr-defined]
                self._pair_suite(handler.body, ast_handler.body, offset)
            if stmt.orelse is not None:
                self._pair_suite(stmt.orelse.body, node.orelse, offset)  # type: ignore[attr-defined]
            if stmt.finalbody is not None:
                self._pair_suite(stmt.finalbody.body, node.finalbody, offset)  # type: ignore[attr-defined]
        elif isinstance(stmt, cst.Match):
            for case, ast_case in zip(stmt.cases, node.cases, strict=False):  # type: ignore[attr-defined]
                self._pair_suite(case.body, ast_case.body, offset)

    def _libcst_span(self, node: cst.CSTNode) -> Span:
        if self._fallback is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._fallback = dict(wrapper.resolve(PositionProvider))
        code_range = self._fallback.get(node)
        if code_range is None:
            return Span(Position(1, 0), Position(1, 0))
        return Span(
            Position(code_range.start.line, code_range.start.column),  # type: ignore[attr-defined]
            Position(code_range.end.line, code_range.end.column),  # type: ignore[attr-defined]
        )


class _Mismatch(Exception):
    """libcst's and `ast`'s statements disagree: positions come from elsewhere."""


_AST_KINDS: dict[type, type | tuple[type, ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: ast.ClassDef,
    cst.If: ast.If,
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: ast.While,
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: ast.Try,
    cst.TryStar: ast.TryStar,
    cst.Match: ast.Match,
}


def _statements_in(stmt: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`stmt` and every statement (compound, line or small) nested in it."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Else, cst.Finally)):
            stack.extend(node.body if isinstance(node.body, Sequence) else [node.body])
            continue
        yield node
        if isinstance(node, cst.SimpleStatementLine):
            yield from node.body
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.With)):
            stack.append(node.body)
        elif isinstance(node, cst.If):
            stack.append(node.body)
            if node.orelse is not None:
                stack.append(node.orelse)
        elif isinstance(node, (cst.For, cst.While)):
            stack.append(node.body)
            if node.orelse is not None:
                stack.append(node.orelse)
        elif isinstance(node, (cst.Try, cst.TryStar)):
            stack.append(node.body)
            stack.extend(handler.body for handler in node.handlers)
            if node.orelse is not None:
                stack.append(node.orelse)
            if node.finalbody is not None:
                stack.append(node.finalbody)
        elif isinstance(node, cst.Match):
            stack.extend(case.body for case in node.cases)
