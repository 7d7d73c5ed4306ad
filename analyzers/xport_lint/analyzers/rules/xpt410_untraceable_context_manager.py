from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rewrites import module_names, non_strict_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..versions import Versions
from ._conditions import short
from ._context_managers import catalogue_table, decorator_verdicts, rejection, skip_while_exporting, with_verdicts


class UntraceableContextManager(Rule):
    """A `with` in traced code that export rejects: strict export (Dynamo) for most of them.

    ## What it does
    Resolves each `with` item in traced code: names through imports and aliases, local names
    and `self.` attributes to where the object was built (`forward`, `__init__`, module level;
    an element of a list, tuple or dict literal kept there, `self.contexts[0]`; what a one-line
    `@property` or method returns, built in `forward` on each call; `A if self.flag else B` as
    the branch the module's default takes), context managers defined in the file (a class in
    the module's body too) to what their `__enter__`/`__exit__` or generator body calls
    (writing `os.environ` included). It reports the ones the target torch refuses, at the `with`, in torch's own words, from
    a catalogue measured with real torch 2.13, 2.14 and 2.15 (below;
    `tests/truth/test_context_managers.py` re-measures every entry on the installed torch).

    ## Why it fails torch.export
    Strict export traces Python bytecode with Dynamo, which knows a fixed set of context
    managers (grad modes, autocast, `sdpa_kernel`, `nullcontext`, ...). Others stop it:
    `Unsupported context manager` (`torch.device`; on torch 2.13 also an instance of a user
    class built outside `forward`, which 2.14+ enters), `Attempted to call function marked as
    skipped` (a lock, `mock.patch`, `warnings.simplefilter` inside `catch_warnings()`, a user
    class whose `__enter__` reads the clock: `Call to a time function` on 2.15; a user
    context manager calling `gc.*`, a warnings filter, `torch.get_rng_state`/`set_rng_state`,
    or a C function of `os` such as `os.getcwd`, where `os.path.join`, `os.getenv`,
    `warnings.warn`, `torch.set_default_dtype` export),
    `Unsupported method call` (`mock.patch.object` on 2.14+, `io.StringIO`, `redirect_stderr`),
    `torch.* op returned non-Tensor` (`fork_rng`, `cudnn.flags`, `torch.cuda.nvtx.range`),
    `Failed to trace builtin operator` (`open`, `tempfile.NamedTemporaryFile`); grad modes
    given their flag by keyword (`torch.inference_mode(mode=False)`,
    `torch.set_grad_enabled(mode=False)`), where the positional spelling exports. Non-strict
    export runs them as Python and succeeds (see XPT411 for what the graph then loses).

    A context manager not in the catalogue is judged by its family where the family is
    decided: if two or more measured members of its nearest package all fail strict export
    (`torch.backends.*.flags`, `threading`, `unittest.mock.patch`), so does it; a
    standard-library one from a module none of whose measured members exports fails too
    (Dynamo skips the standard library's code; the ones it handles itself are measured). The
    message says it was not measured itself. Anything else is XPT412's.

    A context manager decorating a traced function is entered on each call: judged as measured
    as a decorator (`@torch.set_grad_enabled(False)` fails strict export where the `with`
    exports), a `@contextmanager` generator as one made in `forward` (it makes a fresh one per
    call), a `contextlib.ContextDecorator` class of the file as an instance built outside
    `forward` (one instance, made where the class body runs).

    ## Example
    ```python
    with self.lock:
        y = self.proj(x)
    ```

    ## Use instead
    Keep such contexts out of `forward` (take the lock around the call of the exported
    program, time it from outside), build the context in `forward` where torch measures that to
    export (`with torch.no_grad():` rather than `self.no_grad`), or export non-strict.

    ## Fix safety
    Unsafe. A context manager that matters only in eager (a timer, a profiler, a lock, anomaly
    detection) is skipped while exporting: `with X:` becomes
    `with contextlib.nullcontext() if torch.compiler.is_exporting() else X:`, which strict and
    non-strict export both trace (measured) and which still enters `X` in eager. Otherwise
    `strict=True` becomes `strict=False` at the file's export calls, where non-strict export
    succeeds on it (the catalogue says so); the graph may then lose its effect (XPT411). No fix
    when strict mode comes from the configuration and the context manager does real work.

    ## Modes
    Error in strict export where strict export fails; error in non-strict export only for the
    few that fail there too.
    """

    CODE = "XPT410"
    NAME = "untraceable-context-manager"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "Unsupported: Unsupported context manager (Dynamo)"
    #: every failure the catalogue measured (tests/rules/test_examples.py checks the match)
    FAILS_WITH = {
        Mode.NON_STRICT: (
            # torch's dispatch-mode internals entered in `forward`
            TorchError("RuntimeError", "Accessing torch dispatch state outside of '__torch_dispatch__'"),
            TorchError("RuntimeError", "We found a fake tensor in the exported program constant's list"),
            TorchError("RuntimeError", "PyTorch was compiled without CUDA support"),
            TorchError("RuntimeError", "NVTX functions not installed"),
            TorchError("AssertionError", "Torch not compiled with CUDA enabled"),
            # a build without the MPS or XPU backend: `torch.mps.profiler.profile()`, `torch.xpu.device(0)`
            TorchError("RuntimeError", "without MPS backend"),
            TorchError("NotImplementedError", "PyTorch was compiled without XPU support"),
        ),
        Mode.STRICT: (
            TorchError("Unsupported", "Unsupported context manager"),
            TorchError("Unsupported", "Call to a time function", Versions(first=(2, 15))),
            TorchError("Unsupported", "Attempted to call function marked as skipped"),
            TorchError("Unsupported", "Attempted to inline function marked as skipped"),
            TorchError("Unsupported", "Failed to trace builtin operator"),
            TorchError("Unsupported", "Unsupported method call"),
            TorchError("Unsupported", "Unsupported function call"),
            # a torch config module's `patch` (torch 2.14); a `sdpa_kernel` built in `__init__` (2.15)
            TorchError("Unsupported", "Invalid call to __build_class__", Versions(first=(2, 14))),
            TorchError("Unsupported", "ContextVar mutation not supported", Versions(first=(2, 15))),
            TorchError("AssertionError", "torch.inference_mode expects no kwargs"),
            # `torch.compiler.set_stance`
            TorchError("AssertionError", "Attempt to trace forbidden callable"),
            TorchError("Unsupported", "attempted to trace numpy function unsupported by PyTorch"),
            TorchError("Unsupported", "torch.* op returned non-Tensor"),
            TorchError("RuntimeError", "PyTorch was compiled without CUDA support"),
            TorchError("NotImplementedError", "PyTorch was compiled without XPU support"),
            # `torch.cuda.stream(None)`
            TorchError("AttributeError", "'ConstantVariable' object has no attribute 'user_object_index'"),
        ),
    }

    def visit_With(self, node: cst.With) -> None:
        for item, verdict in with_verdicts(self.ctx, node):
            error = rejection(self.ctx, verdict)
            if error is None:
                continue
            mode = "strict export" if self.ctx.mode is Mode.STRICT else "export"
            message = f"{mode} rejects entering `{short(item.item)}` here: {error}"
            fix, reason = skip_while_exporting(item, node.body, verdict, module_names(self.ctx.program.module))
            if fix is None and self.ctx.mode is Mode.STRICT and verdict.non_strict_error is None:
                rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
                fix, reason = rewrite.fix, reason or rewrite.reason
            if fix is None and reason:
                message += f" (no automatic fix: {reason})"
            self.report(item.item, message, fix=fix, statement=node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        """Once per traced function (its body is the first node walked): its decorators."""
        traced = self.ctx.traced
        if traced is None or node is not traced.func.body:
            return
        for decorator, verdict in decorator_verdicts(self.ctx):
            error = rejection(self.ctx, verdict)
            if error is None:
                continue
            mode = "strict export" if self.ctx.mode is Mode.STRICT else "export"
            message = f"{mode} rejects entering `{short(decorator.decorator)}`, which decorates `{traced.func.name.value}`: {error}"
            fix = None
            if self.ctx.mode is Mode.STRICT and verdict.non_strict_error is None:
                rewrite = non_strict_rewrite(call.call for call in self.ctx.program.export_calls)
                fix = rewrite.fix
                if fix is None and rewrite.reason:
                    message += f" (no automatic fix: {rewrite.reason})"
            self.report(decorator.decorator, message, fix=fix, statement=decorator)

    VALID = [
        Valid(
            """
            import contextlib
            import torch
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(4, 4)
                def forward(self, x):
                    with torch.no_grad(), torch.autocast("cpu", enabled=False), contextlib.nullcontext():
                        return self.proj(x)
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import torch
            class Scope:
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                def forward(self, x):
                    with Scope():
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """
        ),
        Valid(
            """
            import torch
            class Scope:
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scope = Scope()
                def forward(self, x):
                    with self.scope:
                        return x * 2
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            torch_versions=Versions(first=(2, 14)),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import threading
            import torch
            class Cached(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lock = threading.Lock()
                    self.proj = torch.nn.Linear(4, 4)
                def forward(self, x):
                    with self.lock:  # expect: XPT410
                        return self.proj(x)
            def xport_example():
                return Cached(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Cached(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import threading
            import torch
            import contextlib
            class Cached(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lock = threading.Lock()
                    self.proj = torch.nn.Linear(4, 4)
                def forward(self, x):
                    with contextlib.nullcontext() if torch.compiler.is_exporting() else self.lock:  # expect: XPT410
                        return self.proj(x)
            def xport_example():
                return Cached(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Cached(), (torch.randn(2, 4),), strict=True)
            """,
        ),
        Invalid(
            """
            import time
            import torch
            class Timer:
                def __enter__(self):
                    self.start = time.perf_counter()
                    return self
                def __exit__(self, *exc):
                    self.elapsed = time.perf_counter() - self.start
                    return False
            class Block(torch.nn.Module):
                def forward(self, x):
                    with Timer():  # expect: XPT410
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import time
            import torch
            import contextlib
            class Timer:
                def __enter__(self):
                    self.start = time.perf_counter()
                    return self
                def __exit__(self, *exc):
                    self.elapsed = time.perf_counter() - self.start
                    return False
            class Block(torch.nn.Module):
                def forward(self, x):
                    with contextlib.nullcontext() if torch.compiler.is_exporting() else Timer():  # expect: XPT410
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
        ),
        Invalid(
            """
            import torch
            class Placed(torch.nn.Module):
                def forward(self, x):
                    with torch.device("cpu"):  # expect: XPT410
                        return x + torch.ones(4)
            def xport_example():
                return Placed(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Placed(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Placed(torch.nn.Module):
                def forward(self, x):
                    with torch.device("cpu"):  # expect: XPT410
                        return x + torch.ones(4)
            def xport_example():
                return Placed(), (torch.randn(2, 4),)
            def export():
                return torch.export.export(Placed(), (torch.randn(2, 4),), strict=False)
            """,
        ),
        Invalid(
            """
            import torch
            class Scope:
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scope = Scope()
                def forward(self, x):
                    with self.scope:  # expect: XPT410
                        return x * 2
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import torch
            import contextlib
            class Scope:
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scope = Scope()
                def forward(self, x):
                    with contextlib.nullcontext() if torch.compiler.is_exporting() else self.scope:  # expect: XPT410
                        return x * 2
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            torch_versions=Versions(last=(2, 13)),
        ),
        Invalid(
            """
            import contextlib
            import torch
            class Tagged(contextlib.ContextDecorator):
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                @Tagged()  # expect: XPT410
                def forward(self, x):
                    return x * 2
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=True)
            """,
            expected_replacement="""
            import contextlib
            import torch
            class Tagged(contextlib.ContextDecorator):
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                @Tagged()  # expect: XPT410
                def forward(self, x):
                    return x * 2
            def export():
                return torch.export.export(Block(), (torch.randn(2, 4),), strict=False)
            """,
            torch_versions=Versions(last=(2, 13)),
        ),
    ]


UntraceableContextManager.__doc__ = (UntraceableContextManager.__doc__ or "") + catalogue_table()
