from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind
from ..walk import iter_nodes
from ._conditions import short


class FormattedSize(Rule):
    """An f-string that joins a size of a named or `Dim.DYNAMIC` dimension with other text (strict export specialises it).

    ## What it does
    Flags an f-string evaluated on every export of `forward` that formats an
    input's size together with other text (`f"height {H}"`, `f"{H}x{W}"`, `f"half {H // 2}"`),
    where that dimension is declared with a named `Dim` (or a derived one) or `Dim.DYNAMIC`:
    passed to `torch._assert` or a helper, bound to a name, even unused. Left alone: a lone
    `f"{H}"`, the message of an `assert` (Python builds it only when the assertion fails), a
    string under an `if` (the example may take the other side).

    ## Why it fails torch.export
    Strict export (Dynamo) builds the joined string from the size's value: the symbolic size
    becomes the example's, so export fails with `Constraints violated (height)! ... You marked
    height as dynamic but your code specialized it to be a constant (224)` (measured on torch
    2.13; non-strict export keeps the size symbolic and exports).

    ## Example
    ```python
    B, C, H, W = x.shape
    torch._assert(H % 16 == 0, f"height {H} not divisible")  # dynamic_shapes={"x": {2: Dim("h")}}
    ```

    ## Use instead
    A plain message (`torch._assert(H % 16 == 0, "height not divisible")`), or `assert H % 16
    == 0, f"height {H}"`, whose message Python builds only when the assertion fails.

    ## Fix safety
    No automatic fix: the message is the author's.

    ## Modes
    Error in strict export; nothing in non-strict export, which keeps the size symbolic and
    exports (measured). `Dim.AUTO` and static dimensions take the specialisation without a
    word: nothing reported.
    """

    CODE = "XPT309"
    NAME = "formatted-size"
    SEVERITY = None
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {Mode.STRICT: (TorchError("UserError", "Constraints violated"),)}

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        if len(node.parts) < 2 or id(node) in self._lazy():
            return
        sizes = self.ctx.sizes()
        if sizes is None:
            return
        config = self.ctx.shape_config()
        for part in node.parts:
            if not isinstance(part, cst.FormattedStringExpression):
                continue
            for param, position, index in sizes.refs(part.expression) or ():
                spec = config.dim(param, position, index)
                if spec.kind in (DimKind.NAMED, DimKind.DYNAMIC):
                    note = config.note()
                    self.report(
                        node,
                        f"`{short(node)}` formats the size `{param}.shape[{index}]` ({spec.text()}, "
                        f"{config.source}) into a string: strict export specialises it to the example's value "
                        "and fails (a plain message, or an `assert`'s, which Python builds only on failure, does not)",
                        notes=(note,) if note is not None else (),
                    )
                    return

    def _lazy(self) -> set[int]:
        """Nodes of the traced function a default export may not evaluate: under an `if`, an
        `assert`'s message, a lambda's or nested function's body. Found once per function."""
        traced = self.ctx.traced
        assert traced is not None
        key = f"xpt309:lazy:{id(traced.func)}"
        found = self.ctx.shared.get(key)
        if found is None:
            found = set(self.ctx.conditional())
            for inner in iter_nodes(traced.func.body):
                held = (
                    inner.msg
                    if isinstance(inner, cst.Assert)
                    else inner.body
                    if isinstance(inner, (cst.Lambda, cst.FunctionDef))
                    else None
                )
                if held is not None:
                    found.update(id(node) for node in iter_nodes(held))
            self.ctx.shared[key] = found
        return found  # type: ignore[return-value]

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Patches(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    assert H % 1 == 0, f"height {H}"  # built only if the assertion fails
                    torch._assert(W % 1 == 0, "width")
                    return x * 2
            def export():
                shapes = {"x": {2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}}
                return torch.export.export(Patches(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Patches(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    torch._assert(B > 0, f"batch {B}")  # the batch is static
                    return x * 2
            def export():
                shapes = {"x": {2: Dim.AUTO}}
                return torch.export.export(Patches(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Patches(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    torch._assert(H % 1 == 0, f"height {H}")  # expect: XPT309
                    return x * 2
            def export():
                shapes = {"x": {2: Dim("h", min=16, max=64)}}
                return torch.export.export(Patches(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
            """
        ),
    ]
