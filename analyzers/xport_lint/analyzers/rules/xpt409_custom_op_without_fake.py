from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, Scope, TorchError, Valid
from ..walk import iter_nodes


class CustomOpWithoutFake(Rule):
    """A `torch.library.custom_op` with no fake (meta) implementation in the file.

    ## What it does
    Flags functions decorated with `@torch.library.custom_op(...)` (at module level, in a
    function or inside a `with torch.library._scoped_library(...)` block) and operators declared
    with `torch.library.define("ns::op", schema)` (given kernels with `torch.library.impl`) when
    the file registers no fake implementation for them (`@op.register_fake`,
    `torch.library.register_fake("ns::op")`).

    ## Why it fails torch.export
    Export runs every op on fake tensors to learn output shapes; without a fake kernel it raises
    `RuntimeError: There was no fake impl registered for <CustomOpDef(ns::op)>`; for a
    `torch.library.define`d operator whose only kernel is `impl(..., "cpu")`, non-strict export
    raises `UnsupportedOperatorException: ns.op.default` and strict export `Unsupported: Operator
    does not support running with fake tensors`. draft_export reports `MISSING_FAKE_KERNEL`.

    ## Example
    ```python
    @torch.library.custom_op("mylib::rotate", mutates_args=())
    def rotate(x: torch.Tensor) -> torch.Tensor: ...
    ```

    ## Use instead
    ```python
    @rotate.register_fake
    def _(x):
        return torch.empty_like(x)
    ```

    ## Fix safety
    No automatic fix: the output shape is the op author's knowledge.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT409"
    NAME = "custom-op-without-fake"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SCOPE = Scope.MODULE
    TRIGGERS = ("custom_op", "library.define")
    PYTORCH_NAME = "draft_export MISSING_FAKE_KERNEL"
    FAILS_WITH = {
        Mode.NON_STRICT: (
            TorchError("RuntimeError", "There was no fake impl registered"),
            TorchError("UnsupportedOperatorException", "."),
        ),
        Mode.STRICT: (
            TorchError("TorchRuntimeError", "RuntimeError when making fake tensor call"),
            TorchError("Unsupported", "Operator does not support running with fake tensors"),
        ),
    }

    def visit_Module(self, node: cst.Module) -> None:
        source = self.ctx.source
        # anywhere in the file: ops are often declared inside a `with torch.library._scoped_library(...)`
        # block or a test function, and `custom_op` registers them globally all the same
        for stmt in iter_nodes(node):
            if isinstance(stmt, cst.FunctionDef):
                self._custom_op(stmt, source)
            elif isinstance(stmt, cst.Call) and self.ctx.resolve(stmt.func) == "torch.library.define":
                op_name = _string_arg(stmt)
                if op_name is not None and not _fake_registered(source, op_name):
                    self.report(stmt, f"operator `{op_name}` is defined with no fake implementation")

    def _custom_op(self, stmt: cst.FunctionDef, source: str) -> None:
        for decorator in stmt.decorators:
            target = decorator.decorator
            call = target if isinstance(target, cst.Call) else None
            if call is None or self.ctx.resolve(call.func) != "torch.library.custom_op":
                continue
            name = stmt.name.value
            op_name = _string_arg(call)
            registered = f"{name}.register_fake" in source or (
                op_name is not None and _fake_registered(source, op_name)
            )
            if not registered:
                self.report(
                    stmt.name,
                    f"custom op `{op_name or name}` has no fake implementation",
                )

    VALID = [
        Valid(
            """
            import torch
            @torch.library.custom_op("xlint_valid::double", mutates_args=())
            def double(x: torch.Tensor) -> torch.Tensor:
                return x * 2
            @double.register_fake
            def _(x):
                return torch.empty_like(x)
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Valid(
            """
            import torch
            if not hasattr(torch.ops.xlint_defined_ok, "triple"):  # a second import defines nothing
                torch.library.define("xlint_defined_ok::triple", "(Tensor x) -> Tensor")
                @torch.library.impl("xlint_defined_ok::triple", "cpu")
                def triple(x):
                    return x * 3
                @torch.library.register_fake("xlint_defined_ok::triple")
                def _(x):
                    return torch.empty_like(x)
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return torch.ops.xlint_defined_ok.triple(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            @torch.library.custom_op("xlint_invalid::double", mutates_args=())
            def double(x: torch.Tensor) -> torch.Tensor:  # expect: XPT409
                return x * 2
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            with torch.library._scoped_library("xlint_scoped", "FRAGMENT") as lib:
                @torch.library.custom_op("xlint_scoped::double", mutates_args=())
                def double(x: torch.Tensor) -> torch.Tensor:  # expect: XPT409
                    return x * 2
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            if not hasattr(torch.ops.xlint_defined, "triple"):  # a second import defines nothing
                torch.library.define("xlint_defined::triple", "(Tensor x) -> Tensor")  # expect: XPT409
                @torch.library.impl("xlint_defined::triple", "cpu")
                def triple(x):
                    return x * 3
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return torch.ops.xlint_defined.triple(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
    ]


def _fake_registered(source: str, op_name: str) -> bool:
    """A fake kernel for `op_name` registered by name (`register_fake`, or `impl_abstract`, its
    older spelling) anywhere in the file."""
    return any(f'{api}("{op_name}"' in source or f"{api}('{op_name}'" in source
               for api in ("register_fake", "impl_abstract"))


def _string_arg(call: cst.Call) -> str | None:
    if call.args and isinstance(call.args[0].value, cst.SimpleString):
        value = call.args[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None
