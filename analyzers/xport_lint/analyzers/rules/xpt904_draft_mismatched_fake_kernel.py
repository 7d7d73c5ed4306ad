from __future__ import annotations

from ..model import Severity
from ..rule import Invalid, Rule, Valid

CLEAN = """
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return x.relu() + 1
def xport_example():
    return Net(), (torch.randn(4),)
"""


class DraftMismatchedFakeKernel(Rule):
    """A custom op's fake kernel disagrees with its real kernel.

    ## What it does
    A confirmation run reports `MISMATCHED_FAKE_KERNEL`: the op's registered fake implementation
    produces a different shape, dtype or stride than the real one on the example.

    ## Why it fails torch.export
    Export succeeds but believes the fake kernel, so shapes after the op are wrong in the exported
    graph (a warning: it silently differs from eager); draft_export compares the two on the real inputs and reports the difference.

    ## Example
    ```python
    import torch
    @torch.library.custom_op("xlint_confirm::head", mutates_args=())
    def head(x: torch.Tensor) -> torch.Tensor:
        return x[:2].clone()
    @head.register_fake
    def _(x):
        return torch.empty_like(x)
    class UsesOp(torch.nn.Module):
        def forward(self, x):
            return head(x) * 2  # expect: XPT904
    def xport_example():
        return UsesOp(), (torch.randn(5),)
    ```

    ## Use instead
    Make the fake kernel compute the real output's shape (`x.new_empty(2)` for an op returning `x[:2]`).

    ## Fix safety
    No automatic fix.

    ## Modes
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT904"
    NAME = "draft-mismatched-fake-kernel"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = "draft_export MISMATCHED_FAKE_KERNEL"
    VALID = [Valid(CLEAN)]
    INVALID = [
        Invalid(
            """
            import torch
            @torch.library.custom_op("xlint_confirm::head", mutates_args=())
            def head(x: torch.Tensor) -> torch.Tensor:
                return x[:2].clone()
            @head.register_fake
            def _(x):
                return torch.empty_like(x)
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return head(x) * 2  # expect: XPT904
            def xport_example():
                return UsesOp(), (torch.randn(5),)
            """
        )
    ]
