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


class ExportFailed(Rule):
    """`torch.export.export` failed on the example, and neither a static rule nor draft_export said where.

    ## What it does
    The confirmation's plain `torch.export.export` raised; the finding sits on the last line of
    this file in the traceback (or on the model class).

    ## Why it fails torch.export
    See the message: it is the exception export raised, with its type.

    ## Example
    ```python
    import torch
    class Hidden(torch.nn.Module):
        def forward(self, x):
            pointer = getattr(x, "data_ptr")()  # expect: XPT905
            return x + pointer % 2
    def xport_example():
        return Hidden(), (torch.randn(4),)
    ```

    ## Use instead
    Whatever the exception asks for; then report the pattern so a static rule can catch it.

    ## Fix safety
    No automatic fix.

    ## Modes
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT905"
    NAME = "export-failed"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = "torch.export.export exception"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("", ""),),
        Mode.STRICT: (TorchError("", ""),),
    }
    VALID = [Valid(CLEAN)]
    INVALID = [
        Invalid(
            """
            import torch
            class Hidden(torch.nn.Module):
                def forward(self, x):
                    pointer = getattr(x, "data_ptr")()  # expect: XPT905
                    return x + pointer % 2
            def xport_example():
                return Hidden(), (torch.randn(4),)
            """
        )
    ]
