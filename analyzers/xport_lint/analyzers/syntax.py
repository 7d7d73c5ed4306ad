"""What an expression says on its face: an integer literal's value, the argument a call passes
for a parameter. Shared by the fact layers and the rules so each reads source one way."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

#: what literal_value gives for an expression that is no literal
UNKNOWN = object()


def literal_value(node: cst.BaseExpression) -> object:
    """The value of `False`, `None`, `3`, `"gelu"`, `-1` (UNKNOWN for anything else)."""
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        value = node.evaluated_value
        return value if isinstance(value, (int, float, str)) else UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(
        node.expression, (cst.Integer, cst.Float)
    ):
        return -node.expression.evaluated_value  # `max_keypoints: int = -1`
    return UNKNOWN


def integer_literal(expr: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal, negated ones too (`-1`, `- -2`); None for anything else."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = integer_literal(expr.expression)
        return -inner if inner is not None else None
    return None


def counted(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The value whose size `expr` reads as one int: `t.shape[k]`, `t.size(k)`, `t.numel()`,
    `t.dim()`, `t.ndim`, `len(t)`; None for anything else (`t.size()` is a whole shape)."""
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
        return expr.value.value
    if isinstance(expr, cst.Attribute) and expr.attr.value == "ndim":
        return expr.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not any(a.star for a in expr.args):
        method, arity = expr.func.attr.value, len(expr.args)
        return expr.func.value if (method, arity) in (("numel", 0), ("dim", 0), ("size", 1)) else None
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
        return expr.args[0].value if len(expr.args) == 1 and not expr.args[0].star else None
    return None


#: Python's integer arithmetic by operator; a division or remainder by 0 gives None
INTEGER_ARITHMETIC: dict[type, Callable[[int, int], int | None]] = {
    cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b, cst.Multiply: lambda a, b: a * b,
    cst.FloorDivide: lambda a, b: a // b if b else None, cst.Modulo: lambda a, b: a % b if b else None,
    cst.Power: lambda a, b: a**b if 0 <= b <= 64 else None,  # `2 ** self.num_upsamplers`
}


def integer_constant(expr: cst.BaseExpression | None) -> int | None:
    """`integer_literal`, also through `+ - * // %` of such literals (`3 * 8 * 8`, `(64 - 1) // 2`):
    a size written as arithmetic on numbers is as fixed as one written out."""
    if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in INTEGER_ARITHMETIC:
        left, right = integer_constant(expr.left), integer_constant(expr.right)
        return INTEGER_ARITHMETIC[type(expr.operator)](left, right) if left is not None and right is not None else None
    return integer_literal(expr)


def argument(args: Sequence[cst.Arg], position: int, keyword: str) -> cst.BaseExpression | None:
    """The expression passed as parameter `keyword`: by that name, else as the `position`-th
    positional argument (`*` arguments are not counted)."""
    for arg in args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in args if arg.keyword is None and not arg.star]
    return positional[position] if len(positional) > position else None


def keyword_argument(call: cst.Call, keyword: str) -> cst.BaseExpression | None:
    """The expression `call` passes by the name `keyword` (None when not passed by name)."""
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
