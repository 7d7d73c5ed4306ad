"""A `while` on a tensor as `torch.while_loop`; a loop over a dynamic size as `scan`."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from ..dataflow import FunctionFlow, is_tensor_like
from ..model import Applicability
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from .common import Rewrite, bound_before, comment_of, function_def, statement_of, strip_leading, tuple_text, usage_of
from .export_calls import sized_dim


def _carry_problem(flow: FunctionFlow, carried: Sequence[str], available: Sequence[str]) -> str | None:
    """Why a loop's assigned names cannot be the state of a torch loop op (tensors, bound
    before the loop), or None."""
    for name in carried:
        value = flow.env.get(name)
        if value is None or not is_tensor_like(value):
            return f"the loop carries `{name}`, which is not a tensor"
        if name not in available:
            return f"`{name}` is first assigned inside the loop"
    return None if carried else "the loop assigns nothing (a loop that fills a list needs a vectorised op)"


def while_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.While) -> Rewrite:
    """`while tensor_test: body` -> `torch.while_loop`, when the loop carries only tensors."""
    if node.orelse is not None:
        return Rewrite(reason="the loop has an `else`")
    if not isinstance(node.body, cst.IndentedBlock):
        return Rewrite(reason="the loop is written on one line")
    if isinstance(node.test, cst.BooleanOperation):
        return Rewrite(reason="the condition mixes tests with `and`/`or`")
    body = list(node.body.body)
    usage = usage_of(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a torch.while_loop body must be pure, and {usage.problem or 'it returns'}")
    carried = usage.stored
    problem = _carry_problem(flow, carried, bound_before(func, node))
    if problem:
        return Rewrite(reason=problem)
    names = tuple_text(carried)
    lowered = [
        function_def("cond_fn", carried, [statement_of(f"return {code_of(node.test)}")], comment_of(node.body)),
        function_def("body_fn", carried, [*strip_leading(body), statement_of(f"return {names}")]),
        statement_of(f"{names} = torch.while_loop(cond_fn, body_fn, {names})"),
    ]
    return Rewrite(
        fix=FixProposal(
            "Rewrite as torch.while_loop (assumes the carried tensors keep their shapes)",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


class _SliceAt(cst.CSTTransformer):
    """`x[:, ..., t]` (the counter at dimension `dim`, full slices before it) -> `x_t`."""

    def __init__(self, tensor: str, counter: str, dim: int, name: str) -> None:
        self.tensor, self.counter, self.dim, self.name = tensor, counter, dim, name

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        items = updated.slice
        target = updated.value
        if not (isinstance(target, cst.Name) and target.value == self.tensor and len(items) == self.dim + 1):
            return updated
        last = items[-1].slice
        if not (isinstance(last, cst.Index) and isinstance(last.value, cst.Name) and last.value.value == self.counter):
            return updated
        for item in items[:-1]:
            full = item.slice
            if not (isinstance(full, cst.Slice) and full.lower is None and full.upper is None and full.step is None):
                return updated
        return cst.Name(self.name)


def range_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite:
    """`for t in range(x.size(d)): h = f(x[:, t], h)` -> torch's `scan` over dimension `d` of
    `x`: one step function in the graph for every length instead of one copy per step."""
    if not (isinstance(node.iter, cst.Call) and len(node.iter.args) == 1 and node.iter.args[0].keyword is None):
        return Rewrite(reason="the loop is not `range(size)` with one argument")
    sized = sized_dim(node.iter.args[0].value)
    if sized is None or not isinstance(node.target, cst.Name):
        return Rewrite(reason="the loop is not `for t in range(x.size(d))` over a named tensor")
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return Rewrite(reason="the loop has an `else` or is written on one line")
    tensor, dim = sized
    counter = node.target.value
    body = list(node.body.body)
    usage = usage_of(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a scan step must be pure, and {usage.problem or 'it returns'}")
    if counter in usage_of([func.body], skip=node).loaded:
        return Rewrite(reason=f"the loop variable `{counter}` is read after the loop")
    name = f"{tensor}_{counter}"
    everything = set(usage_of([func.body]).loaded) | set(bound_before(func, node))
    if name in everything:
        return Rewrite(reason=f"`{name}` (the name for one step's slice) is already taken")
    sliced = [stmt.visit(_SliceAt(tensor, counter, dim, name)) for stmt in body]
    after = usage_of(sliced)
    if counter in after.loaded or counter in after.stored:
        return Rewrite(reason=f"`{counter}` is used other than as `{tensor}[{':, ' * dim}{counter}]`")
    if tensor in after.stored:
        return Rewrite(reason=f"the loop reassigns `{tensor}`")
    carried = after.stored
    problem = _carry_problem(flow, carried, bound_before(func, node))
    if problem:
        return Rewrite(reason=problem)
    one = len(carried) == 1
    state = carried[0] if one else f"({', '.join(carried)})"
    unpack = [] if one else [statement_of(f"{', '.join(carried)} = carry")]
    lowered = [
        function_def(
            "step_fn",
            [carried[0] if one else "carry", name],
            [*unpack, *strip_leading(sliced), statement_of(f"return {state}, ()")],
            comment_of(node.body),
        ),
        statement_of(f"{state}, _ = torch._higher_order_ops.scan(step_fn, {state}, {tensor}, dim={dim})"),
    ]
    return Rewrite(
        fix=FixProposal(
            "Rewrite as a scan over the dimension (torch's prototype `scan` op; assumes the carried "
            "tensors keep their shapes)",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


# -- torch._check for validation branches -----------------------------------------------------
