"""A data-dependent branch inside `try:` with an `except` that catches torch's failure.

Non-strict export runs the Python: the guard on data raises `GuardOnDataDependentSymNode` (a
`RuntimeError`), the handler catches it and export records the fallback path, whatever eager
would take. Strict export (Dynamo) does not trace that handler: it fails as without the `try`.
Measured on torch 2.13 (`try: if x.sum().item() > 0: ... except Exception: pass`, and the same
around a `nonzero` size)."""

from __future__ import annotations

import libcst as cst

from ..context import RuleContext
from ..model import Mode, Severity
from ..shapes import Verdict
from ..walk import iter_nodes

#: handlers that catch `GuardOnDataDependentSymNode` (a `RuntimeError`)
_CATCHING = frozenset({"Exception", "BaseException", "RuntimeError"})


def caught_fallback(ctx: RuleContext, operand: cst.CSTNode) -> Verdict | None:
    """In non-strict mode, a warning where `operand` sits in the body of a `try` whose handler
    catches the guard's failure (None: the rule's own severity)."""
    if ctx.mode is Mode.STRICT or ctx.traced is None or "try" not in ctx.source:
        return None
    for node in iter_nodes(ctx.traced.func):
        if isinstance(node, cst.Try) and any(_catches(h) for h in node.handlers):
            if any(inner is operand for stmt in node.body.body for inner in iter_nodes(stmt)):
                return Verdict(
                    Severity.WARNING,
                    "non-strict export catches its failure in the `except` and exports the fallback "
                    "path whatever the data (strict export fails)",
                    fixable=False,
                )
    return None


def _catches(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True  # a bare `except:`
    kinds = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    for kind in kinds:
        name = kind.value if isinstance(kind, cst.Name) else kind.attr.value if isinstance(kind, cst.Attribute) else None
        if name in _CATCHING:
            return True
    return False
