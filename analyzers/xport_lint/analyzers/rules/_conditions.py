"""Shared by the branch rules: which parts of a condition Python calls `bool()` on, and what
each holds. `if a is not None and a.sum() > 0:` tests two operands, only the second on data."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from ..dataflow import Kind, Value, is_tensor_like
from ..positions import code_of
from ..rewrites import Rewrite, check_rewrite, cond_rewrite, empty_guard_rewrite
from ..shapes import Sizes, Verdict, constant_over
from ..syntax import argument, integer_literal
from ..walk import body_nodes

if TYPE_CHECKING:
    from ..runner import RuleContext


class Condition(enum.Enum):
    TENSOR = "tensor"  # bool(tensor): a data-dependent guard
    DD_SIZE = "dd_size"  # a size only known at run time (nonzero, masks)
    DATA = "data"  # a Python value read from a tensor (.item(), .tolist())
    SHAPE = "shape"  # a symbolic size: the guard specialises the graph


def tested(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands that are truth-tested when `expr` is used as a condition."""
    if isinstance(expr, cst.BooleanOperation):
        yield from tested(expr.left)
        yield from tested(expr.right)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        yield from tested(expr.expression)
    else:
        yield expr


def classify(value: Value) -> Condition | None:
    if is_tensor_like(value):
        return Condition.TENSOR
    if value.has(Kind.DD_SIZE):
        return Condition.DD_SIZE
    if value.has(Kind.DATA):
        return Condition.DATA
    if value.has(Kind.SHAPE):
        return Condition.SHAPE
    return None


def conditions(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The condition expression(s) of a branching node."""
    if isinstance(node, (cst.If, cst.While, cst.IfExp, cst.Assert)):
        yield node.test
    elif isinstance(node, cst.CompIf):
        yield node.test
    elif isinstance(node, cst.Call) and (test := argument(node.args, 0, "condition")) is not None:
        yield test  # `torch._assert(test, message)`, the only call a rule hands here
    elif isinstance(node, cst.Match) and any(_compares_values(case.pattern) for case in node.cases):
        yield node.subject


def _failing_part(node: cst.CSTNode, operand: cst.BaseExpression) -> cst.CSTNode:
    """Where export fails on a tested `operand`: the operand, but for a `match`, whose subject is
    compared (and fails, measured on torch 2.13) at its first `case` with a value."""
    if isinstance(node, cst.Match):
        return next(case.pattern for case in node.cases if _compares_values(case.pattern))
    return operand


def _compares_values(pattern: cst.MatchPattern) -> bool:
    """A `case` pattern that tests its subject with `==` (`case 0:`, `case "a" | "b":`); captures,
    wildcards, `is` singletons, classes and sequences ask the subject nothing a guard needs."""
    if isinstance(pattern, cst.MatchValue):
        return True
    if isinstance(pattern, cst.MatchOr):
        return any(_compares_values(element.pattern) for element in pattern.patterns)
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is not None and _compares_values(pattern.pattern)


def asserted_test(ctx: RuleContext, node: cst.Call) -> cst.BaseExpression | None:
    """The test of `torch._assert(test, message)`: torch runs a Python `assert` of it, so bool() of
    the test, whatever the message (measured on torch 2.13: a tensor or a number read from data
    there fails both modes, `torch._assert_async` of the tensor exports)."""
    if ctx.resolve(node.func) != "torch._assert" or any(a.star for a in node.args):
        return None
    return argument(node.args, 0, "condition")


def plain_message(message: cst.BaseExpression | None) -> bool:
    """No message, or a string literal (an f-string with no replacement field too): what strict
    export keeps as a runtime assertion's message. Measured on torch 2.13: any other message (an
    f-string with a field, even a constant one, `%` or `.format` formatting, a name bound to a
    string) makes strict export fail on an `assert` whose test reads tensor data."""
    if message is None or isinstance(message, cst.SimpleString):
        return True
    if isinstance(message, cst.FormattedString):
        return all(isinstance(part, cst.FormattedStringText) for part in message.parts)
    return (
        isinstance(message, cst.ConcatenatedString)
        and plain_message(message.left)  # type: ignore[arg-type]
        and plain_message(message.right)  # type: ignore[arg-type]
    )


def short(node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConditionRule:
    """Mixin for rules that flag a condition holding one kind of value (see `Condition`)."""

    CONDITION: Condition

    def check_conditions(self, node: cst.CSTNode, keyword: str) -> None:
        for condition in conditions(node):
            for operand in tested(condition):
                value = self.ctx.value(operand)  # type: ignore[attr-defined]
                if classify(value) is not self.CONDITION:
                    continue
                if self.CONDITION in (Condition.DATA, Condition.DD_SIZE) and decided_by_checks(
                    self.ctx, operand, sizes_of_data=self.CONDITION is Condition.DD_SIZE,  # type: ignore[attr-defined]
                ):
                    continue
                if self.CONDITION is Condition.TENSOR and _container_tested(self.ctx, operand, node):  # type: ignore[attr-defined]
                    continue
                related = []
                # a note only where data enters (`.item()`, `nonzero`, a mask): the `.shape` a
                # size came from explains nothing; the runner drops notes on the flagged line
                if self.CONDITION is not Condition.SHAPE and value.origin is not None and value.origin is not operand:
                    related.append((value.origin, f"`{short(value.origin)}` is where it comes from"))
                verdict = self.judge(operand)
                if verdict is not None and verdict.severity is None:
                    continue
                message = self.message(operand, keyword)
                failing = _failing_part(node, operand)
                if failing is not operand:
                    message += f", compared with `{code_of(failing)}`"
                if verdict is not None and verdict.reason:
                    message += f": {verdict.reason}"
                rewrite = self.rewrite(node) if verdict is None or verdict.fixable else self.declaration_fix(verdict)
                if rewrite is not None and rewrite.reason:
                    message += f" (no automatic fix: {rewrite.reason})"
                fix = rewrite.fix if rewrite is not None else None
                severity = verdict.severity if verdict is not None else None
                notes = verdict.notes if verdict is not None else ()
                self.report(  # type: ignore[attr-defined]
                    failing, message, fix=fix, related=related, severity=severity, notes=notes
                )

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        raise NotImplementedError

    def declaration_fix(self, verdict: Verdict) -> Rewrite | None:
        """The fix for a finding the code cannot fix but the export's declaration can."""
        return None

    def judge(self, operand: cst.BaseExpression) -> Verdict | None:
        """This finding's severity where it depends on how the model is exported (None: the
        rule's own)."""
        return None

    def rewrite(self, node: cst.CSTNode) -> Rewrite | None:
        """The fix for the branching `node` (or why there is none); None: not offered."""
        return None


def _container_tested(ctx: RuleContext, operand: cst.BaseExpression, node: cst.CSTNode) -> bool:
    """`if not kept:` (or `sum(kept) if kept else x`) on a list of tensors: a test of its length
    (see FileReach.truth_is_length)."""
    if not isinstance(operand, cst.Name) or ctx.traced is None:
        return False
    statement = _statement_holding(ctx.traced.func, node) if isinstance(node, cst.IfExp) else node
    return isinstance(statement, (cst.If, cst.While, cst.BaseSmallStatement)) and ctx.program.truth_is_length(
        ctx.traced.func, statement, operand.value
    )


def _statement_holding(func: cst.FunctionDef, node: cst.CSTNode) -> cst.CSTNode | None:
    """The statement whose line or header holds `node`: the last statement before it in the
    body's walk (a header's expressions come before the body it guards)."""
    holding = None
    for inner in body_nodes(func.body):
        if inner is node:
            return holding
        if isinstance(inner, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            holding = inner
    return None


def branch_rewrite(ctx: RuleContext, node: cst.CSTNode) -> Rewrite | None:
    """A validation branch becomes a runtime check, a guard skipping writes through an empty
    selection goes; any other `if` becomes a torch.cond."""
    if ctx.flow is None or ctx.traced is None or not isinstance(node, cst.If):
        return None
    return (check_rewrite(ctx.flow, node) or empty_guard_rewrite(ctx.flow, ctx.traced.func, node, _integer(ctx))
            or cond_rewrite(ctx.flow, ctx.traced.func, node))


def _integer(ctx: RuleContext) -> Callable[[cst.BaseExpression], int | None]:
    """The int an expression always holds: through the input-size model in a model's own
    `forward` (names bound once, helpers, `self.k` as `__init__` sets it), else a literal, also
    as a one-line helper returns it."""
    sizes = ctx.sizes()
    if sizes is not None:
        return sizes.integer
    flow = ctx.flow

    def literal(expr: cst.BaseExpression) -> int | None:
        inlined = flow.inlined(expr) if flow is not None and isinstance(expr, cst.Call) else None
        return integer_literal(inlined if inlined is not None else expr)
    return literal


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _bound(comparison: cst.BaseExpression) -> tuple[str, str, int] | None:
    """`checked OP integer` (either way round) as (checked's code, op, integer), where `checked` is
    a name or a size read (`n`, `b.shape[0]`, `b.numel()`, `len(b)`), else None."""
    if not isinstance(comparison, cst.Comparison) or len(comparison.comparisons) != 1:
        return None
    target = comparison.comparisons[0]
    op = code_of(target.operator).strip()
    left, right = comparison.left, target.comparator
    if op not in _FLIPPED:
        return None
    if isinstance(left, _CHECKABLE) and isinstance(right, cst.Integer):
        return code_of(left), op, int(right.evaluated_value)
    if isinstance(right, _CHECKABLE) and isinstance(left, cst.Integer):
        return code_of(right), _FLIPPED[op], int(left.evaluated_value)
    return None


#: what a `torch._check` bounds: a name, or a size read from a tensor
_CHECKABLE = (cst.Name, cst.Subscript, cst.Call, cst.Attribute)


def _data_sizes_read(ctx: RuleContext, operand: cst.BaseExpression) -> list[str]:
    """The code of each data-dependent size `operand` reads whole (`sel.shape[0]`, `n`, `len(sel)`)."""
    found: list[str] = []
    stack = [operand]
    while stack:
        node = stack.pop()
        if isinstance(node, _CHECKABLE) and ctx.value(node).has(Kind.DD_SIZE):
            found.append(code_of(node))
        elif isinstance(node, (cst.Comparison, cst.BinaryOperation, cst.UnaryOperation, cst.ComparisonTarget)):
            stack.extend(child for child in node.children if isinstance(child, cst.BaseExpression | cst.ComparisonTarget))
    return found


class _Checked(cst.CSTTransformer):
    """`operand` with each bounded size read (`b.shape[0]`) replaced by a name standing for it."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        if isinstance(original, (cst.Subscript, cst.Call, cst.Attribute)):
            name = self.names.get(code_of(original))
            if name is not None:
                return cst.Name(name)
        return updated


def decided_by_checks(ctx: RuleContext, operand: cst.BaseExpression, sizes_of_data: bool = False) -> bool:
    """Whether `torch._check(n <= 5)`-style assertions before `operand` in the traced function
    settle it (`n < 6`, `n * 2 < 11`, `m < 7` after `m = n + 1`; `b.shape[0] == 0` after
    `torch._check(b.shape[0] > 0)`): export then knows the answer without a guard (measured:
    ExportDB's `constrain_as_value_example` and these variants export on 2.13). `sizes_of_data`:
    the sizes `operand` reads are data-dependent sizes, which torch knows are at least 0 (measured:
    `if x[mask].shape[0] >= 0:` exports in both modes, `> 0` fails)."""
    if ctx.traced is None:
        return False
    bounds: dict[str, tuple[float, float]] = (
        dict.fromkeys(_data_sizes_read(ctx, operand), (0, math.inf)) if sizes_of_data else {}
    )
    for node, _ in ctx.program.nodes(ctx.traced.func):
        if node is operand:
            break  # a check after the test does not decide it
        if not isinstance(node, cst.Call) or not node.args:
            continue
        api = ctx.resolve(node.func)
        first = node.args[0].value
        if api == "torch._check_is_size" and isinstance(first, _CHECKABLE):
            low, high = bounds.get(code_of(first), (-math.inf, math.inf))
            bounds[code_of(first)] = (max(low, 0), high)
        elif api == "torch._check" and (bound := _bound(first)) is not None:
            checked, check_op, limit = bound
            low, high = bounds.get(checked, (-math.inf, math.inf))
            if check_op in (">=", "=="):
                low = max(low, limit)
            if check_op == ">":
                low = max(low, limit + 1)
            if check_op in ("<=", "=="):
                high = min(high, limit)
            if check_op == "<":
                high = min(high, limit - 1)
            bounds[checked] = (low, high)
    if not bounds:
        return False
    stand_ins = {code: f"_checked_{i}" for i, code in enumerate(bounds) if not code.isidentifier()}
    if stand_ins:
        operand = operand.visit(_Checked(stand_ins))  # type: ignore[assignment]
        bounds = {stand_ins.get(code, code): bound for code, bound in bounds.items()}
    values = Sizes(ctx.traced.func, frozenset(bounds))
    read = values.leaves_read(operand)
    if read is None or len(read) != 1:
        return False
    (name,) = read
    low, high = bounds[name]
    return constant_over(operand, values, name, low, high) is True
