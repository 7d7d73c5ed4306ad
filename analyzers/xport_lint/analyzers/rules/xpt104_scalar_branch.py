from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
from ._conditions import Condition, ConditionRule, short


class ScalarBranch(ConditionRule, Rule):
    """A branch on a Python number read out of a tensor (`.item()`, `.tolist()`, `int(t)`).

    ## What it does
    Flags `if`/`while`/conditional-expression conditions on values that came from tensor data,
    following them through assignments, arithmetic, unpacking and helper calls
    (`n = lengths.max().item()` ... `if n > 128:`).

    ## Why it fails torch.export
    Under export `.item()` returns an *unbacked* symbol (`u0`, `zuf0`): a number with no example
    value. Branching on it needs that value, so export raises `GuardOnDataDependentSymNode`
    (non-strict) or `UserError: Consider annotating your code using torch._check*()` (strict).

    ## Example
    ```python
    n = scores.max().item()
    if n > 0.5:
        ...
    ```

    ## Use instead
    Keep the value a tensor and select with `torch.where`/`torch.cond`; or, when the condition is
    an invariant, state it with `torch._check(n > 0.5)` so export can assume it.

    ## Fix safety
    No automatic fix yet.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT104"
    NAME = "scalar-branch"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode / draft_export DATA_DEPENDENT_ERROR"
    CONDITION = Condition.DATA

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self.check_conditions(node, "comprehension filter")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} tests `{short(operand)}`, a value read from tensor data"

    VALID = [
        Valid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    peak = x.abs().max().item()
                    return x / (peak + 1e-6)
            def xport_example():
                return Scale(), (torch.randn(4),)
            """
        ),
        Valid(
            """
            import torch
            class Window(torch.nn.Module):
                def forward(self, x, length):
                    n = length.item()
                    torch._check(n >= 0)
                    torch._check(n <= x.shape[0])
                    return x[:n].sum(0)
            def xport_example():
                return Window(), (torch.randn(10, 4), torch.tensor(6))
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Router(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 2)
                    self.small = torch.nn.Linear(8, 8)
                    self.large = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Linear(32, 8))
                def forward(self, x):
                    score = self.gate(x).softmax(-1)[:, 1].mean().item()
                    if score > 0.5:  # expect: XPT104
                        return self.large(x)
                    return self.small(x)
            def xport_example():
                return Router(), (torch.randn(4, 8),)
            """
        ),
        Invalid(
            """
            import torch
            class Crop(torch.nn.Module):
                def forward(self, x, lengths):
                    longest = lengths.max().item()
                    if longest < x.shape[1]:  # expect: XPT104
                        x = x[:, :longest]
                    return x
            def xport_example():
                return Crop(), (torch.randn(2, 10, 4), torch.tensor([3, 7]))
            """
        ),
        Invalid(
            """
            import torch
            class Thresholds(torch.nn.Module):
                def forward(self, x, cutoffs):
                    low, high = cutoffs.tolist()
                    return x.clamp(min=low) if low < high else x  # expect: XPT104
            def xport_example():
                return Thresholds(), (torch.randn(5), torch.tensor([-1.0, 1.0]))
            """
        ),
    ]
