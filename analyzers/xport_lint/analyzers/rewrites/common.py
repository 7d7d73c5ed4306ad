"""What the rewrites share: the names a block reads and writes, the names a rewrite may
introduce, statements built from text, the returns of a branch."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from ..dataflow import FunctionFlow, all_params
from ..fact_store import PerStatement
from ..model import Applicability
from ..names import dotted
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


# -- the names a rewrite introduces ----------------------------------------------------------


@dataclass(frozen=True)
class Names:
    """What a rewrite may call the things it introduces in one file: a name is fresh when no
    scope of the file reads or binds it (module, classes, functions, nested functions, imports),
    so a new `def true_fn` can neither shadow the user's own `true_fn` nor be shadowed by it;
    `torch` is how the new code reaches the torch module: a name only ever bound to it."""

    #: every identifier the file reads or binds anywhere (attribute names excepted)
    taken: frozenset[str]
    #: the name the emitted code calls torch by (`torch`, the file's `T`, or a fresh alias)
    torch: str = "torch"
    #: what the fix imports for that name (`torch`, `torch as torch_1`), or None: already bound
    torch_import: str | None = "torch"

    def fresh(self, *bases: str) -> list[str]:
        """One name per base, none of them taken nor equal to each other: `base`, else
        `base_1`, `base_2`, ..."""
        out: list[str] = []
        for base in bases:
            out.append(next(
                name for name in itertools.chain([base], (f"{base}_{n}" for n in itertools.count(1)))
                if name not in self.taken and name not in out and name != self.torch
            ))
        return out

    @property
    def imports(self) -> tuple[str, ...]:
        return (self.torch_import,) if self.torch_import else ()


class _ScopeScan(cst.CSTVisitor):
    """Every identifier of a file, and which names are bound to torch by an import and never
    rebound: a name's occurrence other than as the base of an attribute (`torch.cond`) or in
    such an import counts as a possible rebinding (a local tensor named `torch`, a parameter,
    `from x import torch`)."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.other_use: set[str] = set()
        #: names bound to torch by an import outside any function or class
        self.module_torch: list[str] = []
        self.torch_bound: set[str] = set()
        self.depth = 0

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = dotted(alias.name) or ""
            asname = alias.asname.name if alias.asname is not None else None
            bound = asname.value if isinstance(asname, cst.Name) else full.split(".")[0]
            self.taken.add(bound)
            if (full == "torch") if asname is not None else bound == "torch":
                self.torch_bound.add(bound)
                if not self.depth:
                    self.module_torch.append(bound)
            else:
                self.other_use.add(bound)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        # `from torch import nn` binds `nn`, not `torch`
        if node.module is not None:
            self.taken.update((dotted(node.module) or "").split("."))
        for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
            asname = alias.asname.name if alias.asname is not None else None
            bound = asname.value if isinstance(asname, cst.Name) else dotted(alias.name) or ""
            self.taken.add(bound)
            self.other_use.add(bound)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if isinstance(node.value, cst.Name):
            self.taken.add(node.value.value)
        else:
            visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.taken.add(node.value)
        self.other_use.add(node.value)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # exact types, not libcst's `visit_<name>` lookup by string per node (every node of a file
        # with a fix passes here: about 5 % of a profiled cold check)
        node_type = type(node)
        if node_type is cst.Name:
            self.visit_Name(node)  # type: ignore[arg-type]
            return True
        if node_type is cst.Attribute:
            return self.visit_Attribute(node)  # type: ignore[arg-type]
        if node_type is cst.Import:
            return self.visit_Import(node)  # type: ignore[arg-type]
        if node_type is cst.ImportFrom:
            return self.visit_ImportFrom(node)  # type: ignore[arg-type]
        if node_type is not cst.FunctionDef and node_type is not cst.ClassDef:
            return True
        self.depth += 1  # an import in here binds a local (or a class attribute), not the module's name
        for child in children(node):
            visit(child, self)
        self.depth -= 1
        return False


def _scan_statement(statement: cst.CSTNode) -> _ScopeScan:
    scan = _ScopeScan()
    visit(statement, scan)
    return scan


#: each top-level statement's scan, kept while the statement is unchanged (an editor's edit
#: scans only the statements it touched)
_STATEMENT_SCANS = PerStatement(_scan_statement)


def names_of(module: cst.Module) -> Names:
    """The `Names` fact of a file (see `Names`): its top-level statements' scans, in order."""
    scan = _ScopeScan()
    for statement in module.body:
        part = _STATEMENT_SCANS(statement)
        scan.taken |= part.taken
        scan.other_use |= part.other_use
        scan.module_torch.extend(part.module_torch)
        scan.torch_bound |= part.torch_bound
    taken = frozenset(scan.taken)
    clean = [n for n in scan.module_torch if n not in scan.other_use]
    if clean:
        return Names(taken, "torch" if "torch" in clean else clean[0], None)
    if "torch" not in scan.other_use and "torch" not in scan.torch_bound:
        return Names(taken, "torch", "torch")  # `torch` is free (or only `torch.x`, never imported)
    alias = Names(taken, "").fresh("torch")[0]
    return Names(taken, alias, f"torch as {alias}")


#: each file's `Names`, computed once (the rewrites of one file ask for them many times)
_MODULE_NAMES: PerStatement[Names] = PerStatement(names_of)  # type: ignore[arg-type]


def module_names(module: cst.Module) -> Names:
    """The `Names` fact of `module`, computed once per file."""
    return _MODULE_NAMES(module)


def scope_names(flow: FunctionFlow) -> Names:
    """The `Names` fact of the file holding `flow`'s function."""
    module = getattr(flow.resolver, "module", None)  # the file's `Program`
    return module_names(module) if isinstance(module, cst.Module) else names_of(cst.Module(body=[flow.func]))


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


def read_before_assigned(stmts: Sequence[cst.BaseStatement], name: str) -> bool:
    """Whether running `stmts` may read `name` before assigning it: what a function made of them
    must take as an argument. A compound statement that touches it counts as a read (a branch
    may leave it as it was)."""
    for stmt in stmts:
        usage = usage_of([stmt])
        if name in usage.loaded or (name in usage.stored and not isinstance(stmt, cst.SimpleStatementLine)):
            return True
        if name in usage.stored:
            return False
    return False


# -- what code moved into a new function may not do with the names it shares ------------------

#: calls that return a new tensor, never a view of or the same object as an argument
_NEW_OBJECT_CALLS = frozenset({
    "abs", "add", "amax", "amin", "arange", "cat", "ceil", "clamp", "clone", "cos", "cumprod", "cumsum", "div",
    "empty", "empty_like", "exp", "floor", "full", "full_like", "linspace", "log", "log1p", "log_softmax", "matmul",
    "mean", "mul", "neg", "new_empty", "new_full", "new_ones", "new_tensor", "new_zeros", "norm", "ones",
    "ones_like", "pow", "prod", "rand", "rand_like", "randint", "randn", "randn_like", "reciprocal", "relu",
    "round", "rsqrt", "sigmoid", "sin", "softmax", "sqrt", "square", "stack", "std", "sub", "sum", "tanh",
    "tensor", "var", "where", "zeros", "zeros_like",
})


def new_object(expr: cst.BaseExpression) -> bool:
    """Whether `expr` evaluates to an object no other name refers to: a number or string
    literal (immutable), arithmetic (a new tensor), or a call known to allocate (`torch.zeros`,
    `x.clone()`, `x.sum()`). Views (`x[0]`, `x.view(...)`), `.to()`, submodule calls (an
    `nn.Identity` returns its input, an in-place `nn.ReLU` its argument) and names are not."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return new_object(expr.expression) or isinstance(expr.operator, (cst.Minus, cst.BitInvert))
    if isinstance(expr, cst.BinaryOperation):
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        inplace = any(a.keyword is not None and a.keyword.value == "inplace" for a in expr.args)
        # `self.relu(x)` calls a submodule, which may be `nn.ReLU(inplace=True)`
        submodule = (dotted(expr.func.value) or "").split(".")[0] == "self"
        return expr.func.attr.value in _NEW_OBJECT_CALLS and not inplace and not submodule
    return False


def declared_outer(func: cst.FunctionDef) -> dict[str, str]:
    """Names `func` declares `global` or `nonlocal` -> which of the two."""
    out: dict[str, str] = {}

    class Declared(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is func

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Global(self, node: cst.Global) -> None:
            out.update((item.name.value, "global") for item in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            out.update((item.name.value, "nonlocal") for item in node.names)

    visit(func, Declared())
    return out


class _InOrder(cst.CSTVisitor):
    """Walks code moved into a new function in the order it runs, for what would change
    meaning there: assigning a name the enclosing function declares `global`/`nonlocal` (the
    declaration does not carry over, and torch's control-flow ops refuse the side effect),
    reading a name before the code binds it (it becomes a local of the new function), and an
    augmented assignment (`y += 1`, in place on a tensor) to a name the code did not bind to a
    new object itself (an operand: torch's control-flow ops refuse mutating their inputs)."""

    def __init__(
        self, params: Iterable[str], stored: Iterable[str], declared: dict[str, str], out_of_place: Iterable[str]
    ) -> None:
        self.params = set(params)
        self.stored = set(stored)
        self.declared = declared
        self.out_of_place = set(out_of_place)
        #: names bound so far -> whether to an object nothing else refers to
        self.bound: dict[str, bool] = {}
        self.problem: str | None = None

    def _flag(self, problem: str) -> None:
        self.problem = self.problem or problem

    def _bind(self, target: cst.BaseExpression, new: bool) -> None:
        if isinstance(target, cst.Name):
            if target.value in self.declared:
                kind = self.declared[target.value]
                self._flag(f"it assigns `{target.value}`, declared `{kind}` (a side effect)")
            self.bound[target.value] = new
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, False)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, False)
        else:
            visit(target, self)  # `y[i] = v` reads `y` and `i`

    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        if name in self.stored and name not in self.bound and name not in self.params:
            self._flag(f"it reads `{name}` before assigning it, and `{name}` is not a tensor to pass in")

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)
        return False

    def visit_Assign(self, node: cst.Assign) -> bool:
        visit(node.value, self)
        for target in node.targets:
            self._bind(target.target, len(node.targets) == 1 and new_object(node.value))
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            visit(node.value, self)
            self._bind(node.target, new_object(node.value))
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        visit(node.value, self)
        target = node.target
        if not isinstance(target, cst.Name):
            visit(target, self)
            return False
        name = target.value
        written = f"`{name} {code_of(node.operator).strip()} ...`"
        if name in self.declared:
            self._flag(f"it assigns `{name}`, declared `{self.declared[name]}` (a side effect)")
        elif not self.bound.get(name) and name not in self.out_of_place:
            if name in self.params or name in self.bound:
                self._flag(f"{written} changes `{name}` in place, and it is an input there")
            else:
                self._flag(f"{written} rebinds `{name}`, which it did not assign")
        return False

    def visit_For(self, node: cst.For) -> bool:
        visit(node.iter, self)
        self._bind(node.target, False)
        visit(node.body, self)
        if node.orelse is not None:
            visit(node.orelse, self)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bound[node.name.value] = False
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bound[node.name.value] = False
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def moved_code_problem(
    stmts: Sequence[cst.BaseStatement], params: Iterable[str], declared: dict[str, str],
    out_of_place: Iterable[str] = (),
) -> str | None:
    """Why `stmts`, moved into a new function taking `params`, would not do what they did in
    place (see `_InOrder`), or None. `out_of_place`: names whose `+=` the caller rewrites as
    `y = y + ...` (it has shown that equal to eager)."""
    walker = _InOrder(params, usage_of(stmts).stored, declared, out_of_place)
    for stmt in stmts:
        visit(stmt, walker)
    return walker.problem


def only_new_objects(func: cst.FunctionDef, name: str) -> bool:
    """Whether `name` is, everywhere in `func`, only bound to a new object (not a parameter, not
    unpacked) and never bound to another name or put in a literal container (`g = h`,
    `pair = (h, c)`): then nothing else sees `h += v` change it in place, and `h = h + v`
    computes the same."""
    if name in {p.name.value for p in all_params(func.params)}:
        return False
    ok = True

    class Bindings(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            nonlocal ok
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    ok = ok and len(node.targets) == 1 and new_object(node.value)
                elif name in usage_of([target]).stored:
                    ok = False
            if _refers(node.value, name):
                ok = False

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            nonlocal ok
            if node.value is not None and (_refers(node.value, name) or code_of(node.target) == name):
                ok = ok and new_object(node.value) and not _refers(node.value, name)

        def visit_For(self, node: cst.For) -> None:
            nonlocal ok
            if name in usage_of([node.target]).loaded:
                ok = False

    visit(func.body, Bindings())
    return ok


def _refers(value: cst.BaseExpression, name: str) -> bool:
    """`name` itself, or a literal tuple/list/set/dict holding it."""
    if isinstance(value, cst.Name):
        return value.value == name
    if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        return any(_refers(e.value, name) for e in value.elements)
    if isinstance(value, cst.Dict):
        return any(isinstance(e, cst.DictElement) and _refers(e.value, name) for e in value.elements)
    return False


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


def guard_rewrite(stmt: cst.BaseStatement, names: Names | None = None) -> Rewrite:
    """`stmt` under `if not torch.compiler.is_exporting():` (measured in both modes: export
    traces the guard as False and skips the statement; eager runs it as before). `names`: the
    file's (see `Names`); without them, torch is called `torch`."""
    names = names or Names(frozenset())
    guarded = cst.If(
        test=cst.parse_expression(f"not {names.torch}.compiler.is_exporting()"),
        body=cst.IndentedBlock(body=[stmt.with_changes(leading_lines=[])]),
        leading_lines=stmt.leading_lines,
    )
    return Rewrite(
        fix=FixProposal(
            "Run it in eager only (skip it while exporting)", Applicability.SAFE, (), imports=names.imports,
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


def receiver(expr: cst.BaseExpression) -> str:
    """`expr`'s code as the receiver of a method call or an operand: its own parentheses dropped,
    parenthesised unless it is a name, an attribute, a call or a subscript."""
    inner = expr.with_changes(lpar=[], rpar=[])
    simple = isinstance(inner, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    return code_of(inner) if simple else f"({code_of(inner)})"


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
        if self._view(value):
            # `return x[0]`, `return x.view(-1)`: a view of an operand aliases it as well (torch
            # 2.13: "Encountered aliasing during higher order op tracing")
            return cst.Call(cst.Attribute(value, cst.Name("clone")))
        if isinstance(value, cst.Tuple):
            return value.with_changes(elements=[e.with_changes(value=self._clone(e.value)) for e in value.elements])
        return value


    def _view(self, value: cst.BaseExpression) -> bool:
        """A subscript or a view method of an operand (or of a view of one)."""
        if isinstance(value, cst.Subscript):
            base = value.value
        elif (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _VIEW_METHODS
        ):
            base = value.func.value
        else:
            return False
        return (isinstance(base, cst.Name) and base.value in self.operands) or self._view(base)


#: tensor methods whose result shares its input's storage
_VIEW_METHODS = frozenset({
    "view", "view_as", "reshape", "transpose", "t", "permute", "squeeze", "unsqueeze", "expand", "expand_as",
    "narrow", "select", "flatten", "unflatten", "detach", "contiguous", "chunk", "split", "unbind",
})


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
