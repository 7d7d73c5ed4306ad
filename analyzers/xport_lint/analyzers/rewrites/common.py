"""What the rewrites share: the names a block reads and writes, statements built from text,
the returns of a branch."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from ..dataflow import all_params
from ..model import Applicability
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from ..walk import children, visit

COND_SAFETY = "assumes side-effect-free branches returning tensors of one rank and dtype"
CHECK_SAFETY = "raises RuntimeError instead of the original exception"
INVERSE = {
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


class Usage(cst.CSTVisitor):
    """Names a piece of code reads and binds, and the first thing in it that a traced branch
    or loop body cannot contain (the reason a rewrite would not be faithful)."""

    def __init__(self, skip: cst.CSTNode | Sequence[cst.CSTNode] | None = None) -> None:
        self.skip = {id(n) for n in (skip if isinstance(skip, Sequence) else [skip] if skip else [])}
        self.loaded: list[str] = []
        self.stored: list[str] = []
        self.problem: str | None = None
        self.returns = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.skip and super().on_visit(node)

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
            elif name in ("append", "extend", "update", "pop", "insert", "register_buffer") and not (
                isinstance(func.value, cst.Name) and func.value.value == "self" and name != "register_buffer"
            ):  # `self.update(x)` calls a submodule
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


def usage_of(nodes: Iterable[cst.CSTNode], skip: cst.CSTNode | Sequence[cst.CSTNode] | None = None) -> Usage:
    usage = Usage(skip)
    for node in nodes:
        visit(node, usage)
    return usage


def bound_before(func: cst.FunctionDef, stop: cst.CSTNode) -> list[str]:
    """Names bound in `func` before `stop` is reached (parameters first, then source order)."""
    bound = [p.name.value for p in all_params(func.params)]
    finder = BoundBefore(stop)
    visit(func.body, finder)
    return bound + [n for n in finder.usage.stored if n not in bound]


class BoundBefore(cst.CSTVisitor):
    def __init__(self, stop: cst.CSTNode) -> None:
        self.stop = stop
        self.done = False
        self.usage = Usage()

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


def enclosing_loop(func: cst.FunctionDef, node: cst.CSTNode) -> cst.For | cst.While | None:
    """The loop whose body holds `node` directly (not inside a nested block), or None."""
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.For, cst.While)) and isinstance(current.body, cst.IndentedBlock):
            if any(stmt is node for stmt in current.body.body):
                return current
        stack.extend(c for c in children(current) if not isinstance(c, cst.BaseExpression))
    return None


def parent_block(func: cst.FunctionDef, node: cst.CSTNode) -> tuple[Sequence[cst.BaseStatement], int] | None:
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


# -- effects export drops -------------------------------------------------------------------

_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def dropped_effect(call: cst.BaseExpression) -> bool:
    """`print(...)`, `warnings.warn(...)`, `logger.info(...)`: what an exported program drops."""
    if not isinstance(call, cst.Call):
        return False
    func = call.func
    if isinstance(func, cst.Name):
        return func.value == "print"
    if isinstance(func, cst.Attribute) and func.attr.value in _LOG_METHODS | {"warn"}:
        owner = code_of(func.value).lower()
        return owner == "warnings" or "log" in owner
    return False


def effects_only(stmts: Sequence[cst.BaseStatement]) -> bool:
    """Whether `stmts` only print, warn or log (an empty `else` counts: it does nothing)."""
    for stmt in stmts:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if not (isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and dropped_effect(small.value))):
                return False
    return True


def guard_rewrite(stmt: cst.BaseStatement) -> Rewrite:
    """`stmt` under `if not torch.compiler.is_exporting():` (measured in both modes: export
    traces the guard as False and skips the statement; eager runs it as before)."""
    guarded = cst.If(
        test=cst.parse_expression("not torch.compiler.is_exporting()"),
        body=cst.IndentedBlock(body=[stmt.with_changes(leading_lines=[])]),
        leading_lines=stmt.leading_lines,
    )
    return Rewrite(
        fix=FixProposal(
            "Run it in eager only (skip it while exporting)", Applicability.SAFE, (), imports=("torch",),
            blocks=(BlockReplacement(stmt, stmt, (guarded,)),),
        )
    )


# -- building the replacement ----------------------------------------------------------------


def function_def(
    name: str, params: Sequence[str], body: Sequence[cst.BaseStatement], comment: str = ""
) -> cst.FunctionDef:
    header = cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  " if comment else ""),
        comment=cst.Comment(comment) if comment else None,
    )
    return cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters(params=[cst.Param(cst.Name(p)) for p in params]),
        body=cst.IndentedBlock(body=list(body), header=header),
    )


def statement_of(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code + "\n")


def tuple_text(names: Sequence[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def comment_of(block: cst.BaseSuite) -> str:
    if isinstance(block, cst.IndentedBlock) and block.header.comment is not None:
        return block.header.comment.value
    return ""


def strip_leading(stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """The first statement of a new function body needs no blank lines above it."""
    out = list(stmts)
    if out and out[0].leading_lines and not any(line.comment for line in out[0].leading_lines):
        out[0] = out[0].with_changes(leading_lines=())
    return out


class CloneOperands(cst.CSTTransformer):
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
            return value.with_changes(elements=[e.with_changes(value=self._clone(e.value)) for e in value.elements])
        return value


def aliases(stmts: Sequence[cst.BaseStatement], operands: Sequence[str]) -> set[str]:
    """Operands, and names a branch binds to an operand as is (`y = x`): returned, they alias it."""
    out = set(operands)
    for stmt in stmts:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Name) and small.value.value in out:
                out |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
    return out


def clone_returns(stmts: Sequence[cst.BaseStatement], operands: set[str]) -> list[cst.BaseStatement]:
    transformer = CloneOperands(operands)
    return [s.visit(transformer) for s in stmts]  # type: ignore[misc]


def ends_in_return(stmts: Sequence[cst.BaseStatement]) -> bool:
    last = stmts[-1] if stmts else None
    return (
        isinstance(last, cst.SimpleStatementLine)
        and isinstance(last.body[-1], cst.Return)
        and last.body[-1].value is not None
    )


def returned(stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseExpression]:
    out = []
    for stmt in stmts:
        for node in return_nodes(stmt):
            if node.value is not None:
                out.append(node.value)
    return out


def return_nodes(stmt: cst.CSTNode) -> Iterable[cst.Return]:
    if isinstance(stmt, cst.Return):
        yield stmt
    elif isinstance(stmt, cst.FunctionDef | cst.Lambda | cst.ClassDef):
        return
    else:
        for child in stmt.children:
            yield from return_nodes(child)


# -- torch.cond -------------------------------------------------------------------------------
