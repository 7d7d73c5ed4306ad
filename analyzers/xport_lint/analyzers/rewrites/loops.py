"""A `while` on a tensor as `torch.while_loop`; a loop over a dynamic size as `scan`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from ..dataflow import FunctionFlow, Kind, is_tensor_like
from ..model import Applicability
from ..names import dotted
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from ..shapes import Sizes
from ..walk import iter_nodes, visit
from .common import (
    Names,
    Rewrite,
    bound_before,
    comment_of,
    declared_outer,
    function_def,
    moved_code_problem,
    only_new_objects,
    parent_block,
    read_before_assigned,
    receiver,
    scope_names,
    statement_of,
    strip_leading,
    tuple_text,
    usage_of,
)
from .export_calls import sized_dim
from .predicates import data_bindings, guard_problem, reads_number, tensor_predicate, tensor_value


def _carried(func: cst.FunctionDef, node: cst.CSTNode, stored: Sequence[str]) -> list[str]:
    """The names a loop assigns that outlive one step: bound before the loop (the next step or
    later code reads them) or read after it. The rest are temporaries of the step function."""
    before = bound_before(func, node)
    after = set(usage_of([func.body], skip=node).loaded)
    return [n for n in stored if n in before or n in after]


def _scan_state(
    func: cst.FunctionDef, loop: cst.For, body: Sequence[cst.BaseStatement], stored: Sequence[str]
) -> list[str]:
    """The names a scan step must carry: read by a step before it assigns them (the state), or
    read after the loop before anything rebinds them. A name each step assigns before reading it,
    rebound after the loop (`y = f(h)` in the body, `y = torch.stack(ys)` after), is the step's
    own temporary, even where another branch bound it before the loop."""
    carried = set(_carried(func, loop, stored))
    return [n for n in stored if n in carried and (read_before_assigned(body, n) or not _rebound_after(func, loop, n))]


def _rebound_after(func: cst.FunctionDef, loop: cst.For, name: str) -> bool:
    """Whether the statements after `loop` in its block assign `name` before anything reads it."""
    found = parent_block(func, loop)
    if found is None:
        return False
    block, index = found
    for stmt in block[index + 1:]:
        usage = usage_of([stmt])
        if name in usage.loaded or not isinstance(stmt, cst.SimpleStatementLine):
            return False
        if name in usage.stored:
            return True
    return False


def _carry_problem(
    flow: FunctionFlow, carried: Sequence[str], available: Sequence[str], counters: Sequence[str] = ()
) -> str | None:
    """Why a loop's assigned names cannot be the state of a torch loop op (tensors, or integer
    counters, bound before the loop), or None."""
    for name in carried:
        value = flow.env.get(name)
        if name not in counters and (value is None or not is_tensor_like(value)):
            return f"the loop carries `{name}`, which is not a tensor"
        if name not in available:
            return f"`{name}` is first assigned inside the loop"
    return None if carried else "the loop assigns nothing (a loop that fills a list needs a vectorised op)"


def _tensor(flow: FunctionFlow, name: str) -> bool:
    value = flow.env.get(name)
    return value is not None and is_tensor_like(value)


def _int_counters(body: Sequence[cst.BaseStatement]) -> list[str]:
    """Names the body only steps by a literal (`i += 1`): counters a tensor can carry."""
    steps: dict[str, bool] = {}

    class Steps(cst.CSTVisitor):
        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name):
                stepped = isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)) and isinstance(
                    node.value, cst.Integer
                )
                steps[node.target.value] = steps.get(node.target.value, True) and stepped

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Name):
                steps[node.target.value] = False

    for stmt in body:
        visit(stmt, Steps())
    return [name for name, stepped in steps.items() if stepped]


def _counter_dim(subscript: cst.Subscript, counter: str) -> int | None:
    """d for `x[:, ..., i]` (the counter at dimension d, full slices before it), else None."""
    items = subscript.slice
    last = items[-1].slice
    if not (isinstance(last, cst.Index) and isinstance(last.value, cst.Name) and last.value.value == counter):
        return None
    for item in items[:-1]:
        full = item.slice
        if not (isinstance(full, cst.Slice) and full.lower is None and full.upper is None and full.step is None):
            return None
    return len(items) - 1


class _IndexAt(cst.CSTTransformer):
    """`x[i]`, `x[:, i]` -> `x.index_select(d, i.reshape(1)).squeeze(d)`: indexing with a
    traced tensor counter (measured: `x[i]` would read it back as a number)."""

    def __init__(self, counter: str) -> None:
        self.counter = counter

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        dim = _counter_dim(updated, self.counter)
        if dim is None:
            return updated
        owner = code_of(updated.value)
        return cst.parse_expression(f"{owner}.index_select({dim}, {self.counter}.reshape(1)).squeeze({dim})")


class _Sized(cst.CSTVisitor):
    """Whether `counter` is read as a size or an index (in a subscript, or as a call argument)
    other than `x[..., counter]`."""

    def __init__(self, counter: str) -> None:
        self.counter = counter
        self.found = False
        self.depth = 0

    @classmethod
    def within(cls, stmts: Sequence[cst.CSTNode], counter: str) -> bool:
        finder = cls(counter)
        for stmt in stmts:
            stmt.visit(finder)  # libcst's walk: the depth is kept in `leave_` methods
        return finder.found

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        if _counter_dim(node, self.counter) is None:
            return True
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if self.depth and node.value == self.counter:
            self.found = True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        self.depth += 1

    def leave_SubscriptElement(self, original_node: cst.SubscriptElement) -> None:
        self.depth -= 1

    def visit_Arg(self, node: cst.Arg) -> None:
        self.depth += 1

    def leave_Arg(self, original_node: cst.Arg) -> None:
        self.depth -= 1


def _body_problem(func: cst.FunctionDef, body: Sequence[cst.BaseStatement], state: Sequence[str]) -> str | None:
    """Why `body`, as a step function taking `state`, would not compute what the loop does (see
    `moved_code_problem`); `h += v` on a state tensor becomes `h = h + v` where nothing else
    can see `h` change in place."""
    out_of_place = [n for n in state if only_new_objects(func, n)]
    return moved_code_problem(body, state, declared_outer(func), out_of_place)


def _loop_functions(
    names: Names, counter_names: Sequence[str], carried: Sequence[str], test: str, body: Sequence[cst.BaseStatement],
    comment: str, step: str | None = None,
) -> tuple[list[cst.BaseStatement], str]:
    """The `cond_fn` and `body_fn` of a `torch.while_loop`, and its call's first two arguments."""
    state = [*counter_names, *carried]
    returned = tuple_text([f"{n} + 1" if n == step else n for n in state])
    body = [stmt.visit(_OutOfPlace(set(state))) for stmt in body]
    cond_fn, body_fn = names.fresh("cond_fn", "body_fn")
    functions = [
        function_def(cond_fn, state, [statement_of(f"return {test}")], comment),
        function_def(body_fn, state, [*strip_leading(body), statement_of(f"return {returned}")]),
    ]
    return functions, f"{cond_fn}, {body_fn}"


class _OutOfPlace(cst.CSTTransformer):
    """`h += x` on a carried tensor -> `h = h + x`: a loop body may not mutate its inputs
    (measured: "Higher order ops do not support input mutation")."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign) -> cst.BaseSmallStatement:
        if not (isinstance(updated.target, cst.Name) and updated.target.value in self.names):
            return updated
        operator = code_of(updated.operator).strip()[:-1]
        value = code_of(updated.value)
        if not isinstance(updated.value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)):
            value = f"({value})"
        return cst.parse_statement(f"{updated.target.value} = {updated.target.value} {operator} {value}\n").body[0]


def while_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.While) -> Rewrite:
    """`while test: body` on a tensor or on a number read from one -> `torch.while_loop`, when
    the loop carries tensors and integer counters (the counters become int64 tensors)."""
    if node.orelse is not None:
        return Rewrite(reason="the loop has an `else`")
    if not isinstance(node.body, cst.IndentedBlock):
        return Rewrite(reason="the loop is written on one line")
    body = list(node.body.body)
    usage = usage_of(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a torch.while_loop body must be pure, and {usage.problem or 'it returns'}")
    problem = guard_problem(node.test)
    if problem:
        return Rewrite(reason=problem)
    walrus = next((n for n in iter_nodes(node.test) if isinstance(n, cst.NamedExpr)), None)
    if walrus is not None:
        # the condition becomes a function of its own: what `:=` binds there is not bound here
        return Rewrite(reason=f"the condition binds `{code_of(walrus.target)}` with `:=`, which torch.while_loop's"
                       " condition function cannot hand back to the code that reads it")
    counters = [n for n in _int_counters(body) if n in usage.stored]
    bound = data_bindings(flow, func, [node])
    # `steps = n.item()`, then `while steps > 0: ...; steps -= 1`: the count itself is the counter
    read = _read_counters(flow, func, node, counters)
    bound.update(read)
    names = scope_names(flow)
    torch = names.torch
    predicate = tensor_predicate(flow, node.test, [*counters, *bound], torch)
    if predicate is None:
        return Rewrite(reason="the condition tests no tensor")
    carried = _carried(func, node, usage.stored)
    problem = _carry_problem(flow, carried, bound_before(func, node), counters)
    if problem:
        return Rewrite(reason=problem)
    out_of_place = [n for n in carried if only_new_objects(func, n) or n in read]
    problem = moved_code_problem(body, carried, declared_outer(func), out_of_place)
    if problem:
        return Rewrite(reason=f"a torch.while_loop body must be pure, and {problem}")
    for counter in counters:
        if _Sized.within(body, counter):
            return Rewrite(reason=f"the counter `{counter}` is used as a size or an index other than `x[{counter}]`")
        body = [stmt.visit(_IndexAt(counter)) for stmt in body]
    # a Python counter enters as a tensor; a tensor stepped by a literal already is one
    initial = tuple_text([
        n if n not in counters or n in read or _tensor(flow, n) else f"{torch}.tensor({n})" for n in carried
    ])
    functions, called = _loop_functions(names, [], carried, code_of(predicate), body, comment_of(node.body))
    lowered = [*functions, statement_of(f"{tuple_text(carried)} = {torch}.while_loop({called}, {initial})")]
    return Rewrite(
        fix=FixProposal(
            "Rewrite as torch.while_loop (assumes the carried tensors keep their shapes)",
            Applicability.UNSAFE,
            tuple((call, tensor) for call, tensor in bound.values()),
            imports=names.imports,
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


def _read_counters(
    flow: FunctionFlow, func: cst.FunctionDef, loop: cst.While, counters: Sequence[str]
) -> dict[str, tuple[cst.BaseExpression, cst.BaseExpression]]:
    """Counters of `loop` bound once before it to a number read from a tensor (`steps =
    n.item()`, `int(n)`), stepped only in the loop and read nowhere after it: name -> (the
    conversion, the tensor to bind instead). Carried as that tensor, `steps - 1` each step
    computes the same numbers."""
    out: dict[str, tuple[cst.BaseExpression, cst.BaseExpression]] = {}
    after = set(usage_of([func.body], skip=loop).loaded)
    for name in counters:
        binds = [
            n for n in iter_nodes(func.body)
            if isinstance(n, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in n.targets)
        ]
        stepped = [n for n in iter_nodes(func.body) if isinstance(n, cst.AugAssign)
                   and isinstance(n.target, cst.Name) and n.target.value == name]
        in_loop = {id(n) for n in iter_nodes(loop.body)}
        if len(binds) != 1 or len(binds[0].targets) != 1 or name in after or not all(id(n) in in_loop for n in stepped):
            continue
        value = binds[0].value
        tensor = tensor_value(flow, value) if isinstance(value, cst.Call) and reads_number(flow, value) else None
        if tensor is not None:
            out[name] = (value, tensor)
    return out


def counted_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite:
    """`for i in range(n)` (or `range(start, n)` from a number not read from data), `n` read
    from a tensor (`steps.item()`, `int(n)`) -> `torch.while_loop` with an int64 tensor counter
    from `start` compared with the tensor itself (measured on torch 2.13: exports in both modes
    and equals eager; `x[i]` is read with `index_select`)."""
    if not (isinstance(node.iter, cst.Call) and len(node.iter.args) in (1, 2)
            and all(a.keyword is None and not a.star for a in node.iter.args)):
        return Rewrite(reason="the loop is not `range(n)` or `range(start, n)`")
    start = node.iter.args[0].value if len(node.iter.args) == 2 else None
    if start is not None and (flow.value(start).has(Kind.DATA) or is_tensor_like(flow.value(start))):
        return Rewrite(reason=f"the loop starts at `{code_of(start)}`, read from tensor data too")
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock) or not isinstance(node.target, cst.Name):
        return Rewrite(reason="the loop has an `else`, is written on one line or unpacks its target")
    repeated = _repeat_rewrite(flow, func, node)
    if repeated is not None:
        return repeated
    count = node.iter.args[-1].value
    walrus = next((n for n in iter_nodes(count) if isinstance(n, cst.NamedExpr)), None)
    if walrus is not None:
        # the bound is compared inside the condition function of its own: `:=` would bind it there
        return Rewrite(reason=f"the trip count binds `{code_of(walrus.target)}` with `:=`, which torch.while_loop's"
                       " condition function cannot hand back to the code that reads it")
    # `range(_h(n))`: what a one-line helper computes, read at the call
    count = (flow.inlined(count) if isinstance(count, cst.Call) else None) or count
    bound = data_bindings(flow, func, [node], exempt=count) | _helper_bindings(flow, func, count)
    limit = tensor_value(flow, count, bound)
    if limit is None:
        # the rule found `count` read from data; what is missing is the tensor it was read from
        return Rewrite(
            reason=f"the tensor `{code_of(count)}` is read from is not at hand: a fix needs it bound once, by"
            " `.item()`, `int()`, `float()` or `bool()` of a tensor, and read only by the loop"
        )
    body = list(node.body.body)
    usage = usage_of(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a torch.while_loop body must be pure, and {usage.problem or 'it returns'}")
    counter = node.target.value
    if counter in usage_of([func.body], skip=node).loaded or counter in usage.stored:
        return Rewrite(reason=f"the loop variable `{counter}` is read after the loop or reassigned in it")
    names = scope_names(flow)
    torch = names.torch
    if counter == "_":
        counter = names.fresh("step")[0]  # a name the new functions can pass around
    if _Sized.within(body, counter):
        return Rewrite(reason=f"the loop variable `{counter}` is used as a size or an index other than `x[{counter}]`")
    body = [stmt.visit(_IndexAt(counter)) for stmt in body]
    carried = _carried(func, node, usage.stored)
    problem = _carry_problem(flow, carried, bound_before(func, node))
    if problem:
        return Rewrite(reason=problem)
    problem = _body_problem(func, list(node.body.body), [counter, *carried])
    if problem:
        return Rewrite(reason=f"a torch.while_loop body must be pure, and {problem}")
    state = tuple_text([node.target.value, *carried])
    first = f"{torch}.zeros((), dtype={torch}.int64)" if start is None else (
        f"{torch}.full((), {code_of(start)}, dtype={torch}.int64)")
    initial = tuple_text([first, *carried])
    functions, called = _loop_functions(
        names, [counter], carried, f"{counter} < {code_of(limit)}", body, comment_of(node.body), counter
    )
    lowered = [*functions, statement_of(f"{state} = {torch}.while_loop({called}, {initial})")]
    return Rewrite(
        fix=FixProposal(
            "Rewrite as torch.while_loop over a tensor counter (assumes the carried tensors keep their shapes)",
            Applicability.UNSAFE,
            tuple((call, tensor) for call, tensor in bound.values()),
            imports=names.imports,
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


def _repeat_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite | None:
    """`for i, c in enumerate(counts.tolist()): for _ in range(c): rows.append(x[i])`, the list
    only stacked after (`torch.stack(rows)`) -> `x.repeat_interleave(counts, dim=0)`: each row
    repeated its count of times (measured on torch 2.13: exports in both modes with the counts an
    input, equal to eager). None where the loops are not that."""
    if not isinstance(node.iter, cst.Call) or len(node.iter.args) != 1:
        return None
    outer = next((
        loop for loop in iter_nodes(func.body)
        if isinstance(loop, cst.For) and isinstance(loop.body, cst.IndentedBlock) and loop.body.body[-1] is node
    ), None)
    if outer is None or outer.orelse is not None or node.orelse is not None:
        return None
    # `for i, c in enumerate(T.tolist())`, the inner loop `range(c)`
    target, source = outer.target, outer.iter
    if not (
        isinstance(target, cst.Tuple) and len(target.elements) == 2
        and all(isinstance(e.value, cst.Name) for e in target.elements)
        and isinstance(source, cst.Call) and dotted(source.func) == "enumerate" and len(source.args) == 1
    ):
        return None
    index, count = (e.value.value for e in target.elements)  # type: ignore[attr-defined]
    listed = source.args[0].value
    if not (
        isinstance(listed, cst.Call) and isinstance(listed.func, cst.Attribute) and listed.func.attr.value == "tolist"
        and not listed.args and is_tensor_like(flow.value(listed.func.value))
    ):
        return None
    # `range(c)`, or `c` through names bound once in the outer loop (`n = c`) and one-line helpers
    limit: cst.BaseExpression | None = node.iter.args[0].value
    aliases: list[str] = []
    while limit is not None and len(aliases) < 8:
        limit = (flow.inlined(limit) if isinstance(limit, cst.Call) else None) or limit
        if not isinstance(limit, cst.Name) or limit.value == count:
            break
        aliases.append(limit.value)
        limit = flow.bound_once(limit.value)
    if not (isinstance(limit, cst.Name) and limit.value == count):
        return None
    prefix = list(outer.body.body[:-1])  # type: ignore[union-attr]
    if not all(_binds_only(stmt, {*aliases, "_"}) for stmt in prefix):
        return None
    reads = Counter(n.value for n in iter_nodes(func.body) if isinstance(n, cst.Name) and n.value in aliases)
    if any(reads[name] != 2 for name in aliases):  # bound, then read once on the way to `range`
        return None
    body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
    collected = _collected(flow, func, node, body)
    if isinstance(collected, str) or len(collected) != 1 or len(body) != 1 or collected[0].dim not in ("0", "-0"):
        return None
    row = collected[0].value  # `x[i]`: the row of `x` at the outer index
    if not (
        isinstance(row, cst.Subscript) and isinstance(row.value, (cst.Name, cst.Attribute)) and len(row.slice) == 1
        and isinstance(row.slice[0].slice, cst.Index) and isinstance(row.slice[0].slice.value, cst.Name)
        and row.slice[0].slice.value.value == index and is_tensor_like(flow.value(row.value))
    ):
        return None
    if isinstance(node.target, cst.Name) and node.target.value != "_" and node.target.value in usage_of(body).loaded:
        return None
    if any(n in usage_of([func.body], skip=outer).loaded for n in (index, count)):
        return None  # the loop variables outlive the loop
    repeated = cst.parse_expression(
        f"{code_of(row.value)}.repeat_interleave({code_of(listed.func.value)}, dim=0)"
    )
    # `rows = []` just before the loop and the loop become `rows = x.repeat_interleave(...)`
    name = collected[0].name
    block = next((b for b in iter_nodes(func.body) if isinstance(b, cst.IndentedBlock) and outer in b.body), None)
    at = list(block.body).index(outer) if block is not None else 0
    before = block.body[at - 1] if block is not None and at > 0 else None
    first = before if before is not None and code_of(before).strip() == f"{name} = []" else outer
    return Rewrite(
        fix=FixProposal(
            "Repeat each row its count of times with repeat_interleave (assumes one count per row)",
            Applicability.UNSAFE,
            ((collected[0].stack, cst.Name(name)),),
            blocks=(BlockReplacement(first, outer, (statement_of(f"{name} = {code_of(repeated)}"),)),),
        )
    )


def _binds_only(stmt: cst.BaseStatement, names: set[str]) -> bool:
    """Whether `stmt` is an assignment of names in `names` and nothing else."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return False
    bound: list[cst.BaseExpression] = []
    for target in stmt.body[0].targets:
        written = target.target
        bound += [e.value for e in written.elements] if isinstance(written, (cst.Tuple, cst.List)) else [written]
    return all(isinstance(n, cst.Name) and n.value in names for n in bound)


def _helper_bindings(
    flow: FunctionFlow, func: cst.FunctionDef, count: cst.BaseExpression
) -> dict[str, tuple[cst.Call, cst.BaseExpression]]:
    """`n = _count(steps)`, `def _count(t): return int(t.item())`, `n` read only by the loop:
    `n` -> (the call, the tensor the helper reads the number from), as `data_bindings` gives
    for `n = int(steps.item())` written in place."""
    if not isinstance(count, cst.Name):
        return {}
    call = flow.bound_once(count.value)
    inlined = flow.inlined(call) if isinstance(call, cst.Call) else None
    tensor = tensor_value(flow, inlined) if inlined is not None else None
    if tensor is None:
        call, tensor = _unpacked_helper(flow, func, count.value)
    reads = [n for n in iter_nodes(func.body) if isinstance(n, cst.Name) and n.value == count.value]
    if tensor is None or len(reads) != 2 or not isinstance(call, cst.Call):  # the binding's target and the loop
        return {}
    return {count.value: (call, tensor)}


def _unpacked_helper(
    flow: FunctionFlow, func: cst.FunctionDef, name: str
) -> tuple[cst.Call | None, cst.BaseExpression | None]:
    """`n, scale = self._plan(t)`, `def _plan(self, t): return int(t.sum()), 0.5`: (the call,
    the helper's tuple written at the call with `n`'s element the tensor it reads), where that
    is the one binding of `n`; else (None, None)."""
    binds = [
        node for node in iter_nodes(func.body)
        if isinstance(node, cst.Assign) and any(n.value == name for n in iter_nodes(node.targets[0].target)
                                               if isinstance(n, cst.Name))
    ]
    if len(binds) != 1 or len(binds[0].targets) != 1 or not isinstance(binds[0].value, cst.Call):
        return None, None
    target, call = binds[0].targets[0].target, binds[0].value
    inlined = flow.inlined(call)
    if not (isinstance(target, cst.Tuple) and isinstance(inlined, cst.Tuple)
            and len(target.elements) == len(inlined.elements)):
        return None, None
    names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
    if names.count(name) != 1 or any(isinstance(e, cst.StarredElement) for e in inlined.elements):
        return None, None
    at = names.index(name)
    tensor = tensor_value(flow, inlined.elements[at].value)
    if tensor is None:
        return None, None
    elements = [e.with_changes(value=tensor) if i == at else e for i, e in enumerate(inlined.elements)]
    return call, inlined.with_changes(elements=elements)


def _full(item: cst.SubscriptElement) -> bool:
    return isinstance(item.slice, cst.Slice) and item.slice.lower is None and item.slice.upper is None \
        and item.slice.step is None


def _row_dim(subscript: cst.Subscript, counter: str) -> int | None:
    """d for `x[:, ..., i, :, ...]` (the counter at dimension d, every other item a full slice),
    else None."""
    at = [
        d for d, item in enumerate(subscript.slice)
        if isinstance(item.slice, cst.Index) and isinstance(item.slice.value, cst.Name)
        and item.slice.value.value == counter
    ]
    if len(at) != 1 or not all(_full(item) for d, item in enumerate(subscript.slice) if d != at[0]):
        return None
    return at[0]


class _SliceAt(cst.CSTTransformer):
    """`x[:, ..., t, :, ...]` (the counter at dimension `dim`, full slices elsewhere) -> `x_t`."""

    def __init__(self, tensor: str, counter: str, dim: int, name: str) -> None:
        self.tensor, self.counter, self.dim, self.name = tensor, counter, dim, name

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        target = updated.value
        if isinstance(target, cst.Name) and target.value == self.tensor and _row_dim(updated, self.counter) == self.dim:
            return cst.Name(self.name)
        return updated


def _rows_read(body: Sequence[cst.BaseStatement], counter: str) -> dict[str, int] | str:
    """The tensors the loop body reads a row of with its counter (`a[:, :, t]`, `c[:, t, :]`),
    each with the dimension it is read on, or why they are not one dimension each."""
    rows: dict[str, int] = {}
    for node in (n for stmt in body for n in iter_nodes(stmt)):
        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)):
            continue
        dim = _row_dim(node, counter)
        if dim is None:
            continue
        if rows.setdefault(node.value.value, dim) != dim:
            return f"`{node.value.value}` is indexed by `{counter}` on two dimensions"
    return rows or f"the loop reads no tensor as `x[..., {counter}]`"


def range_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite:
    """`for t in range(x.size(d)): h = f(x[:, t], h)` -> torch's `scan` over dimension `d` of
    `x`: one step function in the graph for every length instead of one copy per step. A loop
    over `range(n)` whose body reads rows of several tensors (`a[:, :, t]`, `c[:, t, :]`: a
    state-space recurrence) scans them together, each narrowed to its first `n` rows and moved
    to the front (scan steps every tensor along one dimension)."""
    if not (isinstance(node.iter, cst.Call) and len(node.iter.args) == 1 and node.iter.args[0].keyword is None):
        return Rewrite(reason="the loop is not `range(size)` with one argument")
    if not isinstance(node.target, cst.Name):
        return Rewrite(reason="the loop target is not one name")
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return Rewrite(reason="the loop has an `else` or is written on one line")
    counter = node.target.value
    bound = node.iter.args[0].value
    # `range(_h(length))` of a one-line helper: the bound it hands back, the caller's own node
    bound = (flow.inlined(bound) if isinstance(bound, cst.Call) else None) or bound
    sized = sized_dim(bound)
    symbolic: tuple[tuple[cst.CSTNode, cst.CSTNode], ...] = ()
    if sized is None:
        # `n = x.size(1)` (or `n, _ = x.size(1), 0`) bound once, `x` never rebound, or handed
        # back by a one-line helper (`range(_h(x.size(1)))`): the same size
        sizes = Sizes(func, inline=flow.inlined)
        followed = sizes.followed(bound)
        sized = sized_dim(followed)
        if sized is not None and sized[0] in sizes.reassigned:
            sized = None
        if sized is not None and isinstance(followed, cst.Call) and _is_len(followed):
            # `n = len(x)` stays behind the scan: `len()` must return a Python int, which pins
            # a dynamic dimension (measured on torch 2.13: "Constraints violated"); `x.shape[0]`
            # is the same size kept symbolic
            symbolic = ((followed, cst.parse_expression(f"{sized[0]}.shape[0]")),)
    body = list(node.body.body)
    rows = _rows_read(body, counter)
    #: the tensors scanned with the dimension each is read on, and whether they are narrowed to
    #: the loop's length and moved to the front (the loop bound is not one of them's size)
    if sized is not None and (isinstance(rows, str) or set(rows) == {sized[0]}):
        scanned, narrowed = {sized[0]: sized[1]}, False
    elif isinstance(rows, dict) and isinstance(bound, cst.Name) and bound.value not in usage_of(body).stored:
        scanned, narrowed = rows, True
    else:
        return Rewrite(reason="the loop is not `for t in range(x.size(d))` over a named tensor"
                       if isinstance(rows, str) else "the loop bound is not a size of the tensors it reads")
    collected = _collected(flow, func, node, body)
    if isinstance(collected, str):
        return Rewrite(reason=collected)
    body = [stmt for stmt in body if not any(stmt is c.statement for c in collected)]
    usage = usage_of(body)
    if usage.problem or usage.returns:
        return Rewrite(reason=f"a scan step must be pure, and {usage.problem or 'it returns'}")
    if counter in usage_of([func.body], skip=node).loaded:
        return Rewrite(reason=f"the loop variable `{counter}` is read after the loop")
    names = scope_names(flow)
    torch = names.torch
    *row_names, step_fn, carry, discarded, xs = names.fresh(
        *(f"{tensor}_{counter}" for tensor in scanned), "step_fn", "carry", "_", "xs"
    )
    renames = [
        _SliceAt(tensor, counter, dim, name) for (tensor, dim), name in zip(scanned.items(), row_names, strict=True)
    ]
    sliced = body
    for rename in renames:
        sliced = [stmt.visit(rename) for stmt in sliced]
    after = usage_of(sliced)
    shown = " or ".join(f"`{t}[{':, ' * d}{counter}]`" for t, d in scanned.items())
    if counter in after.loaded or counter in after.stored:
        return Rewrite(reason=f"`{counter}` is used other than as {shown}")
    stored = [t for t in scanned if t in after.stored]
    if stored:
        return Rewrite(reason=f"the loop reassigns `{stored[0]}`")
    carried = _scan_state(func, node, sliced, after.stored)
    # a loop that only fills lists carries nothing: a scan carries a dummy tensor (measured on
    # torch 2.13: `torch.zeros(())` returned cloned each step exports in both modes)
    dummy = not carried and bool(collected)
    problem = None if dummy else _carry_problem(flow, carried, bound_before(func, node))
    if problem:
        return Rewrite(reason=problem)
    problem = _body_problem(func, sliced, [*carried, *row_names])
    if problem:
        return Rewrite(reason=f"a scan step must be pure, and {problem}")
    sliced = [stmt.visit(_OutOfPlace(set(carried))) for stmt in sliced]
    one = len(carried) == 1
    state = carried[0] if one else f"({', '.join(carried)})"
    unpack = [] if one or dummy else [statement_of(f"{', '.join(carried)} = {carry}")]
    if dummy:
        state = f"{carry}.clone()"
    # a step's output may not alias its carry or its slice (measured): those are cloned
    values = [c.value for c in collected]
    for rename in renames:
        values = [value.visit(rename) for value in values]
    if any(counter in usage_of([value]).loaded for value in values):
        return Rewrite(reason=f"`{counter}` is used other than as {shown}")
    outputs = [
        f"{code_of(value)}.clone()" if isinstance(value, cst.Name) and value.value in {*carried, *row_names}
        else code_of(value)
        for value in values
    ]
    ys = "()" if not collected else outputs[0] if len(collected) == 1 else f"({', '.join(outputs)})"
    stacked = discarded if not collected else collected[0].name if len(collected) == 1 else (
        f"({', '.join(c.name for c in collected)})"
    )
    initial, result = (f"{torch}.zeros(())", discarded) if dummy else (state, state)
    if narrowed:
        length = code_of(bound)
        moved = [
            f"{t}.narrow({d}, 0, {length})" + (f".movedim({d}, 0)" if d else "") for t, d in scanned.items()
        ]
        operand, dim = moved[0] if len(moved) == 1 else f"({', '.join(moved)},)", 0
        row_param = row_names[0] if len(row_names) == 1 else xs
        rows_unpack = [] if len(row_names) == 1 else [statement_of(f"{', '.join(row_names)} = {xs}")]
    else:
        ((operand, dim),), row_param, rows_unpack = scanned.items(), row_names[0], []
    lowered = [
        function_def(
            step_fn,
            [carried[0] if one else carry, row_param],
            [*unpack, *rows_unpack, *strip_leading(sliced), statement_of(f"return {state}, {ys}")],
            comment_of(node.body),
        ),
        statement_of(
            f"{result}, {stacked} = {torch}._higher_order_ops.scan({step_fn}, {initial}, {operand}, dim={dim})"
        ),
    ]
    # scan stacks the outputs on the dimension it scans (measured); `torch.stack(outputs, d)` on `d`
    restacked = tuple(
        (c.stack, cst.parse_expression(c.name if c.dim == str(dim) else f"{c.name}.movedim({dim}, {c.dim})"))
        for c in collected
    )
    return Rewrite(
        fix=FixProposal(
            "Rewrite as a scan over the dimension (torch's prototype `scan` op; assumes the carried "
            "tensors keep their shapes)",
            Applicability.UNSAFE,
            (*restacked, *symbolic),
            imports=names.imports,
            blocks=(BlockReplacement(node, node, tuple(lowered)),),
        )
    )


def _is_len(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value == "len"


@dataclass(frozen=True)
class _Collected:
    """`outputs.append(value)` in a loop step, `outputs = []` before and `torch.stack(outputs, dim)`
    after: the per-step outputs a scan stacks itself."""

    name: str
    value: cst.BaseExpression
    statement: cst.BaseStatement
    stack: cst.Call
    dim: str


def _collected(
    flow: FunctionFlow, func: cst.FunctionDef, loop: cst.For, body: Sequence[cst.BaseStatement]
) -> list[_Collected] | str:
    """The per-step outputs of `loop` (see `_Collected`), or why a list it fills is no scan output."""
    out = []
    for stmt in body:
        only = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if not isinstance(only, cst.Expr):
            continue
        call = only.value
        if not (
            isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"
            and isinstance(call.func.value, cst.Name) and len(call.args) == 1
        ):
            continue
        name = call.func.value.value
        reads = [n for n in iter_nodes(func.body) if isinstance(n, cst.Name) and n.value == name]
        stacks = [
            n for n in iter_nodes(func.body)
            if isinstance(n, cst.Call) and flow.resolver.resolve(n.func) == "torch.stack" and n.args
            and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value == name
        ]
        empty = [
            n for n in iter_nodes(func.body)
            if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)
            and n.targets[0].target.value == name and isinstance(n.value, cst.List) and not n.value.elements
        ]
        # the list's name: bound to [] once, appended once, stacked once, nothing else
        if len(stacks) != 1 or len(empty) != 1 or len(reads) != 3:
            return f"the loop fills `{name}`, which is not only `{name} = []` then `torch.stack({name}, dim)`"
        dims = [a.value for a in stacks[0].args[1:] if a.keyword is None or a.keyword.value == "dim"]
        dim = code_of(dims[0]) if dims else "0"
        out.append(_Collected(name, call.args[0].value, stmt, stacks[0], dim))
    return out


# -- torch._check for validation branches -----------------------------------------------------


#: functions and methods that act on each element alone: applied to the whole tensor they give
#: the per-row results stacked (what `torch.stack([f(x[i]) for i in range(len(x))])` builds)
_ELEMENTWISE = frozenset({
    "abs", "add", "ceil", "clamp", "clip", "cos", "div", "erf", "exp", "exp2", "expm1", "floor", "gelu", "log",
    "log1p", "log2", "mul", "neg", "pow", "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sign", "silu", "sin",
    "softplus", "sqrt", "square", "sub", "tanh", "trunc",
})


def stacked_rows_rewrite(
    flow: FunctionFlow, func: cst.FunctionDef, call: cst.Call, line: cst.SimpleStatementLine | None
) -> Rewrite:
    """`torch.stack([f(x[i]) for i in range(len(x))])` -> `f(x)` when `f` is elementwise, else
    a scan over the rows: `f` once in the graph for every batch size (measured on torch 2.13: a
    scan carrying a dummy `torch.zeros(())` exports in both modes and equals eager)."""
    comp = call.args[0].value if call.args else None
    if not isinstance(comp, cst.ListComp) or comp.for_in.inner_for_in is not None or comp.for_in.ifs:
        return Rewrite(reason="a comprehension builds a list; use a vectorised op")
    extra = call.args[1:]
    if len(extra) > 1 or (extra and code_of(extra[0].value) not in ("0", "-0")):
        return Rewrite(reason="the rows are stacked on another dimension than the one looped over")
    loop = comp.for_in
    if not (isinstance(loop.target, cst.Name) and isinstance(loop.iter, cst.Call) and len(loop.iter.args) == 1):
        return Rewrite(reason="a comprehension builds a list; use a vectorised op")
    count = loop.iter.args[0].value
    sized = sized_dim((flow.inlined(count) if isinstance(count, cst.Call) else None) or count)
    if sized is None or sized[1] != 0:
        return Rewrite(reason="the comprehension is not over `range(len(x))` (dimension 0)")
    tensor, counter = sized[0], loop.target.value
    whole = comp.elt.visit(_SliceAt(tensor, counter, 0, tensor))
    if _elementwise(flow, whole, tensor) and counter not in usage_of([whole]).loaded:
        return Rewrite(
            fix=FixProposal(
                "Apply the elementwise body to the whole batch (equal to stacking the rows)",
                Applicability.UNSAFE,
                ((call, whole.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])),),
            )
        )
    names = scope_names(flow)
    torch = names.torch
    row, stacked, step_fn, carry, discarded = names.fresh(
        f"{tensor}_{counter}", f"{tensor}_rows", "step_fn", "carry", "_"
    )
    if line is None:
        return Rewrite(reason="a comprehension builds a list; use a vectorised op")
    step = comp.elt.visit(_SliceAt(tensor, counter, 0, row))
    usage = usage_of([step])
    if counter in usage.loaded or usage.problem:
        return Rewrite(reason=f"`{code_of(comp.elt)}` uses `{counter}` other than as `{tensor}[{counter}]`"
                              if counter in usage.loaded else f"a scan step must be pure, and {usage.problem}")
    output = f"{row}.clone()" if isinstance(step, cst.Name) else code_of(step)
    lowered = [
        function_def(step_fn, [carry, row], [statement_of(f"return {carry}.clone(), {output}")]),
        statement_of(
            f"{discarded}, {stacked} = {torch}._higher_order_ops.scan({step_fn}, {torch}.zeros(()), {tensor}, dim=0)"
        ),
        line.deep_replace(call, cst.Name(stacked)),
    ]
    return Rewrite(
        fix=FixProposal(
            "Compute the rows with a scan (torch's prototype `scan` op)",
            Applicability.UNSAFE,
            (),
            imports=names.imports,
            blocks=(BlockReplacement(line, line, tuple(lowered)),),
        )
    )


def _elementwise(flow: FunctionFlow, expr: cst.BaseExpression, tensor: str) -> bool:
    """Whether `expr` computes each element of its result from the same element of `tensor` and
    from numbers alone."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value == tensor or not is_tensor_like(flow.value(expr))
    if isinstance(expr, cst.UnaryOperation):
        return _elementwise(flow, expr.expression, tensor)
    if isinstance(expr, cst.BinaryOperation):
        arithmetic = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
        return isinstance(expr.operator, arithmetic) and all(
            _elementwise(flow, side, tensor) for side in (expr.left, expr.right)
        )
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _ELEMENTWISE:
        receiver = expr.func.value
        operands = [a.value for a in expr.args]
        if flow.resolver.resolve(receiver) in ("torch", "torch.nn.functional") or dotted(receiver) == "F":
            receiver, operands = operands[0] if operands else receiver, operands[1:]
        return _elementwise(flow, receiver, tensor) and all(
            isinstance(o, (cst.Integer, cst.Float, cst.UnaryOperation)) or not is_tensor_like(flow.value(o))
            for o in operands
        )
    return False


# -- a loop over the classes the data holds ---------------------------------------------------


#: the reductions of `t[c] = x[labels == c].R(0)` that `scatter_reduce` has under the same name
_CLASS_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "prod"})


def _unique_of(flow: FunctionFlow, iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """`labels` of `torch.unique(labels)` or `labels.unique()` (no other arguments), or of
    either's `.tolist()` (the same classes, as Python numbers), else None."""
    if not isinstance(iterable, cst.Call):
        return None
    func = iterable.func
    if isinstance(func, cst.Attribute) and func.attr.value == "tolist" and not iterable.args:
        return _unique_of(flow, func.value)
    if flow.resolver.resolve(iterable.func) == "torch.unique" and len(iterable.args) == 1:
        arg = iterable.args[0]
        return arg.value if arg.keyword is None and arg.star == "" else None
    func = iterable.func
    if isinstance(func, cst.Attribute) and func.attr.value == "unique" and not iterable.args:
        return func.value
    return None


def _class_rows(subscript: cst.BaseExpression, labels: str, counter: str) -> cst.BaseExpression | None:
    """`x` of `x[labels == c]` (or `x[c == labels]`), else None."""
    if not (isinstance(subscript, cst.Subscript) and len(subscript.slice) == 1
            and isinstance(subscript.slice[0].slice, cst.Index)):
        return None
    test = subscript.slice[0].slice.value
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return None
    sides = {code_of(test.left), code_of(test.comparisons[0].comparator)}
    return subscript.value if sides == {labels, counter} else None


def class_loop_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite:
    """`for c in torch.unique(labels): t[c] = x[labels == c].mean(0)` -> one `scatter_reduce_`
    into the rows of `t` (`include_self=False`: a class the data lacks keeps its row), and
    `t[c] += x[labels == c].sum(0)` -> `t.index_add_(0, labels, x)`. `t` has a row per class, a
    count fixed by the code, so the loop over however many classes the data holds becomes one op
    over all of them. Measured on torch 2.13: exports in both modes and equals eager."""
    # `value = labels.unique()` bound once, or `_h(labels.unique())`: the same classes
    iterable = node.iter
    if isinstance(iterable, cst.Name):
        iterable = flow.bound_once(iterable.value) or iterable
    elif isinstance(iterable, cst.Call):
        iterable = flow.inlined(iterable) or iterable
    labels_node = _unique_of(flow, iterable)
    if labels_node is None:
        return Rewrite(reason=CLASS_REASON)
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    line = body[0] if len(body) == 1 else None
    only = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    if node.orelse is not None or not isinstance(node.target, cst.Name) or only is None:
        return Rewrite(reason=CLASS_REASON)
    counter, labels = node.target.value, code_of(labels_node)
    if isinstance(only, cst.Assign) and len(only.targets) == 1:
        target, value, accumulate = only.targets[0].target, only.value, False
    elif isinstance(only, cst.AugAssign) and isinstance(only.operator, cst.AddAssign):
        target, value, accumulate = only.target, only.value, True
    else:
        return Rewrite(reason=CLASS_REASON)
    # `t[c]`: the class's row of a tensor the code sized
    if not (isinstance(target, cst.Subscript) and isinstance(target.value, (cst.Name, cst.Attribute))
            and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index)
            and code_of(target.slice[0].slice.value) == counter and is_tensor_like(flow.value(target.value))):
        return Rewrite(reason=CLASS_REASON)
    # `x[labels == c].R(0)`
    arg = value.args[0] if isinstance(value, cst.Call) and len(value.args) == 1 else None
    if not (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _CLASS_REDUCTIONS and arg is not None and code_of(arg.value) == "0"
        and (arg.keyword is None or arg.keyword.value == "dim")
    ):
        return Rewrite(reason=CLASS_REASON)
    rows = _class_rows(value.func.value, labels, counter)
    reduction = value.func.attr.value
    if rows is None or counter in usage_of([rows]).loaded or (accumulate and reduction != "sum"):
        return Rewrite(reason=CLASS_REASON)
    if counter in usage_of([func.body], skip=node).loaded:
        return Rewrite(reason=f"`{counter}` is read after the loop")
    table, data = code_of(target.value), code_of(rows)
    if accumulate:
        text = f"{table}.index_add_(0, {labels}, {data})"
        title = "Add every row into its class's row at once with index_add_ (the loop over the classes present)"
    else:
        index = f"{labels}.reshape((-1,) + (1,) * ({data}.dim() - 1)).expand_as({data})"
        text = f'{table}.scatter_reduce_(0, {index}, {data}, reduce="{reduction}", include_self=False)'
        title = (f"Reduce every class's rows at once with scatter_reduce_ ({reduction}; a class the data lacks keeps "
                 "its row, as in the loop)")
    return Rewrite(
        fix=FixProposal(title, Applicability.UNSAFE, (), blocks=(BlockReplacement(node, node, (statement_of(text),)),))
    )


CLASS_REASON = (
    "there are as many classes as the data holds; with their number fixed (`num_classes`), compute "
    "every class at once: a mask per class (`labels == torch.arange(num_classes)[:, None]`) or "
    "`index_add`/`scatter_reduce` into `num_classes` rows (a loop whose step is one `t[c] = x[labels == c]"
    ".mean(0)`, or `t[c] += x[labels == c].sum(0)`, gets that fix)"
)


def masked_write_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite | None:
    """`for b, t in mask.nonzero().tolist(): x[b, t] = 0.0` -> `x[mask] = 0.0`: every position
    the mask holds written at once (measured on torch 2.13: a boolean-mask write exports in both
    modes and equals eager; the loop over the positions fails, their count is data). The value
    written must not depend on the position; the mask must have `x`'s leading shape (Python would
    write an index past it too, the mask refuses a shape it does not match). None where the loop
    is not that."""
    listed = node.iter
    if not (isinstance(listed, cst.Call) and isinstance(listed.func, cst.Attribute) and not listed.args
            and listed.func.attr.value == "tolist" and isinstance(listed.func.value, cst.Call)):
        return None
    found = listed.func.value
    if isinstance(found.func, cst.Attribute) and found.func.attr.value == "nonzero" and not found.args:
        mask = found.func.value
    elif flow.resolver.resolve(found.func) == "torch.nonzero" and len(found.args) == 1 and not found.args[0].keyword:
        mask = found.args[0].value
    else:
        return None
    if not (isinstance(node.target, cst.Tuple) and node.target.elements
            and all(isinstance(e.value, cst.Name) for e in node.target.elements)):
        return None
    positions = [e.value.value for e in node.target.elements]  # type: ignore[attr-defined]
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    if node.orelse is not None or not body or not is_tensor_like(flow.value(mask)):
        return None
    written: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    for line in body:
        only = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        if not (isinstance(only, cst.Assign) and len(only.targets) == 1
                and isinstance(only.targets[0].target, cst.Subscript)):
            return None
        target = only.targets[0].target
        indices = [e.slice.value.value if isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name)
                   else None for e in target.slice]
        if indices != positions or not isinstance(target.value, (cst.Name, cst.Attribute)):
            return None
        if not is_tensor_like(flow.value(target.value)) or any(
            isinstance(n, cst.Name) and n.value in positions for n in iter_nodes(only.value)
        ):
            return None  # the value written depends on the position
        written.append((target.value, only.value))
    boolean = flow.value(mask).has(Kind.MASK)
    selector = code_of(mask) if boolean else f"{receiver(mask)} != 0"
    lowered = tuple(statement_of(f"{code_of(holder)}[{selector}] = {code_of(value)}") for holder, value in written)
    return Rewrite(
        fix=FixProposal(
            "Write every position the mask holds at once (assumes the mask has the tensor's leading shape)",
            Applicability.UNSAFE,
            (),
            blocks=(BlockReplacement(node, node, lowered),),
        )
    )


def sliced_layers_rewrite(flow: FunctionFlow, func: cst.FunctionDef, node: cst.For) -> Rewrite | None:
    """`for layer in self.layers[:depth]: x = layer(x)`, `depth` read from data -> every layer run,
    its result kept below the bound: `for i, layer in enumerate(self.layers): x = torch.where(i <
    depth, layer(x), x)` with `depth` bound as the tensor it is read from (measured on torch 2.13:
    exports in both modes and equals eager). Assumes the bound is not negative (Python's slice
    counts a negative one from the end) and each step keeps the shapes. None where the loop is
    not that: a slice with only an upper bound, a body of assignments to tensors bound before it."""
    sliced = node.iter
    if not (isinstance(sliced, cst.Subscript) and len(sliced.slice) == 1
            and isinstance(sliced.slice[0].slice, cst.Slice) and isinstance(node.target, cst.Name)
            and node.orelse is None and isinstance(node.body, cst.IndentedBlock)):
        return None
    bounds = sliced.slice[0].slice
    if bounds.lower is not None or bounds.step is not None or bounds.upper is None:
        return None
    assigned: list[tuple[str, cst.BaseExpression]] = []
    for line in node.body.body:
        only = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        if not (isinstance(only, cst.Assign) and len(only.targets) == 1
                and isinstance(only.targets[0].target, cst.Name)):
            return None
        assigned.append((only.targets[0].target.value, only.value))
    before = bound_before(func, node)
    if any(name not in before or not _tensor(flow, name) or name == node.target.value for name, _ in assigned):
        return None
    upper = bounds.upper
    bound = data_bindings(flow, func, [node], exempt=upper)
    limit = tensor_value(flow, upper, bound)
    if limit is None:
        return None
    names = scope_names(flow)
    index = names.fresh("index")[0]
    limit_code = code_of(limit) if isinstance(limit, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) \
        else f"({code_of(limit)})"
    body = [statement_of(f"{name} = {names.torch}.where({index} < {limit_code}, {code_of(value)}, {name})")
            for name, value in assigned]
    loop = node.with_changes(
        target=cst.Tuple([cst.Element(cst.Name(index)), cst.Element(node.target)], lpar=[], rpar=[]),
        iter=cst.parse_expression(f"enumerate({code_of(sliced.value)})"),
        body=node.body.with_changes(body=body),
    )
    return Rewrite(
        fix=FixProposal(
            "Run every layer and keep the results of those below the bound (assumes it is not negative and each"
            " layer keeps the shapes)",
            Applicability.UNSAFE,
            tuple((call, tensor) for call, tensor in bound.values()),
            imports=names.imports,
            blocks=(BlockReplacement(node, node, (loop,)),),
        )
    )
