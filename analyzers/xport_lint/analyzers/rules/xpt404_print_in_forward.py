from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..names import dotted
from ..rule import Invalid, Rule, Valid
from ._conditions import short
from ._guards import eager_only


class PrintInForward(Rule):
    """`print(...)` in traced code.

    ## What it does
    Flags calls to the builtin `print` in traced code.

    ## Why it fails torch.export
    The print runs once, at export time (showing fake tensors), and is not part of the graph:
    the exported program never prints. Export succeeds in both modes.

    ## Example
    ```python
    print("attention scores", scores.shape)
    ```

    ## Use instead
    Debug in eager mode, or return what you want to inspect as an extra output.

    ## Fix safety
    Safe: a `print(...)` line becomes `if not torch.compiler.is_exporting():` around it. Eager
    prints as before; both export modes skip it (measured: they trace the guard and the
    program is the same), which is all the print did while exporting.

    ## Modes
    Warning in both modes (torch 2.13). Info where only a training-mode export, a non-default
    configuration or an optional argument runs the print: a default export never runs it.
    """

    CODE = "XPT404"
    NAME = "print-in-forward"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SIDE_EFFECT = True
    PYTORCH_NAME = "dropped side effect"

    def visit_Call(self, node: cst.Call) -> None:
        if dotted(node.func) == "print" and self.ctx.resolve(node.func) is None:
            self.report(node, f"`{short(node)}` runs at export time only; the graph drops it", fix=eager_only(self.ctx, node))

    VALID = [
        Valid(
            """
            import torch
            class Debug(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def run():
                print(Debug()(torch.randn(2)))
            def xport_example():
                return Debug(), (torch.randn(2),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Debug(torch.nn.Module):
                def forward(self, x):
                    print("input", x.shape)  # expect: XPT404
                    return x.relu()
            def xport_example():
                return Debug(), (torch.randn(2),)
            """,
            expected_replacement="""
            import torch
            class Debug(torch.nn.Module):
                def forward(self, x):
                    if not torch.compiler.is_exporting():
                        print("input", x.shape)  # expect: XPT404
                    return x.relu()
            def xport_example():
                return Debug(), (torch.randn(2),)
            """,
        )
    ]
