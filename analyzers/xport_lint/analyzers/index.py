"""The project index: what every file defines and calls, so the traced set crosses files.

Each file's own analysis (runner.check_file) leaves a summary beside its findings: module name,
imports (relative ones made absolute), classes with their bases, methods and submodules, functions,
what each traced function calls, and the functions handed to export. From all summaries,
`ProjectIndex` computes the traced set the way torch.export does: the `forward` of every nn.Module
class (bases resolved across files, through aliases and re-exports), what it calls, transitively.
Each file then learns its `FileContext`: the classes that are modules only through another file,
and the functions that traced code of another file calls, with the chain that reaches them. A file
whose context changed is checked again; the CLI and the server repeat until nothing changes.

Summaries are plain JSON, cached with the findings (data only, never code).
"""

from __future__ import annotations

import functools
import heapq
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .names import is_standard_library
from .shapes import BlockDims, BuiltArguments, ShapeConfig, joined_arguments

#: bump when the summary's shape changes
SUMMARY_VERSION = 18
#: what a call passes a callee of another file, weakest first (a slot keeps the strongest;
#: "data-list": the list `.tolist()` reads, whose `len()` is a size)
PASSED_KINDS = ("tensor", "data-list", "data", "dd")
NOT_MODULE_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
#: how many re-exports a name is followed through (`from .impl import helper` in `__init__.py`)
_MAX_HOPS = 8


#: a configuration field's literal default (`enable_fusion: bool = False`)
Scalar = bool | int | float | str | None
#: configuration class -> field -> its literal default
ConfigDefaults = dict[str, dict[str, Scalar]]
#: a function's parameters and what it checks of them, as written (`shapes.written_size_checks`)
SizeChecks = tuple[tuple[str, ...], tuple[str, ...]]


#: what a return summary may say a value is (names of `dataflow.Kind`)
RETURN_KINDS = ("TENSOR", "MASK", "DD_TENSOR", "DATA", "SHAPE", "DD_SIZE", "MODULE", "NUMPY", "STRUCTURE", "DATA_LIST")


@dataclass(frozen=True)
class Returned:
    """What a function returns, for its callers in other files: the same facts a call of a helper
    of the caller's own file gives (`n = helpers.count(x)` then `for _ in range(n):`)."""

    #: what it returns other than parameters handed back as they are (`RETURN_KINDS`; empty: no
    #: tensor and nothing read from one, a Python constant or None)
    kinds: tuple[str, ...] = ()
    #: parameters returned as they are: (position among the positional parameters after `self`,
    #: or -1 for a keyword-only one; name): each call site gets back what it passes there
    through: tuple[tuple[int, str], ...] = ()
    #: every `return` hands back a tuple of this length: what each element holds
    elements: tuple[Returned, ...] = ()
    #: what only the `return`s a parameter defaulting to None guards hand back (after `if ignore
    #: is None: return x`), by that parameter (position, name, kinds): a call that leaves it None
    #: on a default export never gets it back
    optional: tuple[tuple[int, str, tuple[str, ...]], ...] = ()

    def to_plain(self) -> list[Any]:
        return [
            list(self.kinds), [list(slot) for slot in self.through], [e.to_plain() for e in self.elements],
            [[position, name, list(kinds)] for position, name, kinds in self.optional],
        ]

    @classmethod
    def from_plain(cls, data: Any) -> Returned:
        """Every field type-checked: raises ValueError/TypeError on anything else."""
        kinds, through, elements, optional = data
        guarded = tuple((position, name, tuple(returned)) for position, name, returned in optional)
        if not all(kind in RETURN_KINDS for kind in (*kinds, *(k for *_, ks in guarded for k in ks))):
            raise ValueError("unknown kind")
        slots = tuple((position, name) for position, name in through)
        if not all(type(p) is int and isinstance(n, str) for p, n in (*slots, *((p, n) for p, n, _ in guarded))):
            raise TypeError("malformed parameter")
        return cls(tuple(kinds), slots, tuple(cls.from_plain(e) for e in elements), guarded)


@dataclass
class FunctionSummary:
    #: callees as written that may be project code (`helper`, `self.attn`, `super().forward`,
    #: `ops.nms`; not `torch.*` or local variables); None while the function is not traced in its
    #: file's analysis (known once a context makes it traced)
    calls: list[str] | None = None
    #: traced from the file's own entry points (not only through another file)
    local: bool = False
    #: callee as written -> argument slot (position "0", "1", ... or keyword) -> what it carries
    #: ("tensor"; "dd": a tensor whose size depends on data; "data": a number read from a tensor),
    #: for callees in other files
    passes: dict[str, dict[str, str]] = field(default_factory=dict)
    #: what it returns, where its file's analysis solved it (a traced function)
    returns: Returned | None = None
    #: what it returns while exporting whatever its arguments, where export guards decide it
    #: (`def is_exporting(): return torch.compiler.is_exporting()`; a helper that returns False
    #: when `is_compiling()` before reading data), for the branches of its callers in other files
    exporting: bool | None = None
    #: callee as written -> why every call of it here runs only with a configuration the default
    #: leaves off (`if self.degensac: recover(...)`), for the functions of other files it reaches
    switched: dict[str, str] = field(default_factory=dict)
    #: callee as written -> the literal arguments of each call of it a default export makes here:
    #: argument slot (position "0", "1", ... or keyword; "*" for a starred one) -> [value], or []
    #: for a value not known (`approx=self.approx`, "erf" by `__init__`'s defaults: ["erf"])
    literals: dict[str, list[dict[str, list[Scalar]]]] = field(default_factory=dict)
    #: its parameters and what it checks of them (`shapes.written_size_checks`: `t.shape[0] > 8`),
    #: for its callers in other files to judge with their own sizes
    checks: SizeChecks | None = None


@dataclass
class ClassSummary:
    bases: list[str]
    methods: dict[str, FunctionSummary] = field(default_factory=dict)
    #: an nn.Module by the file's own analysis
    module: bool = False
    #: `self.` attribute -> the class `__init__` builds it from, as written (`Attention`,
    #: `layers.Block`, the elements' class of an `nn.ModuleList`): `self.attention(...)` runs its forward
    submodules: dict[str, str] = field(default_factory=dict)
    #: what its `forward` hands back of its arguments' dimensions (`shapes.block_dims`)
    dims: BlockDims = ()
    #: `module` only by the file's guess that a base imported from elsewhere is a library module:
    #: the project index decides where that base is project code
    guessed: bool = False


@dataclass
class ModuleSummary:
    """What one file defines and calls, by name."""

    module: str
    path: str
    imports: dict[str, str] = field(default_factory=dict)
    classes: dict[str, ClassSummary] = field(default_factory=dict)
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    #: names of functions the file hands to export (or compiles with fullgraph=True)
    exported: list[str] = field(default_factory=list)
    #: model classes of other files this file exports (qualified name), with their declared shapes
    shapes: dict[str, ShapeConfig] = field(default_factory=dict)
    #: one-line helpers of the file (`def pad(v): return v`) reading only their parameters and
    #: builtins: name -> (parameters, `return` expression), for the traced code and export sites
    #: of other files (`symbols.OneLineHelper`)
    helpers: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    #: callees as written in the file's export sites (`_h` of `dynamic_shapes=_h(shapes)`)
    site_calls: list[str] = field(default_factory=list)
    #: the file's configuration classes with their fields' literal defaults, for the files that
    #: build models from them
    configs: ConfigDefaults = field(default_factory=dict)
    #: configuration fields the file's modules branch on (`self.x = config.x`, then `if self.x:`)
    switches: list[str] = field(default_factory=list)
    #: the file's context managers (classes, `@contextmanager` generators, module-level instances)
    #: -> what entering one does, as plain data (`rules._context_managers.Defined`)
    contexts: dict[str, list[Any]] = field(default_factory=dict)
    #: what the file's calls of classes of other files pass them (`shapes.construction_arguments`)
    built: BuiltArguments = field(default_factory=dict)
    #: model classes of other files the file's own export sites export (qualified name): the keys
    #: of `shapes` that are no submodule a declared model passes its inputs to
    exports: list[str] = field(default_factory=list)
    #: classes of other files (as written) the file's model code builds: in a module class, or in
    #: a function of the file one calls (`facts.blocks_built`)
    blocks: list[str] = field(default_factory=list)

    def names(self) -> tuple[Any, ...]:
        """What the file defines and imports (what other files' names resolve to), without what
        its functions call."""
        return (
            self.imports, self.exported, list(self.functions),
            [(n, c.bases, list(c.methods), c.module, c.guessed) for n, c in self.classes.items()],
        )

    def to_plain(self) -> dict[str, Any]:
        def function(f: FunctionSummary) -> list[Any]:
            returned = None if f.returns is None else f.returns.to_plain()
            checks = None if f.checks is None else [list(part) for part in f.checks]
            return [f.calls, f.local, f.passes, returned, f.exporting, f.switched, f.literals, checks]

        return {
            "v": SUMMARY_VERSION, "module": self.module, "imports": self.imports, "exported": self.exported,
            "shapes": {name: config.to_plain() for name, config in self.shapes.items()},
            "helpers": {name: [list(params), text] for name, (params, text) in self.helpers.items()},
            "site_calls": self.site_calls, "configs": self.configs, "switches": self.switches,
            "contexts": self.contexts, "built": self.built, "exports": self.exports,
            "blocks": self.blocks,
            "functions": {n: function(f) for n, f in self.functions.items()},
            "classes": {
                n: [c.bases, {m: function(f) for m, f in c.methods.items()}, c.module, c.submodules,
                    [list(d) for d in c.dims], c.guessed]
                for n, c in self.classes.items()
            },
        }

    @classmethod
    def from_plain(cls, data: Any, path: str) -> ModuleSummary:
        """Every field type-checked: raises ValueError/TypeError/KeyError on anything else."""
        if data["v"] != SUMMARY_VERSION:
            raise ValueError("another summary version")

        def strings(value: Any) -> dict[str, str]:
            if not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
                raise TypeError("expected a table of strings")
            return value

        def function(value: Any) -> FunctionSummary:
            calls, local, passes, returns, exporting, switched, literals, checks = value
            if checks is not None and not (len(checks) == 2 and all(isinstance(t, str) for p in checks for t in p)):
                raise TypeError("malformed size checks")
            if not all(
                isinstance(slot, str) and isinstance(values, list) and len(values) <= 1
                and all(v is None or isinstance(v, (bool, int, float, str)) for v in values)
                for made in literals.values() for call in made for slot, values in call.items()
            ):
                raise TypeError("malformed literal arguments")
            if type(local) is not bool or not (calls is None or all(isinstance(c, str) for c in calls)) or not (
                exporting is None or type(exporting) is bool
            ):
                raise TypeError("malformed function")
            slots = {str(callee): strings(kinds) for callee, kinds in passes.items()}
            if not all(kind in PASSED_KINDS for kinds in slots.values() for kind in kinds.values()):
                raise TypeError("malformed function")
            returned = None if returns is None else Returned.from_plain(returns)
            return FunctionSummary(
                None if calls is None else list(calls), local, slots, returned, exporting, strings(switched),
                {str(written): [dict(call) for call in made] for written, made in literals.items()},
                None if checks is None else (tuple(checks[0]), tuple(checks[1])),
            )

        classes = {}
        for name, (bases, methods, module, submodules, dims, guessed) in data["classes"].items():
            kept = tuple((out, position, inner) for out, position, inner in dims)
            if type(module) is not bool or type(guessed) is not bool or not all(
                isinstance(b, str) for b in bases
            ) or not all(type(n) is int for d in kept for n in d):
                raise TypeError("malformed class")
            classes[name] = ClassSummary(
                list(bases), {m: function(f) for m, f in methods.items()}, module, strings(submodules), kept, guessed
            )
        exported = data["exported"]
        if not (isinstance(data["module"], str) and all(isinstance(e, str) for e in exported)):
            raise TypeError("malformed module")
        shapes = {str(name): ShapeConfig.from_plain(config) for name, config in data["shapes"].items()}
        helpers = {str(name): (tuple(params), text) for name, (params, text) in data["helpers"].items()}
        site_calls = data["site_calls"]
        if not all(isinstance(t, str) and all(isinstance(p, str) for p in ps) for ps, t in helpers.values()) or not all(
            isinstance(c, str) for c in site_calls
        ):
            raise TypeError("malformed helpers")
        configs = {
            str(name): {str(f): v for f, v in fields.items()} for name, fields in data["configs"].items()
        }
        switches = data["switches"]
        if not all(
            v is None or isinstance(v, (bool, int, float, str)) for fields in configs.values() for v in fields.values()
        ) or not all(isinstance(s, str) for s in switches):
            raise TypeError("malformed configuration defaults")
        contexts = {str(name): list(plain) for name, plain in data["contexts"].items()}
        if not all(
            len(p) == 5 and isinstance(p[0], str) and all(isinstance(w, str) and isinstance(c, str) for w, c in p[1])
            and type(p[2]) is bool and (p[3] is None or isinstance(p[3], str)) and type(p[4]) is bool
            for p in contexts.values()
        ):
            raise TypeError("malformed context managers")
        built = {str(written): {str(slot): v for slot, v in slots.items()} for written, slots in data["built"].items()}
        if not all(v is None or type(v) is int for slots in built.values() for v in slots.values()):
            raise TypeError("malformed construction arguments")
        exports, blocks = data["exports"], data["blocks"]
        if not all(isinstance(e, str) for e in (*exports, *blocks)):
            raise TypeError("malformed exports or blocks")
        return cls(
            data["module"], path, strings(data["imports"]), classes,
            {n: function(f) for n, f in data["functions"].items()}, list(exported), shapes, helpers, list(site_calls),
            configs, list(switches), contexts, built, list(exports), list(blocks),
        )


def module_name(path: str) -> tuple[str, bool]:
    """The dotted name a file is imported by (its package folders are those holding an
    `__init__.py`), and whether it is a package's `__init__`."""
    file = Path(path).absolute()
    is_package = file.name == "__init__.py"
    parts = [] if is_package else [file.stem]
    folder = file.parent
    while folder != folder.parent and (folder / "__init__.py").is_file():
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts)) or file.stem, is_package


def absolute_import(base: str, package: str) -> str:
    """`..utils.helper` written in package `a.b` is `a.utils.helper`."""
    level = len(base) - len(base.lstrip("."))
    if not level:
        return base
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: max(len(parts) - (level - 1), 0)]
    rest = base[level:]
    return ".".join([*parts, rest] if rest else parts)


_DEFINITION = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.MULTILINE)


def definition_lines(source: str) -> dict[str, int]:
    """Line of each top-level `def`/`class` and of each method (`Class.method`), from the text
    (libcst gives positions only at the price of a metadata pass)."""
    lines: dict[str, int] = {}
    classes: list[tuple[int, str]] = []  # (indent, name) of the enclosing class statements
    line, offset = 1, 0
    for match in _DEFINITION.finditer(source):
        line += source.count("\n", offset, match.start())
        offset = match.start()
        indent, kind, name = len(match.group(1)), match.group(2), match.group(3)
        while classes and classes[-1][0] >= indent:
            classes.pop()
        if indent == 0:
            lines.setdefault(name, line)
        elif kind == "def" and len(classes) == 1:
            lines.setdefault(f"{classes[0][1]}.{name}", line)
        if kind == "class":
            classes.append((indent, name))
    return lines


@dataclass(frozen=True)
class Reach:
    """How traced code in another file reaches a function: the entry point (`LlamaModel.forward`),
    the calls after it, and the calling function's place in its file."""

    entry: str
    via: tuple[str, ...]
    path: str
    line: int

    def describe(self) -> str:
        chain = " -> ".join(f"`{name}`" for name in self.via)
        return f"traced: reached from `{self.entry}`" + (f" via {chain}" if chain else "")


@dataclass(frozen=True)
class FileContext:
    """What one file's analysis learns from the rest of the project."""

    #: classes of the file that are nn.Modules through a base in another file
    module_classes: frozenset[str] = frozenset()
    #: classes of the file it takes for modules by a base imported from elsewhere that the project
    #: shows to be no module (a `forward` over an `abc.ABC` base class: torch_geometric's transforms)
    plain_classes: frozenset[str] = frozenset()
    #: `func` / `Class.method` of the file that traced code of another file calls
    entries: tuple[tuple[str, Reach], ...] = ()
    #: analyse only what `entries` reach (a followed file outside the linted paths)
    entries_only: bool = False
    #: classes of the file that another file exports, with the shapes it declares
    shapes: tuple[tuple[str, ShapeConfig], ...] = ()
    #: `func` / `Class.method` of the file -> argument slot -> "tensor", "dd" or "data": what traced
    #: code of other files passes it (a tensor; a box count left by a score filter), the strongest
    #: any call site passes
    arguments: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    #: callee as written in the file's traced code (`count`, `helpers.count`) -> what that function
    #: of another file returns, where every call of that spelling in the file reaches the same one
    returns: tuple[tuple[str, Returned], ...] = ()
    #: callee as written in the file's traced code or export sites -> that one-line helper of
    #: another file's parameters and `return` expression (`ModuleSummary.helpers`)
    helpers: tuple[tuple[str, tuple[tuple[str, ...], str]], ...] = ()
    #: submodule class as written in the file's `__init__`s -> what that class of another file's
    #: `forward` hands back of its arguments' dimensions (`ClassSummary.dims`)
    blocks: tuple[tuple[str, BlockDims], ...] = ()
    #: configuration class of another file as written in the file (`ClapAudioConfig`) -> the
    #: literal defaults of its fields the file branches on (`ModuleSummary.switches`)
    configs: tuple[tuple[str, tuple[tuple[str, Scalar], ...]], ...] = ()
    #: context manager of another file as written in the file (`Timer`, `scopes.timed`) -> what
    #: entering it does, as JSON (`ModuleSummary.contexts`)
    contexts: tuple[tuple[str, str], ...] = ()
    #: callee as written in the file's traced code -> what that function of another file returns
    #: while exporting (`FunctionSummary.exporting`)
    exporting: tuple[tuple[str, bool], ...] = ()
    #: `func` / `Class.method` of the file (among `entries`) that traced code of other files calls
    #: only with a configuration the default leaves off, with why (`FunctionSummary.switched`)
    switched: tuple[tuple[str, str], ...] = ()
    #: `func` / `Class.method` of the file (among `entries`) -> the literal arguments of every
    #: traced call of other files, as JSON (`FunctionSummary.literals`)
    literals: tuple[tuple[str, str], ...] = ()
    #: callee as written in the file's traced code -> what that function of another file checks
    #: of its parameters (`FunctionSummary.checks`)
    checks: tuple[tuple[str, SizeChecks], ...] = ()
    #: class of the file -> what other files' calls building it pass (`ModuleSummary.built`,
    #: joined over those files: one integer literal per argument slot, or None where they differ)
    built: tuple[tuple[str, tuple[tuple[str, int | None], ...]], ...] = ()
    #: classes of the file other files' model code builds (`ModuleSummary.blocks`) and no other
    #: file's export site exports (`ModuleSummary.exports`): blocks of another file's model
    blocks_elsewhere: tuple[str, ...] = ()

    def digest(self) -> str:
        """Stable text for the findings cache key."""
        return json.dumps([
            sorted(self.module_classes),
            sorted(self.plain_classes),
            [[name, r.entry, list(r.via), r.path, r.line] for name, r in self.entries],
            self.entries_only,
            [[name, config.to_plain()] for name, config in self.shapes],
            [[name, [list(slot) for slot in slots]] for name, slots in self.arguments],
            [[written, returned.to_plain()] for written, returned in self.returns],
            [[written, list(params), text] for written, (params, text) in self.helpers],
            [[written, [list(d) for d in dims]] for written, dims in self.blocks],
            [[written, [list(f) for f in fields]] for written, fields in self.configs],
            [list(c) for c in self.contexts],
            [list(e) for e in self.exporting],
            [list(s) for s in self.switched],
            [list(c) for c in self.literals],
            [[written, [list(part) for part in checks]] for written, checks in self.checks],
            [[name, [list(slot) for slot in slots]] for name, slots in self.built],
            list(self.blocks_elsewhere),
        ])

    def config_defaults(self) -> ConfigDefaults:
        """The configuration classes of other files the file names, with their known defaults."""
        return {written: dict(fields) for written, fields in self.configs}

    def built_elsewhere(self, name: str) -> dict[str, int | None]:
        """What other files' calls building the file's class `name` pass it, per argument slot."""
        return dict(next((slots for built, slots in self.built if built == name), ()))

    def context_manager(self, written: str) -> list[Any] | None:
        """What entering the context manager of another file written `written` does (None: unknown)."""
        found = next((plain for name, plain in self.contexts if name == written), None) if self.contexts else None
        return json.loads(found) if found is not None else None

    def block(self, written: str) -> BlockDims | None:
        """What the class of another file written `written` keeps of its arguments' dimensions."""
        return dict(self.blocks).get(written) if self.blocks else None

    def size_checks(self, written: str) -> SizeChecks | None:
        """What the function of another file a call written `written` reaches checks of its
        parameters (None: nothing known)."""
        return dict(self.checks).get(written) if self.checks else None

    def returned(self, written: str) -> Returned | None:
        """What the function of another file a call written `written` reaches returns (None: unknown)."""
        return self._returned.get(written) if self.returns else None

    @functools.cached_property
    def _returned(self) -> dict[str, Returned]:
        return dict(self.returns)

    def while_exporting(self, written: str) -> bool | None:
        """What the function of another file a call written `written` reaches returns while
        exporting, whatever its arguments (None: unknown, or not decided by export guards)."""
        return dict(self.exporting).get(written) if self.exporting else None

    def inline(self, written: str) -> tuple[tuple[str, ...], str] | None:
        """The parameters and `return` expression of the one-line helper of another file that a
        call written `written` (in traced code or an export site) reaches (None: unknown, or not
        such a helper)."""
        return next((helper for name, helper in self.helpers if name == written), None)


EMPTY_CONTEXT = FileContext()

#: (module, "func" or "Class.method"), or (module, "Class") for a class
Key = tuple[str, str]
#: a traced function and the class whose instance runs it (`self.x` dispatches on it)
Node = tuple[Key, Key | None]


class ProjectIndex:
    """The traced set of a whole project, from its files' summaries. `paths`: every file of the
    project, summarized or not yet (a file whose check was skipped has no summary: a call into
    it makes it an entry, so it is checked)."""

    def __init__(
        self, paths: Iterable[str], summaries: dict[str, ModuleSummary], followed: Iterable[str] = (),
        previous: ProjectIndex | None = None,
    ) -> None:
        """`previous`: the index of the same files before some were checked again; what it
        resolved is reused where those files still define the same names."""
        self.path_of: dict[str, str] = {}
        self.by_module: dict[str, ModuleSummary] = {}
        # in sorted order: two files of one module name resolve alike whatever the command line's order
        for path in sorted(paths):
            summary = summaries.get(path)
            module = summary.module if summary is not None else module_name(path)[0]
            self.path_of.setdefault(module, path)
            if summary is not None:
                self.by_module.setdefault(module, summary)
        self.summaries = summaries
        self.followed = frozenset(followed)
        self._is_module: dict[Key, bool] = {}
        self._bases_of: dict[Key, list[Key | str]] = {}
        self._methods: dict[Key, dict[str, Key]] = {}
        self._resolved: dict[tuple[str, str], Key | str | None] = {}
        self._called: dict[Node, list[Node]] = {}
        #: (traced node, callee as written) -> what the call runs (`_callee_of`)
        self._callee_found: dict[tuple[Node, str], Node | None] = {}
        self._lines: dict[str, dict[str, int]] = {}
        if previous is not None:
            self._reuse(previous)
        #: function -> the traced node that calls it on its shortest chain from an entry point, the
        #: first such chain in sorted order (None: an entry point)
        self.parents: dict[Key, Node | None] = {}
        #: function -> the class that runs it on that chain
        self._dispatch: dict[Key, Key | None] = {}
        self._entries: dict[str, list[tuple[str, Reach]]] | None = None
        self._shapes: dict[str, dict[str, ShapeConfig]] | None = None
        self._arguments: dict[str, dict[str, dict[str, str]]] | None = None
        self._returns: dict[str, dict[str, Returned]] | None = None
        self._helpers: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {}
        #: per module: its traced callees as written -> what they check of their parameters
        self._checks: dict[str, dict[str, SizeChecks]] = {}
        #: per module: its traced callees as written -> what they return while exporting
        self._exporting: dict[str, dict[str, bool]] = {}
        self._switched: dict[str, dict[str, str]] | None = None
        self._literals: dict[str, dict[str, str]] | None = None
        self._built: dict[str, BuiltArguments] | None = None
        self._blocks_built: dict[str, set[str]] | None = None
        #: path -> the summary its context was computed from, and that context (a project check
        #: asks each file's context of one index up to three times: the re-index, the next round,
        #: the outcome)
        self._context_of: dict[str, tuple[ModuleSummary | None, FileContext]] = {}
        self._traced()

    def _reuse(self, previous: ProjectIndex) -> None:
        changed = {
            module for module, summary in self.by_module.items() if previous.by_module.get(module) is not summary
        }
        if set(previous.by_module) != set(self.by_module) or any(
            previous.by_module[m].names() != self.by_module[m].names() for m in changed
        ):
            return  # names moved: resolve everything again
        self._is_module = previous._is_module
        self._bases_of = previous._bases_of
        self._methods = previous._methods
        self._resolved = previous._resolved
        self._called = {node: callees for node, callees in previous._called.items() if node[0][0] not in changed}

    # -- names -----------------------------------------------------------------------------

    def lookup(self, qualified: str, hops: int = 0) -> Key | None:
        """The project's function or class a qualified name denotes (through re-exports)."""
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module not in self.path_of:
                continue
            summary = self.by_module.get(module)
            rest = parts[cut:]
            if summary is None:  # not summarized yet: a name it may define
                return (module, ".".join(rest)) if len(rest) <= 2 else None
            return self._member(summary, rest, hops)
        return None

    def _member(self, summary: ModuleSummary, rest: list[str], hops: int) -> Key | None:
        head = rest[0]
        if head in summary.functions and len(rest) == 1:
            return summary.module, head
        if head in summary.classes and len(rest) <= 2:
            return summary.module, ".".join(rest)
        target = summary.imports.get(head)
        if target is not None and hops < _MAX_HOPS:
            return self.lookup(".".join([target, *rest[1:]]), hops + 1)
        return None

    def resolve_local(self, summary: ModuleSummary, written: str) -> Key | str | None:
        """A name as written in `summary`'s file: a project Key, else the qualified name of an
        import (str), else None."""
        memo = (summary.module, written)
        if memo not in self._resolved:
            self._resolved[memo] = self._resolve_local(summary, written)
        return self._resolved[memo]

    def _resolve_local(self, summary: ModuleSummary, written: str) -> Key | str | None:
        root, _, rest = written.partition(".")
        if root in summary.functions or root in summary.classes:
            return self._member(summary, written.split("."), 0)
        target = summary.imports.get(root)
        if target is None:
            return None
        qualified = f"{target}.{rest}" if rest else target
        return self.lookup(qualified) or qualified

    def _class(self, key: Key) -> ClassSummary | None:
        summary = self.by_module.get(key[0])
        return summary.classes.get(key[1]) if summary is not None else None

    def _bases(self, key: Key) -> list[Key | str]:
        known = self._bases_of.get(key)
        if known is None:
            known = self._bases_of[key] = []
            cls = self._class(key)
            if cls is not None:
                summary = self.by_module[key[0]]
                for base in cls.bases:
                    resolved = self.resolve_local(summary, base)
                    if resolved is not None:
                        known.append(resolved)
        return known

    def is_module_class(self, key: Key, seen: frozenset[Key] = frozenset()) -> bool:
        """An nn.Module subclass: a base chain that reaches `torch.nn`; or a `forward` and a base
        chain that reaches a library outside the project (a `PreTrainedModel` not linted)."""
        known = self._is_module.get(key)
        if known is not None:
            return known
        if key in seen:
            return False
        cls = self._class(key)
        answer = cls is not None and cls.module and not cls.guessed
        for base in () if answer else self._bases(key):
            if isinstance(base, str):
                if base in NOT_MODULE_BASES:
                    break
                if base.startswith("torch.nn."):
                    answer = True
                    break
            elif self.is_module_class(base, seen | {key}):
                answer = True
                break
        if not answer and self.find_method(key, "forward") is not None:
            answer = self._reaches_library(key, set())
        if not seen:
            self._is_module[key] = answer
        return answer

    def _reaches_library(self, key: Key, seen: set[Key]) -> bool:
        if key in seen:
            return False
        seen.add(key)
        for base in self._bases(key):
            if isinstance(base, str):
                if base in NOT_MODULE_BASES:
                    return False
                if not base.startswith("torch.") and not is_standard_library(base):
                    return True
            elif self._reaches_library(base, seen):
                return True
        return False

    def find_method(self, key: Key, name: str, skip_own: bool = False) -> Key | None:
        """The method `name` an instance of class `key` runs (own methods first, then the bases'
        left to right: close enough to the MRO); `skip_own`: as `super().name` in `key` does."""
        if not skip_own:
            return self._method_table(key, frozenset()).get(name)
        for base in self._bases(key):
            if not isinstance(base, str) and (found := self._method_table(base, frozenset()).get(name)):
                return found
        return None

    def _method_table(self, key: Key, seen: frozenset[Key]) -> dict[str, Key]:
        known = self._methods.get(key)
        if known is not None:
            return known
        table: dict[str, Key] = {}
        cls = self._class(key)
        if cls is not None and key not in seen:
            for name in cls.methods:
                table[name] = (key[0], f"{key[1]}.{name}")
            for base in self._bases(key):
                if not isinstance(base, str):
                    for name, found in self._method_table(base, seen | {key}).items():
                        table.setdefault(name, found)
        if not seen:
            self._methods[key] = table
        return table

    # -- the traced set --------------------------------------------------------------------

    def _function(self, key: Key) -> FunctionSummary | None:
        summary = self.by_module.get(key[0])
        if summary is None:
            return None
        cls_name, _, name = key[1].rpartition(".")
        if cls_name:
            cls = summary.classes.get(cls_name)
            return cls.methods.get(name) if cls is not None else None
        return summary.functions.get(name)

    def _callable(self, key: Key) -> bool:
        """A function or method of the project (or a name in a file not summarized yet)."""
        return key[0] not in self.by_module or self._function(key) is not None

    def _roots(self) -> Iterator[Node]:
        for summary in self.by_module.values():
            if summary.path in self.followed:
                continue
            for name in summary.classes:
                key = (summary.module, name)
                if self.is_module_class(key):
                    forward = self.find_method(key, "forward")
                    if forward is not None:
                        yield self._node(forward, key)
            for name in summary.exported:
                target = self.resolve_local(summary, name)
                if isinstance(target, tuple) and self._callable(target):
                    yield target, None

    def _node(self, func: Key, dispatch: Key | None) -> Node:
        """`dispatch` kept only where it differs from the class defining `func` (an inherited
        method, whose `self.x` calls may reach the subclass's overrides)."""
        if dispatch is not None and dispatch[0] == func[0] and func[1].startswith(f"{dispatch[1]}."):
            return func, None
        return func, dispatch

    def _callees(self, node: Node) -> list[Node]:
        known = self._called.get(node)
        if known is None:
            known = self._called[node] = list(dict.fromkeys(self._find_callees(node)))
        return known

    # -- the call graph, for readers outside the index (the readiness report) ---------------

    def node(self, func: Key, dispatch: Key | None) -> Node:
        """The call-graph node of `func` run by an instance of class `dispatch` (`callees`' and
        `parents`' keys)."""
        return self._node(func, dispatch)

    def callees(self, node: Node) -> list[Node]:
        """The project functions `node`'s code calls, each once, in the order written."""
        return self._callees(node)

    def declared_shapes(self) -> dict[str, dict[str, ShapeConfig]]:
        """Per module: its classes that export scripts of other files export, with their shapes."""
        return self._declared_shapes()

    def _find_callees(self, node: Node) -> Iterator[Node]:
        func = self._function(node[0])
        if func is None or not func.calls:
            return
        for written in func.calls:
            callee = self._callee_of(node, written)
            if callee is not None:
                yield callee

    def _callee_of(self, node: Node, written: str) -> Node | None:
        """What a call written `written` in traced `node` runs (None: not project code). Found once
        per index: the call graph, what callees return, their arguments, literals and switches
        each ask it of every traced call (half of an index build when found each time)."""
        memo = (node, written)
        if memo not in self._callee_found:
            self._callee_found[memo] = self._find_callee(node, written)
        return self._callee_found[memo]

    def _find_callee(self, node: Node, written: str) -> Node | None:
        key, dispatch = node
        summary = self.by_module[key[0]]
        cls_name = key[1].rpartition(".")[0]
        owner = (key[0], cls_name) if cls_name else None
        root, _, rest = written.partition(".")
        if owner is not None and root in ("self", "cls") and rest and "." not in rest:
            # (`self.block(x)` runs a submodule's forward: a root of its own already)
            method = self.find_method(dispatch or owner, rest)
            if method is not None:
                return self._node(method, dispatch or owner)
            return self._attribute_method(dispatch or owner, rest, "__call__") if root == "self" else None
        if owner is not None and root == "self" and rest.count(".") == 1:
            attribute, _, name = rest.partition(".")
            return self._attribute_method(dispatch or owner, attribute, name)
        if owner is not None and root == "super()" and rest:
            method = self.find_method(owner, rest, skip_own=True)
            return self._node(method, dispatch or owner) if method is not None else None
        target = self.resolve_local(summary, written)
        if isinstance(target, tuple) and self._callable(target):
            return target, None
        return None

    def _traced(self) -> None:
        """Every traced node from the roots, shortest chains first and, among chains of one length,
        in sorted order of their names: which caller a function is reached from does not depend on
        the order of the files or of the calls."""
        # entries order by (depth, chain, node, parent) as text: ties never compare a node with None
        queue: list[tuple[int, tuple[tuple[str, str], ...], str, str, Node, Node | None]] = []
        for root in self._roots():
            heapq.heappush(queue, (0, ((root[0][0], self._name(root)),), repr(root), "", root, None))
        seen: set[Node] = set()
        while queue:
            depth, chain, _, _, node, parent = heapq.heappop(queue)
            if node in seen:
                continue
            seen.add(node)
            if node[0] not in self.parents:
                self.parents[node[0]] = parent
                self._dispatch[node[0]] = node[1]
            for callee in self._callees(node):
                if callee not in seen:
                    step = (callee[0][0], self._name(callee))
                    heapq.heappush(queue, (depth + 1, (*chain, step), repr(callee), repr(node), callee, node))

    def _name(self, node: Node) -> str:
        """`LlamaModel.forward` for a forward a subclass inherits: named by the class that runs it."""
        key, dispatch = node
        cls_name, _, method = key[1].rpartition(".")
        if dispatch is not None and cls_name and dispatch[1] != cls_name:
            return f"{dispatch[1]}.{method}"
        return key[1]

    def reach(self, key: Key) -> Reach | None:
        """The shortest chain of calls from an entry point to `key` (None for an entry point)."""
        parent = self.parents.get(key)
        if parent is None:
            return None
        chain: list[str] = []
        current = parent
        while (above := self.parents.get(current[0])) is not None:
            chain.append(self._name(current))
            current = above
        chain.reverse()
        caller = parent[0]
        path = self.path_of[caller[0]]
        return Reach(self._name(current), tuple(chain), path, self._line(path, caller[1]))

    def context(self, path: str) -> FileContext:
        summary = self.summaries.get(path)
        known = self._context_of.get(path)
        if known is None or known[0] is not summary:  # a summary recorded since: computed again
            known = self._context_of[path] = (summary, self._context(path, summary))
        return known[1]

    def _context(self, path: str, summary: ModuleSummary | None) -> FileContext:
        if self._entries is None:
            self._entries = self._group_entries()
        module = summary.module if summary is not None else module_name(path)[0]
        if self.path_of.get(module) != path:
            return EMPTY_CONTEXT
        module_classes = frozenset(
            name for name, cls in (summary.classes.items() if summary is not None else ())
            if not cls.module and self.is_module_class((module, name))
        )
        plain_classes = frozenset(
            name for name, cls in (summary.classes.items() if summary is not None else ())
            if cls.guessed and not self.is_module_class((module, name))
        )
        entries = tuple(sorted(self._entries.get(module, ()), key=lambda item: item[0]))
        shapes = tuple(sorted(self._declared_shapes().get(module, {}).items()))
        arguments = tuple(sorted(
            (name, tuple(sorted(slots.items()))) for name, slots in self._data_arguments().get(module, {}).items()
        ))
        returns = tuple(sorted(self._returned_by_callees().get(module, {}).items()))
        helpers = self._helpers_called(summary, module) if summary is not None else ()
        blocks = self._blocks(summary) if summary is not None else ()
        configs = self._configs(summary) if summary is not None and summary.switches else ()
        contexts = self._contexts(summary) if summary is not None else ()
        exporting = tuple(sorted(self._exporting.get(module, {}).items()))  # beside `returns`
        switched = tuple(sorted(self._switched_entries().get(module, {}).items()))
        literals = tuple(sorted(self._literal_calls().get(module, {}).items()))
        checks = tuple(sorted(self._checks.get(module, {}).items()))  # beside `returns`
        built = tuple(sorted((name, tuple(sorted(slots.items()))) for name, slots in self._built_elsewhere().get(
            module, {}).items()))
        blocks_elsewhere = tuple(sorted(self._blocks_elsewhere().get(module, ())))
        if not (
            module_classes or plain_classes or entries or shapes or arguments or returns or helpers or blocks
            or configs or contexts or exporting or checks or built or blocks_elsewhere
        ) and path not in self.followed:
            return EMPTY_CONTEXT
        return FileContext(
            module_classes, plain_classes, entries, entries_only=path in self.followed, shapes=shapes,
            arguments=arguments, returns=returns, helpers=helpers, blocks=blocks, configs=configs, contexts=contexts,
            exporting=exporting, switched=switched, literals=literals, checks=checks, built=built,
            blocks_elsewhere=blocks_elsewhere,
        )

    def _contexts(self, summary: ModuleSummary) -> tuple[tuple[str, str], ...]:
        """The context managers of other files `summary`'s file imports (`from .scopes import
        Timer`; `from . import scopes`, then `scopes.timed()`), with what entering each does."""
        found = []
        for written, target in sorted(summary.imports.items()):
            other = self.by_module.get(target)
            if other is not None:
                found += [(f"{written}.{name}", json.dumps(plain)) for name, plain in sorted(other.contexts.items())]
                continue
            key = self.lookup(target)
            module, name = key if isinstance(key, tuple) else target.rpartition(".")[::2]
            other = self.by_module.get(module)
            if other is not None and other is not summary and name in other.contexts:
                found.append((written, json.dumps(other.contexts[name])))
        return tuple(found)

    def _configs(self, summary: ModuleSummary) -> tuple[tuple[str, tuple[tuple[str, Scalar], ...]], ...]:
        """The configuration classes of other files `summary`'s file imports, with the defaults of
        the fields it branches on (`from .configuration_clap import ClapAudioConfig`)."""
        wanted = set(summary.switches)
        found = []
        for written in sorted(summary.imports):
            key = self.resolve_local(summary, written)
            other = self.by_module.get(key[0]) if isinstance(key, tuple) and key[0] != summary.module else None
            fields = other.configs.get(key[1]) if other is not None else None
            known = tuple(sorted((name, value) for name, value in (fields or {}).items() if name in wanted))
            if known:
                found.append((written, known))
        return tuple(found)

    def _blocks(self, summary: ModuleSummary) -> tuple[tuple[str, BlockDims], ...]:
        """The submodule classes of other files `summary`'s classes build, with what their
        `forward` keeps of its arguments' dimensions."""
        found = {}
        for cls in summary.classes.values():
            for written in cls.submodules.values():
                key = self.resolve_local(summary, written)
                built = self._class(key) if isinstance(key, tuple) and key[0] != summary.module else None
                if built is not None and built.dims:
                    found[written] = built.dims
        return tuple(sorted(found.items()))

    def _helpers_called(
        self, summary: ModuleSummary, module: str
    ) -> tuple[tuple[str, tuple[tuple[str, ...], str]], ...]:
        """The one-line helpers of other files that `summary`'s traced code and export sites call,
        by the callee as written."""
        self._returned_by_callees()  # finds the traced callees' helpers beside what they return
        found = dict(self._helpers.get(module, {}))
        for written in sorted(set(summary.site_calls)):
            key = self.resolve_local(summary, written)
            other = self.by_module.get(key[0]) if isinstance(key, tuple) and key[0] != summary.module else None
            helper = other.helpers.get(key[1]) if other is not None else None
            if helper is not None:
                found[written] = helper
        return tuple(sorted(found.items()))

    def _returned_by_callees(self) -> dict[str, dict[str, Returned]]:
        """Per module: each callee as written in its traced code that reaches a function of another
        file, with what that function's summary says it returns. A spelling that reaches two
        functions (`self.norm` in two classes with bases in two files) says nothing: unknown.
        Beside it, in `_helpers`, each such spelling that reaches a one-line helper, in
        `_exporting`, each that reaches a function returning one value while exporting, and in
        `_checks`, each that reaches a function checking its parameters."""
        if self._returns is not None:
            return self._returns
        found: dict[str, dict[str, Returned | None]] = {}
        helpers: dict[str, dict[str, tuple[tuple[str, ...], str] | None]] = {}
        exporting: dict[str, dict[str, bool | None]] = {}
        checked: dict[str, dict[str, SizeChecks | None]] = {}
        for key in self.parents:
            func = self._function(key)
            if func is None or not func.calls:
                continue
            node = (key, self._dispatch.get(key))
            table = found.setdefault(key[0], {})
            inline = helpers.setdefault(key[0], {})
            decided = exporting.setdefault(key[0], {})
            checking = checked.setdefault(key[0], {})
            for written in func.calls:
                callee = self._callee_of(node, written)
                if callee is None or callee[0][0] == key[0]:
                    continue  # not project code, or a function of the same file (its own dataflow)
                summary = self._function(callee[0])
                returned = summary.returns if summary is not None else None
                table[written] = returned if table.get(written, returned) == returned else None
                other = self.by_module.get(callee[0][0])
                helper = other.helpers.get(callee[0][1]) if other is not None else None
                inline[written] = helper if inline.get(written, helper) == helper else None
                value = summary.exporting if summary is not None else None
                decided[written] = value if decided.get(written, value) is value else None
                checks = summary.checks if summary is not None else None
                checking[written] = checks if checking.get(written, checks) == checks else None
        self._returns = {
            module: {written: returned for written, returned in table.items() if returned is not None}
            for module, table in found.items()
        }
        self._helpers = {
            module: {written: helper for written, helper in table.items() if helper is not None}
            for module, table in helpers.items()
        }
        self._exporting = {
            module: {written: value for written, value in table.items() if value is not None}
            for module, table in exporting.items()
        }
        self._checks = {
            module: {written: checks for written, checks in table.items() if checks is not None}
            for module, table in checked.items()
        }
        return self._returns

    def _switched_entries(self) -> dict[str, dict[str, str]]:
        """Per module, its functions every traced call of another file makes only with a
        configuration the default leaves off, with the first such reason in sorted order (the
        callee's own file decides whether its own traced code calls it too)."""
        if self._switched is not None:
            return self._switched
        found: dict[Key, list[str | None]] = {}
        for key in sorted(self.parents):
            func = self._function(key)
            if func is None or not func.calls:
                continue
            node = (key, self._dispatch.get(key))
            for written in func.calls:
                callee = self._callee_of(node, written)
                if callee is not None and callee[0][0] != key[0]:
                    found.setdefault(callee[0], []).append(func.switched.get(written))
        self._switched = {}
        for (module, name), reasons in found.items():
            if None not in reasons:
                self._switched.setdefault(module, {})[name] = min(reasons)  # type: ignore[type-var]
        return self._switched

    def _literal_calls(self) -> dict[str, dict[str, str]]:
        """Per module, its functions with the literal arguments of every call traced code of
        other files makes of them on a default export's path (JSON), in sorted order of the callers;
        a caller that calls one and recorded nothing for it (a call with no literals known) leaves
        it unknown."""
        if self._literals is not None:
            return self._literals
        found: dict[Key, list[dict[str, list[Scalar]]] | None] = {}
        for key in sorted(self.parents):
            func = self._function(key)
            if func is None or not func.calls:
                continue
            node = (key, self._dispatch.get(key))
            for written in func.calls:
                callee = self._callee_of(node, written)
                if callee is None or callee[0][0] == key[0] or written in func.switched:
                    continue
                made = func.literals.get(written)
                known = found.get(callee[0], [])
                found[callee[0]] = None if made is None or known is None else known + made
        self._literals = {}
        for (module, name), calls in found.items():
            if calls:
                self._literals.setdefault(module, {})[name] = json.dumps(calls, sort_keys=True)
        return self._literals

    def _built_elsewhere(self) -> dict[str, BuiltArguments]:
        """Per module, its classes that other files build with arguments, with what those calls
        pass (`ModuleSummary.built` resolved to the class and joined: the same whatever order the
        files come in)."""
        if self._built is None:
            self._built = {}
            for summary in self.by_module.values():
                for written, slots in summary.built.items():
                    key = self.resolve_local(summary, written)
                    if not isinstance(key, tuple) or key[0] == summary.module or self._class(key) is None:
                        continue
                    built = self._built.setdefault(key[0], {})
                    built[key[1]] = joined_arguments((built.get(key[1], {}), slots))
        return self._built

    def _blocks_elsewhere(self) -> dict[str, set[str]]:
        """Per module, its classes that other files' model code builds (`ModuleSummary.blocks`)
        and no export site of another file exports (`ModuleSummary.exports`): the same whatever
        order the files come in."""
        if self._blocks_built is None:
            built: dict[str, set[str]] = {}
            exported: set[tuple[str, str]] = set()
            for summary in self.by_module.values():
                for written in summary.blocks:
                    key = self.resolve_local(summary, written)
                    if isinstance(key, tuple) and key[0] != summary.module and self._class(key) is not None:
                        built.setdefault(key[0], set()).add(key[1])
                for qualified in summary.exports:
                    key = self.lookup(qualified)
                    if key is not None and key[0] != summary.module:
                        exported.add(key)
            self._blocks_built = {
                module: {name for name in names if (module, name) not in exported} for module, names in built.items()
            }
        return self._blocks_built

    def _data_arguments(self) -> dict[str, dict[str, dict[str, str]]]:
        """Per module, per function: the tensors and data-dependent values traced callers in other
        files pass it (`FunctionSummary.passes`, resolved to the callee the index traces)."""
        if self._arguments is not None:
            return self._arguments
        self._arguments = {}
        for key in list(self.parents):
            func = self._function(key)
            if func is None or not func.passes:
                continue
            node = (key, self._dispatch.get(key))
            for written, slots in func.passes.items():
                callee = self._callee_of(node, written) or self._submodule_forward(node, written)
                if callee is None or callee[0][0] == key[0]:
                    continue  # a callee of the same file binds its arguments from the call itself
                table = self._arguments.setdefault(callee[0][0], {}).setdefault(callee[0][1], {})
                for slot, kind in slots.items():
                    if PASSED_KINDS.index(kind) > PASSED_KINDS.index(table.get(slot, "tensor")):
                        table[slot] = kind
                    else:
                        table.setdefault(slot, kind)
        return self._arguments

    def _attribute_method(self, owner: Key, attribute: str, name: str) -> Node | None:
        """The method `name` of the project class `__init__` builds `self.<attribute>` from
        (`self.norm.forward(x)`; `self.norm(x)` is `__call__`), except a module's `__call__`, which
        runs its forward: a root of its own already."""
        for cls_key in self._class_chain(owner, set()):
            cls = self._class(cls_key)
            built = cls.submodules.get(attribute) if cls is not None else None
            if built is None:
                continue
            target = self.resolve_local(self.by_module[cls_key[0]], built)
            if not isinstance(target, tuple) or (name == "__call__" and self.is_module_class(target)):
                return None
            method = self.find_method(target, name)
            return self._node(method, target) if method is not None else None
        return None

    def _submodule_forward(self, node: Node, written: str) -> Node | None:
        """The forward a call written `self.<attribute>(...)` in `node` runs: of the module class
        `__init__` of its class (or of a base) builds the attribute from."""
        root, _, attribute = written.partition(".")
        cls_name = node[0][1].rpartition(".")[0]
        if root != "self" or not attribute or "." in attribute or not cls_name:
            return None
        for owner in self._class_chain(node[1] or (node[0][0], cls_name), set()):
            cls = self._class(owner)
            built = cls.submodules.get(attribute) if cls is not None else None
            if built is None:
                continue
            target = self.resolve_local(self.by_module[owner[0]], built)
            if not isinstance(target, tuple) or not self.is_module_class(target):
                return None
            forward = self.find_method(target, "forward")
            return self._node(forward, target) if forward is not None else None
        return None

    def _class_chain(self, key: Key, seen: set[Key]) -> Iterator[Key]:
        """`key` and its bases of the project, left to right, each once."""
        if key in seen:
            return
        seen.add(key)
        yield key
        for base in self._bases(key):
            if not isinstance(base, str):
                yield from self._class_chain(base, seen)

    def _declared_shapes(self) -> dict[str, dict[str, ShapeConfig]]:
        """Per module: its classes that export scripts of other files export, with their shapes."""
        if self._shapes is None:
            self._shapes = {}
            # an export script of each class: the first by path, whatever the order files came in
            for _, summary in sorted(self.summaries.items()):
                for qualified, config in summary.shapes.items():
                    key = self.lookup(qualified)
                    if key is not None and "." not in key[1]:
                        self._shapes.setdefault(key[0], {}).setdefault(key[1], config)
        return self._shapes

    def _group_entries(self) -> dict[str, list[tuple[str, Reach]]]:
        """Per module: its functions that only traced code of another file reaches (in a followed
        file, every traced function: the file's own entry points are not roots there)."""
        out: dict[str, list[tuple[str, Reach]]] = {}
        for key, parent in self.parents.items():
            followed = self.path_of.get(key[0]) in self.followed
            if parent is None:
                reach = self._inherited(key) if followed else None
            elif parent[0][0] == key[0] and not followed:
                continue
            else:
                func = self._function(key)
                if func is not None and func.local and not followed:
                    continue  # its own file traces it already
                reach = self.reach(key)
            if reach is not None:
                out.setdefault(key[0], []).append((key[1], reach))
        return out

    def _inherited(self, key: Key) -> Reach | None:
        """A followed `forward` that a linted class inherits: reached from that class."""
        dispatch = self._dispatch.get(key)
        if dispatch is None or self.path_of.get(dispatch[0]) in self.followed:
            return None
        path = self.path_of[dispatch[0]]
        return Reach(self._name((key, dispatch)), (), path, self._line(path, dispatch[1]))

    def _line(self, path: str, name: str) -> int:
        """The line of `name` (`Class.method`, `function`) in `path`, read from the file when a
        Reach needs it (a handful per project, so summaries carry no positions)."""
        lines = self._lines.get(path)
        if lines is None:
            try:
                text = Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            lines = self._lines[path] = definition_lines(text)
        return lines.get(name, 1)

