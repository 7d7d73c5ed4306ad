"""A data-dependent `if` as `torch.cond`; a conditional expression as `torch.where`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from ..dataflow import FunctionFlow, Kind, is_tensor_like
from ..model import Applicability
from ..names import dotted
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from ..walk import iter_nodes
from .common import (
    COND_SAFETY,
    Names,
    Rewrite,
    aliases,
    bound_before,
    clone_returns,
    comment_of,
    declared_outer,
    effects_only,
    enclosing_loop,
    ends_in_return,
    function_def,
    guard_rewrite,
    moved_code_problem,
    parent_block,
    read_before_assigned,
    returned,
    scope_names,
    statement_of,
    strip_leading,
    tuple_text,
    usage_of,
)
from .predicates import (
    bound_arithmetic,
    cond_predicate,
    data_bindings,
    elementwise,
    guard_problem,
    python_read,
    reads_number,
    tensor_value,
)


@dataclass(frozen=True)
class _Arm:
    test: cst.BaseExpression
    body: list[cst.BaseStatement]
    comment: str


class _Lowering:
    """One `if`/`elif`/`else` chain in one traced function, lowered to `torch.cond`."""

    def __init__(
        self, flow: FunctionFlow, func: cst.FunctionDef, node: cst.If, names: Names, bound: Sequence[str] = (),
        replaced: Sequence[cst.CSTNode] = (), hoisted: Sequence[str] = (), views: Mapping[str, str] | None = None,
    ) -> None:
        self.flow = flow
        self.func = func
        self.node = node
        self.names = names
        #: the statements the rewrite replaces (the `if`, and what follows it when it joins a branch)
        self.replaced = [node, *replaced]
        #: numbers read from tensors that the fix binds as the tensors themselves
        self.bound = set(bound) | set(hoisted)
        #: names the test binds with `:=`, bound before the `torch.cond` call by the fix
        self.hoisted = list(hoisted)
        #: of the names the fix binds to tensors, those bound to an element of one (`lo` of
        #: `self.stats[0].item()`): name -> the tensor it is a view of
        self.views = views or {}

    @cached_property
    def available(self) -> list[str]:
        return [*bound_before(self.func, self.node), *self.hoisted]

    @cached_property
    def used_after(self) -> set[str]:
        return set(usage_of([self.func.body], skip=self.replaced).loaded)

    def tensor(self, name: str) -> bool:
        if name in self.bound:
            return True
        value = self.flow.env.get(name)
        return value is not None and is_tensor_like(value)

    def operands(self, *arms: Sequence[cst.BaseStatement]) -> list[str]:
        """The tensors bound before the `if` that a branch reads before assigning them (one
        that each branch assigns first is the branch's own, even where an earlier branch of
        the function bound it)."""
        return [n for n in self.available if self.tensor(n) and any(read_before_assigned(a, n) for a in arms)]

    def check_returns(self, stmts: Sequence[cst.BaseStatement]) -> str | None:
        widths = set()
        for value in returned(stmts):
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
            stored += [n for n in usage_of(stmts).stored if n not in stored]
        results = [n for n in stored if n in self.used_after]
        if not results:
            return "the branches assign nothing that later code reads"
        for name in results:
            if not self.tensor(name):
                return f"the branches assign `{name}`, which is not a tensor"
            if name not in self.available and not all(name in usage_of(s).stored for s in arms):
                return f"`{name}` is assigned in only one branch"
        return results

    def lower(
        self, arms: Sequence[_Arm], orelse: list[cst.BaseStatement], else_comment: str, results: list[str] | None
    ) -> list[cst.BaseStatement] | str:
        arm, rest = arms[0], arms[1:]
        moved = [arm.body] if rest else [arm.body, orelse]  # the user's code at this level
        if rest:
            nested = self.lower(rest, orelse, else_comment, results)
            if isinstance(nested, str):
                return nested
            orelse, else_comment = nested, ""
        test, body, comments = arm.test, arm.body, (arm.comment, else_comment)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, body, orelse, comments = test.expression, orelse, body, (comments[1], comments[0])
        for name in usage_of([*body, *orelse]).loaded:
            value = self.flow.env.get(name)
            if name not in self.bound and value is not None and value.has(Kind.DATA) and not is_tensor_like(value):
                return f"a branch reads `{name}`, a number read from tensor data, which torch.cond cannot close over"
        tail = [] if results is None else [statement_of(f"return {', '.join(results)}")]
        operands = self.operands([*body, *tail], [*orelse, *tail])
        if not operands:
            return "the branches read no tensor to pass as operands"
        declared = declared_outer(self.func)
        for stmts in moved:
            problem = moved_code_problem(stmts, operands, declared)
            if problem:
                return f"a torch.cond branch must be pure, and {problem}"
        true_fn, false_fn = self.names.fresh("true_fn", "false_fn")
        functions = [
            function_def(
                name, operands, clone_returns(strip_leading([*stmts, *tail]), aliases(stmts, operands)), comment
            )
            for name, stmts, comment in zip((true_fn, false_fn), (body, orelse), comments, strict=True)
        ]
        torch = self.names.torch
        predicate = cond_predicate(self.flow, test, self.bound, torch)
        read = python_read(self.flow, predicate, self.bound, test)
        if read is not None:
            return f"`{read}` holds Python values read from tensor data, which torch.cond's predicate cannot take"
        copied = self.shared_storage(operands)
        passed = tuple_text([f"{name}.clone()" if name in copied else name for name in operands])
        call = f"{torch}.cond({code_of(predicate)}, {true_fn}, {false_fn}, {passed})"
        last = statement_of(f"return {call}" if results is None else f"{', '.join(results)} = {call}")
        return [*functions, last]


    def shared_storage(self, operands: Sequence[str]) -> set[str]:
        """The operands passed as copies: all but the first of each group that may be views of one
        tensor (`lo, hi = bounds.unbind(0)`; `x` and `row = x[0]`; `lo` and `hi` the fix binds to
        `self.stats[0]` and `self.stats[1]`). Measured on torch 2.13: torch.cond refuses operands
        that alias each other in both modes ("Encountered aliasing during higher order op
        tracing") and exports with a copy of one of them passed instead."""
        copied: set[str] = set()
        seen: set[str] = set()
        for name in operands:
            storage = self.storage(name, 0)
            if storage & seen:
                copied.add(name)
            seen |= storage
        return copied

    def storage(self, name: str, depth: int) -> set[str]:
        """`name` and the tensors it may be a view of, through every binding of it in the function."""
        if name in self.views:
            return {name, self.views[name]}
        found = {name}
        if depth < 8:
            for value, index in self.bindings.get(name, ()):
                found |= self._viewed(value, index, depth + 1)
        return found

    def _viewed(self, value: cst.BaseExpression, index: int | None, depth: int) -> set[str]:
        """The tensors `value` (its element `index`, where unpacked) may be a view of."""
        if index is not None and isinstance(value, (cst.Tuple, cst.List)):
            if index >= len(value.elements):
                return set()
            value = value.elements[index].value
        if isinstance(value, cst.Name):
            return self.storage(value.value, depth)
        base = _view_base(self.flow, value)
        if base is None or depth > 8:
            return set()
        return {code_of(base), *self._viewed(base, None, depth + 1)}

    @cached_property
    def bindings(self) -> dict[str, list[tuple[cst.BaseExpression, int | None]]]:
        """What each name of the function is bound to, with its position where it is unpacked
        (`lo, hi = bounds.unbind(0)`), per binding; a loop variable to what the loop iterates."""
        found: dict[str, list[tuple[cst.BaseExpression, int | None]]] = {}
        for node in iter_nodes(self.func.body):
            targets: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
            if isinstance(node, cst.Assign):
                targets = [(t.target, node.value) for t in node.targets]
            elif isinstance(node, cst.For):
                targets = [(node.target, node.iter)]
            elif isinstance(node, cst.NamedExpr):
                targets = [(node.target, node.value)]
            for target, value in targets:
                if isinstance(target, cst.Name):
                    found.setdefault(target.value, []).append((value, None))
                elif isinstance(target, (cst.Tuple, cst.List)):
                    for position, element in enumerate(target.elements):
                        if isinstance(element.value, cst.Name):
                            found.setdefault(element.value.value, []).append((value, position))
        return found


#: tensor methods whose result (or each piece of it) may share the tensor's storage
_VIEW_METHODS = frozenset({
    "as_strided", "chunk", "detach", "diagonal", "expand", "expand_as", "flatten", "movedim", "narrow",
    "permute", "reshape", "select", "split", "split_with_sizes", "squeeze", "swapaxes", "swapdims", "t",
    "tensor_split", "transpose", "unbind", "unflatten", "unfold", "unsqueeze", "view", "view_as",
})
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})


def _view_base(flow: FunctionFlow, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor `value` may be a view of: `x` of `x[0]`, `x.unbind(0)`, `torch.split(x, 2)`,
    `x.T`; None for anything else."""
    if isinstance(value, cst.Subscript):
        return value.value
    if isinstance(value, cst.Attribute) and value.attr.value in _VIEW_ATTRIBUTES:
        return value.value
    if not isinstance(value, cst.Call):
        return None
    if isinstance(value.func, cst.Attribute) and value.func.attr.value in _VIEW_METHODS:
        qualified = flow.resolver.resolve(value.func)
        if qualified is None or not qualified.startswith("torch."):
            return value.func.value
    qualified = flow.resolver.resolve(value.func) or ""
    if qualified.startswith("torch.") and qualified[6:] in _VIEW_METHODS and value.args and not value.args[0].keyword:
        return value.args[0].value
    return None


class _Untraceable(cst.CSTVisitor):
    """The first statement of a branch that export cannot trace whatever the predicate: a loop
    over a data-dependent number of rows, a number read out of a tensor. `torch.cond` traces both
    branches, so a branch holding one fails inside the `cond` (measured on 2.13: `for c in
    torch.unique(idx):` in a branch fails the rewrite at its own line)."""

    def __init__(self, flow: FunctionFlow) -> None:
        self.flow = flow
        self.problem: str | None = None

    def visit_For(self, node: cst.For) -> bool:
        self._iterable(node.iter)
        return self.problem is None

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        self._iterable(node.iter)
        return self.problem is None

    def visit_While(self, node: cst.While) -> bool:
        if self.problem is None and is_tensor_like(self.flow.value(node.test)):
            self.problem = f"a branch loops `while {code_of(node.test)}`, which tests tensor data"
        return self.problem is None

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if (
            self.problem is None and isinstance(func, cst.Attribute) and func.attr.value in ("item", "tolist")
            and is_tensor_like(self.flow.value(func.value))
        ):
            self.problem = f"a branch reads a number out of a tensor (`{code_of(node)}`)"
        return self.problem is None

    def _iterable(self, iterable: cst.BaseExpression) -> None:
        value = self.flow.value(iterable)
        dependent = value.has(Kind.DD_TENSOR) or (value.has(Kind.DATA | Kind.DD_SIZE) and not value.has(Kind.TENSOR))
        if self.problem is None and dependent:
            self.problem = f"a branch loops over `{code_of(iterable)}`, whose length depends on tensor data"


def untraceable_branch(flow: FunctionFlow, stmts: Sequence[cst.BaseStatement]) -> str | None:
    """Why torch.cond cannot trace a branch made of `stmts` (fix that first), or None."""
    visitor = _Untraceable(flow)
    for stmt in stmts:
        stmt.visit(visitor)
    if visitor.problem is None:
        return None
    return f"{visitor.problem}: torch.cond traces both branches, so that must be fixed first"


def _only_continue(body: Sequence[cst.BaseStatement]) -> bool:
    return (
        len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine)
        and len(body[0].body) == 1 and isinstance(body[0].body[0], cst.Continue)
    )


def _arms(node: cst.If) -> tuple[list[_Arm], list[cst.BaseStatement], str] | str:
    arms: list[_Arm] = []
    current: cst.If | None = node
    orelse: list[cst.BaseStatement] = []
    else_comment = ""
    while current is not None:
        if not isinstance(current.body, cst.IndentedBlock):
            return "the branch is written on one line"
        arms.append(_Arm(current.test, list(current.body.body), comment_of(current.body)))
        following = current.orelse
        current = None
        if isinstance(following, cst.If):
            current = following
        elif isinstance(following, cst.Else):
            if not isinstance(following.body, cst.IndentedBlock):
                return "the `else` is written on one line"
            orelse, else_comment = list(following.body.body), comment_of(following.body)
    return arms, orelse, else_comment


def cond_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.If) -> Rewrite:
    """`if` on a tensor, a data-dependent number or a data-dependent size -> `torch.cond`."""
    parent = parent_block(func, node)
    chain = _arms(node)
    if parent is None or isinstance(chain, str):
        return Rewrite(reason=chain if isinstance(chain, str) else "an `elif` is rewritten with its `if`")
    block, index = parent
    arms, orelse, else_comment = chain
    problem = next((p for arm in arms if (p := guard_problem(arm.test))), None)
    if problem:
        return Rewrite(reason=problem)
    hoisted = _hoisted_reads(flow, arms[0].test)
    if isinstance(hoisted, str):
        return Rewrite(reason=hoisted)
    if hoisted:
        arms[0] = _Arm(_without_walrus(arms[0].test), arms[0].body, arms[0].comment)
    bodies = [arm.body for arm in arms]
    names = scope_names(flow)
    if all(effects_only(b) for b in [*bodies, orelse]):
        return guard_rewrite(node, names)
    last: cst.CSTNode = node
    within: list[cst.CSTNode] = [node]
    if len(arms) == 1 and not orelse and _only_continue(bodies[0]):
        # `if skip: continue` then the rest of the loop's step: the rest is the other branch
        loop = enclosing_loop(func, node)
        rest = list(block[index + 1 :])
        if loop is None or not rest:
            return Rewrite(reason="the branch only `continue`s, and nothing follows it in the loop")
        bodies, orelse, last = [[]], rest, rest[-1]
        arms = [_Arm(arms[0].test, [], arms[0].comment)]
        within += rest
    problem = usage_of([*(s for b in bodies for s in b), *orelse]).problem
    if problem:
        return Rewrite(reason=f"a torch.cond branch must be pure, and {problem}")
    problem = untraceable_branch(flow, [*(s for b in bodies for s in b), *orelse])
    if problem:
        return Rewrite(reason=problem)
    returns = any(usage_of(b).returns for b in bodies) or usage_of(orelse).returns
    if returns and not orelse:
        # `if ...: return a` falling through to the function's final `return b`
        rest = list(block[index + 1 :])
        if not (block is getattr(func.body, "body", None) and rest and ends_in_return(rest)):
            return Rewrite(reason="a branch returns but the code after the `if` does not end in `return`")
        orelse, last = rest, rest[-1]
        within += rest
    bound = data_bindings(flow, func, within)
    views = {name: code_of(tensor.value) for name, (_, tensor) in bound.items() if isinstance(tensor, cst.Subscript)}
    lowering = _Lowering(flow, func, node, names, list(bound), within[1:], [name for name, _ in hoisted], views)
    if any(name in lowering.used_after for name, _ in hoisted):
        return Rewrite(reason="the number the test binds with `:=` is read after the `if` as well")
    results: list[str] | str | None = None
    if returns:
        if not all(ends_in_return(b) for b in [*bodies, orelse]):
            return Rewrite(reason="not every branch ends in `return`")
        problem = lowering.check_returns([*(s for b in bodies for s in b), *orelse])
        if problem:
            return Rewrite(reason=problem)
    else:
        results = lowering.results([*bodies, orelse])
        if isinstance(results, str):
            return Rewrite(reason=results)
    # after the fall-through is known: the rest of the function becomes a branch too
    problem = usage_of([*(s for b in bodies for s in b), *orelse]).problem
    if problem:
        return Rewrite(reason=f"a torch.cond branch must be pure, and {problem}")
    lowered = lowering.lower(arms, orelse, else_comment, results)
    if isinstance(lowered, str):
        return Rewrite(reason=lowered)
    lowered = [*(statement_of(f"{name} = {code_of(tensor)}") for name, tensor in hoisted), *lowered]
    return Rewrite(
        fix=FixProposal(
            f"Rewrite as torch.cond ({COND_SAFETY})",
            Applicability.UNSAFE,
            tuple((call, tensor) for call, tensor in bound.values()),
            imports=names.imports,
            blocks=(BlockReplacement(node, last, tuple(lowered)),),
        )
    )


#: what may hold a `:=` that Python always evaluates when it evaluates the test
_ALWAYS_EVALUATED = (cst.Comparison, cst.ComparisonTarget, cst.UnaryOperation, cst.BinaryOperation, cst.NamedExpr)


def _hoisted_reads(flow: FunctionFlow, test: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | str:
    """(name, tensor) for each `name := <number read from a tensor>` in an `if`'s test (`(n :=
    int(mask.sum())) > 0`), or `name := <tensor>` (`(peak := wav.abs().amax()) > 1.0`): the fix
    binds the tensor to the name before `torch.cond`, whose predicate then tests the name, and the
    branches take it as an operand. The reason none is written where the test binds anything
    else, or somewhere Python may not evaluate."""
    out: list[tuple[str, cst.BaseExpression]] = []
    for walrus in (n for n in iter_nodes(test) if isinstance(n, cst.NamedExpr)):
        name = walrus.target.value if isinstance(walrus.target, cst.Name) else None
        value = walrus.value
        if isinstance(value, cst.Call) and reads_number(flow, value):
            tensor = tensor_value(flow, value)
        else:
            tensor = value if is_tensor_like(flow.value(value)) else None
        if name is None or tensor is None or not _always_evaluated(test, walrus):
            return (f"the test binds `{code_of(walrus.target)}` with `:=` to something other than a tensor or a"
                    " number read once")
        if len(flow.bindings(name)) != 1:  # a parameter, loop variable, `:=` or assignment of the name elsewhere
            return f"`{name}`, bound by `:=` in the test, is bound elsewhere in the function too"
        out.append((name, tensor))
    return out


def _always_evaluated(test: cst.BaseExpression, target: cst.CSTNode) -> bool:
    """Every expression from `test` down to `target` evaluates all its parts (no `and`/`or`, no
    conditional expression, no call or comprehension that might skip it)."""
    if test is target:
        return True
    if not isinstance(test, _ALWAYS_EVALUATED):
        return False
    return any(_always_evaluated(child, target) for child in test.children if isinstance(child, cst.BaseExpression)
               or isinstance(child, cst.ComparisonTarget))


class _WalrusAsName(cst.CSTTransformer):
    def leave_NamedExpr(self, original: cst.NamedExpr, updated: cst.NamedExpr) -> cst.BaseExpression:
        return updated.target.with_changes(lpar=[], rpar=[])


def _without_walrus(test: cst.BaseExpression) -> cst.BaseExpression:
    """`test` with each `name := value` written as `name` (the fix binds it before)."""
    return test.visit(_WalrusAsName())  # type: ignore[return-value]


def _is_number_literal(node: cst.BaseExpression) -> bool:
    """`2.0`, `-1`, `0.5`: torch.where selects between numbers too (measured: it exports in both
    modes and equals eager, as a 0-dim tensor)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _tensor_operand(flow: FunctionFlow, node: cst.IfExp) -> bool:
    """`node` is only an operand of arithmetic with a tensor (`x * (2 if t.any() else 1)`), written
    there or bound once to a name (or an element of a tuple) read only there: a 0-dim tensor
    computes the same as the number (measured on torch 2.13: `x.chunk(torch.where(c, 2, 1))`
    fails, `x * torch.where(c, 2.0, 1.0)` exports and equals eager)."""
    func = flow.func
    operands = {
        id(operand) for op in iter_nodes(func.body) if isinstance(op, cst.BinaryOperation)
        for operand, other in ((op.left, op.right), (op.right, op.left)) if is_tensor_like(flow.value(other))
    }
    if id(node) in operands:
        return True
    named = [n for n in iter_nodes(func.body) if type(n) is cst.Name]
    bound = {n.value for n in named if flow.bound_once(n.value) is node}
    occurrences = [n for n in named if n.value in bound]
    # each name's one binding is an occurrence too: every other is an operand
    return bool(bound) and len([n for n in occurrences if id(n) not in operands]) == len(bound) < len(occurrences)


def _cut(flow: FunctionFlow, side: cst.BaseExpression) -> bool:
    """Whether `side` is a slice of a tensor with a bound (`x[:2]`, `x[:, 1:]`)."""
    return isinstance(side, cst.Subscript) and is_tensor_like(flow.value(side.value)) and any(
        isinstance(e.slice, cst.Slice) and (e.slice.lower is not None or e.slice.upper is not None) for e in side.slice
    )


def where_rewrite(flow: FunctionFlow, node: cst.IfExp, func: cst.FunctionDef | None = None) -> Rewrite:
    """`a if tensor_test else b` -> `torch.where(tensor_test, a, b)`: both sides are computed.
    With `func`, a number the test reads through a name bound once and read only here
    (`value = bool(mask.any())`, `n, _ = t.item(), 0`) is bound as the tensor it is read from."""
    problem = guard_problem(node.test)
    if problem:
        return Rewrite(reason=problem)
    cut = next((side for side in (node.body, node.orelse) if _cut(flow, side)), None)
    if cut is not None:
        # measured on torch 2.13: `x[:2] if too_many else x` as torch.where fails to broadcast
        return Rewrite(reason=f"`{code_of(cut)}` cuts a tensor, so the two sides may differ in shape, which "
                       "torch.where does not select between")
    bound = data_bindings(flow, func, [node]) if func is not None else {}
    sides: list[cst.BaseExpression] = []
    for side in (node.body, node.orelse):
        # arithmetic of the numbers read (`1.0 / peak` of a `peak` the rewrite binds) is a tensor once bound
        computed = tensor_value(flow, side, bound) if bound_arithmetic(flow, side, bound) else None
        if computed is not None and python_read(flow, computed, bound) is None:
            sides.append(computed)
        elif is_tensor_like(flow.value(side)) or _is_number_literal(side):
            sides.append(side)
        else:
            return Rewrite(reason=f"`{code_of(side)}` is neither a tensor nor a number: torch.where cannot select it")
    if not any(is_tensor_like(flow.value(side)) for side in (node.body, node.orelse)) and not _tensor_operand(
        flow, node
    ):
        return Rewrite(reason="both sides are numbers, and the one chosen is used as a Python number (a count, a"
                       " size): torch.where would hand a tensor there")
    names = scope_names(flow)
    test = cond_predicate(flow, node.test, list(bound), names.torch)
    read = python_read(flow, test, bound, node.test)
    if read is not None:
        return Rewrite(reason=f"`{read}` holds Python values read from tensor data, which torch.where cannot take")
    call = cst.parse_expression(f"{names.torch}.where({code_of(test)}, {code_of(sides[0])}, {code_of(sides[1])})")
    return Rewrite(
        fix=FixProposal(
            "Select with torch.where (computes both sides; broadcasts them to one shape)",
            Applicability.UNSAFE,
            ((node, call), *bound.values()),
            imports=names.imports,
        )
    )


def vectorised_list_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.CSTNode) -> Rewrite | None:
    """`torch.tensor([2.0 * g if g > 0 else 1.0 for g in gains.tolist()])`, the list written in
    place or bound once to a name only that call reads -> `torch.where(gains > 0, 2.0 * gains,
    1.0)`: every element computed at once from the tensor (`elementwise`), no number read. None
    where `node` (a test in the list's element) is in no such list. The tensor keeps the dtype
    arithmetic gives it (float32 for a float32 tensor, as `torch.tensor` of Python floats)."""
    listed = next((n for n in iter_nodes(func.body) if isinstance(n, cst.ListComp)
                   and any(inner is node for inner in iter_nodes(n.elt))), None)
    if listed is None:
        return None
    names = scope_names(flow)
    vectorised = elementwise(flow, listed, names.torch)
    if vectorised is None:
        return Rewrite(reason="the list's element is not arithmetic, comparisons and selections of the number alone")
    made = [n for n in iter_nodes(func.body) if isinstance(n, cst.Call) and len(n.args) == 1
            and flow.resolver.resolve(n.func) in ("torch.tensor", "torch.as_tensor")]
    replacements: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    direct = next((call for call in made if call.args[0].value is listed), None)
    if direct is not None:
        replacements.append((direct, vectorised.with_changes(lpar=[], rpar=[])))
    else:
        assign = next((n for n in iter_nodes(func.body) if isinstance(n, cst.Assign) and n.value is listed
                       and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)), None)
        name = assign.targets[0].target.value if assign is not None else None  # type: ignore[union-attr]
        reads = [n for n in iter_nodes(func.body) if isinstance(n, cst.Name) and n.value == name]
        call = next((c for c in made if isinstance(c.args[0].value, cst.Name) and c.args[0].value.value == name), None)
        if assign is None or call is None or len(reads) != 2:
            return Rewrite(reason="the list is not made into a tensor by `torch.tensor(...)` alone")
        replacements += [(listed, vectorised.with_changes(lpar=[], rpar=[])), (call, call.args[0].value)]
    return Rewrite(
        fix=FixProposal(
            "Compute every element from the tensor at once (no number read from it)",
            Applicability.UNSAFE,
            tuple(replacements),
            imports=names.imports,
        )
    )


def _listed_loop(
    flow: FunctionFlow, func: cst.FunctionDef, call: cst.Call, index: cst.BaseExpression
) -> cst.Call | None:
    """The `t.tolist()` a `for` loop around `call` binds `index` from (`for i in t.tolist()`, or
    an element of `zip(..., t.tolist())` or `enumerate(t.tolist())`), `index` read nowhere else in
    the loop and `t` of a static length: looping over `t` itself binds the same entries as 0-dim
    tensors (measured on torch 2.13: both modes export a loop over `topk`'s indices)."""
    if not isinstance(index, cst.Name):
        return None
    for loop in iter_nodes(func.body):
        if not isinstance(loop, cst.For) or not any(n is call for n in iter_nodes(loop.body)):
            continue
        targets, sources = [loop.target], [loop.iter]
        if isinstance(loop.target, cst.Tuple) and isinstance(loop.iter, cst.Call) and not any(
            a.star or a.keyword for a in loop.iter.args
        ):
            if dotted(loop.iter.func) == "zip" and len(loop.iter.args) == len(loop.target.elements):
                targets, sources = [e.value for e in loop.target.elements], [a.value for a in loop.iter.args]
            elif dotted(loop.iter.func) == "enumerate" and len(loop.iter.args) == 1 and len(loop.target.elements) == 2:
                targets, sources = [loop.target.elements[1].value], [loop.iter.args[0].value]
        for target, source in zip(targets, sources, strict=True):
            if not (isinstance(target, cst.Name) and target.value == index.value):
                continue
            reads = [n for n in iter_nodes(loop.body) if isinstance(n, cst.Name) and n.value == index.value]
            if not (isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute) and not source.args
                    and source.func.attr.value == "tolist" and len(reads) == 1 and reads[0] is index):
                return None
            tensor = flow.value(source.func.value)
            return source if is_tensor_like(tensor) and not tensor.has(Kind.DD_TENSOR) else None
    return None


# -- torch.while_loop -------------------------------------------------------------------------


def dense_select_rewrite(flow: FunctionFlow, func: cst.FunctionDef, call: cst.Call) -> Rewrite:
    """`self.experts[best](x)`, `best` read from a tensor -> every module run, the result picked
    with the tensor: `torch.stack([m(x) for m in self.experts]).index_select(0, best.reshape(1))
    .squeeze(0)`."""
    picked = call.func
    if not isinstance(picked, cst.Subscript) or call.args and any(a.star for a in call.args):
        return Rewrite(reason="the picked module is not called right away with plain arguments")
    index = picked.slice[0].slice.value  # type: ignore[attr-defined]
    # `self.experts[_h(best)]`: a one-line helper's `return`, read at the call
    index = (flow.inlined(index) if isinstance(index, cst.Call) else None) or index
    bound = data_bindings(flow, func, [call], exempt=index)
    listed = _listed_loop(flow, func, call, index)
    if listed is not None:
        # `for w, i in zip(weights, ids.tolist())`: the loop steps through the tensor's 0-dim entries
        tensor = index
        bound = {"": (listed, listed.func.value)}  # type: ignore[attr-defined]
    elif isinstance(index, cst.Name) and index.value in bound:
        tensor = index
    else:
        tensor = tensor_value(flow, index)
        if tensor is None or tensor is index:
            return Rewrite(reason=f"`{code_of(index)}` is not read only here from one tensor")
    names = scope_names(flow)
    module = names.fresh("module")[0]
    args = ", ".join(code_of(a) for a in call.args)
    dense = (
        f"{names.torch}.stack([{module}({args}) for {module} in {code_of(picked.value)}])"
        f".index_select(0, {code_of(tensor)}.reshape(1)).squeeze(0)"
    )
    return Rewrite(
        fix=FixProposal(
            "Run every module and pick the result with the tensor index (assumes they return one shape; "
            "computes all of them)",
            Applicability.UNSAFE,
            ((call, cst.parse_expression(dense)), *((c, t) for c, t in bound.values())),
            imports=names.imports,
        )
    )
