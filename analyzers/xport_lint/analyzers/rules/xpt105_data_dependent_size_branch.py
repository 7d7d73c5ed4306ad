from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
from ._conditions import Condition, ConditionRule, short


class DataDependentSizeBranch(ConditionRule, Rule):
    """A branch on the size of a tensor whose size depends on data (`nonzero`, `x[mask]`, ...).

    ## What it does
    Flags conditions on `.shape`/`.size()`/`len()`/`.numel()` of tensors produced by
    `nonzero`, boolean-mask indexing, `masked_select`, `unique` or `argwhere`
    (`if keep.shape[0] == 0:` after `keep = scores > t`; `boxes[keep]`).

    ## Why it fails torch.export
    Those ops are fine under export: their output size becomes an unbacked symbol `u0`. But a
    branch on `u0` needs its value: export raises `GuardOnDataDependentSymNode` ("Could not guard
    on data-dependent expression Eq(u0, 0)").

    ## Example
    ```python
    idx = (scores > 0.5).nonzero()
    if idx.shape[0] == 0:
        return scores.new_zeros(0)
    ```

    ## Use instead
    Write the code so that the empty case needs no branch (most ops accept size-0 tensors), or
    state the assumption with `torch._check(idx.shape[0] > 0)`.

    ## Fix safety
    No automatic fix yet.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT105"
    NAME = "data-dependent-size-branch"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode (unbacked size)"
    CONDITION = Condition.DD_SIZE

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} tests `{short(operand)}`, a size that depends on tensor data"

    VALID = [
        Valid(
            """
            import torch
            class Positives(torch.nn.Module):
                def forward(self, scores):
                    keep = scores[scores > 0]
                    return keep.sum() / (keep.numel() + 1)
            def xport_example():
                return Positives(), (torch.randn(16),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Detections(torch.nn.Module):
                def forward(self, boxes, scores):
                    keep = scores > 0.5
                    boxes = boxes[keep]
                    if boxes.shape[0] == 0:  # expect: XPT105
                        return boxes.new_zeros(1, 4)
                    return boxes
            def xport_example():
                return Detections(), (torch.rand(10, 4), torch.rand(10))
            """
        ),
        Invalid(
            """
            import torch
            class FirstHit(torch.nn.Module):
                def forward(self, x):
                    hits = torch.nonzero(x > 0)
                    return hits[0] if hits.size(0) > 0 else x.new_zeros(1, dtype=torch.long)  # expect: XPT105
            def xport_example():
                return FirstHit(), (torch.randn(8),)
            """
        ),
    ]
