from __future__ import annotations

import libcst as cst

from ..export_site import DeclaredInput, ExportSite
from ..model import Applicability, Severity
from ..names import dotted
from ..report import FixProposal
from ..rule import Invalid, Rule, Scope, Valid
from .xpt503_static_export import example_sizes


class AutoDimSizeOne(Rule):
    """`Dim.AUTO` on a dimension whose example size is 0 or 1: export makes it static, silently.

    ## What it does
    For an export call (`torch.export.export`, `draft_export`) or an `xport_example()` that
    returns `model`, `args` and `dynamic_shapes`, matches each `Dim.AUTO` dimension with the
    example input written as a factory call (`torch.randn(1, 16)`) and flags the dimensions whose
    example size is the literal 0 or 1. The site is read through names bound once (`auto =
    Dim.AUTO`, `a, b = Dim.AUTO, Dim.AUTO`, `tokens = torch.randn(2, 1, 8)`) and one-line
    helpers of the project (`{0: _h(Dim.AUTO)}`).

    ## Why it fails torch.export
    It does not fail: torch specialises sizes 0 and 1 (the "0/1 specialisation"), and with
    `Dim.AUTO` it does so with only a log line. The exported program then accepts that one size:
    a batch of 1 in the example means batch 1 forever. A named `Dim` on the same dimension makes
    export raise instead.

    ## Example
    ```python
    torch.export.export(Net(), (torch.randn(1, 16),), dynamic_shapes={"x": {0: Dim.AUTO}})
    ```

    ## Use instead
    ```python
    torch.export.export(Net(), (torch.randn(2, 16),), dynamic_shapes={"x": {0: Dim.AUTO}})
    ```

    ## Fix safety
    Unsafe: the example's size becomes 2, which assumes the model runs on two items as it does
    on one (true for a batch; not for a dimension that must be 1). Offered where the example is
    written in the file and no other reader sees the name it is bound to.

    ## Modes
    Warning in both modes (torch 2.13). A confirmation (XPT907) reports the same from the
    exported program, including ranges a guard in the code narrowed.
    """

    CODE = "XPT504"
    NAME = "auto-dim-size-one"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SCOPE = Scope.MODULE
    TRIGGERS = ("AUTO",)
    PYTORCH_NAME = "0/1 specialisation"

    def visit_Module(self, node: cst.Module) -> None:
        program = self.ctx.program
        for site in program.export_sites:
            if site.model_class is None or not site.is_method or site.forward is None:
                continue
            for declared in site.inputs:
                self._input(site, declared)

    def _input(self, site: ExportSite, declared: DeclaredInput) -> None:
        program = self.ctx.program
        factory = declared.example
        sizes = example_sizes(factory, self.ctx.resolve)
        if sizes is None or not isinstance(factory, cst.Call):
            return
        for dim, hint in self._hints(declared.dims):
            size = program.follow(sizes[dim]) if dim < len(sizes) else None
            if not (isinstance(size, cst.Integer) and size.value in ("0", "1")):
                continue
            # the example is edited where it is written, when no other reader sees it
            editable = program.statement_of(size) is not None and (
                declared.written_example is None or program.read_once(program.follow_names(declared.written_example)[1])
            )
            fix = FixProposal(
                "Give the example size 2 on this dimension (assumes the model runs on 2 as on 1)",
                Applicability.UNSAFE,
                ((size, cst.Integer("2")),),
            ) if editable else None
            where = hint if program.statement_of(hint) is not None else declared.written
            where = where if program.statement_of(where) is not None else site.node
            self.report(
                where,
                f"`{declared.where}` dimension {dim} is Dim.AUTO but its example size is {size.value}: "
                "export specialises sizes 0 and 1, so the program accepts only that size",
                fix=fix,
                statement=program.statement_of(where),
            )

    def _hints(self, spec: cst.BaseExpression | None) -> list[tuple[int, cst.BaseExpression]]:
        """(dimension, hint as written in the declaration) for each `Dim.AUTO` in `{0: Dim.AUTO}`,
        `(Dim.AUTO, None)` or `(Dim.AUTO,) * 3` (each part read through names and helpers)."""
        follow = self.ctx.program.follow

        def auto(node: cst.BaseExpression) -> bool:
            name = dotted(follow(node)) or ""
            return name.endswith(("Dim.AUTO", "DimHint.AUTO"))

        spec = follow(spec) if spec is not None else None
        if isinstance(spec, cst.Dict):
            return [
                (key.evaluated_value, e.value)
                for e in spec.elements
                if isinstance(e, cst.DictElement) and isinstance(key := follow(e.key), cst.Integer) and auto(e.value)
            ]
        if isinstance(spec, cst.BinaryOperation) and isinstance(spec.operator, cst.Multiply):
            left, right = follow(spec.left), follow(spec.right)
            if isinstance(left, cst.Tuple) and isinstance(right, cst.Integer):
                items = [e.value for e in left.elements] * min(right.evaluated_value, 64)
                return [(i, v) for i, v in enumerate(items) if auto(v)]
        if isinstance(spec, (cst.Tuple, cst.List)):
            return [(i, e.value) for i, e in enumerate(spec.elements) if auto(e.value)]
        return []

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def xport_example():
                return {"model": Net(), "args": (torch.randn(2, 16),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def xport_example():
                return {"model": Net(), "args": (torch.randn(1, 16),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}  # expect: XPT504
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x.relu()
            def xport_example():
                return {"model": Net(), "args": (torch.randn(2, 16),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}  # expect: XPT504
            """,
            other_args="(torch.randn(3, 16),)",
        ),
        Invalid(
            """
            import torch
            class Decoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(8, 8)
                def forward(self, tokens, memory):
                    return self.proj(tokens) + memory.mean(1, keepdim=True)
            def xport_example():
                return Decoder(), (torch.randn(2, 4, 8), torch.randn(2, 6, 8))
            def export():
                # a single-token decode step as the example
                tokens = torch.randn(2, 1, 8)
                return torch.export.export(
                    Decoder(),
                    (tokens, torch.randn(2, 6, 8)),
                    dynamic_shapes={"tokens": (torch.export.Dim.AUTO,) * 3, "memory": None},  # expect: XPT504
                )
            """,
            expected_replacement="""
            import torch
            class Decoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(8, 8)
                def forward(self, tokens, memory):
                    return self.proj(tokens) + memory.mean(1, keepdim=True)
            def xport_example():
                return Decoder(), (torch.randn(2, 4, 8), torch.randn(2, 6, 8))
            def export():
                # a single-token decode step as the example
                tokens = torch.randn(2, 2, 8)
                return torch.export.export(
                    Decoder(),
                    (tokens, torch.randn(2, 6, 8)),
                    dynamic_shapes={"tokens": (torch.export.Dim.AUTO,) * 3, "memory": None},  # expect: XPT504
                )
            """,
        ),
    ]
