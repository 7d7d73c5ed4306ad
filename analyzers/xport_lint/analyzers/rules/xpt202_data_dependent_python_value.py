from __future__ import annotations

import libcst as cst

from ..dataflow import is_tensor_like
from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short

_OPS = frozenset({"equal", "allclose", "is_nonzero"})


class DataDependentPythonValue(Rule):
    """A torch op that returns a Python bool computed from tensor data (`torch.equal`, `allclose`).

    ## What it does
    Flags `torch.equal`, `torch.allclose`, `torch.is_nonzero` and their method forms in traced
    code.

    ## Why it fails torch.export
    Their output is a Python value, not a tensor, and it depends on the data: fake tensors cannot
    produce it. Non-strict export raises `DataDependentOutputException: aten.equal.default`;
    strict export raises `Unsupported: Data dependent operator`.

    ## Example
    ```python
    if torch.allclose(x, y):
        ...
    ```

    ## Use instead
    `torch.isclose(x, y).all()` or `(x == y).all()` keep the answer a tensor; select with
    `torch.where` or `torch.cond`.

    ## Fix safety
    No automatic fix.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT202"
    NAME = "data-dependent-python-value"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "DataDependentOutputException"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("DataDependentOutputException", "aten."),),
        Mode.STRICT: (TorchError("Unsupported", "Data dependent operator"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _OPS:
            return
        qualified = self.ctx.resolve(func)
        is_torch_fn = qualified is not None and qualified.startswith("torch.")
        is_method = qualified is None and is_tensor_like(self.ctx.value(func.value))
        if is_torch_fn or is_method:
            self.report(node, f"`{short(node)}` returns a Python bool computed from tensor data")

    VALID = [
        Valid(
            """
            import torch
            class Converged(torch.nn.Module):
                def forward(self, x, y):
                    return torch.where(torch.isclose(x, y).all(), x, (x + y) / 2)
            def xport_example():
                return Converged(), (torch.randn(4), torch.randn(4))
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Converged(torch.nn.Module):
                def forward(self, x, y):
                    if torch.allclose(x, y):  # expect: XPT202
                        return x
                    return (x + y) / 2
            def xport_example():
                return Converged(), (torch.randn(4), torch.randn(4))
            """
        ),
        Invalid(
            """
            import torch
            class Cache(torch.nn.Module):
                def forward(self, key, cached):
                    same = key.equal(cached)  # expect: XPT202
                    return cached * 2 if same else key
            def xport_example():
                return Cache(), (torch.ones(3), torch.ones(3))
            """
        ),
    ]
