from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rewrites import Rewrite, while_loop_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import Condition, ConditionRule, short


class TensorWhile(ConditionRule, Rule):
    """A `while` loop runs until a tensor's value says stop.

    ## What it does
    Flags `while` conditions in traced code that test a tensor (`while x.abs().max() > tol:`).

    ## Why it fails torch.export
    The trip count depends on data export never sees: each test is a data-dependent guard.
    Non-strict export raises `GuardOnDataDependentSymNode`; strict export raises
    `Unsupported: Data-dependent branching`.

    ## Example
    ```python
    while x.abs().max() > 1:
        x = x / 2
    ```

    ## Use instead
    `torch.while_loop(cond_fn, body_fn, (x,))` when the loop carries only tensors, or a fixed
    number of iterations with a `torch.where` mask.

    ## Fix safety
    Unsafe. The loop becomes `cond_fn`/`body_fn` and one `torch.while_loop` call, carrying the
    names the body assigns that outlive a step (the rest stay local to `body_fn`). An integer
    step counter (`steps += 1`) is carried as an int64 tensor (`torch.tensor(steps)`), and
    `a and b` in the condition becomes `torch.logical_and` (measured on torch 2.13: exports in
    both modes and equals eager). The assumption: the carried tensors keep their shapes and
    dtypes from one iteration to the next, as `torch.while_loop` requires, and the counter is
    read as a tensor after the loop. No fix, and the diagnostic says why, when the body
    mutates, breaks, returns, or carries another Python value.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT102"
    NAME = "tensor-while"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode / draft_export DATA_DEPENDENT_ERROR"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),),
        Mode.STRICT: (TorchError("Unsupported", "Data-dependent branching"),),
    }
    CONDITION = Condition.TENSOR

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"while loop tests the tensor value `{short(operand)}`: data-dependent trip count"

    def rewrite(self, node: cst.CSTNode) -> Rewrite | None:
        if not isinstance(node, cst.While) or self.ctx.flow is None or self.ctx.traced is None:
            return None
        return while_loop_rewrite(self.ctx.flow, self.ctx.traced.func, node)

    VALID = [
        Valid(
            """
            import torch
            class Halve(torch.nn.Module):
                def forward(self, x):
                    for _ in range(3):
                        x = torch.where(x.abs().max() > 1, x / 2, x)
                    return x
            def xport_example():
                return Halve(), (torch.randn(4) * 10,)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Halve(torch.nn.Module):
                def forward(self, x):
                    while x.abs().max() > 1:  # expect: XPT102
                        x = x / 2
                    return x
            def xport_example():
                return Halve(), (torch.randn(4) * 10,)
            """,
            expected_replacement="""
            import torch
            class Halve(torch.nn.Module):
                def forward(self, x):
                    def cond_fn(x):  # expect: XPT102
                        return x.abs().max() > 1
                    def body_fn(x):
                        x = x / 2
                        return (x,)
                    (x,) = torch.while_loop(cond_fn, body_fn, (x,))
                    return x
            def xport_example():
                return Halve(), (torch.randn(4) * 10,)
            """,
            other_args="(torch.full((4,), 100.0),)",
        ),
        Invalid(
            """
            import torch
            class Decoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.step = torch.nn.Linear(4, 4)
                def forward(self, h, eos):
                    steps = 0
                    while (h.argmax(-1) != eos).any() and steps < 8:  # expect: XPT102
                        h = self.step(h)
                        steps += 1
                    return h
            def xport_example():
                return Decoder(), (torch.randn(1, 4), torch.tensor(3))
            """,
            expected_replacement="""
            import torch
            class Decoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.step = torch.nn.Linear(4, 4)
                def forward(self, h, eos):
                    steps = 0
                    def cond_fn(h, steps):  # expect: XPT102
                        return torch.logical_and((h.argmax(-1) != eos).any(), steps < 8)
                    def body_fn(h, steps):
                        h = self.step(h)
                        steps = steps + 1
                        return (h, steps)
                    (h, steps) = torch.while_loop(cond_fn, body_fn, (h, torch.tensor(steps)))
                    return h
            def xport_example():
                return Decoder(), (torch.randn(1, 4), torch.tensor(3))
            """,
            other_args="(torch.randn(1, 4), torch.tensor(0))",
        ),
        Invalid(
            """
            import torch
            class NewtonSqrt(torch.nn.Module):
                def forward(self, x):
                    y = x.clone()
                    while (y * y - x).abs().max() > 1e-4:  # expect: XPT102
                        y = 0.5 * (y + x / y)
                    return y
            def xport_example():
                return NewtonSqrt(), (torch.tensor([4.0, 9.0, 2.0]),)
            """,
            expected_replacement="""
            import torch
            class NewtonSqrt(torch.nn.Module):
                def forward(self, x):
                    y = x.clone()
                    def cond_fn(y):  # expect: XPT102
                        return (y * y - x).abs().max() > 1e-4
                    def body_fn(y):
                        y = 0.5 * (y + x / y)
                        return (y,)
                    (y,) = torch.while_loop(cond_fn, body_fn, (y,))
                    return y
            def xport_example():
                return NewtonSqrt(), (torch.tensor([4.0, 9.0, 2.0]),)
            """,
            other_args="(torch.tensor([100.0, 0.5, 7.0]),)",
        ),
        Invalid(
            """
            import torch
            class GrowScale(torch.nn.Module):
                def forward(self, scale, target):
                    while scale.max() < target.max():  # expect: XPT102
                        scale = scale * 2
                    return scale
            def xport_example():
                return GrowScale(), (torch.tensor([1.0, 0.5]), torch.tensor([5.0]))
            """,
            expected_replacement="""
            import torch
            class GrowScale(torch.nn.Module):
                def forward(self, scale, target):
                    def cond_fn(scale):  # expect: XPT102
                        return scale.max() < target.max()
                    def body_fn(scale):
                        scale = scale * 2
                        return (scale,)
                    (scale,) = torch.while_loop(cond_fn, body_fn, (scale,))
                    return scale
            def xport_example():
                return GrowScale(), (torch.tensor([1.0, 0.5]), torch.tensor([5.0]))
            """,
            other_args="(torch.tensor([1.0, 0.5]), torch.tensor([100.0]))",
        ),
    ]
