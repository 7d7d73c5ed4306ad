"""Context managers as facts the engine keeps: the measured catalogue
(`data/context_managers.json`), the calls strict export refuses inside a user context manager,
and what entering each context manager a project file defines does (`Defined`: a class with
`__enter__`/`__exit__`, a `@contextmanager` generator, an instance built at module level), which
the file's index summary carries to the files importing it. The rules' verdicts are in
`rules/_context_managers.py`.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import libcst as cst

from .walk import iter_nodes

CATALOGUE = Path(__file__).parent / "data" / "context_managers.json"

# Calls strict export (Dynamo) refuses inside a user context manager ("Attempted to call function
# marked as skipped"), and what they leave behind in non-strict export.
UNTRACEABLE = {
    "time.": "a timing of the trace, not of the exported program",
    "datetime.": "a time read once, at export time",
    "threading.": "a lock or thread that guards nothing in the graph",
    "os.": "an operating-system effect that happens once, at export time",
    "subprocess.": "a process started once, at export time",
    "socket.": "network traffic at export time only",
    "random.": "a random number drawn once and baked in",
    # measured on torch 2.13 inside a `@contextmanager` generator (`warnings.warn` exports)
    "gc.": "garbage collection switched at export time only",
    "warnings.simplefilter": "a warnings filter set while tracing only",
    "warnings.filterwarnings": "a warnings filter set while tracing only",
    "warnings.resetwarnings": "a warnings filter reset while tracing only",
    "torch.get_rng_state": "the random state saved and restored at export time only",
    "torch.set_rng_state": "the random state saved and restored at export time only",
    "torch.random.get_rng_state": "the random state saved and restored at export time only",
    "torch.random.set_rng_state": "the random state saved and restored at export time only",
    "torch.set_num_threads": "a thread count set at export time only",
    # measured on torch 2.13 in a `@contextmanager` generator (strict batch 4;
    # `torch.use_deterministic_algorithms` and `sys.getrecursionlimit` export)
    "torch.set_flush_denormal": "a denormal-flushing mode set at export time only",
    "sys.setrecursionlimit": "a recursion limit set at export time only",
    # measured on torch 2.13 in a user class's `__enter__` (`uuid.uuid4()`)
    "uuid.": "an id drawn once, at export time",
    # measured on torch 2.13 in a user class's `__enter__`
    "torch.manual_seed": "a seed set at export time only: the exported program's random ops are not re-seeded",
    "torch.random.manual_seed": "a seed set at export time only: the exported program's random ops are not re-seeded",
    "sys.stdout.": "output written at export time only",
    "sys.stderr.": "output written at export time only",
    # measured on torch 2.13 in a `@contextmanager` generator (`io.StringIO()`, `io.BytesIO()`)
    "io.": "a buffer written at export time only",
}

UNTRACEABLE_BUILTINS = {"open": "a file read or written once, at export time", "input": "input read at export time"}

#: writes to `os.environ` and the C function each calls, which strict export refuses (measured on
#: torch 2.13 in a `@contextmanager` generator: `os.environ[k] = v`, `.update(...)` and
#: `del os.environ[k]` fail; `.get`, `.pop` and `.setdefault` export)
ENVIRONMENT_WRITES = {"store": "os.putenv", "os.environ.update": "os.putenv", "del": "os.unsetenv"}
_ENVIRONMENT_EFFECT = "an environment variable set at export time only"


@cache
def catalogue() -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(qualified name, where it is built: "forward" | "outside") -> measured entries."""
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    table: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in data["entries"]:
        if entry["qualname"] is not None:
            table.setdefault((entry["qualname"], entry["site"]), []).append(entry)
    return table


@dataclass(frozen=True)
class Defined:
    """A context manager a project file defines, as the files importing it read it from the
    project index (`ModuleSummary.contexts`): what entering it calls that strict export refuses,
    and whether it prints. `kind`: "class", "generator" or "instance" (one built at module level,
    entered as it is); `base`: the library class it inherits entering from (a
    `TorchDispatchMode`), where it defines no `__enter__`/`__exit__` of its own."""

    kind: str
    #: (`Timer.__enter__`, `time.perf_counter`): where, and the qualified call
    effects: tuple[tuple[str, str], ...] = ()
    prints: bool = False
    base: str | None = None
    #: a `contextlib.ContextDecorator` class: it decorates functions too
    decorator: bool = False

    def to_plain(self) -> list[Any]:
        return [self.kind, [list(e) for e in self.effects], self.prints, self.base, self.decorator]

    @classmethod
    def from_plain(cls, data: Any) -> Defined:
        kind, effects, prints, base, decorator = data
        return cls(kind, tuple((where, call) for where, call in effects), prints, base, decorator)


class Definitions:
    """The context managers one file defines: classes with `__enter__`/`__exit__`, `@contextmanager`
    generators, and instances of them built at module level."""

    def __init__(self, module: cst.Module, resolve: Callable[[cst.BaseExpression], str | None]) -> None:
        self.resolve = resolve
        self.classes: dict[str, cst.ClassDef] = {}
        self.generators: dict[str, cst.FunctionDef] = {}
        self.globals: dict[str, cst.BaseExpression] = {}
        for stmt in module.body:
            if isinstance(stmt, cst.ClassDef):
                self.classes[stmt.name.value] = stmt
            elif isinstance(stmt, cst.FunctionDef) and any(
                (resolve(callee(d.decorator)) or "") in ("contextlib.contextmanager", "contextlib.asynccontextmanager")
                or short_name(callee(d.decorator)) == "contextmanager"
                for d in stmt.decorators
            ):
                self.generators[stmt.name.value] = stmt
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        target = small.targets[0].target
                        if isinstance(target, cst.Name):
                            self.globals[target.value] = small.value

    def summary(self) -> dict[str, list[Any]]:
        """name -> `Defined.to_plain()`, for every context manager of the file another file may import."""
        found: dict[str, Defined] = {}
        for name, func in self.generators.items():
            found[name] = Defined("generator", self._untraceable_calls_in(name, func), prints(func))
        for name, cls in self.classes.items():
            defined = self.defined_class(cls)
            # a class entering only through a library base counts where that base is measured
            # (a `TorchDispatchMode`), not for every class with a base (an `nn.Module`)
            if defined is not None and (defined.base is None or _measuredshort_name(defined.base)):
                found[name] = defined
        for name, value in self.globals.items():
            local = short_name(value.func) if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) else None
            if local is not None and local in found and found[local].kind != "instance":
                found[name] = dataclasses.replace(found[local], kind="instance")
        return {name: defined.to_plain() for name, defined in sorted(found.items())}

    def defined_class(self, cls: cst.ClassDef, seen: frozenset[str] = frozenset()) -> Defined | None:
        """What entering an instance of `cls` does (None: not a context manager this file shows)."""
        methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        decorator = self._context_decorator(cls)
        if not {"__enter__", "__exit__"} <= set(methods):
            for base in cls.bases:
                local = short_name(base.value) if isinstance(base.value, cst.Name) else None
                if local is not None and local in self.classes and local not in seen | {cls.name.value}:
                    inherited = self.defined_class(self.classes[local], seen | {cls.name.value})
                    if inherited is not None:
                        return dataclasses.replace(inherited, decorator=inherited.decorator or decorator)
                    continue
                qualified = self.resolve(base.value)
                if qualified is not None and qualified != "contextlib.ContextDecorator":
                    return Defined("class", base=qualified, decorator=decorator)
            if not {"__enter__", "__exit__"} & set(methods):
                return None
        name = cls.name.value
        effects = tuple(
            effect
            for method in ("__enter__", "__exit__")
            if method in methods
            for effect in self._untraceable_calls_in(f"{name}.{method}", methods[method])
        )
        return Defined("class", effects, prints(methods.get("__enter__"), methods.get("__exit__")), None, decorator)

    def _context_decorator(self, cls: cst.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """`cls` derives from `contextlib.ContextDecorator` (directly or through classes here)."""
        for base in cls.bases:
            if self.resolve(base.value) == "contextlib.ContextDecorator":
                return True
            local = base.value.value if isinstance(base.value, cst.Name) else None
            if (
                local in self.classes
                and local not in seen
                and self._context_decorator(self.classes[local], seen | {local})
            ):
                return True
        return False

    def _untraceable_calls_in(self, where: str, func: cst.FunctionDef) -> tuple[tuple[str, str], ...]:
        return tuple((where, call) for call, _ in self._untraceable_calls(func))

    def _untraceable_calls(self, func: cst.FunctionDef) -> list[tuple[str, str]]:
        out = []
        for node in iter_nodes(func.body):
            written = self._environment_write(node)
            if written is not None:
                out.append((written, _ENVIRONMENT_EFFECT))
            if not isinstance(node, cst.Call):
                continue
            qualified = self.resolve(node.func) or ""
            for prefix, effect in UNTRACEABLE.items():
                if qualified.startswith(prefix):
                    if prefix != "os." or os_builtin(qualified):
                        out.append((qualified, effect))
                    break
            else:
                builtin = short_name(node.func)
                if builtin in UNTRACEABLE_BUILTINS and not qualified:
                    out.append((builtin, UNTRACEABLE_BUILTINS[builtin]))
        return out


    def _environment_write(self, node: cst.CSTNode) -> str | None:
        """The C function a write to `os.environ` calls (`ENVIRONMENT_WRITES`), or None."""
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.Del)):
            targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                       else [node.target])
            for target in targets:
                if isinstance(target, cst.Subscript) and self.resolve(target.value) == "os.environ":
                    return ENVIRONMENT_WRITES["del" if isinstance(node, cst.Del) else "store"]
        elif isinstance(node, cst.Call) and self.resolve(node.func) in ENVIRONMENT_WRITES:
            return ENVIRONMENT_WRITES[self.resolve(node.func) or ""]
        return None


def defined_context_managers(
    module: cst.Module, resolve: Callable[[cst.BaseExpression], str | None]
) -> dict[str, list[Any]]:
    """The file's context managers for its index summary (see `Defined`); empty for most files."""
    if not any(
        isinstance(stmt, cst.FunctionDef)
        and stmt.decorators
        or isinstance(stmt, cst.ClassDef)
        and any(isinstance(s, cst.FunctionDef) and s.name.value in ("__enter__", "__exit__") for s in stmt.body.body)
        for stmt in module.body
    ):
        return {}
    return Definitions(module, resolve).summary()


def _measuredshort_name(qualified: str) -> bool:
    return any(name == qualified for name, _ in catalogue())


def effect_of(call: str) -> str:
    """What a call strict export refuses leaves behind in non-strict export (`UNTRACEABLE`)."""
    if call in ENVIRONMENT_WRITES.values():
        return _ENVIRONMENT_EFFECT
    return next((e for prefix, e in UNTRACEABLE.items() if call.startswith(prefix)), UNTRACEABLE_BUILTINS.get(call, ""))


@cache
def os_builtin(qualified: str) -> bool:
    """`os.<name>` is a C function of the interpreter (`os.getcwd`, `os.getpid`), which strict
    export refuses to call, not Python code it traces (`os.path.join`, `os.getenv`,
    `os.environ.get`: measured on torch 2.13, they export). Unknown names count as C."""
    found: object = os
    for part in qualified.split(".")[1:]:
        found = getattr(found, part, None)
        if found is None:
            return True
    return inspect.isbuiltin(found)


def callee(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr


def short_name(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def prints(*funcs: cst.FunctionDef | None) -> bool:
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "print"
        for func in funcs
        if func is not None
        for node in iter_nodes(func.body)
    )
