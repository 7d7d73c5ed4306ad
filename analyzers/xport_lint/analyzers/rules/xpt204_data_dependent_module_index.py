from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..dataflow import Kind, is_tensor_like, walk_statements
from ..model import Applicability, Mode, Severity
from ..names import dotted
from ..positions import code_of
from ..report import FixProposal
from ..rewrites import dense_select_rewrite, sliced_layers_rewrite
from ..rewrites.common import scope_names
from ..rewrites.predicates import data_bindings, tensor_value
from ..rule import Invalid, Rule, TorchError, Valid
from ..walk import iter_nodes
from ._conditions import short

if TYPE_CHECKING:
    from ..context import RuleContext


#: dict methods that hash their first argument
_DICT_LOOKUPS = frozenset({"get", "setdefault", "pop"})


class DataDependentModuleIndex(Rule):
    """A submodule chosen by a number read from tensor data (`self.experts[best]`, `best` from `.item()`).

    ## What it does
    Flags indexing a module container (`nn.ModuleList`, `nn.ModuleDict`, `nn.Sequential`) with
    a Python number read from tensor data (`.item()`, `int(t)`, `.tolist()`), or with a key
    spelt from one (`self.heads[f"h{int(i)}"]`, `self.heads[str(int(i))]`); and indexing a plain Python list or tuple (a
    local bound to a display, or a `self.` attribute `__init__` sets once to one) with such a
    number: Python picks the entry while tracing as well (measured on torch 2.13, both modes).
    Also a `dict` so bound indexed by such a number, or looked up by one (`.get(key)`,
    `.setdefault`, `.pop`, `key in d`: non-strict export cannot hash the symbol), a
    module container sliced by one (`self.layers[:depth.item()]`), and `getattr(self, f"expert{i}")`
    with the name spelt from one (strict export refuses a name it cannot know).

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
    computes all of them (the cost of top-1 routing becomes that of all experts). An entry of a
    list of number literals that is an operand of tensor arithmetic, `x * self.scales[i]`,
    becomes `torch.tensor(self.scales).index_select(0, i.reshape(1)).squeeze(0)` with `i` bound to
    the tensor read (measured on torch 2.13: both modes export and equal eager; `[i]` of the
    tensor fails strict, which reads a 0-dim index as a Python int); it assumes the index is in
    range (Python raises where it is not). A loop over a module container sliced by such a number,
    `for layer in self.layers[:depth]: x = layer(x)` (assignments to tensors bound before it),
    runs every layer and keeps the results below the bound, `for index, layer in
    enumerate(self.layers): x = torch.where(index < depth, layer(x), x)`, with `depth` bound to the
    tensor read (measured on torch 2.13: both modes export and equal eager); it assumes the bound
    is not negative and each layer keeps the shapes, and it computes every layer.

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
            # a dict's key: the symbol is no hashable number
            TorchError("TypeError", "unhashable type"),
            # `getattr(self, f"expert{k.item()}")` looks up the symbol's name, `expertu0`
            TorchError("AttributeError", "u0"),
        ),
        Mode.STRICT: (
            TorchError("UserError", "Could not extract specialized integer from data-dependent expression"),
            TorchError("Unsupported", "Failed to trace builtin operator"),
            TorchError("Unsupported", "getattr() with non-constant name argument"),
        ),
    }

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        #: picked modules reported with their call (visited first: the fix replaces the call)
        self._called: set[int] = set()
        #: id(a `for` loop's iterable) -> the loop
        self._loops: dict[int, cst.For] = {}

    def visit_Call(self, node: cst.Call) -> None:
        self._named_by_data(node)
        self._looked_up_by_data(node)
        if not isinstance(node.func, cst.Subscript) or self._data_index(node.func) is None:
            return
        if not self.ctx.value(node.func.value).has(Kind.MODULE):
            return  # an entry of a plain list called: reported as the subscript it is
        self._called.add(id(node.func))
        message = self._message(node.func)
        fix = None
        if isinstance(self._data_index(node.func), cst.FormattedString) or self._spelt_key(node.func.slice[0].slice.value) is not None:  # type: ignore[attr-defined]
            message += " (no automatic fix: the key is a string spelt from the number)"
        elif self.ctx.flow is not None and self.ctx.traced is not None:
            rewrite = dense_select_rewrite(self.ctx.flow, self.ctx.traced.func, node)
            fix = rewrite.fix
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
        self.report(self._data_index(node.func), message, fix=fix)  # type: ignore[arg-type]

    def _looked_up_by_data(self, node: cst.Call) -> None:
        """`self.cache.get(key)` (`setdefault`, `pop`) of a dict `__init__` sets, `key` a number
        read from data (or a tuple of them): the lookup hashes the symbol (measured on torch 2.13:
        "unhashable type: non-nested SymInt" non-strict, "Could not extract specialized integer"
        strict; diffusers' Wan RoPE cache keyed by offsets read with `.item()`)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _DICT_LOOKUPS and node.args
                and node.args[0].keyword is None and not node.args[0].star
                and isinstance(func.value, (cst.Attribute, cst.Name))):
            return
        key = node.args[0].value
        value = self.ctx.value(key)
        if not value.has(Kind.DATA) or is_tensor_like(value) or not isinstance(self._display(func.value), cst.Dict):
            return
        self.report(key, f"`{short(node)}` looks a Python dict up by `{short(key)}`, a number read from tensor data:"
                    " export cannot hash the symbol (no automatic fix: key the cache by something export knows,"
                    " or compute the entry every call)")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """`key in self.cache`, `key` a number read from data: the same lookup (see _looked_up_by_data)."""
        left = node.left
        for target in node.comparisons:
            holder = target.comparator
            if isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(holder, (cst.Attribute, cst.Name)):
                value = self.ctx.value(left)
                if value.has(Kind.DATA) and not is_tensor_like(value) and isinstance(self._display(holder), cst.Dict):
                    self.report(left, f"`{short(node)}` looks a Python dict up by `{short(left)}`, a number read from"
                                " tensor data: export cannot hash the symbol (no automatic fix: key the cache by"
                                " something export knows, or compute the entry every call)")
            left = holder

    def _named_by_data(self, node: cst.Call) -> None:
        """`getattr(self, f"expert{int(k)}")`: an attribute named by a number read from data (measured
        on torch 2.13: non-strict fails at the conversion, strict at formatting the symbol)."""
        if not (isinstance(node.func, cst.Name) and node.func.value == "getattr" and len(node.args) >= 2
                and self.ctx.resolve(node.func) is None and not any(a.star for a in node.args)):
            return
        name = node.args[1].value
        flow = self.ctx.flow
        for _ in range(4):  # `value = f"expert{k.item()}"`, `_h(...)`: the string it names
            followed = (flow.bound_once(name.value) if isinstance(name, cst.Name) else flow.inlined(name)
                        if isinstance(name, cst.Call) else None) if flow is not None else None
            if followed is None or followed is name:
                break
            name = followed
        parts = [p.expression for p in name.parts if isinstance(p, cst.FormattedStringExpression)] \
            if isinstance(name, cst.FormattedString) else []
        spelt = self._spelt_key(name)
        if spelt is not None:
            parts.append(spelt.args[0].value)
        if any(self.ctx.value(p).has(Kind.DATA) and not is_tensor_like(self.ctx.value(p)) for p in parts):
            self.report(name, f"`{short(node)}` picks an attribute by `{short(name)}`, a name spelt from a number read"
                        " from tensor data (no automatic fix: no tensor selects an attribute; keep the modules in a"
                        " `ModuleList` and run them all)")

    def _sliced_by_data(self, node: cst.Subscript) -> None:
        """`self.layers[:depth]`, `depth` read from data: Python slices the container while tracing."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
            return
        bounds = [b for b in (node.slice[0].slice.lower, node.slice[0].slice.upper, node.slice[0].slice.step) if b]
        read = next((b for b in bounds if self.ctx.value(b).has(Kind.DATA) and not is_tensor_like(self.ctx.value(b))),
                    None)
        if read is None or not self.ctx.value(node.value).has(Kind.MODULE):
            return
        loop = self._loops.get(id(node))
        rewrite = sliced_layers_rewrite(self.ctx.flow, self.ctx.traced.func, loop) if (
            loop is not None and self.ctx.flow is not None and self.ctx.traced is not None) else None
        fix = rewrite.fix if rewrite is not None else None
        self.report(read, f"`{short(node)}` slices a module container by `{short(read)}`, a number read from tensor"
                    " data" + ("" if fix else " (no automatic fix: the layers run depend on the data; run every layer"
                               " and keep the output of those below the bound with `torch.where`)"), fix=fix)

    def visit_For(self, node: cst.For) -> None:
        self._loops[id(node.iter)] = node

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._sliced_by_data(node)
        index = self._data_index(node)
        if index is not None and id(node) not in self._called:
            if self.ctx.value(node.value).has(Kind.MODULE):
                reason = (" (no automatic fix: the picked module is not called where it is picked; the fix rewrites"
                          f" `{short(node)}(...)` called in one expression)")
                fix = None
            else:
                fix = self._table_fix(node, index)
                reason = "" if fix is not None else (
                    " (no automatic fix: the entries may be anything, or the entry is not an operand of tensor"
                    " arithmetic; a list of numbers made a tensor, `torch.tensor(values)[i]` with `i` the tensor"
                    " read, selects in the graph)")
            self.report(index, self._message(node) + reason, fix=fix)

    def _table_fix(self, node: cst.Subscript, index: cst.BaseExpression) -> FixProposal | None:
        """`x * self.scales[i]`, a list of number literals indexed by a number read from data and
        the entry an operand of tensor arithmetic: `torch.tensor(self.scales).index_select(0,
        i.reshape(1)).squeeze(0)` selects in the graph, with `i` bound to the tensor it is read from
        (measured on torch 2.13: exports in both modes and equals eager; a 0-dim tensor operand
        keeps the other's dtype as the Python number did)."""
        flow, traced = self.ctx.flow, self.ctx.traced
        holder = node.value
        display = self._display(holder) if isinstance(holder, (cst.Attribute, cst.Name)) else None
        if flow is None or traced is None or not isinstance(display, (cst.List, cst.Tuple)) or not display.elements:
            return None
        if not all(isinstance(e.value, (cst.Integer, cst.Float)) for e in display.elements):
            return None
        operand = any(
            isinstance(n, cst.BinaryOperation) and not isinstance(n.operator, (cst.MatrixMultiply, cst.Power))
            and any(side is node and is_tensor_like(self.ctx.value(other))
                    for side, other in ((n.left, n.right), (n.right, n.left)))
            for n in iter_nodes(traced.func.body)
        )
        if not operand:
            return None
        # the index read is the one replaced (`_h(t)` of a one-line helper reads `t` itself)
        exempt = (flow.inlined(index) if isinstance(index, cst.Call) else None) or index
        bound = data_bindings(flow, traced.func, [node], exempt=exempt)
        tensor = tensor_value(flow, index, bound)
        if tensor is None or not isinstance(tensor, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return None
        names = scope_names(flow)
        # `index_select`, not `[i]`: strict export reads a 0-dim index tensor as a Python int (XPT203)
        table = cst.parse_expression(
            f"{names.torch}.tensor({code_of(holder)}).index_select(0, {code_of(tensor)}.reshape(1)).squeeze(0)"
        )
        return FixProposal("Index a tensor of the list's numbers by the tensor read (assumes the index is in range)",
                           Applicability.UNSAFE, ((node, table), *bound.values()), imports=names.imports)

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
        spelt = self._spelt_key(index)
        if spelt is not None:
            # `self.heads[str(int(flag))]`: a key spelt by `str()` from a number read from data
            value = value | self.ctx.value(spelt.args[0].value)
        return index if value.has(Kind.DATA) and not is_tensor_like(value) else None

    def _spelt_key(self, index: cst.BaseExpression) -> cst.Call | None:
        """The `str(n)` call `index` is, names (bound once) and one-line helpers followed."""
        flow = self.ctx.flow
        for _ in range(4):
            if _spelt(index):
                return index  # type: ignore[return-value]
            if flow is None:
                return None
            if isinstance(index, cst.Name):
                bound = flow.bound_once(index.value)
            elif isinstance(index, cst.Call):
                bound = flow.inlined(index)
            else:
                return None
            if bound is None:
                return None
            index = bound
        return None

    def _python_sequence(self, holder: cst.Attribute | cst.Name) -> bool:
        """A plain list or tuple: a local bound once to a display, or a `self.` attribute that
        `__init__` sets once, to a display (`self.temperatures = [0.5, 1.0, 2.0]`). Python
        indexes it while tracing, so it needs a concrete index, as a module container does
        (measured on torch 2.13, both modes: "Could not extract specialized integer")."""
        return self._display(holder) is not None

    def _display(self, holder: cst.Attribute | cst.Name) -> cst.BaseExpression | None:
        """The list, tuple or list comprehension `holder` is bound to (see `_python_sequence`)."""
        flow = self.ctx.flow
        if flow is None:
            return None
        displays = (cst.List, cst.Tuple, cst.ListComp, cst.Dict)
        if isinstance(holder, cst.Name):
            bound = flow.bound_once(holder.value)
            return bound if isinstance(bound, displays) else None
        if not (isinstance(holder.value, cst.Name) and holder.value.value == "self" and flow.cls is not None):
            return None
        init = next((s for s in flow.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
                    None)
        if init is None:
            return None
        written = f"self.{holder.attr.value}"
        values = [
            statement.value
            for statement in walk_statements(init.body) if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign))
            for target in (
                [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
            )
            if dotted(target) == written
        ]
        return values[0] if len(values) == 1 and isinstance(values[0], displays) else None

    def _message(self, node: cst.Subscript) -> str:
        index = self._data_index(node)
        assert index is not None
        what = "a submodule" if self.ctx.value(node.value).has(Kind.MODULE) else (
            "an entry of a Python dict" if isinstance(self._display(node.value), cst.Dict)  # type: ignore[arg-type]
            else "an entry of a Python list")
        if isinstance(index, cst.FormattedString) or self._spelt_key(index) is not None:
            return f"`{short(node)}` picks {what} by `{short(index)}`, a key spelt from a number read from tensor data"
        return f"`{short(node)}` picks {what} by `{short(index)}`, a number read from tensor data"

    VALID = [
        Valid(
            """
            import torch
            class ShapeCache(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cache = {}
                def forward(self, x):
                    key = x.shape[0]  # a size: export knows it
                    found = self.cache.get(key)
                    if found is None:
                        found = torch.ones(key)
                    return x + found
            def xport_example():
                return ShapeCache(), (torch.randn(3),)
            """
        ),
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
            class RopeCache(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cache = {}
                def forward(self, x, offsets):
                    key = tuple(offsets.tolist())
                    freqs = self.cache.get(key)  # expect: XPT204
                    if freqs is None:
                        freqs = x * 2
                    return freqs
            def xport_example():
                return RopeCache(), (torch.randn(3), torch.tensor([1, 2, 3]))
            """
        ),
        Invalid(
            """
            import torch
            class Seen(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.seen = {}
                def forward(self, x, ids):
                    if ids.max().item() in self.seen:  # expect: XPT204
                        return x
                    return x + 1
            def xport_example():
                return Seen(), (torch.randn(3), torch.tensor([1, 2, 3]))
            """
        ),
        Invalid(
            """
            import torch
            class Depth(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 3) for _ in range(4))
                def forward(self, x, depth):
                    for layer in self.layers[:depth.item()]:  # expect: XPT204
                        x = layer(x)
                    return x
            def xport_example():
                return Depth(), (torch.randn(2, 3), torch.tensor(2))
            """,
            expected_replacement="""
            import torch
            class Depth(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 3) for _ in range(4))
                def forward(self, x, depth):
                    for index, layer in enumerate(self.layers):  # expect: XPT204
                        x = torch.where(index < depth, layer(x), x)
                    return x
            def xport_example():
                return Depth(), (torch.randn(2, 3), torch.tensor(2))
            """,
            other_args="(torch.randn(2, 3), torch.tensor(4))",
        ),
        Invalid(
            """
            import torch
            class Named(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.expert0 = torch.nn.Linear(4, 4)
                    self.expert1 = torch.nn.Linear(4, 4)
                def forward(self, x, k):
                    return getattr(self, f"expert{k.item()}")(x)  # expect: XPT204
            def xport_example():
                return Named(), (torch.randn(2, 4), torch.tensor(1))
            """
        ),
        Invalid(
            """
            import torch
            class Remap(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.table = {0: 3, 1: 2, 2: 1, 3: 0}
                def forward(self, x, i):
                    return x * self.table[i.item()]  # expect: XPT204
            def xport_example():
                return Remap(), (torch.randn(3), torch.tensor(2))
            """
        ),
        Invalid(
            """
            import torch
            class Temper(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.temperatures = [0.5, 1.0, 2.0]
                def forward(self, logits, level):
                    t = level.item()
                    return logits / self.temperatures[t]  # expect: XPT204
            def xport_example():
                return Temper(), (torch.randn(2, 3), torch.tensor(2))
            """,
            expected_replacement="""
            import torch
            class Temper(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.temperatures = [0.5, 1.0, 2.0]
                def forward(self, logits, level):
                    t = level
                    return logits / torch.tensor(self.temperatures).index_select(0, t.reshape(1)).squeeze(0)  # expect: XPT204
            def xport_example():
                return Temper(), (torch.randn(2, 3), torch.tensor(2))
            """,
        ),
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
