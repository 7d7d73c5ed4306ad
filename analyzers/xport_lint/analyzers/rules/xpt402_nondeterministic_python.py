from __future__ import annotations

import libcst as cst

from ..context import RuleContext
from ..model import Mode, Severity
from ..rule import Invalid, Rule, TorchError, Valid
from ..versions import Versions, show
from ..walk import iter_nodes
from ._conditions import short

_MODULES = ("random.", "time.", "numpy.random.", "datetime.", "uuid.", "secrets.")
#: seeding torch's generator: non-strict export runs it once and keeps no node for it
_SEEDING = frozenset({"torch.manual_seed", "torch.random.manual_seed"})


def _strict_words(ctx: RuleContext, qualified: str) -> str:
    """How the target torch's strict export refuses the call, where its words changed."""
    if ctx.mode is not Mode.STRICT:
        return ""
    if qualified.startswith("random.") and ctx.torch >= (2, 14):
        return (f"; strict export on torch {show(ctx.torch)} fails with `AssertionError: Dynamo attempts to add "
                "additional input during export`, naming no line of the model")
    if qualified.startswith("time.") and ctx.torch >= (2, 15):
        return f"; strict export on torch {show(ctx.torch)} fails with `Unsupported: Call to a time function`"
    return ""


class NondeterministicPython(Rule):
    """Python's `random`, `time`, `numpy.random` or `datetime`, or `torch.manual_seed`, called in traced code.

    ## What it does
    Flags calls into Python-side sources of randomness and time in traced code
    (`random.random()`, `time.time()`, `np.random.rand()`), and seeding torch's generator
    (`torch.manual_seed(0)`).

    ## Why it fails torch.export
    Non-strict export runs the call once while tracing and bakes its result into the graph as
    a constant: every call of the exported program sees the same "random" number. A
    `torch.manual_seed` call leaves no node: the exported program's random ops are not re-seeded
    on each call as eager's are (measured on torch 2.13). Strict export refuses both:
    `Unsupported: Attempted to call function marked as skipped`. A `torch.Generator` that
    `__init__` keeps on `self`, passed to a random op (`torch.rand(..., generator=self.gen)`),
    fails strict export too (`Unsupported: Failed to convert args/kwargs to proxy`, measured on
    torch 2.13; non-strict export traces it). The generator is followed as the dataflow reads
    it: bound to a local first (`gen = self.gen`, unpacked too) or returned by a one-line
    helper of this file or another (`generator=_pick(self.gen)`), and seeded where it is made
    (`torch.Generator().manual_seed(0)`).

    ## Example
    ```python
    if self.training and random.random() < self.drop_prob:
    ```

    ## Use instead
    torch's own random ops (`torch.rand(())`, `torch.bernoulli`), which become graph nodes; pass
    times in as inputs; seed once outside the model, before calling it.

    ## Fix safety
    No automatic fix.

    ## Modes
    Warning in non-strict export (baked-in constant); error in strict export. Where only a
    training-mode export runs the call (`if self.training and random.random() < p:`), info in
    non-strict export and a warning naming training mode in strict export: an `.eval()` export
    never calls it. A number drawn into a name that only training mode reads (transformers'
    layerdrop: `p = np.random.random()`, then `if not self.training or p > self.layerdrop:`) is
    info in non-strict export, whose `.eval()` graph never depends on it, and an error in strict
    export, which refuses the call itself.
    """

    CODE = "XPT402"
    NAME = "nondeterministic-python"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.ERROR
    SIDE_EFFECT = True
    PYTORCH_NAME = "Unsupported: Attempted to call function marked as skipped"
    FAILS_WITH = {
        Mode.STRICT: (
            TorchError("Unsupported", "Attempted to call function marked as skipped"),
            # torch 2.14+ (random.random()): an assertion naming no line of the model
            TorchError("AssertionError", "Dynamo attempts to add additional input during export", Versions(first=(2, 14))),
            TorchError("Unsupported", "Call to a time function", Versions(first=(2, 15))),
            # a `torch.Generator` made in traced code
            TorchError("Unsupported", "An opaque object was created in the middle of the program"),
            # a `torch.Generator` kept on `self`, passed to a random op
            TorchError("Unsupported", "Failed to convert args/kwargs to proxy"),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.mode is Mode.STRICT:
            kept = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "generator"
                         and self._kept_generator(a.value)), None)
            if kept is not None:
                self.report(kept, f"`{short(kept)}` is a `torch.Generator` kept on the module: strict export fails "
                            "with `Unsupported: Failed to convert args/kwargs to proxy` where a random op takes it")
        qualified = self.ctx.resolve(node.func)
        if qualified in _SEEDING:
            self.report(node, f"`{short(node)}` runs once at export time: the exported program is not re-seeded")
        elif qualified == "torch.Generator":
            # measured on 2.13: non-strict keeps one generator, whose state advances across calls
            self.report(node, f"`{short(node)}` is made once at export time: the exported program draws from that one "
                        "generator, not re-made and re-seeded on each call (strict export: `An opaque object was "
                        "created in the middle of the program`)")
        elif qualified is not None and qualified.startswith(_MODULES):
            if self.ctx.mode is not Mode.STRICT and self._read_only_in_training(node):
                self.report(node, f"`{short(node)}` runs once at export time, but only training mode reads the "
                            "number (`not self.training or ...`): an eval export's graph does not depend on it",
                            severity=Severity.INFO)
                return
            self.report(node, f"`{short(node)}` runs once at export time and is baked in{_strict_words(self.ctx, qualified)}")

    def _kept_generator(self, value: cst.BaseExpression) -> bool:
        """`self.gen` where the class's `__init__` sets it to `torch.Generator(...)`, seeded or not
        (`torch.Generator().manual_seed(0)`); through a local bound once (unpacked too) or a
        one-line helper's `return` (`_h(self.gen)`, of this file or another), as the dataflow reads them."""
        traced, flow = self.ctx.traced, self.ctx.flow
        for _ in range(8):
            if flow is None or traced is None or flow.func is not traced.func:
                break
            seen = (flow.bound_once(value.value) if isinstance(value, cst.Name)
                    else flow.inlined(value) if isinstance(value, cst.Call) else None)
            if seen is None or seen is value:
                break
            value = seen
        if not (
            traced is not None and traced.cls is not None and isinstance(value, cst.Attribute)
            and isinstance(value.value, cst.Name) and value.value.value == "self"
        ):
            return False
        init = next((s for s in traced.cls.node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
                    None)
        for assign in iter_nodes(init.body) if init is not None else ():
            if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
                continue
            target = assign.targets[0].target
            if not (isinstance(target, cst.Attribute) and target.attr.value == value.attr.value):
                continue
            made = assign.value
            while isinstance(made, cst.Call) and isinstance(made.func, cst.Attribute) and self.ctx.resolve(made.func) is None:
                made = made.func.value  # `.manual_seed(0)` on the generator
            if isinstance(made, cst.Call) and self.ctx.resolve(made.func) == "torch.Generator":
                return True
        return False

    def _read_only_in_training(self, node: cst.Call) -> bool:
        """`name = <node>` whose every read in the function is evaluated only in training mode:
        the right operand of `not self.training or ...` or of `self.training and ...`."""
        statement, traced = self.ctx.statement, self.ctx.traced
        if not (
            traced is not None and isinstance(statement, cst.Assign) and statement.value is node
            and len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name)
        ):
            return False
        target = statement.targets[0].target
        guarded: set[int] = set()
        reads: list[cst.Name] = []
        for inner, _ in self.ctx.program.nodes(traced.func):
            if type(inner) is cst.BooleanOperation and _training_decides(inner):  # type: ignore[arg-type]
                guarded.update(id(n) for n in iter_nodes(inner.right))  # type: ignore[attr-defined]
            elif type(inner) is cst.Name and inner.value == target.value and inner is not target:  # type: ignore[attr-defined]
                reads.append(inner)  # type: ignore[arg-type]
        return bool(reads) and all(id(read) in guarded for read in reads)

    VALID = [
        Valid(
            """
            import torch
            class Jitter(torch.nn.Module):
                def forward(self, x):
                    return x + 0.01 * torch.randn_like(x).abs().clamp(max=0)
            def xport_example():
                return Jitter(), (torch.randn(4),)
            """
        ),
        Valid(
            """
            import torch
            class Dropout(torch.nn.Module):
                def forward(self, x):
                    return x * (torch.rand(x.shape) > 0.1)
            def xport_example():
                torch.manual_seed(0)  # outside the model: seeds the example, not the export
                return Dropout(), (torch.randn(4),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import random
            import torch
            class Jitter(torch.nn.Module):
                def forward(self, x):
                    return x * (1 + 0.1 * random.random())  # expect: XPT402
            def xport_example():
                return Jitter(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import time
            import torch
            class Stamp(torch.nn.Module):
                def forward(self, x):
                    started = time.time()  # expect: XPT402
                    return x + started % 1
            def xport_example():
                return Stamp(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import torch
            class Noisy(torch.nn.Module):
                def forward(self, x):
                    torch.manual_seed(0)  # expect: XPT402
                    return x + torch.rand(4)
            def xport_example():
                return Noisy(), (torch.randn(4),)
            """
        ),
        Invalid(
            """
            import torch
            from torch import manual_seed
            class Noisy(torch.nn.Module):
                def forward(self, x):
                    generator = manual_seed(1234)  # expect: XPT402
                    return x + torch.randn(4, generator=generator)
            def export():
                return torch.export.export(Noisy(), (torch.randn(4),), strict=True)
            """
        ),
        Invalid(
            """
            import torch
            class Noisy(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gen = torch.Generator().manual_seed(0)
                def forward(self, x):
                    return x + torch.rand(x.shape, generator=self.gen)  # expect: XPT402
            def export():
                return torch.export.export(Noisy(), (torch.randn(4),), strict=True)
            """
        ),
    ]


def _training_decides(test: cst.BooleanOperation) -> bool:
    """`not self.training or B` / `self.training and B`: an eval-mode module never evaluates B."""
    left = test.left
    if isinstance(test.operator, cst.Or) and isinstance(left, cst.UnaryOperation) and isinstance(left.operator, cst.Not):
        return _is_self_training(left.expression)
    return isinstance(test.operator, cst.And) and _is_self_training(left)


def _is_self_training(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Attribute) and node.attr.value == "training"
        and isinstance(node.value, cst.Name) and node.value.value == "self"
    )
