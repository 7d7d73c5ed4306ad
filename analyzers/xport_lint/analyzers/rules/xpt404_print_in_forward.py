from __future__ import annotations

import libcst as cst

from ..model import Applicability, Severity
from ..names import dotted
from ..report import BlockReplacement, FixProposal
from ..rule import Invalid, Rule, Valid
from ._conditions import short


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
    Warning in both modes (torch 2.13).
    """

    CODE = "XPT404"
    NAME = "print-in-forward"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    PYTORCH_NAME = "dropped side effect"

    def visit_Call(self, node: cst.Call) -> None:
        if dotted(node.func) == "print" and self.ctx.resolve(node.func) is None:
            self.report(node, f"`{short(node)}` runs at export time only; the graph drops it", fix=self._guard(node))

    def _guard(self, call: cst.Call) -> FixProposal | None:
        """The print's own line under `if not torch.compiler.is_exporting():`."""
        expr = self.ctx.statement
        if not isinstance(expr, cst.Expr) or expr.value is not call or self.ctx.traced is None:
            return None
        line = next(
            (node for node, _ in self.ctx.program.nodes(self.ctx.traced.func)
             if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and node.body[0] is expr),
            None,
        )
        if line is None:
            return None
        guarded = cst.If(
            test=cst.parse_expression("not torch.compiler.is_exporting()"),
            body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
            leading_lines=line.leading_lines,
        )
        return FixProposal(
            "Print only in eager (skip it while exporting)", Applicability.SAFE, (), imports=("torch",),
            blocks=(BlockReplacement(line, line, (guarded,)),),
        )

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
