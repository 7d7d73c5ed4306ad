from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..dataflow import Kind, is_tensor_like
from ..model import Mode, Severity
from ..names import dotted
from ..rewrites import range_loop_rewrite, stacked_rows_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import SizeRef, judge_loop, judge_pieces
from ..syntax import argument, integer_literal
from ._conditions import short
from ._guards import statement_line

if TYPE_CHECKING:
    from ..context import RuleContext


class ShapeLoop(Rule):
    """A `for` loop over `range()` of a tensor's size, or a tensor split into one piece per index of a dynamic dimension: export fixes the size.

    ## What it does
    Flags `for`/comprehension loops over `range(x.size(0))`, `range(len(x))`,
    `range(x.shape[1])` and the like in traced code; and a tensor split into one piece per
    index of an input's dimension: `x.unbind(d)`, `torch.unbind(x, d)`, `for row in x`, `[f(r)
    for r in x]`, `list(x)`, `tuple(x)`, `x.split(1, d)`, `x.chunk(n, d)` with `n` read from a
    size (also of a tensor computed from the input, where the ops keep that dimension).

    ## Why it fails torch.export
    Python runs the loop while tracing, so the graph holds exactly as many copies of the body
    as the example's size, and a guard fixing that size. Splitting a tensor into pieces hands
    Python one object per index, as many as the example's size, with the same guard (measured
    on torch 2.13: both modes fail under a named `Dim` or `Dim.DYNAMIC`). Other sizes are rejected (static
    shapes) or raise `ConstraintViolationError` (a `Dim` on that size).

    ## Example
    ```python
    for t in range(x.size(1)):
        h = self.cell(x[:, t], h)
    ```

    ## Use instead
    A vectorised op over the dimension (`cumsum`, `einsum`, a batched matmul), `torch.scan`-like
    higher-order ops, or a fixed maximum length with masking.

    ## Fix safety
    Unsafe, and offered only in files that export with `dynamic_shapes` (with static shapes the
    unrolled loop is exact). A loop `for t in range(x.size(d))` whose body reads `x` only as
    `x[:, ..., t]` and reassigns only tensors becomes torch's `scan` over dimension `d`
    (`torch._higher_order_ops.scan`, a prototype op in torch 2.13): one step function serves
    every length. Per-step outputs collected as `outputs = []`, `outputs.append(y)`,
    `torch.stack(outputs, dim)` become scan's stacked outputs (measured: scan stacks them on
    the scanned dimension; a `.movedim` puts them where `torch.stack` did). A loop over
    `range(n)` whose body reads rows of several tensors by the counter (`a[:, :, t]`,
    `c[:, t, :]`, as state-space models' recurrences do) scans them together: each narrowed to
    its first `n` rows and moved to the front, so the rows stepped are the ones the loop read;
    a name each step assigns before reading it is the step's own, not carried. A comprehension
    `torch.stack([f(x[i]) for i in range(len(x))])` whose `f` is elementwise (arithmetic,
    `relu`, `exp`, `clamp`, ...) becomes `f(x)`, the same rows computed at once; any other
    `f` becomes a scan over the rows (carrying a dummy `torch.zeros(())`, as scan needs a
    carry; measured to export in both modes and equal eager), and so does a `for` loop that only
    fills such a list (`outs.append(self.head(x[i]))`: the submodule called once per row,
    whatever it does across a batch). It assumes
    the carried tensors keep their shapes from step to step, which scan requires. Loops that
    `break`, index with the counter in any other way, read it afterwards or fill lists used
    otherwise get no fix; the diagnostic says why. A tensor split into pieces gets none: the
    rewrite is a vectorised op over the dimension, which depends on what is done with each piece.

    ## Modes
    The severity follows how the model is exported (both modes, torch 2.13): nothing for a static
    dimension (the unrolled loop is exact); a warning for `Dim.AUTO` (export silently fixes the
    size to the example's); an error for `Dim.DYNAMIC` or a named `Dim` (export fixes the size
    and fails: "specialized it to be a constant"). See XPT301 for where the declaration is read.
    """

    CODE = "XPT302"
    NAME = "shape-loop"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SEVERITY_FROM_SHAPES = True
    PYTORCH_NAME = "specialisation (unrolled loop)"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("UserError", "Constraints violated"),),
        Mode.STRICT: (TorchError("UserError", "Constraints violated"),),
    }

    def visit_For(self, node: cst.For) -> None:
        self._check(node.iter, node)
        self._pieces(node.iter, node.iter, 0)  # `for row in x`

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._stacks: dict[int, cst.Call] = {}

    def visit_Call(self, node: cst.Call) -> None:
        # `torch.stack([... for i in range(len(x))])`: the comprehension the stack consumes
        name = dotted(node.func)
        if name == "torch.stack" and node.args and isinstance(node.args[0].value, cst.ListComp):
            self._stacks[id(node.args[0].value.for_in)] = node
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if (method is not None and method not in _PIECES) or any(arg.star for arg in node.args):
            return  # `a.b.f(...)` can split only as a method named so: most traced calls are not
        function = self.ctx.resolve(node.func) or name
        if function in _TORCH_PIECES and node.args:
            tensor, rest, kind = node.args[0].value, node.args[1:], function.rpartition(".")[2]
        elif isinstance(node.func, cst.Attribute) and method in _PIECES:
            tensor, rest, kind = node.func.value, node.args, method
        elif name in ("list", "tuple") and len(node.args) == 1:
            tensor, rest, kind = node.args[0].value, (), "unbind"
        else:
            return
        if kind == "unbind":
            dim = argument(rest, 0, "dim")
            self._pieces(node, tensor, 0 if dim is None else integer_literal(dim))
        elif kind == "split" and (size := argument(rest, 0, "split_size")) is not None and integer_literal(size) == 1:
            dim = argument(rest, 1, "dim")
            self._pieces(node, tensor, 0 if dim is None else integer_literal(dim))
        elif kind == "chunk" and (count := argument(rest, 0, "chunks")) is not None:
            self._counted(node, tensor, count)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._check(node.iter, None, self._stacks.get(id(node)))
        self._pieces(node.iter, node.iter, 0)  # `[f(row) for row in x]`

    def _pieces(self, node: cst.CSTNode, tensor: cst.BaseExpression, dim: int | None) -> None:
        """Report `node`, which splits `tensor` into one piece per index of its dimension `dim`,
        where that dimension is an input's kept dynamic."""
        if dim is None or not self.ctx.shape_config().any_dynamic():
            return  # every size is static: as many pieces each run
        sizes = self.ctx.sizes()
        if sizes is None or not is_tensor_like(self.ctx.value(tensor)):
            return
        if dim < 0:
            rank = sizes.rank(tensor)
            dim = dim + rank if rank is not None and dim >= -rank else None
        ref = sizes.dim_of(tensor, dim) if dim is not None else None
        if ref is not None:
            self._report_pieces(node, [ref], f"one piece per index of `{ref[0]}.shape[{ref[2]}]`")

    def _counted(self, node: cst.Call, tensor: cst.BaseExpression, count: cst.BaseExpression) -> None:
        """`x.chunk(n)` with `n` read from an input's size: as many pieces as that size."""
        if not self.ctx.shape_config().any_dynamic():
            return
        sizes = self.ctx.sizes()
        if sizes is None or not is_tensor_like(self.ctx.value(tensor)):
            return
        refs = sizes.refs(count)
        if refs:
            self._report_pieces(node, refs, f"as many pieces as `{short(count)}`")

    def _report_pieces(self, node: cst.CSTNode, refs: list[SizeRef], what: str) -> None:
        verdict = judge_pieces(refs, self.ctx.shape_config())
        if verdict.severity is not None:
            self.report(
                node, f"`{short(node)}` makes {what}: {verdict.reason} (no automatic fix: use a vectorised op over "
                "the dimension)", severity=verdict.severity, notes=verdict.notes,
            )

    def _check(self, iterable: cst.BaseExpression, loop: cst.For | None, stack: cst.Call | None = None) -> None:
        if not (isinstance(iterable, cst.Call) and dotted(iterable.func) == "range"):
            return
        for arg in iterable.args:
            value = self.ctx.value(arg.value)
            if value.has(Kind.SHAPE) and not value.has(Kind.DATA | Kind.DD_SIZE | Kind.TENSOR):
                config = self.ctx.shape_config()  # with every size static, the loop runs alike each time
                verdict = judge_loop(arg.value, self.ctx.sizes() if config.any_dynamic() else None, config)
                if verdict.severity is None:
                    return
                message = f"loop over range(`{short(arg.value)}`) is unrolled for one size: {verdict.reason}"
                fix = None
                # as for XPT301: with static shapes every size is fixed, so unrolling is exact
                dynamic = self.ctx.mentions("dynamic_shapes") or self.ctx.shape_config().any_dynamic()
                if dynamic and self.ctx.flow and self.ctx.traced:
                    if loop is None and stack is None:
                        message += " (no automatic fix: a comprehension builds a list; use a vectorised op)"
                    else:
                        rewrite = (
                            range_loop_rewrite(self.ctx.flow, self.ctx.traced.func, loop) if loop is not None
                            else stacked_rows_rewrite(
                                self.ctx.flow, self.ctx.traced.func, stack, statement_line(self.ctx)  # type: ignore[arg-type]
                            )
                        )
                        if rewrite.reason:
                            message += f" (no automatic fix: {rewrite.reason})"
                        fix = rewrite.fix
                self.report(arg.value, message, fix=fix, severity=verdict.severity, notes=verdict.notes)
                return

    VALID = [
        Valid(
            """
            import torch
            class Stack(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))
                def forward(self, x):
                    for i in range(len(self.layers)):
                        x = self.layers[i](x)
                    return x
            def xport_example():
                return Stack(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import torch
            class RNN(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.GRUCell(4, 8)
                def forward(self, x):
                    h = x.new_zeros(x.size(0), 8)
                    # static shapes (no dynamic_shapes): the unrolled loop is exact
                    for t in range(x.size(1)):
                        h = self.cell(x[:, t], h)
                    return h
            def xport_example():
                return RNN(), (torch.randn(2, 3, 4),)
            """
        ),
        Valid(
            """
            import torch
            class PairSum(torch.nn.Module):
                def forward(self, x):
                    return torch.stack([x[i] + x[i + 1] for i in range(len(x) - 1)])
            def xport_example():
                return PairSum(), (torch.randn(4, 2),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Rows(torch.nn.Module):
                def forward(self, x):
                    return sum(x.unbind(0))  # expect: XPT302
            def xport_example():
                return {"model": Rows(), "args": (torch.randn(8, 16),), "dynamic_shapes": {"x": {0: Dim("b")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class GRUEncoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.GRUCell(4, 8)
                def forward(self, x):
                    h = x.new_zeros(x.size(0), 8)
                    for t in range(x.size(1)):  # expect: XPT302
                        h = self.cell(x[:, t], h)
                    return h
            def xport_example():
                return {"model": GRUEncoder(), "args": (torch.randn(2, 3, 4),), "dynamic_shapes": {"x": {1: Dim.AUTO}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class GRUEncoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.GRUCell(4, 8)
                def forward(self, x):
                    h = x.new_zeros(x.size(0), 8)
                    def step_fn(h, x_t):  # expect: XPT302
                        h = self.cell(x_t, h)
                        return h, ()
                    h, _ = torch._higher_order_ops.scan(step_fn, h, x, dim=1)
                    return h
            def xport_example():
                return {"model": GRUEncoder(), "args": (torch.randn(2, 3, 4),), "dynamic_shapes": {"x": {1: Dim.AUTO}}}
            """,
            other_args="(torch.randn(2, 5, 4),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class LSTMDecoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.LSTMCell(4, 8)
                    self.out = torch.nn.Linear(8, 4)
                def forward(self, tokens, h, c):
                    # one step per position: unrolled for the example's length
                    for step in range(tokens.shape[1]):  # expect: XPT302
                        h, c = self.cell(tokens[:, step], (h, c))
                        h = h + self.out(h).mean()
                    return self.out(h), c
            def xport_example():
                seq = {1: Dim.AUTO}
                args = (torch.randn(2, 3, 4), torch.zeros(2, 8), torch.zeros(2, 8))
                return {"model": LSTMDecoder(), "args": args, "dynamic_shapes": {"tokens": seq, "h": None, "c": None}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class LSTMDecoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.LSTMCell(4, 8)
                    self.out = torch.nn.Linear(8, 4)
                def forward(self, tokens, h, c):
                    # one step per position: unrolled for the example's length
                    def step_fn(carry, tokens_step):  # expect: XPT302
                        h, c = carry
                        h, c = self.cell(tokens_step, (h, c))
                        h = h + self.out(h).mean()
                        return (h, c), ()
                    (h, c), _ = torch._higher_order_ops.scan(step_fn, (h, c), tokens, dim=1)
                    return self.out(h), c
            def xport_example():
                seq = {1: Dim.AUTO}
                args = (torch.randn(2, 3, 4), torch.zeros(2, 8), torch.zeros(2, 8))
                return {"model": LSTMDecoder(), "args": args, "dynamic_shapes": {"tokens": seq, "h": None, "c": None}}
            """,
            other_args="(torch.randn(2, 6, 4), torch.randn(2, 8), torch.randn(2, 8))",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class PairSum(torch.nn.Module):
                def forward(self, x):
                    return torch.stack([x[i] + x[i + 1] for i in range(len(x) - 1)])  # expect: XPT302
            def xport_example():
                return {"model": PairSum(), "args": (torch.randn(4, 2),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
            """,
            other_args="(torch.randn(6, 2),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Frames(torch.nn.Module):
                def forward(self, video):
                    # one entry per frame: the number of frames becomes a constant
                    return torch.stack([video[:, t].mean(-1) for t in range(video.shape[1])], 1)  # expect: XPT302
            def xport_example():
                return {"model": Frames(), "args": (torch.randn(2, 3, 4),), "dynamic_shapes": {"video": {1: Dim("frames")}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Tagger(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.RNNCell(3, 4)
                def forward(self, x):
                    h = torch.zeros(x.shape[0], 4)
                    outputs = []
                    for t in range(x.size(1)):  # expect: XPT302
                        h = self.cell(x[:, t], h)
                        outputs.append(h)
                    return torch.stack(outputs, 1)
            def xport_example():
                return {"model": Tagger(), "args": (torch.randn(2, 5, 3),), "dynamic_shapes": ({1: Dim("seq")},)}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Tagger(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.RNNCell(3, 4)
                def forward(self, x):
                    h = torch.zeros(x.shape[0], 4)
                    outputs = []
                    def step_fn(h, x_t):  # expect: XPT302
                        h = self.cell(x_t, h)
                        return h, h.clone()
                    h, outputs = torch._higher_order_ops.scan(step_fn, h, x, dim=1)
                    return outputs
            def xport_example():
                return {"model": Tagger(), "args": (torch.randn(2, 5, 3),), "dynamic_shapes": ({1: Dim("seq")},)}
            """,
            other_args="(torch.randn(2, 8, 3),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Recurrence(torch.nn.Module):
                def forward(self, x, readout):
                    batch, width, length = x.shape
                    state = torch.zeros(batch, width)
                    outputs = []
                    # a state-space scan: each step reads row t of two tensors, on different dimensions
                    for t in range(length):  # expect: XPT302
                        state = 0.9 * state + x[:, :, t]
                        out = state * readout[:, t, :]
                        outputs.append(out)
                    return torch.stack(outputs, dim=-1)
            def xport_example():
                seq = Dim("seq")
                args = (torch.randn(2, 3, 5), torch.randn(2, 5, 3))
                return {"model": Recurrence(), "args": args, "dynamic_shapes": ({2: seq}, {1: seq})}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Recurrence(torch.nn.Module):
                def forward(self, x, readout):
                    batch, width, length = x.shape
                    state = torch.zeros(batch, width)
                    outputs = []
                    # a state-space scan: each step reads row t of two tensors, on different dimensions
                    def step_fn(state, xs):  # expect: XPT302
                        x_t, readout_t = xs
                        state = 0.9 * state + x_t
                        out = state * readout_t
                        return state, out
                    state, outputs = torch._higher_order_ops.scan(step_fn, state, (x.narrow(2, 0, length).movedim(2, 0), readout.narrow(1, 0, length).movedim(1, 0),), dim=0)
                    return outputs.movedim(0, -1)
            def xport_example():
                seq = Dim("seq")
                args = (torch.randn(2, 3, 5), torch.randn(2, 5, 3))
                return {"model": Recurrence(), "args": args, "dynamic_shapes": ({2: seq}, {1: seq})}
            """,
            other_args="(torch.randn(2, 3, 8), torch.randn(2, 8, 3))",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class PerItem(torch.nn.Module):
                def forward(self, x):
                    return torch.stack([x[i] * 2 + 1 for i in range(x.shape[0])])  # expect: XPT302
            def xport_example():
                return {"model": PerItem(), "args": (torch.randn(4, 3),), "dynamic_shapes": ({0: Dim("batch")},)}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class PerItem(torch.nn.Module):
                def forward(self, x):
                    return (x * 2 + 1)  # expect: XPT302
            def xport_example():
                return {"model": PerItem(), "args": (torch.randn(4, 3),), "dynamic_shapes": ({0: Dim("batch")},)}
            """,
            other_args="(torch.randn(7, 3),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class PerRow(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = torch.nn.LayerNorm(3)
                    self.proj = torch.nn.Linear(3, 3)
                def forward(self, x):
                    return torch.stack([self.proj(self.norm(x[i])) for i in range(x.shape[0])])  # expect: XPT302
            def xport_example():
                return {"model": PerRow(), "args": (torch.randn(4, 3),), "dynamic_shapes": ({0: Dim("batch")},)}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class PerRow(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = torch.nn.LayerNorm(3)
                    self.proj = torch.nn.Linear(3, 3)
                def forward(self, x):
                    def step_fn(carry, x_i):
                        return carry.clone(), self.proj(self.norm(x_i))
                    _, x_rows = torch._higher_order_ops.scan(step_fn, torch.zeros(()), x, dim=0)
                    return x_rows  # expect: XPT302
            def xport_example():
                return {"model": PerRow(), "args": (torch.randn(4, 3),), "dynamic_shapes": ({0: Dim("batch")},)}
            """,
            other_args="(torch.randn(7, 3),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class PerRowLoop(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = torch.nn.Linear(4, 2)
                def forward(self, x):
                    outs = []
                    for i in range(len(x)):  # expect: XPT302
                        outs.append(self.head(x[i]))
                    return torch.stack(outs)
            def xport_example():
                return {"model": PerRowLoop(), "args": (torch.randn(3, 4),), "dynamic_shapes": ({0: Dim("batch")},)}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class PerRowLoop(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = torch.nn.Linear(4, 2)
                def forward(self, x):
                    outs = []
                    def step_fn(carry, x_i):  # expect: XPT302
                        return carry.clone(), self.head(x_i)
                    _, outs = torch._higher_order_ops.scan(step_fn, torch.zeros(()), x, dim=0)
                    return outs
            def xport_example():
                return {"model": PerRowLoop(), "args": (torch.randn(3, 4),), "dynamic_shapes": ({0: Dim("batch")},)}
            """,
            other_args="(torch.randn(6, 4),)",
        ),
    ]


#: tensor methods splitting a tensor along a dimension
_PIECES = frozenset({"unbind", "split", "chunk"})
#: torch functions doing the same, the tensor first
_TORCH_PIECES = frozenset({"torch.unbind", "torch.split", "torch.chunk"})
