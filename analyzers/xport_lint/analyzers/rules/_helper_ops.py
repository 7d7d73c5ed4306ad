"""The ops a helper computes on the model's tensors, judged at the call: export traces
`to_tokens(x)` of `def to_tokens(t): return t.reshape(t.shape[0], 4, 8)` as the reshape of `x`
itself, so a size rule reads the helper's `return` written at the call (`Sizes.called`: a
straight-line helper of this file, or a one-line helper of another file by its summary) and
reports on the call."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..walk import iter_nodes
from ._conditions import short

if TYPE_CHECKING:
    from ..rule import Rule


def judge_helper_call(
    rule: Rule, call: cst.Call, conditional: set[int], keep_fixes: bool,
    judge: Callable[[cst.BaseExpression], object] | None = None,
) -> None:
    """Run `rule`'s visitors over what `call` of a helper computes (or `judge` on it, where the
    rule judges it as the operand it is), each finding reported on the call. The arguments' own
    nodes are left out (the walk of the caller judges them), and so is a call under an `if`
    (`conditional`: the example may not take that side). `keep_fixes`: the rule's fixes edit
    the declaration, not the judged node (which is not in the file)."""
    sizes = rule.ctx.sizes()
    if sizes is None or id(call) in conditional or "report" in vars(rule):
        return  # not a model's forward, under an `if`, or already judging a helper's op
    written = sizes.called(call)
    if written is None:
        return
    arguments = {id(node) for arg in call.args for node in iter_nodes(arg.value)}
    own = rule.report

    def at_call(node: cst.CSTNode, message: str, fix: Any = None, *args: Any, **kwargs: Any) -> None:
        own(call, f"`{short(call)}` computes {message}", fix if keep_fixes else None, *args, **kwargs)

    rule.report = at_call  # type: ignore[method-assign]
    try:
        if judge is not None:
            judge(written)
            return
        visitors = rule.visitors()
        for node in iter_nodes(written):
            visit = visitors.get(type(node).__name__)
            if visit is not None and id(node) not in arguments:
                visit(node)
    finally:
        del rule.report
