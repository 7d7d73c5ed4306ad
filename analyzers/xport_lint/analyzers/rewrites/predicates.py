"""A condition as the boolean tensor that `torch.cond`, `torch.while_loop` and
`torch._assert_async` take, and the numbers read from tensor data that a rewrite turns back into
the tensors they were read from.

Facts of torch 2.13 (measured in both modes, static and dynamic sizes):
- a predicate that is still a Python number (`int(t) > k`, `t.item() > k`) is a guard on data
  again: the conversion must go, not the branch;
- `a and b` on tensors calls `bool()`: it becomes `torch.logical_and(a, b)`; a size test is a
  Python or symbolic bool, which `torch.logical_and` takes only as `torch.tensor(test)`;
- a number bound by `n = t.item()` and read only by the rewritten code can be bound as the
  0-dim tensor `n = t`: arithmetic with it gives the same values;
- `torch.equal`, `allclose` and `is_nonzero` answer a Python bool from data (XPT202): left in a
  predicate they fail again, so they become the bool tensor they read (`torch.equal(a, b)`:
  equal sizes, then `(a == b).all()`).
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from ..dataflow import FunctionFlow, Kind, is_tensor_like, tensor_membership
from ..positions import code_of
from ..syntax import counted
from ..walk import iter_nodes
from .common import receiver, scope_names

#: calls whose result is already a bool tensor: `bool(...)` around them is dropped
_BOOLEAN_METHODS = frozenset({
    "any", "all", "isnan", "isinf", "isfinite", "eq", "ne", "gt", "ge", "lt", "le", "logical_and",
    "logical_or", "logical_not", "logical_xor", "equal",
})


#: torch ops that answer a Python bool from tensor data (XPT202): each has a tensor form
_PYTHON_BOOL_OPS = frozenset({"equal", "allclose", "is_nonzero"})


def _conversion(flow: FunctionFlow, call: cst.Call) -> str | None:
    """How `call` reads a number from a tensor: "item" (`t.item()`), "int", "float" or "bool"
    (`int(t)`, ...), or an op of `_PYTHON_BOOL_OPS` by its name: `a.allclose(b)` -> "allclose",
    `torch.equal(a, b)` -> "torch.equal"; None if it does not."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _PYTHON_BOOL_OPS:
        op = func.attr.value
        if flow.resolver.resolve(func) == f"torch.{op}":
            return f"torch.{op}" if call.args and is_tensor_like(flow.value(call.args[0].value)) else None
        return op if is_tensor_like(flow.value(func.value)) else None
    if isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args:
        return "item" if is_tensor_like(flow.value(func.value)) else None
    if isinstance(func, cst.Name) and func.value in ("bool", "int", "float") and len(call.args) == 1:
        arg = call.args[0].value
        # `int(steps.item())`, `float(int(t))`: a conversion of a number read from a tensor
        read = is_tensor_like(flow.value(arg)) or (isinstance(arg, cst.Call) and _conversion(flow, arg) is not None)
        # `bool(float(t) > 0)`: a comparison of numbers read is a bool already, the tensor's a bool tensor
        tested = func.value == "bool" and isinstance(arg, cst.Comparison) and any(
            isinstance(n, cst.Call) and _conversion(flow, n) is not None for n in iter_nodes(arg))
        return func.value if read or tested else None
    qualified = flow.resolver.resolve(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
    if qualified in _ROUNDING and len(call.args) == 1 and (_read_call(flow, call.args[0].value) or (
        isinstance(call.args[0].value, cst.BinaryOperation) and _arithmetic(flow, call.args[0].value)
        and any(isinstance(n, cst.Call) and _read_call(flow, n) for n in iter_nodes(call.args[0].value))
    )):
        # `math.ceil(t.max().item())`: the read of `t.max().ceil()`; `math.floor(frac.item() * 4)`, of
        # `(frac * 4).floor()`
        return qualified
    if qualified is None and isinstance(func, cst.Name) and func.value in ("min", "max") and len(call.args) == 2 \
            and not any(a.star or a.keyword for a in call.args):
        reads = [_read_call(flow, a.value) for a in call.args]
        others = [a.value for a, read in zip(call.args, reads, strict=True) if not read]
        if len(others) == 1 and _number_literal(others[0]):
            return func.value  # `max(1, int(n))`: the read of `n.clamp_min(1)`
    if qualified is None and isinstance(func, cst.Name) and func.value == "sum" and len(call.args) == 1 \
            and _summed_list(flow, call.args[0].value) is not None:
        return "sum"  # `sum(t.tolist())`, `sum(c for c in t.tolist())`: the read of `t.sum()`
    if qualified is None and isinstance(func, cst.Name) and func.value in _REDUCED and len(call.args) == 1 \
            and not call.args[0].star and call.args[0].keyword is None \
            and (elementwise(flow, call.args[0].value, truth=func.value in ("any", "all")) is not None
                 or _flat_list(flow, call.args[0].value)):
        # `any(p > 0.9 for p in probs.tolist())`: the read of `(probs > 0.9).any()`; `max(x.flatten().tolist())`,
        # of `x.flatten().max()`
        return func.value
    if qualified is None and isinstance(func, cst.Name) and func.value in ("any", "all") and len(call.args) == 1 \
            and not call.args[0].star and call.args[0].keyword is None and _plain_tensor(flow, call.args[0].value):
        return func.value  # `all(t)`: the truth of each element of a 1-d tensor (eager raises on wider rows)
    return None


def _plain_tensor(flow: FunctionFlow, expr: cst.BaseExpression) -> bool:
    """Whether `expr` is one tensor: not an object holding tensors, nor a comprehension or display
    of them (`any(row.sum() > 3 for row in x)` has no `.any()`)."""
    if isinstance(expr, (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.List, cst.Tuple, cst.Set)):
        return False
    value = flow.value(expr)
    return is_tensor_like(value) and not value.has(Kind.STRUCTURE)


#: Python's reductions of an iterable, and the tensor method reducing the same way over a 1-d tensor
_REDUCED = {"any": "any", "all": "all", "sum": "sum", "max": "max", "min": "min"}


def elementwise(
    flow: FunctionFlow, expr: cst.BaseExpression, torch: str | None = None, truth: bool = False
) -> cst.BaseExpression | None:
    """`p > 0.9 for p in probs.tolist()` (a generator or list comprehension of one `for` over
    `.tolist()` of a tensor, no filter) whose element is arithmetic and single comparisons of the
    loop variable and Python numbers, as the tensor computing every element at once (`probs >
    0.9`); None for anything else. The variable must meet an operator: a number, so the tensor is
    1-d (a row of a 2-d tensor is a list, which `> 0.9` rejects in eager too). With `torch` (the
    name new code calls torch by), a conditional expression of such parts is `torch.where` of them
    (`2.0 * g if g > 0 else 1.0` -> `torch.where(t > 0, 2.0 * t, 1.0)`). A loop over the tensor
    itself reads each element by `.item()` (`t.item() == eos for t in tokens`); with `truth` (the
    truth of each element is what is asked: `any`, `all`) also as it is (`w >= 0 for w in weights`:
    eager raises on a row of several elements, so the tensor form agrees wherever eager runs)."""
    if not isinstance(expr, (cst.GeneratorExp, cst.ListComp)):
        return None
    loop = expr.for_in
    if loop.ifs or loop.inner_for_in is not None or not isinstance(loop.target, cst.Name):
        return None
    listed, variable, element = loop.iter, loop.target.value, expr.elt
    if isinstance(listed, cst.Call) and isinstance(listed.func, cst.Attribute) and not listed.args \
            and listed.func.attr.value == "tolist" and is_tensor_like(flow.value(listed.func.value)):
        tensor = listed.func.value
    elif _plain_tensor(flow, listed) and (read := _items_read(element, variable, truth)) is not None:
        # `any(t.item() == eos for t in tokens)`: each element of the tensor read as a number
        tensor, element = listed, read
    else:
        return None
    if isinstance(element, cst.Name) or not _elementwise_parts(flow, element, variable, torch is not None):
        return None
    vectorised = element.visit(_Renamed(variable, cst.parse_expression(receiver(tensor)), torch))
    return vectorised.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # type: ignore[union-attr]


def _items_read(element: cst.BaseExpression, variable: str, bare: bool) -> cst.BaseExpression | None:
    """`element` with each `variable.item()` as `variable`, where the variable is read only that
    way (the number each element of the tensor holds), or `bare`: read as it is too; None otherwise."""
    items = [n for n in iter_nodes(element) if isinstance(n, cst.Call) and not n.args
             and isinstance(n.func, cst.Attribute) and n.func.attr.value == "item"
             and isinstance(n.func.value, cst.Name) and n.func.value.value == variable]
    reads = [n for n in iter_nodes(element) if isinstance(n, cst.Name) and n.value == variable]
    if not bare and (not items or len(items) != len(reads)):
        return None
    return element.visit(_ItemsRead(variable))  # type: ignore[return-value]


class _ItemsRead(cst.CSTTransformer):
    """`v.item()` -> `v`."""

    def __init__(self, variable: str) -> None:
        self.variable = variable

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if (not updated.args and isinstance(func, cst.Attribute) and func.attr.value == "item"
                and isinstance(func.value, cst.Name) and func.value.value == self.variable):
            return func.value
        return updated


def _elementwise_parts(flow: FunctionFlow, expr: cst.CSTNode, variable: str, selects: bool = False) -> bool:
    """Whether `expr` is made of the loop variable, number literals, Python numbers that are no
    tensor and no read of data (`self.tau`), arithmetic and single comparisons: what a tensor
    computes the same way element by element."""
    if isinstance(expr, cst.Name):
        return expr.value == variable or not (flow.value(expr).has(Kind.DATA) or is_tensor_like(flow.value(expr)))
    if isinstance(expr, cst.Attribute):
        value = flow.value(expr)
        return isinstance(expr.value, cst.Name) and expr.value.value == "self" and not (
            value.has(Kind.DATA) or is_tensor_like(value) or value.has(Kind.MODULE))
    if isinstance(expr, cst.Comparison) and (
        len(expr.comparisons) != 1 or isinstance(expr.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
    ):
        return False
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return False
    if isinstance(expr, cst.BinaryOperation) and not isinstance(
        expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
    ):
        return False  # `//` and `%` of floats round differently from torch's on negative numbers
    if isinstance(expr, cst.IfExp) and not selects:
        return False
    if not isinstance(expr, (cst.BaseNumber, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.IfExp,
                             cst.ComparisonTarget, cst.BaseBinaryOp, cst.BaseCompOp, cst.Minus, cst.Plus,
                             cst.LeftParen, cst.RightParen, cst.BaseParenthesizableWhitespace)):
        return False
    return all(_elementwise_parts(flow, child, variable, selects) for child in expr.children)


class _Renamed(cst.CSTTransformer):
    """Every read of `name` (not an attribute's or a keyword's) -> `value`; `a if c else b` ->
    `torch.where(c, a, b)` (`torch`: the name torch is called by)."""

    def __init__(self, name: str, value: cst.BaseExpression, torch: str | None = None) -> None:
        self.name, self.value, self.torch = name, value, torch
        self._kept: set[int] = set()

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        parts = (code_of(p.with_changes(lpar=[], rpar=[])) for p in (updated.test, updated.body, updated.orelse))
        return cst.parse_expression(f"{self.torch}.where({', '.join(parts)})")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._kept.add(id(node.attr))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.value if original.value == self.name and id(original) not in self._kept else updated


#: a function of `math` and torch's op computing it elementwise on a tensor (in the tensor's
#: precision; an integer tensor is promoted to float as `math` converts the number)
TENSOR_MATH = {
    "math.sqrt": "sqrt", "math.log": "log", "math.log2": "log2", "math.log10": "log10", "math.log1p": "log1p",
    "math.exp": "exp", "math.expm1": "expm1", "math.fabs": "abs", "math.sin": "sin", "math.cos": "cos",
    "math.tanh": "tanh", "math.atan": "atan",
}

#: reductions to one element when called with no argument (`t.mean()`): a 0-d tensor
_FULL_REDUCTIONS = frozenset({"mean", "sum", "max", "min", "var", "std", "norm", "amax", "amin", "prod", "median"})


def _builtin_conversion(flow: FunctionFlow, call: cst.Call) -> bool:
    """`call` is `int(...)`, `float(...)` or `bool(...)` of one plain argument, the builtins."""
    return isinstance(call.func, cst.Name) and call.func.value in ("bool", "int", "float") and len(call.args) == 1 \
        and not call.args[0].star and call.args[0].keyword is None and flow.resolver.resolve(call.func) is None


def _python_number_function(flow: FunctionFlow, call: cst.Call) -> bool:
    """`call` is of a `math` function or the builtin `round`: of a tensor, it reads the number."""
    if not isinstance(call.func, (cst.Name, cst.Attribute)):
        return False
    qualified = flow.resolver.resolve(call.func)
    return (qualified or "").startswith("math.") or (
        qualified is None and isinstance(call.func, cst.Name) and call.func.value == "round"
    )


def _math_of_a_read(flow: FunctionFlow, call: cst.Call) -> bool:
    """`math.log(t.mean().item() + 1)`: a function of `TENSOR_MATH` of a read of a full reduction,
    which `_Unwrap` writes as the torch function of the 0-d tensor."""
    return isinstance(call.func, (cst.Name, cst.Attribute)) and flow.resolver.resolve(call.func) in TENSOR_MATH \
        and len(call.args) == 1 and _reads_a_full_reduction(flow, call.args[0].value)


def _reads_a_full_reduction(flow: FunctionFlow, expr: cst.BaseExpression) -> bool:
    """Whether `expr` is a read of a full reduction (`t.var().item()`, `float(t.mean())`) or
    arithmetic of one with numbers written out (`t.abs().mean().item() + 1`): a 0-d tensor once
    unwrapped, whatever the rank of `t`."""
    if isinstance(expr, cst.BinaryOperation):
        sides = (expr.left, expr.right)
        return any(_reads_a_full_reduction(flow, side) for side in sides) and all(
            _number_literal(side) or _reads_a_full_reduction(flow, side) for side in sides
        )
    kind = _conversion(flow, expr) if isinstance(expr, cst.Call) else None
    if kind not in ("item", "float"):
        return False
    assert isinstance(expr, cst.Call)
    read = expr.func.value if kind == "item" else expr.args[0].value  # type: ignore[attr-defined]
    return isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute) and not read.args \
        and read.func.attr.value in _FULL_REDUCTIONS and is_tensor_like(flow.value(read.func.value))


#: Python's rounding of a number, and the tensor method that rounds the same way
_ROUNDING = {"math.ceil": "ceil", "math.floor": "floor", "math.trunc": "trunc"}


def _clamp(call: cst.Call) -> cst.BaseExpression | None:
    """The side of `max(n, 1)` or `min(1.0, n)` (the builtins, two plain arguments, one a number
    literal) that is no literal, or None."""
    if not (isinstance(call.func, cst.Name) and call.func.value in ("min", "max") and len(call.args) == 2
            and not any(a.star or a.keyword for a in call.args)):
        return None
    others = [a.value for a in call.args if not _number_literal(a.value)]
    return others[0] if len(others) == 1 else None


def _read_call(flow: FunctionFlow, expr: cst.BaseExpression | None) -> bool:
    """`expr` is itself a read of a number from a tensor (`t.item()`, `int(t)`, `math.ceil(...)`),
    or of a bool (`0 in mask`)."""
    if isinstance(expr, cst.Comparison):
        return tensor_membership(expr, flow.value)
    return isinstance(expr, cst.Call) and _conversion(flow, expr) is not None


def _number_literal(expr: cst.BaseExpression) -> bool:
    """`1`, `0.5`, `-1`: a number written out."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def _summed_list(flow: FunctionFlow, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor `t` of `t.tolist()`, or of a comprehension handing back each element of it
    unchanged (`c for c in t.tolist()`, no filter), or the sum read of each of its rows (`r.sum().item()
    for r in t`: the rows' sums add up to `t.sum()`): what `sum()` of it adds up, or None."""
    if isinstance(expr, (cst.GeneratorExp, cst.ListComp)):
        loop = expr.for_in
        if loop.ifs or loop.inner_for_in is not None or not isinstance(loop.target, cst.Name):
            return None
        if _row_sum_read(flow, expr.elt, loop.target.value) and is_tensor_like(flow.value(loop.iter)):
            return loop.iter
        if not (isinstance(expr.elt, cst.Name) and expr.elt.value == loop.target.value):
            return None
        expr = loop.iter
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "tolist" \
            and not expr.args and is_tensor_like(flow.value(expr.func.value)):
        return expr.func.value
    return None


def _row_sum_read(flow: FunctionFlow, expr: cst.BaseExpression, row: str) -> bool:
    """`expr` reads the sum of the tensor `row` as a float: `row.sum().item()` or `float(row.sum())`."""
    kind = _conversion(flow, expr) if isinstance(expr, cst.Call) else None
    if kind not in ("item", "float"):
        return False
    summed = expr.func.value if kind == "item" else expr.args[0].value  # type: ignore[union-attr]
    return (isinstance(summed, cst.Call) and isinstance(summed.func, cst.Attribute) and summed.func.attr.value == "sum"
            and not summed.args and isinstance(summed.func.value, cst.Name) and summed.func.value.value == row)


def reads_number(flow: FunctionFlow, call: cst.Call) -> bool:
    """Whether `call` reads a Python number from a tensor (`t.item()`, `int(t)`, ...)."""
    return _conversion(flow, call) is not None


def read_arithmetic(flow: FunctionFlow, expr: cst.BaseExpression) -> bool:
    """Whether `expr` is arithmetic on numbers read from tensors in place and numbers written out
    (`int(n)`, `-(p * p.log()).sum().item()`), reading at least one: the rewrites write its tensor form."""
    return bound_arithmetic(flow, expr, ())


def bound_arithmetic(flow: FunctionFlow, expr: cst.BaseExpression, bound: Iterable[str]) -> bool:
    """`read_arithmetic`, where the names `bound` (those a rewrite binds to tensors) count as reads."""
    return _arithmetic(flow, expr) and _reads_only(flow, expr, bound)


def _as_tensor(kind: str, call: cst.Call, flow: FunctionFlow) -> cst.BaseExpression:
    """The tensor expression computing what the conversion `call` reads: `t.item()` and
    `float(t)` -> `t`; `int(t)` -> `t.long()` (it truncates the same way); `bool(t)` -> `t`
    when `t` is already a bool tensor, else `t != 0`."""
    if kind == "item":
        assert isinstance(call.func, cst.Attribute)
        return call.func.value
    if kind.removeprefix("torch.") in _PYTHON_BOOL_OPS:
        return _bool_op_as_tensor(kind, call)
    if kind in _ROUNDING:
        return cst.parse_expression(f"{receiver(call.args[0].value)}.{_ROUNDING[kind]}()")
    if kind in ("min", "max") and len(call.args) == 2:
        # the side `_Unwrap` turned into a tensor (it is no literal), clamped by the literal
        tensor, bound = sorted((a.value for a in call.args), key=_number_literal)
        clamp = "clamp_min" if kind == "max" else "clamp_max"
        return cst.parse_expression(f"{receiver(tensor)}.{clamp}({code_of(bound)})")
    if kind in _REDUCED and (vectorised := elementwise(flow, call.args[0].value, truth=kind in ("any", "all"))) \
            is not None:
        return cst.parse_expression(f"{code_of(vectorised)}.{_REDUCED[kind]}()")
    if kind in _REDUCED and (flat := _flat_list(flow, call.args[0].value)) is not None:
        return cst.parse_expression(f"{code_of(flat)}.{_REDUCED[kind]}()")
    if kind in ("any", "all") and _plain_tensor(flow, call.args[0].value):
        return cst.parse_expression(f"{receiver(call.args[0].value)}.{kind}()")
    if kind == "sum":
        return cst.parse_expression(f"{receiver(_summed_list(flow, call.args[0].value))}.sum()")  # type: ignore[arg-type]
    inner = call.args[0].value.with_changes(lpar=[], rpar=[])
    simple = isinstance(inner, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    wrapped = code_of(inner) if simple else f"({code_of(inner)})"
    if kind == "float":
        return inner
    if kind == "int":
        return cst.parse_expression(f"{wrapped}.long()")
    method = inner.func.attr.value if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) else ""
    if isinstance(inner, (cst.Comparison, cst.BooleanOperation)) or method in _BOOLEAN_METHODS:
        return inner
    return cst.parse_expression(f"{wrapped} != 0")


def _bool_op_as_tensor(kind: str, call: cst.Call) -> cst.BaseExpression:
    """The bool tensor an op of `_PYTHON_BOOL_OPS` (`kind` as `_conversion` names it) reads its
    answer from: `torch.equal(a, b)` -> `(a == b).all() if a.shape == b.shape else
    a.new_tensor(False)` (equal sizes and values, dtypes promoted, NaN unequal: what
    `torch.equal` answers, measured on 2.13); `allclose(...)` -> `isclose(...).all()` (its
    definition, same arguments); `is_nonzero(t)` -> `t != 0`."""
    assert isinstance(call.func, cst.Attribute)
    op = kind.removeprefix("torch.")
    if op == "allclose":
        isclose = call.with_changes(func=call.func.with_changes(attr=cst.Name("isclose")))
        return cst.parse_expression(f"{code_of(isclose)}.all()")
    operands = [a.value for a in call.args]
    if not kind.startswith("torch."):
        operands.insert(0, call.func.value)
    first, *rest = (receiver(o) for o in operands)
    if op == "is_nonzero":
        return cst.parse_expression(f"{first} != 0")
    second = rest[0]
    return cst.parse_expression(
        f"({first} == {second}).all() if {first}.shape == {second}.shape else {first}.new_tensor(False)"
    )


#: methods whose result has rank 1 whatever the tensor's rank, with the arguments that make it so
_FLATTENING = {"flatten": (), "ravel": (), "view": ("-1",), "reshape": ("-1",)}


def _flat_list(flow: FunctionFlow, expr: cst.BaseExpression) -> cst.Call | None:
    """The tensor `t.flatten()` of `t.flatten().tolist()` (or `.ravel()`, `.view(-1)`,
    `.reshape(-1)`): a list of numbers whatever the rank of `t`; None for anything else (the list
    of a tensor of unknown rank may hold lists)."""
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "tolist"
            and not expr.args):
        return None
    flat = expr.func.value
    if not (isinstance(flat, cst.Call) and isinstance(flat.func, cst.Attribute)
            and _FLATTENING.get(flat.func.attr.value) == tuple(code_of(a.value) for a in flat.args)
            and not any(a.keyword or a.star for a in flat.args) and is_tensor_like(flow.value(flat))):
        return None
    return flat


def read_list_source(flow: FunctionFlow, expr: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression | None:
    """The tensor `t` whose `t.tolist()` `expr` is: written there, a name bound once to it (or to a
    name that is), or what a one-line helper hands back (`_h(t.tolist())`); None for anything else.
    `t` is a name or an attribute, so it reads the same tensor where `expr` is."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Name):
        bound = flow.bound_once(expr.value)
        return read_list_source(flow, bound, depth + 1) if bound is not None else None
    if not isinstance(expr, cst.Call):
        return None
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "tolist" and not expr.args:
        tensor = expr.func.value
        if isinstance(tensor, (cst.Name, cst.Attribute)) and is_tensor_like(flow.value(tensor)):
            return None if isinstance(tensor, cst.Name) and flow.bound_once(tensor.value) is None and (
                tensor.value not in flow.params) else tensor
        return None
    inlined = flow.inlined(expr)
    return read_list_source(flow, inlined, depth + 1) if inlined is not None and inlined is not expr else None


def _flat_element(flow: FunctionFlow, expr: cst.Subscript) -> cst.BaseExpression | None:
    """`t.flatten().tolist()[-1]`, a constant index of a `_flat_list` -> `t.flatten()[-1]`, the 0-d
    tensor of the same value; None for anything else."""
    flat = _flat_list(flow, expr.value)
    if flat is None or len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    index = expr.slice[0].slice.value
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
        index = index.expression
    return expr.with_changes(value=flat, lpar=[], rpar=[]) if isinstance(index, cst.Integer) else None


class _Unwrap(cst.CSTTransformer):
    def __init__(self, flow: FunctionFlow, tensors: Iterable[str]) -> None:
        self.flow = flow
        self.tensors = set(tensors)
        self.changed = False
        self._outer: list[bool] = []

    def visit_Call(self, node: cst.Call) -> None:
        self._outer.append(self.changed)
        self.changed = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        unwrapped = self.changed
        self.changed = self._outer.pop() or unwrapped
        kind = _conversion(self.flow, original)
        if kind is None and unwrapped and _clamp(original) is not None:
            # `max(n_neg, 1)` of a name the rewrite binds to a tensor: the tensor clamped
            return _as_tensor(original.func.value, updated, self.flow)  # type: ignore[attr-defined]
        if kind is None:
            # `_h(peak > 1.0)`, `_count(steps)`: what a one-line helper computes, written here,
            # where it reads a number to unwrap (a helper of tensors stays called as it is)
            inlined = self.flow.inlined(original)
            if inlined is None and unwrapped and _builtin_conversion(self.flow, original):
                # `float(peak)` of a name the rewrite binds to the tensor `.item()` read: converted there
                self.changed = True
                return _as_tensor(original.func.value, updated, self.flow)  # type: ignore[attr-defined]
            if inlined is None and unwrapped:
                return self._python_math(original, updated)
            return self._through(inlined, updated)
        self.changed = True
        # `sum()` of a list is the sum of the tensor the list is made from, as written (not as unwrapped)
        return _as_tensor(kind, original if kind == "sum" else updated, self.flow)

    def _python_math(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """A call of Python's number functions on what became a tensor: `math.log(t.mean().item())`
        -> `torch.log(t.mean())` where the tensor is provably 0-d (a full reduction: the rank a
        `torch.cond` predicate takes). Any other `math` or `round` call is left as written, reading
        the number (`python_read` names it: no fix), since of a tensor it reads the number again
        (measured on 2.13: `round()` of a tensor raises TypeError under export, `math.log` of a
        read plus one still guards on it)."""
        if not _python_number_function(self.flow, original):
            return updated
        if not _math_of_a_read(self.flow, original):
            return original  # left reading the number: `python_read` names it, and no fix is written
        op = TENSOR_MATH[self.flow.resolver.resolve(original.func)]  # type: ignore[index]
        return cst.parse_expression(f"{scope_names(self.flow).torch}.{op}({code_of(updated.args[0].value)})")

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        element = _flat_element(self.flow, original)
        if element is None:
            return updated
        self.changed = True
        return element

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        # `self.temp` of a one-line property reading a number (`return self.temperature.item()`)
        return self._through(self.flow.property_inlined(original), updated)

    def _through(self, inlined: cst.BaseExpression | None, updated: cst.BaseExpression) -> cst.BaseExpression:
        """What `inlined` (a helper's or a property's `return`, written at the use) computes, unwrapped,
        where it reads a number to unwrap; else `updated` as it is."""
        if inlined is None:
            return updated
        before, self.changed = self.changed, False
        seen = inlined.visit(self)
        unwrapped = self.changed
        self.changed = before or unwrapped
        return seen if unwrapped else updated  # type: ignore[return-value]

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.tensors:
            self.changed = True

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._outer.append(self.changed)
        self.changed = False

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        unwrapped = self.changed
        self.changed = self._outer.pop() or unwrapped
        first = updated.comparisons[0]
        if tensor_membership(original, self.flow.value):
            # `0 in mask` is Tensor.__contains__: `(mask == 0).any()`, read as a Python bool
            self.changed = True
            found = f"({code_of(first.comparator)} == {code_of(updated.left)}).any()"
            return cst.parse_expression(found if isinstance(first.operator, cst.In) else f"{found}.logical_not()")
        if unwrapped and len(updated.comparisons) == 1 and isinstance(first.operator, (cst.Is, cst.IsNot)) \
                and isinstance(first.comparator, cst.Name) and first.comparator.value in ("True", "False"):
            # `bool(t) is False` with `bool(t)` become a bool tensor: identity with a literal is
            # always false for a tensor; the same truth is `== False` (`!=` for `is not`)
            operator = cst.Equal() if isinstance(first.operator, cst.Is) else cst.NotEqual()
            return updated.with_changes(comparisons=[first.with_changes(operator=operator)])
        return updated

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self._outer.append(self.changed)
        self.changed = False

    def leave_UnaryOperation(self, original: cst.UnaryOperation, updated: cst.UnaryOperation) -> cst.BaseExpression:
        unwrapped = self.changed or (
            # `not mask.any()` a one-line helper returns: `not` of a tensor, which calls bool() too
            isinstance(original.operator, cst.Not) and is_tensor_like(self.flow.value(original.expression))
        )
        self.changed = self._outer.pop() or unwrapped
        if unwrapped and isinstance(updated.operator, cst.Not):
            # `not` of what became a tensor calls bool() on it (a guard on data again, measured on
            # 2.13: `not bool(mask.any())` read through a helper); the same truth is `== 0`
            return cst.parse_expression(f"{receiver(updated.expression)} == 0")
        return updated


def tensor_predicate(
    flow: FunctionFlow, test: cst.BaseExpression, tensors: Iterable[str] = (), torch: str = "torch"
) -> cst.BaseExpression | None:
    """`test` as a boolean tensor expression, or None when it tests no tensor at all (a size or
    a Python value: it stays a Python condition). `tensors`: names a rewrite binds to tensors;
    `torch`: the name the file's new code calls torch by (see `common.Names`)."""
    tensors = set(tensors)
    if (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "bool"
            and flow.resolver.resolve(test.func) is None and len(test.args) == 1
            and isinstance(test.args[0].value, (cst.BooleanOperation, cst.Comparison, cst.UnaryOperation))):
        # `bool(a.item() > 0 and b.item() < 5)`: the truth of the test inside, `and` as logical_and
        return tensor_predicate(flow, test.args[0].value, tensors, torch)
    if isinstance(test, cst.BooleanOperation):
        left = tensor_predicate(flow, test.left, tensors, torch)
        right = tensor_predicate(flow, test.right, tensors, torch)
        if left is None and right is None:
            return None
        op = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
        sides = ((left, test.left), (right, test.right))
        parts = [code_of(p) if p is not None else _size_test(side, torch) for p, side in sides]
        return cst.parse_expression(f"{torch}.{op}({parts[0]}, {parts[1]})")
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = tensor_predicate(flow, test.expression, tensors, torch)
        return None if inner is None else cst.parse_expression(f"{torch}.logical_not({code_of(inner)})")
    value = tensor_value(flow, test, tensors)
    if value is None:
        return None
    # Python tests a number's truth (`if x.sum():`); torch.cond does not: it took the false branch
    # for a sum of -1.5 (measured). Anything not already a bool is compared `!= 0`
    if _boolean(value) or flow.value(test).has(Kind.MASK) or _named_test(flow, test):
        return value
    simple = isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    return cst.parse_expression(f"{code_of(value)} != 0" if simple else f"({code_of(value)}) != 0")


def cond_predicate(
    flow: FunctionFlow, test: cst.BaseExpression, tensors: Iterable[str] = (), torch: str = "torch"
) -> cst.BaseExpression:
    """`test` as the one predicate `torch.cond` takes: a boolean tensor, or a single size test (a
    symbolic bool `torch.cond` accepts as it is). Python's `and`/`or`/`not` never survive into it:
    they call `bool()` on their operands while tracing, which is the data-dependent guard again
    (`boxes.numel() > k and not is_tracing()`, measured on 2.13: the rewrite failed at its own
    line). Sides that test no tensor become `torch.tensor(side)` (a size test, or a Python flag).
    `len(t)` of a tensor is read as `t.shape[0]`: the same size, but a symbol where `len()` asks
    for a concrete int (measured on torch 2.13: `len()` of a `nonzero()` result fails non-strict
    export inside the predicate)."""
    test = test.visit(_LenAsSize(flow))  # type: ignore[assignment]
    predicate = tensor_predicate(flow, test, tensors, torch)
    if predicate is not None:
        return predicate
    if isinstance(test, cst.BooleanOperation):
        op = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
        left, right = (code_of(cond_predicate(flow, side, tensors, torch)) for side in (test.left, test.right))
        return cst.parse_expression(f"{torch}.{op}({_as_bool_tensor(left, torch)}, {_as_bool_tensor(right, torch)})")
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return cst.parse_expression(_size_test(test, torch))
    bare = test.with_changes(lpar=[], rpar=[])
    if _count(flow, bare) and flow.value(test).has(Kind.SHAPE | Kind.DD_SIZE):
        # `if hits.numel():` tests a count's truth; torch.cond takes a bool ("Expected pred to be bool
        # or tensor, but got u0", measured on torch 2.13)
        simple = isinstance(bare, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
        return cst.parse_expression(f"{code_of(bare)} != 0" if simple else f"({code_of(bare)}) != 0")
    return bare


def _count(flow: FunctionFlow, expr: cst.BaseExpression) -> bool:
    """Whether `expr` is an int count, not a bool: `t.numel()`, `t.size(0)`, `t.shape[0]`, `len(t)`,
    or a name bound once to one."""
    if isinstance(expr, cst.Name):
        bound = flow.bound_once(expr.value)
        return bound is not None and _count(flow, bound)
    return counted(expr) is not None


class _LenAsSize(cst.CSTTransformer):
    """`len(t)` of a tensor -> `t.shape[0]`."""

    def __init__(self, flow: FunctionFlow) -> None:
        self.flow = flow

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (
            isinstance(original.func, cst.Name) and original.func.value == "len" and len(original.args) == 1
            and self.flow.resolver.resolve(original.func) is None
            and is_tensor_like(self.flow.value(original.args[0].value))
        ):
            return updated
        return cst.parse_expression(f"{receiver(updated.args[0].value)}.shape[0]")


def _as_bool_tensor(code: str, torch: str) -> str:
    """`code`, already a tensor when it calls torch's logical ops, else wrapped in `torch.tensor`."""
    return code if code.startswith(f"{torch}.logical_") else f"{torch}.tensor({code})"


def tensor_value(
    flow: FunctionFlow, expr: cst.BaseExpression, tensors: Iterable[str] = ()
) -> cst.BaseExpression | None:
    """`expr` with every number read from a tensor replaced by the tensor (`t.item()` -> `t`),
    or None when it reads no tensor."""
    unwrap = _Unwrap(flow, tensors)
    converted = expr.visit(unwrap)
    if not (unwrap.changed or is_tensor_like(flow.value(expr))):
        return None
    return converted.with_changes(lpar=[], rpar=[])  # type: ignore[union-attr]


def _boolean(expr: cst.BaseExpression) -> bool:
    """Whether `expr` is a comparison or a call that returns a bool tensor."""
    if isinstance(expr, (cst.Comparison, cst.BooleanOperation)):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return True
    if isinstance(expr, cst.IfExp):
        return _boolean(expr.body) and _boolean(expr.orelse)
    method = expr.func.attr.value if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) else ""
    if method == "new_tensor" and isinstance(expr, cst.Call) and len(expr.args) == 1:
        literal = expr.args[0].value
        return isinstance(literal, cst.Name) and literal.value in ("True", "False")
    return method in _BOOLEAN_METHODS


def _named_test(flow: FunctionFlow, test: cst.BaseExpression) -> bool:
    """`value` of `value = count > 0` or `value = bool(mask.any())`: a name bound once to a
    comparison or a `bool()` conversion (a bool already; as a tensor, `_as_tensor` keeps it one)."""
    bound = flow.bound_once(test.value) if isinstance(test, cst.Name) else None
    return bound is not None and (
        _boolean(bound) or isinstance(bound, cst.Call) and _conversion(flow, bound) == "bool"
    )


def _size_test(test: cst.BaseExpression, torch: str) -> str:
    """A test on sizes (a Python or symbolic bool) as a tensor: `torch.tensor(test)`, with `not`
    as `torch.logical_not` (Python's `not` would guard on a symbolic size)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return f"{torch}.logical_not({_size_test(test.expression, torch)})"
    return f"{torch}.tensor({code_of(test.with_changes(lpar=[], rpar=[]))})"


class _Reads(cst.CSTVisitor):
    """Every `Name` node of a function, the single-name bindings `n = <call>`, and the names
    read as a size or an index (`x[:, :n]`, `x.view(n)`, `range(n)`): a tensor cannot stand in
    for the number there. A call of a one-line helper is read as what it computes (`_h(n > 0)`
    reads `n` in a comparison, not as an argument)."""

    def __init__(self, flow: FunctionFlow, exempt: cst.CSTNode | None = None) -> None:
        self.flow = flow
        self.names: dict[str, list[cst.Name]] = {}
        #: name -> (the assignment, the expression bound to the name)
        self.bindings: dict[str, list[tuple[cst.Assign, cst.BaseExpression]]] = {}
        self.sizes: set[str] = set()
        self.exempt = exempt
        self._depth = 0

    def visit_Name(self, node: cst.Name) -> None:
        self.names.setdefault(node.value, []).append(node)
        if self._depth and node is not self.exempt:
            self.sizes.add(node.value)

    def visit_Call(self, node: cst.Call) -> bool:
        if (_clamp(node) is not None or isinstance(node.func, cst.Name) and node.func.value == "abs") \
                and self.flow.resolver.resolve(node.func) is None or _builtin_conversion(self.flow, node):
            # `max(n, 1)`, `abs(n)`, `float(n)` read `n` as a number, not as an argument of a call
            for arg in node.args:
                arg.value.visit(self)
            return False
        inlined = self.flow.inlined(node)
        if inlined is None:
            return True
        inlined.visit(self)
        return False

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        self._depth += 1

    def leave_SubscriptElement(self, original_node: cst.SubscriptElement) -> None:
        self._depth -= 1

    def visit_Arg(self, node: cst.Arg) -> bool:
        self._depth += 1
        node.value.visit(self)  # a keyword's name (`f(norm=...)`) is no read of a local `norm`
        return False

    def leave_Arg(self, original_node: cst.Arg) -> None:
        self._depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `x.norm()` reads `x`, not a local `norm`
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.bindings.setdefault(target.target.value, []).append((node, node.value))
            elif isinstance(target.target, cst.Tuple) and isinstance(node.value, cst.Tuple):
                # `n, _ = t.item(), 0`: each name from its own element
                pairs = zip(target.target.elements, node.value.elements, strict=False)
                for name, element in pairs:
                    if isinstance(name.value, cst.Name) and not isinstance(element, cst.StarredElement):
                        self.bindings.setdefault(name.value.value, []).append((node, element.value))


def _feeders(
    flow: FunctionFlow, inside: _Reads, everything: _Reads
) -> list[tuple[str, cst.BaseExpression]]:
    """The single bindings that compute only what the rewritten code reads, followed back from
    it: `value = count > 0` before `if value:`, and `count = int(mask.sum())` before that. Each
    as (its name, the expression bound); the rewrite may turn them into tensors with it."""
    read = {name: len(nodes) for name, nodes in inside.names.items()}
    fed: list[tuple[str, cst.BaseExpression]] = []
    grown = True
    while grown:
        grown = False
        for name in list(read):
            binds = everything.bindings.get(name, [])
            if any(name == known for known, _ in fed) or name in inside.bindings or len(binds) != 1:
                continue
            assign, value = binds[0]
            if len(assign.targets) != 1 or read[name] + 1 != len(everything.names.get(name, [])):
                continue  # read somewhere else too (its target is the one read outside)
            reads = _Reads(flow)
            value.visit(reads)
            fed.append((name, value))
            for other, nodes in reads.names.items():
                read[other] = read.get(other, 0) + len(nodes)
            grown = True
    return fed


#: what a binding fed into the rewritten code may compute to be bound as a tensor instead: the
#: same arithmetic and comparisons give the same values on a 0-dim tensor (`not`, `and`, `is`,
#: `in` and chained comparisons would ask for a Python bool: a guard on data again)
_ARITHMETIC = (
    cst.Name, cst.Attribute, cst.BaseNumber, cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget,
    cst.BaseBinaryOp, cst.BaseCompOp, cst.Dot, cst.Subscript, cst.SubscriptElement, cst.Index, cst.LeftParen,
    cst.RightParen, cst.BaseParenthesizableWhitespace, cst.UnaryOperation, cst.Minus, cst.Plus,
)


def _arithmetic(flow: FunctionFlow, expr: cst.CSTNode) -> bool:
    """Whether `expr` is arithmetic and single comparisons of names, numbers, attributes and
    conversions of tensors (`int(ids.max()) >= self.vocab`), seen through one-line helpers."""
    if isinstance(expr, cst.Call):
        if _conversion(flow, expr) is not None:
            return True
        clamped = _clamp(expr) if flow.resolver.resolve(expr.func) is None else None
        if clamped is not None:
            return _arithmetic(flow, clamped)  # `max(n_neg, 1)`: a clamp of the number
        if (isinstance(expr.func, cst.Name) and expr.func.value == "len" and len(expr.args) == 1
                and flow.resolver.resolve(expr.func) is None and not is_tensor_like(flow.value(expr.args[0].value))
                and not flow.value(expr).has(Kind.DATA)):
            return True  # `len(self.layers)`: a number the code fixes
        inlined = flow.inlined(expr)
        return inlined is not None and _arithmetic(flow, inlined)
    if isinstance(expr, cst.Comparison) and (
        len(expr.comparisons) != 1 or isinstance(expr.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
    ):
        return False
    if not isinstance(expr, _ARITHMETIC):
        return False
    return all(_arithmetic(flow, child) for child in expr.children)


def data_bindings(
    flow: FunctionFlow, func: cst.FunctionDef, within: Iterable[cst.CSTNode], exempt: cst.CSTNode | None = None
) -> dict[str, tuple[cst.BaseExpression, cst.BaseExpression]]:
    """Names bound once in `func` to a number read from a tensor (`n = t.item()`, `n = int(t)`)
    and read only inside `within` (the code being rewritten) or by what feeds it (`value = n > 0`
    read only by `if value:`): name -> (the expression bound, the tensor expression to bind
    instead). Binding the tensor lets the rewrite use it as a tensor (a predicate, an operand)
    where the number would be a guard on data; a name fed from such names by arithmetic is bound
    as that arithmetic on the tensors. `exempt`: the one read the rewrite itself replaces (the
    `n` of `range(n)`)."""
    inside = _Reads(flow, exempt)
    for node in within:
        node.visit(inside)  # libcst's walk: the visitor counts depth in `leave_` methods
    everything = _Reads(flow)
    func.body.visit(everything)
    fed = _feeders(flow, inside, everything)
    reads = _Reads(flow, exempt)
    for _, value in fed:
        value.visit(reads)
    counts = {name: len(nodes) for name, nodes in inside.names.items()}
    for name, nodes in reads.names.items():
        counts[name] = counts.get(name, 0) + len(nodes)
    sizes = inside.sizes | reads.sizes
    feeding = {name for name, _ in fed}
    candidates = [n for n in counts if (v := flow.env.get(n)) is not None and v.has(Kind.DATA)]
    out: dict[str, tuple[cst.BaseExpression, cst.BaseExpression]] = {}
    grown = True
    while grown:  # a name fed from others is bound once they are
        grown = False
        for name in candidates:
            binds = everything.bindings.get(name, [])
            if name in out or len(binds) != 1 or name in inside.bindings or name in sizes:
                continue
            if len(binds[0][0].targets) != 1 or len(everything.names[name]) != counts[name] + 1:
                continue  # the binding's own target is the one read outside the rewritten code
            value = binds[0][1]
            alias = 0
            while isinstance(value, cst.Name) and alias < 8:
                # `n = best`, `best = t.item()`: `best` bound once and read only there, the same number
                source = everything.bindings.get(value.value, [])
                if len(source) != 1 or len(source[0][0].targets) != 1 or len(everything.names[value.value]) != 2:
                    break
                value, alias = source[0][1], alias + 1
            if _read_call(flow, value) or isinstance(value, cst.Call) and (
                _math_of_a_read(flow, value)
                or _read_call(flow, flow.inlined(value))  # `peak = _peak(x)` of `return t.max().item()`
            ):
                tensor = tensor_value(flow, value)
            elif isinstance(value, cst.Subscript) and _flat_element(flow, value) is not None:
                tensor = tensor_value(flow, value)  # `last = x.flatten().tolist()[-1]`
            elif name in feeding and _arithmetic(flow, value) and _reads_only(flow, value, out):
                tensor = tensor_value(flow, value, out)
            else:
                continue
            if tensor is not None:
                out[name] = (value, tensor)
                grown = True
    return out


def _reads_only(flow: FunctionFlow, expr: cst.BaseExpression, bound: Iterable[str]) -> bool:
    """Whether every number read from data that `expr` reads is one of `bound` or a conversion
    of a tensor written in it, and it reads at least one."""
    reads = _Reads(flow)
    expr.visit(reads)
    data = {n for n in reads.names if (v := flow.env.get(n)) is not None and v.has(Kind.DATA) and not is_tensor_like(v)}
    converts = any(isinstance(node, cst.Call) and _conversion(flow, node) for node in iter_nodes(expr))
    return data <= set(bound) and bool(data or converts)


def python_read(
    flow: FunctionFlow, predicate: cst.CSTNode, bound: Iterable[str] = (), test: cst.CSTNode | None = None
) -> str | None:
    """The first call (or container entry, or name) left in a rewritten `predicate` that still
    reads a Python value from tensor data (`any(flags.tolist())`: a list's elements, whose truth
    depends on the tensor's rank, so no tensor form is written for it; `stats["max"]` of a dict of
    numbers read; `g` of `for layer, g in zip(layers, gates.tolist())`), or None. `bound`: names
    the rewrite binds to tensors. A predicate holding one is a guard on data again. `test`: the
    condition `predicate` was written from, whose `int()` / `bool()` of a tensor left unchanged in it
    is one (`int(r.sum())` of `sum(int(r.sum()) for r in x) > 0`: a comprehension's variable is a
    tensor only in the flow of the original nodes); `float()` is not, XPT203 makes it `.item()`,
    which the predicate carries (`sum(float(r.sum()) for r in x) > 0` proves so)."""
    bound = set(bound)
    kept = set() if test is None else {
        code_of(node) for node in iter_nodes(test)
        if isinstance(node, cst.Call) and _conversion(flow, node) in ("int", "bool")
    }
    for node in iter_nodes(predicate):
        if isinstance(node, cst.Name) and node.value not in bound and node.value in flow.env:
            value = flow.env[node.value]
            if value.has(Kind.DATA) and not value.has(Kind.SHAPE) and not is_tensor_like(value):
                return node.value
            if any(isinstance(v, cst.Call) and _conversion(flow, v) is not None for v in flow.bindings(node.value)):
                # `flag = x.sum() > 0`, then `flag = bool(flag)`: one binding reads it as a Python value
                return node.value
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            value = flow.value(node)  # `self.peak` of `self.peak = float(x.max())`
            if value.has(Kind.DATA) and not value.has(Kind.SHAPE) and not is_tensor_like(value):
                return code_of(node)
        if isinstance(node, cst.Subscript) and not is_tensor_like(flow.value(node.value)):
            value = flow.value(node)  # an entry of a Python container: `stats["max"]` of a dict of reads
            if value.has(Kind.DATA) and not value.has(Kind.SHAPE) and not is_tensor_like(value):
                return code_of(node)
        if isinstance(node, cst.Call) and _python_number_function(flow, node) and any(
            isinstance(n, cst.Name) and n.value in bound for n in iter_nodes(node)
        ):
            return code_of(node)  # `math.log(v)` of a name the rewrite binds to a tensor: a number again
        if isinstance(node, cst.Call) and code_of(node) in kept:
            return code_of(node)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("any", "all") \
                and flow.resolver.resolve(node.func) is None and (flow.value(node).has(Kind.DATA) or any(
                    isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                    and n.func.attr.value in ("item", "tolist") for n in iter_nodes(node))):
            # `any(row.sum() > 3 for row in x)`, `any(t.item() > 3 for t in x)`: Python's truth of each
            # element, read one by one (a guard on each)
            return code_of(node)
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            continue
        if node.func.attr.value in ("tolist", "item") and is_tensor_like(flow.value(node.func.value)):
            return code_of(node)
        if isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
            value = flow.value(node)  # `self._hot()` returning `self.level > 0.5` of a number kept on self
            if value.has(Kind.DATA) and not value.has(Kind.SHAPE) and not is_tensor_like(value):
                return code_of(node)
    return None


def uncarried(flow: FunctionFlow, expr: cst.CSTNode) -> bool:
    """Whether `expr` converts a tensor to a Python number export cannot carry as a symbol
    (`int(t)`, `float(t)`, `bool(t)`: "Could not extract specialized integer"); `t.item()` it can."""
    calls = (node for node in iter_nodes(expr) if isinstance(node, cst.Call))
    return any(_conversion(flow, call) not in (None, "item") for call in calls)


def guard_problem(test: cst.BaseExpression) -> str | None:
    """Why `test` cannot become one tensor predicate: `a and b` where `a` guards `b` (`x is not
    None`, `isinstance(...)`, `hasattr(...)`). Python skips `b` when `a` is false; a tensor
    predicate computes both, and `b` fails then."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return guard_problem(test.expression)
    if not isinstance(test, cst.BooleanOperation):
        return None
    for side in (test.left, test.right):
        if is_guard(side):
            return f"`{code_of(side)}` guards the rest of the condition, which a tensor predicate would compute anyway"
        inner = guard_problem(side)
        if inner:
            return inner
    return None


def is_guard(test: cst.BaseExpression) -> bool:
    """`x is not None`, `isinstance(x, T)`, `hasattr(x, "a")`: a test that guards what follows it."""
    if isinstance(test, cst.Comparison):
        return any(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in test.comparisons)
    return (
        isinstance(test, cst.Call) and isinstance(test.func, cst.Name)
        and test.func.value in ("isinstance", "hasattr", "callable")
    )
