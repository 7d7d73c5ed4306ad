"""Shared by the rules on export call sites: a reader of the file's `dynamic_shapes`, and the
statement a declaration bound to a name sits in (where its finding is placed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..shapes import ShapesReader
from ..walk import iter_nodes

if TYPE_CHECKING:
    from ..context import RuleContext


def shapes_reader(ctx: RuleContext) -> ShapesReader:
    """The file's reader (names bound once followed, with tuple unpacking and `dims()`)."""
    reader = ctx.program.shapes_reader
    if reader is None:
        key = "declarations:reader"
        reader = ctx.shared.get(key)  # type: ignore[assignment]
        if reader is None:
            reader = ctx.shared[key] = ShapesReader(ctx.program.module, ctx.resolve)
    return reader


def holder(ctx: RuleContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The assignment whose value holds `node` (`shapes = {...}` for a key of that dict), else
    None (the current statement); the map is made once per file, on its first finding."""
    key = "declarations:holders"
    holders = ctx.shared.get(key)
    if holders is None:
        holders = ctx.shared[key] = {
            id(inner): stmt for stmt in iter_nodes(ctx.program.module)
            if isinstance(stmt, cst.Assign) for inner in iter_nodes(stmt.value)
        }
    return holders.get(id(node))  # type: ignore[union-attr]
