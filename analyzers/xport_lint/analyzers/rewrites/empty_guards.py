"""A guard that skips work on an empty selection, dropped: `if idx.numel() > 0:` around
`out[idx] = self.expert(tokens[idx])`, `if mask.any():` around `h[mask] = v`, `if
top_x.shape[0] == 0: continue` before `final.index_add_(0, top_x, ...)`. Code that writes only
through the selection writes nothing when the selection is empty, so running it unconditionally
computes what the guard did (measured on torch 2.13: the three spellings export in both modes
without the guard and equal eager on an empty selection too; with it, export fails on the guard).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from ..dataflow import FunctionFlow, Kind
from ..model import Applicability
from ..report import BlockReplacement, FixProposal
from ..walk import iter_nodes
from .common import Rewrite, enclosing_loop, usage_of

EMPTY_GUARD_SAFETY = "assumes every op the guarded code runs accepts an empty selection"

#: in-place writes at positions an index or mask names: nothing is written when it is empty
_INDEX_WRITES = frozenset({
    "index_add_", "index_copy_", "index_fill_", "index_put_", "index_reduce_", "masked_fill_",
    "masked_scatter_", "put_", "scatter_", "scatter_add_", "scatter_reduce_",
})
#: their out-of-place forms (`out = out.index_add(0, idx, v)` gives `out` back when `idx` is empty)
_INDEX_UPDATES = frozenset(name[:-1] for name in _INDEX_WRITES)
#: reductions that raise on zero elements (or read data): not run where the guard skipped them
_FAIL_ON_EMPTY = frozenset({
    "amax", "amin", "aminmax", "argmax", "argmin", "item", "kthvalue", "max", "median", "min", "mode",
    "nanmedian", "tolist", "topk",
})
#: `size OP k` that holds exactly when the size is not zero (True) or is zero (False)
_NON_EMPTY_TESTS: dict[tuple[type, int], bool] = {
    (cst.GreaterThan, 0): True, (cst.NotEqual, 0): True, (cst.GreaterThanEqual, 1): True,
    (cst.Equal, 0): False, (cst.LessThan, 1): False, (cst.LessThanEqual, 0): False,
}
_FLIPPED: dict[type, type] = {
    cst.GreaterThan: cst.LessThan, cst.LessThan: cst.GreaterThan, cst.GreaterThanEqual: cst.LessThanEqual,
    cst.LessThanEqual: cst.GreaterThanEqual, cst.Equal: cst.Equal, cst.NotEqual: cst.NotEqual,
}


def empty_guard_rewrite(
    flow: FunctionFlow, func: cst.FunctionDef, node: cst.If, integer: Callable[[cst.BaseExpression], int | None]
) -> Rewrite | None:
    """`if <selection not empty>: body` -> `body`, and `if <selection empty>: continue` removed,
    where the code the guard skips writes only through the selection (see _writes_through).
    `integer`: the int an expression always holds (`0`, `self.k` as `__init__` sets it), or None.
    None where the `if` is not such a guard."""
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    tested = _selection_tested(flow, node.test, integer)
    if tested is None:
        return None
    selection, non_empty = tested
    if non_empty:
        guarded: Sequence[cst.BaseStatement] = node.body.body
    else:
        only = node.body.body[0] if len(node.body.body) == 1 else None
        loop = enclosing_loop(func, node)
        if not (isinstance(only, cst.SimpleStatementLine) and len(only.body) == 1
                and isinstance(only.body[0], cst.Continue) and loop is not None
                and isinstance(loop.body, cst.IndentedBlock)):
            return None
        rest = list(loop.body.body)
        guarded = rest[next(i for i, s in enumerate(rest) if s is node) + 1:]
    if not _writes_through(func, node, guarded, selection):
        return None
    title = f"Drop the guard: on an empty `{selection}` the code it skips writes nothing ({EMPTY_GUARD_SAFETY})"
    kept = tuple(guarded) if non_empty else ()
    return Rewrite(fix=FixProposal(title, Applicability.UNSAFE, (), blocks=(BlockReplacement(node, node, kept),)))


def _selection_tested(
    flow: FunctionFlow, test: cst.BaseExpression, integer: Callable[[cst.BaseExpression], int | None], depth: int = 0
) -> tuple[str, bool] | None:
    """The name of the selection `test` asks the emptiness of, and whether the test holds when it
    is not empty: `idx.numel() > 0`, `len(idx) == 0`, `not top_x.shape[0]`, `mask.any()` of a
    boolean mask, each also through a name bound once to it (`n = idx.numel()`; `if n > 0:`) or
    a one-line helper's call."""
    if depth > 3:
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        found = _selection_tested(flow, test.expression, integer, depth + 1)
        return (found[0], not found[1]) if found is not None else None
    followed = _followed(flow, test)
    if followed is not None:
        return _selection_tested(flow, followed, integer, depth + 1)
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1:
            return None
        operator, left, right = type(test.comparisons[0].operator), test.left, test.comparisons[0].comparator
        if integer(right) is None and integer(left) is not None and operator in _FLIPPED:
            operator, left, right = _FLIPPED[operator], right, left
        bound = integer(right)
        if bound is None:
            return None
        non_empty = _NON_EMPTY_TESTS.get((operator, bound))
        selection = _size_of(flow, left, depth)
        return (selection, non_empty) if selection is not None and non_empty is not None else None
    selection = _size_of(flow, test, depth)
    return (selection, True) if selection is not None else None


def _size_of(flow: FunctionFlow, size: cst.BaseExpression, depth: int) -> str | None:
    """The selection whose emptiness `size` measures: `S` of `S.numel()`, `S.shape[0]`,
    `S.size(0)`, `len(S)` (a size that depends on data), `M.any()`, `torch.any(M)`, `M.sum()` of a
    boolean mask `M`; also through a name bound once to one of those or a one-line helper."""
    followed = _followed(flow, size)
    if followed is not None:
        return _size_of(flow, followed, depth + 1) if depth < 3 else None
    measured: cst.BaseExpression | None = None
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute):
        method = size.func.attr.value
        if method in ("numel", "nelement") and not size.args or method == "size" and _first_dim(size.args):
            measured = size.func.value
        elif method in ("any", "sum") and not size.args:
            mask = size.func.value
            return mask.value if isinstance(mask, cst.Name) and flow.value(mask).has(Kind.MASK) else None
        elif flow.resolver.resolve(size.func) == "torch.any" and len(size.args) == 1:
            mask = size.args[0].value
            return mask.value if isinstance(mask, cst.Name) and flow.value(mask).has(Kind.MASK) else None
    elif (isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value == "len"
          and len(size.args) == 1):
        measured = size.args[0].value
    elif (isinstance(size, cst.Subscript) and isinstance(size.value, cst.Attribute)
          and size.value.attr.value == "shape" and len(size.slice) == 1
          and isinstance(index := size.slice[0].slice, cst.Index) and isinstance(index.value, cst.Integer)
          and index.value.value == "0"):
        measured = size.value.value
    if not isinstance(measured, cst.Name) or not flow.value(size).has(Kind.DD_SIZE):
        return None
    return measured.value


def _followed(flow: FunctionFlow, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """What a name bound once, or a one-line helper's call, stands for; None for anything else."""
    if isinstance(expr, cst.Name):
        return flow.bound_once(expr.value)
    return flow.inlined(expr) if isinstance(expr, cst.Call) else None


def _first_dim(args: Sequence[cst.Arg]) -> bool:
    return len(args) == 1 and isinstance(args[0].value, cst.Integer) and args[0].value.value == "0"


def _writes_through(func: cst.FunctionDef, guard: cst.If, guarded: Sequence[cst.BaseStatement], selection: str) -> bool:
    """Whether `guarded` writes only through `selection` (or names it computes from it): each
    statement an index write whose index reads it (`out[idx] = v`, `out.index_add_(0, idx, v)`,
    `out = out.index_add(0, idx, v)`), a copy of a tensor into the name it had (`h = h.clone()`),
    or a name nothing outside reads (a temporary); nothing that raises on zero elements."""
    through = {selection}
    outside = set(usage_of([func.body], skip=[*guarded, guard.test]).loaded)
    written = False
    for statement in guarded:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if any(isinstance(n, cst.Call) and _fails_on_empty(n) for n in iter_nodes(small)):
                return False
            if isinstance(small, cst.Expr) and _index_write(small.value, through, _INDEX_WRITES):
                written = True
            elif isinstance(small, cst.AugAssign) and _subscript_through(small.target, through):
                written = True
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
                if _subscript_through(target, through):
                    written = True
                elif isinstance(target, cst.Name) and target.value != selection and (
                    _kept(target.value, value) or _index_write(value, through, _INDEX_UPDATES, target.value)
                ):
                    written = written or not _kept(target.value, value)
                elif _temporaries(target) and not (_temporaries(target) & (outside | {selection})):
                    if _reads(value, through):
                        through |= _temporaries(target)
                else:
                    return False
            else:
                return False
    return written


def _fails_on_empty(call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value in _FAIL_ON_EMPTY
    return isinstance(func, cst.Name) and func.value in ("max", "min", "int", "float", "bool")


def _reads(node: cst.CSTNode, names: set[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in iter_nodes(node))


def _subscript_through(target: cst.BaseExpression, through: set[str]) -> bool:
    return isinstance(target, cst.Subscript) and any(_reads(element, through) for element in target.slice)


def _index_write(
    value: cst.BaseExpression, through: set[str], methods: frozenset[str], onto: str | None = None
) -> bool:
    """`holder.index_add_(0, idx, v)` (a method of `methods`) whose arguments read a name of
    `through`; `onto`: the holder must be that name (`out = out.index_add(0, idx, v)`)."""
    return (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in methods
        and (onto is None or (isinstance(value.func.value, cst.Name) and value.func.value.value == onto))
        and any(_reads(arg.value, through) for arg in value.args)
    )


def _kept(name: str, value: cst.BaseExpression) -> bool:
    """`h = h.clone()`: the name keeps the values it had."""
    return (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "clone" and isinstance(value.func.value, cst.Name)
            and value.func.value.value == name)


def _temporaries(target: cst.BaseExpression) -> set[str]:
    """The names `target` binds when it binds names only (`a`, `a, b`), else nothing."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        return {e.value.value for e in target.elements}  # type: ignore[attr-defined]
    return set()
