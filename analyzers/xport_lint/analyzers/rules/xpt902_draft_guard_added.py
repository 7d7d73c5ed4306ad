from __future__ import annotations

from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid

CLEAN = """
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return x.relu() + 1
def xport_example():
    return Net(), (torch.randn(4),)
"""


class DraftGuardAdded(Rule):
    """draft_export found a guard that narrows the dynamic shapes the example declared.

    ## What it does
    A confirmation run reports `GUARD_ADDED`: the code constrains a dimension the example marked
    dynamic (`Dim`), where the static rules saw no shape branch.

    ## Why it fails torch.export
    `torch.export.export` raises `ConstraintViolationError` ("Not all values of b ... satisfy the
    generated guard"); draft_export proposes narrowed `dynamic_shapes` instead.

    ## Example
    ```python
    import torch
    from torch.export import Dim
    class Hidden(torch.nn.Module):
        def forward(self, x):
            size = getattr(x, "shape")[0]
            if size > 4:  # expect: XPT902
                return x * 2
            return x
    def xport_example():
        return {"model": Hidden(), "args": (torch.randn(6),), "dynamic_shapes": {"x": {0: Dim("b")}}}
    ```

    ## Use instead
    Declare the range the code supports (`Dim("b", min=5)`, as the suggested fixes say) or remove
    the shape branch (`torch.cond`).

    ## Fix safety
    No automatic fix.

    ## Modes
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT902"
    NAME = "draft-guard-added"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = "draft_export GUARD_ADDED / ConstraintViolationError"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("UserError", "Constraints violated"),),
        Mode.STRICT: (TorchError("UserError", "Constraints violated"),),
    }
    VALID = [Valid(CLEAN)]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Hidden(torch.nn.Module):
                def forward(self, x):
                    size = getattr(x, "shape")[0]
                    if size > 4:  # expect: XPT902
                        return x * 2
                    return x
            def xport_example():
                return {"model": Hidden(), "args": (torch.randn(6),), "dynamic_shapes": {"x": {0: Dim("b")}}}
            """
        )
    ]
