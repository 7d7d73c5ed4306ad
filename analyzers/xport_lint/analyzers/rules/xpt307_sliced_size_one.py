from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rewrites.common import Rewrite
from ..rewrites.export_calls import narrowed_dim_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, DimSpec, SizeRef
from ..walk import iter_nodes
from ._conditions import short

_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
#: ops that compute a new tensor of their input, as a method or a `torch.`/`F.` function (measured:
#: clone, contiguous, relu, sigmoid on `x[1:]` fail both modes; `.float()` of a float tensor, a
#: return or a reduction fail non-strict export only)
_COMPUTING = frozenset({
    "clone", "contiguous", "relu", "sigmoid", "tanh", "exp", "abs", "neg", "sqrt", "gelu", "silu", "sin", "cos",
})


class SlicedSizeOne(Rule):
    """A slice by a literal leaves a size that is 1 somewhere in a named `Dim`'s range.

    ## What it does
    In a model's `forward`, flags elementwise arithmetic (`x[1:] - x[:-1]`, `x[:, 1:] * 2`) and
    ops that compute a new tensor (`.clone()`, `.contiguous()`, `torch.relu`, `.sigmoid()`, ...)
    on a slice of an input by literal bounds (`[k:]`, `[:-k]`, `[k:-j]`) along a dimension declared
    with a named `Dim` whose range holds the size where the slice is one long (`Dim("n")`: the
    size 2 makes `x[1:]` one long). The slice may be bound to a name first. Slices under an `if`
    are left out (the example may take the other side).

    ## Why it fails torch.export
    A size of 1 broadcasts, so the op asks whether the sliced size is 1 and export records the
    answer as the guard `n - 1 != 1`, which the declared range does not promise:
    `Constraints violated (n)! ... Not all values of n ... satisfy the generated guard
    ((-1) + L['x'].size()[0]) != 1`.

    ## Example
    ```python
    return x[1:] - x[:-1]  # dynamic_shapes={"x": {0: Dim("n")}}
    ```

    ## Use instead
    Declare the range the code supports: `Dim("n", min=3)` (the slice is then at least 2 long).

    ## Fix safety
    Unsafe: the `Dim(...)` written in this file's `dynamic_shapes` gets the smallest `min=` that
    keeps the slice longer than 1; inputs of the sizes below it, which the model handled in eager,
    are no longer accepted by the exported program.

    ## Modes
    Error in both modes (torch 2.13). `Dim.AUTO` narrows the range without a word: nothing
    reported. Slices returned as they are, reduced (`x[1:].sum(0)`) or converted (`.float()`)
    fail non-strict export only and are not reported.
    """

    CODE = "XPT307"
    NAME = "sliced-size-one"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {mode: (TorchError("UserError", "Constraints violated"),) for mode in Mode}

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, _ELEMENTWISE):
            self._judge(node, (node.left, node.right))

    def visit_Call(self, node: cst.Call) -> None:
        """`x[1:].clone()`, `torch.relu(x[1:])`: an op that computes a new tensor of the slice."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _COMPUTING and not node.args and not (
            isinstance(func.value, cst.Name) and func.value.value in ("torch", "F")
        ):
            self._judge(node, (func.value,))
        elif node.args and node.args[0].keyword is None and (self.ctx.resolve(func) or "").rpartition(".")[2] in (
            _COMPUTING
        ) and (self.ctx.resolve(func) or "").startswith("torch."):
            self._judge(node, (node.args[0].value,))

    def _judge(self, node: cst.CSTNode, operands: tuple[cst.BaseExpression, ...]) -> None:
        traced = self.ctx.traced
        sizes = self.ctx.sizes()
        if traced is None or sizes is None:
            return
        for operand in operands:
            sliced = sizes.followed(operand)
            if not isinstance(sliced, cst.Subscript) or not isinstance(sliced.value, cst.Name):
                continue
            tensor = sliced.value.value
            cuts = [(index, cut) for index, element in enumerate(sliced.slice) if (cut := _cut(element.slice))]
            if not cuts or sizes.through(tensor, 0) != (tensor, sizes.positions.get(tensor), 0):
                continue  # no slice by literals of a `forward` input as it came in
            if id(node) in self._conditional():
                return
            config = self.ctx.shape_config()
            for index, cut in cuts:
                ref = (tensor, sizes.positions[tensor], index)
                spec = config.dim(*ref)
                root = _one_long_at(spec, cut)
                if root is None:
                    continue
                rewrite = self._narrowing(ref, spec, cut)
                message = (
                    f"`{short(sliced)}` leaves `{tensor}.shape[{index}]` less {cut}, which is 1 long at "
                    f"{spec.name} = {root} in `{spec.text()}`: `{short(node)}` makes export guard "
                    f"`{spec.name} - {cut} != 1` and fail with ConstraintViolationError; declare "
                    f"`{spec.name}` with `min={cut + 2}`"
                )
                if rewrite.reason:
                    message += f" (no automatic fix: {rewrite.reason})"
                note = config.note()
                # a slice bound to a name before the op: torch names the slice's line, so the finding is there
                holder = next((statement for statement in iter_nodes(traced.func.body)
                               if isinstance(statement, cst.SimpleStatementLine)
                               and any(inner is sliced for inner in iter_nodes(statement))), None)
                apart = holder is not None and not any(inner is node for inner in iter_nodes(holder))
                self.report(sliced if apart else node, message, fix=rewrite.fix, statement=holder if apart else None,
                            notes=(note,) if note is not None else ())
                return

    def _conditional(self) -> set[int]:
        """Nodes of `forward` under an `if` or a conditional expression."""
        traced = self.ctx.traced
        assert traced is not None
        key = f"conditional:{id(traced.func)}"
        found = self.ctx.shared.get(key)
        if found is None:
            found = set()
            for node in iter_nodes(traced.func.body):
                if isinstance(node, (cst.If, cst.IfExp)):
                    parts = [node.body, node.orelse]
                    found.update(id(inner) for part in parts if part is not None for inner in iter_nodes(part))
            self.ctx.shared[key] = found
        return found  # type: ignore[return-value]

    def _narrowing(self, ref: SizeRef, spec: DimSpec, cut: int) -> Rewrite:
        program, traced = self.ctx.program, self.ctx.traced
        assert traced is not None and traced.cls is not None
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        if shapes is None or program.shapes_reader is None:
            return Rewrite(reason="the dynamic_shapes are declared in another file")
        if spec.derived:
            return Rewrite(reason="the Dim is derived: narrow its root's range")
        node = program.shapes_reader.spec_node(shapes, *ref)
        declared = program.shapes_reader._follow(node) if node is not None else None
        return narrowed_dim_rewrite(declared, self.ctx.resolve, cut + 2, spec.high, "the slice stays longer than 1")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Tail(torch.nn.Module):
                def forward(self, x):
                    return x[1:] * 3  # 2 * h less 1 is at least 3: never one long
            def xport_example():
                h = Dim("h")
                return {"model": Tail(), "args": (torch.randn(6, 2),), "dynamic_shapes": {"x": {0: 2 * h}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Steps(torch.nn.Module):
                def forward(self, x):
                    return x[1:] - x[:-1]  # at least 3 long: the differences are at least 2
            def xport_example():
                return {"model": Steps(), "args": (torch.randn(5, 2),), "dynamic_shapes": {"x": {0: Dim("n", min=3)}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Steps(torch.nn.Module):
                def forward(self, x):
                    return x[1:] - x[:-1]  # Dim.AUTO: export narrows the range itself
            def xport_example():
                return {"model": Steps(), "args": (torch.randn(5, 2),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Tail(torch.nn.Module):
                def forward(self, x):
                    return torch.relu(x[:-1])  # expect: XPT307
            def xport_example():
                return {"model": Tail(), "args": (torch.randn(5, 2),), "dynamic_shapes": {"x": {0: Dim("n", max=32)}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Tail(torch.nn.Module):
                def forward(self, x):
                    return torch.relu(x[:-1])  # expect: XPT307
            def xport_example():
                return {"model": Tail(), "args": (torch.randn(5, 2),), "dynamic_shapes": {"x": {0: Dim("n", min=3, max=32)}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Steps(torch.nn.Module):
                def forward(self, x):
                    return x[1:] - x[:-1]  # expect: XPT307
            def xport_example():
                return {"model": Steps(), "args": (torch.randn(5, 2),), "dynamic_shapes": {"x": {0: Dim("n")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Steps(torch.nn.Module):
                def forward(self, x):
                    return x[1:] - x[:-1]  # expect: XPT307
            def xport_example():
                return {"model": Steps(), "args": (torch.randn(5, 2),), "dynamic_shapes": {"x": {0: Dim("n", min=3)}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Trim(torch.nn.Module):
                def forward(self, x):
                    inner = x[:, 2:]  # expect: XPT307
                    return inner * 2
            def xport_example():
                return {"model": Trim(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: Dim("w", min=3, max=64)}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Trim(torch.nn.Module):
                def forward(self, x):
                    inner = x[:, 2:]  # expect: XPT307
                    return inner * 2
            def xport_example():
                return {"model": Trim(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: Dim("w", min=4, max=64)}}}
            """,
        ),
    ]


def _cut(part: cst.BaseSlice) -> int:
    """How much a slice by literals takes off a size (`[1:]`, `[:-1]`: 1; `[1:-1]`: 2); 0 for
    any other index."""
    if not isinstance(part, cst.Slice) or part.step is not None:
        return 0
    lower = _number(part.lower) if part.lower is not None else 0
    upper = _number(part.upper) if part.upper is not None else 0
    if lower is None or upper is None or lower < 0 or upper > 0:
        return 0
    return lower - upper


def _number(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(
        expr.expression, cst.Integer
    ):
        return -int(expr.expression.evaluated_value)
    return None


def _one_long_at(spec: DimSpec, cut: int) -> int | None:
    """The root value of a named `Dim`'s range where a size less `cut` is 1, or None."""
    if spec.kind is not DimKind.NAMED:
        return None
    root, rest = divmod(1 + cut - spec.offset, spec.scale)
    low, high = spec.values()
    return root if rest == 0 and low <= root <= high else None
