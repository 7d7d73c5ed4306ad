from __future__ import annotations

import libcst as cst

from ..dataflow import Kind, is_tensor_like
from ..model import Applicability, Severity
from ..names import dotted
from ..positions import code_of
from ..report import FixProposal
from ..rule import Invalid, Rule, Valid
from ._conditions import short
from ._guards import eager_only


class TensorToPythonNumber(Rule):
    """A tensor made a Python number: `int(t)`, `float(t)`, `bool(t)`, `len()`, `f"{t.item():.3f}"`.

    `len()` of a tensor whose size depends on data; `f"{...:.3f}"` or `"%.3f" % ...` of a tensor
    or of a number read from one.

    ## What it does
    Flags Python number conversions of tensors in traced code, and number formatting (a format
    spec in an f-string, `"%.3f" % value`) of tensors and of numbers read from them.

    ## Why it fails torch.export
    Non-strict export runs these conversions on fake tensors through `__torch_function__`, which
    must specialise the value to a concrete Python number, and there is none: it raises
    `GuardOnDataDependentSymNode` ("Could not extract specialized integer"). `t.item()` gives the
    same number as an unbacked symbol that export can carry through arithmetic and sizes, but
    not format: `f"{loss.item():.3f}"` fails too (`TypeError` on a tensor, a guard on data for
    the symbol). `f"{v}"` and `print(v)` show the symbol and export. Strict export (Dynamo)
    converts these to `.item()` itself.

    ## Example
    ```python
    scale = float(x.abs().max())
    ```

    ## Use instead
    ```python
    scale = x.abs().max().item()
    ```

    ## Fix safety
    A print, warning or logging call that formats the number goes under
    `if not torch.compiler.is_exporting():` (safe: eager prints as before; measured to export in
    both modes). `float(t)` becomes `t.item()`, unsafe: `int(t)` truncates a floating-point tensor while `t.item()` returns a float, and
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

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if node.format_spec:
            spec = "".join(code_of(part) for part in node.format_spec)
            self._formatted(node.expression, f"with `:{spec}`")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo) and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)):
            right = node.right
            for operand in [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]:
                self._formatted(operand, f"with `{short(node.left)}`")

    def _formatted(self, operand: cst.BaseExpression, shown: str) -> None:
        value = self.ctx.value(operand)
        if is_tensor_like(value):
            what = "a tensor"
        elif value.has(Kind.DATA) and not value.has(Kind.SHAPE):
            what = "a number read from tensor data"
        else:
            return
        self.report(operand, f"`{short(operand)}` is {what}, formatted as a number {shown}: non-strict "
                    "export has no number to format",
                    fix=eager_only(self.ctx))

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
        ),
        Valid(
            """
            import torch
            class Report(torch.nn.Module):
                def forward(self, x):
                    print(f"mean {x.mean().item()}")
                    return x * 2
            def xport_example():
                return Report(), (torch.randn(3),)
            """
        ),
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
        Invalid(
            """
            import torch
            class Criterion(torch.nn.Module):
                def forward(self, pred, target):
                    loss = ((pred - target) ** 2).mean()
                    print(f"loss {loss.item():.3f}")  # expect: XPT203
                    return loss
            def xport_example():
                return Criterion(), (torch.randn(4), torch.randn(4))
            """,
            expected_replacement="""
            import torch
            class Criterion(torch.nn.Module):
                def forward(self, pred, target):
                    loss = ((pred - target) ** 2).mean()
                    if not torch.compiler.is_exporting():
                        print(f"loss {loss.item():.3f}")  # expect: XPT203
                    return loss
            def xport_example():
                return Criterion(), (torch.randn(4), torch.randn(4))
            """,
        ),
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    label = "peak %.2f" % x.max().item()  # expect: XPT203
                    return x / x.max(), label
            def xport_example():
                return Scale(), (torch.randn(3),)
            """
        ),
    ]
