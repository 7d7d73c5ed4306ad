from __future__ import annotations

import libcst as cst

from ..dataflow import Kind
from ..model import Severity
from ..names import dotted
from ..rule import Invalid, Rule, Valid
from ._conditions import short


class ShapeLoop(Rule):
    """A `for` loop over `range()` of a tensor's size: export unrolls it for the example size.

    ## What it does
    Flags `for`/comprehension loops over `range(x.size(0))`, `range(len(x))`,
    `range(x.shape[1])` and the like in traced code.

    ## Why it fails torch.export
    Python runs the loop while tracing, so the graph holds exactly as many copies of the body
    as the example's size, and a guard fixing that size. Other sizes are rejected (static
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
    No automatic fix.

    ## Modes
    Warning in both modes (torch 2.13).
    """

    CODE = "XPT302"
    NAME = "shape-loop"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    PYTORCH_NAME = "specialisation (unrolled loop)"

    def visit_For(self, node: cst.For) -> None:
        self._check(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._check(node.iter)

    def _check(self, iterable: cst.BaseExpression) -> None:
        if not (isinstance(iterable, cst.Call) and dotted(iterable.func) == "range"):
            return
        for arg in iterable.args:
            value = self.ctx.value(arg.value)
            if value.has(Kind.SHAPE) and not value.has(Kind.DATA | Kind.DD_SIZE | Kind.TENSOR):
                self.report(
                    arg.value, f"loop over range(`{short(arg.value)}`) is unrolled for one size"
                )
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
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class RNN(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = torch.nn.GRUCell(4, 8)
                def forward(self, x):
                    h = x.new_zeros(x.size(0), 8)
                    for t in range(x.size(1)):  # expect: XPT302
                        h = self.cell(x[:, t], h)
                    return h
            def xport_example():
                return RNN(), (torch.randn(2, 3, 4),)
            """,
            other_args="(torch.randn(2, 5, 4),)",
        ),
        Invalid(
            """
            import torch
            class PairSum(torch.nn.Module):
                def forward(self, x):
                    return torch.stack([x[i] + x[i + 1] for i in range(len(x) - 1)])  # expect: XPT302
            def xport_example():
                return PairSum(), (torch.randn(4, 2),)
            """,
            other_args="(torch.randn(6, 2),)",
        ),
    ]
