from __future__ import annotations

import libcst as cst

from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rewrites import module_names
from ..rewrites.predicates import guard_problem, tensor_predicate
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import Condition, classify, plain_message, short


class TensorAssert(Rule):
    """`assert` on a tensor's value.

    ## What it does
    Flags `assert` statements in traced code whose condition is a tensor
    (`assert (x >= 0).all()`). An `assert` on a number read with `.item()` is XPT104's: its
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
    literal (an f-string with a field, `%`/`.format` formatting, a name); an assert with no
    message or a literal one exports there.
    """

    CODE = "XPT103"
    NAME = "tensor-assert"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),),
        Mode.STRICT: (TorchError("Unsupported", "Data-dependent branching"),),
    }

    def visit_Assert(self, node: cst.Assert) -> None:
        if classify(self.ctx.value(node.test)) is not Condition.TENSOR:
            return
        if self.ctx.mode is Mode.STRICT and plain_message(node.msg):
            return  # Dynamo turns it into torch._assert_async itself
        if guard_problem(node.test):
            self.report(node.test, f"assert on the tensor value `{short(node.test)}`")
            return
        names = module_names(self.ctx.program.module)
        test = tensor_predicate(self.ctx.flow, node.test, torch=names.torch) if self.ctx.flow is not None else None
        args = [cst.Arg(test or node.test)]
        # a message that formats values would be computed while tracing (`f"{loss.item():.3f}"`
        # fails non-strict export itself): only a literal message is kept
        if node.msg is not None and plain_message(node.msg):
            args.append(cst.Arg(node.msg))
        call = cst.Call(cst.parse_expression(f"{names.torch}._assert_async"), args)
        fix = FixProposal(
            "Use torch._assert_async (raises RuntimeError, kept under -O)",
            Applicability.UNSAFE,
            ((node, cst.Expr(call)),),
            imports=names.imports,
        )
        self.report(node.test, f"assert on the tensor value `{short(node.test)}`", fix=fix)

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
