"""What a `with` in traced code does under export, read from the measured catalogue
(`data/context_managers.json`: each entry exported with real torch 2.13 in both modes, and with
2.14 and 2.15 where those differ) or, for context managers defined in the file, from what their
`__enter__`/`__exit__` (or generator body) call. Shared by XPT410 (strict export rejects it) and
XPT411 (the graph does not keep its effect). Verdicts are those of the run's target torch.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..defined_contexts import (
    CATALOGUE,
    UNTRACEABLE_BUILTINS,
    Defined,
    Definitions,
    catalogue,
    effect_of,
    prints,
    short_name,
)
from ..model import Applicability, Mode
from ..names import dotted
from ..report import FixProposal
from ..rewrites import Names
from ..versions import TorchVersion, show
from ..walk import iter_nodes

if TYPE_CHECKING:
    from ..runner import RuleContext

#: torch's words where they are not "marked as skipped" (measured on torch 2.13)
_UNTRACEABLE_WORDS = {
    "torch.set_num_threads": "Unsupported: torch.* op returned non-Tensor",
    "sys.stdout.": "Unsupported: Unsupported method call",
    "sys.stderr.": "Unsupported: Unsupported method call",
    "io.": "Unsupported: Unsupported method call",
}
#: what a user context manager may do and still matter only in eager (time it, lock, print)
_EAGER_ONLY = ("time.", "threading.", "gc.", "warnings.", "torch.set_num_threads", "sys.stdout.", "sys.stderr.")
#: the measured verdict for a user context-manager instance built outside `forward` (in
#: `__init__` or at module level): strict export refuses entering it on torch 2.13 only
_USER_OUTSIDE_ERROR = "Unsupported: Unsupported context manager"
_USER_OUTSIDE_REFUSED_UNTIL: TorchVersion = (2, 13)
_USER_SKIPPED_ERROR = "Unsupported: Attempted to call function marked as skipped"
#: torch 2.15's words for a `time.*` call in a user context manager (2.13-2.14: "marked as skipped")
_TIME_ERROR = "Unsupported: Call to a time function"
_TIME_WORDS_SINCE: TorchVersion = (2, 15)
#: what a build without CUDA (or without a driver, or without the MPS or XPU backend) says: the
#: build's failure, not the code's
NO_CUDA = re.compile(
    r"compiled without CUDA|not compiled with CUDA|NVIDIA driver|NVTX functions not installed|CUDA error|AcceleratorError"
    r"|without MPS backend|compiled without XPU support"
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
            effect=f"fails where torch has no CUDA, MPS or XPU backend ({non_strict})", condition="a CPU-only build of torch",
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
        return _sameshort_name(name, measured_entries, version)
    exporting = sorted({e["qualname"].split(".")[0] for e in measured_entries
                        if e["category"] == "stdlib" and _strict_failure(e, version) is None})
    if parts[0] in exporting:
        return None
    return Verdict(
        name, strict_error=f"Unsupported (not measured itself: strict export skips the standard library's code, and "
        f"the standard-library context managers measured to export are all from {' and '.join(f'`{m}`' for m in exporting)})",
    )


def _sameshort_name(name: str, measured_entries: list[dict[str, Any]], version: TorchVersion) -> Verdict | None:
    """A torch context manager measured under another package with the same last two names
    (`torch._functorch.config.patch` beside `torch._dynamo.config.patch` and
    `torch._inductor.config.patch`: every torch config module's `patch` is one implementation):
    two or more measured, every one failing strict export, decide; else None."""
    parts = name.split(".")
    if len(parts) < 3:
        return None
    suffix = "." + ".".join(parts[-2:])
    same = [e for e in measured_entries if e["qualname"].endswith(suffix) and e["qualname"] != name
            and not NO_CUDA.search(outcome(e, "strict", version)["error"] or "")]
    refused = [(e, error) for e in same if (error := _strict_failure(e, version)) is not None]
    if len(same) < 2 or len(refused) < len(same):
        return None
    sibling, error = refused[0]
    return Verdict(
        name, strict_error=f"{error.partition(':')[0]} (not measured itself: every measured `*{suffix}` context "
        f"manager fails strict export, e.g. `{sibling['qualname']}`: {error})",
        eager_only=all(e["eager_only"] for e, _ in refused),
    )


class ContextResolver(Definitions):
    """Resolves `with` items of one file: built once per file, on its first `with`. A context
    manager of another project file is read from the index (`FileContext.context_manager`)."""

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx.program.module, ctx.resolve)
        self.ctx = ctx
        self._used: frozenset[str] = frozenset()

    def _elsewhere(self, written: str | None) -> Defined | None:
        """The context manager of another project file a name as written here denotes."""
        if written is None:
            return None
        plain = self.ctx.program.context.context_manager(written)
        return Defined.from_plain(plain) if plain is not None else None

    def _defined_verdict(self, name: str, defined: Defined, site: str) -> Verdict:
        """The verdict for entering a context manager of another file (as `_user_class` for one here)."""
        if defined.kind == "instance":
            site = "outside"
        if not defined.effects and defined.base is not None:
            found = measured(defined.base, site, self._used, self.ctx.torch) or Verdict(defined.base, unknown=True)
            return dataclasses.replace(found, name=name)
        effects = [(where, call, effect_of(call)) for where, call in defined.effects]
        return self._user_verdict(name, effects, site, printed=defined.prints)

    def verdict(
        self, with_item: cst.WithItem, body: cst.BaseSuite, func: cst.FunctionDef, cls_node: cst.ClassDef | None
    ) -> Verdict | None:
        """None: nothing to say (a harmless or unrecognised expression such as `x.foo()`)."""
        item = self._followed(with_item.item, func)
        self._used = _methods_called_on(with_item, body, self.ctx)
        if cls_node is not None and (returned := _property_return(cls_node, item)) is not None:
            # a property runs its body on each read: what it returns is built in `forward`
            item = returned
        if cls_node is not None and (returned := _method_return(cls_node, item)) is not None:
            # `self._place()` of a method (`@classmethod`, `@staticmethod` too) whose body is one
            # `return torch.device(...)`: built in `forward`, by that call
            item = returned
        if isinstance(item, cst.IfExp):
            return self._chosen(item, body, func, cls_node)
        nested = _nested_class(cls_node, item)
        if nested is not None:
            # `self.Timer()` of a class defined in the module's class body
            return self._user_class(nested, "forward")
        if isinstance(item, cst.Subscript):
            # an element of a container built once, outside `forward` (`self.contexts[0]`,
            # `LOCKS["cache"]`): judged as that element kept on `self` or at module level
            element = self._element(item, cls_node)
            return self._built(element, "outside") if isinstance(element, cst.Call) else None
        if isinstance(item, cst.Call):
            return self._built(item, "forward")
        if isinstance(item, cst.Name):
            local = _local_assignment(func, item.value)
            if local is not None:
                return self._built(local, "forward") if isinstance(local, cst.Call) else None
            value = self.globals.get(item.value)
            if isinstance(value, cst.Call):
                return self._built(value, "outside")
            elsewhere = self._elsewhere(item.value) if value is None else None
            if elsewhere is not None and elsewhere.kind == "instance":
                return self._defined_verdict(item.value, elsewhere, "outside")
            return None
        if (
            isinstance(item, cst.Attribute)
            and isinstance(item.value, cst.Name)
            and item.value.value == "self"
            and cls_node is not None
        ):
            # kept on `self` by `__init__`, or a class attribute: built once, outside `forward`
            value = _init_assignment(cls_node, item.attr.value) or _class_attribute(cls_node, item.attr.value)
            if isinstance(value, cst.Call):
                return self._built(value, "outside")
        return None

    def _chosen(
        self, item: cst.IfExp, body: cst.BaseSuite, func: cst.FunctionDef, cls_node: cst.ClassDef | None
    ) -> Verdict | None:
        """`A if self.flag else B`: the branch the module's default takes, where `__init__` sets
        `self.flag` from a literal or from an argument defaulting to one that no construction in
        the file passes otherwise; else a verdict only where both branches fail alike."""
        taken = self._default_branch(item, cls_node)
        if taken is not None:
            return self.verdict(cst.WithItem(taken), body, func, cls_node)
        both = [self.verdict(cst.WithItem(branch), body, func, cls_node) for branch in (item.body, item.orelse)]
        if all(v is not None and v.strict_error is not None for v in both):
            return both[0]
        return None

    def _default_branch(self, item: cst.IfExp, cls_node: cst.ClassDef | None) -> cst.BaseExpression | None:
        test, negated = item.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        traced = self.ctx.traced
        if (cls_node is None or traced is None or traced.cls is None or not isinstance(test, cst.Attribute)
                or not isinstance(test.value, cst.Name) or test.value.value != "self"):
            return None
        value = _init_assignment(cls_node, test.attr.value)
        literal = value.value if isinstance(value, cst.Name) and value.value in ("True", "False") else None
        if literal is None and isinstance(value, cst.Name):
            init = traced.cls.methods.get("__init__")
            params = [*init.params.params, *init.params.kwonly_params] if init is not None else []
            param = next((p for p in params if p.name.value == value.value), None)
            default = param.default if param is not None else None
            built_with = getattr(self.ctx.program, "_built_with", None)
            if (isinstance(default, cst.Name) and default.value in ("True", "False") and built_with is not None
                    and not built_with(traced.cls, value.value, default.value == "True")):
                literal = default.value
        if literal is None:
            return None
        return item.body if (literal == "True") != negated else item.orelse

    def _element(self, item: cst.Subscript, cls_node: cst.ClassDef | None) -> cst.BaseExpression | None:
        """The element a constant index or key picks from a list, tuple or dict literal kept on
        `self` by `__init__` or bound at module level (None: anything else)."""
        container: cst.BaseExpression | None = None
        if isinstance(item.value, cst.Name):
            container = self.globals.get(item.value.value)
        elif (isinstance(item.value, cst.Attribute) and isinstance(item.value.value, cst.Name)
              and item.value.value.value == "self" and cls_node is not None):
            container = _init_assignment(cls_node, item.value.attr.value)
        if len(item.slice) != 1 or not isinstance(item.slice[0].slice, cst.Index):
            return None
        key = item.slice[0].slice.value
        if isinstance(container, (cst.List, cst.Tuple)) and isinstance(key, cst.Integer):
            elements = [e.value for e in container.elements if not isinstance(e, cst.StarredElement)]
            if len(elements) == len(container.elements) and int(key.value) < len(elements):
                return elements[int(key.value)]
        if isinstance(container, cst.Dict) and isinstance(key, cst.SimpleString):
            for element in container.elements:
                if (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
                        and element.key.evaluated_value == key.evaluated_value):
                    return element.value
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
        written = dotted(target)
        elsewhere = self._elsewhere(written) if local is None or local not in self.globals else None
        if elsewhere is not None and written is not None:
            if elsewhere.kind == "generator":
                return self._defined_verdict(written, elsewhere, "forward")
            return self._defined_verdict(written, elsewhere, "outside") if elsewhere.decorator else None
        qualified = self.ctx.resolve(target)
        if qualified is None:
            return None
        used = frozenset(f"{arg.keyword.value}=" for arg in getattr(decorator, "args", ()) if arg.keyword is not None)
        found = measured(qualified, "decorator", used, self.ctx.torch)
        if found is not None:
            return found
        # only a measured context manager: a decorator is not one because its module's are (`functools.lru_cache`)
        entered = measured(qualified, "forward", used, self.ctx.torch)
        if entered is None or entered.strict_error is None:
            # a `with` that exports is no evidence for the decorator (`@torch.set_grad_enabled(False)`)
            return None
        # a decorator made from a context manager enters it on each call, by the same code
        # (measured: `@mock.patch.object(...)` on `forward`, as its `with`, fails strict export)
        return dataclasses.replace(
            entered, strict_error=f"{entered.strict_error} (measured entered by `with`: decorating a function enters "
            "it on each call)",
        )

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
        local = short_name(call.func) if isinstance(call.func, cst.Name) else None
        if local is not None and local in self.classes:
            return self._user_class(self.classes[local], site)
        if local is not None and local in self.generators:
            return self._user_generator(self.generators[local], site)
        elsewhere = self._elsewhere(dotted(call.func)) if local is None or local not in self.globals else None
        if elsewhere is not None and elsewhere.kind != "instance":
            return self._defined_verdict(dotted(call.func) or "", elsewhere, site)
        qualified = self.ctx.resolve(call.func)
        if qualified is None and local in UNTRACEABLE_BUILTINS:
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
                local = short_name(base.value) if isinstance(base.value, cst.Name) else None
                if local is not None and local in self.classes and self.classes[local] is not cls:
                    inherited = self._user_class(self.classes[local], site)
                    return dataclasses.replace(inherited, name=name)
                elsewhere = self._elsewhere(dotted(base.value))
                if elsewhere is not None and elsewhere.kind == "class":
                    return dataclasses.replace(self._defined_verdict(name, elsewhere, site), name=name)
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
        return self._user_verdict(name, effects, site, printed=prints(methods.get("__enter__"), methods.get("__exit__")))

    def _user_generator(self, func: cst.FunctionDef, site: str) -> Verdict:
        name = func.name.value
        effects = [(name, call, effect) for call, effect in self._untraceable_calls(func)]
        return self._user_verdict(name, effects, site, printed=prints(func))

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
            elif isinstance(node.func, cst.Name) and (helper := _module_function(ctx, node.func.value)) is not None:
                # a function of the file the body calls runs inside the `with` too (one level:
                # `_silence()` calling `warnings.filterwarnings`)
                used |= {q for n in iter_nodes(helper.body) if isinstance(n, cst.Call)
                         and isinstance(n.func, (cst.Attribute, cst.Name)) and (q := ctx.resolve(n.func)) is not None}
    return frozenset(used)


def _module_function(ctx: RuleContext, name: str) -> cst.FunctionDef | None:
    """The module-level function `name` of the file (None: not one)."""
    return next((s for s in ctx.program.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _local_assignment(func: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """The value last assigned to `name` by a plain statement of `func` (None if not assigned)."""
    found = None
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name) and target.value == name:
                found = node.value
    return found


def _method_return(cls: cst.ClassDef, item: cst.BaseExpression) -> cst.Call | None:
    """The call `self.<name>()` stands for where `<name>` is a method of `cls` whose body is one
    `return <call>` (None: anything else)."""
    if not (
        isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) and isinstance(item.func.value, cst.Name)
        and item.func.value.value in ("self", "cls", cls.name.value)
    ):
        return None
    returned = _property_return(cls, item.func, decorated=None)
    return returned if isinstance(returned, cst.Call) else None


def _nested_class(cls: cst.ClassDef | None, item: cst.BaseExpression) -> cst.ClassDef | None:
    """The class defined in `cls`'s body that `self.<Name>(...)` builds (None: not one)."""
    if (
        cls is None or not isinstance(item, cst.Call) or not isinstance(item.func, cst.Attribute)
        or not isinstance(item.func.value, cst.Name) or item.func.value.value not in ("self", cls.name.value)
    ):
        return None
    return next((s for s in cls.body.body if isinstance(s, cst.ClassDef) and s.name.value == item.func.attr.value), None)


def _property_return(cls: cst.ClassDef, item: cst.BaseExpression, decorated: str | None = "property") -> cst.BaseExpression | None:
    """What `self.<name>` returns where `<name>` is a `@property` of `cls` (with `decorated=None`:
    a method that is no property) whose body is one `return <expr>` (None: not one)."""
    if not (isinstance(item, cst.Attribute) and isinstance(item.value, cst.Name) and item.value.value == "self"):
        return None
    for stmt in cls.body.body:
        if (
            isinstance(stmt, cst.FunctionDef)
            and stmt.name.value == item.attr.value
            and (decorated is None or any(short_name(d.decorator) == decorated for d in stmt.decorators))
            and (decorated is not None or not any(short_name(d.decorator) == "property" for d in stmt.decorators))
            and isinstance(stmt.body, cst.IndentedBlock)
            and len(stmt.body.body) == 1
            and isinstance(stmt.body.body[0], cst.SimpleStatementLine)
            and isinstance(stmt.body.body[0].body[0], cst.Return)
        ):
            return stmt.body.body[0].body[0].value
    return None


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


def _class_attribute(cls: cst.ClassDef, attr: str) -> cst.BaseExpression | None:
    """The value `cls`'s body assigns to `attr` (`frozen = torch.no_grad()`), built when the class
    is defined (None: not assigned there)."""
    for stmt in cls.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if (isinstance(small, cst.Assign) and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == attr):
                    return small.value
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
    if item.asname is not None and _binds_usedshort_name(item, body):
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


def _binds_usedshort_name(item: cst.WithItem, body: cst.BaseSuite) -> bool:
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
