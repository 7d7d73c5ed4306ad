from __future__ import annotations

import libcst as cst

from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rewrites import module_names
from ..rule import Invalid, Rule, Scope, TorchError, Valid

# API -> (replacement or None, what happened)
_REMOVED = {
    "torch.export.export_for_training": (
        "torch.export.export",
        "removed; `torch.export.export` returns the same training IR",
    ),
    "torch._export.capture_pre_autograd_graph": (
        None,
        "removed; use `torch.export.export(model, args).module()`",
    ),
}


class RemovedExportApi(Rule):
    """A call to an export API that torch 2.13 no longer has.

    ## What it does
    Flags `torch.export.export_for_training` and `torch._export.capture_pre_autograd_graph`
    anywhere in the file.

    ## Why it fails torch.export
    They are gone: `AttributeError: module 'torch.export' has no attribute
    'export_for_training'`. Since torch 2.9 `torch.export.export` itself produces the training IR
    that `export_for_training` used to.

    ## Example
    ```python
    ep = torch.export.export_for_training(model, args)
    ```

    ## Use instead
    ```python
    ep = torch.export.export(model, args)
    ```

    ## Fix safety
    Safe for `export_for_training` (same signature, same IR).

    ## Modes
    Error in both modes.
    """

    CODE = "XPT501"
    NAME = "removed-export-api"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SCOPE = Scope.MODULE
    TRIGGERS = ("export_for_training", "capture_pre_autograd_graph")
    PYTORCH_NAME = "AttributeError"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("AttributeError", "has no attribute"),),
        Mode.STRICT: (TorchError("AttributeError", "has no attribute"),),
    }

    def visit_Attribute(self, node: cst.Attribute) -> None:
        qualified = self.ctx.resolve(node)
        if qualified not in _REMOVED:
            return
        replacement, why = _REMOVED[qualified]
        fix = None
        if replacement is not None:
            names = module_names(self.ctx.program.module)
            spelled = names.torch + replacement.removeprefix("torch")
            fix = FixProposal(
                f"Use `{replacement}`",
                Applicability.SAFE,
                ((node, cst.parse_expression(spelled)),),
                imports=names.imports,
            )
        self.report(node, f"`{qualified}` is {why}", fix=fix)

    VALID = [
        Valid(
            """
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def xport_example():
                return Net(), (torch.randn(2),)
            def export():
                return torch.export.export(Net(), (torch.randn(2),))
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def xport_example():
                return Net(), (torch.randn(2),)
            def export():
                return torch.export.export_for_training(Net(), (torch.randn(2),))  # expect: XPT501
            """,
            expected_replacement="""
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def xport_example():
                return Net(), (torch.randn(2),)
            def export():
                return torch.export.export(Net(), (torch.randn(2),))  # expect: XPT501
            """,
        )
    ]
