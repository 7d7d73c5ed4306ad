from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rewrites.common import Rewrite
from ..rewrites.export_calls import narrowed_dim_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, ShapeConfig, Sizes, holding_range, judge_branch, pinned_to_held_value
from ._conditions import short

#: calls that assert their first argument (timm's `_assert` is torch's)
_CHECKS = ("torch._check", "torch._assert", "torch._check_is_size")
_CHECK_NAMES = frozenset(api.rpartition(".")[2] for api in _CHECKS)


class ShapeGuard(Rule):
    """An `assert` or `torch._check` on a size that a named `Dim`'s declared range does not satisfy.

    ## What it does
    Flags `assert x.shape[0] == 4`, `torch._check(x.shape[1] <= 512)` and `torch._assert(H == 8,
    ...)` in a model's `forward` whose condition reads an input size declared with a named
    `Dim`, where the condition does not hold on the `Dim`'s whole range. Sizes unpacked from
    `.shape` (`B, C, H, W = x.shape`) and names bound once are followed. A function of the file
    that raises unless its first argument holds (`def _require(ok, msg): if not ok: raise
    ValueError(msg)`) checks its argument as `assert` does.

    ## Why it fails torch.export
    export records the condition as a guard on the size. A named `Dim` promises every size of its
    range works; a guard that rules some out violates that promise: `Constraints violated (b)!
    ... Not all values of b ... satisfy the generated guard`, in both modes. `Dim.AUTO` takes the
    guard's range without a word (the exported program rejects what eager would have refused:
    nothing to report).

    ## Example
    ```python
    assert x.shape[1] <= 512, "sequence too long"
    ```
    exported with `dynamic_shapes={"x": {1: Dim("seq")}}`.

    ## Use instead
    Declare the range the code allows: `Dim("seq", max=512)`; or `Dim.AUTO`.

    ## Fix safety
    Unsafe: the `Dim(...)` written in this file's `dynamic_shapes` gets the `min`/`max` where the
    condition holds (the example satisfies it, or eager would fail too), so the exported program
    accepts exactly the sizes the code allows. Not offered where the condition leaves one size
    (that is a static dimension, not a range) or the `Dim` is declared elsewhere.

    ## Modes
    Error in both modes (torch 2.13) under a named `Dim` whose range the condition splits;
    nothing where the range decides it, for static sizes, or under `Dim.AUTO`/`Dim.DYNAMIC`.
    """

    CODE = "XPT304"
    NAME = "shape-guard"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {mode: (TorchError("UserError", "Constraints violated"),) for mode in Mode}

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check(node.test, "assert")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if not node.args or node.args[0].keyword is not None:
            return
        if isinstance(func, cst.Name) and _raises_unless_first(self.ctx.program.functions.get(name)):
            self._check(node.args[0].value, f"`{name}`")  # `_require(H == 8, "...")`: an assert by another name
            return
        if name not in _CHECK_NAMES:
            return
        api = self.ctx.resolve(node.func) or ""
        if api in _CHECKS or api.endswith("._assert") or (isinstance(node.func, cst.Name) and node.func.value == "_assert"):
            self._check(node.args[0].value, f"`{short(node.func)}`")

    def _check(self, test: cst.BaseExpression, keyword: str) -> None:
        config = self.ctx.shape_config()
        if not any(spec.kind is DimKind.NAMED for _, dims in config.inputs for _, spec in dims):
            return
        sizes = self.ctx.sizes()
        if sizes is None:
            return
        pinned = pinned_to_held_value(test, sizes, config)  # `H == self.img_size[0]`, set from a config
        if pinned is not None:
            self.report(test, f"{keyword} on the size `{short(test)}`: {pinned.reason}", notes=pinned.notes)
            return
        if not sizes.refs(test):
            return
        verdict = judge_branch(test, sizes, config, self.ctx.mode)
        if verdict.severity is not Severity.ERROR:
            return
        reason = verdict.reason.replace(", or use torch.cond)", ")")
        rewrite = self._narrowing(test, sizes, config)
        if rewrite.reason:
            reason += f" (no automatic fix: {rewrite.reason})"
        self.report(test, f"{keyword} on the size `{short(test)}`: {reason}", fix=rewrite.fix, notes=verdict.notes)

    def _narrowing(self, test: cst.BaseExpression, sizes: Sizes, config: ShapeConfig) -> Rewrite:
        """The named Dim declared with the range the guard enforces (the example holds it: eager
        would fail the guard otherwise)."""
        program, traced = self.ctx.program, self.ctx.traced
        refs = sizes.refs(test) or []
        if traced is None or traced.cls is None or program.shapes_reader is None or len(set(refs)) != 1:
            return Rewrite()
        spec = config.dim(*refs[0])
        bounds = holding_range(test, sizes, spec)
        if bounds is None:
            return Rewrite(reason="the guard leaves a single size or no interval of the declared range")
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        if shapes is None:
            return Rewrite(reason="the dynamic_shapes are declared in another file")
        reader = program.shapes_reader
        node = reader.spec_node(shapes, *refs[0])
        declared = reader._follow(node) if node is not None else None
        return narrowed_dim_rewrite(declared, self.ctx.resolve, *bounds, "the range the guard enforces")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    assert x.shape[1] <= 64, "sequence too long"  # the declared range says so
                    return x.cumsum(1)
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("seq", max=64)}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    torch._check(x.shape[1] <= 64)  # Dim.AUTO takes the range the check gives
                    return x.cumsum(1)
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim.AUTO}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def forward(self, x, n: int):
                    assert n == 3  # a Python int input, not a size
                    return x * n
            def xport_example():
                return {"model": Scale(), "args": (torch.randn(4, 3), 3), "dynamic_shapes": {"x": {0: Dim("b")}, "n": None}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Pairs(torch.nn.Module):
                def forward(self, x):
                    torch._check(x.shape[0] % 2 == 0)  # declared `2 * dx`: always even
                    return x.view(-1, 2, 3).sum(1)
            def xport_example():
                dx = Dim("dx", max=32)
                return {"model": Pairs(), "args": (torch.randn(8, 3),), "dynamic_shapes": {"x": {0: 2 * dx}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    assert x.shape[1] <= 64, "sequence too long"  # expect: XPT304
                    return x.cumsum(1)
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("seq")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    assert x.shape[1] <= 64, "sequence too long"  # expect: XPT304
                    return x.cumsum(1)
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("seq", max=64)}}}
            """,
            other_args="(torch.randn(2, 40),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Fixed(torch.nn.Module):
                def forward(self, x):
                    torch._check(x.shape[0] == 4)  # expect: XPT304
                    return x * 2
            def xport_example():
                return {"model": Fixed(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch import _assert
            from torch.export import Dim
            class PatchEmbed(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    _assert(H == 8, "input height must be 8")  # expect: XPT304
                    return x.flatten(2)
            def xport_example():
                return {"model": PatchEmbed(), "args": (torch.randn(2, 3, 8, 8),), "dynamic_shapes": {"x": {2: Dim("h")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            def _require(ok, message):
                if not ok:
                    raise ValueError(message)
            class Tokens(torch.nn.Module):
                def forward(self, x):
                    _require(x.shape[1] == 8, "eight tokens")  # expect: XPT304
                    return x * 2
            def xport_example():
                return {"model": Tokens(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("w")}}}
            """
        ),
    ]


def _raises_unless_first(helper: cst.FunctionDef | None) -> bool:
    """Whether `helper` starts (after a docstring) with `if not <its first parameter>: raise ...`:
    a call to it is a guard on its first argument."""
    if helper is None or not helper.params.params or not isinstance(helper.body, cst.IndentedBlock):
        return False
    first = helper.params.params[0].name.value
    body = list(helper.body.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) and isinstance(
            body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]  # the docstring
    test = body[0] if body else None
    return (
        isinstance(test, cst.If) and isinstance(test.test, cst.UnaryOperation) and isinstance(test.test.operator, cst.Not)
        and isinstance(test.test.expression, cst.Name) and test.test.expression.value == first
        and isinstance(test.body, cst.IndentedBlock) and len(test.body.body) == 1
        and isinstance(test.body.body[0], cst.SimpleStatementLine)
        and isinstance(test.body.body[0].body[0], cst.Raise)
    )
