from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
from ._conditions import short


class EnvironmentRead(Rule):
    """`os.environ` or `os.getenv` read in traced code.

    ## What it does
    Flags reads of environment variables in traced code.

    ## Why it fails torch.export
    The variable is read once, while exporting; the branch it selects is baked into the graph
    and the deployed program ignores the variable. Both export modes succeed silently.

    ## Example
    ```python
    if os.environ.get("USE_FAST_GELU"):
    ```

    ## Use instead
    Read configuration in `__init__` and store it on the module, so the choice is explicit and
    visible to whoever exports.

    ## Fix safety
    No automatic fix.

    ## Modes
    Warning in both modes (torch 2.13). Info where only a training-mode export, a non-default
    configuration or an optional argument runs the read: a default export's graph does not
    depend on it.
    """

    CODE = "XPT403"
    NAME = "environment-read"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SIDE_EFFECT = True
    PYTORCH_NAME = "baked-in constant"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in ("environ", "getenv") and self.ctx.resolve(node) in (
            "os.environ",
            "os.getenv",
        ):
            self.report(node, f"`{short(node)}` is read once at export time and baked in")

    VALID = [
        Valid(
            """
            import os
            import torch
            class Act(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fast = os.environ.get("FAST_GELU") == "1"
                def forward(self, x):
                    return torch.nn.functional.gelu(x, approximate="tanh" if self.fast else "none")
            def xport_example():
                return Act(), (torch.randn(4),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import os
            import torch
            class Act(torch.nn.Module):
                def forward(self, x):
                    if os.environ.get("FAST_GELU") == "1":  # expect: XPT403
                        return torch.nn.functional.gelu(x, approximate="tanh")
                    return torch.nn.functional.gelu(x)
            def xport_example():
                return Act(), (torch.randn(4),)
            """
        )
    ]
