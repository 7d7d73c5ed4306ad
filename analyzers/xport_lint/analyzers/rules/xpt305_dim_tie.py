from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, DimSpec, ShapeConfig, SizeRef, Sizes, declared_examples, init_buffers
from ..walk import iter_nodes
from ._conditions import short


@dataclass(frozen=True)
class _Dim:
    """One dimension of an operand: an input's (`ref`, `exact` unless sliced) or a constant."""

    ref: SizeRef | None = None
    size: int | None = None
    exact: bool = True


_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
_MATMUL = ("torch.matmul", "torch.mm", "torch.bmm")


class DimTie(Rule):
    """An op that needs two sizes equal, where `dynamic_shapes` declares them independent.

    ## What it does
    In a model's `forward`, reads the operands of elementwise arithmetic (`x + y`, `x * w`) and
    matrix products (`x @ y`, `torch.matmul`) that are `forward` inputs (possibly sliced, `y[1:]`)
    or buffers and parameters `__init__` makes with literal sizes, with ranks from the example
    inputs, and flags a pair of dimensions the op needs equal (aligned from the right as
    broadcasting does; the inner dimensions of a product) where one is a named `Dim` and the
    other a different named `Dim` or a constant size other than 1; and `view`/`reshape` of an
    input with a named `Dim` to literal sizes (no `-1`: the element count is fixed; a `-1`
    elsewhere and a literal where the named size was, in the same rank: `(b, 6).view(4, -1)`).
    Ops under an `if` are left out (the example may take the other side).

    ## Why it fails torch.export
    The op adds the guard `s0 == s1` (or `s0 == 4`): two named `Dim`s become one, or a named
    `Dim` becomes a constant, which the declaration says it is not: `Constraints violated (dy)!
    ... The values of dy = L['y'].size()[0] and dx = L['x'].size()[0] must always be equal`.

    ## Example
    ```python
    def forward(self, x, y):
        return x @ y  # x: {1: Dim("k1")}, y: {0: Dim("k2")}
    ```

    ## Use instead
    One shared `Dim` for sizes the op ties (`k = Dim("k")`, `{1: k}` and `{0: k}`), a derived
    `Dim` where one is computed from the other (`y[1:]` against `x`: `dy = dx + 1`), or a static
    dimension where the other side is a constant.

    ## Modes
    Error in both modes (torch 2.13). `Dim.AUTO` takes the tie without a word: nothing reported.
    """

    CODE = "XPT305"
    NAME = "dim-tie"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {mode: (TorchError("UserError", "Constraints violated"),) for mode in Mode}

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, _ELEMENTWISE):
            self._check(node, node.left, node.right, matmul=False)
        elif isinstance(node.operator, cst.MatrixMultiply):
            self._check(node, node.left, node.right, matmul=True)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("view", "reshape") and node.args:
            self._reshape(node, func.value)
            return
        if len(node.args) != 2 or not (isinstance(func, cst.Attribute) and func.attr.value in ("matmul", "mm", "bmm")):
            return
        if self.ctx.resolve(func) in _MATMUL:
            self._check(node, node.args[0].value, node.args[1].value, matmul=True)

    def _setting(self) -> tuple[Sizes, ShapeConfig, tuple, dict[str, tuple[int, ...]]] | None:
        """The forward's sizes, its declaration, the example sizes and the literal buffers
        (None: not a model's forward with a declaration of this file that has a named Dim)."""
        traced, program = self.ctx.traced, self.ctx.program
        if traced is None or traced.cls is None or not program.declared_shapes or program.shapes_reader is None:
            return None  # the example sizes come from a declaration of this file
        config = self.ctx.shape_config()
        if not any(spec.kind is DimKind.NAMED for _, dims in config.inputs for _, spec in dims):
            return None
        sizes = self.ctx.sizes()
        if sizes is None:
            return None
        cls = traced.cls.node
        key = f"ties:{id(cls)}"
        found = self.ctx.shared.get(key)
        if found is None:
            declaration = program.shape_declarations.get(cls.name.value)
            examples = declared_examples(declaration, program.shapes_reader) if declaration is not None else ()
            found = self.ctx.shared[key] = (examples, init_buffers(cls, self.ctx.resolve))
        examples, buffers = found  # type: ignore[misc]
        return sizes, config, examples, buffers

    def _conditional(self) -> set[int]:
        """The nodes of `forward` under an `if` or a conditional expression: the example may not
        take that side, and an op the trace never runs ties nothing (measured)."""
        traced = self.ctx.traced
        assert traced is not None
        key = f"conditional:{id(traced.func)}"
        found = self.ctx.shared.get(key)
        if found is None:
            found = set()
            for node in iter_nodes(traced.func.body):
                if isinstance(node, cst.If):
                    parts: list[cst.CSTNode | None] = [node.body, node.orelse]
                elif isinstance(node, cst.IfExp):
                    parts = [node.body, node.orelse]
                else:
                    continue
                found.update(id(inner) for part in parts if part is not None for inner in iter_nodes(part))
            self.ctx.shared[key] = found
        return found  # type: ignore[return-value]

    def _operand(self, expr: cst.BaseExpression, setting: tuple) -> list[_Dim] | None:
        sizes, config, examples, buffers = setting
        if isinstance(expr, cst.Name) and sizes.through(expr.value, 0) == (
            expr.value, sizes.positions.get(expr.value), 0
        ):
            position = sizes.positions[expr.value]
            example = examples[position] if position < len(examples) else None
            if example is None:
                return None
            out = []
            for index, size in enumerate(example):
                spec = config.dim(expr.value, position, index)
                ref = (expr.value, position, index)
                out.append(_Dim(size=size) if spec.kind is DimKind.STATIC else _Dim(ref))
            return out
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            shape = buffers.get(expr.attr.value)
            return [_Dim(size=n) for n in shape] if shape is not None else None
        if isinstance(expr, cst.Subscript):
            inner = self._operand(expr.value, setting)
            if inner is None or len(expr.slice) > len(inner):
                return None
            out = []
            for element, dim in zip(expr.slice, inner, strict=False):
                part = element.slice
                if isinstance(part, cst.Index):
                    if not isinstance(part.value, cst.Integer):
                        return None
                    continue  # an integer index drops the dimension
                if not isinstance(part, cst.Slice) or part.step is not None:
                    return None
                if part.lower is None and part.upper is None:
                    out.append(dim)
                elif dim.ref is not None:
                    out.append(_Dim(dim.ref, exact=False))
                else:
                    return None
            return out + inner[len(expr.slice):]
        return None

    def _check(self, node: cst.CSTNode, left: cst.BaseExpression, right: cst.BaseExpression, matmul: bool) -> None:
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        a, b = self._operand(left, setting), self._operand(right, setting)
        if not a or not b:
            return
        if matmul:
            if len(a) < 2 or len(b) < 1:
                return
            pairs = [(a[-1], b[-2] if len(b) >= 2 else b[0])]
        else:
            pairs = list(zip(reversed(a), reversed(b), strict=False))
        config = setting[1]
        for first, second in pairs:
            reason = self._tie(first, second, config)
            if reason is not None:
                what = "the product" if matmul else "broadcasting"
                self.report(node, f"`{short(node)}`: {what} ties {reason}")
                return

    def _reshape(self, node: cst.Call, tensor: cst.BaseExpression) -> None:
        """`x.view(4, -1)` of an input with a named Dim: literal target sizes without a `-1` fix
        the element count; with one, a literal where the named size was splits it."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        dims = self._operand(tensor, setting) if isinstance(tensor, cst.Name) else None
        if not dims or any(not d.exact for d in dims):
            return
        args = [a.value for a in node.args]
        if len(args) == 1 and isinstance(args[0], (cst.Tuple, cst.List)):
            args = [e.value for e in args[0].elements]
        target = [_signed(a) for a in args]
        if None in target or target.count(-1) > 1 or any(a.keyword is not None or a.star for a in node.args):
            return  # a size computed from the input, or not written as a number
        config = setting[1]
        named = [d for d in dims if d.ref is not None and config.dim(*d.ref).kind is DimKind.NAMED]
        if not named or any(d.ref is not None and d not in named for d in dims) or any(
            d.ref is None and d.size is None for d in dims
        ):
            return
        if -1 in target:
            # measured: `(b, 6).view(-1, 6)` and `(4, c).view(4, -1)` export; `(b, 6).view(4, -1)` and
            # `.view(2, -1)` fail (a literal where the named size was splits it). Other ranks: unknown
            fixed = [d for d, n in zip(dims, target, strict=False) if d in named and n != -1]
            if len(target) != len(dims) or not fixed:
                return
            named = fixed
        first = named[0]
        spec = config.dim(*first.ref)  # type: ignore[misc]
        self.report(node, f"`{short(node)}`: the literal sizes fix the element count, so export ties "
                          f"{_name(first)} ({spec.text()}) to a constant and fails with ConstraintViolationError "
                          "(Constraints violated); compute the sizes from the input (`x.shape[0]`) or use -1 for "
                          "the dynamic dimension")

    def _tie(self, a: _Dim, b: _Dim, config: ShapeConfig) -> str | None:
        """Why export fails on needing `a` and `b` equal, or None."""
        specs = [config.dim(*d.ref) if d.ref is not None else None for d in (a, b)]
        if any(spec is not None and spec.kind in (DimKind.AUTO, DimKind.DYNAMIC) for spec in specs):
            return None  # export takes the tie (or fails only on what the example shows)
        named = [(d, s) for d, s in zip((a, b), specs, strict=True) if s is not None and s.kind is DimKind.NAMED]
        if not named:
            return None
        if len(named) == 2:
            (da, sa), (db, sb) = named
            if _same(sa, sb) and da.exact and db.exact:
                return None
            fix = ("declare one as derived from the other (`dy = dx + 1` for a slice `y[1:]`)"
                   if not (da.exact and db.exact) else "give both one shared `Dim`")
            return (f"{_name(da)} ({sa.text()}) to {_name(db)} ({sb.text()}): export fails with "
                    f"ConstraintViolationError (Constraints violated); {fix}")
        ((dim, spec),) = named
        other = b if dim is a else a
        if other.size is None or other.size == 1:
            return None  # unknown, or broadcast from 1
        return (f"{_name(dim)} ({spec.text()}) to the constant size {other.size}: export fails with "
                "ConstraintViolationError (Constraints violated); declare that dimension static, or make "
                "the other operand follow the input's size")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Attend(torch.nn.Module):
                def forward(self, q, k):
                    return q @ k  # one shared Dim for the inner size
            def xport_example():
                inner = Dim("inner")
                return {"model": Attend(), "args": (torch.randn(4, 3), torch.randn(3, 5)),
                        "dynamic_shapes": {"q": {1: inner}, "k": {0: inner}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("gain", torch.ones(1, 3))
                def forward(self, x):
                    return x * self.gain  # broadcast from 1 along the batch
            def xport_example():
                return {"model": Scale(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Pairs(torch.nn.Module):
                def forward(self, x):
                    return x.view(-1, 6)  # -1 where the batch was: any batch works
            def xport_example():
                return {"model": Pairs(), "args": (torch.randn(4, 6),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
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
                    return x.view(4, -1)  # expect: XPT305
            def xport_example():
                return {"model": Rows(), "args": (torch.randn(4, 6),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Attend(torch.nn.Module):
                def forward(self, q, k):
                    return q @ k  # expect: XPT305
            def xport_example():
                return {"model": Attend(), "args": (torch.randn(4, 3), torch.randn(3, 5)),
                        "dynamic_shapes": {"q": {1: Dim("k1")}, "k": {0: Dim("k2")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Shifted(torch.nn.Module):
                def forward(self, x, y):
                    return x + y[1:]  # expect: XPT305
            def xport_example():
                return {"model": Shifted(), "args": (torch.randn(4, 3), torch.randn(5, 3)),
                        "dynamic_shapes": {"x": {0: Dim("dx")}, "y": {0: Dim("dy")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Weighted(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("w", torch.ones(4, 3))
                def forward(self, x):
                    return x * self.w  # expect: XPT305
            def xport_example():
                return {"model": Weighted(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
    ]


def _signed(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(
        expr.expression, cst.Integer
    ):
        return -int(expr.expression.evaluated_value)
    return None


def _same(a: DimSpec, b: DimSpec) -> bool:
    return a.name == b.name and (a.scale, a.offset) == (b.scale, b.offset)


def _name(dim: _Dim) -> str:
    name, _, index = dim.ref  # type: ignore[misc]
    return f"`{name}.shape[{index}]`" + ("" if dim.exact else " (sliced)")
