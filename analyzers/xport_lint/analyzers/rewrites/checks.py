"""A validation branch (`if bad: raise`) as `torch._check` / `torch._assert_async`."""

from __future__ import annotations

import libcst as cst

from ..dataflow import FunctionFlow
from ..model import Applicability
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from .common import CHECK_SAFETY, INVERSE, Rewrite, comment_of, statement_of
from .predicates import tensor_predicate


def _negate(test: cst.BaseExpression) -> str:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return code_of(test.expression)
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
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    predicate = tensor_predicate(flow, test.expression if negated else test)  # type: ignore[attr-defined]
    if predicate is not None:
        message = ""
        if isinstance(raised.exc, cst.Call) and raised.exc.args and raised.exc.args[0].keyword is None:
            message = ", " + code_of(raised.exc.args[0].value)
        condition = code_of(predicate) if negated else f"torch.logical_not({code_of(predicate)})"
        statement = statement_of(f"torch._assert_async({condition}{message})")
        comment = comment_of(node.body)
    else:
        # strict export rejects torch._check's message callable: the raise is kept as a comment
        statement = statement_of(f"torch._check({_negate(node.test)})")
        kept = " ".join(code_of(raised).split())  # a comment is one line
        comment = " ".join(filter(None, [f"# was: {kept}", comment_of(node.body)]))
    if comment and isinstance(statement, cst.SimpleStatementLine):
        statement = statement.with_changes(
            trailing_whitespace=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(comment)
            )
        )
    return Rewrite(
        fix=FixProposal(
            f"Replace the branch with a runtime check ({CHECK_SAFETY})",
            Applicability.UNSAFE,
            (),
            imports=("torch",),
            blocks=(BlockReplacement(node, node, (statement,)),),
        )
    )


# -- strict=False at the export calls ----------------------------------------------------------
