"""Rewrites shared by the branch and loop rules: a data-dependent `if` becomes `torch.cond`, a
`while` on a tensor becomes `torch.while_loop`, a validation branch (`if bad: raise`) becomes
`torch._check` / `torch._assert_async`. Each returns a fix, or the reason no faithful rewrite
exists, which the rule puts in its diagnostic.

Facts of torch 2.13 these rewrites are built on (checked by tests/truth/test_fixes.py):
- `torch.cond`/`torch.while_loop` branches must be pure: no attribute or in-place mutation, no
  `break`/`continue`/`raise`, and they return tensors of one structure in both branches;
- a branch may not return one of its operands unchanged ("Higher order ops do not support
  aliasing"): such a result is returned as `.clone()`;
- the predicate may be a one-element bool tensor or a symbolic bool (`n > 0` for `n = t.item()`,
  `boxes.shape[0] == 0` after a mask), and the branches may return different sizes, but not
  different ranks;
- a branch may not close over a number read from tensor data ("Attempted to wrap unbacked
  SymInt"), so a branch that reads one gets no fix;
- `torch._check(cond, lambda: msg)` fails in strict export: the check is written without a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from .dataflow import FunctionFlow, Kind, all_params, is_tensor_like
from .model import Applicability
from .positions import code_of
from .rule import BlockReplacement, FixProposal
from .walk import children, visit

_COND_SAFETY = "assumes side-effect-free branches returning tensors of one rank and dtype"
_CHECK_SAFETY = "raises RuntimeError instead of the original exception"
_INVERSE = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
}


@dataclass(frozen=True)
class Rewrite:
    fix: FixProposal | None = None
    #: why no fix is offered (shown in the diagnostic)
    reason: str | None = None


# -- names read and written ------------------------------------------------------------------


class _Usage(cst.CSTVisitor):
    """Names a piece of code reads and binds, and the first thing in it that a traced branch
    or loop body cannot contain (the reason a rewrite would not be faithful)."""

    def __init__(self, skip: cst.CSTNode | None = None) -> None:
        self.skip = skip
        self.loaded: list[str] = []
        self.stored: list[str] = []
        self.problem: str | None = None
        self.returns = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is not self.skip and super().on_visit(node)

    def _flag(self, problem: str) -> None:
        self.problem = self.problem or problem

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            if target.value not in self.stored:
                self.stored.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)
        elif isinstance(target, cst.Attribute):
            self._flag(f"it assigns `{code_of(target)}` (a side effect)")
        else:
            self._flag(f"it writes into `{code_of(target)}` in place")

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self.loaded:
            self.loaded.append(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._store(node.target)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._store(node.target)
        if node.value is not None:
            visit(node.value, self)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        visit(node.target, self)
        self._store(node.target)
        visit(node.value, self)
        return False

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name.endswith("_") and not name.startswith("_"):
                self._flag(f"it mutates a tensor in place (`{name}`)")
            elif name in ("append", "extend", "update", "pop", "insert", "register_buffer"):
                self._flag(f"it mutates a container (`{name}`)")

    def visit_Return(self, node: cst.Return) -> None:
        self.returns = True

    def visit_Break(self, node: cst.Break) -> None:
        self._flag("it uses `break`")

    def visit_Continue(self, node: cst.Continue) -> None:
        self._flag("it uses `continue`")

    def visit_Raise(self, node: cst.Raise) -> None:
        self._flag("it raises")

    def visit_Yield(self, node: cst.Yield) -> None:
        self._flag("it yields")

    def visit_Global(self, node: cst.Global) -> None:
        self._flag("it declares `global`")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._flag("it declares `nonlocal`")

    def visit_Del(self, node: cst.Del) -> None:
        self._flag("it deletes names")


def _usage(nodes: Iterable[cst.CSTNode], skip: cst.CSTNode | None = None) -> _Usage:
    usage = _Usage(skip)
    for node in nodes:
        visit(node, usage)
    return usage


def _bound_before(func: cst.FunctionDef, stop: cst.CSTNode) -> list[str]:
    """Names bound in `func` before `stop` is reached (parameters first, then source order)."""
    bound = [p.name.value for p in all_params(func.params)]
    finder = _BoundBefore(stop)
    visit(func.body, finder)
    return bound + [n for n in finder.usage.stored if n not in bound]


class _BoundBefore(cst.CSTVisitor):
    def __init__(self, stop: cst.CSTNode) -> None:
        self.stop = stop
        self.done = False
        self.usage = _Usage()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.stop:
            self.done = True
        if self.done:
            return False
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement) and not isinstance(
            node, cst.BaseCompoundStatement
        ):
            visit(node, self.usage)
            return False
        if isinstance(node, cst.For):
            self.usage._store(node.target)
        return True


def _parent_block(func: cst.FunctionDef, node: cst.CSTNode) -> tuple[Sequence[cst.BaseStatement], int] | None:
    """The statement list holding `node` in `func`, and its index there."""
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.IndentedBlock):
            for index, stmt in enumerate(current.body):
                if stmt is node:
                    return current.body, index
        stack.extend(c for c in children(current) if not isinstance(c, cst.BaseExpression))
    return None


# -- building the replacement ----------------------------------------------------------------


def _def(name: str, params: Sequence[str], body: Sequence[cst.BaseStatement], comment: str = "") -> cst.FunctionDef:
    header = cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  " if comment else ""),
        comment=cst.Comment(comment) if comment else None,
    )
    return cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters(params=[cst.Param(cst.Name(p)) for p in params]),
        body=cst.IndentedBlock(body=list(body), header=header),
    )


def _line(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code + "\n")


def _tuple(names: Sequence[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _comment(block: cst.BaseSuite) -> str:
    if isinstance(block, cst.IndentedBlock) and block.header.comment is not None:
        return block.header.comment.value
    return ""


def _strip_leading(stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """The first statement of a new function body needs no blank lines above it."""
    out = list(stmts)
    if out and out[0].leading_lines and not any(line.comment for line in out[0].leading_lines):
        out[0] = out[0].with_changes(leading_lines=())
    return out


class _CloneOperands(cst.CSTTransformer):
    """`return x` of an operand becomes `return x.clone()`: an output may not alias an input."""

    def __init__(self, operands: set[str]) -> None:
        self.operands = operands

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if updated.value is None:
            return updated
        return updated.with_changes(value=self._clone(updated.value))

    def _clone(self, value: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(value, cst.Name) and value.value in self.operands:
            return cst.parse_expression(f"{value.value}.clone()")
        if isinstance(value, cst.Tuple):
            return value.with_changes(
                elements=[e.with_changes(value=self._clone(e.value)) for e in value.elements]
            )
        return value


def _aliases(stmts: Sequence[cst.BaseStatement], operands: Sequence[str]) -> set[str]:
    """Operands, and names a branch binds to an operand as is (`y = x`): returned, they alias it."""
    out = set(operands)
    for stmt in stmts:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.Assign)
                and isinstance(small.value, cst.Name)
                and small.value.value in out
            ):
                out |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
    return out


def _clone_returns(stmts: Sequence[cst.BaseStatement], operands: set[str]) -> list[cst.BaseStatement]:
    transformer = _CloneOperands(operands)
    return [s.visit(transformer) for s in stmts]  # type: ignore[misc]


def _ends_in_return(stmts: Sequence[cst.BaseStatement]) -> bool:
    last = stmts[-1] if stmts else None
    return (
        isinstance(last, cst.SimpleStatementLine)
        and isinstance(last.body[-1], cst.Return)
        and last.body[-1].value is not None
    )


def _returned(stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseExpression]:
    out = []
    for stmt in stmts:
        for node in _return_nodes(stmt):
            if node.value is not None:
                out.append(node.value)
    return out


def _return_nodes(stmt: cst.CSTNode) -> Iterable[cst.Return]:
    if isinstance(stmt, cst.Return):
        yield stmt
    elif isinstance(stmt, cst.FunctionDef | cst.Lambda | cst.ClassDef):
        return
    else:
        for child in stmt.children:
            yield from _return_nodes(child)


# -- torch.cond -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Arm:
    test: cst.BaseExpression
    body: list[cst.BaseStatement]
    comment: str


class _Lowering:
    """One `if`/`elif`/`else` chain in one traced function, lowered to `torch.cond`."""


    def tensor_predicate(self, test: cst.BaseExpression) -> cst.BaseExpression:
        """`test` as the tensor torch.cond needs: `bool(t)` -> `t`, `int(t) > k` -> `t > k`,
        `t.item() > k` -> `t > k` (a Python number there would be a guard on data again, and
        re-linting the fix reported XPT203)."""
        flow = self.flow

        class Unwrap(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                if (
                    isinstance(updated.func, cst.Name)
                    and updated.func.value in ("bool", "int", "float")
                    and len(updated.args) == 1
                    and is_tensor_like(flow.value(original.args[0].value))
                ):
                    return updated.args[0].value.with_changes(lpar=[], rpar=[])
                if (
                    isinstance(updated.func, cst.Attribute)
                    and updated.func.attr.value == "item"
                    and not updated.args
                    and isinstance(original.func, cst.Attribute)
                    and is_tensor_like(flow.value(original.func.value))
                ):
                    return updated.func.value
                return updated

        return test.visit(Unwrap())  # type: ignore[return-value]

    def __init__(self, flow: FunctionFlow, func: cst.FunctionDef, node: cst.If) -> None:
        self.flow = flow
        self.func = func
        self.node = node

    @cached_property
    def available(self) -> list[str]:
        return _bound_before(self.func, self.node)

    @cached_property
    def used_after(self) -> set[str]:
        return set(_usage([self.func.body], skip=self.node).loaded)

    def tensor(self, name: str) -> bool:
        value = self.flow.env.get(name)
        return value is not None and is_tensor_like(value)

    def operands(self, stmts: Sequence[cst.BaseStatement]) -> list[str]:
        loaded = set(_usage(stmts).loaded)
        return [n for n in self.available if n in loaded and self.tensor(n)]

    def check_returns(self, stmts: Sequence[cst.BaseStatement]) -> str | None:
        widths = set()
        for value in _returned(stmts):
            elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
            widths.add(len(elements) if isinstance(value, cst.Tuple) else 0)
            for element in elements:
                if not is_tensor_like(self.flow.value(element)):
                    return f"a branch returns `{code_of(element)}`, which is not a tensor"
        return "the branches return different structures" if len(widths) > 1 else None

    def results(self, arms: Sequence[Sequence[cst.BaseStatement]]) -> list[str] | str:
        """The names the branches assign and later code reads: what `torch.cond` returns."""
        stored: list[str] = []
        for stmts in arms:
            stored += [n for n in _usage(stmts).stored if n not in stored]
        results = [n for n in stored if n in self.used_after]
        if not results:
            return "the branches assign nothing that later code reads"
        for name in results:
            if not self.tensor(name):
                return f"the branches assign `{name}`, which is not a tensor"
            if name not in self.available and not all(name in _usage(s).stored for s in arms):
                return f"`{name}` is assigned in only one branch"
        return results

    def lower(self, arms: Sequence[_Arm], orelse: list[cst.BaseStatement], else_comment: str,
              results: list[str] | None) -> list[cst.BaseStatement] | str:
        arm, rest = arms[0], arms[1:]
        if rest:
            nested = self.lower(rest, orelse, else_comment, results)
            if isinstance(nested, str):
                return nested
            orelse, else_comment = nested, ""
        test, body, comments = arm.test, arm.body, (arm.comment, else_comment)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, body, orelse, comments = test.expression, orelse, body, (comments[1], comments[0])
        if isinstance(test, cst.BooleanOperation):
            return "the condition joins tests with `and`/`or` (combine tensors with `&`/`|` first)"
        for name in _usage([*body, *orelse]).loaded:
            value = self.flow.env.get(name)
            if value is not None and value.has(Kind.DATA) and not is_tensor_like(value):
                return f"a branch reads `{name}`, a number read from tensor data, which torch.cond cannot close over"
        operands = self.operands([*body, *orelse])
        if not operands:
            return "the branches read no tensor to pass as operands"
        tail = [] if results is None else [_line(f"return {', '.join(results)}")]
        functions = [
            _def(name, operands, _clone_returns(_strip_leading([*stmts, *tail]), _aliases(stmts, operands)), comment)
            for name, stmts, comment in zip(("true_fn", "false_fn"), (body, orelse), comments, strict=True)
        ]
        call = f"torch.cond({code_of(self.tensor_predicate(test))}, true_fn, false_fn, {_tuple(operands)})"
        last = _line(f"return {call}" if results is None else f"{', '.join(results)} = {call}")
        return [*functions, last]


def _arms(node: cst.If) -> tuple[list[_Arm], list[cst.BaseStatement], str] | str:
    arms: list[_Arm] = []
    current: cst.If | None = node
    orelse: list[cst.BaseStatement] = []
    else_comment = ""
    while current is not None:
        if not isinstance(current.body, cst.IndentedBlock):
            return "the branch is written on one line"
        arms.append(_Arm(current.test, list(current.body.body), _comment(current.body)))
        following = current.orelse
        current = None
        if isinstance(following, cst.If):
            current = following
        elif isinstance(following, cst.Else):
            if not isinstance(following.body, cst.IndentedBlock):
                return "the `else` is written on one line"
            orelse, else_comment = list(following.body.body), _comment(following.body)
    return arms, orelse, else_comment


def cond_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.If) -> Rewrite:
    """`if` on a tensor, a data-dependent number or a data-dependent size -> `torch.cond`."""
    parent = _parent_block(func, node)
    chain = _arms(node)
    if parent is None or isinstance(chain, str):
        return Rewrite(reason=chain if isinstance(chain, str) else "an `elif` is rewritten with its `if`")
    block, index = parent
    arms, orelse, else_comment = chain
    bodies = [arm.body for arm in arms]
    lowering = _Lowering(flow, func, node)
    last: cst.CSTNode = node
    results: list[str] | str | None = None
    if any(_usage(b).returns for b in bodies) or _usage(orelse).returns:
        if not orelse:
            # `if ...: return a` falling through to the function's final `return b`
            rest = list(block[index + 1 :])
            if not (block is getattr(func.body, "body", None) and rest and _ends_in_return(rest)):
                return Rewrite(reason="a branch returns but the code after the `if` does not end in `return`")
            orelse, last = rest, rest[-1]
        if not all(_ends_in_return(b) for b in [*bodies, orelse]):
            return Rewrite(reason="not every branch ends in `return`")
        problem = lowering.check_returns([*(s for b in bodies for s in b), *orelse])
        if problem:
            return Rewrite(reason=problem)
    else:
        results = lowering.results([*bodies, orelse])
        if isinstance(results, str):
            return Rewrite(reason=results)
    # after the fall-through is known: the rest of the function becomes a branch too
    problem = _usage([*(s for b in bodies for s in b), *orelse]).problem
    if problem:
        return Rewrite(reason=f"a torch.cond branch must be pure, and {problem}")
    lowered = lowering.lower(arms, orelse, else_comment, results)
    if isinstance(lowered, str):
        return Rewrite(reason=lowered)
    return Rewrite(
        fix=FixProposal(
            f"Rewrite as torch.cond ({_COND_SAFETY})",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, last, tuple(lowered)),),
        )
    )


def _is_number_literal(node: cst.BaseExpression) -> bool:
    """`2.0`, `-1`, `0.5`: torch.where selects between numbers too (measured: it exports in both
    modes and equals eager, as a 0-dim tensor)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def where_rewrite(flow: FunctionFlow, node: cst.IfExp) -> Rewrite:
    """`a if tensor_test else b` -> `torch.where(tensor_test, a, b)`: both sides are computed."""
    for side in (node.body, node.orelse):
        if not (is_tensor_like(flow.value(side)) or _is_number_literal(side)):
            return Rewrite(reason=f"`{code_of(side)}` is neither a tensor nor a number: torch.where cannot select it")
    call = cst.parse_expression(f"torch.where({code_of(node.test)}, {code_of(node.body)}, {code_of(node.orelse)})")
    return Rewrite(
        fix=FixProposal(
            "Select with torch.where (computes both sides; broadcasts them to one shape)",
            Applicability.UNSAFE,
            ((node, call),),
            imports=("torch",),
        )
    )


# -- torch.while_loop -------------------------------------------------------------------------


def _carry_problem(flow: FunctionFlow, carried: Sequence[str], available: Sequence[str]) -> str | None:
    """Why a loop's assigned names cannot be the state of a torch loop op (tensors, bound
    before the loop), or None."""
    for name in carried:
        value = flow.env.get(name)
        if value is None or not is_tensor_like(value):
            return f"the loop carries `{name}`, which is not a tensor"
        if name not in available:
            return f"`{name}` is first assigned inside the loop"
    return None if carried else "the loop assigns nothing (a loop that fills a list needs a vectorised op)"


def while_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.While) -> Rewrite:
    """`while tensor_test: body` -> `torch.while_loop`, when the loop carries only tensors."""
    if node.orelse is not None:
        return Rewrite(reason="the loop has an `else`")
    if not isinstance(node.body, cst.IndentedBlock):
        return Rewrite(reason="the loop is written on one line")
    if isinstance(node.test, cst.BooleanOperation):
        return Rewrite(reason="the condition mixes tests with `and`/`or`")
    body = list(node.body.body)
    usage = _usage(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a torch.while_loop body must be pure, and {usage.problem or 'it returns'}")
    carried = usage.stored
    problem = _carry_problem(flow, carried, _bound_before(func, node))
    if problem:
        return Rewrite(reason=problem)
    names = _tuple(carried)
    lowered = [
        _def("cond_fn", carried, [_line(f"return {code_of(node.test)}")], _comment(node.body)),
        _def("body_fn", carried, [*_strip_leading(body), _line(f"return {names}")]),
        _line(f"{names} = torch.while_loop(cond_fn, body_fn, {names})"),
    ]
    return Rewrite(
        fix=FixProposal(
            "Rewrite as torch.while_loop (assumes the carried tensors keep their shapes)",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


def sized_dim(size: cst.BaseExpression) -> tuple[str, int] | None:
    """(tensor name, dimension) for `x.size(d)`, `x.shape[d]`, `x.size()[d]` or `len(x)`."""
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value == "len":
        if len(size.args) == 1 and isinstance(size.args[0].value, cst.Name):
            return size.args[0].value.value, 0
        return None
    index: cst.BaseExpression | None = None
    owner: cst.BaseExpression | None = None
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute) and size.func.attr.value == "size":
        if len(size.args) == 1:
            owner, index = size.func.value, size.args[0].value
    elif isinstance(size, cst.Subscript) and len(size.slice) == 1 and isinstance(size.slice[0].slice, cst.Index):
        base = size.value
        if isinstance(base, cst.Attribute) and base.attr.value == "shape":
            owner, index = base.value, size.slice[0].slice.value
        elif (
            isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute)
            and base.func.attr.value == "size" and not base.args
        ):
            owner, index = base.func.value, size.slice[0].slice.value
    if isinstance(owner, cst.Name) and isinstance(index, cst.Integer):
        return owner.value, index.evaluated_value
    return None


class _SliceAt(cst.CSTTransformer):
    """`x[:, ..., t]` (the counter at dimension `dim`, full slices before it) -> `x_t`."""

    def __init__(self, tensor: str, counter: str, dim: int, name: str) -> None:
        self.tensor, self.counter, self.dim, self.name = tensor, counter, dim, name

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        items = updated.slice
        target = updated.value
        if not (isinstance(target, cst.Name) and target.value == self.tensor and len(items) == self.dim + 1):
            return updated
        last = items[-1].slice
        if not (isinstance(last, cst.Index) and isinstance(last.value, cst.Name) and last.value.value == self.counter):
            return updated
        for item in items[:-1]:
            full = item.slice
            if not (isinstance(full, cst.Slice) and full.lower is None and full.upper is None and full.step is None):
                return updated
        return cst.Name(self.name)


def range_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite:
    """`for t in range(x.size(d)): h = f(x[:, t], h)` -> torch's `scan` over dimension `d` of
    `x`: one step function in the graph for every length instead of one copy per step."""
    if not (isinstance(node.iter, cst.Call) and len(node.iter.args) == 1 and node.iter.args[0].keyword is None):
        return Rewrite(reason="the loop is not `range(size)` with one argument")
    sized = sized_dim(node.iter.args[0].value)
    if sized is None or not isinstance(node.target, cst.Name):
        return Rewrite(reason="the loop is not `for t in range(x.size(d))` over a named tensor")
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return Rewrite(reason="the loop has an `else` or is written on one line")
    tensor, dim = sized
    counter = node.target.value
    body = list(node.body.body)
    usage = _usage(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a scan step must be pure, and {usage.problem or 'it returns'}")
    if counter in _usage([func.body], skip=node).loaded:
        return Rewrite(reason=f"the loop variable `{counter}` is read after the loop")
    name = f"{tensor}_{counter}"
    everything = set(_usage([func.body]).loaded) | set(_bound_before(func, node))
    if name in everything:
        return Rewrite(reason=f"`{name}` (the name for one step's slice) is already taken")
    sliced = [stmt.visit(_SliceAt(tensor, counter, dim, name)) for stmt in body]
    after = _usage(sliced)
    if counter in after.loaded or counter in after.stored:
        return Rewrite(reason=f"`{counter}` is used other than as `{tensor}[{':, ' * dim}{counter}]`")
    if tensor in after.stored:
        return Rewrite(reason=f"the loop reassigns `{tensor}`")
    carried = after.stored
    problem = _carry_problem(flow, carried, _bound_before(func, node))
    if problem:
        return Rewrite(reason=problem)
    one = len(carried) == 1
    state = carried[0] if one else f"({', '.join(carried)})"
    unpack = [] if one else [_line(f"{', '.join(carried)} = carry")]
    lowered = [
        _def("step_fn", [carried[0] if one else "carry", name],
             [*unpack, *_strip_leading(sliced), _line(f"return {state}, ()")], _comment(node.body)),
        _line(f"{state}, _ = torch._higher_order_ops.scan(step_fn, {state}, {tensor}, dim={dim})"),
    ]
    return Rewrite(
        fix=FixProposal(
            "Rewrite as a scan over the dimension (torch's prototype `scan` op; assumes the carried "
            "tensors keep their shapes)",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


# -- torch._check for validation branches -----------------------------------------------------


def _negate(test: cst.BaseExpression) -> str:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return code_of(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        inverse = _INVERSE.get(type(test.comparisons[0].operator))
        if inverse is not None:
            compared = test.comparisons[0]
            negated = test.with_changes(
                comparisons=[compared.with_changes(operator=inverse())], lpar=(), rpar=()
            )
            return code_of(negated)
    return f"not ({code_of(test)})"


def raised_by(node: cst.If) -> cst.Raise | None:
    """The `raise` of a validation branch (`if bad: raise E(...)`, nothing else), or None."""
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock) or len(node.body.body) != 1:
        return None
    only = node.body.body[0]
    if isinstance(only, cst.SimpleStatementLine) and isinstance(only.body[0], cst.Raise):
        return only.body[0]
    return None


def check_rewrite(node: cst.If, tensor: bool) -> Rewrite | None:
    """`if bad: raise E(msg)` -> `torch._check(not bad)` (or `torch._assert_async` for a tensor
    test): export keeps the check as a runtime assertion instead of branching. None when the
    `if` is not a validation branch."""
    raised = raised_by(node)
    if raised is None:
        return None
    if tensor:
        message = ""
        if isinstance(raised.exc, cst.Call) and raised.exc.args and raised.exc.args[0].keyword is None:
            message = ", " + code_of(raised.exc.args[0].value)
        test = node.test
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            condition = code_of(test.expression)
        else:
            condition = f"torch.logical_not({code_of(test)})"
        statement = _line(f"torch._assert_async({condition}{message})")
        comment = _comment(node.body)
    else:
        # strict export rejects torch._check's message callable: the raise is kept as a comment
        statement = _line(f"torch._check({_negate(node.test)})")
        kept = " ".join(code_of(raised).split())  # a comment is one line
        comment = " ".join(filter(None, [f"# was: {kept}", _comment(node.body)]))
    if comment and isinstance(statement, cst.SimpleStatementLine):
        statement = statement.with_changes(
            trailing_whitespace=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(comment)
            )
        )
    return Rewrite(
        fix=FixProposal(
            f"Replace the branch with a runtime check ({_CHECK_SAFETY})",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, node, (statement,)),),
        )
    )


# -- strict=False at the export calls ----------------------------------------------------------


def non_strict_rewrite(export_calls: Iterable[cst.Call]) -> Rewrite:
    """`strict=True` -> `strict=False` at the file's export calls, for code that only strict
    export (Dynamo) rejects."""
    replacements: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for call in export_calls:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "strict" and isinstance(arg.value, cst.Name):
                if arg.value.value == "True":
                    replacements.append((arg.value, cst.Name("False")))
    if not replacements:
        return Rewrite(reason="strict mode comes from the configuration, not from an export call in this file")
    return Rewrite(
        fix=FixProposal(
            "Export with strict=False (assumes the rest of the model exports non-strict too)",
            Applicability.UNSAFE,
            tuple(replacements),
        )
    )
