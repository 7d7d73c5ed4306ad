from __future__ import annotations

import re

import libcst as cst

from ..dataflow import is_tensor_like
from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, TorchError, Valid
from ..symbols import init_assignments
from ..walk import iter_nodes
from ._conditions import short

_METHODS = frozenset({"data_ptr"})
#: `torch.nn` modules that hold no parameter or buffer as built by default (measured on torch
#: 2.13: a deep copy of `nn.ReLU()` exports in both modes); every other `torch.nn` module holds tensors
_TENSOR_FREE = re.compile(
    r"(Identity|Flatten|Unflatten|Fold|Unfold|Upsample\w*|Dropout\w*|AlphaDropout|FeatureAlphaDropout|\w*Pool\dd|"
    r"MaxUnpool\dd|\w*Pad\dd|PixelShuffle|PixelUnshuffle|ChannelShuffle|InstanceNorm\dd|LocalResponseNorm|CrossMapLRN2d|"
    r"Threshold|(Leaky|R)?ReLU6?|CELU|ELU|SELU|GELU|GLU|SiLU|Mish|Sigmoid|LogSigmoid|Hard\w+|Tanh|Tanhshrink|Softmax\w*|"
    r"Softmin|LogSoftmax|Softplus|Softshrink|Softsign|CosineSimilarity|PairwiseDistance|\w*Loss)"
)
_CONTAINERS = ("torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict")


class TensorIdentity(Rule):
    """Traced code reads a tensor's memory: `x.data_ptr()` or `copy.deepcopy(x)`.

    ## What it does
    Flags `.data_ptr()` on tensors and `copy.deepcopy` of tensors in traced code, and
    `copy.deepcopy` of a module that holds parameters or buffers (`self`, `self.proj`, a local
    bound to one), which deep-copies them: a module holding none (`nn.ReLU()`) copies fine.

    ## Why it fails torch.export
    Export's fake tensors have no storage: `RuntimeError: Cannot access data pointer of Tensor
    (e.g. FakeTensor, FunctionalTensor)` in non-strict export; strict export refuses with
    `Unsupported` ("Attempted to copy.deepcopy a tensor").

    ## Example
    ```python
    snapshot = copy.deepcopy(x)
    ```

    ## Use instead
    `x.clone()` copies a tensor inside the graph; compare tensors by value, not by address;
    copy a module in `__init__`, not in `forward`.

    ## Fix safety
    `copy.deepcopy(x)` -> `x.clone()` is safe for a tensor argument.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT407"
    NAME = "tensor-identity"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "RuntimeError: Cannot access data pointer of Tensor"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("RuntimeError", "Cannot access data pointer of Tensor"),),
        Mode.STRICT: (TorchError("Unsupported", "Attempted to copy.deepcopy a tensor"), TorchError("Unsupported", "Data pointer comparison"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _METHODS:
            if is_tensor_like(self.ctx.value(func.value)):
                self.report(node, f"`{short(node)}` needs real memory; fake tensors have none")
            return
        if self.ctx.resolve(func) == "copy.deepcopy" and len(node.args) == 1:
            arg = node.args[0].value
            if is_tensor_like(self.ctx.value(arg)):
                clone = cst.Call(cst.Attribute(arg, cst.Name("clone")))
                fix = FixProposal("Use `.clone()`", Applicability.SAFE, ((node, clone),))
                self.report(node, f"`{short(node)}` deep-copies a fake tensor", fix=fix)
            elif self._holds_tensors(arg, 0):
                self.report(node, f"`{short(node)}` deep-copies a module, and with it its parameters and buffers: "
                            "fake tensors while exporting")

    def _holds_tensors(self, expr: cst.BaseExpression, depth: int) -> bool:
        """`expr` is a module holding parameters or buffers: `self` of a module class whose
        `__init__` keeps one, `self.<submodule>` built from such a class, or a local bound to one."""
        traced = self.ctx.traced
        if depth > 4 or traced is None or traced.cls is None:
            return False
        cls = traced.cls.node
        if isinstance(expr, cst.Name) and expr.value == "self":
            return self._class_holds_tensors(cls, depth)
        if isinstance(expr, cst.Name) and self.ctx.flow is not None and self.ctx.flow.func is traced.func:
            bound = self.ctx.flow.bound_once(expr.value)
            return bound is not None and bound is not expr and self._holds_tensors(bound, depth + 1)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            built = init_assignments(cls).get(expr.attr.value)
            return built is not None and self._built_holds_tensors(built, depth + 1)
        return False

    def _class_holds_tensors(self, cls: cst.ClassDef, depth: int) -> bool:
        return any(self._built_holds_tensors(value, depth + 1) for value in init_assignments(cls).values()) or any(
            isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("register_buffer", "register_parameter")
            for node in iter_nodes(cls)
        )

    def _built_holds_tensors(self, value: cst.BaseExpression, depth: int) -> bool:
        """What `__init__` assigns is a tensor, or a module holding one (unknown classes: no)."""
        if depth > 4 or not isinstance(value, cst.Call):
            return False
        qualified = self.ctx.resolve(value.func) or ""
        if qualified in _CONTAINERS:
            return any(self._built_holds_tensors(e.value, depth + 1) for arg in value.args
                       for e in (arg.value.elements if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg]))
        if qualified in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return True
        if qualified.startswith("torch.nn.") and qualified.count(".") == 2:
            return not _TENSOR_FREE.fullmatch(qualified.rsplit(".", 1)[1])
        local = value.func.value if isinstance(value.func, cst.Name) else None
        for stmt in self.ctx.program.module.body:
            if isinstance(stmt, cst.ClassDef) and stmt.name.value == local:
                return self._class_holds_tensors(stmt, depth + 1)
        return False

    VALID = [
        Valid(
            """
            import copy
            import torch
            class Activated(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.act = torch.nn.ReLU()
                def forward(self, x):
                    return copy.deepcopy(self.act)(x)
            def xport_example():
                return Activated(), (torch.randn(3),)
            """
        ),
        Valid(
            """
            import torch
            class Snapshot(torch.nn.Module):
                def forward(self, x):
                    return x.clone() + 1
            def xport_example():
                return Snapshot(), (torch.randn(3),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import copy
            import torch
            class Snapshot(torch.nn.Module):
                def forward(self, x):
                    return copy.deepcopy(x) + 1  # expect: XPT407
            def xport_example():
                return Snapshot(), (torch.randn(3),)
            """,
            expected_replacement="""
            import copy
            import torch
            class Snapshot(torch.nn.Module):
                def forward(self, x):
                    return x.clone() + 1  # expect: XPT407
            def xport_example():
                return Snapshot(), (torch.randn(3),)
            """,
        ),
        Invalid(
            """
            import copy
            import torch
            class Twin(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(4, 4)
                def forward(self, x):
                    twin = copy.deepcopy(self.proj)  # expect: XPT407
                    return twin(x)
            def xport_example():
                return Twin(), (torch.randn(2, 4),)
            """
        ),
        Invalid(
            """
            import torch
            class Aliased(torch.nn.Module):
                def forward(self, x, y):
                    if x.data_ptr() == y.data_ptr():  # expect: XPT407
                        return x * 2
                    return x + y
            def xport_example():
                return Aliased(), (torch.randn(3), torch.randn(3))
            """
        ),
    ]
