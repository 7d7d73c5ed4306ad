"""Shared by the branch rules: which parts of a condition Python calls `bool()` on, and what
each holds. `if a is not None and a.sum() > 0:` tests two operands, only the second on data."""

from __future__ import annotations

import enum
from collections.abc import Iterator

import libcst as cst

from ..dataflow import Kind, Value, is_tensor_like
from ..positions import code_of


class Condition(enum.Enum):
    TENSOR = "tensor"  # bool(tensor): a data-dependent guard
    DD_SIZE = "dd_size"  # a size only known at run time (nonzero, masks)
    DATA = "data"  # a Python value read from a tensor (.item(), .tolist())
    SHAPE = "shape"  # a symbolic size: the guard specialises the graph


def tested(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands that are truth-tested when `expr` is used as a condition."""
    if isinstance(expr, cst.BooleanOperation):
        yield from tested(expr.left)
        yield from tested(expr.right)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        yield from tested(expr.expression)
    else:
        yield expr


def classify(value: Value) -> Condition | None:
    if is_tensor_like(value):
        return Condition.TENSOR
    if value.has(Kind.DD_SIZE):
        return Condition.DD_SIZE
    if value.has(Kind.DATA):
        return Condition.DATA
    if value.has(Kind.SHAPE):
        return Condition.SHAPE
    return None


def conditions(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The condition expression(s) of a branching node."""
    if isinstance(node, (cst.If, cst.While, cst.IfExp)):
        yield node.test
    elif isinstance(node, cst.CompIf):
        yield node.test


def short(node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConditionRule:
    """Mixin for rules that flag a condition holding one kind of value (see `Condition`)."""

    CONDITION: Condition

    def check_conditions(self, node: cst.CSTNode, keyword: str) -> None:
        for condition in conditions(node):
            for operand in tested(condition):
                value = self.ctx.value(operand)  # type: ignore[attr-defined]
                if classify(value) is not self.CONDITION:
                    continue
                related = []
                if value.origin is not None and value.origin is not operand:
                    related.append((value.origin, f"`{short(value.origin)}` is where it comes from"))
                self.report(operand, self.message(operand, keyword), related=related)  # type: ignore[attr-defined]

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        raise NotImplementedError
