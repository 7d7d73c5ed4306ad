from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rewrites import non_strict_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

_APIS = frozenset(
    {
        "torch.autograd.grad",
        "torch.utils.checkpoint.checkpoint",
        "torch.utils.checkpoint",
        # a trainable parameter made while tracing (it belongs in `__init__`)
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
    }
)


class TrainingOnlyApi(Rule):
    """Autograd, activation checkpointing or `nn.Parameter(...)` called inside traced code.

    ## What it does
    Flags `torch.autograd.grad(...)`, `torch.utils.checkpoint.checkpoint(...)` and
    `torch.nn.Parameter(...)` in traced code.

    ## Why it fails torch.export
    Strict export (Dynamo) refuses them: `Unsupported: using torch.autograd.grad with
    torch._dynamo.config.trace_autograd_ops=False`, checkpointing fails on
    `tag_activation_checkpoint`, and a parameter made in `forward` on `Attempted to use
    torch.nn.Parameter() with export` (measured on torch 2.13). Non-strict export inlines them
    and succeeds (a new parameter becomes a plain tensor of the graph), so this is only reported
    in strict mode.

    ## Example
    ```python
    return checkpoint(self.block, x, use_reentrant=False)
    ```

    ## Use instead
    Guard training-only paths with `if self.training:` and export in eval mode, or export
    non-strict. Make parameters in `__init__`; in `forward`, a plain tensor does.

    ## Fix safety
    Unsafe: `strict=True` becomes `strict=False` at the file's export calls (non-strict export
    runs this Python as is). It assumes the rest of the model exports non-strict too. No fix
    when strict mode comes from the configuration rather than from a call in the file.

    ## Modes
    Error in strict export; not reported in non-strict export.
    """

    CODE = "XPT408"
    NAME = "training-only-api"
    SEVERITY = None
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported (Dynamo)"
    FAILS_WITH = {
        Mode.STRICT: (
            TorchError("RuntimeError", "_checkpoint_context_fn"),
            TorchError("Unsupported", "torch.autograd.grad"),
            TorchError("Unsupported", "Attempted to use `torch.nn.Parameter()` with export"),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) in _APIS:
            rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
            message = f"`{short(node)}` cannot be traced by strict export"
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
            self.report(node, message, fix=rewrite.fix)

    VALID = [
        Valid(
            """
            import torch
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)
                def forward(self, x):
                    return self.linear(x)
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import torch
            from torch import nn
            class Scale(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(4))
                def forward(self, x):
                    return x * self.weight
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=True)
            """,
            modes=(Mode.STRICT,),
        ),
        Valid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * torch.nn.Parameter(torch.ones(4))
            def xport_example():
                return Scale(), (torch.randn(4),)
            """,
            modes=(Mode.NON_STRICT,),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.utils.checkpoint import checkpoint
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)
                def forward(self, x):
                    return checkpoint(self.linear, x, use_reentrant=False)  # expect: XPT408
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import torch
            from torch.utils.checkpoint import checkpoint
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)
                def forward(self, x):
                    return checkpoint(self.linear, x, use_reentrant=False)  # expect: XPT408
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Saliency(torch.nn.Module):
                def forward(self, x):
                    x = x.detach().requires_grad_(True)
                    (grad,) = torch.autograd.grad((x * x).sum(), x)  # expect: XPT408
                    return grad
            def xport_example():
                return Saliency(), (torch.randn(4),)
            def export():
                return torch.export.export(Saliency(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Saliency(torch.nn.Module):
                def forward(self, x):
                    x = x.detach().requires_grad_(True)
                    (grad,) = torch.autograd.grad((x * x).sum(), x)  # expect: XPT408
                    return grad
            def xport_example():
                return Saliency(), (torch.randn(4),)
            def export():
                return torch.export.export(Saliency(), (torch.randn(4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Scale(nn.Module):
                def forward(self, x):
                    weight = nn.Parameter(torch.ones(4))  # expect: XPT408
                    return x * weight
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            from torch import nn
            class Scale(nn.Module):
                def forward(self, x):
                    weight = nn.Parameter(torch.ones(4))  # expect: XPT408
                    return x * weight
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * torch.nn.Parameter(torch.ones(4), requires_grad=False)  # expect: XPT408
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * torch.nn.Parameter(torch.ones(4), requires_grad=False)  # expect: XPT408
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=False)
            """,
        ),
    ]
