from __future__ import annotations

import libcst as cst

from ..dataflow import Kind, is_tensor_like
from ..model import Applicability, Severity
from ..names import dotted
from ..report import FixProposal
from ..rule import Invalid, Rule, Valid
from ._conditions import short


class TensorToPythonNumber(Rule):
    """`int(t)`, `float(t)` or `bool(t)` of a tensor, or `len()` of a data-dependent-size tensor.

    ## What it does
    Flags Python number conversions of tensors in traced code.

    ## Why it fails torch.export
    Non-strict export runs these conversions on fake tensors through `__torch_function__`, which
    must specialise the value to a concrete Python number, and there is none: it raises
    `GuardOnDataDependentSymNode` ("Could not extract specialized integer"). `t.item()` gives the
    same number as an unbacked symbol that export can carry through arithmetic and sizes.
    Strict export (Dynamo) converts these to `.item()` itself.

    ## Example
    ```python
    scale = float(x.abs().max())
    ```

    ## Use instead
    ```python
    scale = x.abs().max().item()
    ```

    ## Fix safety
    Unsafe: `int(t)` truncates a floating-point tensor while `t.item()` returns a float, and
    `bool(t)` becomes a number instead of a bool; equal for tensors of the target dtype.

    ## Modes
    Error in non-strict export; not reported in strict export.
    """

    CODE = "XPT203"
    NAME = "tensor-to-python-number"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = None
    PYTORCH_NAME = "GuardOnDataDependentSymNode (specialized integer)"

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted(node.func)
        if name not in ("int", "float", "bool", "len") or len(node.args) != 1:
            return
        if self.ctx.resolve(node.func) is not None:
            return  # shadowed by an import
        arg = node.args[0].value
        value = self.ctx.value(arg)
        if name == "len":
            if value.has(Kind.DD_TENSOR):
                self.report(node, f"`{short(node)}` reads a size that depends on tensor data")
            return
        if not is_tensor_like(value) or (self.ctx.flow is not None and self.ctx.flow.constant_tensor(arg)):
            return  # not a tensor, or one made from Python numbers: a constant of the export
        fix = None
        if name == "float":
            if not isinstance(arg, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
                arg = arg.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            item = cst.Call(cst.Attribute(arg, cst.Name("item")))
            fix = FixProposal(
                "Use `.item()` (assumes a floating-point tensor)",
                Applicability.UNSAFE,
                ((node, item),),
            )
        self.report(node, f"`{short(node)}` turns a tensor into a Python number", fix=fix)

    VALID = [
        Valid(
            """
            import torch
            class Normalise(torch.nn.Module):
                def forward(self, x):
                    return x / x.abs().max().item()
            def xport_example():
                return Normalise(), (torch.randn(6),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Normalise(torch.nn.Module):
                def forward(self, x):
                    return x / float(x.abs().max())  # expect: XPT203
            def xport_example():
                return Normalise(), (torch.randn(6),)
            """,
            expected_replacement="""
            import torch
            class Normalise(torch.nn.Module):
                def forward(self, x):
                    return x / x.abs().max().item()  # expect: XPT203
            def xport_example():
                return Normalise(), (torch.randn(6),)
            """,
        ),
        Invalid(
            """
            import torch
            class Pad(torch.nn.Module):
                def forward(self, tokens, lengths):
                    total = int(lengths.sum())  # expect: XPT203
                    return torch.nn.functional.pad(tokens, (0, total))
            def xport_example():
                return Pad(), (torch.randn(2, 3), torch.tensor([1, 2]))
            """
        ),
        Invalid(
            """
            import torch
            class TopHits(torch.nn.Module):
                def forward(self, scores):
                    hits = scores.nonzero()
                    k = len(hits)  # expect: XPT203
                    return scores[:k]
            def xport_example():
                return TopHits(), (torch.randn(8),)
            """
        ),
    ]
