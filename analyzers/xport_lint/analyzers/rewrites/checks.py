"""A validation branch (`if bad: raise`) as `torch._check` / `torch._assert_async`."""

from __future__ import annotations

import libcst as cst

from ..dataflow import FunctionFlow
from ..model import Applicability
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from ..walk import iter_nodes
from .common import CHECK_SAFETY, INVERSE, Rewrite, comment_of, scope_names, statement_of
from .predicates import data_bindings, guard_problem, is_guard, tensor_predicate, uncarried


def _negate(test: cst.BaseExpression, torch: str) -> str:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return code_of(test.expression)
    if isinstance(test, (cst.Name, cst.Attribute)):
        # `bad = count == 0; if bad: raise`: `not bad` would ask for the value (a guard on data);
        # `torch.sym_not` keeps it symbolic (measured on torch 2.13: exports in both modes and
        # the check raises at run time), and is `not` of a Python bool
        return f"{torch}.sym_not({code_of(test)})"
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        inverse = INVERSE.get(type(test.comparisons[0].operator))
        if inverse is not None:
            compared = test.comparisons[0]
            negated = test.with_changes(comparisons=[compared.with_changes(operator=inverse())], lpar=(), rpar=())
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


def check_rewrite(flow: FunctionFlow, node: cst.If) -> Rewrite | None:
    """`if bad: raise E(msg)` -> `torch._check(not bad)` (or `torch._assert_async` for a test
    on tensors, conversions like `int(t)` dropped): export keeps the check as a runtime
    assertion instead of branching. None when the `if` is not a validation branch."""
    raised = raised_by(node)
    if raised is None:
        return None
    test = node.test
    # `if mask is not None and bad(mask): raise`: the check of `bad` stays under the guard
    guard = None
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and is_guard(test.left):
        guard, test = test.left, test.right
    problem = guard_problem(test)
    if problem:
        return Rewrite(reason=problem)
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    names = scope_names(flow)
    torch = names.torch
    # `count = int(mask.sum())` (or `value = int(ids.max()) >= k`) bound before the test: a
    # conversion export cannot carry as a symbol stays behind unless the names read only by the
    # check become the tensors they were read from (`t.item()` it carries: that stays a number)
    bound = data_bindings(flow, flow.func, [node])
    if not any(uncarried(flow, value) for value, _ in bound.values()):
        bound = {}
    predicate = tensor_predicate(flow, test.expression if negated else test, bound, torch)  # type: ignore[attr-defined]
    kept = " ".join(code_of(raised).split())  # a comment is one line
    exc = raised.exc
    literal = (
        exc.args[0].value if isinstance(exc, cst.Call) and exc.args and exc.args[0].keyword is None else None
    )
    if predicate is not None:
        condition = code_of(predicate) if negated else f"{torch}.logical_not({code_of(predicate)})"
        # a message that formats values would be computed while tracing: only a plain string stays
        if isinstance(literal, (cst.SimpleString, cst.ConcatenatedString)):
            statement = statement_of(f"{torch}._assert_async({condition}, {code_of(literal)})")
            comment = comment_of(node.body)
        else:
            statement = statement_of(f"{torch}._assert_async({condition})")
            comment = " ".join(filter(None, [f"# was: {kept}", comment_of(node.body)]))
    else:
        # strict export rejects torch._check's message callable: the raise is kept as a comment
        # `if _h(count == 0):`: a one-line helper's `return`, read at the call, negated as written
        seen = (flow.inlined(test) if isinstance(test, cst.Call) else None) or test
        statement = statement_of(f"{torch}._check({_negate(seen.with_changes(lpar=[], rpar=[]), torch)})")
        comment = " ".join(filter(None, [f"# was: {kept}", comment_of(node.body)]))
    if comment and isinstance(statement, cst.SimpleStatementLine):
        statement = statement.with_changes(
            trailing_whitespace=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(comment)
            )
        )
    if guard is not None:
        statement = cst.If(test=guard, body=cst.IndentedBlock(body=[statement]))
    return Rewrite(
        fix=FixProposal(
            f"Replace the branch with a runtime check ({CHECK_SAFETY})",
            Applicability.UNSAFE,
            tuple(bound.values()),
            imports=names.imports,
            blocks=(BlockReplacement(node, node, (statement,)),),
        )
    )


def assert_rewrite(flow: FunctionFlow, node: cst.Assert | cst.Call, test: cst.BaseExpression) -> Rewrite:
    """`assert n > 0, msg` (or `torch._assert(n > 0, msg)`) of a number read from data ->
    `torch._check(n > 0)`: export fails on such an assert (measured on torch 2.13) and keeps
    `torch._check` as a runtime check (exports in both modes). Its message goes: strict export
    rejects `torch._check`'s message callable."""
    problem = guard_problem(test)
    if problem:
        return Rewrite(reason=problem)
    if asks_the_value(test):
        # measured on torch 2.13: `torch._check(not n > 0)` fails non-strict export (`not` asks the value)
        return Rewrite(reason="`not`, `and`, `or` and a chained comparison ask for the value inside `torch._check` too")
    names = scope_names(flow)
    check = cst.parse_expression(f"{names.torch}._check({code_of(test.with_changes(lpar=[], rpar=[]))})")
    return Rewrite(
        fix=FixProposal(
            f"Replace the assert with a runtime check ({CHECK_SAFETY})",
            Applicability.UNSAFE,
            ((node, cst.Expr(check) if isinstance(node, cst.Assert) else check),),
            imports=names.imports,
        )
    )


def asks_the_value(test: cst.BaseExpression) -> bool:
    """`test` holds `not`, `and`, `or` or a chained comparison (`0 <= p < 1`, an `and`): each asks
    Python for the truth of a part. Measured on torch 2.13: an `assert` on a read number with such
    a test fails export in both modes, whatever its message, where one comparison with no message
    (non-strict) or a literal one (strict) is kept as a runtime assertion."""
    return any(
        isinstance(n, cst.BooleanOperation) or _is_not(n) or (isinstance(n, cst.Comparison) and len(n.comparisons) > 1)
        for n in iter_nodes(test)
    )


def _is_not(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)


# -- strict=False at the export calls ----------------------------------------------------------
