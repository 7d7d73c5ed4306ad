from __future__ import annotations

import libcst as cst

from ..dataflow import is_tensor_like, param_value
from ..model import Applicability, Severity
from ..names import dotted
from ..rule import FixProposal, Invalid, Rule, Scope, Valid


class StaticExport(Rule):
    """`torch.export.export` of a model without `dynamic_shapes`: every input size is baked in.

    ## What it does
    Flags `torch.export.export(Model(...), args)` calls with no `dynamic_shapes`, where `Model`
    is defined in the file, and offers `dynamic_shapes` with `Dim.AUTO` for each tensor argument
    of `forward` (named after its parameters).

    ## Why it fails torch.export
    It does not fail: export succeeds, with every dimension of every input specialised to the
    example's size. The exported program then rejects any other batch size or sequence length
    (`Guard failed: x.size()[0] == 2`), which deployment usually finds out late.

    ## Example
    ```python
    ep = torch.export.export(Encoder(), (tokens,))
    ```

    ## Use instead
    ```python
    ep = torch.export.export(Encoder(), (tokens,), dynamic_shapes={"tokens": torch.export.Dim.AUTO})
    ```
    or named ranges where you know them: `{"tokens": {0: Dim("batch", max=64)}}`.

    ## Fix safety
    Unsafe: `Dim.AUTO` lets export decide which dimensions stay dynamic. An example dimension of
    size 0 or 1 is still specialised (torch logs "0/1 specialized"), and a branch on a size
    narrows the range (see XPT301): give the example sizes of at least 2 and check the program's
    `range_constraints`.

    ## Modes
    Info in both modes (advice: the static program is what you asked for). Opt-in:
    `extend-select = ["XPT503"]`.
    """

    CODE = "XPT503"
    NAME = "static-export"
    SEVERITY = Severity.INFO
    STRICT_SEVERITY = Severity.INFO
    SCOPE = Scope.MODULE
    TRIGGERS = ("export(",)
    #: static shapes are often what a deployment wants (fixed-size on-device models): opt in
    DEFAULT_ENABLED = False
    PYTORCH_NAME = "static shapes (the default of torch.export.export)"

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) != "torch.export.export" or len(node.args) < 2:
            return
        if any(a.keyword is not None and a.keyword.value == "dynamic_shapes" for a in node.args):
            return
        target = node.args[0].value
        cls = self.ctx.program.classes.get(dotted(target.func) or "") if isinstance(target, cst.Call) else None
        forward = cls.methods.get("forward") if cls is not None else None
        if forward is None:
            return
        positional = [*forward.params.posonly_params, *forward.params.params][1:]  # after self
        tensors = [p.name.value for p in positional if p.default is None and is_tensor_like(param_value(p))]
        if not tensors:
            return
        shapes = ", ".join(f'"{name}": torch.export.Dim.AUTO' for name in tensors)
        keyword = cst.Arg(
            keyword=cst.Name("dynamic_shapes"),
            value=cst.parse_expression("{" + shapes + "}"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        args = list(node.args)
        last = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        fix = FixProposal(
            "Add dynamic_shapes with Dim.AUTO (export decides which sizes stay dynamic)",
            Applicability.UNSAFE,
            ((node, node.with_changes(args=[*args[:-1], last, keyword])),),
            imports=("torch",),
        )
        self.report(node, f"exports `{cls.node.name.value}` with static shapes: every input size is fixed", fix=fix)

    VALID = [
        Valid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def forward(self, tokens):
                    return tokens.cumsum(-1)
            def xport_example():
                return Encoder(), (torch.randn(2, 8),)
            def export():
                return torch.export.export(Encoder(), (torch.randn(2, 8),), dynamic_shapes={"tokens": {0: torch.export.Dim("batch")}})
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(8, 8)
                def forward(self, tokens, mask):
                    return self.proj(tokens) * mask.unsqueeze(-1)
            def xport_example():
                return Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5))
            def export():
                return torch.export.export(Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5)))  # expect: XPT503
            """,
            expected_replacement="""
            import torch
            class Encoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(8, 8)
                def forward(self, tokens, mask):
                    return self.proj(tokens) * mask.unsqueeze(-1)
            def xport_example():
                return Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5))
            def export():
                return torch.export.export(Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5)), dynamic_shapes={"tokens": torch.export.Dim.AUTO, "mask": torch.export.Dim.AUTO})  # expect: XPT503
            """,
        )
    ]
