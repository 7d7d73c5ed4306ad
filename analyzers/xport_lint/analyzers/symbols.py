"""Layer 1 of a file's analysis, symbols: what the file names. Imports (made absolute), its
functions (and which are one-line helpers a call can be read through), its classes and which of
them are `nn.Module`s (with what the project index says), what each module's `__init__` assigns
to `self`, its loggers. Nothing here knows what is traced.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from .dataflow import NOTHING, Kind, Value, all_params, walk_statements
from .fact_store import PerStatement
from .index import EMPTY_CONTEXT, NOT_MODULE_BASES, FileContext, Scalar, absolute_import
from .names import ImportTable, dotted, is_standard_library
from .syntax import UNKNOWN, literal_value
from .walk import body_nodes, iter_nodes, with_statements


@dataclass
class ModuleClass:
    node: cst.ClassDef
    bases: list[str]
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: `self.x` kinds learned from `__init__` (submodules, buffers, parameters)
    attributes: dict[str, Value] = field(default_factory=dict)
    #: `self.x = x` for an `__init__` argument defaulting to None (`retriever=None`)
    optional_attributes: set[str] = field(default_factory=set)


def _constant_value(node: cst.BaseExpression) -> Scalar | tuple[Scalar, ...] | None:
    """A literal, or a tuple display of literals, as a Python value (None: neither)."""
    if isinstance(node, cst.Tuple):
        parts = [literal_value(e.value) if isinstance(e, cst.Element) else UNKNOWN for e in node.elements]
        return None if any(part is UNKNOWN for part in parts) else tuple(parts)  # type: ignore[arg-type]
    value = literal_value(node)
    return None if value is UNKNOWN or value is None else value  # type: ignore[return-value]


#: the bases that make a class an Enum, and those whose members equal their values
#: container methods `__init__` adds submodules with (`self.layers.append(Block(dim))`)
_ADDING_METHODS = frozenset({"append", "insert", "extend", "add_module", "register_module"})
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
_VALUE_ENUM_BASES = frozenset({"enum.IntEnum", "enum.StrEnum", "enum.IntFlag", "str", "int"})


@dataclass(frozen=True)
class EnumMember:
    """A member of a plain Enum class of the file: equal only to itself, not to its value."""

    enum: str
    name: str
    value: Scalar


#: names every module reads without binding or importing them
BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class OneLineHelper:
    """A module-level function whose body is one `return` (a docstring aside), with positional
    parameters only and no defaults: a call of it reads as its returned expression with the
    arguments in place of the parameters (`_rows(x)` of `def _rows(t): return t.shape[0]` is
    `x.shape[0]`). The dataflow, the size reader and the export sites all see through calls by it."""

    params: tuple[str, ...]
    returned: cst.BaseExpression
    #: the other names the expression reads (globals of its module, builtins), which a caller's
    #: own names must not shadow; None: it opens a scope of its own (a lambda, a comprehension,
    #: `:=`), so it is never written at a call
    free: frozenset[str] | None

    @classmethod
    def of(cls, func: cst.FunctionDef) -> OneLineHelper | None:
        """`func` as a one-line helper, or None where it is not one."""
        body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
        statements = [s for s in body if not _is_docstring(s)]
        if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
            return None
        returned = statements[0].body[0] if len(statements[0].body) == 1 else None
        if not isinstance(returned, cst.Return) or returned.value is None:
            return None
        params = func.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg or params.kwonly_params:
            return None
        names = tuple(p.name.value for p in (*params.posonly_params, *params.params) if p.default is None)
        if len(names) != len(params.posonly_params) + len(params.params):
            return None
        return cls.from_text(names, returned.value)

    @classmethod
    def from_text(cls, params: tuple[str, ...], returned: cst.BaseExpression | str) -> OneLineHelper:
        """The helper with these parameters returning `returned` (as written in another file's
        summary: `text()`)."""
        expr = cst.parse_expression(returned) if isinstance(returned, str) else returned
        reads = _Substitute({})
        expr.visit(reads)
        return cls(params, expr, None if reads.refused else frozenset(reads.free - set(params)))

    @property
    def portable(self) -> bool:
        """It reads nothing but its parameters and builtins: a file that imports it can write it
        at a call as it is (what the project index carries to other files)."""
        return self.free is not None and self.free <= BUILTIN_NAMES

    def text(self) -> str:
        return cst.Module([]).code_for_node(self.returned)

    def at(self, call: cst.Call) -> cst.BaseExpression | None:
        """The returned expression written at `call` (an argument returned as it is: the caller's
        own node). None where the call passes a keyword, `*`/`**` or another count of arguments,
        or where an argument read twice would be computed twice."""
        if self.free is None or len(call.args) != len(self.params) or any(
            arg.keyword is not None or arg.star for arg in call.args
        ):
            return None
        arguments = dict(zip(self.params, (arg.value for arg in call.args), strict=True))
        if isinstance(self.returned, cst.Name) and self.returned.value in arguments:
            return arguments[self.returned.value]
        substitute = _Substitute(arguments)
        expr = self.returned.visit(substitute)
        return None if substitute.refused or not isinstance(expr, cst.BaseExpression) else expr


class FileSymbols:
    """The names one file defines and imports."""

    def __init__(
        self, module: cst.Module, context: FileContext = EMPTY_CONTEXT, name: str = "", is_package: bool = False
    ) -> None:
        self.module = module
        self.context = context
        #: the file's dotted module name (relative imports are made absolute with it)
        self.name = name
        self.package = name if is_package else name.rpartition(".")[0]
        #: classes this file alone shows to be modules (the project index adds the others)
        self.own_module_classes: set[str] = set()
        #: classes only a base imported from elsewhere makes modules (`_module_verdict`), kept even
        #: where the project shows that base is none (`FileContext.plain_classes`)
        self.guessed_module_classes: set[str] = set()
        self.imports = ImportTable()
        self.functions: dict[str, cst.FunctionDef] = {}
        #: the module-level functions that are one-line helpers (see `one_line_helper`)
        self.helpers: dict[str, OneLineHelper] = {}
        self._far_helpers: dict[str, OneLineHelper | None] = {}
        self.classes: dict[str, ModuleClass] = {}
        #: module-level names bound to `logging.getLogger(...)` (or a library's `get_logger`)
        self.loggers: set[str] = set()
        self._class_of: dict[int, ModuleClass] = {}
        self._file_classes: dict[str, cst.ClassDef] = {}
        self._enum_members: dict[str, dict[str, EnumMember | Scalar] | None] = {}
        #: classes of this file that another class builds as a submodule (of this file, or of another:
        #: `FileContext.blocks_elsewhere`): their forward's arguments after the first come from the
        #: parent, not from the export's example
        self.submodule_classes: set[str] = set()
        #: per `__init__`: the attributes it sets from arguments defaulting to None
        self._optional_attributes: dict[int, set[str]] = {}
        #: module-level constants: an upper-case name bound once at the top level to a literal or a
        #: tuple of literals (kornia's `_LM_MODELS = ("homography", ...)`), None where bound again
        self._constants: dict[str, Scalar | tuple[Scalar, ...] | None] = {}
        self._collect_top_level(module.body)
        # a class another file builds is a block of that file's model, as one this file builds
        self.submodule_classes.update(name for name in context.blocks_elsewhere if name in self._file_classes)
        self.constants = {name: value for name, value in self._constants.items() if value is not None}
        for local, full in self.imports.aliases.items():
            if full.startswith("."):
                self.imports.aliases[local] = absolute_import(full, self.package)

    def _collect_top_level(self, body: Sequence[cst.CSTNode]) -> None:
        candidates: list[cst.ClassDef] = []
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        self.imports.add(small)
                    elif isinstance(small, cst.Assign) and _is_logger_call(small.value):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                self.loggers.add(target.target.value)
                    if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                        self._note_constant(small)
            elif isinstance(stmt, cst.FunctionDef):
                self.functions[stmt.name.value] = stmt
                helper = OneLineHelper.of(stmt)
                if helper is not None:
                    self.helpers[stmt.name.value] = helper
                else:
                    self.helpers.pop(stmt.name.value, None)  # redefined: the last definition stands
            elif isinstance(stmt, cst.ClassDef):
                candidates.append(stmt)
                self._file_classes[stmt.name.value] = stmt
            elif isinstance(stmt, (cst.If, cst.Try)):
                # imports under `if TYPE_CHECKING:` / `try: ... except ImportError:`
                inner = [s for s in _suite_statements(stmt)]
                self._collect_top_level(inner)
        # Classes may subclass classes defined later in the file, so settle to a fixed point.
        changed = True
        while changed:
            changed = False
            for cls in candidates:
                name = cls.name.value
                if name in self.classes or name in self.guessed_module_classes:
                    continue
                verdict = self._module_verdict(cls)
                if verdict == "guess":
                    # kept whatever the project says, so the index asks the same question each round
                    self.guessed_module_classes.add(name)
                    changed = True
                if verdict is not None and name not in self.context.plain_classes:
                    self.classes[name] = self._module_class(cls)
                    self.own_module_classes.add(name)
                    changed = True
        for cls in candidates:
            name = cls.name.value
            if name not in self.classes and name in self.context.module_classes:
                self.classes[name] = self._module_class(cls)

    def _note_constant(self, small: cst.Assign | cst.AnnAssign | cst.AugAssign) -> None:
        """Keep a top-level binding of an upper-case name to a literal or a tuple of literals as a
        constant; a name bound twice (or to anything else) is none."""
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        value = _constant_value(small.value) if small.value is not None and type(small) is not cst.AugAssign else None
        for target in targets:
            if isinstance(target, cst.Name) and target.value.lstrip("_").isupper():
                self._constants[target.value] = None if target.value in self._constants else value

    def _module_verdict(self, cls: cst.ClassDef) -> str | None:
        """"module" where a base chain of the file reaches `torch.nn`; "guess" for a `forward` over
        a base imported from elsewhere (a `PreTrainedModel`: almost always a module, which the
        project index confirms or refutes where that base is project code); None otherwise."""
        has_forward = any(
            isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in cls.body.body
        )
        for base in cls.bases:
            if base.keyword is not None:
                continue
            local = dotted(base.value)
            if local is None:
                continue
            if local in self.classes:
                return "guess" if local in self.guessed_module_classes else "module"
            if has_forward and (verdict := self._local_base_verdict(local, set())) is not None:
                return verdict
            qualified = self.imports.resolve(base.value)
            if qualified in NOT_MODULE_BASES:
                return None
            if qualified is not None and qualified.startswith("torch.nn."):
                return "module"
            if qualified is not None and has_forward and _library_base(qualified):
                return "guess"
        return None

    def enum_members(self, name: str) -> dict[str, EnumMember | Scalar] | None:
        """The members of this file's Enum class `name` (None: no such class), each by its name:
        `MEAN = "mean"` of `class Pooling(Enum)` is `EnumMember("Pooling", "MEAN", "mean")`; of a
        `str`/`int` Enum (`class Pooling(str, Enum)`, `IntEnum`, `StrEnum`) it is the value itself,
        which it equals in Python. Members without a literal value are left out."""
        if name in self._enum_members:
            return self._enum_members[name]
        cls = self._file_classes.get(name)
        bases = {self.imports.resolve(base.value) or dotted(base.value) for base in cls.bases} if cls else set()
        found: dict[str, EnumMember | Scalar] | None = None
        if bases & _ENUM_BASES:
            mixed = bool(bases & _VALUE_ENUM_BASES)
            found = {}
            for stmt in cls.body.body:  # type: ignore[union-attr]
                line = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
                if not isinstance(line, cst.Assign) or len(line.targets) != 1:
                    continue
                target, value = line.targets[0].target, literal_value(line.value)
                if isinstance(target, cst.Name) and value is not UNKNOWN:
                    found[target.value] = value if mixed else EnumMember(name, target.value, value)  # type: ignore[arg-type]
        self._enum_members[name] = found
        return found

    def _local_base_verdict(self, name: str, seen: set[str]) -> str | None:
        """`class FooModel(FooPreTrainedModel)` where `FooPreTrainedModel(PreTrainedModel)` has
        no `forward` of its own: the base chain, through classes of this file, reaches a library
        base (transformers' layout for the main model class of most architectures)."""
        cls = self._file_classes.get(name)
        if cls is None or name in seen:
            return None
        seen.add(name)
        for base in cls.bases:
            if base.keyword is not None:
                continue
            local = dotted(base.value)
            qualified = self.imports.resolve(base.value)
            if qualified is not None:
                if qualified in NOT_MODULE_BASES:
                    return None
                if qualified.startswith("torch.nn."):
                    return "module"
                if _library_base(qualified):
                    return "guess"
            elif local is not None and (verdict := self._local_base_verdict(local, seen)) is not None:
                return verdict
        return None

    def _module_class(self, cls: cst.ClassDef) -> ModuleClass:
        bases = [b for b in (dotted(a.value) for a in cls.bases) if b]
        info = ModuleClass(node=cls, bases=bases)
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef):
                info.methods[stmt.name.value] = stmt
                self._class_of[id(stmt)] = info
        init = info.methods.get("__init__")
        if init is not None:
            info.attributes = self._init_attributes(init)
        return info

    def _init_attributes(self, init: cst.FunctionDef) -> dict[str, Value]:
        """`self.x = nn.Linear(...)` is a submodule; buffers and parameters are tensors."""
        out: dict[str, Value] = {}
        # statements only: the expressions inside (most of the nodes) never hold these
        for statement in walk_statements(init.body):
            node = statement.value if isinstance(statement, cst.Expr) else statement
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    t = target.target
                    if (
                        isinstance(t, cst.Attribute)
                        and isinstance(t.value, cst.Name)
                        and t.value.value == "self"
                    ):
                        out[t.attr.value] = out.get(t.attr.value, NOTHING) | self._init_value(
                            node.value
                        )
                        if isinstance(node.value, cst.Name) and defaults_to_none(node.value.value, init):
                            self._optional_attributes.setdefault(id(init), set()).add(t.attr.value)
                        if isinstance(node.value, cst.Call):
                            self._note_constructed(node.value)
                if isinstance(node.value, cst.Call) and not any(
                    isinstance(target.target, cst.Attribute) for target in node.targets
                ):
                    # `dec = HDecLayer(...)`, later `self.decoder.insert(0, dec)` (demucs)
                    self._note_constructed(node.value)
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                if node.func.attr.value in ("register_buffer", "register_parameter") and node.args:
                    first = node.args[0].value
                    if isinstance(first, cst.SimpleString):
                        out[first.evaluated_value] = Value(Kind.TENSOR)  # type: ignore[index]
                elif node.func.attr.value in _ADDING_METHODS:
                    self._note_constructed(node)  # `self.layers.append(Block(dim))`
        return out

    def _note_constructed(self, value: cst.Call) -> None:
        """Classes of this file built as submodules (`Block(config)`, inside `nn.ModuleList([...])`)."""
        for node in iter_nodes(value):
            if type(node) is cst.Call:
                name = dotted(node.func)  # type: ignore[attr-defined]
                if name in self._file_classes:
                    self.submodule_classes.add(name)

    def _init_value(self, value: cst.BaseExpression) -> Value:
        if isinstance(value, cst.Call):
            name = dotted(value.func) or ""
            leaf = name.rsplit(".", 1)[-1]
            qualified = self.imports.resolve(value.func) or ""
            if leaf == "Parameter" or leaf.endswith("Tensor"):
                return Value(Kind.TENSOR)
            if leaf in self.classes or (leaf[:1].isupper() and qualified.startswith("torch.nn")):
                return Value(Kind.MODULE)
            if qualified.startswith("torch.") and leaf[:1].islower():
                return Value(Kind.TENSOR)
            if leaf[:1].isupper():
                return Value(Kind.MODULE)
        return NOTHING

    @functools.cached_property
    def module_nodes(self) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]:
        """Every node of the file with its innermost statement, walked once per file: the
        module-wide rules and the file's construction calls (`shapes.construction_arguments`)
        both read it (each walked the whole tree for itself, a twentieth of a check)."""
        return with_statements(self.module, None, in_function=False)

    def resolve(self, node: cst.BaseExpression) -> str | None:
        return self.imports.resolve(node)

    def one_line_helper(self, written: str) -> OneLineHelper | None:
        """The one-line helper a call written `written` reaches: this file's function of that name,
        or, by the project index, another file's (`helpers.count`); None: another function, or
        unknown."""
        if written in self.functions:
            return self.helpers.get(written)
        if written not in self._far_helpers:
            found = self.context.inline(written)
            self._far_helpers[written] = OneLineHelper.from_text(*found) if found is not None else None
        return self._far_helpers[written]

    def inline_helpers(self) -> dict[str, tuple[tuple[str, ...], str]]:
        """The file's one-line helpers that another file can write at a call (`portable`), with
        their parameters and `return` expression: what the file's summary tells other files."""
        return {name: (helper.params, helper.text()) for name, helper in self.helpers.items() if helper.portable}

    def qualified(self, func: cst.BaseExpression) -> str:
        """The dotted name a callee denotes: through the imports, or this file's own function."""
        resolved = self.resolve(func)
        if resolved is not None:
            return resolved
        if isinstance(func, cst.Name) and func.value in self.functions and self.name:
            return f"{self.name}.{func.value}"
        return ""

    def self_attribute(self, cls: cst.ClassDef | None, name: str) -> Value:
        if cls is None:
            return NOTHING
        info = self.classes.get(cls.name.value)
        seen: set[str] = set()
        while info is not None and info.node.name.value not in seen:
            seen.add(info.node.name.value)
            if name in info.attributes:
                return info.attributes[name]
            info = next((self.classes[b] for b in info.bases if b in self.classes), None)
        return NOTHING


def _init_assignments_of(cls: cst.ClassDef) -> dict[str, cst.BaseExpression]:
    """`self.<name> = <value>` of `cls.__init__` (anywhere in its body), the last one of each name."""
    out: dict[str, cst.BaseExpression] = {}
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            for node in body_nodes(stmt.body):
                if isinstance(node, cst.Assign) and len(node.targets) == 1:
                    target = node.targets[0].target
                    if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                            and target.value.value == "self"):
                        out[target.attr.value] = node.value
    return out


#: a class's `__init__` assignments to `self`, walked once per class node (rules ask it per call
#: of `self.<name>(...)` in traced code)
init_assignments: PerStatement[dict[str, cst.BaseExpression]] = PerStatement(_init_assignments_of)  # type: ignore[arg-type]


def defaults_to_none(name: str, func: cst.FunctionDef) -> bool:
    """`name` is a parameter of `func` that defaults to None."""
    for param in all_params(func.params):
        if param.name.value == name:
            default = param.default
            return isinstance(default, cst.Name) and default.value == "None"
    return False


def _is_logger_call(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and (dotted(value.func) or "").endswith(
        ("getLogger", "get_logger")
    )


def _suite_statements(stmt: cst.If | cst.Try) -> Iterator[cst.CSTNode]:
    yield from stmt.body.body
    if isinstance(stmt, cst.Try):
        for handler in stmt.handlers:
            yield from handler.body.body
    elif isinstance(stmt.orelse, cst.Else):
        yield from stmt.orelse.body.body


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


class _Substitute(cst.CSTTransformer):
    """Parameters read in an expression replaced by the call's arguments; `free`: the other
    names it reads (globals of the helper's module, which a caller's local must not shadow)."""

    def __init__(self, arguments: dict[str, cst.BaseExpression]) -> None:
        self.arguments = arguments
        self.free: set[str] = set()
        self.refused = False
        self._not_read: set[int] = set()
        self._used: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_read.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_read.add(id(node.keyword))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.refused = True  # a scope of its own: its names are not the helper's
        return False

    visit_NamedExpr = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda  # type: ignore[assignment]

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self._not_read:
            return updated
        argument = self.arguments.get(original.value)
        if argument is None:
            self.free.add(original.value)
            return updated
        if original.value in self._used and not isinstance(argument, (cst.Name, cst.Attribute, cst.BaseNumber)):
            self.refused = True  # read twice: the argument, computed once by the call, would run twice
        self._used.add(original.value)
        atomic = isinstance(argument, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseNumber))
        return argument if atomic else argument.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _library_base(qualified: str) -> bool:
    """A base imported from a model library (not torch's own classes, not the standard library's
    `abc.ABC` or `typing.Generic`)."""
    return not qualified.startswith("torch.") and not is_standard_library(qualified)
