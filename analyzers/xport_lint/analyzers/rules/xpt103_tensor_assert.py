from __future__ import annotations

import libcst as cst

from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rewrites import module_names
from ..rewrites.predicates import guard_problem, tensor_predicate
from ..rule import Invalid, Rule, TorchError, Valid
from ..syntax import argument
from ._conditions import Condition, asserted_test, classify, plain_message, short, tested


class TensorAssert(Rule):
    """`assert` on a tensor's value.

    ## What it does
    Flags `assert` statements in traced code whose condition is a tensor
    (`assert (x >= 0).all()`, `assert not t.isnan().any()`), and `torch._assert(condition, message)`
    of one (torch runs a Python `assert` of it: measured on torch 2.13, it fails both modes
    whatever the message). An `assert` on a number read with `.item()` is XPT104's: its
    message decides (measured on torch 2.13, int and float reads alike: with no message non-strict
    export turns it into a runtime assertion, with one it fails; `int()` / `bool()` of the tensor
    fail non-strict whatever the message).

    ## Why it fails torch.export
    Non-strict export evaluates `bool(tensor)` on a fake tensor and raises
    `GuardOnDataDependentSymNode`. Strict export (Dynamo) rewrites the assert into
    `torch._assert_async` only when it has no message or a string literal (an f-string with no
    replacement field counts); any other message (an f-string with a field, `"%d" % n`,
    `.format`, even of constants, or a name bound to a string) makes it branch on the tensor,
    which it refuses ("Data-dependent branching").

    ## Example
    ```python
    assert (x >= 0).all(), "negative input"
    ```

    ## Use instead
    ```python
    torch._assert_async((x >= 0).all(), "negative input")
    ```

    ## Fix safety
    Unsafe: the assertion stays in the exported graph, but it raises a `RuntimeError` instead of
    an `AssertionError`, and it still runs under `python -O`. A message that is not a plain
    string (an f-string of values) is dropped: tracing would compute it.

    ## Modes
    Error in non-strict export. In strict export, an error only where the message is not a string
    literal (an f-string with a field, `%`/`.format` formatting, a name) or the test is `not` of a
    tensor (measured: "Data-dependent branching"); an assert of a tensor with no message or a
    literal one exports there. `torch._assert` of a tensor is an error in both modes.
    """

    CODE = "XPT103"
    NAME = "tensor-assert"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),),
        Mode.STRICT: (
            TorchError("Unsupported", "Data-dependent branching"),
            TorchError("UserError", "Could not guard on data-dependent expression"),
        ),
    }

    def visit_Assert(self, node: cst.Assert) -> None:
        if not self._tests_a_tensor(node.test):
            return
        if self.ctx.mode is Mode.STRICT and plain_message(node.msg) and classify(self.ctx.value(node.test)) is Condition.TENSOR:
            # Dynamo turns it into torch._assert_async itself; not `not t.any()` (measured on
            # torch 2.13: "Data-dependent branching", where `a and t.all()` exports)
            return
        self._report(node, node.test, node.msg, "assert")

    def visit_Call(self, node: cst.Call) -> None:
        # `torch._assert(test, message)` asserts in Python inside torch: no mode keeps it
        test = asserted_test(self.ctx, node)
        if test is not None and self._tests_a_tensor(test):
            self._report(node, test, argument(node.args, 1, "message"), "torch._assert")

    def _tests_a_tensor(self, test: cst.BaseExpression) -> bool:
        return classify(self.ctx.value(test)) is Condition.TENSOR or any(
            classify(self.ctx.value(operand)) is Condition.TENSOR for operand in tested(test)
        )

    def _report(
        self, node: cst.Assert | cst.Call, test: cst.BaseExpression, message: cst.BaseExpression | None, keyword: str
    ) -> None:
        finding = f"{keyword} on the tensor value `{short(test)}`"
        if guard_problem(test):
            self.report(test, finding)
            return
        names = module_names(self.ctx.program.module)
        predicate = tensor_predicate(self.ctx.flow, test, torch=names.torch) if self.ctx.flow is not None else None
        args = [cst.Arg(predicate or test)]
        # a message that formats values would be computed while tracing (`f"{loss.item():.3f}"`
        # fails non-strict export itself): only a literal message is kept
        if message is not None and plain_message(message):
            args.append(cst.Arg(message))
        call = cst.Call(cst.parse_expression(f"{names.torch}._assert_async"), args)
        fix = FixProposal(
            "Use torch._assert_async (raises RuntimeError, kept under -O)",
            Applicability.UNSAFE,
            ((node, cst.Expr(call) if isinstance(node, cst.Assert) else call),),
            imports=names.imports,
        )
        self.report(test, finding, fix=fix)

    VALID = [
        Valid(
            """
            import torch
            class Probabilities(torch.nn.Module):
                def forward(self, p):
                    assert (p >= 0).all(), "negative probability"
                    return p / p.sum(-1, keepdim=True)
            def export():
                return torch.export.export(Probabilities(), (torch.rand(2, 4),), strict=True)
            """,
            modes=(Mode.STRICT,),
        ),
        Valid(
            """
            import torch
            class Positive(torch.nn.Module):
                def forward(self, x, n):
                    torch._check(n.item() > 0)
                    return x.log1p()
            def xport_example():
                return Positive(), (torch.rand(4), torch.tensor(4))
            """
        ),
        Valid(
            """
            import torch
            class Checked(torch.nn.Module):
                def forward(self, x):
                    assert x.dim() == 2, "expected (batch, features)"
                    return x.relu()
            def xport_example():
                return Checked(), (torch.randn(2, 3),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Masked(torch.nn.Module):
                def forward(self, x, mask):
                    torch._assert(mask.sum() > 0, "empty mask")  # expect: XPT103
                    return x * mask
            def xport_example():
                return Masked(), (torch.randn(4), torch.tensor([1, 0, 1, 1]))
            """,
            expected_replacement="""
            import torch
            class Masked(torch.nn.Module):
                def forward(self, x, mask):
                    torch._assert_async(mask.sum() > 0, "empty mask")  # expect: XPT103
                    return x * mask
            def xport_example():
                return Masked(), (torch.randn(4), torch.tensor([1, 0, 1, 1]))
            """,
        ),
        Invalid(
            """
            import torch
            class Bounded(torch.nn.Module):
                def forward(self, x):
                    assert (x.abs() < 1e4).all(), f"values out of range for shape {tuple(x.shape)}"  # expect: XPT103
                    return x.tanh()
            def export():
                return torch.export.export(Bounded(), (torch.randn(3),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Bounded(torch.nn.Module):
                def forward(self, x):
                    torch._assert_async((x.abs() < 1e4).all())  # expect: XPT103
                    return x.tanh()
            def export():
                return torch.export.export(Bounded(), (torch.randn(3),), strict=True)
            """,
        ),
        Invalid(
            """
            import torch
            class Probabilities(torch.nn.Module):
                def forward(self, p):
                    assert (p >= 0).all(), "negative probability"  # expect: XPT103
                    return p / p.sum(-1, keepdim=True)
            def xport_example():
                return Probabilities(), (torch.rand(2, 4),)
            """,
            expected_replacement="""
            import torch
            class Probabilities(torch.nn.Module):
                def forward(self, p):
                    torch._assert_async((p >= 0).all(), "negative probability")  # expect: XPT103
                    return p / p.sum(-1, keepdim=True)
            def xport_example():
                return Probabilities(), (torch.rand(2, 4),)
            """,
        ),
        Invalid(
            """
            import torch
            class TokenEmbed(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.embed = torch.nn.Embedding(100, 8)
                def forward(self, ids):
                    assert ids.max() < 100  # expect: XPT103
                    return self.embed(ids)
            def xport_example():
                return TokenEmbed(), (torch.randint(0, 100, (2, 6)),)
            """,
            expected_replacement="""
            import torch
            class TokenEmbed(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.embed = torch.nn.Embedding(100, 8)
                def forward(self, ids):
                    torch._assert_async(ids.max() < 100)  # expect: XPT103
                    return self.embed(ids)
            def xport_example():
                return TokenEmbed(), (torch.randint(0, 100, (2, 6)),)
            """,
        ),
        Invalid(
            """
            import torch
            class Loss(torch.nn.Module):
                def forward(self, pred, target):
                    loss = (pred - target).abs().mean()
                    assert torch.isfinite(loss), f"non-finite loss {loss.item():.3f}"  # expect: XPT103
                    return loss
            def xport_example():
                return Loss(), (torch.randn(4), torch.randn(4))
            """,
            expected_replacement="""
            import torch
            class Loss(torch.nn.Module):
                def forward(self, pred, target):
                    loss = (pred - target).abs().mean()
                    torch._assert_async(torch.isfinite(loss))  # expect: XPT103
                    return loss
            def xport_example():
                return Loss(), (torch.randn(4), torch.randn(4))
            """,
            other_args="(torch.full((4,), float('inf')), torch.zeros(4))",
        ),
    ]
