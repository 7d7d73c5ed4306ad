from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rewrites import module_names
from ..rule import Invalid, Rule, Valid
from ._conditions import short
from ._context_managers import rejection, skip_while_exporting, with_verdicts


class ContextManagerEffect(Rule):
    """A `with` in traced code that exports, but whose effect the exported program does not keep.

    ## What it does
    Flags context managers whose work happens once, while export traces, and never when the
    exported program runs: a timer (`time.perf_counter()` in `__enter__`/`__exit__` or a
    `@contextmanager` body), a profiler, a lock, `open()`, `mock.patch` (active only while
    tracing), a temporary folder, a print. Also those that fail only on some builds of torch
    (`torch.cuda.device(0)` on a CPU-only build), naming the condition.

    ## Why it fails torch.export
    It does not fail: non-strict export runs the Python around the tensor ops once and records
    only the ops. What the context manager did (timed, locked, patched, read) is done at export
    time and is absent from the graph: a silent difference from eager.

    ## Example
    ```python
    with Timer() as timer:
        y = self.block(x)
    self.last_ms = timer.elapsed
    ```

    ## Use instead
    Time, lock and profile around the call of the exported program, outside `forward`; pass
    what a patch or a file provided as an input or a buffer.

    ## Fix safety
    Unsafe, and offered only where the context manager matters only in eager (a timer, a
    profiler, a lock, a print, anomaly detection): `with X:` becomes
    `with contextlib.nullcontext() if torch.compiler.is_exporting() else X:`, which both export
    modes trace (measured) and which still enters `X` in eager. Not where the body uses what `X`
    returns, nor for `mock.patch`, `open()` or `torch.device`, whose effect the traced code needs.

    ## Modes
    Warning in the modes where export succeeds on the context manager (strict export rejects
    most of these: XPT410).
    """

    CODE = "XPT411"
    NAME = "context-manager-effect"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    PYTORCH_NAME = "side effects at trace time"

    def visit_With(self, node: cst.With) -> None:
        for item, verdict in with_verdicts(self.ctx, node):
            error = rejection(self.ctx, verdict)
            if error is not None or verdict.effect is None:
                continue  # rejected outright (XPT410), or nothing is lost
            if verdict.condition is not None:
                message = f"entering `{short(item.item)}` {verdict.effect}: only on {verdict.condition}"
            else:
                message = f"entering `{short(item.item)}` exports, but the graph does not keep it: {verdict.effect}"
            fix, reason = skip_while_exporting(item, node.body, verdict, module_names(self.ctx.program.module))
            if fix is None and reason:
                message += f" (no automatic fix: {reason})"
            self.report(item.item, message, fix=fix, statement=node)

    VALID = [
        Valid(
            """
            import torch
            class Block(torch.nn.Module):
                def forward(self, x):
                    with torch.no_grad():
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Announce:
                def __enter__(self):
                    print("entering the block")
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                def forward(self, x):
                    with Announce():  # expect: XPT411
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """,
            expected_replacement="""
            import torch
            import contextlib
            class Announce:
                def __enter__(self):
                    print("entering the block")
                    return self
                def __exit__(self, *exc):
                    return False
            class Block(torch.nn.Module):
                def forward(self, x):
                    with contextlib.nullcontext() if torch.compiler.is_exporting() else Announce():  # expect: XPT411
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """,
        ),
        Invalid(
            """
            import torch
            class Profiled(torch.nn.Module):
                def forward(self, x):
                    with torch.profiler.profile():  # expect: XPT411
                        return x * 2
            def xport_example():
                return Profiled(), (torch.randn(2, 4),)
            """,
            expected_replacement="""
            import torch
            import contextlib
            class Profiled(torch.nn.Module):
                def forward(self, x):
                    with contextlib.nullcontext() if torch.compiler.is_exporting() else torch.profiler.profile():  # expect: XPT411
                        return x * 2
            def xport_example():
                return Profiled(), (torch.randn(2, 4),)
            """,
        ),
    ]
