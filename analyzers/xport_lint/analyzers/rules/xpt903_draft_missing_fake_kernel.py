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


class DraftMissingFakeKernel(Rule):
    """draft_export ran a custom op that has no fake kernel.

    ## What it does
    A confirmation run reports `MISSING_FAKE_KERNEL` for an op the static XPT409 did not see
    (defined in another file, or registered through an alias).

    ## Why it fails torch.export
    Export runs ops on fake tensors; without a fake kernel it raises `There was no fake impl
    registered`. draft_export substitutes one inferred from a real run.

    ## Example
    ```python
    import torch
    library = torch.library
    @library.custom_op("xlint_confirm::triple", mutates_args=())
    def triple(x: torch.Tensor) -> torch.Tensor:
        return x * 3
    class UsesOp(torch.nn.Module):
        def forward(self, x):
            return triple(x)  # expect: XPT903
    def xport_example():
        return UsesOp(), (torch.randn(3),)
    ```

    ## Use instead
    Register one with `@op.register_fake` returning empty tensors of the right shape.

    ## Fix safety
    No automatic fix.

    ## Modes
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT903"
    NAME = "draft-missing-fake-kernel"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = "draft_export MISSING_FAKE_KERNEL"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("RuntimeError", "There was no fake impl registered"),),
        Mode.STRICT: (TorchError("TorchRuntimeError", "RuntimeError when making fake tensor call"),),
    }
    VALID = [Valid(CLEAN)]
    INVALID = [
        Invalid(
            """
            import torch
            library = torch.library
            @library.custom_op("xlint_confirm::triple", mutates_args=())
            def triple(x: torch.Tensor) -> torch.Tensor:
                return x * 3
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return triple(x)  # expect: XPT903
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        )
    ]
