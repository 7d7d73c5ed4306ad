from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..positions import code_of
from ..rewrites import Rewrite
from ..rewrites.export_calls import shared_dim_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import Op, Verdict, judge_branch
from ..syntax import argument
from ..walk import iter_nodes
from ._conditions import Condition, ConditionRule, branch_rewrite, short
from .xpt304_shape_guard import tested_parameters


class ShapeBranch(ConditionRule, Rule):
    """A branch on a tensor's size: export keeps only the side the example input took.

    ## What it does
    Flags `if`/`while`/conditional expressions whose condition reads `.shape`, `.size()`,
    `len()` or `.numel()` of a tensor (`if x.shape[1] == 1:  # decode step`). Rank checks
    (`x.dim()`, `x.ndim`) are static and not flagged. A size of a tensor computed from an input
    is that input's size where the ops keep it (`h = self.proj(x)`: `Linear` keeps every
    dimension but the last; norms, activations, dropout, elementwise arithmetic keep all;
    `transpose`/`permute`/`unsqueeze` move them; convolutions and pooling keep the batch); an op
    not modelled leaves the size unknown. An `if` that raises on shapes compared whole (`if
    x.shape[-2:] != self.img_size: raise ...`) is judged size by size, as Python compares them;
    one that does not raise (`if x.shape[-2:] != (16, 16): x = F.interpolate(...)`) on the
    comparisons the example makes, in order: each equal pair (a named `Dim` specialised, both
    modes), then the first unequal one (non-strict only: strict export keeps no guard for it,
    measured on torch 2.13); a test on the target of a loop over a shape (`for dim in x.shape[-2:]: if dim % 2: ...`) is
    judged on each size the loop gives.

    ## Why it fails torch.export
    Python evaluates the branch once, on the example input; the graph holds one side only and a
    guard on the size. With static shapes (the default) the exported program then rejects other
    sizes; with `dynamic_shapes`, a guard that narrows a `Dim` raises
    `ConstraintViolationError` ("Not all values of b ... satisfy the generated guard"), and
    `Dim.AUTO` silently narrows the range. ExportDB: `dynamic_shape_if_guard`.

    ## Example
    ```python
    if x.shape[1] == 1:
        return self.decode_step(x)
    return self.prefill(x)
    ```

    ## Use instead
    `torch.cond(x.shape[1] == 1, ...)` keeps both sides; or export once per case; or declare
    the range the code supports with `Dim("seq", min=2)` so the guard always holds.

    ## Fix safety
    Unsafe. Two inputs' sizes compared for equality under two named `Dim`s of the same file's
    `dynamic_shapes`: the second is declared with the first's `Dim` (assumes the sizes are always
    equal, which the check in the code already demands). Otherwise offered only in files that
    export with `dynamic_shapes`: the `if` becomes
    `torch.cond` on the size predicate, as for XPT101, so both sides stay in the graph and the
    size can vary. It assumes the branches are free of side effects; with branches that return
    different sizes, `Dim.AUTO` may still narrow the range (the proof in the test suite checks
    each example on a size that takes the other branch). Not offered where a branch slices the
    tested size, pads by an amount computed from it (`F.pad(x, (0, 8 - seq))`), nor where a pool
    or strided op divides it (`F.max_pool2d(x, 2)`): measured, `torch.cond` fails there.

    ## Modes
    The severity follows how the model is exported (both modes; measured on torch 2.13 by
    tests/truth/test_shapes.py):
    - a static dimension (no `dynamic_shapes`, export's default): nothing; the size is a constant;
    - a test the range decides (`== 1` on any dynamic size, `> 4` under `Dim("seq", max=4)`):
      nothing; export adds no guard;
    - `Dim.AUTO` / `Dim.DYNAMIC`: warning; export narrows the range to the example's side;
    - a named `Dim` whose declared range the test splits: error (`ConstraintViolationError`);
      two inputs' sizes compared for equality under two different named `Dim`s (or a named
      `Dim` and a static size): error, fixed by one shared `Dim` in `dynamic_shapes`;
    - `len(x)` of a dimension declared `Dim.DYNAMIC` or named, in non-strict mode: error
      (non-strict export turns `len()` of a tensor into a constant).
    The declaration is read from the file's export call or `xport_example()`, from an export
    script elsewhere in the linted project, or from `[tool.xport-lint.dynamic-shapes]`; with
    none, `[tool.xport-lint] shapes = "dynamic"` treats every dimension as `Dim.AUTO`. A
    submodule the exported model builds in `__init__` and calls once with its own inputs
    (`self.up(x)`) gets those inputs' declared dimensions.
    """

    CODE = "XPT301"
    NAME = "shape-branch"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SEVERITY_FROM_SHAPES = True
    PYTORCH_NAME = "ConstraintViolationError / dynamic_shape_if_guard"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("UserError", "Constraints violated"),),
        Mode.STRICT: (TorchError("UserError", "Constraints violated"),),
    }
    CONDITION = Condition.SHAPE

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_Match(self, node: cst.Match) -> None:
        self.check_conditions(node, "match")

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} on the size `{short(operand)}`"

    def judge(self, operand: cst.BaseExpression) -> Verdict:
        traced = self.ctx.traced
        if traced is not None and isinstance(operand, cst.Name) and any(
            node is operand for node, _ in tested_parameters(traced.func).values()
        ):
            return Verdict(None)  # `if not ok: raise` in a helper: XPT304 judges the size test each call passes
        return judge_branch(operand, self.ctx.sizes(), self.ctx.shape_config(), self.ctx.mode, self.ctx.example_sizes())

    def declaration_fix(self, verdict: Verdict) -> Rewrite | None:
        """Two inputs' sizes that must be equal, under two named Dims of this file's export: the
        second declared with the first's Dim (the check stays; with one Dim it always holds)."""
        program, traced = self.ctx.program, self.ctx.traced
        if verdict.shared is None or traced is None or traced.cls is None or program.shapes_reader is None:
            return None
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        return shared_dim_rewrite(shapes, program.shapes_reader, *verdict.shared)

    def rewrite(self, node: cst.CSTNode) -> Rewrite | None:
        # with static shapes every size is fixed anyway: keeping both sides with torch.cond only
        # matters where sizes are dynamic (declared in this file, an export script elsewhere or
        # [tool.xport-lint])
        if not self.ctx.mentions("dynamic_shapes") and not self.ctx.shape_config().any_dynamic():
            return None
        sliced = self._slices_tested_size(node)
        if sliced:
            return Rewrite(reason=f"a branch slices `{sliced}` along the size it tests, which guards that size "
                                  "again inside torch.cond (measured: ConstraintViolationError)")
        padded = self._pads_by_tested_size(node)
        if padded:
            return Rewrite(reason=f"a branch pads by `{padded}`, computed from the size it tests: torch.cond cannot "
                                  "return a tensor of that size (measured: export fails inside torch.cond)")
        if self._tests_divided_size(node):
            return Rewrite(reason="the tested size is divided by a pool or strided op: torch.cond cannot return a tensor "
                                  "of that size (measured: its output strides are not a product of sizes)")
        return branch_rewrite(self.ctx, node)

    def _tests_divided_size(self, node: cst.CSTNode) -> bool:
        """`if h.shape[2] == 8:` where `h = F.max_pool2d(x, 2)`: the size is `(s - 2) // 2 + 1`
        of the input's, and torch 2.13's cond fails on branch outputs of such sizes; also a pool
        whose output size is not modelled (`ceil_mode=True`)."""
        sizes, test = self.ctx.sizes(), getattr(node, "test", None)
        if sizes is None or test is None:
            return False
        for inner in iter_nodes(test):
            read = sizes.size_read(sizes.followed(inner) if isinstance(inner, cst.Name) else inner)
            if read is None:
                continue
            term = sizes.size_term(*read)
            if _divided(term) or (term is None and sizes.windowed(read[0])):
                return True
        return False

    def _pads_by_tested_size(self, node: cst.CSTNode) -> str | None:
        """`F.pad(x, (0, 8 - seq))` in a branch on `seq` (a size): the padding's code, or None.
        Measured on torch 2.13 (held-out probe, two spellings): the torch.cond of such a branch
        fails export in both modes (a `KeyError` on the padded size, or its strides)."""
        sizes = self.ctx.sizes()
        if not isinstance(node, cst.If) or sizes is None:
            return None
        tested = {(name, dim) for name, _, dim in sizes.refs(node.test) or []}
        for inner in iter_nodes(node):
            if isinstance(inner, cst.Call) and self.ctx.resolve(inner.func) == "torch.nn.functional.pad":
                padding = argument(inner.args, 1, "pad")
                read = {(name, dim) for name, _, dim in sizes.refs(padding) or []} if padding is not None else set()
                if read & tested:
                    return code_of(padding)  # type: ignore[arg-type]
        return None

    def _slices_tested_size(self, node: cst.CSTNode) -> str | None:
        """`x[:, :n]` in a branch on `x.shape[1]`: the name of the sliced input, or None."""
        sizes = self.ctx.sizes()
        if not isinstance(node, cst.If) or sizes is None:
            return None
        tested = {(name, dim) for name, _, dim in sizes.refs(node.test) or []}
        for inner in iter_nodes(node.body):
            if isinstance(inner, cst.Subscript) and isinstance(inner.value, cst.Name):
                for dim, element in enumerate(inner.slice):
                    bounded = isinstance(element.slice, cst.Slice) and (element.slice.lower or element.slice.upper)
                    if bounded and (inner.value.value, dim) in tested:
                        return inner.value.value
        return None

    VALID = [
        Valid(
            """
            import torch
            class Extra(torch.nn.Module):
                def forward(self, x, *extra):
                    if len(extra) > 0:  # how many were passed: a Python count, not a size
                        x = x + extra[0]
                    return x
            def xport_example():
                return Extra(), (torch.randn(4), torch.ones(4))
            """
        ),
        Valid(
            """
            import torch
            class Flatten(torch.nn.Module):
                def forward(self, x):
                    if x.dim() == 4:
                        x = x.flatten(2)
                    return x.mean(-1)
            def xport_example():
                return Flatten(), (torch.randn(2, 3, 4, 4),)
            """
        ),
        Valid(
            """
            import torch
            class Decoder(torch.nn.Module):
                def forward(self, hidden):
                    # static shapes (no dynamic_shapes): every size is a constant of the export
                    if hidden.shape[1] > 4:
                        return hidden * 0.5
                    return hidden.cumsum(1)
            def xport_example():
                return Decoder(), (torch.randn(2, 3, 8),)
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Decoder(torch.nn.Module):
                def forward(self, hidden):
                    # the declared range (at most 4) decides the test: no guard, no hazard
                    if hidden.shape[1] > 4:
                        return hidden * 0.5
                    return hidden.cumsum(1)
            def xport_example():
                seq = Dim("seq", max=4)
                return {"model": Decoder(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"hidden": {1: seq}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class DecodeStep(torch.nn.Module):
                def forward(self, hidden):
                    # a dynamic size is never 1 under export (0 and 1 are specialised): decided
                    if hidden.shape[1] == 1:
                        return hidden * 2
                    return hidden.cumsum(1)
            def xport_example():
                return {"model": DecodeStep(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"hidden": {1: Dim.AUTO}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, a, b):
                    if a.shape[1] != b.shape[1]:  # one shared Dim: equal by declaration
                        raise ValueError("a and b must have the same length")
                    return a + b
            def xport_example():
                seq = Dim("seq")
                a, b = torch.randn(2, 2, 3, 4)
                return {"model": Pair(), "args": (a, b), "dynamic_shapes": {"a": {1: seq}, "b": {1: seq}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, a, b):
                    # the example takes the unequal side: export only learns `la != lb`
                    if a.shape[0] == b.shape[0]:
                        return a + b
                    return a.sum() + b.sum()
            def xport_example():
                return {"model": Pair(), "args": (torch.randn(4, 3), torch.randn(5, 3)),
                        "dynamic_shapes": {"a": {0: Dim("la")}, "b": {0: Dim("lb")}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Upsample(torch.nn.Module):
                def forward(self, hidden_states):
                    # the batch Dim of the model's input reaches this submodule
                    if hidden_states.shape[0] >= 64:  # expect: XPT301
                        return hidden_states.contiguous() * 2
                    return hidden_states * 2
            class UNet(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.up = Upsample()
                def forward(self, x):
                    return self.up(x)
            def xport_example():
                return {"model": UNet(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Upsample(torch.nn.Module):
                def forward(self, hidden_states):
                    # the batch Dim of the model's input reaches this submodule
                    def true_fn(hidden_states):  # expect: XPT301
                        return hidden_states.contiguous() * 2
                    def false_fn(hidden_states):
                        return hidden_states * 2
                    return torch.cond(hidden_states.shape[0] >= 64, true_fn, false_fn, (hidden_states,))
            class UNet(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.up = Upsample()
                def forward(self, x):
                    return self.up(x)
            def xport_example():
                return {"model": UNet(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """,
            other_args="(torch.randn(70, 3),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(3, 5)
                    self.norm = torch.nn.LayerNorm(5)
                def forward(self, x):
                    h = self.norm(self.proj(x)).float()  # Linear and LayerNorm keep the batch size
                    if h.shape[0] > 4:  # expect: XPT301
                        return h * 2
                    return h
            def xport_example():
                return {"model": Head(), "args": (torch.randn(6, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(3, 5)
                    self.norm = torch.nn.LayerNorm(5)
                def forward(self, x):
                    h = self.norm(self.proj(x)).float()  # Linear and LayerNorm keep the batch size
                    def true_fn(h):  # expect: XPT301
                        return h * 2
                    def false_fn(h):
                        return h.clone()
                    return torch.cond(h.shape[0] > 4, true_fn, false_fn, (h,))
            def xport_example():
                return {"model": Head(), "args": (torch.randn(6, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """,
            other_args="(torch.randn(3, 3),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, a, b):
                    if a.shape[1] != b.shape[1]:  # expect: XPT301
                        raise ValueError("a and b must have the same length")
                    return a + b
            def xport_example():
                a, b = torch.randn(2, 2, 3, 4)
                return {"model": Pair(), "args": (a, b), "dynamic_shapes": {"a": {1: Dim("la")}, "b": {1: Dim("lb")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, a, b):
                    if a.shape[1] != b.shape[1]:  # expect: XPT301
                        raise ValueError("a and b must have the same length")
                    return a + b
            def xport_example():
                a, b = torch.randn(2, 2, 3, 4)
                return {"model": Pair(), "args": (a, b), "dynamic_shapes": {"a": {1: Dim("la")}, "b": {1: Dim("la")}}}
            """,
            other_args="(torch.randn(2, 5, 4), torch.randn(2, 5, 4))",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Decoder(torch.nn.Module):
                def forward(self, hidden):
                    if hidden.shape[1] > 4:  # expect: XPT301
                        # long prompts: scale instead of accumulating
                        return hidden * 0.5
                    return hidden.cumsum(1)
            def xport_example():
                return {"model": Decoder(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"hidden": {1: Dim("seq")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Decoder(torch.nn.Module):
                def forward(self, hidden):
                    def true_fn(hidden):  # expect: XPT301
                        # long prompts: scale instead of accumulating
                        return hidden * 0.5
                    def false_fn(hidden):
                        return hidden.cumsum(1)
                    return torch.cond(hidden.shape[1] > 4, true_fn, false_fn, (hidden,))
            def xport_example():
                return {"model": Decoder(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"hidden": {1: Dim("seq")}}}
            """,
            other_args="(torch.randn(2, 6, 8),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class WindowedDecoder(torch.nn.Module):
                def forward(self, hidden):
                    if hidden.shape[1] > 4:  # expect: XPT301
                        # long prompts: scale instead of accumulating
                        return hidden * 0.5
                    return hidden.cumsum(1)
            def xport_example():
                return {"model": WindowedDecoder(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"hidden": {1: Dim.AUTO}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class WindowedDecoder(torch.nn.Module):
                def forward(self, hidden):
                    def true_fn(hidden):  # expect: XPT301
                        # long prompts: scale instead of accumulating
                        return hidden * 0.5
                    def false_fn(hidden):
                        return hidden.cumsum(1)
                    return torch.cond(hidden.shape[1] > 4, true_fn, false_fn, (hidden,))
            def xport_example():
                return {"model": WindowedDecoder(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"hidden": {1: Dim.AUTO}}}
            """,
            other_args="(torch.randn(2, 6, 8),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class ScaledAttention(torch.nn.Module):
                def forward(self, q, k, v):
                    seq_len = q.size(1)
                    if seq_len > 4:  # expect: XPT301
                        scale = q.new_ones(()) / 8.0
                    else:
                        scale = q.new_ones(()) / 2.0
                    return (q @ k.transpose(-2, -1) * scale).softmax(-1) @ v
            def xport_example():
                q, k, v = torch.randn(3, 2, 3, 8)
                seq = {1: Dim.AUTO}
                return {"model": ScaledAttention(), "args": (q, k, v), "dynamic_shapes": {"q": seq, "k": seq, "v": seq}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class ScaledAttention(torch.nn.Module):
                def forward(self, q, k, v):
                    seq_len = q.size(1)
                    def true_fn(q):  # expect: XPT301
                        scale = q.new_ones(()) / 8.0
                        return scale
                    def false_fn(q):
                        scale = q.new_ones(()) / 2.0
                        return scale
                    scale = torch.cond(seq_len > 4, true_fn, false_fn, (q,))
                    return (q @ k.transpose(-2, -1) * scale).softmax(-1) @ v
            def xport_example():
                q, k, v = torch.randn(3, 2, 3, 8)
                seq = {1: Dim.AUTO}
                return {"model": ScaledAttention(), "args": (q, k, v), "dynamic_shapes": {"q": seq, "k": seq, "v": seq}}
            """,
            other_args="(torch.randn(2, 6, 8), torch.randn(2, 6, 8), torch.randn(2, 6, 8))",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Truncate(torch.nn.Module):
                def __init__(self, max_len=8):
                    super().__init__()
                    self.max_len = max_len
                def forward(self, x):
                    if x.shape[1] > self.max_len:  # expect: XPT301
                        x = x[:, : self.max_len]
                    return x.sum(1)
            def xport_example():
                return {"model": Truncate(), "args": (torch.randn(2, 5, 3),), "dynamic_shapes": ({1: Dim("seq")},)}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class PadEven(torch.nn.Module):
                def forward(self, x):
                    if x.size(1) % 2 == 1:  # expect: XPT301
                        x = torch.nn.functional.pad(x, (0, 0, 0, 1))
                    return x.reshape(x.shape[0], -1, 2, x.shape[2]).mean(2)
            def xport_example():
                return {"model": PadEven(), "args": (torch.randn(2, 5, 3),), "dynamic_shapes": ({1: Dim("seq")},)}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class PadEven(torch.nn.Module):
                def forward(self, x):
                    def true_fn(x):  # expect: XPT301
                        x = torch.nn.functional.pad(x, (0, 0, 0, 1))
                        return x.clone()
                    def false_fn(x):
                        return x.clone()
                    x = torch.cond(x.size(1) % 2 == 1, true_fn, false_fn, (x,))
                    return x.reshape(x.shape[0], -1, 2, x.shape[2]).mean(2)
            def xport_example():
                return {"model": PadEven(), "args": (torch.randn(2, 5, 3),), "dynamic_shapes": ({1: Dim("seq")},)}
            """,
            other_args="(torch.randn(2, 6, 3),)",
        ),
    ]


def _divided(term: object) -> bool:
    """A size term with a floor division by 2 or more in it."""
    if not isinstance(term, Op):
        return False
    return (term.kind == "//" and isinstance(term.right, int) and term.right >= 2) or _divided(term.left) or _divided(
        term.right
    )

