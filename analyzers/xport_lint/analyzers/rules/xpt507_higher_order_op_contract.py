from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..dataflow import Kind
from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ..walk import iter_nodes
from ._conditions import short

_COND = ("torch.cond", "torch._higher_order_ops.cond", "torch._higher_order_ops.cond.cond",
         "functorch.experimental.control_flow.cond")
_WHILE = ("torch._higher_order_ops.while_loop", "torch._higher_order_ops.while_loop.while_loop")


class HigherOrderOpContract(Rule):
    """`torch.cond` or `while_loop` called against its signature: export fails at the call.

    ## What it does
    Checks what the call shows of `torch.cond(pred, true_fn, false_fn, operands)` and
    `while_loop(cond_fn, body_fn, carried_inputs)`:
    - `torch.cond` without its operands, or with arguments after them;
    - operands given as a bare tensor or a dict instead of a tuple or list;
    - a branch (or `cond_fn`/`body_fn`) defined in the file, as a `def` or `lambda`, whose number
      of required parameters differs from the number of operands;
    - two `torch.cond` branches whose `return` statements give different structures (a tuple of
      two against a single value, `None`);
    - a `torch.cond` branch that hands back its operand unchanged (`lambda t: t`);
    - a `torch.cond` branch that returns a Python number (`lambda t: 1.0`), and two branches
      one of which returns a comparison (a bool tensor) where the other returns arithmetic with
      a number (`t > 0` against `t * 2`: their dtypes differ);
    - a `while_loop` body whose `return` gives another number of values than it carries, or
      gives back a carried value cut by a literal slice (`t[1:]`: its shape changes per step).

    ## Why it fails torch.export
    The higher-order op traces each branch with the operands as its arguments and needs both to
    return the same structure of tensors; anything else stops it:
    `UncapturedHigherOrderOpError: This higher order operator doesn't work unless it is captured
    completely with torch.compile`, `cond() takes from 3 to 4 positional arguments`, `Expect
    operands to be a tuple of possibly nested dict/list/tuple that only consists of tensor leaves`,
    `Unmatched output spec from torch.cond branches`, `Encountered aliasing during higher order op
    tracing` (a branch's output is its input), `Expected body_fn_output and carried_inputs to have
    same number of outputs`, `HOP body output unsupported` (a number), `When merging two branches'
    output in torch.cond, expected same dtype`.

    ## Example
    ```python
    return torch.cond(x.sum() > 0, self.pos, self.neg, x)
    ```

    ## Use instead
    ```python
    return torch.cond(x.sum() > 0, self.pos, self.neg, (x,))
    ```

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT507"
    NAME = "higher-order-op-contract"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "UncapturedHigherOrderOpError"
    FAILS_WITH = {
        mode: (
            TorchError("UncapturedHigherOrderOpError", "captured completely"),
            TorchError("TypeError", "positional arguments"),
            TorchError("Unsupported", "failed to bind arguments"),
            TorchError("RuntimeError", "Expect operands to be a tuple"),
            TorchError("TorchRuntimeError", "Unmatched output spec from torch.cond branches"),
            TorchError("UncapturedHigherOrderOpError", "same number of outputs"),
            TorchError("TorchRuntimeError", "expected same dtype"),
        )
        for mode in Mode
    }

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if name not in ("cond", "while_loop"):
            return
        api = self.ctx.resolve(node.func)
        if api in _COND:
            self._cond(node)
        elif api in _WHILE:
            self._while(node)

    def _cond(self, node: cst.Call) -> None:
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if any(a.star for a in node.args):
            return
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if len(positional) > 4:
            self.report(node, f"`torch.cond` takes (pred, true_fn, false_fn, operands), but this call passes "
                              f"{len(positional)} positional arguments: export fails")
            return
        operands = positional[3] if len(positional) == 4 else keywords.get("operands")
        branches = positional[1:3] + [keywords[k] for k in ("true_fn", "false_fn") if k in keywords]
        if operands is None:
            if len(branches) == 2 and all(_arity(self._function(b)) not in (None, 0) for b in branches):
                self.report(node, "`torch.cond` without operands: its branches take arguments, which only the "
                                  "operands tuple gives; export fails (pass them as `(x,)`)")
            return
        count = self._operand_count(operands, node)
        if count is None:
            return
        for branch in branches:
            arity = _arity(self._function(branch))
            if arity is not None and arity != count:
                self.report(branch, f"the branch `{short(branch)}` takes {arity} argument(s) but `torch.cond` "
                                    f"passes {count} operand(s): export fails")
                return
        for branch in branches:
            kept = _hands_back(self._function(branch))
            if kept is not None:
                self.report(node, f"the branch `{short(branch)}` returns its operand `{kept}` unchanged: export "
                                    f"fails (aliasing in torch.cond's output); return a copy (`{kept}.clone()`)")
                return
        for branch in branches:
            number = _number_returned(self._function(branch))
            if number is not None:
                self.report(node, f"the branch `{short(branch)}` returns the Python number `{number}`, not a tensor: "
                                  "export fails (a branch's outputs must be tensors); return `torch.full_like(...)` "
                                  "or a tensor op")
                return
        shapes = [_returned(self._function(b)) for b in branches]
        if len(shapes) == 2 and None not in shapes and shapes[0] != shapes[1]:
            self.report(node, f"the branches of `torch.cond` return different structures ({_describe(shapes[0])} "
                              f"and {_describe(shapes[1])}): export fails; return the same number of tensors")
            return
        dtypes = {_dtype_returned(self._function(b)) for b in branches}
        if len(branches) == 2 and dtypes == {"bool", "number"}:
            self.report(node, "one branch of `torch.cond` returns a comparison (a bool tensor) and the other "
                              "arithmetic with a number (not bool): export fails (expected same dtype); convert "
                              "one (`.to(x.dtype)`)")

    def _while(self, node: cst.Call) -> None:
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(positional) != 3 or any(a.star for a in node.args):
            return
        count = self._operand_count(positional[2], node)
        if count is None:
            return
        for function in positional[:2]:
            arity = _arity(self._function(function))
            if arity is not None and arity != count:
                self.report(function, f"`{short(function)}` takes {arity} argument(s) but `while_loop` carries "
                                      f"{count} value(s): export fails")
                return
        given = _returned(self._function(positional[1]))
        if given is not None and given != count and not (given == "value" and count == 1):
            self.report(node, f"the body `{short(positional[1])}` returns {_describe(given)} but "
                                       f"`while_loop` carries {count} value(s): export fails; return every "
                                       "carried value, in order")
            return
        flow = self.ctx.flow
        cut = _cut_carry(self._function(positional[1]), flow.inlined if flow is not None else lambda _: None)
        if cut is not None:
            self.report(cut, f"the body of `while_loop` returns `{short(cut)}` for a carried value: its shape "
                             "changes from one step to the next and export fails (a carried value keeps its "
                             "shape); carry the tensor whole and a count of what to keep")

    def _operand_count(self, operands: cst.BaseExpression, node: cst.Call) -> int | None:
        """How many operands a tuple/list literal holds; a bare tensor is reported (None: unknown)."""
        if isinstance(operands, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in operands.elements):
                return None
            return len(operands.elements)
        if _is_dict(self._followed(operands), self.ctx.resolve):
            self.report(operands, f"the operands `{short(operands)}` are a dict, not a tuple or list: export fails "
                                  "(Expect operands to be a tuple); pass its tensors as a tuple, or the dict inside "
                                  f"one (`({short(operands)},)`)")
            return None
        value = self.ctx.value(operands)
        if value.has(Kind.TENSOR) and not value.has(Kind.STRUCTURE):
            self.report(operands, f"the operands `{short(operands)}` are a tensor, not a tuple or list: export "
                                  f"fails (Expect operands to be a tuple); write `({short(operands)},)`")
        return None

    def _followed(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What a local name bound once holds, in a model's `forward` (else `expr`)."""
        sizes = self.ctx.sizes()
        return sizes.followed(expr) if sizes is not None else expr

    def _function(self, expr: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
        """The `def` or `lambda` a branch names: a lambda, a function of this traced function or of
        the module, or a method (`self.branch`, its `self` left out)."""
        if isinstance(expr, cst.Lambda):
            return expr
        traced = self.ctx.traced
        if isinstance(expr, cst.Name):
            if traced is not None:
                nested = [n for n in iter_nodes(traced.func.body)
                          if isinstance(n, cst.FunctionDef) and n.name.value == expr.value]
                if len(nested) == 1:
                    return nested[0]
                if nested:
                    return None
            return self.ctx.program.functions.get(expr.value)
        if (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"
                and traced is not None and traced.cls is not None):
            return traced.cls.methods.get(expr.attr.value)
        return None

    VALID = [
        Valid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    def pos(x):
                        return x.sin()
                    def neg(x):
                        return x.cos()
                    return torch.cond(x.sum() > 0, pos, neg, [x])  # a list of operands is fine
            def xport_example():
                return Gate(), (torch.randn(4, 3),)
            """
        ),
        Valid(
            """
            import torch
            class Keyed(torch.nn.Module):
                def forward(self, x):
                    # a dict inside the operands tuple is a nested leaf, which torch.cond takes
                    return torch.cond(x.sum() > 0, lambda d: d["t"] * 2, lambda d: d["t"] + 1, ({"t": x},))
            def xport_example():
                return Keyed(), (torch.randn(4, 3),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Keyed(torch.nn.Module):
                def forward(self, x):
                    operands = {"t": x}
                    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t + 1, operands)  # expect: XPT507
            def xport_example():
                return Keyed(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Keyed(torch.nn.Module):
                def forward(self, x):
                    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t + 1, dict(t=x))  # expect: XPT507
            def xport_example():
                return Keyed(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def pos(self, x):
                    return x.sin()
                def neg(self, x):
                    return x.cos()
                def forward(self, x):
                    return torch.cond(x.sum() > 0, self.pos, self.neg, x)  # expect: XPT507
            def xport_example():
                return Gate(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Mix(torch.nn.Module):
                def forward(self, x, y):
                    def add(x, y):
                        return x + y
                    def sub(x, y):
                        return x - y
                    return torch.cond(x.sum() > 0, add, sub, (x,))  # expect: XPT507
            def xport_example():
                return Mix(), (torch.randn(4, 3), torch.randn(4, 3))
            """
        ),
        Invalid(
            """
            import torch
            class Split(torch.nn.Module):
                def forward(self, x):
                    def both(x):
                        return x.sin(), x.cos()
                    def one(x):
                        return x.cos()
                    return torch.cond(x.sum() > 0, both, one, (x,))  # expect: XPT507
            def xport_example():
                return Split(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    def pos(x):
                        return x.sin()
                    def neg(x):
                        return x.cos()
                    return torch.cond(x.sum() > 0, pos, neg)  # expect: XPT507
            def xport_example():
                return Gate(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Maybe(torch.nn.Module):
                def forward(self, x):
                    return torch.cond(x.sum() > 0, lambda t: t, lambda t: t * 2, (x,))  # expect: XPT507
            def xport_example():
                return Maybe(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            from torch._higher_order_ops import while_loop
            class Repeat(torch.nn.Module):
                def forward(self, x):
                    def step(i, t):
                        return (i + 1,)
                    i, out = while_loop(lambda i, t: i < 3, step, (torch.tensor(0), x))  # expect: XPT507
                    return out
            def xport_example():
                return Repeat(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            from torch._higher_order_ops import while_loop
            class Shrink(torch.nn.Module):
                def forward(self, x):
                    i, out = while_loop(lambda i, t: i < 2, lambda i, t: (i + 1, t[1:]), (torch.tensor(0), x))  # expect: XPT507
                    return out
            def xport_example():
                return Shrink(), (torch.randn(6, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Sign(torch.nn.Module):
                def forward(self, x):
                    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t > 0, (x,))  # expect: XPT507
            def xport_example():
                return Sign(), (torch.randn(4, 3),)
            """
        ),
        Invalid(
            """
            import torch
            class Total(torch.nn.Module):
                def forward(self, x):
                    return torch.cond(x.sum() > 0, lambda t: t.sum(), lambda t: 0.0, (x,))  # expect: XPT507
            def xport_example():
                return Total(), (torch.randn(4, 3),)
            """
        ),
    ]


def _arity(function: cst.FunctionDef | cst.Lambda | None) -> int | None:
    """Required positional parameters (a method's `self` left out); None with `*args` or unknown."""
    if function is None:
        return None
    params = function.params
    if not isinstance(params.star_arg, cst.MaybeSentinel) and params.star_arg is not None:
        return None
    names = [p for p in [*params.posonly_params, *params.params] if p.default is None]
    if isinstance(function, cst.FunctionDef) and names and names[0].name.value in ("self", "cls"):
        names = names[1:]
    return len(names)


def _cut_carry(
    function: cst.FunctionDef | cst.Lambda | None, inlined: Callable[[cst.Call], cst.BaseExpression | None]
) -> cst.Subscript | None:
    """The element of a `while_loop` body's returned tuple that slices the carried value in its
    place by literals that cut it (`t[1:]`, `t[:, :-1]`), where the body is one `return`; through
    one-line helpers (`inlined`: what a call computes, written at the call)."""
    if function is None:
        return None
    params = [p.name.value for p in [*function.params.posonly_params, *function.params.params]]
    if isinstance(function, cst.FunctionDef) and params[:1] == ["self"]:
        params = params[1:]
    if isinstance(function, cst.Lambda):
        value: cst.BaseExpression | None = function.body
    else:
        returns = [n for n in iter_nodes(function.body) if isinstance(n, cst.Return)]
        value = returns[0].value if len(returns) == 1 else None
    if not isinstance(value, cst.Tuple) or len(value.elements) != len(params):
        return None
    for name, element in zip(params, value.elements, strict=True):
        part = element.value
        for _ in range(4):
            written = inlined(part) if isinstance(part, cst.Call) else None
            if written is None:
                break
            part = written
        if not (isinstance(part, cst.Subscript) and isinstance(part.value, cst.Name) and part.value.value == name):
            continue
        for index in part.slice:
            piece = index.slice
            if isinstance(piece, cst.Slice) and piece.step is None and (
                (isinstance(piece.lower, cst.Integer) and int(piece.lower.evaluated_value) > 0)
                or (isinstance(piece.upper, cst.UnaryOperation) and isinstance(piece.upper.operator, cst.Minus)
                    and isinstance(piece.upper.expression, cst.Integer))
            ):
                return part
    return None


def _hands_back(function: cst.FunctionDef | cst.Lambda | None) -> str | None:
    """The parameter a branch returns as it is (`lambda t: t`), where some `return` does."""
    if function is None:
        return None
    params = {p.name.value for p in [*function.params.posonly_params, *function.params.params]}
    if isinstance(function, cst.Lambda):
        values: list[cst.BaseExpression | None] = [function.body]
    else:
        values = [n.value for n in iter_nodes(function.body) if isinstance(n, cst.Return)]
    return next((v.value for v in values if isinstance(v, cst.Name) and v.value in params), None)


def _returned(function: cst.FunctionDef | cst.Lambda | None) -> int | str | None:
    """What every `return` of a branch gives: a tuple's length, "value", "None"; None if unknown
    or the returns differ."""
    if function is None:
        return None
    if isinstance(function, cst.Lambda):
        values: list[cst.BaseExpression | None] = [function.body]
    else:
        values = [n.value for n in iter_nodes(function.body) if isinstance(n, cst.Return)]
        nested = any(isinstance(n, (cst.FunctionDef, cst.Lambda)) for n in iter_nodes(function.body))
        if nested or not values:
            return None
    kinds: set[int | str] = set()
    for value in values:
        if value is None or (isinstance(value, cst.Name) and value.value == "None"):
            kinds.add("None")
        elif isinstance(value, cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in value.elements):
                return None
            kinds.add(len(value.elements))
        elif isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)) or _tensor_call(value):
            kinds.add("value")
        else:
            return None  # a name or a submodule's result may hold a tuple
    return kinds.pop() if len(kinds) == 1 else None


#: tensor methods and torch functions that return several tensors
_MANY = frozenset({"split", "chunk", "unbind", "topk", "max", "min", "sort", "tensor_split", "unique", "meshgrid",
                   "broadcast_tensors", "svd", "qr", "eig", "kthvalue", "mode", "median", "aminmax", "frexp"})


def _tensor_call(value: cst.BaseExpression) -> bool:
    """`x.cos()`, `torch.relu(x)`: one tensor (not `self.layer(x)`, not `x.split(2)`)."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return False
    owner = value.func.value
    if isinstance(owner, cst.Name) and owner.value == "self":
        return False
    return value.func.attr.value not in _MANY


def _branch_values(function: cst.FunctionDef | cst.Lambda | None) -> list[cst.BaseExpression | None]:
    """What each `return` of a branch gives (the body of a lambda); [] if unknown."""
    if function is None:
        return []
    if isinstance(function, cst.Lambda):
        return [function.body]
    if any(isinstance(n, (cst.FunctionDef, cst.Lambda)) for n in iter_nodes(function.body)):
        return []
    return [n.value for n in iter_nodes(function.body) if isinstance(n, cst.Return)]


def _number_literal(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


def _number_returned(function: cst.FunctionDef | cst.Lambda | None) -> str | None:
    """The Python number literal some `return` of a branch gives (`lambda t: 1.0`), or None."""
    literal = next((v for v in _branch_values(function) if _number_literal(v)), None)
    return cst.Module([]).code_for_node(literal) if literal is not None else None


_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)


def _dtype_returned(function: cst.FunctionDef | cst.Lambda | None) -> str | None:
    """"bool" where every `return` gives a comparison, "number" where every one gives arithmetic
    with a number literal (never bool: `t * 2` of a bool tensor is an integer one), else None."""
    values = _branch_values(function)
    if values and all(isinstance(v, cst.Comparison) for v in values):
        return "bool"
    if values and all(
        isinstance(v, cst.BinaryOperation) and isinstance(v.operator, _ARITHMETIC)
        and (_number_literal(v.left) or _number_literal(v.right)) for v in values
    ):
        return "number"
    return None


def _describe(kind: int | str) -> str:
    return f"a tuple of {kind}" if isinstance(kind, int) else "None" if kind == "None" else "a single value"


def _is_dict(expr: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]) -> bool:
    """A dict display, comprehension or `dict(...)` call: operands torch.cond rejects (it wants a
    tuple or list, whose leaves may be dicts)."""
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return True
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict" \
        and resolve(expr.func) in (None, "dict", "builtins.dict")
