from __future__ import annotations

import libcst as cst

from ..dataflow import Kind
from ..model import Mode, Severity
from ..names import dotted
from ..rewrites import class_loop_rewrite, counted_loop_rewrite
from ..rewrites.loops import CLASS_REASON
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short


class DataDependentLoop(Rule):
    """A `for` loop whose trip count depends on tensor data.

    ## What it does
    Flags `for` loops (and comprehensions) over `range(n)` where `n` came from `.item()`/`.tolist()`
    or is a tensor computed in the function (`range(valid)`, `valid = (lengths > 0).sum()`:
    `range()` reads its value; a parameter as passed is left out, callers often pass an int),
    and loops over tensors whose length is data-dependent (the rows of `x.nonzero()`,
    `x[mask]`); either stepped through by `zip(...)` or `enumerate(...)` too
    (`zip(range(int(depth)), self.layers)` fails as `range(int(depth))` does).

    ## Why it fails torch.export
    Python unrolls the loop while tracing, so it must know the trip count, but `n` is an unbacked
    symbol: export raises `GuardOnDataDependentSymNode` ("Could not extract specialized integer
    from data-dependent expression u0"); strict export fails on `range()` of a tensor with
    `Unsupported: Failed to trace builtin operator`.

    ## Example
    ```python
    for i in range(count.item()):
        ...
    ```

    ## Use instead
    Vectorise over the whole tensor (masks, `torch.where`, `scatter`), or loop over a static
    bound and mask the extra iterations; `torch.while_loop` for genuinely dynamic loops.

    ## Fix safety
    Unsafe: `for i in range(n)`, with `n` read from a tensor (`steps.item()`, `int(n)`, a name
    bound to one), becomes `torch.while_loop` over an int64 tensor counter compared with the
    tensor itself (from `start` for `range(start, n)`, `start` not read from data); `x[i]` in the
    body becomes `x.index_select(0, i.reshape(1)).squeeze(0)`.
    Measured on torch 2.13: exports in both modes and equals eager. It assumes the tensors the
    loop carries keep their shapes, and that the counter is used only as `x[i]` or in
    arithmetic (it is refused otherwise). The same through a one-line helper of the file
    (`range(_count(steps))`, `def _count(t): return int(t.item())`): the helper's `return` is
    read at the call.

    `for i, c in enumerate(counts.tolist()): for _ in range(c): rows.append(x[i])`, with `rows`
    only stacked after, becomes `rows = x.repeat_interleave(counts, dim=0)` (measured on torch
    2.13: exports in both modes, equal to eager). It assumes one count per row of `x`; where every
    count is 0 it gives an empty tensor where eager's `torch.stack([])` raises.

    `for c in torch.unique(labels): t[c] = x[labels == c].mean(0)` (or `sum`, `amax`, `amin`,
    `prod`), `t` a tensor with a row per class, becomes one `t.scatter_reduce_(0, index, x,
    reduce="mean", include_self=False)`: every class at once, a class the data lacks keeps its
    row as in the loop; `t[c] += x[labels == c].sum(0)` becomes `t.index_add_(0, labels, x)`.
    Measured on torch 2.13: exports in both modes and equals eager. It assumes `t` and `x` share
    a dtype (`scatter_reduce_` does not cast; the loop's assignment does).

    No fix for other loops over a tensor whose length is data (`torch.unique(labels)` filling a
    list, `x[mask]`): how many steps it takes is the data itself; the finding's note says what to
    write instead.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT201"
    NAME = "data-dependent-loop"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode (specialized integer)"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"), TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),),
        Mode.STRICT: (TorchError("UserError", "Could not extract specialized integer from data-dependent expression"), TorchError("UserError", "Could not guard on data-dependent expression"), TorchError("Unsupported", "Failed to trace builtin operator"),),
    }

    def visit_For(self, node: cst.For) -> None:
        self._check(node.iter, node)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._check(node.iter, None)

    def _check(self, iterable: cst.BaseExpression, loop: cst.For | None, within: str | None = None) -> None:
        """`within`: the `zip(...)`/`enumerate(...)` that steps through `iterable`, if any."""
        if isinstance(iterable, cst.Call) and dotted(iterable.func) == "range":
            for arg in iterable.args:
                value = self.ctx.value(arg.value)
                read = value.has(Kind.DATA | Kind.DD_SIZE) and not value.has(Kind.TENSOR)
                if read or self._tensor_count(arg.value):
                    message = (
                        f"range(`{short(arg.value)}`) has a trip count read from tensor data" if read else
                        f"range(`{short(arg.value)}`) reads its trip count from the value of a tensor"
                    )
                    fix = None
                    if within is not None:
                        message += f" (no automatic fix: the loop steps through `{within}`; the rewrite takes `range()` alone)"
                    elif loop is not None and self.ctx.flow is not None and self.ctx.traced is not None:
                        rewrite = counted_loop_rewrite(self.ctx.flow, self.ctx.traced.func, loop)
                        fix = rewrite.fix
                        if rewrite.reason:
                            message += f" (no automatic fix: {rewrite.reason})"
                    self.report(arg.value, message, fix=fix)
                    return
            return
        if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)):
            return  # `for x in (query, key, value)`: as many steps as written, whatever they hold
        if (
            isinstance(iterable, cst.Call) and dotted(iterable.func) in ("zip", "enumerate")
            and self.ctx.resolve(iterable.func) is None
        ):
            # `zip(range(int(depth)), self.layers)`: each iterable is stepped through, and one whose
            # length is data fails as it does alone (measured on torch 2.13, both modes); the
            # loop rewrites take a loop over one iterable, so no fix
            for arg in iterable.args:
                if arg.keyword is None and not arg.star:
                    self._check(arg.value, None, short(iterable))
            return
        value = self.ctx.value(iterable)
        if value.has(Kind.DD_TENSOR):
            message = f"loop over `{short(iterable)}`, whose length depends on tensor data"
            rewrite = None
            if loop is not None and self.ctx.flow is not None and self.ctx.traced is not None:
                rewrite = class_loop_rewrite(self.ctx.flow, self.ctx.traced.func, loop)
            if within is not None:
                message += f" (no automatic fix: the loop steps through `{within}`: {_why_no_fix(iterable)})"
            elif rewrite is None or rewrite.fix is None:
                message += f" (no automatic fix: {_why_no_fix(iterable)})"
            self.report(iterable, message, fix=None if rewrite is None else rewrite.fix)

    def _tensor_count(self, arg: cst.BaseExpression) -> bool:
        """`range(valid)`, `valid = (lengths > 0).sum()`: range() calls the tensor's `__index__`,
        a read of its value (a tensor built from Python numbers is a constant, and what a
        submodule or unknown call returns may be no tensor: neither counts). A parameter as
        passed is left out: `forward(self, outputs, targets, group_detr)` is a tensor only by
        the entry-point convention, and callers pass an int (transformers' DETR matchers)."""
        value = self.ctx.value(arg)
        flow = self.ctx.flow
        if flow is None or isinstance(arg, cst.Name) and flow.bound_once(arg.value) is None:
            return False
        return value.has(Kind.TENSOR) and not value.has(Kind.STRUCTURE | Kind.MODULE) and not flow.constant_tensor(arg)

    VALID = [
        Valid(
            """
            import torch
            class Pairs(torch.nn.Module):
                def forward(self, x):
                    kept = x[x > 0]
                    total = x.sum()
                    for part in (kept, x):  # two steps, whatever sizes they have
                        total = total + part.sum()
                    return total
            def xport_example():
                return Pairs(), (torch.randn(6),)
            """
        ),
        Valid(
            """
            import torch
            class Heads(torch.nn.Module):
                def forward(self, x):
                    return torch.stack([x[:, i].relu() for i in range(4)], 1)
            def xport_example():
                return Heads(), (torch.randn(2, 4),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Repeat(torch.nn.Module):
                def forward(self, x, times):
                    out = x
                    for _ in range(times.item()):  # expect: XPT201
                        out = out + x
                    return out
            def xport_example():
                return Repeat(), (torch.randn(3), torch.tensor(2))
            """,
            expected_replacement="""
            import torch
            class Repeat(torch.nn.Module):
                def forward(self, x, times):
                    out = x
                    def cond_fn(step, out):  # expect: XPT201
                        return step < times
                    def body_fn(step, out):
                        out = out + x
                        return (step + 1, out)
                    (_, out) = torch.while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), out))
                    return out
            def xport_example():
                return Repeat(), (torch.randn(3), torch.tensor(2))
            """,
            other_args="(torch.randn(3), torch.tensor(0))",
        ),
        Invalid(
            """
            import torch
            class Accumulate(torch.nn.Module):
                def forward(self, x, lengths):
                    valid = (lengths > 0).sum()
                    total = torch.zeros_like(x[0])
                    for b in range(valid):  # expect: XPT201
                        total = total + x[b]
                    return total
            def xport_example():
                return Accumulate(), (torch.randn(3, 2), torch.tensor([2, 1, 0]))
            """,
            expected_replacement="""
            import torch
            class Accumulate(torch.nn.Module):
                def forward(self, x, lengths):
                    valid = (lengths > 0).sum()
                    total = torch.zeros_like(x[0])
                    def cond_fn(b, total):  # expect: XPT201
                        return b < valid
                    def body_fn(b, total):
                        total = total + x.index_select(0, b.reshape(1)).squeeze(0)
                        return (b + 1, total)
                    (b, total) = torch.while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), total))
                    return total
            def xport_example():
                return Accumulate(), (torch.randn(3, 2), torch.tensor([2, 1, 0]))
            """,
            other_args="(torch.randn(3, 2), torch.tensor([1, 1, 1]))",
        ),
        Invalid(
            """
            import torch
            class Expand(torch.nn.Module):
                def forward(self, x, counts):
                    rows = []
                    for i, c in enumerate(counts.tolist()):
                        for _ in range(c):  # expect: XPT201
                            rows.append(x[i])
                    return torch.stack(rows)
            def xport_example():
                return Expand(), (torch.randn(3, 4), torch.tensor([1, 0, 2]))
            """,
            expected_replacement="""
            import torch
            class Expand(torch.nn.Module):
                def forward(self, x, counts):
                    rows = x.repeat_interleave(counts, dim=0)
                    return rows
            def xport_example():
                return Expand(), (torch.randn(3, 4), torch.tensor([1, 0, 2]))
            """,
            other_args="(torch.randn(3, 4), torch.tensor([2, 3, 1]))",
        ),
        Invalid(
            """
            import torch
            class ClassMeans(torch.nn.Module):
                def forward(self, x, labels):
                    means = []
                    for c in torch.unique(labels):  # expect: XPT201
                        means.append(x[labels == c].mean(0))
                    return torch.stack(means)
            def xport_example():
                return ClassMeans(), (torch.randn(6, 4), torch.tensor([0, 1, 1, 2, 0, 2]))
            """
        ),
        Invalid(
            """
            import torch
            class Hist(torch.nn.Module):
                def forward(self, x, labels):
                    counts = labels.bincount(minlength=2)
                    total = x.new_zeros(())
                    for c in counts:  # expect: XPT201
                        total = total + c * x.sum()
                    return total
            def xport_example():
                return Hist(), (torch.randn(2, 3), torch.tensor([0, 1, 1]))
            """
        ),
        Invalid(
            """
            import torch
            class ClassCentres(torch.nn.Module):
                def forward(self, x, labels):
                    centres = torch.zeros(4, x.shape[1])
                    for c in torch.unique(labels):  # expect: XPT201
                        centres[c] = x[labels == c].mean(0)
                    return centres
            def xport_example():
                return ClassCentres(), (torch.randn(6, 4), torch.tensor([0, 1, 1, 3, 0, 3]))
            """,
            expected_replacement="""
            import torch
            class ClassCentres(torch.nn.Module):
                def forward(self, x, labels):
                    centres = torch.zeros(4, x.shape[1])
                    centres.scatter_reduce_(0, labels.reshape((-1,) + (1,) * (x.dim() - 1)).expand_as(x), x, reduce="mean", include_self=False)
                    return centres
            def xport_example():
                return ClassCentres(), (torch.randn(6, 4), torch.tensor([0, 1, 1, 3, 0, 3]))
            """,
            other_args="(torch.randn(6, 4), torch.tensor([2, 2, 1, 0, 0, 2]))",
        ),
        Invalid(
            """
            import torch
            class ClassTotals(torch.nn.Module):
                def forward(self, x, labels):
                    totals = torch.zeros(3)
                    for c in labels.unique():  # expect: XPT201
                        totals[c] += x[labels == c].sum(0)
                    return totals
            def xport_example():
                return ClassTotals(), (torch.randn(5), torch.tensor([2, 0, 2, 2, 0]))
            """,
            expected_replacement="""
            import torch
            class ClassTotals(torch.nn.Module):
                def forward(self, x, labels):
                    totals = torch.zeros(3)
                    totals.index_add_(0, labels, x)
                    return totals
            def xport_example():
                return ClassTotals(), (torch.randn(5), torch.tensor([2, 0, 2, 2, 0]))
            """,
            other_args="(torch.randn(5), torch.tensor([1, 1, 0, 2, 1]))",
        ),
        Invalid(
            """
            import torch
            class PerDetection(torch.nn.Module):
                def forward(self, boxes, scores):
                    areas = []
                    for box in boxes[scores > 0.5]:  # expect: XPT201
                        areas.append((box[2] - box[0]) * (box[3] - box[1]))
                    return torch.stack(areas)
            def xport_example():
                return PerDetection(), (torch.rand(6, 4), torch.rand(6))
            """
        ),
    ]


def _why_no_fix(iterable: cst.BaseExpression) -> str:
    """Why a loop over a tensor of data-dependent length gets no rewrite."""
    called = iterable.func if isinstance(iterable, cst.Call) else None
    name = called.attr.value if isinstance(called, cst.Attribute) else called.value if isinstance(called, cst.Name) else ""
    if name in ("unique", "unique_consecutive"):
        return CLASS_REASON
    if name == "bincount":
        return "its steps are the values up to the largest the data holds; compute on the counts as one tensor"
    return (
        "its steps are the rows the data keeps; compute over every row and mask the ones it drops "
        "(`torch.where`), or gather them with a bounded size"
    )
