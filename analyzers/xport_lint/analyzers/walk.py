"""Read-only traversal of libcst trees without libcst's visitor machinery.

`CSTNode.visit` rebuilds every node it passes (to support transformers) and `children` does the
same; for analysis we only read, so walking the dataclass fields directly is several times cheaper.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from itertools import repeat

import libcst as cst

from .fact_store import PerStatement

# Fields that hold only whitespace, punctuation or comments: never interesting to a rule.
_SKIPPED_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators",
        "header", "footer", "newline", "indent", "colon", "dot", "equal", "whitespace",
        "whitespace_before", "whitespace_after", "whitespace_before_colon",
        "whitespace_after_colon", "whitespace_before_params", "whitespace_after_def",
        "whitespace_after_name", "whitespace_before_args", "whitespace_after_star",
        "whitespace_after_arg", "whitespace_before_as", "whitespace_after_as",
        "whitespace_before_in", "whitespace_after_in", "whitespace_after_if",
        "whitespace_before_if", "whitespace_before_else", "whitespace_after_else",
        "whitespace_after_for", "whitespace_before_for", "whitespace_after_lambda",
        "whitespace_after_await", "whitespace_after_at", "whitespace_after_import",
        "whitespace_after_from", "whitespace_before_import", "whitespace_after_class",
        "whitespace_before_walrus", "whitespace_after_walrus", "whitespace_after_kwds",
        "whitespace_after_return", "whitespace_after_assert", "whitespace_after_del",
        "whitespace_after_global", "whitespace_after_nonlocal", "whitespace_after_raise",
        "whitespace_after_with", "whitespace_before_from", "whitespace_after_except",
        "whitespace_after_match", "whitespace_after_case", "whitespace_after_yield",
        "whitespace_after_type", "whitespace_after_async", "asynchronous", "operator",
        "body_whitespace",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(node_type: type) -> tuple[str, ...]:
    names = _FIELDS.get(node_type)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(node_type) if f.name not in _SKIPPED_FIELDS
        )
        _FIELDS[node_type] = names
    return names


_IS_NODE: dict[type, bool] = {}
# Nodes that carry only layout: never interesting to a rule.
_LAYOUT = (cst.BaseParenthesizableWhitespace, cst.Newline, cst.Comment, cst.EmptyLine,
           cst.TrailingWhitespace, cst.Comma, cst.Dot, cst.Colon, cst.LeftParen, cst.RightParen,
           cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
           cst.AssignEqual, cst.Semicolon)


def _is_node(node_type: type) -> bool:
    """isinstance against libcst's abstract base classes is slow; ask once per type."""
    known = _IS_NODE.get(node_type)
    if known is None:
        known = _IS_NODE[node_type] = issubclass(node_type, cst.CSTNode) and not issubclass(
            node_type, _LAYOUT
        )
    return known


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    # the hottest function of a run (700k calls on a quarter of the bench corpus): the per-type
    # lookups are inlined
    out: list[cst.CSTNode] = []
    fields = _FIELDS.get(type(node)) or _fields(type(node))
    known = _IS_NODE
    for name in fields:
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            for item in value:
                item_type = type(item)
                is_node = known.get(item_type)
                if is_node is None:
                    is_node = _is_node(item_type)
                if is_node:
                    out.append(item)
        else:
            is_node = known.get(value_type)
            if is_node is None:
                is_node = _is_node(value_type)
            if is_node:
                out.append(value)
    return out


def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and everything below it, depth first, in source order."""
    # `children` inlined, as in `with_statements`: a call and a list per node cost a third of
    # the walk, and the walks of whole statements (definitions, uses) are hot
    stack = [node]
    pop, extend = stack.pop, stack.extend
    known, all_fields = _IS_NODE, _FIELDS
    while stack:
        current = pop()
        yield current
        node_type = type(current)
        kids: list[cst.CSTNode] = []
        for name in all_fields.get(node_type) or _fields(node_type):
            value = getattr(current, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:
                    is_node = known.get(type(item))
                    if is_node is None:
                        is_node = _is_node(type(item))
                    if is_node:
                        kids.append(item)
            else:
                is_node = known.get(value_type)
                if is_node is None:
                    is_node = _is_node(value_type)
                if is_node:
                    kids.append(value)
        if kids:
            kids.reverse()
            extend(kids)


def _listed(node: cst.CSTNode) -> list[cst.CSTNode]:
    return list(iter_nodes(node))


#: `iter_nodes` of a function's body, walked once per body while its tree is kept: each layer reads
#: every body it meets for something of its own (calls, bindings, loops, closures, returns), and a
#: list is read many times faster than the tree is walked
body_nodes: PerStatement[list[cst.CSTNode]] = PerStatement(_listed)


_STATEMENT_TYPES: dict[type, bool] = {}


def _is_statement(node_type: type) -> bool:
    known = _STATEMENT_TYPES.get(node_type)
    if known is None:
        known = _STATEMENT_TYPES[node_type] = issubclass(
            node_type, (cst.BaseSmallStatement, cst.BaseCompoundStatement)
        )
    return known


def with_statements(
    root: cst.CSTNode,
    statement: cst.CSTNode | None,
    in_function: bool,
    pruned: Callable[[cst.If], tuple[cst.CSTNode, ...]] | None = None,
    dead: set[int] | None = None,
) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]:
    """Every node below `root` in source order, each with its innermost statement. In a
    function, a class defined there is left out: it is not traced until something calls it.
    `pruned`: the parts of an `if` to leave out (a branch export never takes); `dead`: ids of
    statements left out (after an `if` that always returns while exporting)."""
    # as hot as `children`, which is inlined here: every node of every traced function and of
    # a module with module-wide rules passes through this loop
    out: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []
    append = out.append
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(root, statement)]
    pop, extend = stack.pop, stack.extend
    statements, known, all_fields = _STATEMENT_TYPES, _IS_NODE, _FIELDS
    while stack:
        node, statement = pop()
        if dead and id(node) in dead:
            continue
        node_type = type(node)
        is_statement = statements.get(node_type)
        if is_statement is None:
            is_statement = _is_statement(node_type)
        if is_statement:
            statement = node
            if node_type is cst.ClassDef and in_function:
                continue
        append((node, statement))
        kids: list[cst.CSTNode] = []
        for name in all_fields.get(node_type) or _fields(node_type):
            value = getattr(node, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:
                    is_node = known.get(type(item))
                    if is_node is None:
                        is_node = _is_node(type(item))
                    if is_node:
                        kids.append(item)
            else:
                is_node = known.get(value_type)
                if is_node is None:
                    is_node = _is_node(value_type)
                if is_node:
                    kids.append(value)
        if not kids:
            continue
        if pruned is not None and node_type is cst.If:
            left_out = pruned(node)  # type: ignore[arg-type]
            if left_out:
                kids = [kid for kid in kids if not any(kid is part for part in left_out)]
        extend(zip(reversed(kids), repeat(statement)))
    return out


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for visitors that only read and use no `leave_` methods, without
    libcst rebuilding every node on the way back up."""
    stack = [node]
    while stack:
        current = stack.pop()
        if visitor.on_visit(current):
            stack.extend(reversed(children(current)))
