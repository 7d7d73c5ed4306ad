"""What kind of numbers a tensor holds (integers, floating point, booleans), where the code that
makes it says so: a factory call, a cast, the op that computes it, an example input of the export,
a buffer or parameter `__init__` makes. Unknown (None) wherever it does not: a submodule's output,
a helper's parameter, an op whose result type depends on more than this reads. Rules claim a
dtype-dependent failure only where it is known (strict export refuses `.tolist()` of a tensor
that is not integral; measured on torch 2.13)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

import libcst as cst

from .dataflow import FunctionFlow, Kind
from .export_site import ExportSite
from .names import dotted
from .syntax import keyword_argument
from .walk import iter_nodes


class DType(enum.Enum):
    INTEGRAL = "integer"
    FLOATING = "floating-point"
    BOOL = "boolean"


_CASTS = {
    "float": DType.FLOATING, "double": DType.FLOATING, "half": DType.FLOATING, "bfloat16": DType.FLOATING,
    "long": DType.INTEGRAL, "int": DType.INTEGRAL, "short": DType.INTEGRAL, "byte": DType.INTEGRAL,
    "char": DType.INTEGRAL, "bool": DType.BOOL,
}
#: `torch.<name>` dtypes by class
_DTYPE_NAMES = {
    **dict.fromkeys(("float", "float32", "float64", "double", "half", "float16", "bfloat16"), DType.FLOATING),
    **dict.fromkeys(("long", "int64", "int", "int32", "int16", "short", "int8", "uint8"), DType.INTEGRAL),
    "bool": DType.BOOL,
}
#: ops whose result holds integers whatever they are given
_INTEGER_OPS = frozenset({
    "argmax", "argmin", "argsort", "argwhere", "nonzero", "count_nonzero", "bincount", "searchsorted", "bucketize",
    "randint", "randint_like", "randperm",
})
#: ops whose result holds booleans
_BOOLEAN_OPS = frozenset({
    "gt", "ge", "lt", "le", "eq", "ne", "greater", "less", "isnan", "isinf", "isfinite", "isclose", "any", "all",
    "logical_and", "logical_or", "logical_not", "logical_xor", "isin", "signbit",
})
#: ops whose result is floating point whatever they are given (a reduction to a mean, a norm, a
#: transcendental function, true division)
_FLOATING_OPS = frozenset({
    "mean", "std", "var", "norm", "softmax", "log_softmax", "sigmoid", "tanh", "exp", "log", "log2", "log10",
    "log1p", "sqrt", "rsqrt", "sin", "cos", "erf", "reciprocal", "div", "true_divide", "layer_norm", "normalize",
    "rand", "randn", "rand_like", "randn_like", "linspace", "logspace", "hann_window", "cosine_similarity",
})
#: factories of floating point unless given a dtype (or, `full`, an integer fill)
_FLOATING_FACTORIES = frozenset({"zeros", "ones", "empty", "eye"})
#: ops whose result holds what their tensor holds
_KEEPING_OPS = frozenset({
    "clone", "detach", "cpu", "contiguous", "flatten", "view", "reshape", "squeeze", "unsqueeze", "t", "transpose",
    "permute", "expand", "expand_as", "repeat", "flip", "roll", "abs", "neg", "clamp", "clip", "index_select",
    "gather", "masked_select", "narrow", "select", "unbind", "zeros_like", "ones_like", "empty_like", "cat",
    "stack", "max", "min", "amax", "amin",
})
#: reductions that make integers of booleans (and keep other dtypes)
_SUMMING_OPS = frozenset({"sum", "cumsum", "prod"})
_TENSOR_ATTRIBUTES = frozenset({"T", "mT", "data"})
_MAX_DEPTH = 8


def literal_dtype(expr: cst.BaseExpression) -> DType | None:
    """What `torch.tensor` makes of a literal (`[1, 2]`: integers, `[0.5, 1]`: floating point)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        kinds = {literal_dtype(e.value) for e in expr.elements if not isinstance(e, cst.StarredElement)}
        if not kinds or None in kinds:
            return None
        return DType.FLOATING if DType.FLOATING in kinds else kinds.pop() if len(kinds) == 1 else None
    if isinstance(expr, cst.Integer):
        return DType.INTEGRAL
    if isinstance(expr, cst.Float):
        return DType.FLOATING
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return DType.BOOL
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return literal_dtype(expr.expression)
    return None


class TensorDTypes:
    """The dtype class of a traced function's tensors. `flow`: its dataflow (None: an expression
    outside any function, an export's example); `inputs`: what its parameters hold, where known."""

    def __init__(
        self, resolve: Callable[[cst.BaseExpression], str | None], flow: FunctionFlow | None = None,
        inputs: Mapping[str, DType] | None = None, attributes: Mapping[str, cst.BaseExpression] | None = None,
    ) -> None:
        self.resolve, self.flow = resolve, flow
        self.inputs = inputs or {}
        #: `self.<name>` -> the one tensor expression `__init__` keeps there
        self.attributes = attributes or {}

    def of(self, expr: cst.BaseExpression, depth: int = 0) -> DType | None:
        """The dtype class of the tensor `expr`, or None where the code does not say."""
        if depth > _MAX_DEPTH:
            return None
        found = self._structural(expr, depth + 1)
        if found is None and self.flow is not None and self.flow.value(expr).has(Kind.MASK):
            return DType.BOOL  # a comparison or logical op the dataflow saw through names
        return found

    def _structural(self, expr: cst.BaseExpression, depth: int) -> DType | None:
        flow = self.flow
        if isinstance(expr, cst.Name):
            if expr.value in self.inputs and (flow is None or len(flow.bindings(expr.value)) <= 1):
                return self.inputs[expr.value]  # a parameter the function never binds again
            bound = flow.bound_once(expr.value) if flow is not None else None
            return self.of(bound, depth) if bound is not None else None
        if isinstance(expr, cst.Attribute):
            if dotted(expr.value) == "self" and expr.attr.value in self.attributes:
                return TensorDTypes(self.resolve).of(self.attributes[expr.attr.value], depth)
            return self.of(expr.value, depth) if expr.attr.value in _TENSOR_ATTRIBUTES else None
        if isinstance(expr, cst.Subscript):
            return self.of(expr.value, depth)  # indexing a tensor keeps its dtype
        if isinstance(expr, cst.Comparison):
            return DType.BOOL
        if isinstance(expr, cst.UnaryOperation):
            return self.of(expr.expression, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self._arithmetic(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        return literal_dtype(expr)

    def _arithmetic(self, expr: cst.BinaryOperation, depth: int) -> DType | None:
        if isinstance(expr.operator, cst.Divide):
            return DType.FLOATING  # true division of tensors
        sides = (self.of(expr.left, depth), self.of(expr.right, depth))
        if isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return DType.BOOL if sides == (DType.BOOL, DType.BOOL) else None
        if DType.FLOATING in sides:
            return DType.FLOATING
        return DType.INTEGRAL if sides == (DType.INTEGRAL, DType.INTEGRAL) else None

    def _call(self, call: cst.Call, depth: int) -> DType | None:
        func = call.func
        qualified = self.resolve(func) or ""
        if qualified.startswith("torch."):
            name, operand = qualified.rsplit(".", 1)[-1], call.args[0].value if call.args else None
        elif isinstance(func, cst.Attribute):
            name, operand = func.attr.value, func.value
        else:
            inlined = self.flow.inlined(call) if self.flow is not None else None
            return self.of(inlined, depth) if inlined is not None and inlined is not call else None
        given = keyword_argument(call, "dtype")
        if given is not None:
            return self._dtype_named(given)
        if name in _CASTS and not qualified:
            return _CASTS[name]
        if name in ("to", "type") and not qualified and call.args:
            return self._dtype_named(call.args[0].value)
        if name in ("div", "divide") and keyword_argument(call, "rounding_mode") is not None:
            return None  # `div(..., rounding_mode="floor")` keeps integers integral
        if name in _INTEGER_OPS:
            return DType.INTEGRAL
        if name in _BOOLEAN_OPS:
            return DType.BOOL
        if name in _FLOATING_OPS or (name in _FLOATING_FACTORIES and qualified):
            return DType.FLOATING
        if name == "arange" and qualified:
            kinds = {literal_dtype(a.value) for a in call.args if a.keyword is None}
            return DType.INTEGRAL if kinds == {DType.INTEGRAL} else DType.FLOATING if DType.FLOATING in kinds else None
        if name in ("tensor", "as_tensor") and qualified and operand is not None:
            return literal_dtype(operand)
        if operand is None:
            return None
        if name in ("cat", "stack") and qualified:
            return self._joined(operand, depth)
        if name in _SUMMING_OPS:
            kept = self.of(operand, depth)
            return DType.INTEGRAL if kept is DType.BOOL else kept
        if name in _KEEPING_OPS and not (name in ("max", "min") and len(call.args) > (1 if qualified else 0)):
            return self.of(operand, depth)  # `max(dim)` gives values and indices
        return None

    def _joined(self, tensors: cst.BaseExpression, depth: int) -> DType | None:
        """The one dtype class of every tensor of a list or tuple display (`torch.cat([a, b])`)."""
        if not isinstance(tensors, (cst.List, cst.Tuple)) or not tensors.elements:
            return None
        kinds = {self.of(e.value, depth) for e in tensors.elements}
        return kinds.pop() if len(kinds) == 1 else None

    def _dtype_named(self, expr: cst.BaseExpression) -> DType | None:
        """`torch.float32`, `torch.long`: its class; anything else (`x.dtype`, a tensor) unknown."""
        qualified = self.resolve(expr) or ""
        return _DTYPE_NAMES.get(qualified.removeprefix("torch.")) if qualified.startswith("torch.") else None


def example_dtypes(
    sites: list[ExportSite], func: cst.FunctionDef, resolve: Callable[[cst.BaseExpression], str | None]
) -> dict[str, DType]:
    """The dtype class of each parameter of `func` that every export of it in the file gives an
    example of one class (`torch.randn(2, 3)`: floating point), positionally or by keyword."""
    seen: dict[str, set[DType | None]] = {}
    examples = TensorDTypes(resolve)
    for site in sites:
        if site.forward is not func:
            continue
        for param, example in zip(site.positional, site.examples or (), strict=False):
            seen.setdefault(param.name.value, set()).add(examples.of(example))
        for name, example, _ in site.keyword_examples:
            seen.setdefault(name, set()).add(examples.of(example))
    return {name: kinds.pop() for name, kinds in seen.items() if len(kinds) == 1 and None not in kinds}


def kept_tensors(cls: cst.ClassDef) -> dict[str, cst.BaseExpression]:
    """`self.<name>` -> the expression `__init__` keeps there, where it keeps one once and no other
    method assigns it: `self.register_buffer("w", expr)`, `self.w = expr`, `self.w = nn.Parameter(expr)`."""
    init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None:
        return {}
    kept: dict[str, list[cst.BaseExpression]] = {}
    for node in _statements(init):
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            call = node.value
            if (isinstance(call.func, cst.Attribute) and dotted(call.func.value) == "self"
                    and call.func.attr.value in ("register_buffer", "register_parameter") and len(call.args) >= 2
                    and isinstance(call.args[0].value, cst.SimpleString)):
                kept.setdefault(str(call.args[0].value.evaluated_value), []).append(call.args[1].value)
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Attribute) and dotted(target.target.value) == "self":
                    value = node.value
                    if isinstance(value, cst.Call) and (dotted(value.func) or "").endswith(("Parameter", "Buffer")):
                        value = value.args[0].value if value.args else value
                    kept.setdefault(target.target.attr.value, []).append(value)
    rebound = {
        target.attr.value for method in cls.body.body if isinstance(method, cst.FunctionDef) and method is not init
        for node in iter_nodes(method) if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign))
        for target in ([t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target])
        if isinstance(target, cst.Attribute) and dotted(target.value) == "self"
    }  # another method may keep a tensor of another dtype there
    return {name: values[0] for name, values in kept.items() if len(values) == 1 and name not in rebound}


def _statements(init: cst.FunctionDef) -> list[cst.BaseSmallStatement]:
    """`__init__`'s simple statements at its top level (not under a branch)."""
    body = init.body.body if isinstance(init.body, cst.IndentedBlock) else ()
    return [small for line in body if isinstance(line, cst.SimpleStatementLine) for small in line.body]
