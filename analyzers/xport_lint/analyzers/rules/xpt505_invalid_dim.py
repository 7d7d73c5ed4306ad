from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, Scope, TorchError, Valid
from ..shapes import dim_range_problem
from ..syntax import integer_literal

_DIMS = ("torch.export.Dim", "torch.export.dynamic_shapes.Dim")
_HINTS = tuple(f"{base}.{hint}" for base in _DIMS for hint in ("AUTO", "DYNAMIC", "STATIC"))


class InvalidDim(Rule):
    """A `Dim` whose range or name torch refuses: the export script fails before export runs.

    ## What it does
    Reads the literal arguments of `torch.export.Dim(name, min=..., max=...)` and of the hints
    `Dim.AUTO(...)`, `Dim.DYNAMIC(...)`, `Dim.STATIC(...)` anywhere in the file, and flags a
    range torch refuses: a named `Dim` whose `max` is not above its `min` (`min` defaults to
    0, so `max=0` too), a hint with a negative bound or `min > max`, and a `Dim` name that is not
    an identifier.

    ## Why it fails torch.export
    `Dim` checks its arguments when it is created: `AssertionError: Cannot create Dim with
    inconsistent min=8, max=2`, `AssertionError: min must be <= max, got min=8, max=2`, or
    `Dim name must be a valid identifier`. Nothing is exported, and xport-lint has no range to
    judge the model's size tests against (they are not checked against this declaration).

    ## Example
    ```python
    batch = Dim("batch", min=64, max=1)
    ```

    ## Use instead
    ```python
    batch = Dim("batch", min=1, max=64)
    ```

    ## Modes
    Error in both modes: the `Dim` is created before export chooses a mode.
    """

    CODE = "XPT505"
    NAME = "invalid-dim"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    FAILS_WITH = {
        Mode.NON_STRICT: (
            TorchError("AssertionError", "Cannot create Dim with inconsistent min="),
            TorchError("AssertionError", "min must be <= max"),
        ),
        Mode.STRICT: (
            TorchError("AssertionError", "Cannot create Dim with inconsistent min="),
            TorchError("AssertionError", "min must be <= max"),
        ),
    }
    SCOPE = Scope.MODULE
    #: a `Dim(...)` call, a hint (`Dim.AUTO(...)`), an alias (`import Dim as D`) or `dims(...)`; not "Dimension"
    TRIGGERS = ("Dim(", "Dim.", "Dim as", "dims(")
    PYTORCH_NAME = "AssertionError (Dim)"
    FAILS_WITH = {
        mode: (
            TorchError("AssertionError", "Cannot create Dim with inconsistent"),
            TorchError("AssertionError", "must be non-negative"),
            TorchError("AssertionError", "min must be <= max"),
            TorchError("AssertionError", "Dim name must be a valid identifier"),
        )
        for mode in Mode
    }

    def visit_Call(self, node: cst.Call) -> None:
        api = self.ctx.resolve(node.func)
        if api not in _DIMS and api not in _HINTS:
            return
        named = api in _DIMS
        bounds: dict[str, int | None] = {"min": None, "max": None}
        name = None
        for position, arg in enumerate(node.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in bounds:
                number = integer_literal(arg.value)
                if number is None:
                    return  # not a literal: the range is not known here
                bounds[keyword] = number
            elif named and (keyword == "name" or (keyword is None and position == 0)):
                if isinstance(arg.value, cst.SimpleString):
                    name = arg.value.evaluated_value
        problem = dim_range_problem(bounds["min"], bounds["max"], named)
        if problem is None and isinstance(name, str) and not name.isidentifier():
            problem = f"Dim name must be a valid identifier, got {name}"
        if problem is not None:
            self.report(node, f"torch refuses this `Dim` when it is created: `AssertionError: {problem}`")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.cumsum(-1)
            def export():
                batch = Dim("batch", min=1, max=64)
                seq = Dim.AUTO(min=8, max=8)
                shapes = {"x": {0: batch, 1: seq}}
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes=shapes)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.cumsum(-1)
            def export():
                batch = Dim("batch", min=64, max=1)  # expect: XPT505
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes={"x": {0: batch}})
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.cumsum(-1)
            def export():
                batch = Dim("batch", max=0)  # expect: XPT505
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes={"x": {0: batch}})
            """
        ),
        Invalid(
            """
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.cumsum(-1)
            def export():
                shapes = {"x": {0: torch.export.Dim.DYNAMIC(min=16, max=4)}}  # expect: XPT505
                return torch.export.export(Net(), (torch.randn(8, 8),), dynamic_shapes=shapes)
            """
        ),
    ]

