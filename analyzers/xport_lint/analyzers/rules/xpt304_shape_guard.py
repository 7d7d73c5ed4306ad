from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..names import dotted
from ..rewrites.common import Rewrite
from ..rewrites.export_calls import narrowed_dim_rewrite, shared_dim_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import (
    CHECK_APIS,
    CHECK_NAMES,
    DimKind,
    ShapeConfig,
    Sizes,
    Verdict,
    arguments_written,
    holding_range,
    judge_branch,
    pinned_to_held_value,
    tested_parameters,
    tested_sizes,
)
from ..walk import iter_nodes
from ._conditions import short


class ShapeGuard(Rule):
    """An `assert` or `torch._check` on a size that a named `Dim`'s declared range does not satisfy.

    ## What it does
    Flags `assert x.shape[0] == 4`, `torch._check(x.shape[1] <= 512)` and `torch._assert(H == 8,
    ...)` in a model's `forward` whose condition reads an input size declared with a named
    `Dim`, where the condition does not hold on the `Dim`'s whole range. Sizes unpacked from
    `.shape` (`B, C, H, W = x.shape`) and names bound once are followed. A function of the file
    or a method of the model that checks a parameter (`assert ok`, `if not ok: raise ...`,
    `torch._check(ok)`) checks what each call passes there as that statement would in the
    caller (`_require(H == 8, "...")`, `ok = T <= 64` then `self._ensure(ok)`), and one whose
    check reads a tensor parameter's size (`torch._check(t.shape[-1] % k == 0)`, `if t.shape[1] >
    limit: raise ...`) checks it with the call's arguments in place (`ensure_multiple(x, 4)`):
    the finding is on the helper's check, the line torch names, with the call as a note. A
    function of another file is judged the same way from its summary's checks (locals bound once
    or unpacked from `.shape` written out: `n = t.size(0)`, then `if n > 8: raise ...`), with
    the finding on the call. Shapes compared whole (`assert tuple(x.shape[-2:]) == self.img_size`,
    `assert x.shape[1:] == self.pos.shape`, `x.shape == y.shape`) are judged size by size, as
    Python compares them (one finding, on the assert), and an assert in a loop over a shape
    (`for s in x.shape[2:]: assert s <= 512`) on each size the loop gives.

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
    (that is a static dimension, not a range) or the `Dim` is declared elsewhere. Two sizes
    under two named `Dim`s tested equal (`assert h == w`, sizes unpacked from `.shape` too): the
    second declared with the first's `Dim`, as XPT301 does (assumes they are always equal).

    ## Modes
    Error in both modes (torch 2.13) under a named `Dim` whose range the condition splits, and
    under `Dim.DYNAMIC` where it holds only at the example's size (`torch._check(x.shape[0] ==
    4)`: export pins the size and fails); nothing where the range decides it, for static sizes,
    under `Dim.AUTO`, or under `Dim.DYNAMIC` where it only narrows the range (`<= 16`). A size
    declared as a derived `Dim` (`2 * h`, `h + 1`) is an error only where the test holds at one size
    (`== 32`): a guard that only narrows it (`% 4 == 0`, `> 40`) exports in both modes, kept as a
    run-time check of the exported program (measured on torch 2.13).
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
        if not node.args:
            return
        helper = self._helper(func)
        if helper is not None:
            self._through_helper(node, helper)
            return
        written = dotted(func) if self.ctx.program.context.checks else None
        elsewhere = self.ctx.program.context.size_checks(written) if written else None
        if elsewhere is not None:
            self._through_function_elsewhere(node, *elsewhere)
            return
        if node.args[0].keyword is not None:
            return
        if name not in CHECK_NAMES:
            return
        api = self.ctx.resolve(node.func) or ""
        if api in CHECK_APIS or api.endswith("._assert") or (isinstance(node.func, cst.Name) and node.func.value == "_assert"):
            self._check(node.args[0].value, f"`{short(node.func)}`")

    def _helper(self, func: cst.BaseExpression) -> cst.FunctionDef | None:
        """The function of the file (`_require(...)`) or method of the model (`self._assert(...)`)
        a call runs, where it checks one of its parameters."""
        if isinstance(func, cst.Name):
            helper = self.ctx.program.functions.get(func.value)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            traced = self.ctx.traced
            helper = traced.cls.methods.get(func.attr.value) if traced is not None and traced.cls is not None else None
        else:
            return None
        return helper if helper is not None and (tested_parameters(helper) or tested_sizes(helper)) else None

    def _through_helper(self, call: cst.Call, helper: cst.FunctionDef) -> None:
        """Each argument the helper checks (`assert ok`, `if not ok: raise`, `torch._check(ok)`)
        judged as that check of the caller's size test, and reported where torch fails: on the
        helper's check (measured: draft_export names that line, in a function or a method)."""
        params = [p.name.value for p in helper.params.params]
        if params[:1] in (["self"], ["cls"]) and isinstance(call.func, cst.Attribute):
            params = params[1:]
        for param, (test, statement) in tested_parameters(helper).items():
            value = _argument(call, params, param)
            seen = self.ctx.shared.setdefault("xpt304:helper-checks", set())
            if value is not None and id(test) not in seen:  # type: ignore[operator]
                seen.add(id(test))  # type: ignore[attr-defined]
                self._check(value, f"`{short(call.func)}` checking its `{param}`", at=(test, statement, call))
        for test, unfolded, statement in tested_sizes(helper):
            arguments = {param: _argument(call, params, param) for param in params}
            written = arguments_written(unfolded, {k: v for k, v in arguments.items() if v is not None})
            seen = self.ctx.shared.setdefault("xpt304:helper-checks", set())
            if written is not None and id(test) not in seen:  # type: ignore[operator]
                seen.add(id(test))  # type: ignore[attr-defined]
                self._check(written, f"`{short(call.func)}` checking `{short(test)}`", at=(test, statement, call))

    def _through_function_elsewhere(self, call: cst.Call, params: tuple[str, ...], checks: tuple[str, ...]) -> None:
        """Each check of a function of another file (`if t.shape[0] > 8: raise ...` of
        `ensure_batch_small(x)`), with the call's arguments in place of the parameters, judged as
        the caller's own test; reported on the call (the check's line is in the other file)."""
        if params[:1] in (("self",), ("cls",)):
            params = params[1:]
        arguments = {param: value for param in params if (value := _argument(call, list(params), param)) is not None}
        for check in checks:
            test = cst.parse_expression(check)
            read = {n.value for n in iter_nodes(test) if isinstance(n, cst.Name)} & set(params)
            written = arguments_written(test, arguments) if read <= set(arguments) else None
            if written is not None:
                self._check(written, f"`{short(call.func)}` checking `{check}`", at=(call, None, call))

    def _check(
        self, test: cst.BaseExpression, keyword: str, at: tuple[cst.CSTNode, cst.CSTNode, cst.Call] | None = None,
        whole: cst.BaseExpression | None = None,
    ) -> bool:
        """Report `test` where it narrows a named Dim; whether it did. `at`: the helper's check
        (node, statement) that tests it, where torch fails, instead of `test` itself, and the call
        passing it; `whole`: the comparison of whole shapes `test` is one size's part of, the
        finding's place."""
        config = self.ctx.shape_config()
        if not any(spec.kind in (DimKind.NAMED, DimKind.DYNAMIC) for _, dims in config.inputs for _, spec in dims):
            return False
        sizes = self.ctx.sizes()
        if sizes is None:
            return False
        if at is not None:
            test = sizes.followed(test)  # `ok = x.shape[1] <= 64`, then `_ensure(ok)`
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            # `assert H % p == 0 and W % p == 0`: each part holds
            return any([self._check(part, keyword, at) for part in (test.left, test.right)])
        instances = sizes.loop_instances(test) if whole is None and at is None else None
        if instances:  # `for s in x.shape[2:]: assert s <= 512`: each size the loop gives
            return any(self._check(instance, keyword, at, whole=test) for instance in instances)
        parts = sizes.compared_whole(test, cst.Equal) if whole is None else None
        if parts is not None:
            # `assert x.shape[2:] == self.img_size`: each size equals its part (one finding)
            return any(self._check(part, keyword, at, whole=test) for part in parts)
        node, statement = at[:2] if at is not None else (whole or test, None)
        said = f"`{short(test)}`" + (f" (of `{short(whole)}`)" if whole is not None else "")
        related = ((at[2], f"`{short(at[2])}` passes the size test"),) if at is not None and at[2] is not at[0] else ()
        pinned = pinned_to_held_value(test, sizes, config)  # `H == self.img_size[0]`, set from a config
        if pinned is not None:
            self.report(node, f"{keyword} on the size {said}: {pinned.reason}", notes=pinned.notes,
                        statement=statement, related=related)
            return True
        if not sizes.refs(test):
            return False
        verdict = judge_branch(test, sizes, config, self.ctx.mode, self.ctx.example_sizes())
        if verdict.severity is not Severity.ERROR:
            return False
        reason = verdict.reason.replace(", or use torch.cond)", ")")
        rewrite = self._shared(verdict) or (
            self._narrowing(test, sizes, config) if whole is None else Rewrite(reason="the shapes are compared whole"))
        if rewrite.reason:
            reason += f" (no automatic fix: {rewrite.reason})"
        self.report(node, f"{keyword} on the size {said}: {reason}", fix=rewrite.fix, notes=verdict.notes,
                    statement=statement, related=related)
        return True

    def _shared(self, verdict: Verdict) -> Rewrite | None:
        """Two named Dims the test needs equal (`assert h == w`): one shared Dim, as for XPT301."""
        program, traced = self.ctx.program, self.ctx.traced
        if verdict.shared is None or traced is None or traced.cls is None or program.shapes_reader is None:
            return None
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        return shared_dim_rewrite(shapes, program.shapes_reader, *verdict.shared)

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
        declared = program.shapes_reader.declaration(shapes, *refs[0])
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
        Valid(
            """
            import torch
            from torch.export import Dim
            def _assert_fits(fits, what):
                assert fits, what  # the declared range says so at every call
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    _assert_fits(x.shape[1] <= 64, "sequence too long")
                    return x.cumsum(1)
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("seq", max=64)}}}
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
            class PatchEmbed(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.img_size = (32, 32)
                def forward(self, x):
                    assert tuple(x.shape[-2:]) == self.img_size, "input size"  # expect: XPT304
                    return x.flatten(2)
            def xport_example():
                return {"model": PatchEmbed(), "args": (torch.randn(1, 3, 32, 32),), "dynamic_shapes": {"x": {2: Dim("h"), 3: Dim("w")}}}
            """,
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
                if not ok:  # expect: XPT304
                    raise ValueError(message)
            class Tokens(torch.nn.Module):
                def forward(self, x):
                    _require(x.shape[1] == 8, "eight tokens")
                    return x * 2
            def xport_example():
                return {"model": Tokens(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("w")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    short_enough = x.shape[1] <= 64
                    self._ensure(short_enough)
                    return x.cumsum(1)
                def _ensure(self, ok):
                    torch._check(ok)  # expect: XPT304
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("seq")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    short_enough = x.shape[1] <= 64
                    self._ensure(short_enough)
                    return x.cumsum(1)
                def _ensure(self, ok):
                    torch._check(ok)  # expect: XPT304
            def xport_example():
                return {"model": Encoder(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("seq", max=64)}}}
            """,
            other_args="(torch.randn(2, 40),)",
        ),
    ]


def _argument(call: cst.Call, params: list[str], param: str) -> cst.BaseExpression | None:
    """What `call` passes for the helper's parameter `param` (by position or keyword)."""
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == param:
                return arg.value
        elif position < len(params) and params[position] == param:
            return arg.value
    return None
