from __future__ import annotations

import libcst as cst

from ..dataflow import walk_statements
from ..export_site import EXPORT_APIS
from ..model import Applicability, Severity
from ..names import dotted
from ..report import FixProposal
from ..rule import Invalid, Rule, Scope, Valid
from ._declarations import holder, shapes_reader
from .xpt503_static_export import example_sizes


class AutoDimSizeOne(Rule):
    """`Dim.AUTO` on a dimension whose example size is 0 or 1: export makes it static, silently.

    ## What it does
    For an export call (`torch.export.export`, `draft_export`) or an `xport_example()` that
    returns `model`, `args` and `dynamic_shapes`, matches each `Dim.AUTO` dimension with the
    example input written as a factory call (`torch.randn(1, 16)`) and flags the dimensions whose
    example size is the literal 0 or 1. Names bound once in the same function are followed, and
    a hint bound to a name (`auto = Dim.AUTO`, `a, b = Dim.AUTO, Dim.AUTO`).

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
    on one (true for a batch; not for a dimension that must be 1).

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

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scan(node.body, example=node.name.value == "xport_example")

    def visit_Module(self, node: cst.Module) -> None:
        self._scan(node, example=False)

    def _scan(self, body: cst.CSTNode, example: bool) -> None:
        statements = list(walk_statements(body)) if isinstance(body, cst.BaseSuite) else [
            small for stmt in body.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body  # type: ignore[attr-defined]
        ]
        bound: dict[str, cst.BaseExpression] = {}
        rebound: set[str] = set()  # bound more than once: which value an export sees is unknown
        for stmt in statements:
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
                name = stmt.targets[0].target.value
                if name in bound:
                    rebound.add(name)
                bound[name] = stmt.value
        for name in rebound:
            del bound[name]
        for stmt in statements:
            values = [stmt.value] if isinstance(stmt, (cst.Expr, cst.Assign, cst.Return)) and stmt.value else []
            for value in values:
                if isinstance(value, cst.Call) and self.ctx.resolve(value.func) in EXPORT_APIS and len(value.args) >= 2:
                    spec = next((a.value for a in value.args if a.keyword and a.keyword.value == "dynamic_shapes"), None)
                    self._site(stmt, value.args[0].value, value.args[1].value, spec, bound)
                elif example and isinstance(stmt, cst.Return) and isinstance(value, cst.Dict):
                    entries = {
                        e.key.evaluated_value: e.value
                        for e in value.elements
                        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                    }
                    if "model" in entries and "args" in entries:
                        self._site(stmt, entries["model"], entries["args"], entries.get("dynamic_shapes"), bound)

    def _site(
        self,
        stmt: cst.CSTNode,
        model: cst.BaseExpression,
        args: cst.BaseExpression,
        spec: cst.BaseExpression | None,
        bound: dict[str, cst.BaseExpression],
    ) -> None:
        def follow(node: cst.BaseExpression | None) -> cst.BaseExpression | None:
            return bound.get(node.value, node) if isinstance(node, cst.Name) else node

        model, args, spec = follow(model), follow(args), follow(spec)
        if not (isinstance(model, cst.Call) and isinstance(args, cst.Tuple) and isinstance(spec, cst.Dict)):
            return
        cls = self.ctx.program.classes.get(dotted(model.func) or "")
        forward = cls.methods.get("forward") if cls is not None else None
        if forward is None:
            return
        names = [p.name.value for p in [*forward.params.posonly_params, *forward.params.params][1:]]
        examples = dict(zip(names, (follow(e.value) for e in args.elements), strict=False))
        for element in spec.elements:
            if not (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)):
                continue
            param = element.key.evaluated_value
            factory = examples.get(param)
            sizes = example_sizes(factory, self.ctx.resolve)
            if sizes is None or not isinstance(factory, cst.Call):
                continue
            for dim, hint in self._hints(follow(element.value)):
                size = sizes[dim] if dim < len(sizes) else None
                if isinstance(size, cst.Integer) and size.value in ("0", "1"):
                    self.report(
                        hint,
                        f"`{param}` dimension {dim} is Dim.AUTO but its example size is {size.value}: "
                        "export specialises sizes 0 and 1, so the program accepts only that size",
                        fix=FixProposal(
                            "Give the example size 2 on this dimension (assumes the model runs on 2 as on 1)",
                            Applicability.UNSAFE,
                            ((factory, factory.deep_replace(size, cst.Integer("2"))),),
                        ),
                        statement=holder(self.ctx, hint) or stmt,  # the hint's own statement
                    )

    def _hints(self, spec: cst.BaseExpression | None) -> list[tuple[int, cst.BaseExpression]]:
        """(dimension, hint) for each `Dim.AUTO` in `{0: Dim.AUTO}`, `(Dim.AUTO, None)` or
        `(Dim.AUTO,) * 3`."""
        reader = shapes_reader(self.ctx)

        def auto(node: cst.BaseExpression) -> bool:
            name = dotted(reader._follow(node)) or ""
            return name.endswith(("Dim.AUTO", "DimHint.AUTO"))

        if isinstance(spec, cst.Dict):
            return [
                (e.key.evaluated_value, reader._follow(e.value))
                for e in spec.elements
                if isinstance(e, cst.DictElement) and isinstance(e.key, cst.Integer) and auto(e.value)
            ]
        if isinstance(spec, cst.BinaryOperation) and isinstance(spec.operator, cst.Multiply):
            if isinstance(spec.left, cst.Tuple) and isinstance(spec.right, cst.Integer):
                items = [e.value for e in spec.left.elements] * min(spec.right.evaluated_value, 64)
                return [(i, v) for i, v in enumerate(items) if auto(v)]
        if isinstance(spec, (cst.Tuple, cst.List)):
            return [(i, reader._follow(e.value)) for i, e in enumerate(spec.elements) if auto(e.value)]
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
