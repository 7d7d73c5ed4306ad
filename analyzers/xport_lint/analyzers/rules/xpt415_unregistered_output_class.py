from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..names import dotted
from ..rewrites import module_names, registered_output_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ._conditions import short
from ._pytree_classes import displayed_parts, not_a_pytree_node, unregistered_class

#: library classes that are no pytree node either (measured on torch 2.13: both modes fail)
_UNREGISTERED_LIBRARY = ("types.SimpleNamespace",)
_OWN_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


class UnregisteredOutputClass(Rule):
    """`forward` of the exported module returns an instance of a class that is not a pytree node (a plain dataclass, a `SimpleNamespace`).

    ## What it does
    Flags what the `forward` of a module no other class of the file builds as a submodule
    returns, where it is (or holds, in a returned tuple, list or dict) an instance of a class
    defined in the file that derives from nothing but `object` (a `@dataclass` or a plain class)
    and that the file does not register as a pytree node (`torch.utils._pytree.register_dataclass`,
    `register_pytree_node`, ...), or a `types.SimpleNamespace`; through a name bound once too, and
    through a one-line helper of the file that returns the instance (`return _wrap(x)` of
    `def _wrap(t): return Output(logits=t)`; measured on torch 2.13, both modes fail).
    A submodule's `forward` may return one: its parent reads it before export sees it.

    ## Why it fails torch.export
    torch.export flattens the outputs with pytree, which knows tensors, numbers, tuples,
    lists, dicts, named tuples and registered classes only. Non-strict export: `RuntimeError:
    Found <class Output> in output, which is not a known type`; strict export: `AssertionError:
    Encountered unrecognized type UserDefinedObjectVariable(Output) at output 0` (a
    `SimpleNamespace`: `Unsupported: Unsupported function call`). Measured on torch 2.13: a
    dataclass registered with `torch.utils._pytree.register_dataclass`, a class registered with
    `register_pytree_node`, a `typing.NamedTuple` and a dict export in both modes.

    ## Example
    ```python
    return Output(logits=x.softmax(-1))
    ```

    ## Use instead
    Register the class once at module level (`torch.export.register_dataclass(Output)`),
    return a `NamedTuple`, a tuple or a dict, or read the tensors out of it in `forward`.
    Measured on torch 2.13, both modes, equal to eager: a registered dataclass returned alone,
    bound to a name, in a tuple or a dict; frozen, with a `str`, `int` or `Optional` field, and
    one deriving from another dataclass.

    ## Fix safety
    Unsafe, for a dataclass: the fix registers it right after its definition, assuming nothing
    else registers it (a second registration raises at import) and that no code relies on pytree
    utilities treating it as a leaf. A plain class or a `SimpleNamespace` gets no fix: how to
    flatten it is the class's knowledge.

    ## Modes
    Error in both modes.
    """

    CODE = "XPT415"
    NAME = "unregistered-output-class"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "RuntimeError / AssertionError: not a known type in output"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("RuntimeError", "which is not a known type"),),
        Mode.STRICT: (
            TorchError("AssertionError", "Encountered unrecognized type"),
            TorchError("Unsupported", "Unsupported function call"),
        ),
    }

    def visit_Return(self, node: cst.Return) -> None:
        traced = self.ctx.traced
        if (
            node.value is None
            or traced is None
            or traced.reach is not None
            or traced.cls is None
            or traced.func.name.value != "forward"
            or traced.cls.node.name.value in self.ctx.program.submodule_classes
            or not _directly_in(node, traced.func)
        ):
            return
        for part in displayed_parts(node.value):
            named, cls = self._unregistered(part)
            if named is not None:
                rewrite = (
                    None
                    if cls is None
                    else registered_output_rewrite(cls, module_names(self.ctx.program.module), self.ctx.resolve)
                )
                advice = (
                    f"the fix registers `{named}` after its definition"
                    if rewrite is not None and rewrite.fix
                    else rewrite.reason
                    if rewrite is not None
                    else f"no automatic fix: return a tuple, dict or NamedTuple in place of `{named}`"
                )
                self.report(
                    part,
                    f"`forward` returns `{short(part)}`, an instance of "
                    + not_a_pytree_node(named, self._words(named), advice),
                    fix=None if rewrite is None else rewrite.fix,
                )
                return

    def _words(self, named: str) -> str:
        if self.ctx.mode is Mode.STRICT and "." in named:
            return "strict: `Unsupported: Unsupported function call`"
        if self.ctx.mode is Mode.STRICT:
            return "strict: `AssertionError: Encountered unrecognized type UserDefinedObjectVariable`"
        return "non-strict: `RuntimeError: Found <class> in output, which is not a known type`"

    def _unregistered(self, part: cst.BaseExpression, depth: int = 0) -> tuple[str | None, cst.ClassDef | None]:
        """The name of the unregistered class `part` builds (through a name bound once, or a
        one-line helper of the file returning the instance), and its definition when the file
        holds it; (None, None) for anything else."""
        flow, traced = self.ctx.flow, self.ctx.traced
        if isinstance(part, cst.Name) and flow is not None and traced is not None and flow.func is traced.func:
            part = flow.bound_once(part.value) or part
        if not isinstance(part, cst.Call):
            return None, None
        if (
            flow is not None
            and depth < 4
            and isinstance(part.func, cst.Name)
            and part.func.value in self.ctx.program.functions
            and (inlined := flow.inlined(part)) is not None
        ):
            return self._unregistered(inlined, depth + 1)  # `return _wrap(x)` of `def _wrap(t): return Output(t)`
        if (self.ctx.resolve(part.func) or "") in _UNREGISTERED_LIBRARY:
            return dotted(part.func), None
        if not isinstance(part.func, cst.Name):
            return None, None
        cls = unregistered_class(self.ctx.program.module, part.func.value)
        return (cls.name.value, cls) if cls is not None else (None, None)

    VALID = [
        Valid(
            """
            import dataclasses
            import torch
            @dataclasses.dataclass
            class Output:
                logits: torch.Tensor
            torch.utils._pytree.register_dataclass(Output)
            class Head(torch.nn.Module):
                def forward(self, x):
                    return Output(logits=x.softmax(-1))
            def xport_example():
                return Head(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import dataclasses
            import torch
            @dataclasses.dataclass
            class Output:
                logits: torch.Tensor
            class Head(torch.nn.Module):
                def forward(self, x):
                    return Output(logits=x * 2)
            class Model(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = Head()
                def forward(self, x):
                    return self.head(x).logits
            def xport_example():
                return Model(), (torch.randn(2, 4),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import dataclasses
            import torch
            @dataclasses.dataclass
            class Output:
                logits: torch.Tensor
            class Head(torch.nn.Module):
                def forward(self, x):
                    return Output(logits=x.softmax(-1))  # expect: XPT415
            def xport_example():
                return Head(), (torch.randn(2, 4),)
            """,
            expected_replacement="""
            import dataclasses
            import torch
            @dataclasses.dataclass
            class Output:
                logits: torch.Tensor
            torch.export.register_dataclass(Output)
            class Head(torch.nn.Module):
                def forward(self, x):
                    return Output(logits=x.softmax(-1))  # expect: XPT415
            def xport_example():
                return Head(), (torch.randn(2, 4),)
            """,
        ),
        Invalid(
            """
            from dataclasses import dataclass
            from typing import Optional
            import torch as T
            @dataclass(frozen=True)
            class Aux:
                scores: T.Tensor
                loss: Optional[T.Tensor] = None
            class Head(T.nn.Module):
                def forward(self, x):
                    return {"logits": x * 2, "aux": Aux(x.sigmoid())}  # expect: XPT415
            def xport_example():
                return Head(), (T.randn(2, 4),)
            """,
            expected_replacement="""
            from dataclasses import dataclass
            from typing import Optional
            import torch as T
            @dataclass(frozen=True)
            class Aux:
                scores: T.Tensor
                loss: Optional[T.Tensor] = None
            T.export.register_dataclass(Aux)
            class Head(T.nn.Module):
                def forward(self, x):
                    return {"logits": x * 2, "aux": Aux(x.sigmoid())}  # expect: XPT415
            def xport_example():
                return Head(), (T.randn(2, 4),)
            """,
        ),
        Invalid(
            """
            import torch
            class Output:
                def __init__(self, logits):
                    self.logits = logits
            class Head(torch.nn.Module):
                def forward(self, x):
                    return x, Output(x * 2)  # expect: XPT415
            def xport_example():
                return Head(), (torch.randn(2, 4),)
            """
        ),
    ]


def _directly_in(node: cst.Return, func: cst.FunctionDef) -> bool:
    """`node` is a `return` of `func` itself, not of a function or class defined inside it."""
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        if not isinstance(current, _OWN_SCOPES):
            stack.extend(current.children)
    return False
