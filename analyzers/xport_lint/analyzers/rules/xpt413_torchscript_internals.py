from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..dataflow import Kind, Value
from ..model import Mode, Severity
from ..rewrites import non_strict_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..symbols import init_assignments
from ._conditions import short


class TorchscriptInternals(Rule):
    """A TorchScript module's C++ object (`self.encoder._c`), or a scripted or traced submodule, used in traced code.

    ## What it does
    Flags the `_c` attribute of a submodule read in traced code (`self.inner._c.forward(x)`):
    the C++ `torch.ScriptObject` behind a `torch.jit.script`-ed or loaded module. Flags a call
    of a submodule that `__init__` made with `torch.jit.script(Module(...))` or
    `torch.jit.trace(Module(...), ...)` (`self.inner(x)`, `self.inner.forward(x)`); a scripted
    function is not a module and exports.

    ## Why it fails torch.export
    Strict export (Dynamo) refuses to trace into TorchScript, even only reading `_c`: `Unsupported: torch.jit.script/freeze
    modules unsupported` (measured on torch 2.13); a traced module's call: `Attempted to inline
    function marked as skipped`. Non-strict export runs the code behind `_c` and a traced
    module on its fake tensors and exports them, but calling a scripted module fails there too
    (`TypeError: Inner.forward() takes 2 positional arguments but 3 were given`, torch 2.13).

    ## Example
    ```python
    return self.inner._c.forward(x)
    ```

    ## Use instead
    Export the eager module the script was made from (keep it beside the scripted one), or
    export non-strict where that exports (`_c`, a traced module).

    ## Fix safety
    Unsafe: `strict=True` becomes `strict=False` at the file's export calls (non-strict export
    runs the scripted module as is). It assumes the rest of the model exports non-strict too. No
    fix when strict mode comes from the configuration rather than from a call in the file, nor
    for a scripted submodule called (non-strict export fails on it as well).

    ## Modes
    Error in strict export; in non-strict export, an error only on a scripted submodule called.
    """

    CODE = "XPT413"
    NAME = "torchscript-internals"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported (Dynamo): torch.jit.script/freeze modules unsupported"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("TypeError", "positional arguments but"),),
        Mode.STRICT: (
            TorchError("Unsupported", "torch.jit.script/freeze modules unsupported"),
            TorchError("Unsupported", "Attempted to inline function marked as skipped"),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        made_by = self._jit_submodule(node.func)
        if made_by is None:
            return
        strict = self.ctx.mode is Mode.STRICT
        if made_by == "torch.jit.script":
            why = ("strict export does not trace TorchScript" if strict
                   else "non-strict export fails calling it (a TypeError on torch 2.13)")
            message = (f"`{short(node.func)}` is a module made by `torch.jit.script`, which {why} (no automatic fix: "
                       "export the eager module it was made from)")
            self.report(node.func, message)
        elif strict:
            rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
            message = f"`{short(node.func)}` is a module made by `torch.jit.trace`, which strict export does not trace"
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
            self.report(node.func, message, fix=rewrite.fix)

    def _jit_submodule(self, func: cst.BaseExpression) -> str | None:
        """"torch.jit.script" | "torch.jit.trace" where `func` is `self.<name>` or
        `self.<name>.forward` and `__init__` set `self.<name>` to that applied to a module
        instance (a class called: one in this file, or of `torch.nn`)."""
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        traced = self.ctx.traced
        if (
            traced is None or traced.cls is None or not isinstance(func, cst.Attribute)
            or not isinstance(func.value, cst.Name) or func.value.value != "self"
        ):
            return None
        made = init_assignments(traced.cls.node).get(func.attr.value)
        if not isinstance(made, cst.Call) or not made.args:
            return None
        maker = self.ctx.resolve(made.func)
        if maker not in ("torch.jit.script", "torch.jit.trace"):
            return None
        instance = made.args[0].value
        if not isinstance(instance, cst.Call):
            return None
        classes = {s.name.value for s in self.ctx.program.module.body if isinstance(s, cst.ClassDef)}
        made_of = self.ctx.resolve(instance.func) or ""
        local = isinstance(instance.func, cst.Name) and instance.func.value in classes
        if local or (made_of.startswith("torch.nn.") and made_of.rpartition(".")[2][:1].isupper()):
            return maker
        return None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.ctx.mode is not Mode.STRICT or not _script_object(node, self.ctx.value):
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
        Valid(
            """
            import torch
            def shift(x):
                return x + 1
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.shift = torch.jit.script(shift)
                def forward(self, x):
                    return self.shift(x) * 2
            def xport_example():
                return Outer(), (torch.randn(4),)
            """
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
                    self.inner = torch.jit.trace(Inner(), torch.randn(4))
                def forward(self, x):
                    return self.inner(x) * 2
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
                    return self.inner(x) * 2  # expect: XPT413
            def xport_example():
                return Outer(), (torch.randn(4),)
            """
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
                    self.inner = torch.jit.trace(Inner(), torch.randn(4))
                def forward(self, x):
                    return self.inner.forward(x) * 2  # expect: XPT413
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
                    self.inner = torch.jit.trace(Inner(), torch.randn(4))
                def forward(self, x):
                    return self.inner.forward(x) * 2  # expect: XPT413
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
