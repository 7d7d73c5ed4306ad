from __future__ import annotations

import libcst as cst

from ..dataflow import is_tensor_like
from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

_METHODS = frozenset({"data_ptr"})


class TensorIdentity(Rule):
    """Traced code reads a tensor's memory: `x.data_ptr()` or `copy.deepcopy(x)`.

    ## What it does
    Flags `.data_ptr()` on tensors and `copy.deepcopy` of tensors in traced code.

    ## Why it fails torch.export
    Export's fake tensors have no storage: `RuntimeError: Cannot access data pointer of Tensor
    (e.g. FakeTensor, FunctionalTensor)` in non-strict export; strict export refuses with
    `Unsupported` ("Attempted to copy.deepcopy a tensor").

    ## Example
    ```python
    snapshot = copy.deepcopy(x)
    ```

    ## Use instead
    `x.clone()` copies a tensor inside the graph; compare tensors by value, not by address.

    ## Fix safety
    `copy.deepcopy(x)` -> `x.clone()` is safe for a tensor argument.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT407"
    NAME = "tensor-identity"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "RuntimeError: Cannot access data pointer of Tensor"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("RuntimeError", "Cannot access data pointer of Tensor"),),
        Mode.STRICT: (TorchError("Unsupported", "Attempted to copy.deepcopy a tensor"), TorchError("Unsupported", "Data pointer comparison"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _METHODS:
            if is_tensor_like(self.ctx.value(func.value)):
                self.report(node, f"`{short(node)}` needs real memory; fake tensors have none")
            return
        if self.ctx.resolve(func) == "copy.deepcopy" and len(node.args) == 1:
            arg = node.args[0].value
            if is_tensor_like(self.ctx.value(arg)):
                clone = cst.Call(cst.Attribute(arg, cst.Name("clone")))
                fix = FixProposal("Use `.clone()`", Applicability.SAFE, ((node, clone),))
                self.report(node, f"`{short(node)}` deep-copies a fake tensor", fix=fix)

    VALID = [
        Valid(
            """
            import torch
            class Snapshot(torch.nn.Module):
                def forward(self, x):
                    return x.clone() + 1
            def xport_example():
                return Snapshot(), (torch.randn(3),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import copy
            import torch
            class Snapshot(torch.nn.Module):
                def forward(self, x):
                    return copy.deepcopy(x) + 1  # expect: XPT407
            def xport_example():
                return Snapshot(), (torch.randn(3),)
            """,
            expected_replacement="""
            import copy
            import torch
            class Snapshot(torch.nn.Module):
                def forward(self, x):
                    return x.clone() + 1  # expect: XPT407
            def xport_example():
                return Snapshot(), (torch.randn(3),)
            """,
        ),
        Invalid(
            """
            import torch
            class Aliased(torch.nn.Module):
                def forward(self, x, y):
                    if x.data_ptr() == y.data_ptr():  # expect: XPT407
                        return x * 2
                    return x + y
            def xport_example():
                return Aliased(), (torch.randn(3), torch.randn(3))
            """
        ),
    ]
