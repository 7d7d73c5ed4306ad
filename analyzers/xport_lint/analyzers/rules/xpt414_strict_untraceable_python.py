from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from ..defined_contexts import ENVIRONMENT_WRITES, os_builtin
from ..model import Mode, Severity
from ..rewrites import non_strict_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..versions import Versions
from ..walk import iter_nodes
from ._conditions import short

_SKIPPED = "Attempted to call function marked as skipped"
#: builtins strict export has no handler for, and torch's words (measured on torch 2.13;
#: `vars`, `locals`, `eval`, `id`, `getattr`, `iter`/`next` export)
_BUILTINS = {
    "globals": "Failed to trace builtin operator",
    "dir": "Failed to trace builtin operator",
    "exec": "Failed to trace builtin operator",
    "compile": "Failed to trace builtin operator",
}
#: C functions of `sys` measured to fail (`sys.exc_info`, `sys.getrecursionlimit`, `sys.intern` export)
_SYS = ("sys.getsizeof", "sys.getrefcount", "sys._getframe")
#: Python functions strict export skips (measured on torch 2.13; `inspect.signature` exports), and
#: torch's generator state read or restored (`get_rng_state`/`set_rng_state`, under `torch.` or `torch.random.`)
_SKIPPED_CALLS = ("inspect.getsource", "torch.get_rng_state", "torch.set_rng_state", "torch.random.get_rng_state",
                  "torch.random.set_rng_state")
#: torch functions that answer with a Python value strict export refuses, with torch's words
#: (measured on torch 2.13; non-strict export runs them, and `torch.promote_types` exports both ways)
_PYTHON_ANSWERS = {
    "torch.result_type": "torch.* op returned non-Tensor",
    "torch.can_cast": "torch.* op returned non-Tensor",
    "torch._subclasses.fake_tensor.is_fake": _SKIPPED,
}
#: serialisers strict export refuses, with torch's words (measured on torch 2.13: `pickle.dumps`,
#: `pickle.loads` are skipped; `json.dumps`, `json.loads` call a C encoder/scanner)
_SERIALISERS = {"pickle.": _SKIPPED, "json.": "Unsupported method call"}
#: what strict export says advancing or looping over an iterator that `__init__` kept on `self`
#: (measured on torch 2.13: `iter([...])`, a generator expression, a generator method's call;
#: `itertools.count()` kept on `self` exports)
_KEPT_ITERATOR = {"next": "Missing tp_iternext", "for": "missing tp_iter"}
#: torch 2.14 and 2.15's words for `next()` of one
_KEPT_ITERATOR_LATER = "C-implemented special method without VariableTracker model"
#: why `strict=False` is no fix for a kept iterator (measured on torch 2.13: the program exports and
#: differs from eager on the next call)
_ADVANCED = ("non-strict export bakes in the values the iterator gives while tracing, where each eager call"
             " advances it")
#: cache wrappers whose construction strict export cannot trace (a module-level cached helper exports)
_CACHES = ("functools.lru_cache", "functools.cache")


class _Refusal(NamedTuple):
    """torch's words for a call strict export refuses, and whether the call advances an iterator
    `__init__` kept on `self` (non-strict export would bake in the values it gives: no fix)."""

    words: str
    kept_iterator: bool = False


class StrictUntraceablePython(Rule):
    """Traced code calls Python that strict export cannot trace (`globals()`, `gc`, `threading`, a C function of `os`, an `lru_cache` built).

    ## What it does
    Flags, in traced code: the builtins `globals()`, `dir()`, `exec()` and `compile()`; any call
    of `gc` or `threading`; a C function of `os` (`os.getpid()`, `os.getcwd()`,
    `os.cpu_count()`, where `os.path.join` and `os.getenv` are Python and export) or of `sys`
    measured to fail (`sys.getsizeof`, `sys.getrefcount`, `sys._getframe`), torch's generator state read or
    restored (`torch.get_rng_state`, `torch.set_rng_state`); `inspect.getsource`
    (`inspect.signature` exports); `pickle` and `json`
    (`dumps`, `loads`); `next(self.it)` or a loop over `self.it` where `__init__` set `self.it` to
    an iterator (`iter(...)`, a generator expression, a generator method's call; one built in
    `forward`, or `itertools.count()` kept on `self`, exports); a write to `os.environ`
    (`os.environ[k] = v`, `.update(...)`, `del`, which call `os.putenv`/`os.unsetenv`); and
    `functools.lru_cache`/`functools.cache` applied inside traced code (a nested function
    decorated with it, or the wrapper called); `copy.copy` of a list or dict (a literal or
    comprehension, in place, bound to a local, or kept on `self`; of a tuple or a module it
    exports); `torch.result_type`, `torch.can_cast` and `is_fake` of
    `torch._subclasses.fake_tensor`, whose answers are Python values (`torch.promote_types`
    exports). A `with` item is XPT410's.

    ## Why it fails torch.export
    Strict export traces Python bytecode with Dynamo, which refuses what it has no model for:
    `Failed to trace builtin operator` (`globals`, `dir`, `exec`, `compile`; `dir()` with no
    argument: `invalid call to builtin op handler`), `Attempted to call function marked as
    skipped` (the C functions of `gc`, `os`, `sys`, and the `threading` module, whose files it
    skips), `Unsupported method call` (building the `lru_cache` wrapper type, `json`'s C
    encoder), `Missing tp_iternext` / `missing tp_iter` (a Python iterator made before tracing
    began, which Dynamo cannot step; torch 2.14 and 2.15: `C-implemented special method without
    VariableTracker model`, measured). Non-strict
    export runs them as Python, once, while tracing (measured on torch 2.13).

    ## Example
    ```python
    scale = globals()["SCALE"]
    ```

    ## Use instead
    Read configuration in `__init__` and keep it on the module; build caches at module level
    (a cached module-level helper exports); leave process and garbage-collector state to the
    code that calls the exported program; or export non-strict.

    ## Fix safety
    Unsafe: `strict=True` becomes `strict=False` at the file's export calls, where non-strict
    export runs the call once, while tracing. It assumes the rest of the model exports
    non-strict too. No fix when strict mode comes from the configuration.

    ## Modes
    Error in strict export; nothing in non-strict export, which exports these.
    """

    CODE = "XPT414"
    NAME = "strict-untraceable-python"
    SEVERITY = None
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported (Dynamo): Failed to trace builtin operator / function marked as skipped"
    FAILS_WITH = {
        Mode.STRICT: (
            TorchError("Unsupported", "Failed to trace builtin operator"),
            TorchError("Unsupported", "invalid call to builtin op handler"),
            TorchError("Unsupported", _SKIPPED),
            TorchError("Unsupported", "Unsupported method call"),
            TorchError("Unsupported", "torch.* op returned non-Tensor"),
            TorchError("Unsupported", "Missing tp_iternext", Versions(last=(2, 13))),
            TorchError("Unsupported", "missing tp_iter", Versions(last=(2, 13))),
            TorchError("Unsupported", _KEPT_ITERATOR_LATER, Versions(first=(2, 14))),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        statement = self.ctx.statement
        if isinstance(statement, cst.With) and any(item.item is node for item in statement.items):
            return  # entered as a context manager: XPT410 judges it
        if isinstance(statement, cst.FunctionDef) and any(d.decorator is node for d in statement.decorators):
            return  # a decorator of a function defined here: `visit_Decorator`'s
        refusal = self._refused(node)
        if refusal is not None:
            self._flag(node, f"`{short(node)}`", refusal.words, unfixable=_ADVANCED if refusal.kept_iterator else "")

    def visit_Decorator(self, node: cst.Decorator) -> None:
        """`@functools.cache` or `@functools.lru_cache(maxsize=None)` on a function defined in
        traced code: the wrapper is built each time the traced code runs the `def`."""
        target = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
        if self.ctx.resolve(target) in _CACHES:
            what = f"`{short(node.decorator)}` applied as a decorator"
            self._flag(node.decorator, what, "Unsupported method call", statement=node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._environment_store(target.target, "os.putenv")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._environment_store(node.target, "os.putenv")

    def visit_Del(self, node: cst.Del) -> None:
        self._environment_store(node.target, "os.unsetenv")

    def _environment_store(self, target: cst.BaseExpression, calls: str) -> None:
        if isinstance(target, cst.Subscript) and self.ctx.resolve(target.value) == "os.environ":
            self._flag(target, f"writing `{short(target)}` (it calls `{calls}`)", _SKIPPED)

    def _refused(self, node: cst.Call) -> _Refusal | None:
        """How strict export refuses the call (None: it traces it)."""
        func = node.func
        qualified = self.ctx.resolve(func)
        if qualified is None:
            if isinstance(func, cst.Name) and func.value == "next" and node.args and not self._bound("next"):
                return self._next_of(node)
            if isinstance(func, cst.Name) and func.value in _BUILTINS and not self._bound(func.value):
                if func.value == "dir" and not node.args:
                    return _Refusal("invalid call to builtin op handler")
                return _Refusal(_BUILTINS[func.value])
            return None
        if qualified in _CACHES:
            return _Refusal("Unsupported method call")
        if qualified in _PYTHON_ANSWERS:
            return _Refusal(_PYTHON_ANSWERS[qualified])
        if qualified == "copy.copy" and len(node.args) == 1 and self._list_or_dict(node.args[0].value):
            return _Refusal(_SKIPPED)
        if qualified in ENVIRONMENT_WRITES:
            return _Refusal(_SKIPPED)
        if qualified.startswith(("gc.", "threading.")) or qualified in _SYS or qualified in _SKIPPED_CALLS:
            return _Refusal(_SKIPPED)
        if qualified == "next" or (isinstance(func, cst.Name) and func.value == "next" and not self._bound("next")):
            return self._next_of(node)
        serialiser = next((w for prefix, w in _SERIALISERS.items() if qualified.startswith(prefix)), None)
        if serialiser is not None:
            return _Refusal(serialiser)
        if qualified.startswith("os.") and qualified.count(".") == 1 and os_builtin(qualified):
            return _Refusal(_SKIPPED)
        return None

    def _next_of(self, node: cst.Call) -> _Refusal | None:
        """`next(self.it)` of an iterator `__init__` kept: torch's words on the target torch
        (measured on 2.13-2.15); None for `next()` of anything else (it traces)."""
        if not (node.args and self._kept_iterator(node.args[0].value)):
            return None
        return _Refusal(_KEPT_ITERATOR["next"] if self.ctx.torch <= (2, 13) else _KEPT_ITERATOR_LATER, True)

    def visit_For(self, node: cst.For) -> None:
        if self._kept_iterator(node.iter):
            self._flag(node.iter, f"a loop over `{short(node.iter)}`, an iterator `__init__` kept on `self`",
                       _KEPT_ITERATOR["for"], unfixable=_ADVANCED)

    def _kept_iterator(self, expr: cst.BaseExpression) -> bool:
        """`expr` is `self.<name>` that `__init__` set to an iterator (`iter(...)`, a generator
        expression, or the call of a method of the class that yields): Python state strict export
        cannot carry into the trace (an iterator built in `forward` exports)."""
        traced = self.ctx.traced
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"
                and traced is not None and traced.cls is not None):
            return False
        methods = traced.cls.methods
        init = methods.get("__init__")
        value = None
        for node in iter_nodes(init.body) if init is not None else ():
            if (isinstance(node, cst.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0].target, cst.Attribute)
                    and isinstance(node.targets[0].target.value, cst.Name)
                    and node.targets[0].target.value.value == "self"
                    and node.targets[0].target.attr.value == expr.attr.value):
                value = node.value
        if isinstance(value, cst.GeneratorExp):
            return True
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Name) and value.func.value == "iter" and not self._bound("iter"):
            return True
        func = value.func
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
                and (method := methods.get(func.attr.value)) is not None):
            return any(isinstance(n, cst.Yield) for n in iter_nodes(method.body))
        return False

    def _list_or_dict(self, expr: cst.BaseExpression) -> bool:
        """`expr` is a list or dict built by a literal or comprehension: in place, bound once to a
        local, or kept on `self` by `__init__` (`copy.copy` of one fails strict export, measured;
        of a tuple or a module it exports)."""
        traced = self.ctx.traced
        flow = self.ctx.flow
        if isinstance(expr, cst.Name) and flow is not None and traced is not None and flow.func is traced.func:
            expr = flow.bound_once(expr.value) or expr
        elif (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"
              and traced is not None and traced.cls is not None):
            init = traced.cls.methods.get("__init__")
            for node in iter_nodes(init.body) if init is not None else ():
                if (isinstance(node, cst.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0].target, cst.Attribute)
                        and isinstance(node.targets[0].target.value, cst.Name)
                        and node.targets[0].target.value.value == "self"
                        and node.targets[0].target.attr.value == expr.attr.value):
                    expr = node.value
        return isinstance(expr, (cst.List, cst.Dict, cst.ListComp, cst.DictComp))

    def _bound(self, name: str) -> bool:
        """`name` is defined in the file or the traced function (a `dir` of its own)."""
        traced = self.ctx.traced
        scopes: list[cst.CSTNode] = [self.ctx.program.module]
        if traced is not None:
            if any(p.name.value == name for p in (*traced.func.params.params, *traced.func.params.kwonly_params)):
                return True
            scopes = [traced.func.body, *(s for s in self.ctx.program.module.body)]
        for scope in scopes:
            for found in iter_nodes(scope):
                if isinstance(found, (cst.FunctionDef, cst.ClassDef)) and found.name.value == name:
                    return True
                if isinstance(found, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in found.targets] if isinstance(found, cst.Assign) else [found.target]
                    if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                        return True
        return False

    def _flag(
        self, node: cst.CSTNode, what: str, words: str, statement: cst.CSTNode | None = None, unfixable: str = ""
    ) -> None:
        """`unfixable`: why non-strict export would not compute what eager does there (no fix then)."""
        rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
        message = f"strict export cannot trace {what} in traced code: Unsupported: {words}"
        reason = unfixable or rewrite.reason
        if reason:
            message += f" (no automatic fix: {reason})"
        self.report(node, message, fix=None if unfixable else rewrite.fix, statement=statement)

    VALID = [
        Valid(
            """
            import torch
            class Scaled(torch.nn.Module):
                def forward(self, x):
                    scales = iter([2.0, 3.0])
                    return x * next(scales)
            def xport_example():
                return Scaled(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import functools
            import os
            import torch
            SCALE = 2.0
            @functools.lru_cache(maxsize=None)
            def _inverse(width):
                return 1.0 / width
            class Scaled(torch.nn.Module):
                def forward(self, x):
                    name = os.path.join("a", "b")
                    return x * SCALE * _inverse(x.shape[-1]) * len(vars(self) or name)
            def xport_example():
                return Scaled(), (torch.randn(2, 4),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Promoted(torch.nn.Module):
                def forward(self, x):
                    if torch.result_type(x, 1.0) == torch.float32:  # expect: XPT414
                        return x * 2
                    return x
            def export():
                return torch.export.export(Promoted(), (torch.randn(3),), strict=True)
            """,
            """
            import torch
            class Promoted(torch.nn.Module):
                def forward(self, x):
                    if torch.result_type(x, 1.0) == torch.float32:  # expect: XPT414
                        return x * 2
                    return x
            def export():
                return torch.export.export(Promoted(), (torch.randn(3),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Repro(torch.nn.Module):
                def forward(self, x):
                    state = torch.random.get_rng_state()  # expect: XPT414
                    noise = torch.rand_like(x)
                    torch.set_rng_state(state)  # expect: XPT414
                    return x + noise
            def export():
                return torch.export.export(Repro(), (torch.randn(3),), strict=True)
            """,
            """
            import torch
            class Repro(torch.nn.Module):
                def forward(self, x):
                    state = torch.random.get_rng_state()  # expect: XPT414
                    noise = torch.rand_like(x)
                    torch.set_rng_state(state)  # expect: XPT414
                    return x + noise
            def export():
                return torch.export.export(Repro(), (torch.randn(3),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Cycled(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scales = iter([2.0, 3.0, 4.0])
                def forward(self, x):
                    return x * next(self.scales)  # expect: XPT414
            def export():
                return torch.export.export(Cycled(), (torch.randn(2, 4),), strict=True)
            """,
        ),
        Invalid(
            """
            import torch
            SCALE = 2.0
            class Scaled(torch.nn.Module):
                def forward(self, x):
                    return x * globals()["SCALE"]  # expect: XPT414
            def export():
                return torch.export.export(Scaled(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import torch
            SCALE = 2.0
            class Scaled(torch.nn.Module):
                def forward(self, x):
                    return x * globals()["SCALE"]  # expect: XPT414
            def export():
                return torch.export.export(Scaled(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import gc
            import torch
            class Collected(torch.nn.Module):
                def forward(self, x):
                    gc.collect()  # expect: XPT414
                    return x * 2
            def export():
                return torch.export.export(Collected(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import gc
            import torch
            class Collected(torch.nn.Module):
                def forward(self, x):
                    gc.collect()  # expect: XPT414
                    return x * 2
            def export():
                return torch.export.export(Collected(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import functools
            import torch
            class Cached(torch.nn.Module):
                def forward(self, x):
                    @functools.lru_cache(maxsize=None)  # expect: XPT414
                    def inverse(width):
                        return 1.0 / width
                    return x * inverse(x.shape[-1])
            def export():
                return torch.export.export(Cached(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import functools
            import torch
            class Cached(torch.nn.Module):
                def forward(self, x):
                    @functools.lru_cache(maxsize=None)  # expect: XPT414
                    def inverse(width):
                        return 1.0 / width
                    return x * inverse(x.shape[-1])
            def export():
                return torch.export.export(Cached(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import os
            import torch
            class Tagged(torch.nn.Module):
                def forward(self, x):
                    os.environ["MODEL_RAN"] = "1"  # expect: XPT414
                    return x + 1
            def export():
                return torch.export.export(Tagged(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import os
            import torch
            class Tagged(torch.nn.Module):
                def forward(self, x):
                    os.environ["MODEL_RAN"] = "1"  # expect: XPT414
                    return x + 1
            def export():
                return torch.export.export(Tagged(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import os
            import torch
            class Stamped(torch.nn.Module):
                def forward(self, x):
                    return x + os.getpid() % 2  # expect: XPT414
            def export():
                return torch.export.export(Stamped(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import os
            import torch
            class Stamped(torch.nn.Module):
                def forward(self, x):
                    return x + os.getpid() % 2  # expect: XPT414
            def export():
                return torch.export.export(Stamped(), (torch.randn(2, 4),), strict=False)
            """,
        ),
    ]
