from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..dataflow import Kind
from ..model import Severity
from ..names import dotted
from ..rule import Invalid, Rule, Valid
from ._conditions import short
from ._guards import eager_only

_TENSOR_DATA = Kind.TENSOR | Kind.MASK | Kind.DD_TENSOR | Kind.DATA
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
    Warning in both modes (dropped side effect, torch 2.13) where the call formats tensor values
    (`logger.info("loss %f", loss)`): what eager logs on each call, the exported program never
    does. Info for a log of Python values or sizes only (advice: nothing the graph computes is lost),
    and for one that only a training-mode export or a non-default configuration runs.
    """

    CODE = "XPT405"
    NAME = "logging-in-forward"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SIDE_EFFECT = True
    PYTORCH_NAME = "dropped side effect"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _LEVELS:
            return
        qualified = self.ctx.resolve(func)
        is_logging = qualified is not None and qualified.startswith("logging.")
        receiver = dotted(func.value)
        if is_logging or (receiver is not None and receiver in self.ctx.program.loggers):
            if self._formats_tensor_data(node):
                self.report(node, f"`{short(node)}` runs at export time only: the exported program never logs "
                            "these tensor values", fix=eager_only(self.ctx, node))
            else:
                self.report(node, f"`{short(node)}` runs at export time only", fix=eager_only(self.ctx, node),
                            severity=Severity.INFO)

    def _formats_tensor_data(self, call: cst.Call) -> bool:
        """An argument reads tensor values (`x.mean()`, `loss`, `n.item()`), not only Python
        values or sizes (`x.shape[0]`): what eager logs on each call is lost."""
        return any(self.ctx.value(part).has(_TENSOR_DATA) for arg in call.args for part in _formatted(arg.value))


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
            class Watched(torch.nn.Module):
                def forward(self, x):
                    logger.warning("mean activation %s", x.mean())  # expect: XPT405
                    return x.relu()
            def xport_example():
                return Watched(), (torch.randn(2),)
            """,
            expected_replacement="""
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class Watched(torch.nn.Module):
                def forward(self, x):
                    if not torch.compiler.is_exporting():
                        logger.warning("mean activation %s", x.mean())  # expect: XPT405
                    return x.relu()
            def xport_example():
                return Watched(), (torch.randn(2),)
            """,
        ),
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


def _formatted(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The values a log message shows: the fields of an f-string, the operands of `%` and `+`,
    the elements of a tuple, the arguments of `.format(...)`, else the expression itself."""
    if isinstance(expr, cst.FormattedString):
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                yield from _formatted(part.expression)
    elif isinstance(expr, cst.BinaryOperation):
        yield from _formatted(expr.left)
        yield from _formatted(expr.right)
    elif isinstance(expr, (cst.Tuple, cst.List)):
        for element in expr.elements:
            yield from _formatted(element.value)
    elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "format":
        for arg in expr.args:
            yield from _formatted(arg.value)
    elif not isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)):
        yield expr
