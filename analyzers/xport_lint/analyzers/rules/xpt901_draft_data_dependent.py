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


class DraftDataDependent(Rule):
    """draft_export found a data-dependent guard that no static rule predicted.

    ## What it does
    A confirmation run reports `DATA_DEPENDENT_ERROR` at a line where the static rules saw
    nothing (a value reached through `getattr`, another module, a C extension...).

    ## Why it fails torch.export
    Export needed the value of an unbacked symbol (from `.item()`, `nonzero`, `bool(tensor)`) to
    decide a branch or a size. draft_export specialised it to the example's value and carried on;
    `torch.export.export` raises `GuardOnDataDependentSymNode`. Each XPT901 is also a bug report
    against xport-lint's static rules.

    ## Example
    ```python
    import torch
    class Hidden(torch.nn.Module):
        def forward(self, x):
            total = getattr(x, "sum")()
            if total > 0:  # expect: XPT901
                return x * 2
            return x
    def xport_example():
        return Hidden(), (torch.randn(4),)
    ```

    ## Use instead
    `torch.cond` / `torch.where` for branches, `torch._check(...)` for assumptions that always hold.

    ## Fix safety
    No automatic fix.

    ## Modes
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT901"
    NAME = "draft-data-dependent"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = "draft_export DATA_DEPENDENT_ERROR"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"), TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"),),
        Mode.STRICT: (TorchError("Unsupported", "Data-dependent branching"), TorchError("UserError", "Could not guard on data-dependent expression"), TorchError("UserError", "Could not extract specialized integer from data-dependent expression"),),
    }
    VALID = [Valid(CLEAN)]
    INVALID = [
        Invalid(
            """
            import torch
            class Hidden(torch.nn.Module):
                def forward(self, x):
                    total = getattr(x, "sum")()
                    if total > 0:  # expect: XPT901
                        return x * 2
                    return x
            def xport_example():
                return Hidden(), (torch.randn(4),)
            """
        )
    ]
