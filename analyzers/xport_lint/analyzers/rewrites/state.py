"""A number read from tensor data kept on `self` as scratch state becomes a local name, which the
branch, loop and size rewrites then bind to the tensor it is read from."""

from __future__ import annotations

import libcst as cst

from ..dataflow import FunctionFlow
from ..model import Applicability
from ..report import BlockReplacement, FixProposal
from ..walk import iter_nodes
from .common import scope_names
from .predicates import read_arithmetic


def attribute_as_local(
    flow: FunctionFlow, cls: cst.ClassDef, func: cst.FunctionDef, write: cst.Assign
) -> FixProposal | None:
    """`self.peak = float(x.abs().max())`, a top-level statement of `func`, then `self.peak` read
    only by later top-level statements of `func` -> `peak = ...` and `peak` there (unsafe: assumes
    nothing outside the class reads the attribute, which the exported program never sets anyway).
    Kept on `self`, the number is out of reach of torch.cond's operands and of the rewrites that
    bind the tensor instead; a local is within it. None unless the attribute is this scratch
    state: one write, no read before it, none in another method (an `__init__` default is no
    read), no `getattr`-style access by its name."""
    target = write.targets[0].target if len(write.targets) == 1 else None
    if not (
        isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"
        and read_arithmetic(flow, write.value)
    ):
        return None
    attr = target.attr.value
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    index = next((i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
                  and any(small is write for small in s.body)), None)
    if index is None or not any(s is func for s in cls.body.body):  # type: ignore[union-attr]
        return None
    before, after = body[:index], body[index + 1 :]
    reading = [s for s in after if _mentions(s, attr)]
    if not reading or _mentions(write.value, attr) or any(_mentions(s, attr) for s in before):
        return None
    if any(_stores(s, attr) for s in reading) or _touched_elsewhere(cls, func, attr):
        return None
    local = scope_names(flow).fresh(attr)[0]
    renamed = _AttributeAsName(attr, local)
    # whole statements: an edit of a node outside the finding's statement has no exact place
    smalls = [write, *(small for s in reading if isinstance(s, cst.SimpleStatementLine) for small in s.body
                       if _mentions(small, attr))]
    compound = [s for s in reading if not isinstance(s, cst.SimpleStatementLine)]
    return FixProposal(
        f"Keep `self.{attr}` in a local name `{local}` (assumes nothing outside this call reads `self.{attr}`,"
        " which the exported program does not set)",
        Applicability.UNSAFE,
        tuple((small, small.visit(renamed)) for small in smalls),
        blocks=tuple(BlockReplacement(s, s, (s.visit(renamed),)) for s in compound),  # type: ignore[arg-type]
        step=True,
    )


class _AttributeAsName(cst.CSTTransformer):
    def __init__(self, attr: str, local: str) -> None:
        super().__init__()
        self.attr, self.local = attr, local

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return cst.Name(self.local, lpar=updated.lpar, rpar=updated.rpar) if _is_attribute(updated, self.attr) \
            else updated


def _is_attribute(node: cst.CSTNode, attr: str) -> bool:
    return (
        type(node) is cst.Attribute and node.attr.value == attr  # type: ignore[attr-defined]
        and isinstance(node.value, cst.Name) and node.value.value == "self"  # type: ignore[attr-defined]
    )


def _mentions(node: cst.CSTNode, attr: str) -> bool:
    return any(_is_attribute(n, attr) for n in iter_nodes(node))


def _stores(statement: cst.CSTNode, attr: str) -> bool:
    """`statement` assigns or deletes `self.<attr>` somewhere in it."""
    for node in iter_nodes(statement):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [node.target]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        elif isinstance(node, cst.NamedExpr):
            targets = [node.target]
        if any(_is_attribute(n, attr) for t in targets for n in iter_nodes(t)):
            return True
    return False


def _touched_elsewhere(cls: cst.ClassDef, func: cst.FunctionDef, attr: str) -> bool:
    """Another part of the class reads `self.<attr>` or names it in a string (`getattr(self,
    "attr")`); `__init__` may only assign it (a default the call overwrites)."""
    for statement in cls.body.body:  # type: ignore[union-attr]
        if statement is func:
            continue
        for node in iter_nodes(statement):
            if isinstance(node, cst.SimpleString) and node.evaluated_value == attr:
                return True
            if _is_attribute(node, attr) and not (
                isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__"
                and _assigned_in(statement, node)
            ):
                return True
    return False


def _assigned_in(func: cst.FunctionDef, attribute: cst.CSTNode) -> bool:
    """`attribute` is the whole target of a plain assignment in `func`."""
    return any(
        isinstance(node, cst.Assign) and any(t.target is attribute for t in node.targets)
        for node in iter_nodes(func.body)
    )
