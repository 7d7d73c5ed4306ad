from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..names import dotted
from ..rule import Invalid, Rule, Valid
from ._conditions import short
from ._guards import eager_only

_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


class LoggingInForward(Rule):
    """A `logging` call in traced code (`logger.info(...)`, `logging.warning(...)`).

    ## What it does
    Flags calls to the `logging` module's functions and to loggers created with
    `logging.getLogger` at module level.

    ## Why it fails torch.export
    Export runs the call once, at export time, and the graph drops it: the exported program
    never logs. (Strict export also fails outright on `logging.getLogger(...)` called inside
    `forward`: `Unsupported: Unresolved GetAttrVariable comparison`.)

    ## Example
    ```python
    logger.info("batch %s", x.shape)
    ```

    ## Use instead
    Log outside the model (around the call), or guard it with
    `if not torch.compiler.is_exporting():`.

    ## Fix safety
    Safe: a logging call alone on its line goes under `if not torch.compiler.is_exporting():`.
    Eager logs as before; both export modes skip it (measured on torch 2.13, also for a message
    that formats `x.mean().item()`), which is all the call did while exporting.

    ## Modes
    Warning in both modes (dropped side effect, torch 2.13).
    """

    CODE = "XPT405"
    NAME = "logging-in-forward"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    PYTORCH_NAME = "dropped side effect"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _LEVELS:
            return
        qualified = self.ctx.resolve(func)
        is_logging = qualified is not None and qualified.startswith("logging.")
        receiver = dotted(func.value)
        if is_logging or (receiver is not None and receiver in self.ctx.program.loggers):
            self.report(node, f"`{short(node)}` runs at export time only", fix=eager_only(self.ctx, node))

    VALID = [
        Valid(
            """
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class Quiet(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def load():
                logger.info("loading")
                return Quiet()
            def xport_example():
                return Quiet(), (torch.randn(2),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class Noisy(torch.nn.Module):
                def forward(self, x):
                    logger.info("batch of %d", x.shape[0])  # expect: XPT405
                    return x.relu()
            def xport_example():
                return Noisy(), (torch.randn(2),)
            """,
            expected_replacement="""
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class Noisy(torch.nn.Module):
                def forward(self, x):
                    if not torch.compiler.is_exporting():
                        logger.info("batch of %d", x.shape[0])  # expect: XPT405
                    return x.relu()
            def xport_example():
                return Noisy(), (torch.randn(2),)
            """,
        )
    ]
