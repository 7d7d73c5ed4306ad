from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, Scope, TorchError, Valid


class CustomOpWithoutFake(Rule):
    """A `torch.library.custom_op` with no fake (meta) implementation in the file.

    ## What it does
    Flags functions decorated with `@torch.library.custom_op(...)` when the file registers no
    fake implementation for them (`@op.register_fake`, `torch.library.register_fake("ns::op")`).

    ## Why it fails torch.export
    Export runs every op on fake tensors to learn output shapes; without a fake kernel it raises
    `RuntimeError: There was no fake impl registered for <CustomOpDef(ns::op)>`. draft_export
    reports `MISSING_FAKE_KERNEL`.

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
    TRIGGERS = ("custom_op",)
    PYTORCH_NAME = "draft_export MISSING_FAKE_KERNEL"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("RuntimeError", "There was no fake impl registered"),),
        Mode.STRICT: (TorchError("TorchRuntimeError", "RuntimeError when making fake tensor call"),),
    }

    def visit_Module(self, node: cst.Module) -> None:
        source = self.ctx.source
        for stmt in node.body:
            if not isinstance(stmt, cst.FunctionDef):
                continue
            for decorator in stmt.decorators:
                target = decorator.decorator
                call = target if isinstance(target, cst.Call) else None
                if call is None or self.ctx.resolve(call.func) != "torch.library.custom_op":
                    continue
                name = stmt.name.value
                op_name = _string_arg(call)
                registered = f"{name}.register_fake" in source or (
                    op_name is not None and f'register_fake("{op_name}"' in source
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
        )
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
        )
    ]


def _string_arg(call: cst.Call) -> str | None:
    if call.args and isinstance(call.args[0].value, cst.SimpleString):
        value = call.args[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None
