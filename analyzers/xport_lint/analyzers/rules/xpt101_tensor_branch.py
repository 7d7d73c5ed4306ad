from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
from ._conditions import Condition, ConditionRule, short


class TensorBranch(ConditionRule, Rule):
    """An `if`, `elif`, conditional expression or `and`/`or`/`not` tests a tensor's value.

    ## What it does
    Flags conditions in traced code whose truth value is a tensor (`if x.sum() > 0:`,
    `if torch.isnan(x).any():`, `y if mask.all() else z`).

    ## Why it fails torch.export
    Export traces with fake tensors that have no values: `bool(tensor)` becomes an unbacked
    symbolic boolean and the branch a guard on it. Non-strict export raises
    `GuardOnDataDependentSymNode` ("Could not guard on data-dependent expression"); strict export
    raises `Unsupported: Data-dependent branching`. draft_export reports it as a
    `DATA_DEPENDENT_ERROR`; ExportDB: `cond_predicate`, `dynamic_shape_if_guard`.

    ## Example
    ```python
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x
    ```

    ## Use instead
    Compute both sides and select (`torch.where(x.sum() > 0, x * 2, x)`), or use
    `torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x, (x,))`, which export captures as a
    real branch. For a check that should never fail, use `torch._check`.

    ## Fix safety
    No automatic fix yet: the `torch.cond` rewrite needs both branches to be pure.

    ## Modes
    Error in both non-strict and strict export (torch 2.13).
    """

    CODE = "XPT101"
    NAME = "tensor-branch"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode / draft_export DATA_DEPENDENT_ERROR"
    CONDITION = Condition.TENSOR

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self.check_conditions(node, "comprehension filter")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} tests the tensor value `{short(operand)}`: data-dependent branch"

    VALID = [
        Valid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    return torch.where(x.sum() > 0, x * 2, x)
            def xport_example():
                return Gate(), (torch.randn(4),)
            """
        ),
        Valid(
            """
            import torch
            from typing import Optional
            class MaskedAttention(torch.nn.Module):
                def forward(self, q, k, v, mask: Optional[torch.Tensor] = None):
                    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
                    if mask is not None:
                        scores = scores.masked_fill(mask == 0, float("-inf"))
                    return scores.softmax(-1) @ v
            def xport_example():
                q = torch.randn(2, 5, 8)
                return MaskedAttention(), (q, q, q, torch.ones(2, 5, 5))
            """
        ),
        Valid(
            """
            import torch
            class Branch(torch.nn.Module):
                def forward(self, x):
                    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
            def xport_example():
                return Branch(), (torch.randn(4),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    if x.sum() > 0:  # expect: XPT101
                        return x * 2
                    return x
            def xport_example():
                return Gate(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import torch
            class SafeNorm(torch.nn.Module):
                def forward(self, x):
                    if torch.isnan(x).any():  # expect: XPT101
                        return torch.zeros_like(x)
                    return x / x.norm()
            def xport_example():
                return SafeNorm(), (torch.randn(8),)
            """
        ),
        Invalid(
            """
            import torch
            class EarlyExit(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(3))
                    self.head = torch.nn.Linear(8, 1)
                def forward(self, h):
                    for layer in self.layers:
                        h = layer(h)
                        confidence = self.head(h).sigmoid()
                        if confidence.max() > 0.9:  # expect: XPT101
                            break
                    return h
            def xport_example():
                return EarlyExit(), (torch.randn(2, 8),)
            """
        ),
        Invalid(
            """
            import torch
            class Clamp(torch.nn.Module):
                def forward(self, x):
                    return x if x.max() < 1 else x / x.max()  # expect: XPT101
            def xport_example():
                return Clamp(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import torch
            def has_padding(mask):
                return (mask == 0).any()
            class Pool(torch.nn.Module):
                def forward(self, x, mask):
                    if not has_padding(mask):  # expect: XPT101
                        return x.mean(1)
                    return (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
            def xport_example():
                return Pool(), (torch.randn(2, 5, 4), torch.ones(2, 5))
            """
        ),
    ]
