from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..dataflow import Kind, Value
from ..model import Mode, Severity
from ..rewrites import non_strict_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short


class TorchscriptInternals(Rule):
    """A TorchScript module's C++ object (`self.encoder._c`) used in traced code.

    ## What it does
    Flags the `_c` attribute of a submodule read in traced code (`self.inner._c.forward(x)`):
    the C++ `torch.ScriptObject` behind a `torch.jit.script`-ed or loaded module.

    ## Why it fails torch.export
    Strict export (Dynamo) refuses to trace into TorchScript, even only reading `_c`: `Unsupported: torch.jit.script/freeze
    modules unsupported` (measured on torch 2.13). Non-strict export runs the scripted code on
    its fake tensors and exports it, so this is only reported in strict mode.

    ## Example
    ```python
    return self.inner._c.forward(x)
    ```

    ## Use instead
    Export the eager module the script was made from (keep it beside the scripted one), or
    export non-strict.

    ## Fix safety
    Unsafe: `strict=True` becomes `strict=False` at the file's export calls (non-strict export
    runs the scripted module as is). It assumes the rest of the model exports non-strict too. No
    fix when strict mode comes from the configuration rather than from a call in the file.

    ## Modes
    Error in strict export; not reported in non-strict export.
    """

    CODE = "XPT413"
    NAME = "torchscript-internals"
    SEVERITY = None
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported (Dynamo): torch.jit.script/freeze modules unsupported"
    FAILS_WITH = {
        Mode.STRICT: (TorchError("Unsupported", "torch.jit.script/freeze modules unsupported"),),
    }

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not _script_object(node, self.ctx.value):
            return
        rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
        message = f"`{short(node)}` is a TorchScript module's C++ object, which strict export cannot trace"
        if rewrite.reason:
            message += f" (no automatic fix: {rewrite.reason})"
        self.report(node, message, fix=rewrite.fix)

    VALID = [
        Valid(
            """
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = torch.jit.script(Inner())
                    self.eager = Inner()
                def forward(self, x):
                    return self.eager(x) * 2
            def xport_example():
                return Outer(), (torch.randn(4),)
            def export():
                return torch.export.export(Outer(), (torch.randn(4),), strict=True)
            """,
            modes=(Mode.STRICT,),
        ),
        Valid(
            """
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = torch.jit.script(Inner())
                def forward(self, x):
                    scripted = self.inner._c
                    return scripted.forward(x) * 2
            def xport_example():
                return Outer(), (torch.randn(4),)
            """,
            modes=(Mode.NON_STRICT,),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = torch.jit.script(Inner())
                def forward(self, x):
                    return self.inner._c.forward(x) * 2  # expect: XPT413
            def xport_example():
                return Outer(), (torch.randn(4),)
            def export():
                return torch.export.export(Outer(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = torch.jit.script(Inner())
                def forward(self, x):
                    return self.inner._c.forward(x) * 2  # expect: XPT413
            def xport_example():
                return Outer(), (torch.randn(4),)
            def export():
                return torch.export.export(Outer(), (torch.randn(4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = torch.jit.script(Inner())
                def forward(self, x):
                    scripted = self.inner._c  # expect: XPT413
                    return scripted.forward(x) * 2
            def export():
                return torch.export.export(Outer(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = torch.jit.script(Inner())
                def forward(self, x):
                    scripted = self.inner._c  # expect: XPT413
                    return scripted.forward(x) * 2
            def export():
                return torch.export.export(Outer(), (torch.randn(4),), strict=False)
            """,
        ),
    ]


def _script_object(node: cst.Attribute, value_of: Callable[[cst.BaseExpression], Value]) -> bool:
    """`<submodule>._c`: the C++ object behind a scripted submodule.

    Not `self._c` (a module's own attribute of that name) nor the `_c` of a number."""
    if node.attr.value != "_c" or (isinstance(node.value, cst.Name) and node.value.value == "self"):
        return False
    # a tensor has no `_c`; the dataflow takes what `torch.jit.script(...)` returns for one
    return not value_of(node.value).has(Kind.DATA | Kind.SHAPE)
