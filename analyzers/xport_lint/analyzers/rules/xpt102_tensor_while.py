from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
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
    No automatic fix yet.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT102"
    NAME = "tensor-while"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode / draft_export DATA_DEPENDENT_ERROR"
    CONDITION = Condition.TENSOR

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"while loop tests the tensor value `{short(operand)}`: data-dependent trip count"

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
            """
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
            """
        ),
    ]
