"""What a `with` in traced code does under export, read from the measured catalogue
(`data/context_managers.json`: each entry exported with real torch 2.13 in both modes, and with
2.14 and 2.15 where those differ) or, for context managers defined in the file, from what their
`__enter__`/`__exit__` (or generator body) call. Shared by XPT410 (strict export rejects it) and
XPT411 (the graph does not keep its effect). Verdicts are those of the run's target torch.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..model import Applicability, Mode
from ..report import FixProposal
from ..rewrites import Names
from ..versions import TorchVersion, show
from ..walk import iter_nodes

if TYPE_CHECKING:
    from ..runner import RuleContext

CATALOGUE = Path(__file__).parents[1] / "data" / "context_managers.json"
# Calls strict export (Dynamo) refuses inside a user context manager ("Attempted to call function
# marked as skipped"), and what they leave behind in non-strict export.
_UNTRACEABLE = {
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
    "sys.stdout.": "output written at export time only",
    "sys.stderr.": "output written at export time only",
}
#: torch's words where they are not "marked as skipped" (measured on torch 2.13)
_UNTRACEABLE_WORDS = {
    "torch.set_num_threads": "Unsupported: torch.* op returned non-Tensor",
    "sys.stdout.": "Unsupported: Unsupported method call",
    "sys.stderr.": "Unsupported: Unsupported method call",
}
#: what a user context manager may do and still matter only in eager (time it, lock, print)
_EAGER_ONLY = ("time.", "threading.", "gc.", "warnings.", "torch.set_num_threads", "sys.stdout.", "sys.stderr.")
_UNTRACEABLE_BUILTINS = {"open": "a file read or written once, at export time", "input": "input read at export time"}
#: the measured verdict for a user context-manager instance built outside `forward` (in
#: `__init__` or at module level): strict export refuses entering it on torch 2.13 only
_USER_OUTSIDE_ERROR = "Unsupported: Unsupported context manager"
_USER_OUTSIDE_REFUSED_UNTIL: TorchVersion = (2, 13)
_USER_SKIPPED_ERROR = "Unsupported: Attempted to call function marked as skipped"
#: torch 2.15's words for a `time.*` call in a user context manager (2.13-2.14: "marked as skipped")
_TIME_ERROR = "Unsupported: Call to a time function"
_TIME_WORDS_SINCE: TorchVersion = (2, 15)
#: what a build without CUDA (or without a driver) says: the build's failure, not the code's
NO_CUDA = re.compile(
    r"compiled without CUDA|not compiled with CUDA|NVIDIA driver|NVTX functions not installed|CUDA error|AcceleratorError"
)


@dataclass(frozen=True)
class Verdict:
    """What export does with one `with` item. `strict_error`/`non_strict_error`: torch's words
    when that mode fails (None: it exports); `effect`: what the graph silently loses; `unknown`:
    nothing is known (a third-party context manager); `condition`: the failure holds only then."""

    name: str
    strict_error: str | None = None
    non_strict_error: str | None = None
    effect: str | None = None
    unknown: bool = False
    condition: str | None = None
    #: it only matters in eager (timing, profiling, locking, debugging): skipping it while
    #: exporting keeps eager behaviour and loses nothing the graph could have held
    eager_only: bool = False


@cache
def catalogue() -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(qualified name, where it is built: "forward" | "outside") -> measured entries."""
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    table: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in data["entries"]:
        if entry["qualname"] is not None:
            table.setdefault((entry["qualname"], entry["site"]), []).append(entry)
    return table


def outcome(entry: dict[str, Any], mode: str, version: TorchVersion) -> dict[str, Any]:
    """{"exports", "error"} of `entry` in `mode` ("strict" | "non_strict") on torch `version`:
    the 2.13 measurement unless a later one differs (`versions` holds only the differences)."""
    found = entry[mode]
    for later, outcomes in sorted(entry.get("versions", {}).items(), key=lambda kv: tuple(map(int, kv[0].split(".")))):
        if tuple(map(int, later.split("."))) <= version and mode in outcomes:
            found = outcomes[mode]
    return found  # type: ignore[no-any-return]


def measured(name: str, site: str, used: frozenset[str], version: TorchVersion) -> Verdict | None:
    """The catalogue's verdict on torch `version`: a mode fails only if every measured spelling
    fails in it (so `torch.autocast("cpu")` and `torch.autocast("cuda")` are one name that
    exports). `used`: the methods the `with` body calls on the bound object and the functions
    it calls; entries measured with such calls (an `ExitStack` that enters contexts,
    `warnings.simplefilter` inside `catch_warnings()`) apply when the body makes one of them."""
    entries = catalogue().get((name, site))
    if not entries:
        return None
    specific = [e for e in entries if used & set(e["uses"])]
    entries = specific or [e for e in entries if not e["uses"]] or entries
    #: a function the body calls that decides the verdict (`warnings.simplefilter`): said with it
    called = sorted(name for e in specific for name in used & set(e["uses"]) if "." in name)

    def failure(mode: str) -> str | None:
        outcomes = [outcome(e, mode, version) for e in entries]
        if any(o["exports"] for o in outcomes):
            return None
        error: str = outcomes[0]["error"]
        return f"{error} (`{called[0]}` in its body)" if called else error

    cuda_only = all(e["category"] == "torch-cuda" for e in entries)
    effect = next((e["effect"] for e in entries if e["effect"]), None)
    non_strict, strict = failure("non_strict"), failure("strict")
    if non_strict is not None and cuda_only:
        # the failure is the build's, not the code's: a CUDA build of torch runs it. Strict
        # export's refusal stays an error where it is Dynamo's, not the build's (nvtx.range)
        return Verdict(
            name, strict_error=strict if strict is not None and not NO_CUDA.search(strict) else None,
            effect=f"fails where torch has no CUDA ({non_strict})", condition="a CPU-only build of torch",
        )
    eager_only = all(e["eager_only"] for e in entries)
    return Verdict(name, strict_error=strict, non_strict_error=non_strict, effect=effect, eager_only=eager_only)


def _strict_failure(entry: dict[str, Any], version: TorchVersion) -> str | None:
    """torch's words where strict export refuses `entry` for a reason of the code (None: it
    exports, or only a build without CUDA refuses it)."""
    found = outcome(entry, "strict", version)
    if found["exports"] or NO_CUDA.search(found["error"] or ""):
        return None
    return found["error"]  # type: ignore[no-any-return]


def inferred(name: str, version: TorchVersion) -> Verdict | None:
    """A verdict for a context manager the catalogue has not measured, from where it lives: the
    nearest package of `name` holding measured entries (`torch.backends` for
    `torch.backends.mkldnn.flags`, `threading` for `threading.Semaphore`) decides if it holds
    two or more and every one of them fails strict export (a family whose members mix is no
    evidence: None). A
    standard-library module with nothing measured is judged by the standard library as a whole:
    strict export (Dynamo) skips its files, and only the few it handles itself export
    (`contextlib.nullcontext`, `warnings.catch_warnings`, ...), so a module none of whose
    measured members exports fails. Non-strict export is not inferred: it runs them all."""
    parts = name.split(".")
    stdlib = parts[0] in sys.stdlib_module_names
    measured_entries = [e for entries in catalogue().values() for e in entries if e["qualname"] and not e["uses"]]
    for depth in range(len(parts) - 1, 0 if stdlib else 1, -1):
        package = ".".join(parts[:depth])
        family = [e for e in measured_entries if e["qualname"].startswith(package + ".")]
        judged = [e for e in family if not NO_CUDA.search(outcome(e, "strict", version)["error"] or "")]
        if len(judged) < 2:
            # one measured member is no family (`torch.autograd.graph.saved_tensors_hooks` fails,
            # `disable_saved_tensors_hooks` beside it exports)
            continue
        refused = [(e, error) for e in judged if (error := _strict_failure(e, version)) is not None]
        if len(refused) < len(judged):
            return None
        sibling, error = refused[0]
        return Verdict(
            name, strict_error=f"{error.partition(':')[0]} (not measured itself: every measured `{package}` context "
            f"manager fails strict export, e.g. `{sibling['qualname']}`: {error})",
            eager_only=all(e["eager_only"] for e in judged),
        )
    if not stdlib:
        return None
    exporting = sorted({e["qualname"].split(".")[0] for e in measured_entries
                        if e["category"] == "stdlib" and _strict_failure(e, version) is None})
    if parts[0] in exporting:
        return None
    return Verdict(
        name, strict_error=f"Unsupported (not measured itself: strict export skips the standard library's code, and "
        f"the standard-library context managers measured to export are all from {' and '.join(f'`{m}`' for m in exporting)})",
    )


class ContextResolver:
    """Resolves `with` items of one file: built once per file, on its first `with`."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        body = ctx.program.module.body
        self.classes: dict[str, cst.ClassDef] = {}
        self.generators: dict[str, cst.FunctionDef] = {}
        self._used: frozenset[str] = frozenset()
        self.globals: dict[str, cst.BaseExpression] = {}
        for stmt in body:
            if isinstance(stmt, cst.ClassDef):
                self.classes[stmt.name.value] = stmt
            elif isinstance(stmt, cst.FunctionDef) and any(
                (ctx.resolve(_callee(d.decorator)) or "") in ("contextlib.contextmanager", "contextlib.asynccontextmanager")
                or _name(_callee(d.decorator)) == "contextmanager"
                for d in stmt.decorators
            ):
                self.generators[stmt.name.value] = stmt
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        target = small.targets[0].target
                        if isinstance(target, cst.Name):
                            self.globals[target.value] = small.value

    def verdict(
        self, with_item: cst.WithItem, body: cst.BaseSuite, func: cst.FunctionDef, cls_node: cst.ClassDef | None
    ) -> Verdict | None:
        """None: nothing to say (a harmless or unrecognised expression such as `x.foo()`)."""
        item = self._followed(with_item.item, func)
        self._used = _methods_called_on(with_item, body, self.ctx)
        if isinstance(item, cst.Call):
            return self._built(item, "forward")
        if isinstance(item, cst.Name):
            local = _local_assignment(func, item.value)
            if local is not None:
                return self._built(local, "forward") if isinstance(local, cst.Call) else None
            value = self.globals.get(item.value)
            if isinstance(value, cst.Call):
                return self._built(value, "outside")
            return None
        if (
            isinstance(item, cst.Attribute)
            and isinstance(item.value, cst.Name)
            and item.value.value == "self"
            and cls_node is not None
        ):
            value = _init_assignment(cls_node, item.attr.value)
            if isinstance(value, cst.Call):
                return self._built(value, "outside")
        return None

    def decorated(self, decorator: cst.BaseExpression) -> Verdict | None:
        """The verdict for a context manager decorating a traced function (`@torch.no_grad()`,
        `@scope()` of a `@contextmanager` generator, `@Tagged()` of a `ContextDecorator`
        class), entered on each call. None: not one, or not measured as a decorator (entering
        the same context manager by `with` is no evidence: `@torch.set_grad_enabled(False)`
        fails strict export where the `with` exports)."""
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        local = target.value if isinstance(target, cst.Name) else None
        self._used = frozenset()
        if local is not None and local in self.generators:
            # the decorator makes a fresh generator context manager on each call
            return self._user_generator(self.generators[local], "forward")
        if local is not None and local in self.classes:
            cls = self.classes[local]
            # one instance, made where the class body runs, entered on each call
            return self._user_class(cls, "outside") if self._context_decorator(cls) else None
        qualified = self.ctx.resolve(target)
        if qualified is None:
            return None
        used = frozenset(f"{arg.keyword.value}=" for arg in getattr(decorator, "args", ()) if arg.keyword is not None)
        return measured(qualified, "decorator", used, self.ctx.torch)

    def _context_decorator(self, cls: cst.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """`cls` derives from `contextlib.ContextDecorator` (directly or through classes here)."""
        for base in cls.bases:
            if self.ctx.resolve(base.value) == "contextlib.ContextDecorator":
                return True
            local = base.value.value if isinstance(base.value, cst.Name) else None
            if local in self.classes and local not in seen and self._context_decorator(self.classes[local], seen | {local}):
                return True
        return False

    def _followed(self, item: cst.BaseExpression, func: cst.FunctionDef) -> cst.BaseExpression:
        """What the `with` item stands for: a local bound once (`cm = Timer()`, `cm, _ = Timer(),
        0`, `cm = self.lock`) or a one-line helper's `return` (`with _h(Timer()):`), as the
        dataflow reads them; else the item as written."""
        flow = self.ctx.flow
        for _ in range(8):
            if flow is None or flow.func is not func:
                break
            seen = (
                flow.bound_once(item.value) if isinstance(item, cst.Name)
                else flow.inlined(item) if isinstance(item, cst.Call) else None
            )
            if seen is None or seen is item:
                break
            item = seen
        return item

    def _built(self, call: cst.Call, site: str) -> Verdict | None:
        """The verdict for a context manager made by `call`, entered in `forward` or built
        outside it (`__init__`, module level) and only entered there."""
        local = _name(call.func) if isinstance(call.func, cst.Name) else None
        if local is not None and local in self.classes:
            return self._user_class(self.classes[local], site)
        if local is not None and local in self.generators:
            return self._user_generator(self.generators[local], site)
        qualified = self.ctx.resolve(call.func)
        if qualified is None and local in _UNTRACEABLE_BUILTINS:
            qualified = local
        if qualified is None:
            return None
        version = self.ctx.torch
        # the keywords it is called with decide some (`torch.inference_mode(mode=False)`)
        used = self._used | {f"{arg.keyword.value}=" for arg in call.args if arg.keyword is not None}
        found = measured(qualified, site, used, version)
        if found is not None:
            return found
        if site == "outside":
            found = measured(qualified, "forward", used, version)
            if found is not None and found.strict_error is None:
                # measured only when built in forward: outside, strict export may refuse it
                return Verdict(qualified, unknown=True)
            if found is not None:
                return found
        return inferred(qualified, version) or Verdict(qualified, unknown=True)

    def _user_class(self, cls: cst.ClassDef, site: str) -> Verdict:
        name = cls.name.value
        methods = {
            s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)
        }
        if not {"__enter__", "__exit__"} <= set(methods):
            # entering is inherited: the base decides (a TorchDispatchMode, another class here)
            for base in cls.bases:
                local = _name(base.value) if isinstance(base.value, cst.Name) else None
                if local is not None and local in self.classes and self.classes[local] is not cls:
                    inherited = self._user_class(self.classes[local], site)
                    return dataclasses.replace(inherited, name=name)
                qualified = self.ctx.resolve(base.value)
                if qualified is None:
                    continue
                found = measured(qualified, site, self._used, self.ctx.torch) or Verdict(qualified, unknown=True)
                return dataclasses.replace(found, name=name)
        effects = [
            (f"{name}.{method}", call, effect)
            for method in ("__enter__", "__exit__")
            if method in methods
            for call, effect in self._untraceable_calls(methods[method])
        ]
        return self._user_verdict(name, effects, site, printed=_prints(methods.get("__enter__"), methods.get("__exit__")))

    def _user_generator(self, func: cst.FunctionDef, site: str) -> Verdict:
        name = func.name.value
        effects = [(name, call, effect) for call, effect in self._untraceable_calls(func)]
        return self._user_verdict(name, effects, site, printed=_prints(func))

    def _user_verdict(self, name: str, effects: list[tuple[str, str, str]], site: str, printed: bool) -> Verdict:
        eager_only = all(call.startswith(_EAGER_ONLY) for _, call, _ in effects)
        lost = f"`{effects[0][0]}` calls `{effects[0][1]}`: {effects[0][2]}" if effects else None
        version = self.ctx.torch
        if site == "outside" and version <= _USER_OUTSIDE_REFUSED_UNTIL:
            return Verdict(name, strict_error=f"{_USER_OUTSIDE_ERROR} (an instance built outside forward, "
                           f"torch {show(version)}; torch 2.14+ enters it)", effect=lost, eager_only=eager_only)
        if effects:
            where, call, _ = effects[0]
            words = next((w for prefix, w in _UNTRACEABLE_WORDS.items() if call.startswith(prefix)), _USER_SKIPPED_ERROR)
            if call.startswith("time.") and version >= _TIME_WORDS_SINCE:
                words = _TIME_ERROR
            return Verdict(name, strict_error=f"{words} (`{call}` in `{where}`)", effect=lost, eager_only=eager_only)
        if printed:
            return Verdict(name, effect=f"`{name}` prints at export time only", eager_only=True)
        return Verdict(name)

    def _untraceable_calls(self, func: cst.FunctionDef) -> list[tuple[str, str]]:
        out = []
        for node in iter_nodes(func.body):
            if not isinstance(node, cst.Call):
                continue
            qualified = self.ctx.resolve(node.func) or ""
            for prefix, effect in _UNTRACEABLE.items():
                if qualified.startswith(prefix):
                    if prefix != "os." or _os_builtin(qualified):
                        out.append((qualified, effect))
                    break
            else:
                builtin = _name(node.func)
                if builtin in _UNTRACEABLE_BUILTINS and not qualified:
                    out.append((builtin, _UNTRACEABLE_BUILTINS[builtin]))
        return out


@cache
def _os_builtin(qualified: str) -> bool:
    """`os.<name>` is a C function of the interpreter (`os.getcwd`, `os.getpid`), which strict
    export refuses to call, not Python code it traces (`os.path.join`, `os.getenv`,
    `os.environ.get`: measured on torch 2.13, they export). Unknown names count as C."""
    found: object = os
    for part in qualified.split(".")[1:]:
        found = getattr(found, part, None)
        if found is None:
            return True
    return inspect.isbuiltin(found)


def _methods_called_on(item: cst.WithItem, body: cst.BaseSuite, ctx: RuleContext) -> frozenset[str]:
    """Methods the body calls on the name the item binds (`with ExitStack() as s: s.callback(...)`)
    and the qualified functions it calls (`warnings.simplefilter` inside `catch_warnings()`)."""
    bound = item.asname.name.value if item.asname is not None and isinstance(item.asname.name, cst.Name) else None
    used: set[str] = set()
    for node in iter_nodes(body):
        if not isinstance(node, cst.Call):
            continue
        if (
            bound is not None
            and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == bound
        ):
            used.add(node.func.attr.value)
        elif isinstance(node.func, (cst.Attribute, cst.Name)):
            qualified = ctx.resolve(node.func)
            if qualified is not None:
                used.add(qualified)
    return frozenset(used)


def _callee(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr


def _name(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def _prints(*funcs: cst.FunctionDef | None) -> bool:
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "print"
        for func in funcs
        if func is not None
        for node in iter_nodes(func.body)
    )


def _local_assignment(func: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """The value last assigned to `name` by a plain statement of `func` (None if not assigned)."""
    found = None
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name) and target.value == name:
                found = node.value
    return found


def _init_assignment(cls: cst.ClassDef, attr: str) -> cst.BaseExpression | None:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            for node in iter_nodes(stmt.body):
                if isinstance(node, cst.Assign) and len(node.targets) == 1:
                    target = node.targets[0].target
                    if (
                        isinstance(target, cst.Attribute)
                        and isinstance(target.value, cst.Name)
                        and target.value.value == "self"
                        and target.attr.value == attr
                    ):
                        return node.value
    return None


def rejection(ctx: RuleContext, verdict: Verdict) -> str | None:
    """torch's error for entering it in the mode this file is exported in (None: it exports)."""
    return verdict.strict_error if ctx.mode is Mode.STRICT else verdict.non_strict_error


def with_verdicts(ctx: RuleContext, node: cst.With) -> list[tuple[cst.WithItem, Verdict]]:
    """Each item of `node` that has a verdict; one resolver per file, shared by the rules."""
    if ctx.traced is None:
        return []
    resolver = ctx.shared.get("context_resolver")
    if not isinstance(resolver, ContextResolver):
        resolver = ctx.shared["context_resolver"] = ContextResolver(ctx)
    cls = ctx.traced.cls.node if ctx.traced.cls is not None else None
    out = []
    for item in node.items:
        verdict = resolver.verdict(item, node.body, ctx.traced.func, cls)
        if verdict is not None:
            out.append((item, verdict))
    return out


def decorator_verdicts(ctx: RuleContext) -> list[tuple[cst.Decorator, Verdict]]:
    """Each decorator of the traced function that is a context manager with a verdict."""
    if ctx.traced is None:
        return []
    resolver = ctx.shared.get("context_resolver")
    if not isinstance(resolver, ContextResolver):
        resolver = ctx.shared["context_resolver"] = ContextResolver(ctx)
    return [(d, verdict) for d in ctx.traced.func.decorators if (verdict := resolver.decorated(d.decorator)) is not None]


def catalogue_table() -> str:
    """The catalogue as the rule docs show it (indented to sit in a class docstring)."""
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    rows = [
        "",
        f"## Measured catalogue (torch {data.get('torch', '?')}, and later versions where they differ; "
        "each entered in `forward`, built where the column says)",
        "| `with` | built | strict | non-strict | what to do |",
        "|---|---|---|---|---|",
    ]
    for entry in data["entries"]:
        shown = entry["with_expr"] or entry["decorator"] or entry["body"].splitlines()[0].removeprefix("with ").rstrip(":")
        strict, loose = entry["strict"], entry["non_strict"]
        if not loose["exports"]:
            todo = "fails on this build in both modes" + (" (CUDA only)" if entry["category"] == "torch-cuda" else "")
        elif not strict["exports"]:
            todo = "export non-strict, or keep it out of `forward`"
        else:
            todo = "nothing"
        if entry["effect"] and loose["exports"]:
            todo += f"; non-strict: {entry['effect']}"
        cells = [f"`{shown}`".replace("|", "\\|"), entry["site"],
                 (_said(strict) + _later(entry, "strict")).replace("|", "\\|"),
                 (_said(loose) + _later(entry, "non_strict")).replace("|", "\\|"), todo]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join("    " + row if row else "" for row in rows) + "\n"


def skip_while_exporting(
    item: cst.WithItem, body: cst.BaseSuite, verdict: Verdict, names: Names
) -> tuple[FixProposal | None, str]:
    """`with X:` -> `with contextlib.nullcontext() if torch.compiler.is_exporting() else X:` for a
    context manager that matters only in eager (measured: strict and non-strict export trace the
    swap, and eager still enters X). The fix, or why there is none."""
    if not verdict.eager_only:
        return None, ""
    if item.asname is not None and _binds_used_name(item, body):
        return None, "the body uses what the context manager returns, which nullcontext() would not provide"
    # `contextlib` as the file's names allow: the module's own name where nothing else takes it
    contextlib = "contextlib" if "contextlib" not in names.taken else names.fresh("contextlib")[0]
    swapped = cst.IfExp(
        test=cst.parse_expression(f"{names.torch}.compiler.is_exporting()"),
        body=cst.parse_expression(f"{contextlib}.nullcontext()"),
        orelse=item.item,
    )
    return FixProposal(
        "Skip it while exporting (contextlib.nullcontext() when torch.compiler.is_exporting())",
        Applicability.UNSAFE,
        ((item.item, swapped),),
        imports=(*names.imports, "contextlib" if contextlib == "contextlib" else f"contextlib as {contextlib}"),
    ), ""


def _binds_used_name(item: cst.WithItem, body: cst.BaseSuite) -> bool:
    if item.asname is None or not isinstance(item.asname.name, cst.Name):
        return item.asname is not None
    bound = item.asname.name.value
    return any(isinstance(node, cst.Name) and node.value == bound for node in iter_nodes(body))


def _said(found: dict[str, Any]) -> str:
    return "exports" if found["exports"] else f"fails: {found['error']}"


def _later(entry: dict[str, Any], mode: str) -> str:
    """What later torch versions say where it differs from 2.13 (a CUDA build's own words for a
    CUDA-only context manager are the build's, not the version's: left out)."""
    if entry["category"] == "torch-cuda":
        return ""
    return "".join(f"; torch {version}+: {_said(outcomes[mode])}"
                   for version, outcomes in entry.get("versions", {}).items() if mode in outcomes)
