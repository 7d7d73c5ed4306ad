from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
from ._conditions import short


class StateMutation(Rule):
    """Traced code assigns to an attribute of `self` or to a `global`.

    ## What it does
    Flags `self.x = ...`, `self.x += ...` and assignments to names declared `global` in
    traced code. In-place updates of registered buffers (`self.running.add_(x)`) are captured by
    export and not flagged.

    ## Why it fails torch.export
    Python attribute writes are not graph operations: they happen once, while exporting. A
    counter (`self.calls += 1`) is frozen at its export-time value, a cache (`self.last = x`)
    is never written by the exported program. Both modes export without complaint.

    ## Example
    ```python
    self.step += 1
    return x * self.step
    ```

    ## Use instead
    Keep state in a registered buffer and update it in place (`self.step.add_(1)`), or pass
    it in and return it.

    ## Fix safety
    No automatic fix.

    ## Modes
    Warning in both modes (torch 2.13).
    """

    CODE = "XPT406"
    NAME = "state-mutation"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    PYTORCH_NAME = "dropped side effect"

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check(node.target)

    def _check(self, target: cst.BaseExpression) -> None:
        traced = self.ctx.traced
        if traced is None or traced.func.name.value == "__init__":
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check(element.value)
            return
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            self.report(target, f"`{short(target)}` is set at export time; the graph drops it")
        elif isinstance(target, cst.Name) and target.value in self.ctx.globals_declared():
            self.report(target, f"global `{target.value}` is set at export time only")

    VALID = [
        Valid(
            """
            import torch
            class Counter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("calls", torch.zeros(()))
                def forward(self, x):
                    self.calls.add_(1)
                    return x * self.calls
            def xport_example():
                return Counter(), (torch.randn(3),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Counter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.calls = 0
                def forward(self, x):
                    self.calls += 1  # expect: XPT406
                    return x * self.calls
            def xport_example():
                return Counter(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            class KVCache(torch.nn.Module):
                def forward(self, k):
                    self.last_key = k  # expect: XPT406
                    return k * 2
            def xport_example():
                return KVCache(), (torch.randn(2, 4),)
            """
        ),
        Invalid(
            """
            import torch
            CALLS = 0
            class Tracked(torch.nn.Module):
                def forward(self, x):
                    global CALLS
                    CALLS = CALLS + 1  # expect: XPT406
                    return x + 1
            def xport_example():
                return Tracked(), (torch.randn(3),)
            """
        ),
    ]
