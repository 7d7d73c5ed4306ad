from __future__ import annotations

import libcst as cst

from ..context import RuleContext
from ..dataflow import Kind, Value, is_tensor_like
from ..model import Mode, Severity
from ..rewrites import class_loop_rewrite, masked_write_rewrite
from ..rewrites.predicates import uncarried
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

#: tensor methods (and torch functions) whose number of outputs is their size argument's doing
_SPLITTERS = frozenset({"split", "chunk", "tensor_split"})
#: the keyword that names that argument
_COUNT_KEYWORDS = frozenset({"split_size", "split_size_or_sections", "chunks", "sections", "indices_or_sections"})


class DataDependentCount(Rule):
    """A number of Python objects read from tensor data: `x.split(n.item())`, `dd.tolist()`.

    ## What it does
    Flags `split`, `chunk` and `tensor_split` (method or `torch.` function) given a Python number read from
    tensor data (`.item()`, `int(t)`, or arithmetic of one with a static size, `x.shape[0] //
    int(n)`, bound to a name or returned by a one-line helper) as the piece size or count, and `.tolist()` of a tensor
    whose length depends on data (`nonzero`, `x[mask]`, `unique_consecutive(...,
    return_counts=True)`), and a list or tuple repeated by such a number (`[self.block] *
    depth.item()`).

    ## Why it fails torch.export
    Export traces the Python, which must know how many tensors `split` returns and how long a
    list is (a list repeated `n` times is `n` long). A piece size read from data makes the count `(size + n - 1) // n` of an unbacked
    symbol, and the length of a data-dependent tensor is one: export raises
    `GuardOnDataDependentSymNode` ("Could not extract specialized integer" or "Could not guard
    on data-dependent expression Eq(u0, 0)") in both modes. A list of sizes is fine:
    `torch.split(t, lengths.tolist(), dim=2)` exports in both modes when `lengths` has a
    static length (`grid.prod(-1) // 4`, `mask.sum(-1)`), each size an unbacked symbol that
    export checks at run time (measured on torch 2.13).

    ## Example
    ```python
    parts = x.split(n.item())
    counts = torch.unique_consecutive(ids, return_counts=True)[1]
    pieces = torch.split(t, counts.tolist())
    ```

    ## Use instead
    Give `split` a list of sizes read from a tensor of static length, or keep the grouping a
    tensor (`segment_reduce`, `index_add`, `scatter_reduce` over `ids`).

    ## Fix safety
    No automatic fix for a number of pieces: the static number is the author's knowledge. A loop
    over the classes as numbers, `for c in labels.unique().tolist(): t[c] = x[labels ==
    c].sum(0)`, gets XPT201's rewrite of the same loop over `labels.unique()` (one
    `scatter_reduce_` or `index_add_` into the rows of `t`, under the same assumptions).

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT205"
    NAME = "data-dependent-count"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode"
    FAILS_WITH = {
        Mode.NON_STRICT: (
            TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"),
            TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),
        ),
        Mode.STRICT: (
            TorchError("UserError", "Could not extract specialized integer from data-dependent expression"),
            TorchError("UserError", "Could not guard on data-dependent expression"),
        ),
    }

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        #: id(a `for` loop's iterable) -> the loop
        self._loops: dict[int, cst.For] = {}

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """`[self.block] * int(depth.item())`: a list (or tuple) repeated by a number read from data."""
        if not isinstance(node.operator, cst.Multiply):
            return
        for sequence, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(sequence, cst.Name) and self.ctx.flow is not None:
                sequence = self.ctx.flow.bound_once(sequence.value) or sequence  # `part = [self.block]`
            if not isinstance(sequence, (cst.List, cst.Tuple, cst.ListComp)):
                continue
            value = self.ctx.value(count)
            # `[w] * (n // w)` (or `n * [w]`) with `n` a tensor: the list reads the count through
            # `__index__`, the tensor's data (a tensor does not multiply a list)
            by_tensor = is_tensor_like(value) and not value.has(Kind.SHAPE | Kind.STRUCTURE)
            if not by_tensor and (not value.has(Kind.DATA) or value.has(Kind.TENSOR | Kind.SHAPE)):
                return
            flow = self.ctx.flow
            if self.ctx.mode is Mode.NON_STRICT and flow is not None and uncarried(flow, count):
                return  # non-strict export fails on the `int()` first (XPT203 says so there)
            self.report(node, f"`{short(node)}` repeats a list `{short(count)}` times, a number read from tensor data")
            return

    def visit_For(self, node: cst.For) -> None:
        self._loops[id(node.iter)] = node

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method == "tolist":
            receiver = self.ctx.value(func.value)
            if receiver.has(Kind.DD_TENSOR) and not node.args:
                loop, fix = self._loops.get(id(node)), None
                if loop is not None and self.ctx.flow is not None and self.ctx.traced is not None:
                    # `for c in labels.unique().tolist(): t[c] = ...`: the classes as numbers, as a
                    # loop over the tensor steps through them (XPT201's rewrite)
                    fix = class_loop_rewrite(self.ctx.flow, self.ctx.traced.func, loop).fix
                    # `for b, t in mask.nonzero().tolist(): x[b, t] = 0`: one write through the mask
                    written = masked_write_rewrite(self.ctx.flow, self.ctx.traced.func, loop) if fix is None else None
                    fix = written.fix if written is not None else fix
                why = "" if fix is not None else (" (no automatic fix: a Python list of a length read from data has"
                                                  " no graph form; keep the work on the tensor it is read from)")
                self.report(node, f"`{short(node)}` makes a list whose length depends on tensor data{why}", fix=fix)
            return
        if method not in _SPLITTERS:
            return
        qualified = self.ctx.resolve(func)
        if qualified in ("torch.split", "torch.chunk", "torch.functional.split", "torch.tensor_split"):
            position = 1
        elif qualified is None and is_tensor_like(self.ctx.value(func.value)):
            position = 0
        else:
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        keyword = [a for a in node.args if a.keyword is not None and a.keyword.value in _COUNT_KEYWORDS]
        size = keyword[0] if keyword else (positional[position] if len(positional) > position else None)
        if size is None:
            return
        value = self.ctx.value(size.value)
        if not value.has(Kind.DATA) or _is_list(size.value, value):
            return
        if value.has(Kind.SHAPE) and not self._arithmetic(size.value):
            return  # a static size with it: one number only where arithmetic makes it (`[k, n - k]` is a list)
        self.report(node, f"`{short(node)}`: the number of pieces depends on `{short(size.value)}`, read from tensor "
                    "data (no automatic fix: a graph has a fixed number of outputs)")

    def _arithmetic(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """`x.shape[0] // int(n)`, written here, bound once to a name or returned by a one-line
        helper or method: arithmetic of numbers, one number (lists added or repeated are not)."""
        flow = self.ctx.flow
        if flow is not None and depth < 4:
            seen = flow.bound_once(expr.value) if isinstance(expr, cst.Name) else (
                flow.inlined(expr) if isinstance(expr, cst.Call) else None)
            if seen is not None:
                return self._arithmetic(seen, depth + 1)
        return isinstance(expr, cst.BinaryOperation) and not any(
            isinstance(side, (cst.List, cst.Tuple, cst.ListComp)) for side in (expr.left, expr.right)
        )

    VALID = [
        Valid(
            """
            import torch
            class Cut(torch.nn.Module):
                def forward(self, x, k):
                    return x.tensor_split([k.item()], dim=1)[0].sum() + x.tensor_split(3, dim=1)[1].sum()
            def xport_example():
                return Cut(), (torch.randn(2, 6), torch.tensor(2))
            """
        ),
        Valid(
            """
            import torch
            class Sections(torch.nn.Module):
                def forward(self, x, n):
                    k = n.item()
                    sections = [k, x.shape[0] - k]
                    return x.split(sections)[1]
            def xport_example():
                return Sections(), (torch.randn(6, 2), torch.tensor(2))
            """
        ),
        Valid(
            """
            import torch
            class PerImage(torch.nn.Module):
                def forward(self, tokens, grid):
                    lengths = grid.prod(-1) // 4
                    parts = torch.split(tokens, lengths.tolist(), dim=0)
                    return torch.stack([p.mean(0) for p in parts])
            def xport_example():
                return PerImage(), (torch.randn(12, 4), torch.tensor([[2, 2], [2, 4]]))
            """
        ),
        Valid(
            """
            import torch
            class PerRow(torch.nn.Module):
                def forward(self, t, mask):
                    sizes = mask.sum(-1).tolist()
                    return t.split(sizes, dim=2)[0]
            def xport_example():
                mask = torch.tensor([[1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0]])
                return PerRow(), (torch.randn(1, 2, 6), mask)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Stack(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.block = torch.nn.Linear(4, 4)
                def forward(self, x, depth):
                    for layer in [self.block] * depth.item():  # expect: XPT205
                        x = layer(x)
                    return x
            def xport_example():
                return Stack(), (torch.randn(2, 4), torch.tensor(2))
            """
        ),
        Invalid(
            """
            import torch
            class Halves(torch.nn.Module):
                def forward(self, x, n):
                    size = x.shape[0] // int(n)
                    return x.split(size)[0]  # expect: XPT205
            def xport_example():
                return Halves(), (torch.randn(6, 2), torch.tensor(3))
            def export():
                return torch.export.export(Halves(), (torch.randn(6, 2), torch.tensor(3)), strict=True)
            """
        ),
        Invalid(
            """
            import torch
            class Pieces(torch.nn.Module):
                def forward(self, x, n):
                    parts = x.split(n.item())  # expect: XPT205
                    return parts[0]
            def xport_example():
                return Pieces(), (torch.randn(6), torch.tensor(2))
            """
        ),
        Invalid(
            """
            import torch
            class Pieces(torch.nn.Module):
                def forward(self, x, n):
                    k = n.item()
                    first, *rest = torch.split(x, split_size_or_sections=k)  # expect: XPT205
                    return first
            def xport_example():
                return Pieces(), (torch.randn(6), torch.tensor(2))
            """
        ),
        Invalid(
            """
            import torch
            class Sections(torch.nn.Module):
                def forward(self, x, k):
                    return torch.tensor_split(x, sections=int(k), dim=1)[0]  # expect: XPT205
            def xport_example():
                return Sections(), (torch.randn(2, 6), torch.tensor(2))
            def export():
                return torch.export.export(Sections(), (torch.randn(2, 6), torch.tensor(2)), strict=True)
            """
        ),
        Invalid(
            """
            import torch
            class Sections(torch.nn.Module):
                def forward(self, x, k):
                    sections = x.shape[1] // k.item()
                    return x.tensor_split(sections, dim=1)[0]  # expect: XPT205
            def xport_example():
                return Sections(), (torch.randn(2, 6), torch.tensor(2))
            """
        ),
        Invalid(
            """
            import torch
            class Chunks(torch.nn.Module):
                def forward(self, x, n):
                    return x.chunk(n.item())[0]  # expect: XPT205
            def xport_example():
                return Chunks(), (torch.randn(6), torch.tensor(2))
            """
        ),
        Invalid(
            """
            import torch
            class Runs(torch.nn.Module):
                def forward(self, t, ids):
                    counts = torch.unique_consecutive(ids, return_counts=True)[1]
                    return torch.split(t, counts.tolist(), dim=2)[0]  # expect: XPT205
            def xport_example():
                return Runs(), (torch.randn(1, 2, 6), torch.tensor([0, 0, 1, 1, 1, 2]))
            """
        ),
    ]


def _is_list(expr: cst.BaseExpression, value: Value) -> bool:
    """A list of sizes (`lengths.tolist()`, `[a, b]`), not one size: how many pieces is its length."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    origin = value.origin
    return (
        isinstance(origin, cst.Call) and isinstance(origin.func, cst.Attribute) and origin.func.attr.value == "tolist"
    )
