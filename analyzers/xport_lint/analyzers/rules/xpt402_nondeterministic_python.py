from __future__ import annotations

import libcst as cst

from ..context import RuleContext
from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ..versions import Versions, show
from ._conditions import short

_MODULES = ("random.", "time.", "numpy.random.", "datetime.", "uuid.", "secrets.")
#: seeding torch's generator: non-strict export runs it once and keeps no node for it
_SEEDING = frozenset({"torch.manual_seed", "torch.random.manual_seed"})


def _strict_words(ctx: RuleContext, qualified: str) -> str:
    """How the target torch's strict export refuses the call, where its words changed."""
    if ctx.mode is not Mode.STRICT:
        return ""
    if qualified.startswith("random.") and ctx.torch >= (2, 14):
        return (f"; strict export on torch {show(ctx.torch)} fails with `AssertionError: Dynamo attempts to add "
                "additional input during export`, naming no line of the model")
    if qualified.startswith("time.") and ctx.torch >= (2, 15):
        return f"; strict export on torch {show(ctx.torch)} fails with `Unsupported: Call to a time function`"
    return ""


class NondeterministicPython(Rule):
    """Python's `random`, `time`, `numpy.random` or `datetime`, or `torch.manual_seed`, called in traced code.

    ## What it does
    Flags calls into Python-side sources of randomness and time in traced code
    (`random.random()`, `time.time()`, `np.random.rand()`), and seeding torch's generator
    (`torch.manual_seed(0)`).

    ## Why it fails torch.export
    Non-strict export runs the call once while tracing and bakes its result into the graph as
    a constant: every call of the exported program sees the same "random" number. A
    `torch.manual_seed` call leaves no node: the exported program's random ops are not re-seeded
    on each call as eager's are (measured on torch 2.13). Strict export refuses both:
    `Unsupported: Attempted to call function marked as skipped`.

    ## Example
    ```python
    if self.training and random.random() < self.drop_prob:
    ```

    ## Use instead
    torch's own random ops (`torch.rand(())`, `torch.bernoulli`), which become graph nodes; pass
    times in as inputs; seed once outside the model, before calling it.

    ## Fix safety
    No automatic fix.

    ## Modes
    Warning in non-strict export (baked-in constant); error in strict export. Where only a
    training-mode export runs the call (`if self.training and random.random() < p:`), info in
    non-strict export and a warning naming training mode in strict export: an `.eval()` export
    never calls it.
    """

    CODE = "XPT402"
    NAME = "nondeterministic-python"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.ERROR
    SIDE_EFFECT = True
    PYTORCH_NAME = "Unsupported: Attempted to call function marked as skipped"
    FAILS_WITH = {
        Mode.STRICT: (
            TorchError("Unsupported", "Attempted to call function marked as skipped"),
            # torch 2.14+ (random.random()): an assertion naming no line of the model
            TorchError("AssertionError", "Dynamo attempts to add additional input during export", Versions(first=(2, 14))),
            TorchError("Unsupported", "Call to a time function", Versions(first=(2, 15))),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.resolve(node.func)
        if qualified in _SEEDING:
            self.report(node, f"`{short(node)}` runs once at export time: the exported program is not re-seeded")
        elif qualified is not None and qualified.startswith(_MODULES):
            self.report(node, f"`{short(node)}` runs once at export time and is baked in{_strict_words(self.ctx, qualified)}")

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
        ),
        Valid(
            """
            import torch
            class Dropout(torch.nn.Module):
                def forward(self, x):
                    return x * (torch.rand(x.shape) > 0.1)
            def xport_example():
                torch.manual_seed(0)  # outside the model: seeds the example, not the export
                return Dropout(), (torch.randn(4),)
            """
        ),
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
        Invalid(
            """
            import torch
            class Noisy(torch.nn.Module):
                def forward(self, x):
                    torch.manual_seed(0)  # expect: XPT402
                    return x + torch.rand(4)
            def xport_example():
                return Noisy(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import torch
            from torch import manual_seed
            class Noisy(torch.nn.Module):
                def forward(self, x):
                    generator = manual_seed(1234)  # expect: XPT402
                    return x + torch.randn(4, generator=generator)
            def export():
                return torch.export.export(Noisy(), (torch.randn(4),), strict=True)
            """
        ),
    ]
