from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

_MODULES = ("random.", "time.", "numpy.random.", "datetime.", "uuid.", "secrets.")


class NondeterministicPython(Rule):
    """Python's `random`, `time`, `numpy.random` or `datetime` called in traced code.

    ## What it does
    Flags calls into Python-side sources of randomness and time in traced code
    (`random.random()`, `time.time()`, `np.random.rand()`).

    ## Why it fails torch.export
    Non-strict export runs the call once while tracing and bakes its result into the graph as
    a constant: every call of the exported program sees the same "random" number. Strict export
    refuses: `Unsupported: Attempted to call function marked as skipped`.

    ## Example
    ```python
    if self.training and random.random() < self.drop_prob:
    ```

    ## Use instead
    torch's own random ops (`torch.rand(())`, `torch.bernoulli`), which become graph nodes; pass
    times and seeds in as inputs.

    ## Fix safety
    No automatic fix.

    ## Modes
    Warning in non-strict export (baked-in constant); error in strict export.
    """

    CODE = "XPT402"
    NAME = "nondeterministic-python"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported: Attempted to call function marked as skipped"
    FAILS_WITH = {
        Mode.STRICT: (TorchError("Unsupported", "Attempted to call function marked as skipped"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.resolve(node.func)
        if qualified is not None and qualified.startswith(_MODULES):
            self.report(node, f"`{short(node)}` runs once at export time and is baked in")

    VALID = [
        Valid(
            """
            import torch
            class Jitter(torch.nn.Module):
                def forward(self, x):
                    return x + 0.01 * torch.randn_like(x).abs().clamp(max=0)
            def xport_example():
                return Jitter(), (torch.randn(4),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import random
            import torch
            class Jitter(torch.nn.Module):
                def forward(self, x):
                    return x * (1 + 0.1 * random.random())  # expect: XPT402
            def xport_example():
                return Jitter(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import time
            import torch
            class Stamp(torch.nn.Module):
                def forward(self, x):
                    started = time.time()  # expect: XPT402
                    return x + started % 1
            def xport_example():
                return Stamp(), (torch.randn(4),)
            """
        ),
    ]
