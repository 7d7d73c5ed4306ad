from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind
from ..walk import iter_nodes
from ._conditions import short
from ._text import call_of, text_spellings

#: per spelling, the dimension kinds whose size makes each export mode fail (measured on torch
#: 2.13 under `Dim("height")` and `Dim.DYNAMIC`). `Dim.AUTO` fails the `str`, `bare`, `integer`
#: (strict) and `spec` spellings too, but only where nothing specialised the size first (a 0 or
#: 1 in the example, an earlier test narrows it silently): not claimed. A static size is an int.
_KEPT = frozenset({DimKind.NAMED, DimKind.DYNAMIC})
_FAILING: dict[str, dict[Mode, frozenset[DimKind]]] = {
    # f"height {H}", "height %s" % (H,): the joined text specialises the size (strict)
    "joined": {Mode.STRICT: _KEPT},
    # str(H), repr(H): Dynamo cannot trace them on a symbolic size (strict `Unsupported`)
    "str": {Mode.STRICT: _KEPT},
    # "h %s" % H, its operand no tuple: strict `Unsupported` (Dynamo fails on `str % SymInt`)
    "bare": {Mode.STRICT: _KEPT},
    # "%d" % H, "%d" % (H,): specialises the size in non-strict export too; strict `Unsupported`
    "integer": {Mode.NON_STRICT: _KEPT, Mode.STRICT: _KEPT},
    # f"{H:d}", f"{H:>4}", format(H, "d"): `SymInt.__format__` takes no format spec (non-strict `TypeError`)
    "spec": {Mode.NON_STRICT: _KEPT},
    # format(H), format(H, "d"): strict cannot make the size a constant (`AsPythonConstantNotImplementedError`)
    "format": {Mode.STRICT: _KEPT},
    # str(x.shape), str(x.size()) with a symbolic dimension: as `str` of the size (strict `Unsupported`)
    "shape": {Mode.STRICT: _KEPT},
}


_WHY = {
    "joined": "strict export specialises it to the example's value and fails (a plain message, or an "
    "`assert`'s, which Python builds only on failure, does not)",
    "str": "strict export cannot trace `str`/`repr` of a symbolic size and fails (`Unsupported`); a plain "
    "message, or an `assert`'s, which Python builds only on failure, does not",
    "bare": "strict export cannot trace `%` of a string and a symbolic size and fails (`Unsupported`); a "
    "plain message, or an `assert`'s, which Python builds only on failure, does not",
    "integer": "`%d` specialises it to the example's value (export fails; strict: `Unsupported`); a plain "
    "message, or an `assert`'s, which Python builds only on failure, does not",
    "spec": "non-strict export fails in `SymInt.__format__`, which takes no format spec (`TypeError`); a plain "
    "message, or an `assert`'s, which Python builds only on failure, does not",
    "format": "strict export cannot trace `format()` of a symbolic size and fails; a plain message, or an "
    "`assert`'s, which Python builds only on failure, does not",
    "shape": "strict export cannot trace `str`/`repr` of a shape holding a symbolic size and fails (`Unsupported`); "
    "a plain message, or an `assert`'s, which Python builds only on failure, does not",
}


class FormattedSize(Rule):
    """A size of a named or `Dim.DYNAMIC` dimension made into text on every export path (an f-string joining it with text, `str()`, `%`, `format()`, a format spec).

    ## What it does
    Flags text built from an input's size on every export of `forward` (passed to
    `torch._assert` or a helper, bound to a name, even unused), where export keeps that size
    symbolic (a named or derived `Dim`, or `Dim.DYNAMIC`) and the spelling makes it fail:
    - an f-string joining the size with other text (`f"height {H}"`, `f"{H}x{W}"`,
      `f"half {H // 2}"`) or `"height %s" % (H,)`: strict export;
    - `str(H)`, `repr(H)`, `str(int(H))`, `str(x.shape)`, `str((H, W))`, `format(H)`, or
      `"height %s" % H` (an operand that is no tuple), and `f"{H}" + "px"`: strict export;
    - `"height %d" % H` (`%i`, also in a tuple): both modes;
    - a format spec, `f"{H:d}"`, `f"{H:>4}"`, `format(H, "d")`: non-strict export (and strict
      for `format()`).

    The same through a one-line helper of the project (`def _name(v): return "h" + str(v)`,
    called as `_name(H)`): the finding is on the call.

    Left alone: a lone `f"{H}"`, `f"{x.shape}"` and `"{}".format(H)` (they export), the message of an
    `assert` (Python builds it only when the assertion fails), text under an `if` (the example
    may take the other side), a static dimension's size (a Python int), and a `Dim.AUTO` one: the
    spellings but the joining ones fail under it too, but only where nothing specialised the size
    first (a 0 or 1 in the example, an earlier test narrows it without a word).

    ## Why it fails torch.export
    Joined into text, the symbolic size becomes the example's value: export fails with
    `Constraints violated (height)! ... You marked height as dynamic but your code specialized
    it to be a constant (224)`. Strict export (Dynamo) cannot trace `str`/`repr` of a symbolic
    size (`Unsupported: Failed to trace builtin operator`) nor `%` of a string and one, other
    than `%s` of a tuple (`Unsupported: Observed exception`); non-strict export calls `SymInt.__format__`, which takes no format
    spec (`TypeError: unsupported format string passed to SymInt.__format__`). All measured on
    torch 2.13.

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
    Error in the modes each spelling fails in (above); the others export and get nothing.
    """

    CODE = "XPT309"
    NAME = "formatted-size"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {
        Mode.NON_STRICT: (
            TorchError("UserError", "Constraints violated"),
            TorchError("TypeError", "unsupported format string passed to SymInt.__format__"),
        ),
        Mode.STRICT: (
            TorchError("UserError", "Constraints violated"),
            TorchError("Unsupported", "Failed to trace builtin operator"),
            TorchError("Unsupported", "repr_impl not implemented"),
            TorchError("Unsupported", "Observed exception"),
            TorchError("AsPythonConstantNotImplementedError", "is not a constant"),
        ),
    }

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._judge(node, node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._judge(node, node)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.shape_config().any_dynamic() or self._judge(node, node):
            return  # a static size formats as a number
        sizes = self.ctx.sizes()
        inlined = sizes.called(node) if sizes is not None else None
        if inlined is not None:  # a one-line helper making its argument text: `_name(H)`
            for inner in iter_nodes(inlined):
                if self._judge(inner, node):
                    return

    def _judge(self, node: cst.CSTNode, at: cst.CSTNode) -> bool:
        """Report `at` where `node` makes a size text in a failing spelling: `node` is `at`, or
        part of what the helper `at` calls returns, written at the call. One finding each."""
        return any(self._check(at, value, spelling) for value, spelling in text_spellings(node))

    def _check(self, node: cst.CSTNode, value: cst.BaseExpression, spelling: str) -> bool:
        """Report `node` where `value` reads a size `spelling` makes this mode's export fail on."""
        failing = _FAILING[spelling].get(self.ctx.mode)
        config = self.ctx.shape_config()
        if not failing or not config.any_dynamic() or id(node) in self._lazy():
            return False
        sizes = self.ctx.sizes()
        if sizes is None:
            return False
        while call_of(value, ("int",)):  # `str(int(H))`: the same size
            value = value.args[0].value  # type: ignore[attr-defined]
        read = sizes.refs(value) if spelling != "shape" else sizes.shape_refs(value)
        for param, position, index in read or ():
            spec = config.dim(param, position, index)
            if spec.kind in failing:
                note = config.note()
                self.report(
                    node,
                    f"`{short(node)}` makes the size `{param}.shape[{index}]` ({spec.text()}, {config.source}) "
                    f"text: {_WHY[spelling]}",
                    notes=(note,) if note is not None else (),
                )
                return True
        return False

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
            class Tiles(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    kept = f"{H}"
                    shown = "width {}".format(W)
                    return x * 2
            def export():
                shapes = {"x": {2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}}
                return torch.export.export(Tiles(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
            """
        ),
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
            class Tiles(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    name = "tiles_" + str(W)  # expect: XPT309
                    return x * 2
            def export():
                shapes = {"x": {3: Dim("w", min=16, max=64)}}
                return torch.export.export(Tiles(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Tiles(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    torch._assert(H % 8 == 0, "height %d" % H)  # expect: XPT309
                    return x * 2
            def xport_example():
                shapes = {"x": {2: Dim("h", min=16, max=64)}}
                return {"model": Tiles(), "args": (torch.randn(2, 3, 32, 32),), "dynamic_shapes": shapes}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Tiles(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    label = f"{W:>4}"  # expect: XPT309
                    return x * 2
            def xport_example():
                shapes = {"x": {3: Dim("w", min=16, max=64)}}
                return {"model": Tiles(), "args": (torch.randn(2, 3, 32, 32),), "dynamic_shapes": shapes}
            """
        ),
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
        Invalid(
            """
            import torch
            from torch.export import Dim
            def _described(shape):
                return "input " + str(shape)
            class Patches(torch.nn.Module):
                def forward(self, x):
                    label = _described(x.shape)  # expect: XPT309
                    return x * 2
            def export():
                shapes = {"x": {2: Dim.DYNAMIC}}
                return torch.export.export(Patches(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
            """
        ),
    ]

