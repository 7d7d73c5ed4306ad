"""Source positions for the few nodes that are reported, computed only when needed.

libcst's PositionProvider re-generates the whole file with position tracking: about 2.5x the
cost of parsing it (measured, libcst 1.9). Reports are rare, so instead: CPython's `ast` (10x
cheaper than libcst to parse) gives every statement's position; the libcst and `ast` statement
lists are walked in parallel, and a reported expression is found by its text within its
statement. Files `ast` cannot parse (newer grammar than this Python) fall back to libcst.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .model import Position, Span

_EMPTY = cst.Module(body=[])


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


class Locator:
    def __init__(self, source: str, module: cst.Module, tree: ast.Module | None = None) -> None:
        self.source = source
        self.module = module
        self._tree = tree
        self._lines: list[str] | None = None
        self._statements: dict[int, ast.stmt] | None = None
        self._fallback: dict[cst.CSTNode, object] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.source.splitlines(keepends=True) or [""]
        return self._lines

    def span(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> Span:
        statements = self._statement_map()
        anchor = statements.get(id(statement)) if statement is not None else None
        if anchor is None and statements:
            anchor = statements.get(id(node))
        if anchor is None:
            return self._libcst_span(node)
        start = Position(anchor.lineno, self._column(anchor.lineno, anchor.col_offset))
        end_line = anchor.end_lineno or anchor.lineno
        end_col = anchor.end_col_offset if anchor.end_col_offset is not None else 0
        end = Position(end_line, self._column(end_line, end_col))
        if node is statement and not isinstance(node, cst.SimpleStatementLine):
            return Span(start, self._first_line_end(start, end))
        found = self._find(code_of(node), start, end)
        return found if found is not None else Span(start, self._first_line_end(start, end))

    def exact_span(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> Span:
        """Where `node` is, for an edit: its text within `statement`, else libcst's own positions
        (never a nearby guess, which would make the edit overwrite the wrong code)."""
        anchor = self._statement_map().get(id(statement)) if statement is not None else None
        if anchor is not None and anchor.end_lineno is not None and anchor.end_col_offset is not None:
            start = Position(anchor.lineno, self._column(anchor.lineno, anchor.col_offset))
            end = Position(anchor.end_lineno, self._column(anchor.end_lineno, anchor.end_col_offset))
            found = self._find(code_of(node), start, end)
            if found is not None:
                return found
        return self._libcst_span(node)

    def statement_span(self, statement: cst.CSTNode) -> Span | None:
        """The whole of a statement, every line of it (`span` gives a compound one's first line)."""
        anchor = self._statement_map().get(id(statement))
        if anchor is None or anchor.end_lineno is None or anchor.end_col_offset is None:
            return None
        return Span(
            Position(anchor.lineno, self._column(anchor.lineno, anchor.col_offset)),
            Position(anchor.end_lineno, self._column(anchor.end_lineno, anchor.end_col_offset)),
        )

    def lines_of(self, statement: cst.CSTNode) -> tuple[int, int] | None:
        """First and last line (1-based) of a statement, without the comments above it."""
        anchor = self._statement_map().get(id(statement))
        if anchor is None:
            return None
        return anchor.lineno, anchor.end_lineno or anchor.lineno

    def _first_line_end(self, start: Position, end: Position) -> Position:
        if end.line == start.line:
            return end
        return Position(start.line, len(self.lines[start.line - 1].rstrip("\r\n")))

    def _column(self, line: int, byte_offset: int) -> int:
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))

    def _find(self, needle: str, start: Position, end: Position) -> Span | None:
        if not needle:
            return None
        lines = self.lines[start.line - 1 : end.line]
        text = "".join(lines)
        offset = text.find(needle, start.column)
        if offset < 0:
            return None
        line = start.line + text.count("\n", 0, offset)
        line_start = text.rfind("\n", 0, offset) + 1
        begin = Position(line, offset - line_start)
        stop = offset + len(needle)
        end_line = start.line + text.count("\n", 0, stop)
        end_line_start = text.rfind("\n", 0, stop) + 1
        return Span(begin, Position(end_line, stop - end_line_start))

    # -- statement map ---------------------------------------------------------------------

    def _statement_map(self) -> dict[int, ast.stmt]:
        if self._statements is None:
            self._statements = {}
            tree = self._tree
            if tree is None:
                try:
                    tree = ast.parse(self.source)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    return self._statements
            try:
                self._pair(self.module.body, tree.body)
            except (IndexError, AttributeError):
                # grammar disagreement: positions come from libcst instead
                self._statements = {}
        return self._statements

    def _pair(self, cst_body: Sequence[cst.CSTNode], ast_body: list[ast.stmt]) -> None:
        assert self._statements is not None
        index = 0
        for stmt in cst_body:
            if isinstance(stmt, cst.SimpleStatementLine):
                self._statements[id(stmt)] = ast_body[index]
                for small in stmt.body:
                    self._statements[id(small)] = ast_body[index]
                    index += 1
                continue
            node = ast_body[index]
            index += 1
            self._statements[id(stmt)] = node
            self._pair_compound(stmt, node)

    def _pair_suite(self, suite: cst.BaseSuite, body: list[ast.stmt]) -> None:
        if isinstance(suite, cst.SimpleStatementSuite):
            assert self._statements is not None
            for small, node in zip(suite.body, body, strict=False):
                self._statements[id(small)] = node
        else:
            self._pair(suite.body, body)

    def _pair_compound(self, stmt: cst.CSTNode, node: ast.stmt) -> None:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.With)):
            self._pair_suite(stmt.body, node.body)  # type: ignore[attr-defined]
        elif isinstance(stmt, cst.If):
            assert isinstance(node, ast.If)
            self._pair_suite(stmt.body, node.body)
            if isinstance(stmt.orelse, cst.If):
                assert self._statements is not None
                self._statements[id(stmt.orelse)] = node.orelse[0]
                self._pair_compound(stmt.orelse, node.orelse[0])
            elif isinstance(stmt.orelse, cst.Else):
                self._pair_suite(stmt.orelse.body, node.orelse)
        elif isinstance(stmt, (cst.For, cst.While)):
            self._pair_suite(stmt.body, node.body)  # type: ignore[attr-defined]
            if stmt.orelse is not None:
                self._pair_suite(stmt.orelse.body, node.orelse)  # type: ignore[attr-defined]
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self._pair_suite(stmt.body, node.body)  # type: ignore[attr-defined]
            for handler, ast_handler in zip(stmt.handlers, node.handlers, strict=False):  # type: ignore[attr-defined]
                self._pair_suite(handler.body, ast_handler.body)
            if stmt.orelse is not None:
                self._pair_suite(stmt.orelse.body, node.orelse)  # type: ignore[attr-defined]
            if stmt.finalbody is not None:
                self._pair_suite(stmt.finalbody.body, node.finalbody)  # type: ignore[attr-defined]
        elif isinstance(stmt, cst.Match):
            for case, ast_case in zip(stmt.cases, node.cases, strict=False):  # type: ignore[attr-defined]
                self._pair_suite(case.body, ast_case.body)

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
