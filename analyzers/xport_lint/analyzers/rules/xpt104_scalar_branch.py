from __future__ import annotations

import libcst as cst

from ..dataflow import FunctionFlow, Kind, is_tensor_like
from ..model import Mode, Severity
from ..rewrites import Rewrite, while_loop_rewrite
from ..rewrites.checks import asks_the_value, assert_rewrite
from ..rewrites.cond import vectorised_list_rewrite, where_rewrite
from ..rewrites.predicates import data_bindings, tensor_predicate
from ..rewrites.state import entries_as_locals, helper_tuple_at_call, indexed_helper_tuple_at_call
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import Verdict
from ..walk import iter_nodes
from ._conditions import Condition, ConditionRule, asserted_test, branch_rewrite, plain_message, short
from ._fallbacks import caught_fallback


class ScalarBranch(ConditionRule, Rule):
    """A branch on a Python number read out of a tensor (`.item()`, `.tolist()`, `int(t)`).

    ## What it does
    Flags `if`/`while`/conditional-expression conditions, `match` subjects compared with a
    `case` value, and the tests of `assert`s with a message (in strict export, a message that is not a
    string literal), on values that came from tensor data,
    following them through assignments, arithmetic, unpacking and helper calls
    (`n = lengths.max().item()` ... `if n > 128:`).

    ## Why it fails torch.export
    Under export `.item()` returns an *unbacked* symbol (`u0`, `zuf0`): a number with no example
    value. Branching on it needs that value, so export raises `GuardOnDataDependentSymNode`
    (non-strict) or `UserError: Consider annotating your code using torch._check*()` (strict).

    ## Example
    ```python
    n = scores.max().item()
    if n > 0.5:
        ...
    ```

    ## Use instead
    Keep the value a tensor and select with `torch.where`/`torch.cond`; or, when the condition is
    an invariant, state it with `torch._check(n > 0.5)` so export can assume it.

    ## Fix safety
    Numbers read from data kept in the entries of a dict or list literal that the test reads
    (`stats = {"hi": x.max().item(), ...}`, `if stats["hi"] > 1:`; `seen = [...]`, `seen[0]`),
    the container read nowhere but entry by entry, first become one local name per entry (the
    same values; unsafe as the rewrites it prepares), a step the rewrites below then fix (offered
    only where they do; measured on torch 2.13: an `if` and a `while` so fixed export and equal
    eager).
    Unsafe: the `torch.cond` rewrite of XPT101 (`xport-lint rule XPT101`, *Fix safety*), with
    the same assumption (side-effect-free branches) and the same cases without a fix; the
    number itself goes (`n = t.item()` read only by the branch is bound as `n = t`). A `while`
    on such a number (`while i < limit:` with `limit = n.item()`, `i += 1`) becomes
    `torch.while_loop` carrying the counter as an int64 tensor and reading `x[i]` as
    `x.index_select(0, i.reshape(1)).squeeze(0)` (see XPT102); the number itself stepped in the
    loop (`steps = n.item()`, `while steps > 0:`, `steps -= 1`) and read nowhere after is bound
    as the tensor (`steps = n`) and carried. A conditional expression
    (`-x if bool(mask.any()) else x`) becomes XPT101's `torch.where` with the tensor the test
    reads (`torch.where(mask.any(), -x, x)`: both sides computed, broadcast to one shape); a
    number tested through a name bound once and read only there (`flip = bool(mask.any())`, or
    unpacked from a tuple) is bound as the tensor (`flip = mask.any()`); none where it is read
    elsewhere too. A number unpacked from the tuple a one-line helper, method or `@property` of the file
    returns (`lo, hi = _bounds(x)`, `lo, hi = self.bounds`) is first written at the use (`lo, hi = x.min().item(), x.max().item()`,
    a step offered only where the fixes after it pay). No `torch.cond` takes two numbers read from
    elements of one tensor (`self.stats[0].item()`, `self.stats[1].item()`): it refuses such operands as
    aliasing (measured on torch 2.13, both modes). An `assert` on such a number becomes `torch._check(...)` of its test (its message goes;
    measured on torch 2.13: exports in both modes, the check raises at run time). A validation branch (`if bad: raise ...`) becomes `torch._check(not bad)` (raises `RuntimeError`; the `raise` is kept as a comment, since strict export rejects `torch._check`'s message callable) instead.

    ## Modes
    Error in both modes (torch 2.13), but for an `assert`: an error in non-strict export where it has a
    message (with none, export turns it into a runtime check), and in strict export where the
    message is not a string literal (an f-string with a field, `%` or `.format` formatting, a
    name: measured, an int or a float read with a literal message or none exports); in both modes
    where the test holds `not`, `and`, `or` or a chained comparison, whatever the message; and for an identity test against a bool literal
    (`bool(mask.any()) is False`): strict export answers it without the data, always false for
    `is` (true for `is not`), and exports one branch, a warning there; non-strict export too
    where no `bool()` of a tensor comes first (`(v.item() > 0) is True`). In non-strict export, a warning inside `try:` whose `except`
    catches `RuntimeError` (or `Exception`, or a bare `except:`): export catches its own failure
    and records the `except` path whatever the data; strict export still fails.
    """

    CODE = "XPT104"
    NAME = "scalar-branch"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode / draft_export DATA_DEPENDENT_ERROR"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"), TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"),),
        Mode.STRICT: (TorchError("UserError", "Could not guard on data-dependent expression"), TorchError("UserError", "Could not extract specialized integer from data-dependent expression"), TorchError("Unsupported", "Tensor.tolist() with non-integer tensor"),),
    }
    CONDITION = Condition.DATA

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_Match(self, node: cst.Match) -> None:
        self.check_conditions(node, "match")

    def judge(self, operand: cst.BaseExpression) -> Verdict | None:
        if _identity_with_bool(operand) and (self.ctx.mode is Mode.STRICT or not self._converted(operand)):
            # measured on torch 2.13: `bool(t.any()) is not True` exports strict as always true;
            # non-strict fails at `bool()`, but `(v.item() > 0) is True` is a symbol's identity there too
            return Verdict(Severity.WARNING, f"{self.ctx.mode} export compares the symbol's identity with the "
                           "literal and takes one branch whatever the data")
        return caught_fallback(self.ctx, operand)

    def _converted(self, test: cst.Comparison) -> bool:
        """`bool(t) is False` (or `flag is False`, `flag = bool(t)` bound once): the conversion,
        which non-strict export fails on before the identity is asked."""
        left = test.left
        if isinstance(left, cst.Name) and self.ctx.flow is not None:
            left = self.ctx.flow.bound_once(left.value) or left
        return (
            isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value in ("bool", "int", "float")
            and len(left.args) == 1 and is_tensor_like(self.ctx.value(left.args[0].value))
        )

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def visit_Assert(self, node: cst.Assert) -> None:
        # measured on torch 2.13: non-strict export turns an assert of one comparison with no message
        # into a runtime check and exports, and fails on one with a message (a plain string or an
        # f-string); strict export keeps one with a literal message and fails where the message is
        # formatted; both fail on `not`, `and`, `or` or a chained comparison (asks_the_value)
        messaged = node.msg is not None and (self.ctx.mode is Mode.NON_STRICT or not plain_message(node.msg))
        if messaged or asks_the_value(node.test):
            self.check_conditions(node, "assert")

    def visit_Call(self, node: cst.Call) -> None:
        if asserted_test(self.ctx, node) is not None:  # a Python assert inside torch, whatever the message
            self.check_conditions(node, "torch._assert")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self.check_conditions(node, "comprehension filter")

    def rewrite(self, node: cst.CSTNode) -> Rewrite | None:
        if isinstance(node, cst.Assert):
            # `ok = bool(t)`, `assert ok`: XPT203 binds the tensor and XPT103 asserts it instead
            bare = isinstance(node.test, cst.Name)
            return assert_rewrite(self.ctx.flow, node, node.test) if self.ctx.flow is not None and not bare else None
        if isinstance(node, cst.Call):
            test = asserted_test(self.ctx, node)
            return assert_rewrite(self.ctx.flow, node, test) if self.ctx.flow is not None and test is not None else None
        if isinstance(node, cst.CompIf):
            return Rewrite(reason="the filter makes a Python list whose length is data; a boolean mask of the"
                           " tensor the numbers are read from (`x[t > 0]`) selects the same entries as a tensor")
        if isinstance(node, cst.While) and self.ctx.flow is not None and self.ctx.traced is not None:
            kept = self._kept_number(node.test)
            if kept is not None:
                return self._entries_step(node.test) or Rewrite(
                    reason=f"`{short(kept)}` keeps a number read from tensor data, which torch.while_loop's"
                    " condition would still read as a number: keep the tensor in a name (`limit = n`)")
            return while_loop_rewrite(self.ctx.flow, self.ctx.traced.func, node)
        if isinstance(node, cst.IfExp) and self.ctx.flow is not None and self.ctx.traced is not None:
            # `torch.tensor([2 * g if g > 0 else 1 for g in t.tolist()])`: the list computed from `t` at once
            listed = vectorised_list_rewrite(self.ctx.flow, self.ctx.traced.func, node)
            selected = listed or self._select_rewrite(self.ctx.flow, self.ctx.traced.func, node)
            return self._entries_step(node.test) or selected if selected.fix is None else selected
        rewrite = branch_rewrite(self.ctx, node)
        if rewrite is not None and rewrite.fix is None and isinstance(node, cst.If):
            return self._entries_step(node.test) or rewrite
        return rewrite

    def _entries_step(self, test: cst.BaseExpression) -> Rewrite | None:
        """The step that keeps each entry of a dict or list literal the test reads (`stats["max"]`,
        `seen[0]`) in a local name, where its entries are numbers read from data (see
        rewrites.state.entries_as_locals), or writes at its call the tuple a helper returns that a
        name the test reads is unpacked from (`lo, hi = _bounds(x)`: helper_tuple_at_call) or indexes
        (`stats[1]` of `stats = _stats(x)`: indexed_helper_tuple_at_call); the
        runner offers it only where the fixes after it pay."""
        flow, traced = self.ctx.flow, self.ctx.traced
        if flow is None or traced is None:
            return None
        for node in iter_nodes(test):
            if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
                step = entries_as_locals(flow, traced.func, node.value.value) or \
                    indexed_helper_tuple_at_call(flow, traced.func, node.value.value)
                if step is not None:
                    return Rewrite(fix=step)
            elif type(node) is cst.Name and (step := helper_tuple_at_call(flow, traced.func, node.value)) is not None:
                return Rewrite(fix=step)
        return None

    def _kept_number(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """An attribute or an entry the test reads (`self.limit`, `cfg["steps"]`, `seen[0]`), holding a
        number read from data: the rewrite turns a name bound to the read back into the tensor, never a
        place where the number was stored (measured: the loop fails export there)."""
        return next((
            n for n in iter_nodes(test)
            if isinstance(n, cst.Attribute | cst.Subscript) and not any(isinstance(c, cst.Call) for c in iter_nodes(n))
            and (value := self.ctx.value(n)).has(Kind.DATA) and not is_tensor_like(value)
        ), None)

    def _select_rewrite(self, flow: FunctionFlow, func: cst.FunctionDef, node: cst.IfExp) -> Rewrite:
        """`a if bool(mask.any()) else b`: XPT101's `torch.where`, where the test read from data
        is written out as the tensor it reads (`mask.any()`), and a number bound once to a name
        read only by the selection (`value = bool(mask.any())`, or an element of a tuple) is
        bound as that tensor; a number read elsewhere too would still be a number there."""
        bound = data_bindings(flow, func, [node])
        predicate = tensor_predicate(flow, node.test, bound)
        numbers = [] if predicate is None else [
            n.value for n in iter_nodes(predicate)
            if isinstance(n, cst.Name) and n.value not in bound and (v := flow.env.get(n.value)) is not None
            and v.has(Kind.DATA) and not is_tensor_like(v)
        ]
        if predicate is None or numbers:
            read = f"`{numbers[0]}`" if numbers else "the number tested"
            return Rewrite(reason=f"{read} is read from tensor data before the selection: keep it a tensor there")
        return where_rewrite(flow, node, func)

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} tests `{short(operand)}`, a value read from tensor data"

    VALID = [
        Valid(
            """
            import torch
            class ConstrainAsValue(torch.nn.Module):  # ExportDB's constrain_as_value_example
                def forward(self, x, y):
                    a = x.item()
                    torch._check(a >= 0)
                    torch._check(a <= 5)
                    if a < 6:  # the checks decide it: no guard on data
                        return y.sin()
                    return y.cos()
            def xport_example():
                return ConstrainAsValue(), (torch.tensor(4), torch.randn(5, 5))
            """
        ),
        Valid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    peak = x.abs().max().item()
                    return x / (peak + 1e-6)
            def xport_example():
                return Scale(), (torch.randn(4),)
            """
        ),
        Valid(
            """
            import torch
            class Window(torch.nn.Module):
                def forward(self, x, length):
                    n = length.item()
                    torch._check(n >= 0)
                    torch._check(n <= x.shape[0])
                    return x[:n].sum(0)
            def xport_example():
                return Window(), (torch.randn(10, 4), torch.tensor(6))
            """
        ),
        Valid(
            """
            import torch
            class Act(torch.nn.Module):
                def __init__(self, kind="relu"):
                    super().__init__()
                    self.kind = kind
                def forward(self, x):
                    match self.kind:  # a Python value: export takes one case
                        case "relu":
                            return x.relu()
                        case "tanh" | "sigmoid":
                            return x.tanh()
                        case _:
                            return x
            def xport_example():
                return Act(), (torch.randn(4),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Switch(torch.nn.Module):
                def forward(self, x, mode):
                    match mode.item():
                        case 0:  # expect: XPT104
                            return x.relu()
                        case _:
                            return x.sigmoid()
            def xport_example():
                return Switch(), (torch.randn(2, 3), torch.tensor(0))
            """
        ),
        Invalid(
            """
            import torch
            class Flip(torch.nn.Module):
                def forward(self, x):
                    negative = x < 0
                    return -x if bool(negative.any()) else x  # expect: XPT104
            def xport_example():
                return Flip(), (torch.randn(4),)
            """,
            expected_replacement="""
            import torch
            class Flip(torch.nn.Module):
                def forward(self, x):
                    negative = x < 0
                    return torch.where(negative.any(), -x, x)  # expect: XPT104
            def xport_example():
                return Flip(), (torch.randn(4),)
            """,
            other_args="(torch.rand(4),)",
        ),
        Invalid(
            """
            import torch
            class Fallback(torch.nn.Module):
                def forward(self, x):
                    try:
                        n = x.sum().item()
                        if n > 0:  # expect: XPT104
                            return x * 2
                    except Exception:
                        pass
                    return x
            def xport_example():
                return Fallback(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            class Sign(torch.nn.Module):
                def forward(self, x):
                    if x.sum().item() > 0:  # expect: XPT104
                        y = x * 2
                    else:
                        y = x - 1
                    return y
            def xport_example():
                return Sign(), (torch.ones(4),)
            """,
            expected_replacement="""
            import torch
            class Sign(torch.nn.Module):
                def forward(self, x):
                    def true_fn(x):  # expect: XPT104
                        y = x * 2
                        return y
                    def false_fn(x):
                        y = x - 1
                        return y
                    y = torch.cond(x.sum() > 0, true_fn, false_fn, (x,))
                    return y
            def xport_example():
                return Sign(), (torch.ones(4),)
            """,
            other_args="(-torch.ones(4),)",
        ),
        Invalid(
            """
            import torch
            class Truthy(torch.nn.Module):
                def forward(self, x):
                    if bool(x.sum() > 0):  # expect: XPT104
                        y = x * 2
                    else:
                        y = x - 1
                    return y
            def xport_example():
                return Truthy(), (torch.ones(4),)
            """,
            expected_replacement="""
            import torch
            class Truthy(torch.nn.Module):
                def forward(self, x):
                    def true_fn(x):  # expect: XPT104
                        y = x * 2
                        return y
                    def false_fn(x):
                        y = x - 1
                        return y
                    y = torch.cond(x.sum() > 0, true_fn, false_fn, (x,))
                    return y
            def xport_example():
                return Truthy(), (torch.ones(4),)
            """,
            other_args="(-torch.ones(4),)",
        ),
        Invalid(
            """
            import torch
            class Router(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 2)
                    self.small = torch.nn.Linear(8, 8)
                    self.large = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Linear(32, 8))
                def forward(self, x):
                    score = self.gate(x).softmax(-1)[:, 1].mean().item()
                    if score > 0.5:  # expect: XPT104
                        return self.large(x)
                    return self.small(x)
            def xport_example():
                return Router(), (torch.randn(4, 8),)
            """,
            expected_replacement="""
            import torch
            class Router(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 2)
                    self.small = torch.nn.Linear(8, 8)
                    self.large = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Linear(32, 8))
                def forward(self, x):
                    score = self.gate(x).softmax(-1)[:, 1].mean()
                    def true_fn(x):  # expect: XPT104
                        return self.large(x)
                    def false_fn(x):
                        return self.small(x)
                    return torch.cond(score > 0.5, true_fn, false_fn, (x,))
            def xport_example():
                return Router(), (torch.randn(4, 8),)
            """,
            other_args="(torch.randn(4, 8) * -100,)",
        ),
        Invalid(
            """
            import torch
            class Crop(torch.nn.Module):
                def forward(self, x, lengths):
                    longest = lengths.max().item()
                    if longest < x.shape[1]:  # expect: XPT104
                        x = x[:, :longest]
                    return x
            def xport_example():
                return Crop(), (torch.randn(2, 10, 4), torch.tensor([3, 7]))
            """
        ),
        Invalid(
            """
            import torch
            class Thresholds(torch.nn.Module):
                def forward(self, x, cutoffs):
                    low, high = cutoffs.tolist()
                    return x.clamp(min=low) if low < high else x  # expect: XPT104
            def xport_example():
                return Thresholds(), (torch.randn(5), torch.tensor([-1.0, 1.0]))
            """
        ),
        Invalid(
            """
            import torch
            class CountCheck(torch.nn.Module):
                def forward(self, x, mask):
                    count = mask.sum().item()
                    if count == 0:  # expect: XPT104
                        raise ValueError("the mask selects nothing")
                    return x * mask
            def xport_example():
                return CountCheck(), (torch.randn(4), torch.tensor([1, 0, 1, 1]))
            """,
            expected_replacement="""
            import torch
            class CountCheck(torch.nn.Module):
                def forward(self, x, mask):
                    count = mask.sum().item()
                    torch._check(count != 0)  # was: raise ValueError("the mask selects nothing") # expect: XPT104
                    return x * mask
            def xport_example():
                return CountCheck(), (torch.randn(4), torch.tensor([1, 0, 1, 1]))
            """,
            other_args="(torch.randn(4), torch.tensor([0, 0, 0, 0]))",
        ),
        Invalid(
            """
            import torch
            class Window(torch.nn.Module):
                def forward(self, x, bounds):
                    low, high = bounds.tolist()
                    if low > high:  # expect: XPT104
                        raise ValueError(f"empty window {low}..{high}")
                    return x.clamp(low, high)
            def xport_example():
                return Window(), (torch.randn(6), torch.tensor([-1, 1]))
            """,
            expected_replacement="""
            import torch
            class Window(torch.nn.Module):
                def forward(self, x, bounds):
                    low, high = bounds.tolist()
                    torch._check(low <= high)  # was: raise ValueError(f"empty window {low}..{high}") # expect: XPT104
                    return x.clamp(low, high)
            def xport_example():
                return Window(), (torch.randn(6), torch.tensor([-1, 1]))
            """,
            other_args="(torch.randn(6), torch.tensor([2, 1]))",
        ),
        Invalid(
            """
            import torch
            class ScoreRouter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.score = torch.nn.Linear(8, 1)
                    self.light = torch.nn.Linear(8, 8)
                    self.heavy = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
                def forward(self, x):
                    confidence = self.score(x).sigmoid().mean().item()
                    if confidence > 0.5:  # expect: XPT104
                        out = self.light(x)
                    else:
                        out = self.heavy(x)
                    return out.relu()
            def xport_example():
                torch.manual_seed(0)
                return ScoreRouter(), (torch.randn(4, 8),)
            """,
            expected_replacement="""
            import torch
            class ScoreRouter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.score = torch.nn.Linear(8, 1)
                    self.light = torch.nn.Linear(8, 8)
                    self.heavy = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
                def forward(self, x):
                    confidence = self.score(x).sigmoid().mean()
                    def true_fn(x):  # expect: XPT104
                        out = self.light(x)
                        return out
                    def false_fn(x):
                        out = self.heavy(x)
                        return out
                    out = torch.cond(confidence > 0.5, true_fn, false_fn, (x,))
                    return out.relu()
            def xport_example():
                torch.manual_seed(0)
                return ScoreRouter(), (torch.randn(4, 8),)
            """,
            other_args="(-torch.randn(4, 8).abs() * 50 * torch.sign(torch.ones(8)),)",
        ),
        Invalid(
            """
            import torch
            class Accumulate(torch.nn.Module):
                def forward(self, x, n):
                    limit = n.item()
                    i = 0
                    total = torch.zeros(x.shape[1])
                    while i < limit:  # expect: XPT104
                        total = total + x[i]
                        i += 1
                    return total
            def xport_example():
                return Accumulate(), (torch.randn(5, 3), torch.tensor(3))
            """,
            expected_replacement="""
            import torch
            class Accumulate(torch.nn.Module):
                def forward(self, x, n):
                    limit = n
                    i = 0
                    total = torch.zeros(x.shape[1])
                    def cond_fn(total, i):  # expect: XPT104
                        return i < limit
                    def body_fn(total, i):
                        total = total + x.index_select(0, i.reshape(1)).squeeze(0)
                        i = i + 1
                        return (total, i)
                    (total, i) = torch.while_loop(cond_fn, body_fn, (total, torch.tensor(i)))
                    return total
            def xport_example():
                return Accumulate(), (torch.randn(5, 3), torch.tensor(3))
            """,
            other_args="(torch.randn(5, 3), torch.tensor(0))",
        ),
        Invalid(
            """
            import torch
            class MaxNormalize(torch.nn.Module):
                def forward(self, x):
                    peak = x.abs().max().item()
                    if peak > 1.0:  # expect: XPT104
                        x = x / peak
                    return x
            def xport_example():
                return MaxNormalize(), (torch.randn(5) * 4,)
            """,
            expected_replacement="""
            import torch
            class MaxNormalize(torch.nn.Module):
                def forward(self, x):
                    peak = x.abs().max()
                    def true_fn(x, peak):  # expect: XPT104
                        x = x / peak
                        return x.clone()
                    def false_fn(x, peak):
                        return x.clone()
                    x = torch.cond(peak > 1.0, true_fn, false_fn, (x, peak))
                    return x
            def xport_example():
                return MaxNormalize(), (torch.randn(5) * 4,)
            """,
            other_args="(torch.full((5,), 0.25),)",
        ),
    ]


def _identity_with_bool(test: cst.BaseExpression) -> bool:
    """`bool(t) is False`, `flag is not True`: Python's identity with a bool literal."""
    return isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(
        test.comparisons[0].operator, (cst.Is, cst.IsNot)
    ) and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value in ("True", "False")
