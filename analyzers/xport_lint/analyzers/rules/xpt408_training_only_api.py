from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..names import self_attribute
from ..rewrites import non_strict_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..versions import TorchVersion, Versions, show
from ..walk import iter_nodes
from ._conditions import short

_APIS = frozenset(
    {
        "torch.autograd.grad",
        "torch.utils.checkpoint.checkpoint",
        "torch.utils.checkpoint",
        # a trainable parameter made while tracing (it belongs in `__init__`)
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
    }
)
#: strict export fails on parameters kept in a plain dict attribute up to this torch (measured:
#: `KeyError: 'self___weights__a'` on 2.13; 2.14.1 and 2.15.0 export it)
_PARAMETER_DICT_FAILS_UNTIL: TorchVersion = (2, 13)


class TrainingOnlyApi(Rule):
    """Autograd, activation checkpointing or `nn.Parameter(...)` called inside traced code.

    ## What it does
    Flags `torch.autograd.grad(...)`, `torch.utils.checkpoint.checkpoint(...)` and
    `torch.nn.Parameter(...)` in traced code; on torch 2.13, reading an `nn.Parameter` kept in a
    plain dict, list or tuple attribute (`self.weights = {"a": nn.Parameter(...)}`,
    `self.gains = [nn.Parameter(...)]` in `__init__`).

    ## Why it fails torch.export
    Strict export (Dynamo) refuses them: `Unsupported: using torch.autograd.grad with
    torch._dynamo.config.trace_autograd_ops=False`, checkpointing fails on
    `tag_activation_checkpoint`, and a parameter made in `forward` on `Attempted to use
    torch.nn.Parameter() with export` (measured on torch 2.13). A parameter in a plain dict is
    not registered on the module: strict export on torch 2.13 fails with a `KeyError` naming the
    dict entry (2.14 and 2.15 export it), and so does one in a plain list (`KeyError:
    'self___gains_0'`, measured on 2.13 only: on later versions it is not reported). Non-strict export inlines them
    and succeeds (a new parameter becomes a plain tensor of the graph), so this is only reported
    in strict mode.

    ## Example
    ```python
    return checkpoint(self.block, x, use_reentrant=False)
    ```

    ## Use instead
    Guard training-only paths with `if self.training:` and export in eval mode, or export
    non-strict. Make parameters in `__init__`; in `forward`, a plain tensor does. Keep named
    parameters in an `nn.ParameterDict`, a list of them in an `nn.ParameterList`.

    ## Fix safety
    Unsafe: `strict=True` becomes `strict=False` at the file's export calls (non-strict export
    runs this Python as is). It assumes the rest of the model exports non-strict too. No fix
    when strict mode comes from the configuration rather than from a call in the file.

    ## Modes
    Error in strict export; not reported in non-strict export.
    """

    CODE = "XPT408"
    NAME = "training-only-api"
    SEVERITY = None
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported (Dynamo)"
    FAILS_WITH = {
        Mode.STRICT: (
            TorchError("RuntimeError", "_checkpoint_context_fn"),
            TorchError("Unsupported", "torch.autograd.grad"),
            TorchError("Unsupported", "Attempted to use `torch.nn.Parameter()` with export"),
            TorchError("KeyError", "self___", Versions(last=_PARAMETER_DICT_FAILS_UNTIL)),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) in _APIS:
            rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
            message = f"`{short(node)}` cannot be traced by strict export"
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
            self.report(node, message, fix=rewrite.fix)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """A read of `self.<container>` however it is then indexed (`self.gains[0]`, through a
        name, a helper or a tuple): strict export looks the parameter up by its path in the
        container and finds no such parameter on the module."""
        if self.ctx.torch > _PARAMETER_DICT_FAILS_UNTIL or self.ctx.traced is None or self.ctx.traced.cls is None:
            return
        value = node
        if not (
            isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self"
        ):
            return
        if value.attr.value not in self._parameter_dicts(self.ctx.traced.cls.node):
            return
        # one finding per dict and traced function: the first read says it for the others
        reported = self.ctx.shared.setdefault("parameter_dict_reads", set())
        assert isinstance(reported, set)
        key = (id(self.ctx.traced.func), value.attr.value)
        if key in reported:
            return
        reported.add(key)
        rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
        message = (
            f"`self.{value.attr.value}` is a plain container of `nn.Parameter`s: strict export on torch "
            f"{show(self.ctx.torch)} fails with `KeyError` (a dict: torch 2.14+ exports it; an "
            "`nn.ParameterDict` or `nn.ParameterList` registers them)"
        )
        if rewrite.reason:
            message += f" (no automatic fix: {rewrite.reason})"
        self.report(value, message, fix=rewrite.fix)

    def _holds_parameters(self, value: cst.BaseExpression) -> bool:
        """A dict, list or tuple display holding an `nn.Parameter`, or a list or dict of them
        built by a comprehension: a plain container, which registers nothing on the module."""
        if isinstance(value, cst.Dict):
            return any(isinstance(e, cst.DictElement) and self._is_parameter(e.value) for e in value.elements)
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(isinstance(e, cst.Element) and self._is_parameter(e.value) for e in value.elements)
        if isinstance(value, cst.DictComp):
            return self._is_parameter(value.value)
        return isinstance(value, cst.ListComp) and self._is_parameter(value.elt)

    def _parameter_dicts(self, cls: cst.ClassDef) -> frozenset[str]:
        """Attributes `__init__` sets to a dict, list or tuple holding `nn.Parameter`s (a
        literal, or items assigned one by one): cached per class."""
        cache = self.ctx.shared.setdefault("parameter_dicts", {})
        assert isinstance(cache, dict)
        if cls not in cache:
            found: set[str] = set()
            # a plain list `__init__` appends parameters to (an `nn.ParameterList` registers them)
            lists: set[str] = set()
            appended: set[str] = set()
            for stmt in cls.body.body:
                if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__"):
                    continue
                for assign in iter_nodes(stmt.body):
                    if (
                        isinstance(assign, cst.Call) and isinstance(assign.func, cst.Attribute)
                        and assign.func.attr.value in ("append", "insert") and assign.args
                        and self_attribute(assign.func.value) is not None and self._is_parameter(assign.args[-1].value)
                    ):
                        appended.add(assign.func.value.attr.value)  # type: ignore[attr-defined]
                    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                        continue
                    if self_attribute(assign.targets[0].target) is not None and (
                        isinstance(assign.value, cst.List)
                        or isinstance(assign.value, cst.Call) and isinstance(assign.value.func, cst.Name)
                        and assign.value.func.value == "list" and not assign.value.args
                    ):
                        lists.add(assign.targets[0].target.attr.value)  # type: ignore[attr-defined]
                    target = assign.targets[0].target
                    if isinstance(target, cst.Subscript):
                        target = target.value
                        holds = self._is_parameter(assign.value)
                    else:
                        holds = self._holds_parameters(assign.value)
                    if (
                        holds and isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                        and target.value.value == "self"
                    ):
                        found.add(target.attr.value)
            cache[cls] = frozenset(found | (appended & lists))
        return cache[cls]  # type: ignore[no-any-return]

    def _is_parameter(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Call) and self.ctx.resolve(expr.func) in (
            "torch.nn.Parameter", "torch.nn.parameter.Parameter"
        )

    VALID = [
        Valid(
            """
            import torch
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)
                def forward(self, x):
                    return self.linear(x)
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import torch
            from torch import nn
            class Scale(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(4))
                def forward(self, x):
                    return x * self.weight
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=True)
            """,
            modes=(Mode.STRICT,),
        ),
        Valid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * torch.nn.Parameter(torch.ones(4))
            def xport_example():
                return Scale(), (torch.randn(4),)
            """,
            modes=(Mode.NON_STRICT,),
        ),
        Valid(
            """
            import torch
            from torch import nn
            class Mixer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weights = {"a": nn.Parameter(torch.ones(4)), "b": nn.Parameter(torch.zeros(4))}
                def forward(self, x):
                    return x * self.weights["a"] + self.weights["b"]
            def export():
                return torch.export.export(Mixer(), (torch.randn(4),), strict=True)
            """,
            torch_versions=Versions(first=(2, 14)),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch import nn
            class Mixer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weights = {"a": nn.Parameter(torch.ones(4)), "b": nn.Parameter(torch.zeros(4))}
                def forward(self, x):
                    return x * self.weights["a"] + self.weights["b"]  # expect: XPT408
            def export():
                return torch.export.export(Mixer(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            from torch import nn
            class Mixer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weights = {"a": nn.Parameter(torch.ones(4)), "b": nn.Parameter(torch.zeros(4))}
                def forward(self, x):
                    return x * self.weights["a"] + self.weights["b"]  # expect: XPT408
            def export():
                return torch.export.export(Mixer(), (torch.randn(4),), strict=False)
            """,
            torch_versions=Versions(last=(2, 13)),
        ),
        Invalid(
            """
            import torch
            from torch.utils.checkpoint import checkpoint
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)
                def forward(self, x):
                    return checkpoint(self.linear, x, use_reentrant=False)  # expect: XPT408
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import torch
            from torch.utils.checkpoint import checkpoint
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)
                def forward(self, x):
                    return checkpoint(self.linear, x, use_reentrant=False)  # expect: XPT408
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Saliency(torch.nn.Module):
                def forward(self, x):
                    x = x.detach().requires_grad_(True)
                    (grad,) = torch.autograd.grad((x * x).sum(), x)  # expect: XPT408
                    return grad
            def xport_example():
                return Saliency(), (torch.randn(4),)
            def export():
                return torch.export.export(Saliency(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Saliency(torch.nn.Module):
                def forward(self, x):
                    x = x.detach().requires_grad_(True)
                    (grad,) = torch.autograd.grad((x * x).sum(), x)  # expect: XPT408
                    return grad
            def xport_example():
                return Saliency(), (torch.randn(4),)
            def export():
                return torch.export.export(Saliency(), (torch.randn(4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Scale(nn.Module):
                def forward(self, x):
                    weight = nn.Parameter(torch.ones(4))  # expect: XPT408
                    return x * weight
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            from torch import nn
            class Scale(nn.Module):
                def forward(self, x):
                    weight = nn.Parameter(torch.ones(4))  # expect: XPT408
                    return x * weight
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * torch.nn.Parameter(torch.ones(4), requires_grad=False)  # expect: XPT408
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * torch.nn.Parameter(torch.ones(4), requires_grad=False)  # expect: XPT408
            def export():
                return torch.export.export(Scale(), (torch.randn(4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Gains(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gains = [nn.Parameter(torch.ones(3))]
                def forward(self, x):
                    return x * self.gains[0]  # expect: XPT408
            def export():
                return torch.export.export(Gains(), (torch.randn(2, 3),), strict=True)
            """,
            expected_replacement="""
            import torch
            from torch import nn
            class Gains(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gains = [nn.Parameter(torch.ones(3))]
                def forward(self, x):
                    return x * self.gains[0]  # expect: XPT408
            def export():
                return torch.export.export(Gains(), (torch.randn(2, 3),), strict=False)
            """,
        ),
    ]
