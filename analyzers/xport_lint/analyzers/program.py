"""Which code of a file torch.export traces, and what flows through it.

Traced code: `forward` of every nn.Module subclass in the file, the methods and module-level
functions it reaches in the same file, and functions handed to `torch.export.export`,
`draft_export` or `torch.compile(..., fullgraph=True)`. Everything else (training loops, data
loading, `__init__`) runs eagerly and is left alone.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from .dataflow import (
    NOTHING,
    FunctionFlow,
    Kind,
    Value,
    all_params,
    annotation_names,
    param_value,
    python_scalar_param,
    walk_statements,
)
from .index import (
    EMPTY_CONTEXT,
    PASSED_KINDS,
    ClassSummary,
    FileContext,
    FunctionSummary,
    ModuleSummary,
    Reach,
    absolute_import,
)
from .model import Mode
from .names import ImportTable, dotted
from .shapes import ShapeConfig, ShapesReader, example_return
from .walk import children, iter_nodes, with_statements

EXPORT_APIS = frozenset(
    {"torch.export.export", "torch.export.draft_export", "torch.export._trace._export"}
)
NOT_MODULE_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})


@dataclass
class ModuleClass:
    node: cst.ClassDef
    bases: list[str]
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: `self.x` kinds learned from `__init__` (submodules, buffers, parameters)
    attributes: dict[str, Value] = field(default_factory=dict)
    #: `self.x = x` for an `__init__` argument defaulting to None (`retriever=None`)
    optional_attributes: set[str] = field(default_factory=set)


@dataclass
class Traced:
    """One traced function and the class it belongs to (None for a free function); `reach`:
    how traced code of another file reaches it (None when the file's own code does)."""

    func: cst.FunctionDef
    cls: ModuleClass | None
    reach: Reach | None = None

    @property
    def name(self) -> str:
        """`Class.method` or `function`."""
        own = self.func.name.value
        return f"{self.cls.node.name.value}.{own}" if self.cls is not None else own


@dataclass(frozen=True)
class ExportCall:
    call: cst.Call
    api: str


class Program:
    """File-level facts: imports, module classes, traced functions and their dataflow."""

    def __init__(
        self, module: cst.Module, mentions_export: bool, context: FileContext = EMPTY_CONTEXT, name: str = "",
        is_package: bool = False, mentions_guards: bool = True,
    ) -> None:
        """`mentions_guards`: the text names an export guard (`is_exporting`, `is_tracing`, ...)."""
        self.mentions_guards = mentions_guards
        self.module = module
        self.context = context
        #: the file's dotted module name (relative imports are made absolute with it)
        self.name = name
        self.package = name if is_package else name.rpartition(".")[0]
        #: classes this file alone shows to be modules (the project index adds the others)
        self.own_module_classes: set[str] = set()
        self.imports = ImportTable()
        self.functions: dict[str, cst.FunctionDef] = {}
        self.classes: dict[str, ModuleClass] = {}
        self.export_calls: list[ExportCall] = []
        #: module-level names bound to `logging.getLogger(...)` (or a library's `get_logger`)
        self.loggers: set[str] = set()
        self._class_of: dict[int, ModuleClass] = {}
        self._flows: dict[int, FunctionFlow] = {}
        #: per cached flow: the function and class it was solved for, and the parameters it was given
        self._flow_inputs: dict[int, tuple[Traced, dict[str, Value]]] = {}
        #: per helper: the join of what every eval-mode call site passes it, argument by argument
        self._call_args: dict[int, list[Value]] = {}
        #: the same, from call sites only a training-mode export runs (used for a helper with no other)
        self._training_args: dict[int, list[Value]] = {}
        #: per helper: the functions whose flow read what it returns (solved again when it changes)
        self._readers: dict[int, set[int]] = {}
        #: call -> its innermost statement, for the calls of traced functions
        self._call_statement: dict[int, int] = {}
        self._solved = False
        self._nodes: dict[int, list[tuple[cst.CSTNode, cst.CSTNode | None]]] = {}
        #: per traced function: the expressions _evaluate_all evaluates, each with whether it is
        #: outermost in its statement (else a call, left out when export never evaluates it)
        self._to_evaluate: dict[int, list[tuple[cst.BaseExpression, bool]]] = {}
        self._in_progress: set[int] = set()
        #: ids of statements only an export in training mode runs (under `if self.training:`)
        self.training_only: set[int] = set()
        #: ids of statements that run only with a configuration other than the default, with the
        #: condition said (`only with `experts_implementation="eager"`: ...` for a transformers experts class)
        self.switched: dict[int, str] = {}
        #: ids of statements only an export that passes an optional argument runs, with its name
        #: (`if labels is not None and labels.max() >= n:` where `labels=None`)
        self.optional_only: dict[int, str] = {}
        self._file_classes: dict[str, cst.ClassDef] = {}
        #: classes of this file that another class builds as a submodule: their forward's arguments
        #: after the first come from the parent, not from the export's example
        self.submodule_classes: set[str] = set()
        #: per function, the names it assigns once (`exists_cache = past is not None and ...`)
        self._flags: dict[int, dict[str, cst.BaseExpression | None]] = {}
        #: (caller, callee) ids of calls made only when an optional argument is passed, with its name
        self._optional_calls: dict[tuple[int, int], str] = {}
        #: ids of the nodes of an `and` operand behind `name is not None` (an optional argument)
        self.optional_nodes: dict[int, str] = {}
        #: per function: its optional names that are not parameters defaulting to None, with why
        #: they may be None (see maybe_none)
        self._maybe_none: dict[int, dict[str, str]] = {}
        #: per `__init__`: the attributes it sets from arguments defaulting to None
        self._optional_attributes: dict[int, set[str]] = {}
        #: ids of the operands export never evaluates (`B` in `not is_tracing() and B`)
        self.unevaluated: set[int] = set()
        #: traced function -> its callees as written (`helper`, `self.block`, `ops.nms`)
        self._written: dict[int, list[str]] = {}
        self.own_traced: set[int] = set()
        #: traced function -> callee as written -> argument slot -> "dd"/"data"/"tensor" (note_passed)
        self.passed: dict[int, dict[str, dict[str, str]]] = {}
        #: `func` / `Class.method` -> argument slot -> what other files' traced callers pass it
        self._arguments = {name: dict(slots) for name, slots in context.arguments}
        #: model class as written -> the node that declares its shapes (export call, example)
        self.shape_declarations: dict[str, cst.CSTNode] = {}
        #: model class as written -> its `dynamic_shapes` expression in this file, and the reader
        #: that follows its names (for fixes that edit it)
        self.shape_expressions: dict[str, cst.BaseExpression] = {}
        self.shapes_reader: ShapesReader | None = None
        self._collect_top_level(module.body)
        for local, full in self.imports.aliases.items():
            if full.startswith("."):
                self.imports.aliases[local] = absolute_import(full, self.package)
        if mentions_export:
            self._collect_export_calls()
        self.traced = self._reachable()

    # -- discovery -------------------------------------------------------------------------

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
            elif isinstance(stmt, cst.FunctionDef):
                self.functions[stmt.name.value] = stmt
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
                if name not in self.classes and self._is_module_class(cls):
                    self.classes[name] = self._module_class(cls)
                    self.own_module_classes.add(name)
                    changed = True
        for cls in candidates:
            name = cls.name.value
            if name not in self.classes and name in self.context.module_classes:
                self.classes[name] = self._module_class(cls)

    def _is_module_class(self, cls: cst.ClassDef) -> bool:
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
                return True
            if has_forward and self._local_base_is_imported_module(local, set()):
                return True
            qualified = self.imports.resolve(base.value)
            if qualified in NOT_MODULE_BASES:
                return False
            if qualified is not None and qualified.startswith("torch.nn."):
                return True
            # A class with `forward` that subclasses something imported from elsewhere (a
            # `PreTrainedModel`, a library base) is almost always a module.
            if qualified is not None and has_forward and not qualified.startswith("torch."):
                return True
        return False

    def _local_base_is_imported_module(self, name: str, seen: set[str]) -> bool:
        """`class FooModel(FooPreTrainedModel)` where `FooPreTrainedModel(PreTrainedModel)` has
        no `forward` of its own: the base chain, through classes of this file, reaches a library
        base (transformers' layout for the main model class of most architectures)."""
        cls = self._file_classes.get(name)
        if cls is None or name in seen:
            return False
        seen.add(name)
        for base in cls.bases:
            if base.keyword is not None:
                continue
            local = dotted(base.value)
            qualified = self.imports.resolve(base.value)
            if qualified is not None:
                if qualified in NOT_MODULE_BASES:
                    return False
                if qualified.startswith("torch.nn.") or not qualified.startswith("torch."):
                    return True
            elif local is not None and self._local_base_is_imported_module(local, seen):
                return True
        return False

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
                        if isinstance(node.value, cst.Name) and _defaults_to_none(node.value.value, init):
                            self._optional_attributes.setdefault(id(init), set()).add(t.attr.value)
                        if isinstance(node.value, cst.Call):
                            self._note_constructed(node.value)
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                if node.func.attr.value in ("register_buffer", "register_parameter") and node.args:
                    first = node.args[0].value
                    if isinstance(first, cst.SimpleString):
                        out[first.evaluated_value] = Value(Kind.TENSOR)  # type: ignore[index]
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

    def _collect_export_calls(self) -> None:
        for node in iter_nodes(self.module):
            if not isinstance(node, cst.Call):
                continue
            api = self.imports.resolve(node.func)
            if api is None:
                continue
            if api in EXPORT_APIS or api.startswith(("torch._dynamo.export", "torch._export.")):
                self.export_calls.append(ExportCall(node, api))
            elif api == "torch.compile" and _keyword_true(node, "fullgraph"):
                self.export_calls.append(ExportCall(node, api))

    @functools.cached_property
    def declared_shapes(self) -> dict[str, ShapeConfig]:
        """How this file's export calls and `xport_example()` export each model class, by the
        class name as written (`Decoder`, `models.Decoder`); a class exported twice keeps the
        first declaration."""
        examples = [f for n, f in self.functions.items() if n == "xport_example"]
        declared = _module_declaration(self.module)
        if not self.export_calls and not examples and declared is None:
            return {}
        reader = self.shapes_reader = ShapesReader(self.module, self.imports.resolve)
        out: dict[str, ShapeConfig] = {}
        if declared is not None:
            # ExportDB's layout: module-level `model = Model()` and `dynamic_shapes = {...}`
            cls = reader.model_class(declared[0])
            config = reader.config(declared[1], f"`dynamic_shapes` in {self.name or 'this file'}")
            if cls is not None and config is not None:
                out[cls] = config
                self.shape_declarations[cls] = declared[1]
                self.shape_expressions[cls] = declared[1]
        for call in self.export_calls:
            if call.api not in EXPORT_APIS or not call.call.args:
                continue
            shapes = next(
                (a.value for a in call.call.args if a.keyword is not None and a.keyword.value == "dynamic_shapes"), None
            )
            cls = reader.model_class(call.call.args[0].value)
            config = reader.config(shapes, f"`{call.api.rpartition('.')[2]}(...)` in {self.name or 'this file'}")
            if cls is not None and config is not None and cls not in out:
                out[cls] = config
                self.shape_declarations[cls] = call.call
                if shapes is not None:
                    self.shape_expressions[cls] = shapes
        for func in examples:
            found = example_return(func)
            if found is None:
                continue
            cls = reader.model_class(found[0])
            config = reader.config(found[1], f"`xport_example()` in {self.name or 'this file'}")
            if cls is not None and config is not None and cls not in out:
                out[cls] = config
                self.shape_declarations[cls] = func
                if found[1] is not None:
                    self.shape_expressions[cls] = found[1]
        return out

    def place_shapes(self, path: str, line_of: Callable[[cst.CSTNode], int | None]) -> None:
        """Give each declaration of `declared_shapes` its file and line (for related information)."""
        for cls, node in self.shape_declarations.items():
            line = line_of(node)
            if line is not None and cls in self.declared_shapes:
                self.declared_shapes[cls] = dataclasses.replace(self.declared_shapes[cls], path=path, line=line)

    def _reachable(self) -> list[Traced]:
        roots: list[Traced] = []
        if not self.context.entries_only:
            roots.extend(self._own_roots())
        seen: dict[int, Traced] = {}
        edges: dict[int, list[tuple[Traced, bool]]] = {}  # caller -> (callee, called in eval mode too)
        self._visit(roots, seen, edges)
        self.own_traced = set(seen)
        entries = [item for name, reach in self.context.entries if (item := self._entry(name, reach)) is not None]
        self._visit_entries(entries, seen, edges)
        self._mark_training_only_helpers(roots + entries, seen, edges)
        self._mark_switched_forwards()
        return list(seen.values())

    def _mark_switched_forwards(self) -> None:
        """transformers' `@use_experts_implementation` replaces the class's `forward` with the
        kernel `config._experts_implementation` names; the default (`grouped_mm`, measured on
        2.13: tiny Mixtral and Qwen2-MoE export without running the loop) is not this code."""
        for info in self.classes.values():
            forward = info.methods.get("forward")
            if forward is None or not any(
                (self.resolve(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
                in _EXPERTS_SWITCHES
                for d in info.node.decorators
            ):
                continue
            for node, statement in self.nodes(forward):
                if node is statement:
                    self.switched.setdefault(
                        id(node), 'only with `experts_implementation="eager"`: the default replaces this `forward`'
                    )

    def _own_roots(self) -> Iterator[Traced]:
        for info in self.classes.values():
            forward = info.methods.get("forward")
            if forward is not None and not _takes_a_session(forward):
                yield Traced(forward, info)
        for call in self.export_calls:
            if call.call.args:
                name = dotted(call.call.args[0].value)
                if name in self.functions:
                    yield Traced(self.functions[name], None)
        for func in self.functions.values():
            for deco in func.decorators:
                target = deco.decorator
                call = target if isinstance(target, cst.Call) else None
                api = self.imports.resolve(call.func if call else target)
                if api == "torch.compile" and call is not None and _keyword_true(call, "fullgraph"):
                    yield Traced(func, None)

    def _visit(self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]]) -> None:
        stack = list(roots)
        while stack:
            item = stack.pop()
            if id(item.func) in seen:
                continue
            seen[id(item.func)] = item
            calls = edges[id(item.func)] = list(self._calls(item))
            for callee, _ in calls:
                if id(callee.func) not in seen:
                    if item.reach is not None:
                        callee.reach = dataclasses.replace(item.reach, via=(*item.reach.via, item.name))
                    stack.append(callee)

    def _visit_entries(
        self, entries: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]]
    ) -> None:
        """What other files' traced code reaches in this file, each function with the shortest
        chain of calls from an entry point, the first of those in sorted order (not the first the
        walk meets, which follows the order of the calls and of the files)."""
        queue: list[tuple[tuple[int, str, tuple[str, ...], str], int, Traced]] = []
        for number, item in enumerate(entries):
            if item.reach is not None:
                heapq.heappush(queue, (_chain_key(item.reach, item), number, item))
        number = len(queue)
        while queue:
            _, _, item = heapq.heappop(queue)
            if id(item.func) in seen:
                continue
            seen[id(item.func)] = item
            calls = edges[id(item.func)] = list(self._calls(item))
            for callee, _ in calls:
                if id(callee.func) not in seen and item.reach is not None:
                    callee.reach = dataclasses.replace(item.reach, via=(*item.reach.via, item.name))
                    number += 1
                    heapq.heappush(queue, (_chain_key(callee.reach, callee), number, callee))

    def _entry(self, name: str, reach: Reach) -> Traced | None:
        """A function of this file that traced code of another file calls (`func`, `Class.method`)."""
        cls_name, _, func_name = name.rpartition(".")
        if not cls_name:
            func = self.functions.get(func_name)
            return Traced(func, None, reach) if func is not None else None
        info = self.classes.get(cls_name)
        if info is None:
            node = self._file_classes.get(cls_name)
            if node is None:
                return None
            info = self._module_class(node)  # a mixin or a plain base class: its methods still run
        method = info.methods.get(func_name)
        return Traced(method, info, reach) if method is not None else None

    def _calls(self, item: Traced) -> Iterator[tuple[Traced, bool]]:
        """The in-file functions `item` calls, each with whether an eval-mode export makes the
        call; every callee as written is kept for the project index."""
        written = self._written[id(item.func)] = []
        for node, statement in self.nodes(item.func):
            if type(node) is cst.Call:
                text = _callee_text(node.func)  # type: ignore[attr-defined]
                if text is not None and self._may_be_project_code(text):
                    written.append(text)
                target = self.helper_for(item.cls, node.func)  # type: ignore[arg-type]
                if target is not None:
                    optional = self.optional_only.get(id(statement)) if statement is not None else None
                    if optional is not None:
                        self._optional_calls[(id(item.func), id(target.func))] = optional
                    yield target, statement is None or id(statement) not in self.training_only

    def _mark_training_only_helpers(
        self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]]
    ) -> None:
        """A helper only training-mode code calls (`_compute_mask_indices` under
        `if self.training:`) runs only in a training-mode export: all of it is training-only."""
        in_eval = _closure(roots, edges, lambda caller, callee: True)
        for key, item in seen.items():
            if key not in in_eval:
                for _, statement in self.nodes(item.func):
                    if statement is not None:
                        self.training_only.add(id(statement))
        self._mark_optional_helpers(roots, seen, edges, in_eval)

    def _mark_optional_helpers(
        self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]],
        in_eval: set[int],
    ) -> None:
        """A helper only code behind `labels is not None` calls (rag's `get_nll` in the loss) runs
        only when that argument is passed: its findings say so, as warnings."""
        if not self._optional_calls:
            return
        always = _closure(roots, edges, lambda caller, callee: (caller, callee) not in self._optional_calls)
        # a helper behind two optional arguments names the first in sorted order, whichever
        # call the walk met first
        names: dict[int, str] = {}
        for (caller, callee), name in self._optional_calls.items():
            if callee not in always and caller in in_eval and name < names.get(callee, "\uffff"):
                names[callee] = name
        changed = True
        while changed:  # a helper of such a helper
            changed = False
            for key, name in list(names.items()):
                for callee, _ in edges.get(key, []):
                    if id(callee.func) not in always and name < names.get(id(callee.func), "\uffff"):
                        names[id(callee.func)] = name
                        changed = True
        for key, name in names.items():
            item = seen.get(key)
            if item is not None:
                for _, statement in self.nodes(item.func):
                    if statement is not None:
                        self.optional_only.setdefault(id(statement), name)

    def _may_be_project_code(self, written: str) -> bool:
        """A callee the project index may resolve: a method through `self`/`cls`/`super()`, a
        function or class of this file, or an import that is not torch's."""
        root = written.partition(".")[0]
        if root in ("self", "cls", "super()") or root in self.functions or root in self._file_classes:
            return True
        imported = self.imports.aliases.get(root)
        return imported is not None and imported != "torch" and not imported.startswith("torch.")

    def summary(self, module: str, path: str) -> ModuleSummary:
        """This file as the project index sees it."""
        imports = dict(self.imports.aliases)

        def function(func: cst.FunctionDef) -> FunctionSummary:
            calls = self._written.get(id(func))
            passes = {written: dict(slots) for written, slots in self.passed.get(id(func), {}).items() if slots}
            return FunctionSummary(
                None if calls is None else list(dict.fromkeys(calls)), id(func) in self.own_traced, passes
            )

        classes = {}
        for name, node in self._file_classes.items():
            methods = {s.name.value: function(s) for s in node.body.body if isinstance(s, cst.FunctionDef)}
            bases = [b for b in (dotted(a.value) for a in node.bases if a.keyword is None) if b]
            classes[name] = ClassSummary(bases, methods, name in self.own_module_classes)
        exported = [
            name for call in self.export_calls if call.call.args and (name := dotted(call.call.args[0].value))
        ]
        # models of other files this file exports (an export script): their declared shapes
        shapes = {
            qualified: config
            for written, config in self.declared_shapes.items()
            if written.partition(".")[0] not in self._file_classes
            and (qualified := _qualified(self.imports.aliases, written)) is not None
        }
        return ModuleSummary(
            module, path, imports, classes, {n: function(f) for n, f in self.functions.items()}, exported, shapes
        )

    def nodes(self, func: cst.FunctionDef) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]:
        """The nodes of a traced function's body with their statements, listed once for the
        call graph and the rules."""
        listed = self._nodes.get(id(func))
        if listed is None:
            dead = self._dead_after_guards(func) if self.mentions_guards else None
            self._mark_training_after_return(func)
            listed = self._nodes[id(func)] = with_statements(
                func.body, func, in_function=True, pruned=lambda node: self._branch_export_skips(node, func), dead=dead
            )
            for node, statement in listed:
                node_type = type(node)
                if node_type is cst.Call and statement is not None:
                    self._call_statement[id(node)] = id(statement)
                if node_type is cst.Call and _is_check(node):
                    for arg in node.args[1:]:  # type: ignore[attr-defined]
                        if isinstance(arg.value, cst.Lambda):
                            self.unevaluated.update(id(inner) for inner in iter_nodes(arg.value.body))
                elif node_type is cst.IfExp and type(node.test) is cst.BooleanOperation:  # type: ignore[attr-defined]
                    # `() if (output_attentions and is_global_attn) else None`
                    self._mark_optional_operands(node.test, func)  # type: ignore[attr-defined]
        return listed

    def _dead_after_guards(self, func: cst.FunctionDef) -> set[int]:
        """Statements after `if is_tracing(x): return` (a guard True while exporting, a branch that
        always leaves): export never reaches them."""
        dead: set[int] = set()
        for block in _blocks(func.body):
            for index, statement in enumerate(block.body):
                if (
                    isinstance(statement, cst.If)
                    and _always_leaves(statement.body)
                    and self._while_exporting(statement.test, func) is True
                ):
                    dead.update(id(s) for s in block.body[index + 1 :])
                    break
        return dead

    def _config_switch(self, test: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
        """`if self.is_training:` where `__init__` copied it from `config.is_training`: a switch
        the default configuration leaves off (see _OFF_BY_DEFAULT), named with its default."""
        if not (
            isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == "self"
            and test.attr.value in _OFF_BY_DEFAULT
        ):
            return None
        cls = self._class_of.get(id(func))
        init = cls.methods.get("__init__") if cls is not None else None
        if init is None:
            return None
        name = test.attr.value
        for statement in walk_statements(init.body):
            if (
                isinstance(statement, cst.Assign) and isinstance(statement.value, cst.Attribute)
                and statement.value.attr.value == name and dotted(statement.value.value) in ("config", "self.config")
                and any(dotted(t.target) == f"self.{name}" for t in statement.targets)
            ):
                return f"only with `config.{name}=True`: the default configuration sets it to False"
        return None

    def _mark_training_after_return(self, func: cst.FunctionDef) -> None:
        """What follows `if not self.training: return ...` in its block runs only in training mode
        (an eval export has returned by then)."""
        for block in _blocks(func.body):
            for index, statement in enumerate(block.body):
                if (
                    isinstance(statement, cst.If) and statement.orelse is None and _always_leaves(statement.body)
                    and _tests_not_training(statement.test)
                ):
                    for later in block.body[index + 1 :]:
                        self.training_only.update(id(inner) for inner in walk_statements(later))
                    break

    def _branch_export_skips(self, node: cst.If, func: cst.FunctionDef) -> tuple[cst.CSTNode, ...]:
        """The branch of `node` export never runs (left out of the walk: nothing there is
        traced), and, as a side effect, the statements only a training-mode export runs."""
        verdict = self._while_exporting(node.test, func)
        self._mark_unevaluated(node.test, func)
        if verdict is False:
            return (node.body,)
        if verdict is True:
            return (node.orelse,) if node.orelse is not None else ()
        if _tests_training(node.test):
            # statements only (a cheap walk): findings are keyed by their innermost statement
            self.training_only.update(id(statement) for statement in walk_statements(node.body))
            if _leftmost(node.test) is not node.test and _tests_training(_leftmost(node.test)):
                # `if self.training and <test>:` evaluates <test> only in training mode
                self.training_only.add(id(node))
        elif _tests_not_training(node.test) and node.orelse is not None:
            # the `else` (or `elif`) of `if not self.training:` runs only in training mode
            self.training_only.update(id(statement) for statement in walk_statements(node.orelse))
        switch = self._config_switch(_leftmost(node.test), func)
        if switch is not None:
            for statement in walk_statements(node.body):
                self.switched.setdefault(id(statement), switch)
        self._mark_optional_operands(node.test, func)
        parent = self._passed_by_parent(func)
        optional = _optional_argument(
            _leftmost(node.test), func, self._flags, parent, self._reasons(func), self._attributes_maybe_none(func)
        )
        if optional is not None and (_leftmost(node.test) is not node.test or isinstance(node.test, cst.Name)):
            # the rest of the test, or the bare optional itself (`if guidance:`), is a tensor
            # only when the argument is passed
            self.optional_only.setdefault(id(node), optional)
        # the body runs only when every conjunct holds: `n > 1 and speaker_id is not None`
        optional = optional or next(
            (
                name for part in _conjuncts(node.test)
                if (name := _optional_argument(
                    part, func, self._flags, parent, self._reasons(func), self._attributes_maybe_none(func)
                ))
            ),
            None,
        )
        if optional is not None:
            for statement in walk_statements(node.body):
                self.optional_only.setdefault(id(statement), optional)
        return ()

    def _reasons(self, func: cst.FunctionDef) -> dict[str, str]:
        return self._maybe_none.setdefault(id(func), {})

    @property
    def maybe_none(self) -> dict[str, str]:
        """Optional names that are not parameters defaulting to None, with why they may be None;
        a name two functions give different reasons for keeps the first reason in sorted order
        (not the one of the function analysed first)."""
        out: dict[str, str] = {}
        for reasons in self._maybe_none.values():
            for name, why in reasons.items():
                out[name] = min(out.get(name, why), why)
        return out

    def _attributes_maybe_none(self, func: cst.FunctionDef) -> frozenset[str]:
        """`self.x` that `__init__` of `func`'s class sets from an argument defaulting to None."""
        cls = self._class_of.get(id(func))
        init = cls.methods.get("__init__") if cls is not None else None
        return frozenset(self._optional_attributes.get(id(init), ())) if init is not None else frozenset()

    def _passed_by_parent(self, func: cst.FunctionDef) -> bool:
        """`forward` of a class another class of the file builds as a submodule: its arguments after
        the first come from the parent's call, which may pass None where the code tests for it."""
        cls = self._class_of.get(id(func))
        return func.name.value == "forward" and cls is not None and cls.node.name.value in self.submodule_classes

    def _mark_optional_operands(self, test: cst.BaseExpression, func: cst.FunctionDef) -> None:
        """`(a is not None and a.any()) or (b is not None and b.any())`: each `.any()` runs only
        when its own optional argument is passed."""
        read = _read_from_optional(test, func)
        if read is not None:
            # `mm_encoder_outputs.get("image")` of an argument that defaults to None (then `{}`)
            for node in iter_nodes(test):
                self.optional_nodes.setdefault(id(node), read)
            return
        if not isinstance(test, cst.BooleanOperation):
            return
        if isinstance(test.operator, cst.And):
            name = _optional_argument(
                _leftmost(test), func, self._flags, self._passed_by_parent(func), self._reasons(func),
                self._attributes_maybe_none(func),
            )
            if name is not None:
                for node in iter_nodes(test.right):
                    self.optional_nodes.setdefault(id(node), name)
        self._mark_optional_operands(test.left, func)
        self._mark_optional_operands(test.right, func)

    def _mark_unevaluated(self, test: cst.BaseExpression, func: cst.FunctionDef) -> None:
        """`A and B` where A is False while exporting (`A or B`: True): export never evaluates B."""
        while isinstance(test, cst.BooleanOperation):
            left = self._while_exporting(test.left, func)
            if left is (False if isinstance(test.operator, cst.And) else True):
                self.unevaluated.update(id(node) for node in iter_nodes(test.right))
            test = test.left

    def _while_exporting(self, test: cst.BaseExpression, func: cst.FunctionDef | None = None) -> bool | None:
        """The value of `test` while torch.export traces, where it is known: the guards code
        writes around export (measured on torch 2.13: `torch.compiler.is_exporting()` is True,
        `torch.jit.is_scripting()`/`is_tracing()` and `torch.onnx.is_in_onnx_export()` are False,
        in both modes)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._while_exporting(test.expression, func)
            return None if inner is None else not inner
        if isinstance(test, cst.BooleanOperation):
            left, right = self._while_exporting(test.left, func), self._while_exporting(test.right, func)
            if isinstance(test.operator, cst.And):
                return False if False in (left, right) else (True if left is right is True else None)
            return True if True in (left, right) else (False if left is right is False else None)
        if isinstance(test, cst.Call):
            return export_guard(self.qualified(test.func))
        if isinstance(test, cst.Name) and func is not None and self.mentions_guards:
            # `is_compiling = torch.compiler.is_compiling()` earlier in the function
            assigned = self._flags.get(id(func))
            if assigned is None:
                assigned = self._flags[id(func)] = _assigned_once(func)
            value = assigned.get(test.value)
            return self._while_exporting(value) if isinstance(value, cst.Call) else None
        if _tests_half_precision(test, self):
            return False  # a default export is fp32
        return None

    def while_exporting(self, test: cst.BaseExpression) -> bool | None:
        """The value of `test` while torch.export traces, where a guard makes it known."""
        return self._while_exporting(test) if self.mentions_guards else None

    def qualified(self, func: cst.BaseExpression) -> str:
        """The dotted name a callee denotes: through the imports, or this file's own function."""
        resolved = self.resolve(func)
        if resolved is not None:
            return resolved
        if isinstance(func, cst.Name) and func.value in self.functions and self.name:
            return f"{self.name}.{func.value}"
        return ""

    def helper_for(self, cls: ModuleClass | None, func: cst.BaseExpression) -> Traced | None:
        """The in-file function a call reaches: `self.method(...)` or `helper(...)`."""
        if isinstance(func, cst.Name):
            fn = self.functions.get(func.value)
            return Traced(fn, None) if fn is not None else None
        if (
            cls is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            method = self._method(cls, func.attr.value)
            if method is not None:
                return Traced(method, self._class_of.get(id(method), cls))
        return None

    def _method(self, cls: ModuleClass, name: str) -> cst.FunctionDef | None:
        seen: set[str] = set()
        queue = [cls]
        while queue:
            current = queue.pop(0)
            if current.node.name.value in seen:
                continue
            seen.add(current.node.name.value)
            if name in current.methods:
                return current.methods[name]
            queue.extend(self.classes[b] for b in current.bases if b in self.classes)
        return None

    # -- dataflow --------------------------------------------------------------------------

    def resolve(self, node: cst.BaseExpression) -> str | None:
        return self.imports.resolve(node)

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

    def call_helper(self, caller: FunctionFlow, call: cst.Call, args: Sequence[Value]) -> Value | None:
        """What a call of a helper of this file returns; its arguments join what the helper's
        other call sites pass (a call site only a training-mode export runs counts only for a
        helper no other site calls: what training mode passes never reaches eval-mode code)."""
        cls = self.classes.get(caller.cls.name.value) if caller.cls is not None else None
        target = self.helper_for(cls, call.func)
        if target is None:
            return None
        key = id(target.func)
        is_method = target.cls is not None and not _is_static(target.func)
        bound = self._bind_args(target.func, call, args, is_method=is_method)
        training = self._call_statement.get(id(call)) in self.training_only
        table = self._training_args if training else self._call_args
        known = table.get(key)
        table[key] = bound if known is None else [a | b for a, b in zip(known, bound, strict=True)]
        if _returns_python_scalar(target.func):
            return NOTHING
        self._readers.setdefault(key, set()).add(id(caller.func))
        if key in self._in_progress:
            return Value(Kind.TENSOR) if any(a.has(Kind.TENSOR) for a in args) else NOTHING
        return self._flow(target).returns

    def note_passed(self, caller: cst.FunctionDef, call: cst.Call, args: Sequence[Value]) -> None:
        """A call that is not a helper of this file, passing tensors or data-dependent values:
        kept in the caller's summary, for the project index to hand to the callee's file."""
        written = dotted(call.func)
        if written is None or written not in self._written.get(id(caller), ()):
            return
        slots = self.passed.setdefault(id(caller), {}).setdefault(written, {})
        for position, (arg, value) in enumerate(zip(call.args, args, strict=True)):
            if arg.star:
                break
            slot = arg.keyword.value if arg.keyword is not None else str(position)
            kind = passed_kind(value)
            if kind is not None and PASSED_KINDS.index(kind) > PASSED_KINDS.index(slots.get(slot, kind)):
                slots[slot] = kind
            elif kind is not None:
                slots.setdefault(slot, kind)

    def _bind_args(
        self, func: cst.FunctionDef, call: cst.Call, args: Sequence[Value], is_method: bool
    ) -> list[Value]:
        params = list(all_params(func.params))
        if is_method and params:
            params = params[1:]
        listed = self.nodes(func)
        bound = [param_value(p, func, listed) if p.default is not None else NOTHING for p in params]
        names = [p.name.value for p in params]
        declared_python = {i for i, p in enumerate(params) if python_scalar_param(p)}
        position = 0
        for arg, value in zip(call.args, args, strict=True):
            if arg.keyword is not None:
                if arg.keyword.value in names:
                    bound[names.index(arg.keyword.value)] = value
            elif arg.star:
                for i in range(position, len(bound)):
                    bound[i] = bound[i] | value
            elif position < len(bound):
                bound[position] = value
                position += 1
        # `return_final_states: bool = False` is a Python value whatever a caller's dataflow guessed:
        # not a tensor, though it may still be a number read from one (`n: int` given `t.item()`)
        return [_python_part(value) if i in declared_python else value for i, value in enumerate(bound)]

    def flow(self, item: Traced) -> FunctionFlow:
        """The dataflow of a traced function, solved with what every call site of every helper
        passes (whatever order the calls, the functions and the traced set come in)."""
        if not self._solved:
            self._solve_flows()
        return self._flow(item)

    def _solve_flows(self) -> None:
        """Every traced function's flow, each helper's parameters the join of its call sites:
        evaluate every expression of traced code (so each call site is seen, not only those an
        assignment reads), then solve again the flows given less than their call sites now pass,
        and the flows that read what those return, until none is (the join only grows)."""
        self._solved = True
        # a flow evaluated in an earlier round and not stale since has every value memoised:
        # evaluating it again binds nothing new (each kept here, so no new flow reuses its id)
        evaluated: dict[int, FunctionFlow] = {}
        for _ in range(_MAX_FLOW_ROUNDS):
            for item in self.traced:
                flow = self._flow(item)
                if evaluated.get(id(flow)) is not flow:
                    evaluated[id(flow)] = flow
                    self._evaluate_all(flow)
            stale = {key for key, (item, given) in self._flow_inputs.items() if self._parameters(item) != given}
            if not stale:
                return
            pending = list(stale)
            while pending:  # what read a stale helper's result is stale too
                for reader in self._readers.get(pending.pop(), ()):
                    if reader not in stale:
                        stale.add(reader)
                        pending.append(reader)
            for key in stale:
                self._flows.pop(key, None)
                self._flow_inputs.pop(key, None)

    def _evaluate_all(self, flow: FunctionFlow) -> None:
        """Every call of traced code that binds something for another function (a helper of this
        file: its arguments join the helper's parameters; a callee the project index may resolve:
        what it passes goes in the summary), so that each call site binds before any rule reads a
        flow. A call is reached through the outermost expression of its statement (a helper called
        in a comprehension sees the comprehension's variables), then directly where that did not
        reach it (a value of a dict, an operand of `is None`), never where export does not evaluate
        it (a lazy check message). The other expressions bind nothing: rules evaluate what they read."""
        listed = self._to_evaluate.get(id(flow.func))
        if listed is None:  # the same for every flow of the function (solved again in a later round)
            listed = self._to_evaluate[id(flow.func)] = self._binding_calls(flow)
        for expression, outermost in listed:
            if outermost or id(expression) not in self.unevaluated:
                flow.value(expression)  # type: ignore[arg-type]

    def _binding_calls(self, flow: FunctionFlow) -> list[tuple[cst.BaseExpression, bool]]:
        """The calls of `flow`'s function `_evaluate_all` evaluates, each after the outermost
        expression of its statement that holds it (`True`: an outermost expression)."""
        cls = self.classes.get(flow.cls.name.value) if flow.cls is not None else None
        written = set(self._written.get(id(flow.func), ()))
        out: list[tuple[cst.BaseExpression, bool]] = []
        calls: list[cst.BaseExpression] = []
        statements: dict[int, cst.CSTNode] = {}
        for node, statement in self.nodes(flow.func):
            if type(node) is not cst.Call or statement is None:
                continue
            func = node.func  # type: ignore[attr-defined]
            if self.helper_for(cls, func) is not None or (written and _callee_text(func) in written):
                calls.append(node)  # type: ignore[arg-type]
                statements.setdefault(id(statement), statement)
        if not calls:
            return out
        for statement in statements.values():
            out.extend((expression, True) for expression in _outermost_expressions(statement))
        out.extend((call, False) for call in calls)
        return out

    def _flow(self, item: Traced) -> FunctionFlow:
        key = id(item.func)
        cached = self._flows.get(key)
        if cached is not None:
            return cached
        self._in_progress.add(key)
        values = self._parameters(item)
        cls = item.cls.node if item.cls else None
        flow = FunctionFlow(item.func, dict(values), self, cls, self._statements_run(item.func))
        self._in_progress.discard(key)
        self._flows[key] = flow
        self._flow_inputs[key] = (item, values)
        return flow

    def _parameters(self, item: Traced) -> dict[str, Value]:
        """What each parameter of `item` holds: the join of its call sites in this file, what
        traced callers of other files pass, else what its declaration and uses say."""
        key = id(item.func)
        params = list(all_params(item.func.params))
        is_method = item.cls is not None and not _is_static(item.func)
        values: dict[str, Value] = {}
        call_args = self._call_args.get(key)
        if call_args is None:
            call_args = self._training_args.get(key)
        passed = self._arguments.get(item.name, {}) if self._arguments else {}
        for i, param in enumerate(params):
            if is_method and i == 0:
                continue
            index = i - 1 if is_method else i
            if call_args is not None and 0 <= index < len(call_args):
                values[param.name.value] = call_args[index]
            else:
                block = item.cls is not None and item.cls.node.name.value in self.submodule_classes
                values[param.name.value] = param_value(param, item.func, self.nodes(item.func), block=block)
            kind = passed.get(str(index)) or passed.get(param.name.value)
            if kind is not None and not _declared_container(param):
                # what a traced caller in another file passes (`batched_nms(boxes[keep], ...)`),
                # as a call site of this file would (`n: int` stays a Python value)
                given = _PASSED_VALUES[kind]
                values[param.name.value] |= _python_part(given) if python_scalar_param(param) else given
        return values

    def _statements_run(self, func: cst.FunctionDef) -> list[cst.CSTNode]:
        """The statements of `func` an eval-mode export runs: not in a branch export never takes,
        not under `if self.training:` (a value assigned there never reaches eval-mode code)."""
        return [
            node for node, statement in self.nodes(func)
            if node is statement and id(node) not in self.training_only
        ]

    def mode(self, configured: Mode) -> Mode:
        """A `strict=True` export call in the file makes the whole file strict."""
        for call in self.export_calls:
            for arg in call.call.args:
                if (
                    arg.keyword is not None
                    and arg.keyword.value == "strict"
                    and isinstance(arg.value, cst.Name)
                    and arg.value.value == "True"
                ):
                    return Mode.STRICT
        return configured


#: rounds of solving flows again; each adds what a call site newly passes (two on real code)
_MAX_FLOW_ROUNDS = 8
#: parts of a statement that hold statements of their own (walked as statements) or a scope
_NOT_EXPRESSIONS = (
    cst.BaseSuite, cst.BaseStatement, cst.BaseSmallStatement, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
    cst.Finally, cst.MatchCase, cst.Parameters, cst.Decorator,
)


def _outermost_expressions(statement: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The expressions a statement evaluates itself (an `if`'s test, an assignment's value and
    targets, a `with`'s items), not those of the statements nested in it."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return
    stack = children(statement)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression):
            yield node
        elif not isinstance(node, _NOT_EXPRESSIONS):
            stack.extend(children(node))


def _module_declaration(module: cst.Module) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(model, dynamic_shapes) of module-level `model = ...` and `dynamic_shapes = ...`."""
    found: dict[str, cst.BaseExpression] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and target.value in ("model", "dynamic_shapes"):
                        found[target.value] = small.value
    if "model" in found and "dynamic_shapes" in found:
        return found["model"], found["dynamic_shapes"]
    return None


def _qualified(aliases: dict[str, str], written: str) -> str | None:
    """`models.Decoder` as the imports spell it in full (None: not imported)."""
    root, _, rest = written.partition(".")
    full = aliases.get(root)
    return None if full is None else f"{full}.{rest}" if rest else full


#: what a call returns while torch.export traces, in both modes (measured on torch 2.13, see
#: tests/truth/test_reachability.py); transformers' helpers wrap `torch.compiler.is_compiling()`
#: and `is_exporting()` (utils/import_utils.py), re-exported from `transformers.utils`
_EXPORT_GUARDS = {
    "torch.compiler.is_exporting": True,
    "torch.compiler.is_compiling": True,
    "torch.jit.is_scripting": False,
    "torch.jit.is_tracing": False,
    "torch.onnx.is_in_onnx_export": False,
    # the TorchScript tracer's state (None under export, measured), and torchvision's wrapper of it
    "torch._C._get_tracing_state": False,
    "torchvision._is_tracing": False,
}
#: configuration flags that turn on training-only code and default to off (transformers'
#: OneFormerConfig and the Mask2Former family: `is_training=False`), copied to `self` in `__init__`
_OFF_BY_DEFAULT = frozenset({"is_training"})
_EXPERTS_SWITCHES = frozenset({
    "transformers.integrations.use_experts_implementation",
    "transformers.integrations.moe.use_experts_implementation",
})
_LIBRARY_GUARDS = {
    "transformers.utils": ("is_torchdynamo_compiling", "is_torchdynamo_exporting", "is_tracing"),
    "transformers.utils.import_utils": ("is_torchdynamo_compiling", "is_torchdynamo_exporting", "is_tracing"),
}


def export_guard(qualified: str) -> bool | None:
    """The value of a call of `qualified` while exporting, where it is known."""
    known = _EXPORT_GUARDS.get(qualified)
    if known is None:
        module, _, name = qualified.rpartition(".")
        if name in _LIBRARY_GUARDS.get(module, ()):
            return True
    return known


_HALF_PRECISION = frozenset({"torch.float16", "torch.half", "torch.bfloat16"})


def _tests_half_precision(test: cst.BaseExpression, program: Program) -> bool:
    """`x.dtype == torch.float16`: false in a default (fp32) export, so what it guards, and
    what follows it in an `and`, never runs there (fp16 overflow clamps in T5-style blocks)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    return (
        isinstance(target.operator, (cst.Equal, cst.Is))
        and isinstance(test.left, cst.Attribute)
        and test.left.attr.value == "dtype"
        and program.resolve(target.comparator) in _HALF_PRECISION
    )


def _tests_training(test: cst.BaseExpression) -> bool:
    """`self.training`, alone or as an operand of `and` (its body runs only in training mode)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _tests_training(test.left) or _tests_training(test.right)
    return (
        isinstance(test, cst.Attribute)
        and test.attr.value == "training"
        and isinstance(test.value, cst.Name)
        and test.value.value == "self"
    )


def _takes_a_session(forward: cst.FunctionDef) -> bool:
    """A `forward` with an argument annotated as an inference session (transformers' SAM2/SAM3/
    EdgeTAM video models: `inference_session: Sam2VideoInferenceSession`): export rejects such a
    Python object among its inputs before tracing anything (measured on 2.13, both modes), so
    this `forward` is no export entry."""
    return any(
        param.annotation is not None and (dotted(param.annotation.annotation) or "").endswith("InferenceSession")
        for param in all_params(forward.params)
    )


def _tests_not_training(test: cst.BaseExpression) -> bool:
    """`not self.training`: what it guards runs in an eval export, its `else` only in training mode."""
    return (
        isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Attribute) and _tests_training(test.expression)
    )


def _optional_argument(
    test: cst.BaseExpression, func: cst.FunctionDef, flags: dict[int, dict[str, cst.BaseExpression | None]],
    from_parent: bool = False, reasons: dict[str, str] | None = None, attributes: frozenset[str] = frozenset(),
) -> str | None:
    """`name is not None` (or `name` alone) where `name` is a parameter of `func` that defaults to
    None: what follows runs only when a caller passes it (a default export passes only the
    example's).
    Also a flag made of that test (`exists_cache = past is not None and ...; if exists_cache:`).
    `flags`: per function, its names assigned once (filled on first use). `from_parent`: the
    arguments after the first come from a parent module's call, so `name is not None` on any of
    them marks it optional (evolla's cross-attention takes `protein_kv_states` or None).
    `reasons`: filled with why a name that is not a None-defaulting parameter may be None."""
    if reasons is None:
        reasons = {}
    if isinstance(test, cst.Name):
        if _defaults_to_none(test.value, func):
            return test.value  # `if guidance:`: None (falsy) unless passed
        assigned = flags.get(id(func))
        if assigned is None:
            assigned = flags[id(func)] = _assigned_once(func)
        flag = assigned.get(test.value)
        if flag is None or isinstance(flag, cst.Name):
            return None
        return _optional_argument(_leftmost(flag), func, flags, from_parent, reasons, attributes)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    if not (isinstance(target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name)
            and target.comparator.value == "None"):
        return None
    left = test.left
    read = _read_from_optional(left, func)
    if read is not None:
        return read  # `if outputs.get("image") is not None:` on an argument defaulting to None
    if (
        isinstance(left, cst.Attribute) and isinstance(left.value, cst.Name) and left.value.value == "self"
        and left.attr.value in attributes
    ):
        written = f"self.{left.attr.value}"
        reasons.setdefault(written, "the model is built without it unless `__init__` is given one")
        return written
    if not isinstance(left, cst.Name):
        return None
    name = left.value
    if _defaults_to_none(name, func):
        return name
    if from_parent and _later_parameter(name, func):
        reasons.setdefault(name, "the parent module may pass None")
        return name
    why = _may_be_none(name, func)
    if why is not None:
        reasons.setdefault(name, why)
        return name
    return None


_CONTAINERS = frozenset({"list", "List", "tuple", "Tuple", "Sequence", "dict", "Dict", "Mapping"})


def _declared_container(param: cst.Param) -> bool:
    """Annotated as a list, tuple or dict (`boxes: list[Tensor]`): iterating it is a Python loop
    however its tensors were sized, so a data-dependent argument must not make it a tensor."""
    return param.annotation is not None and bool(annotation_names(param.annotation) & _CONTAINERS)


def _may_be_none(name: str, func: cst.FunctionDef) -> str | None:
    """Why `name` may be None: a helper's parameter annotated `Optional[...]` / `... | None` (its
    callers may pass None: timm's `_encode(x, position_ids, padding_positions: Optional[Tensor])`),
    or a local the function sets to None somewhere (`attn_mask = None`, then set on some paths)."""
    for param in all_params(func.params):
        if param.name.value == name:
            if func.name.value == "forward" or param.annotation is None:
                return None
            names = annotation_names(param.annotation)
            return "its annotation allows None" if "Optional" in names or "None" in names else None
    return _locals_maybe_none(func).get(name)


_MAYBE_NONE: dict[int, tuple[cst.FunctionDef, dict[str, str]]] = {}


def _locals_maybe_none(func: cst.FunctionDef) -> dict[str, str]:
    """The function's locals that may be None, with why (one walk per function)."""
    cached = _MAYBE_NONE.get(id(func))
    if cached is not None and cached[0] is func:
        return cached[1]
    out: dict[str, str] = {}
    for statement in walk_statements(func.body):
        if isinstance(statement, cst.Assign):
            value, targets = statement.value, [t.target for t in statement.targets]
        elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
            value, targets = statement.value, [statement.target]
        else:
            continue
        if isinstance(value, cst.Name) and value.value == "None":
            for target in targets:
                if isinstance(target, cst.Name):
                    out.setdefault(target.value, "it is set to None on some paths")
        elif isinstance(value, cst.Call) and not (dotted(value.func) or "").startswith("torch."):
            # `x, pos, padding = self.patch_embed(...)`: one part of what another function
            # returns, which the code itself expects may be None
            for target in targets:
                if isinstance(target, (cst.Tuple, cst.List)):
                    for element in target.elements:
                        if isinstance(element.value, cst.Name):
                            out.setdefault(
                                element.value.value, "a part of what a call returns, which the code expects may be None"
                            )
    if len(_MAYBE_NONE) > 4096:
        _MAYBE_NONE.clear()
    _MAYBE_NONE[id(func)] = (func, out)
    return out


def _read_from_optional(expr: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
    """`name.get(...)` or `name[...]` where `name` is a parameter defaulting to None: what it
    reads exists only when the caller passes `name`."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "get":
        owner = expr.func.value
    elif isinstance(expr, cst.Subscript):
        owner = expr.value
    else:
        return None
    if isinstance(owner, cst.Name) and _defaults_to_none(owner.value, func):
        return owner.value
    return None


def _later_parameter(name: str, func: cst.FunctionDef) -> bool:
    """`name` is a parameter of `func` after the first (after `self`)."""
    params = [p.name.value for p in all_params(func.params) if p.name.value not in ("self", "cls")]
    return name in params[1:]


def _defaults_to_none(name: str, func: cst.FunctionDef) -> bool:
    """`name` is a parameter of `func` that defaults to None."""
    for param in all_params(func.params):
        if param.name.value == name:
            default = param.default
            return isinstance(default, cst.Name) and default.value == "None"
    return False


def _assigned_once(func: cst.FunctionDef) -> dict[str, cst.BaseExpression | None]:
    """Name -> the expression it is bound to, for names the function assigns exactly once (None
    for names assigned more than once or augmented)."""
    out: dict[str, cst.BaseExpression | None] = {}
    for statement in walk_statements(func.body):
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    out[name] = None if name in out else statement.value
        elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)) and isinstance(statement.target, cst.Name):
            out[statement.target.value] = None
    return out


def _chain_key(reach: Reach, item: Traced) -> tuple[int, str, tuple[str, ...], str]:
    """Order of the chains that reach a function: shorter first, then by name."""
    return len(reach.via), reach.entry, reach.via, item.name


def _closure(
    roots: list[Traced], edges: dict[int, list[tuple[Traced, bool]]], follows: Callable[[int, int], bool]
) -> set[int]:
    """Ids of the functions `roots` reach through eval-mode calls that `follows(caller, callee)`."""
    reached: set[int] = set()
    stack = [id(root.func) for root in roots]
    while stack:
        key = stack.pop()
        if key in reached:
            continue
        reached.add(key)
        stack.extend(
            id(callee.func) for callee, eval_call in edges.get(key, []) if eval_call and follows(key, id(callee.func))
        )
    return reached


def _conjuncts(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands of an `and` chain (the test itself when it is not one)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _conjuncts(test.left)
        yield from _conjuncts(test.right)
    else:
        yield test


def _leftmost(test: cst.BaseExpression) -> cst.BaseExpression:
    """The operand an `and` chain evaluates first."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.left
    return test


def _callee_text(func: cst.BaseExpression) -> str | None:
    """`a.b.c` for a name chain; `super().x` for a call through super; None otherwise."""
    name = dotted(func)
    if name is not None:
        return name
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Call)
        and isinstance(func.value.func, cst.Name)
        and func.value.func.value == "super"
    ):
        return f"super().{func.attr.value}"
    return None


def _is_logger_call(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and (dotted(value.func) or "").endswith(
        ("getLogger", "get_logger")
    )


#: what a slot of FunctionSummary.passes gives the callee's parameter
_PASSED_VALUES = {
    "tensor": Value(Kind.TENSOR), "data": Value(Kind.DATA), "dd": Value(Kind.TENSOR | Kind.DD_TENSOR),
}


def passed_kind(value: Value) -> str | None:
    """How a summary records an argument for a callee in another file (None: nothing to say)."""
    if value.has(Kind.DD_TENSOR):
        return "dd"
    if value.has(Kind.DATA):
        return "data"
    return "tensor" if value.has(Kind.TENSOR | Kind.MASK) else None


_PYTHON_SCALARS = frozenset({"bool", "int", "float", "str", "None"})
_PYTHON_KINDS = Kind.DATA | Kind.SHAPE | Kind.DD_SIZE


def _python_part(value: Value) -> Value:
    kind = value.kind & _PYTHON_KINDS
    return Value(kind, value.origin) if kind else NOTHING


def _returns_python_scalar(func: cst.FunctionDef) -> bool:
    """`def is_tracing(...) -> bool`: whatever it computes from tensors, it hands back Python."""
    returns = func.returns
    return returns is not None and dotted(returns.annotation) in _PYTHON_SCALARS


def _is_static(func: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in func.decorators)


def _keyword_true(call: cst.Call, keyword: str) -> bool:
    return any(
        a.keyword is not None
        and a.keyword.value == keyword
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in call.args
    )


def _is_check(call: cst.Call) -> bool:
    """`torch._check(cond, lambda: msg)`, `torch_compilable_check(cond, lambda: ...)`: the message
    is built only when the check fails, never while a passing export traces."""
    name = (dotted(call.func) or "").rpartition(".")[2]
    return "check" in name or "assert" in name


def _blocks(body: cst.BaseSuite) -> Iterator[cst.IndentedBlock]:
    """Every indented block of a function body (nested defs included), statements only."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.IndentedBlock):
            yield node
            stack.extend(node.body)
        elif isinstance(node, cst.BaseCompoundStatement):
            stack.append(node.body)
            orelse = getattr(node, "orelse", None)
            if orelse is not None:
                stack.append(orelse)
            stack.extend(getattr(node, "handlers", ()))
            final = getattr(node, "finalbody", None)
            if final is not None:
                stack.append(final)
        elif isinstance(node, (cst.Else, cst.ExceptHandler, cst.Finally)):
            stack.append(node.body)


def _always_leaves(body: cst.BaseSuite) -> bool:
    """The block ends in `return` or `raise`."""
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def _suite_statements(stmt: cst.If | cst.Try) -> Iterator[cst.CSTNode]:
    yield from stmt.body.body
    if isinstance(stmt, cst.Try):
        for handler in stmt.handlers:
            yield from handler.body.body
    elif isinstance(stmt.orelse, cst.Else):
        yield from stmt.orelse.body.body
