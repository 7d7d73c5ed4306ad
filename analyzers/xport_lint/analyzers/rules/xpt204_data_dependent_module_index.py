from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..dataflow import Kind, is_tensor_like, walk_statements
from ..model import Mode, Severity
from ..names import dotted
from ..rewrites import dense_select_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

if TYPE_CHECKING:
    from ..context import RuleContext


class DataDependentModuleIndex(Rule):
    """A submodule chosen by a number read from tensor data (`self.experts[best]`, `best` from `.item()`).

    ## What it does
    Flags indexing a module container (`nn.ModuleList`, `nn.ModuleDict`, `nn.Sequential`) with
    a Python number read from tensor data (`.item()`, `int(t)`, `.tolist()`), or with a key
    spelt from one (`self.heads[f"h{int(i)}"]`, `self.heads[str(int(i))]`); and indexing a plain Python list or tuple (a
    local bound to a display, or a `self.` attribute `__init__` sets once to one) with such a
    number: Python picks the entry while tracing as well (measured on torch 2.13, both modes).

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
        Mode.NON_STRICT: (
            TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"),
            # `str()` of the symbol spells its name: the key looked up is "u0"
            TorchError("KeyError", "u0"),
        ),
        Mode.STRICT: (
            TorchError("UserError", "Could not extract specialized integer from data-dependent expression"),
            TorchError("Unsupported", "Failed to trace builtin operator"),
        ),
    }

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        #: picked modules reported with their call (visited first: the fix replaces the call)
        self._called: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Subscript) or self._data_index(node.func) is None:
            return
        if not self.ctx.value(node.func.value).has(Kind.MODULE):
            return  # an entry of a plain list called: reported as the subscript it is
        self._called.add(id(node.func))
        message = self._message(node.func)
        fix = None
        if isinstance(self._data_index(node.func), cst.FormattedString) or _spelt(node.func.slice[0].slice.value):  # type: ignore[attr-defined]
            message += " (no automatic fix: the key is a string spelt from the number)"
        elif self.ctx.flow is not None and self.ctx.traced is not None:
            rewrite = dense_select_rewrite(self.ctx.flow, self.ctx.traced.func, node)
            fix = rewrite.fix
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
        self.report(self._data_index(node.func), message, fix=fix)  # type: ignore[arg-type]

    def visit_Subscript(self, node: cst.Subscript) -> None:
        index = self._data_index(node)
        if index is not None and id(node) not in self._called:
            if self.ctx.value(node.value).has(Kind.MODULE):
                reason = (" (no automatic fix: the picked module is not called where it is picked; the fix rewrites"
                          f" `{short(node)}(...)` called in one expression)")
            else:
                reason = (" (no automatic fix: the entries may be anything; a list of numbers made a tensor,"
                          " `torch.tensor(values)[i]` with `i` the tensor read, selects in the graph)")
            self.report(index, self._message(node) + reason)

    def _data_index(self, node: cst.Subscript) -> cst.BaseExpression | None:
        """The index of `modules[index]` when it is a number read from tensor data."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        # cheap tests first: this runs on every subscript of traced code
        if isinstance(index, (cst.Integer, cst.SimpleString, cst.UnaryOperation)):
            return None
        if not isinstance(node.value, (cst.Attribute, cst.Name)):
            return None
        if not (self.ctx.value(node.value).has(Kind.MODULE) or self._python_sequence(node.value)):
            return None
        value = self.ctx.value(index)
        if isinstance(index, cst.FormattedString):
            # `self.heads[f"h{int(which.item())}"]`: a key spelt from a number read from data
            for part in index.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    value = value | self.ctx.value(part.expression)
        if _spelt(index):
            # `self.heads[str(int(flag))]`: a key spelt by `str()` from a number read from data
            value = value | self.ctx.value(index.args[0].value)  # type: ignore[attr-defined]
        return index if value.has(Kind.DATA) and not is_tensor_like(value) else None

    def _python_sequence(self, holder: cst.Attribute | cst.Name) -> bool:
        """A plain list or tuple: a local bound once to a display, or a `self.` attribute that
        `__init__` sets once, to a display (`self.temperatures = [0.5, 1.0, 2.0]`). Python
        indexes it while tracing, so it needs a concrete index, as a module container does
        (measured on torch 2.13, both modes: "Could not extract specialized integer")."""
        flow = self.ctx.flow
        if flow is None:
            return False
        displays = (cst.List, cst.Tuple, cst.ListComp)
        if isinstance(holder, cst.Name):
            return isinstance(flow.bound_once(holder.value), displays)
        if not (isinstance(holder.value, cst.Name) and holder.value.value == "self" and flow.cls is not None):
            return False
        init = next((s for s in flow.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
                    None)
        if init is None:
            return False
        written = f"self.{holder.attr.value}"
        values = [
            statement.value
            for statement in walk_statements(init.body) if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign))
            for target in (
                [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
            )
            if dotted(target) == written
        ]
        return len(values) == 1 and isinstance(values[0], displays)

    def _message(self, node: cst.Subscript) -> str:
        index = self._data_index(node)
        assert index is not None
        what = "a submodule" if self.ctx.value(node.value).has(Kind.MODULE) else "an entry of a Python list"
        if isinstance(index, cst.FormattedString) or _spelt(index):
            return f"`{short(node)}` picks {what} by `{short(index)}`, a key spelt from a number read from tensor data"
        return f"`{short(node)}` picks {what} by `{short(index)}`, a number read from tensor data"

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
            class Dispatch(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.heads = torch.nn.ModuleDict({"0": torch.nn.Linear(4, 2), "1": torch.nn.Linear(4, 2)})
                def forward(self, x, flag):
                    return self.heads[str(flag.item())](x)  # expect: XPT204
            def xport_example():
                return Dispatch(), (torch.randn(3, 4), torch.tensor(1))
            """
        ),
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


def _spelt(index: cst.BaseExpression) -> bool:
    """`str(n)`: a key spelt from one value."""
    return (isinstance(index, cst.Call) and isinstance(index.func, cst.Name) and index.func.value == "str"
            and len(index.args) == 1 and not index.args[0].star)
