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


class NotConfirmed(Rule):
    """The confirmation could not run: the example raised, hung, crashed or ran out of memory.

    ## What it does
    Reported when `xport_example()` (or the model's import) raises, the run exceeds its timeout,
    the worker process dies (segfault, `os._exit`), or it runs out of memory. The worker is
    replaced; the editor stays responsive.

    ## Why it fails torch.export
    Nothing was exported, so nothing is confirmed; the message says what happened.

    ## Example
    ```python
    import torch
    class Net(torch.nn.Module):
        def forward(self, x):
            return x + 1
    def xport_example():
        raise RuntimeError("weights are not available here")  # expect: XPT906
    ```

    ## Use instead
    Make `xport_example()` cheap and self-contained: small random inputs, no downloads.

    ## Fix safety
    No automatic fix.

    ## Modes
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT906"
    NAME = "not-confirmed"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = ""
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("", ""),),
        Mode.STRICT: (TorchError("", ""),),
    }
    VALID = [Valid(CLEAN)]
    INVALID = [
        Invalid(
            """
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            def xport_example():
                raise RuntimeError("weights are not available here")  # expect: XPT906
            """
        )
    ]
