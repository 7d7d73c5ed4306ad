"""Shared by the rules on effects export drops (print, logging, formatting numbers read from
tensors): the statement holding a call, under `if not torch.compiler.is_exporting():`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..report import FixProposal
from ..rewrites import dropped_effect, guard_rewrite, module_names

if TYPE_CHECKING:
    from ..context import RuleContext


def eager_only(ctx: RuleContext, call: cst.Call | None = None) -> FixProposal | None:
    """The guard fix for the statement `call` is (a call alone on its line), or None. Without
    `call`: for the current statement if it is a print, warning or logging call."""
    expr = ctx.statement
    if not isinstance(expr, cst.Expr):
        return None
    if expr.value is not call and (call is not None or not dropped_effect(expr.value)):
        return None
    line = statement_line(ctx)
    return None if line is None else guard_rewrite(line, module_names(ctx.program.module)).fix


def statement_line(ctx: RuleContext) -> cst.SimpleStatementLine | None:
    """The line holding the current statement, when it is the only statement on it."""
    expr = ctx.statement
    if expr is None or ctx.traced is None:
        return None
    return next(
        (node for node, _ in ctx.program.nodes(ctx.traced.func)
         if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and node.body[0] is expr),
        None,
    )
