from __future__ import annotations

import libcst as cst

from ..export_site import ExportSite
from ..model import Mode, Severity
from ..rule import Invalid, Rule, Scope, TorchError, Valid
from ._conditions import short
from ._pytree_classes import displayed_parts, not_a_pytree_node, unregistered_class


class UnregisteredInputClass(Rule):
    """An example input of the export is an instance of a class that is not a pytree node (a plain dataclass).

    ## What it does
    Flags an example input of an export call, or of the dict an `xport_example()` returns (a
    positional or keyword input, or an element of a tuple, list or dict display given as one),
    that builds a class defined in the file deriving from nothing but `object` (a `@dataclass`
    or a plain class) which the file does not register as a pytree node.

    ## Why it fails torch.export
    torch.export flattens the inputs with pytree, which knows tensors, numbers, tuples, lists,
    dicts, named tuples and registered classes only. Measured on torch 2.13: non-strict export
    raises `ValueError: Unsupported input type <class Batch>`, strict export `UserError: It looks
    like one of the inputs with type <class Batch> is not supported or pytree-flattenable`; alone,
    in a list, or as a keyword input. A dataclass registered with
    `torch.utils._pytree.register_dataclass` and a `collections.namedtuple` export in both modes.

    ## Example
    ```python
    torch.export.export(Head(), (Batch(features, scale),))
    ```

    ## Use instead
    Register the class once at module level (`torch.export.register_dataclass(Batch)`), or pass
    its tensors as inputs of their own.

    ## Fix safety
    No fix: registering the class changes the inputs' type for every caller of the module, and
    the fix prover (which re-exports the rewritten module on inputs the original builds) cannot
    show that it exports; a plain class's flattening is the class's knowledge.

    ## Modes
    Error in both modes.
    """

    CODE = "XPT416"
    NAME = "unregistered-input-class"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ValueError / UserError: unsupported input type"
    SCOPE = Scope.MODULE
    #: a class the file defines and an export of it (a call or an example)
    TRIGGERS = ("class ",)
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("ValueError", "Unsupported input type"),),
        Mode.STRICT: (TorchError("UserError", "is not supported or pytree-flattenable"),),
    }

    def visit_Module(self, node: cst.Module) -> None:
        reported: set[str] = set()  # each class once: one registration serves every input
        for site in self.ctx.program.export_sites:
            for example in _inputs(site):
                for part in displayed_parts(example):
                    if (
                        isinstance(part, cst.Call)
                        and isinstance(part.func, cst.Name)
                        and (
                            part.func.value not in reported
                            and (cls := unregistered_class(self.ctx.program.module, part.func.value)) is not None
                        )
                    ):
                        reported.add(part.func.value)
                        self._report(part, cls)

    def _report(self, part: cst.Call, cls: cst.ClassDef) -> None:
        name = cls.name.value
        advice = (
            f"register it as a pytree node at module level (a dataclass: `torch.export.register_dataclass({name})`),"
            " or pass its tensors as inputs of their own"
        )
        words = (
            "`UserError`: not supported or pytree-flattenable"
            if self.ctx.mode is Mode.STRICT
            else "`ValueError: Unsupported input type`"
        )
        self.report(
            part, f"the example input `{short(part)}` is an instance of " + not_a_pytree_node(name, words, advice)
        )

    VALID = [
        Valid(
            """
            import dataclasses
            import torch
            @dataclasses.dataclass
            class Batch:
                features: torch.Tensor
            torch.utils._pytree.register_dataclass(Batch)
            class Head(torch.nn.Module):
                def forward(self, batch):
                    return batch.features * 2
            def xport_example():
                return {"model": Head(), "args": (Batch(torch.randn(2, 4)),)}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import dataclasses
            import torch
            @dataclasses.dataclass
            class Batch:
                features: torch.Tensor
            class Head(torch.nn.Module):
                def forward(self, batch):
                    return batch.features * 2
            def xport_example():
                return {"model": Head(), "args": (Batch(torch.randn(2, 4)),)}  # expect: XPT416
            """
        ),
        Invalid(
            """
            import torch
            class Pair:
                def __init__(self, left, right):
                    self.left, self.right = left, right
            class Head(torch.nn.Module):
                def forward(self, x, pair):
                    return x + pair.left * pair.right
            def xport_example():
                pair = Pair(torch.randn(2, 4), torch.randn(2, 4))  # expect: XPT416
                return {"model": Head(), "args": (torch.randn(2, 4), pair)}
            """
        ),
    ]


def _inputs(site: ExportSite) -> list[cst.BaseExpression]:
    """The example inputs of an export site, positional and keyword, each followed."""
    return [*(site.examples or ()), *(followed for _, followed, _ in site.keyword_examples)]
