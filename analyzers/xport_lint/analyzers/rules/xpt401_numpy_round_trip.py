from __future__ import annotations

import libcst as cst

from ..dataflow import is_tensor_like
from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short


class NumpyRoundTrip(Rule):
    """A tensor converted to numpy inside traced code (`x.numpy()`, `x.cpu().numpy()`).

    ## What it does
    Flags `.numpy()` on tensors in traced code. numpy on plain Python constants is fine.

    ## Why it fails torch.export
    Non-strict export traces with fake tensors, which have no memory to hand to numpy:
    `RuntimeError: .numpy() is not supported for tensor subclasses`. Strict export (Dynamo)
    traces numpy calls through `torch._numpy`, so it succeeds there.

    ## Example
    ```python
    return torch.from_numpy(np.sort(x.numpy()))
    ```

    ## Use instead
    The torch equivalent (`torch.sort(x).values`); nearly every numpy function has one.

    ## Fix safety
    No automatic fix.

    ## Modes
    Error in non-strict export; not reported in strict export.
    """

    CODE = "XPT401"
    NAME = "numpy-round-trip"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = None
    PYTORCH_NAME = "RuntimeError: .numpy() is not supported for tensor subclasses"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("RuntimeError", ".numpy() is not supported for tensor subclasses"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy":
            if is_tensor_like(self.ctx.value(func.value)):
                self.report(node, f"`{short(node)}` leaves torch for numpy during tracing")

    VALID = [
        Valid(
            """
            import numpy as np
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * float(np.sqrt(2.0))
            def xport_example():
                return Scale(), (torch.randn(3),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import numpy as np
            import torch
            class Median(torch.nn.Module):
                def forward(self, x):
                    values = np.median(x.detach().numpy(), axis=-1)  # expect: XPT401
                    return torch.from_numpy(values)
            def xport_example():
                return Median(), (torch.randn(2, 5),)
            """
        )
    ]
