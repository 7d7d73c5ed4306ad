from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..names import dotted
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, Sizes
from ._conditions import short

#: calls that turn a float computed from a size back into an int
_TO_INT = frozenset({"round", "int", "math.floor", "math.ceil", "math.trunc"})


class FloatSize(Rule):
    """A size computed through a float (`round(x.shape[0] / 2)`) on a dimension with a named `Dim`.

    ## What it does
    Flags `round()`, `int()`, `math.floor()`/`ceil()`/`trunc()` of an expression that divides
    or scales an input's size by a float (`/`, `* 0.5`), in a model's `forward`, where the export
    gives that dimension a named `Dim`. With static shapes, `Dim.AUTO` or `Dim.DYNAMIC` export
    succeeds (measured on torch 2.13) and nothing is reported, except `Dim.DYNAMIC` under a
    float step by one (see Modes).

    ## Why it fails torch.export
    The result is a symbolic float turned into an int; using it as a size or slice bound makes
    export add guards it cannot prove for every value of the declared range
    (`round(s0 / 2) <= s0`), so export fails with `ConstraintViolationError: Not all values of
    dim0_x ... satisfy the generated guard`. ExportDB: `dynamic_shape_round`.

    ## Example
    ```python
    return x[: round(x.shape[0] / 2)]  # dynamic_shapes={"x": {0: Dim("dim0_x")}}
    ```

    ## Use instead
    Integer arithmetic on the size (`(x.shape[0] + 1) // 2`) where the range allows it, or
    `Dim.AUTO` for that dimension, which lets export pick the range the code supports.

    ## Modes
    Error in both modes, where the dimension has a named `Dim` (torch 2.13). A float step by one
    (`int(x.shape[0] / 1)`): error in non-strict mode under a named `Dim` or `Dim.DYNAMIC` (the
    result becomes a constant), nothing in strict mode (measured: it exports).
    """

    CODE = "XPT303"
    NAME = "float-size"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SEVERITY_FROM_SHAPES = True
    PYTORCH_NAME = "ConstraintViolationError / dynamic_shape_round"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("UserError", "Constraints violated"),),
        Mode.STRICT: (TorchError("UserError", "Constraints violated"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.resolve(node.func) or dotted(node.func)
        if name not in _TO_INT or len(node.args) != 1:
            return
        sizes = self.ctx.sizes()
        if sizes is None:
            return
        # `half = x.shape[0] / 2` on the line before `round(half)`: the same float size
        argument = _inlined(node.args[0].value, sizes)
        if not _float_arithmetic(argument):
            return
        refs = sizes.refs(_sized_operands(argument))
        if not refs:
            return
        config = self.ctx.shape_config()
        by_one = _by_one(argument)
        if by_one and self.ctx.mode is Mode.STRICT:
            return  # strict export folds `s / 1` back to the size (measured)
        kinds = (DimKind.NAMED, DimKind.DYNAMIC) if by_one else (DimKind.NAMED,)
        named = [(ref, spec) for ref in refs if (spec := config.dim(*ref)).kind in kinds]
        if not named:
            return
        (param, _, index), spec = named[0]
        note = config.note()
        why = (
            "non-strict export makes the result a constant and fails" if by_one
            else "export cannot prove its guards for the whole range and fails"
        )
        self.report(
            node,
            f"`{short(node)}` turns the size `{param}.shape[{index}]` ({spec.text()}, {config.source}) into a "
            f"float and back: {why}",
            notes=(note,) if note is not None else (),
        )

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Half(torch.nn.Module):
                def forward(self, x):
                    # Dim.AUTO: export picks the range itself (measured: exports in both modes)
                    return x[: round(x.shape[0] / 2)]
            def xport_example():
                return {"model": Half(), "args": (torch.randn(6, 2),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
            """
        ),
        Valid(
            """
            import torch
            class Half(torch.nn.Module):
                def forward(self, x):
                    return x[: round(x.shape[0] / 2)]  # static shapes: a constant
            def xport_example():
                return Half(), (torch.randn(6, 2),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Rows(torch.nn.Module):
                def forward(self, x):
                    n = int(x.shape[0] / 1)  # expect: XPT303
                    return x[:n]
            def xport_example():
                return {"model": Rows(), "args": (torch.randn(6, 3),), "dynamic_shapes": {"x": {0: Dim.DYNAMIC}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class DynamicShapeRound(torch.nn.Module):
                def forward(self, x):
                    return x[: round(x.shape[0] / 2)]  # expect: XPT303
            def xport_example():
                dim0_x = Dim("dim0_x")
                return {"model": DynamicShapeRound(), "args": (torch.randn(3, 2),), "dynamic_shapes": {"x": {0: dim0_x}}}
            """
        ),
        Invalid(
            """
            import math
            import torch
            from torch.export import Dim
            class Pool(torch.nn.Module):
                def forward(self, x):
                    return x[:, : math.ceil(x.size(1) * 0.5)].mean(1)  # expect: XPT303
            def xport_example():
                return {"model": Pool(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: Dim("seq")}}}
            """
        ),
    ]


def _float_arithmetic(expr: cst.BaseExpression) -> bool:
    """`a / b`, or a product with a float literal, anywhere in `expr`."""
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation) and (
            isinstance(node.operator, cst.Divide)
            or (isinstance(node.operator, cst.Multiply) and isinstance(node.left, cst.Float) | isinstance(node.right, cst.Float))
        ):
            return True
        stack.extend(node.children)
    return False


def _by_one(expr: cst.BaseExpression) -> bool:
    """Whether every float step of `expr` divides or multiplies by one (`int(s / 1)`)."""
    steps = [
        node for node in _nodes(expr)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.Multiply))
    ]
    return bool(steps) and all(
        any(isinstance(side, (cst.Integer, cst.Float)) and float(side.evaluated_value) == 1.0
            for side in ((node.right,) if isinstance(node.operator, cst.Divide) else (node.left, node.right)))
        for node in steps
    )


def _nodes(expr: cst.CSTNode) -> list[cst.CSTNode]:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


def _inlined(expr: cst.BaseExpression, sizes: Sizes) -> cst.BaseExpression:
    """`expr` with each name bound once replaced by what it is bound to."""

    class _Inline(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            followed = sizes.followed(original)
            return updated if followed is original else followed.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
            return updated.with_changes(attr=original.attr)  # `x.shape`: `shape` is no name read

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)

    if isinstance(expr, cst.Name):
        return sizes.followed(expr)
    return expr.visit(_Inline())  # type: ignore[return-value]


def _sized_operands(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`x.shape[0] / 2` read as `x.shape[0] // 2` (the same sizes, in integer arithmetic the
    size analysis reads); float literals as 1."""

    class _Integral(cst.CSTTransformer):
        def leave_Divide(self, original: cst.Divide, updated: cst.Divide) -> cst.FloorDivide:
            return cst.FloorDivide()

        def leave_Float(self, original: cst.Float, updated: cst.Float) -> cst.Integer:
            return cst.Integer("1")

    return expr.visit(_Integral())  # type: ignore[return-value]
