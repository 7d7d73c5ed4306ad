from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..dataflow import Kind, is_tensor_like
from ..model import Mode, Severity
from ..rewrites import dense_select_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

if TYPE_CHECKING:
    from ..context import RuleContext


class DataDependentModuleIndex(Rule):
    """A submodule chosen by a number read from tensor data (`self.experts[best]`, `best` from `.item()`).

    ## What it does
    Flags indexing a module container (`nn.ModuleList`, `nn.ModuleDict`, `nn.Sequential`) with
    a Python number read from tensor data (`.item()`, `int(t)`, `.tolist()`).

    ## Why it fails torch.export
    Python picks the module while tracing, so it needs the index as a concrete number, and under
    export the number is an unbacked symbol. Non-strict export raises
    `GuardOnDataDependentSymNode`; strict export fails on the same guard (measured on torch
    2.13, hard top-1 routing of a mixture of experts).

    ## Example
    ```python
    best = self.gate(x.mean(0)).argmax().item()
    return self.experts[best](x)
    ```

    ## Use instead
    Run every module and select the result with the tensor index:
    `torch.stack([e(x) for e in self.experts]).index_select(0, best.reshape(1)).squeeze(0)`
    (`best` the tensor, without `.item()`), or mask-and-sum routing over all experts.

    ## Fix safety
    Unsafe: a picked module called right away, `self.experts[best](x)`, becomes
    `torch.stack([module(x) for module in self.experts]).index_select(0, best.reshape(1)).squeeze(0)`,
    and `best = t.item()` (read only there) becomes `best = t`. Measured on torch 2.13: exports
    in both modes and equals eager. It assumes every module returns the same shape, and it
    computes all of them (the cost of top-1 routing becomes that of all experts).

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT204"
    NAME = "data-dependent-module-index"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"),),
        Mode.STRICT: (TorchError("UserError", "Could not extract specialized integer from data-dependent expression"),),
    }

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        #: picked modules reported with their call (visited first: the fix replaces the call)
        self._called: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Subscript) or self._data_index(node.func) is None:
            return
        self._called.add(id(node.func))
        message = self._message(node.func)
        fix = None
        if self.ctx.flow is not None and self.ctx.traced is not None:
            rewrite = dense_select_rewrite(self.ctx.flow, self.ctx.traced.func, node)
            fix = rewrite.fix
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
        self.report(self._data_index(node.func), message, fix=fix)  # type: ignore[arg-type]

    def visit_Subscript(self, node: cst.Subscript) -> None:
        index = self._data_index(node)
        if index is not None and id(node) not in self._called:
            reason = (" (no automatic fix: the picked module is not called where it is picked; the fix rewrites"
                      f" `{short(node)}(...)` called in one expression)")
            self.report(index, self._message(node) + reason)

    def _data_index(self, node: cst.Subscript) -> cst.BaseExpression | None:
        """The index of `modules[index]` when it is a number read from tensor data."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        # cheap tests first: this runs on every subscript of traced code
        if isinstance(index, (cst.Integer, cst.SimpleString, cst.UnaryOperation)):
            return None
        if not isinstance(node.value, (cst.Attribute, cst.Name)) or not self.ctx.value(node.value).has(Kind.MODULE):
            return None
        value = self.ctx.value(index)
        return index if value.has(Kind.DATA) and not is_tensor_like(value) else None

    def _message(self, node: cst.Subscript) -> str:
        index = self._data_index(node)
        assert index is not None
        return f"`{short(node)}` picks a submodule by `{short(index)}`, a number read from tensor data"

    VALID = [
        Valid(
            """
            import torch
            class Stack(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
                def forward(self, x):
                    for i in range(len(self.layers)):
                        x = self.layers[i](x)
                    return x
            def xport_example():
                return Stack(), (torch.randn(3, 4),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class HardRoute(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(4, 2)
                    self.experts = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
                def forward(self, x):
                    best = self.gate(x.mean(0)).argmax().item()
                    return self.experts[best](x)  # expect: XPT204
            def xport_example():
                return HardRoute(), (torch.randn(3, 4),)
            """,
            expected_replacement="""
            import torch
            class HardRoute(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(4, 2)
                    self.experts = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
                def forward(self, x):
                    best = self.gate(x.mean(0)).argmax()
                    return torch.stack([module(x) for module in self.experts]).index_select(0, best.reshape(1)).squeeze(0)  # expect: XPT204
            def xport_example():
                return HardRoute(), (torch.randn(3, 4),)
            """,
            other_args="(-torch.randn(3, 4) * 5,)",
        ),
    ]
