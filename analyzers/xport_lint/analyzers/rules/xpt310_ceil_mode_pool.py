from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rewrites import Rewrite
from ..rewrites.export_calls import dynamic_dim_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, DimSpec, SizeRef, term_refs
from ..walk import iter_nodes
from ._conditions import short


class CeilModePool(Rule):
    """A max or average pool with `ceil_mode=True` and a stride of 2 or more along a named `Dim`.

    ## What it does
    In a model's `forward`, flags a pool that rounds its output size up (`nn.MaxPool2d(3, 2,
    ceil_mode=True)` applied as `self.pool(x)`, `F.max_pool2d(x, 3, 2, ceil_mode=True)`,
    `F.avg_pool2d(x, 3, 2, 0, True)`, or such a pool inside an `nn.Sequential` after layers that
    carry its input's sizes: convolutions, pools, norms, activations) where a spatial size it
    pools with a stride of 2 or more reads a named `Dim` (also after convolutions: the size is
    then a function of it). Pools under an `if` are left out (the example may take the other
    side).

    ## Why it fails torch.export
    With `ceil_mode=True` torch checks that the last window starts inside the input, and export
    records the guard (`2*((h - 1) // 2) < h` for kernel 3, stride 2). It holds for every size,
    but torch cannot prove it over a named `Dim`'s range, so export fails with `Constraints
    violated (h)! Not all values of h ... satisfy the generated guard` (measured on torch 2.13,
    both modes, with or without a range, for max and average pools of 1 to 3 dimensions and
    paddings 0 and 1; after a strided convolution the failure is an `AssertionError` of the
    guard's simplification).

    ## Example
    ```python
    self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)   # in __init__
    h = self.pool(x)                                         # dynamic_shapes={"x": {2: Dim("h")}}
    ```

    ## Use instead
    Declare the dimension `Dim.DYNAMIC` with the same range (`Dim.DYNAMIC(min=4, max=64)`):
    export keeps it dynamic and accepts a guard that holds; or declare the size a multiple of the
    stride (`2 * Dim("k")`), over which torch proves the guard.

    ## Fix safety
    Unsafe: the fix replaces the named `Dim` of that dimension with `Dim.DYNAMIC` over the same
    range, where the `Dim` declares that dimension only (a `Dim` shared by two sizes, or one a
    derived `Dim` is built from, ties them: no fix) and `forward` tests no size read from it (a
    named `Dim` makes such a test fail export; `Dim.DYNAMIC` narrows the range to the example's
    side of it without a word: no fix). The exported program accepts the same sizes.

    ## Modes
    Error in both modes (torch 2.13). Not reported: a stride of 1 (nothing is rounded), a
    `Dim.DYNAMIC` or `Dim.AUTO` dimension, a derived `Dim` (`2 * k`, `2 * k + 1`: torch proves
    the guard), a static size, `ceil_mode=False` and adaptive pools (all measured to export).
    """

    CODE = "XPT310"
    NAME = "ceil-mode-pool"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {
        mode: (
            TorchError("UserError", "Constraints violated"),
            TorchError("AssertionError", "Expected op to be '=='"),
        )
        for mode in Mode
    }

    def visit_Call(self, node: cst.Call) -> None:
        traced = self.ctx.traced
        if traced is None or traced.cls is None or not self.ctx.shape_config().any_named():
            return
        sizes = self.ctx.sizes()
        pooled = sizes.rounded_up_pool(node) if sizes is not None else None
        if pooled is None or id(node) in self.ctx.conditional():
            return
        tensor, spatial, strides = pooled
        rank = sizes.rank(tensor)  # type: ignore[union-attr]
        if rank is None or rank < spatial:
            return
        config = self.ctx.shape_config()
        for offset, stride in enumerate(strides):
            if stride is None or stride < 2:
                continue
            index = rank - spatial + offset
            term = sizes.size_term(tensor, index)  # type: ignore[union-attr]
            found = sizes.dim_of(tensor, index) if term is None else None  # type: ignore[union-attr]
            refs = term_refs(term) if term is not None else [found] if found is not None else []
            specs = [config.dim(*ref) for ref in refs]
            named = [(ref, spec) for ref, spec in zip(refs, specs, strict=True) if spec.kind is DimKind.NAMED]
            if not named or any(spec.derived or spec.kind in (DimKind.AUTO, DimKind.DYNAMIC) for spec in specs):
                continue
            ref, spec = named[0]
            rewrite = self._made_dynamic(ref, spec)
            message = (
                f"`{short(node)}` pools `{ref[0]}.shape[{ref[2]}]` (`{spec.text()}`) with ceil_mode=True and stride "
                f"{stride}: export guards that the last window starts inside the input, which holds but torch cannot "
                f"prove over a named Dim, and fails with ConstraintViolationError; declare it `Dim.DYNAMIC` over the "
                f"same range, or a multiple of the stride (`{stride} * Dim(...)`)"
            )
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
            note = config.note()
            self.report(node, message, fix=rewrite.fix, notes=(note,) if note is not None else ())
            return

    def _made_dynamic(self, ref: SizeRef, spec: DimSpec) -> Rewrite:
        program, traced = self.ctx.program, self.ctx.traced
        assert traced is not None and traced.cls is not None
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        if shapes is None or program.shapes_reader is None:
            return Rewrite(reason="the dynamic_shapes are declared in another file")
        config = self.ctx.shape_config()
        uses = [other for _, dims in config.inputs for _, other in dims
                if other.kind is DimKind.NAMED and other.name == spec.name]
        if len(uses) != 1:
            return Rewrite(reason=f"`{spec.name}` declares more than this size: making it Dim.DYNAMIC unties them")
        sizes = self.ctx.sizes()
        tested = sizes is None or any(  # a size the model cannot place may be read from it
            isinstance(inner, cst.Comparison) and ((read := sizes.refs(inner)) is None or ref in read)
            for inner in iter_nodes(traced.func.body)
        )
        if tested:
            return Rewrite(reason=f"`forward` tests a size read from `{ref[0]}.shape[{ref[2]}]`: under Dim.DYNAMIC "
                                  "export would narrow the range to the example's side of it without a word")
        reader = program.shapes_reader
        return dynamic_dim_rewrite(
            reader.spec_node(shapes, *ref), reader.declaration(shapes, *ref), self.ctx.resolve, spec.low, spec.high,
            "export accepts the pool's guard, which holds for every size",
        )

    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Stem(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = torch.nn.MaxPool2d(3, stride=2, ceil_mode=True)
                def forward(self, x):
                    return self.pool(x)  # expect: XPT310
            def xport_example():
                shapes = {"x": {2: Dim("h", min=4, max=64)}}
                return {"model": Stem(), "args": (torch.randn(2, 3, 16, 16),), "dynamic_shapes": shapes}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Stem(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = torch.nn.MaxPool2d(3, stride=2, ceil_mode=True)
                def forward(self, x):
                    return self.pool(x)  # expect: XPT310
            def xport_example():
                shapes = {"x": {2: Dim.DYNAMIC(min=4, max=64)}}
                return {"model": Stem(), "args": (torch.randn(2, 3, 16, 16),), "dynamic_shapes": shapes}
            """,
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch.export import Dim
            class Smooth(torch.nn.Module):
                def forward(self, x):
                    h = F.avg_pool2d(x, 3, 2, 0, True)  # expect: XPT310
                    return h * 2
            def export():
                height = Dim("height")
                shapes = {"x": {2: height}}
                return torch.export.export(Smooth(), (torch.randn(2, 3, 16, 16),), dynamic_shapes=shapes, strict=True)
            """,
            expected_replacement="""
            import torch
            import torch.nn.functional as F
            from torch.export import Dim
            class Smooth(torch.nn.Module):
                def forward(self, x):
                    h = F.avg_pool2d(x, 3, 2, 0, True)  # expect: XPT310
                    return h * 2
            def export():
                height = Dim("height")
                shapes = {"x": {2: Dim.DYNAMIC}}
                return torch.export.export(Smooth(), (torch.randn(2, 3, 16, 16),), dynamic_shapes=shapes, strict=True)
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            from torch.export import Dim
            class Features(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.features = nn.Sequential(
                        nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, ceil_mode=True),
                    )
                def forward(self, x):
                    return self.features(x)  # expect: XPT310
            def xport_example():
                side = Dim("side", min=32, max=512)
                shapes = {"x": {2: side, 3: side}}
                return {"model": Features(), "args": (torch.randn(2, 3, 64, 64),), "dynamic_shapes": shapes}
            """,
        ),
    ]

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Stem(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = torch.nn.MaxPool2d(3, stride=1, ceil_mode=True)
                def forward(self, x):
                    return self.pool(x)
            def xport_example():
                shapes = {"x": {2: Dim("h", min=4, max=64)}}
                return {"model": Stem(), "args": (torch.randn(2, 3, 16, 16),), "dynamic_shapes": shapes}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Stem(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = torch.nn.MaxPool2d(3, stride=2, ceil_mode=True)
                def forward(self, x):
                    return self.pool(x)
            def xport_example():
                shapes = {"x": {2: 2 * Dim("k", min=2, max=32)}}
                return {"model": Stem(), "args": (torch.randn(2, 3, 16, 16),), "dynamic_shapes": shapes}
            """
        ),
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch.export import Dim
            class Smooth(torch.nn.Module):
                def forward(self, x):
                    return F.max_pool2d(x, 3, 2, ceil_mode=True) * 2
            def xport_example():
                shapes = {"x": {0: Dim("batch", min=1, max=8), 2: Dim.DYNAMIC}}
                return {"model": Smooth(), "args": (torch.randn(2, 3, 16, 16),), "dynamic_shapes": shapes}
            """
        ),
    ]
