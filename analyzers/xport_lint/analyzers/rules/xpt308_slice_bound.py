from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..names import dotted
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, DimSpec, SizeRef, Sizes
from ._conditions import short
from ._helper_ops import judge_helper_call


class SliceBound(Rule):
    """A slice of an input along a named `Dim` to a literal length its range holds, or bounded by the size floor-divided.

    ## What it does
    In a model's `forward`, flags a slice (or `narrow`) of an input along a dimension declared
    with a named `Dim`: from the start to a literal length `k` that the declared range holds
    (`x[:, :4]`, `x.narrow(1, 0, 4)` under `Dim("n")`, whose range holds 4), or with a bound
    that is that dimension's size floor-divided (`x[:, : x.shape[1] // 2]`,
    `x[:, (n + 1) // 2:]`, `x.narrow(1, 0, n // 2)`), also multiplied back (`x[:, : n // 2 * 2]`).
    A floor-divided bound is judged on any tensor whose sliced dimension is that input size
    (MAE's `torch.argsort(torch.rand(N, L), dim=1)[:, : L // 4]`); a literal length on the input
    only. The length may be a number bound to a name
    or a `self.` attribute `__init__` sets. Slices under an `if` are left out (the example may
    take the other side).

    ## Why it fails torch.export
    A slice to `k` is the whole tensor when the size is `k` and a part of it when the size is
    larger: export asks which, and records `n != 4` (and `4 <= n`) as guards the declared range
    does not promise. For a floor-divided bound export cannot prove `n // 2 <= n` over a symbol
    and records it as a guard, which fails whatever the range: `Constraints violated (n)! ...
    Not all values of n ... satisfy the generated guard (L['x'].size()[1] // 2) <= L['x'].size()[1]`
    (measured on torch 2.13).

    ## Example
    ```python
    return x[:, :4] * 2  # dynamic_shapes={"x": {1: Dim("n")}}
    ```

    ## Use instead
    For a literal length: a range above it (`Dim("n", min=5)`) or a static dimension. For a
    half: declare the dimension as a multiple of a root `Dim` and slice by the root's size
    (`{1: 2 * h}`, then `x[:, : x.shape[1] // 2]` is `h`), or `Dim.AUTO`.

    ## Fix safety
    No automatic fix: which range or which declaration the model means is the author's choice.

    ## Modes
    A slice to `min(n, 16)` fails whatever the range's top (torch cannot prove `min(16, n) <= n`)
    and exports where the range starts above 16 (measured): reported unless it does.

    A slice to the range's top (`x[:, :16]` under `Dim("n", max=16)`) keeps every size the range
    holds and exports (measured): nothing reported; `narrow` to it still guards `16 <= n`.

    Error in both modes (torch 2.13), but for a literal length equal to the range's low end
    (`x[:, :4]` under `Dim("n", min=4)`): returned or reduced, it fails non-strict export only;
    under elementwise arithmetic (`x[:, :4] * 2`) it fails both (measured). `Dim.AUTO` and
    `Dim.DYNAMIC` take the guards without a word: nothing reported. Along the outermost dimension
    a cut at the low end exports in both modes (`x[:4]`, `x.narrow(0, 0, 4)` under
    `Dim("b", min=4)`: the part stays contiguous, so no guard is recorded; measured): nothing
    reported there.
    """

    CODE = "XPT308"
    NAME = "slice-bound"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {mode: (TorchError("UserError", "Constraints violated"),) for mode in Mode}

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._slice(node, computed=False)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.traced is not None and self.ctx.shape_config().any_named():
            judge_helper_call(self, node, self.ctx.conditional(), keep_fixes=False)
        self._slice(node, computed=False)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """`x[:, :4] * 2` under `Dim("n", min=4)`: arithmetic on the slice makes strict export
        guard `n != 4` too (a slice returned as it is fails non-strict export only)."""
        if self.ctx.mode is Mode.STRICT and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            for operand in (node.left, node.right):
                self._slice(operand, computed=True)
                if isinstance(operand, cst.Call) and self.ctx.traced is not None and self.ctx.shape_config().any_named():
                    judge_helper_call(self, operand, self.ctx.conditional(), keep_fixes=False,
                                      judge=lambda written: self._slice(written, computed=True))

    def _slice(self, node: cst.CSTNode, computed: bool) -> None:
        """`x[..., a:b]` or `x.narrow(dim, start, length)` of an input: each sliced dimension judged;
        an operand of arithmetic through the name it is bound to (`x = x[:, :4]`, then `x * 2`)."""
        sizes = self.ctx.sizes() if computed and isinstance(node, cst.Name) and self.ctx.traced is not None else None
        if sizes is not None and self.ctx.shape_config().any_named():
            node = sizes.followed(node)
        if isinstance(node, cst.Subscript) and not any(
            not isinstance(e.slice, (cst.Slice, cst.Index)) or _expands(e.slice) for e in node.slice
        ):
            for index, element in enumerate(node.slice):
                part = element.slice
                if isinstance(part, cst.Slice) and part.step is None:
                    if self._judge(node, node.value, index, part.lower, part.upper, computed):
                        return
        elif isinstance(node, cst.Call):
            func = node.func
            if not (isinstance(func, cst.Attribute) and func.attr.value == "narrow" and isinstance(func.value, cst.Name)):
                return
            if len(node.args) != 3 or any(a.keyword is not None or a.star for a in node.args):
                return
            dim, start, length = (a.value for a in node.args)
            if isinstance(dim, cst.Integer):
                self._judge(node, func.value, int(dim.evaluated_value), start, length, computed)

    def _judge(
        self, node: cst.CSTNode, sliced: cst.BaseExpression, index: int, lower: cst.BaseExpression | None,
        upper: cst.BaseExpression | None, computed: bool,
    ) -> bool:
        """Report the slice of `sliced` along `index` from `lower` to `upper` (a length for `narrow`)
        if it fails export; whether it did. A bound export cannot show within the size is judged on
        any tensor whose dimension is an input's (MAE's `torch.argsort(noise, dim=1)[:, :L // 4]` of
        `noise = torch.rand(N, L)`); a cut to a constant on the input as it came in only.
        `computed`: judged as the operand of arithmetic, in strict mode (where a length equal to
        the range's low end fails only so)."""
        if self.ctx.traced is None or not self.ctx.shape_config().any_named():
            return False  # only a named `Dim` is reported: without one, sizes need not be followed
        traced, sizes = self.ctx.traced, self.ctx.sizes()
        if traced is None or sizes is None:
            return False
        on_input = isinstance(sliced, cst.Name) and sizes.reads_input(sliced)
        if isinstance(sliced, cst.Name) and on_input:
            ref: SizeRef | None = (sliced.value, sizes.positions[sliced.value], index)
        else:
            ref = sizes.dim_of(sliced, index)
        if ref is None:
            return False
        tensor, index = ref[0], ref[2]
        spec = self.ctx.shape_config().dim(*ref)
        if spec.kind is not DimKind.NAMED or spec.derived or id(node) in self.ctx.conditional():
            return False
        # strict export keeps `int(n // 2)` the symbolic size (non-strict makes it a constant first: XPT303)
        through_int = self.ctx.mode is Mode.STRICT
        halved = next(
            (bound for bound in (lower, upper) if bound is not None and _floored(bound, sizes, ref, through_int)), None,
        )
        if halved is not None and not computed:
            message = (
                f"`{short(node)}`: `{short(halved)}` floor-divides `{tensor}.shape[{index}]` ({spec.text()}); "
                f"export cannot prove the bound is within the size and fails with ConstraintViolationError "
                f"whatever the range; declare the dimension as a multiple of a root Dim (`2 * h`) or Dim.AUTO"
            )
            self.report(node, message)
            return True
        cap = _capped(upper, sizes, ref) if upper is not None and isinstance(node, cst.Subscript) else None
        if cap is not None and not computed and spec.values()[0] < cap:
            self.report(node, f"`{short(node)}` cuts `{tensor}.shape[{index}]` ({spec.text()}) to `min` of it and {cap}: "
                              f"export cannot prove `min({cap}, {spec.name}) <= {spec.name}` over the range and fails "
                              f"with ConstraintViolationError whatever its top; declare `{spec.name}` with "
                              f"`min={cap + 1}`, or Dim.AUTO")
            return True
        if not on_input:
            return False  # a cut to a constant was measured on inputs as they came in
        start = sizes.evaluate(lower, {}) if lower is not None else 0
        length = sizes.evaluate(upper, {}) if upper is not None else None
        if start != 0 or not isinstance(length, int) or isinstance(length, bool) or not _holds(spec, length):
            return False
        if isinstance(node, cst.Subscript) and length >= spec.values()[1]:
            return False  # a cut at the range's top keeps every size: export traces no guard (narrow still checks it)
        at_low_end = length == spec.values()[0]
        if at_low_end and index == 0:
            return False  # the outermost dimension: whole or part, the cut stays contiguous and export guards nothing
        if at_low_end and self.ctx.mode is Mode.STRICT and not computed or not at_low_end and computed:
            return False  # strict: the low end fails only under arithmetic; below it, the plain visit reports
        guard = f"`{spec.name} != {length}` (the whole tensor or a part of it)" if at_low_end else (
            f"`{length} <= {spec.name}` (the range holds sizes below {length})"
        )
        message = (
            f"`{short(node)}` cuts `{tensor}.shape[{index}]` ({spec.text()}) to {length}: "
            f"{'non-strict ' if at_low_end and not computed else ''}export guards {guard} and fails with "
            f"ConstraintViolationError; declare `{spec.name}` with `min={length + 1}`, or the dimension static"
        )
        self.report(node, message)
        return True

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def forward(self, x):
                    return x[:, :4] * 2  # the range starts above 4: always a part
            def xport_example():
                return {"model": Head(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n", min=5)}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Half(torch.nn.Module):
                def forward(self, x):
                    return x[:, : x.shape[1] // 2] * 2  # Dim.AUTO takes the guard
            def xport_example():
                return {"model": Half(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim.AUTO}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Trim(torch.nn.Module):
                def forward(self, x):
                    return x[:, : x.shape[1] - 1] * 2  # a bound the symbols prove
            def xport_example():
                return {"model": Trim(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n", min=4)}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Lead(torch.nn.Module):
                def forward(self, x):
                    x = x[:2]  # the outermost dimension cut at the range's low end: no guard
                    return x * 2 + x.narrow(0, 0, 2)
            def xport_example():
                return {"model": Lead(), "args": (torch.randn(4, 3, 8),), "dynamic_shapes": {"x": {0: Dim("b", min=2, max=128)}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class RandomMasking(torch.nn.Module):
                def forward(self, x):
                    n, length, d = x.shape
                    keep = length // 4
                    noise = torch.rand(n, length)
                    kept = torch.argsort(noise, dim=1)[:, :keep]  # expect: XPT308
                    return torch.gather(x, 1, kept.unsqueeze(-1).repeat(1, 1, d))
            def xport_example():
                return {"model": RandomMasking(), "args": (torch.randn(2, 16, 8),),
                        "dynamic_shapes": {"x": {1: Dim("L", min=4, max=256)}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def forward(self, x):
                    return x[:, :4] * 2  # expect: XPT308
            def xport_example():
                return {"model": Head(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def forward(self, x):
                    return x.narrow(1, 0, 4)  # expect: XPT308
            def xport_example():
                return {"model": Head(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n", min=4)}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def forward(self, x):
                    return x[:, :4] + 1  # expect: XPT308
            def xport_example():
                return {"model": Head(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n", min=4)}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Half(torch.nn.Module):
                def forward(self, x):
                    return x[:, : x.shape[1] // 2] * 2  # expect: XPT308
            def xport_example():
                return {"model": Half(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n", min=4)}}}
            """
        ),
    ]


def _expands(part: cst.BaseSlice) -> bool:
    """`...` or `None` in a subscript: the positions no longer name the input's dimensions."""
    return isinstance(part, cst.Index) and (
        isinstance(part.value, cst.Ellipsis) or (isinstance(part.value, cst.Name) and part.value.value == "None")
    )


def _floored(bound: cst.BaseExpression, sizes: Sizes, ref: SizeRef, through_int: bool = False) -> bool:
    """`n // 2`, `(n + 1) // 2` of the size `ref` (names bound once followed), negated too: the
    ceiling `-(-n // 4)` and a start counted from the end, `-(n // 4)` (measured: both fail as
    `n // 4` does); `through_int`: also inside `int(...)`."""
    bound = _unnegated(sizes.followed(bound))
    while through_int and isinstance(bound, cst.Call) and dotted(bound.func) == "int" and len(bound.args) == 1:
        bound = _unnegated(sizes.followed(bound.args[0].value))
    if isinstance(bound, cst.BinaryOperation) and isinstance(bound.operator, cst.Multiply):
        # `n // 2 * 2`, the size rounded down to even: torch cannot prove it `<= n` either
        # (measured on torch 2.13: fails in both modes with an odd or an even example)
        for factor, other in ((bound.right, bound.left), (bound.left, bound.right)):
            times = sizes.evaluate(factor, {})
            if isinstance(times, int) and not isinstance(times, bool) and times >= 1:
                bound = _unnegated(sizes.followed(other))
                break
    if not (isinstance(bound, cst.BinaryOperation) and isinstance(bound.operator, cst.FloorDivide)):
        return False
    divisor = sizes.evaluate(bound.right, {})
    return isinstance(divisor, int) and divisor >= 2 and sizes.refs(_unnegated(bound.left)) == [ref]


def _unnegated(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` without the unary minus signs in front of it."""
    while isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return expr


def _capped(bound: cst.BaseExpression, sizes: Sizes, ref: SizeRef) -> int | None:
    """`k` of a bound `min(n, k)` (or `min(k, n)`, bound to a name first) of the size `ref`."""
    bound = sizes.followed(bound)
    if not (isinstance(bound, cst.Call) and isinstance(bound.func, cst.Name) and bound.func.value == "min"
            and len(bound.args) == 2 and not any(a.keyword or a.star for a in bound.args)):
        return None
    first, second = (a.value for a in bound.args)
    for size, other in ((first, second), (second, first)):
        cap = sizes.evaluate(other, {})
        if sizes.refs(size) == [ref] and isinstance(cap, int) and not isinstance(cap, bool):
            return cap
    return None


def _holds(spec: DimSpec, size: int) -> bool:
    """Whether a named `Dim`'s range holds `size`."""
    low, high = spec.values()
    return low <= size <= high
