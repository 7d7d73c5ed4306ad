from __future__ import annotations

import libcst as cst

from ..dataflow import is_tensor_like
from ..model import Mode, Severity
from ..rewrites import Rewrite, where_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import Verdict
from ._conditions import Condition, ConditionRule, branch_rewrite, short
from ._fallbacks import caught_fallback


class TensorBranch(ConditionRule, Rule):
    """An `if`, `elif`, conditional expression or `and`/`or`/`not` tests a tensor's value.

    ## What it does
    Flags conditions in traced code whose truth value is a tensor (`if x.sum() > 0:`,
    `if torch.isnan(x).any():`, `y if mask.all() else z`).

    ## Why it fails torch.export
    Export traces with fake tensors that have no values: `bool(tensor)` becomes an unbacked
    symbolic boolean and the branch a guard on it. Non-strict export raises
    `GuardOnDataDependentSymNode` ("Could not guard on data-dependent expression"); strict export
    raises `Unsupported: Data-dependent branching`. draft_export reports it as a
    `DATA_DEPENDENT_ERROR`; ExportDB: `cond_predicate`, `dynamic_shape_if_guard`.

    ## Example
    ```python
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x
    ```

    ## Use instead
    Compute both sides and select (`torch.where(x.sum() > 0, x * 2, x)`), or use
    `torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x, (x,))`, which export captures as a
    real branch. For a check that should never fail, use `torch._check`.

    ## Fix safety
    Unsafe (offered, never applied by `--fix` alone). An `if`/`elif`/`else` whose branches all
    return tensors, or all assign the tensors later code reads, becomes `true_fn`/`false_fn`
    and one `torch.cond` call (an `elif` chain becomes nested conds; a one-armed `if` that
    returns takes the rest of the function as its `else`; `if skip: continue` in a loop takes
    the rest of the step). The tensors the branches read are passed as operands, everything
    else stays a closure, and a result that would alias an operand is returned as `.clone()`
    (torch.cond forbids aliasing). The predicate becomes a tensor: `a and b`, `a or b`, `not a`
    become `torch.logical_and/or/not` (a size test as `torch.tensor(test)`), a number's truth
    (`if x.sum():`) becomes `x.sum() != 0` (measured: torch.cond took the false branch for a sum of
    -1.5, which Python calls true), `bool(t)`,
    `float(t)` and `t.item()` become `t`, `int(t)` becomes `t.long()`, and a number bound by
    `n = t.item()` and read only by the branch is bound as the tensor `n = t`. The assumption:
    both branches are free of side effects and return tensors of the same rank and dtype
    (eager Python does not care; torch.cond does, and `check --fix --confirm` re-exports to
    find out), and `a and b` may evaluate `b` when `a` is false. No fix, and the diagnostic
    says why, when a branch mutates, raises, uses `break`, returns a non-tensor or a different
    structure, or uses a number taken from tensor data as a size.
    A validation branch (`if bad: raise ...`) becomes `torch._assert_async(torch.logical_not(bad), msg)`
    (raises `RuntimeError`) instead. `if mask.any():` (or `torch.any(mask)`, `mask.sum() > 0`) of a
    boolean mask around code that writes only through the mask (`h[mask] = v`) loses the guard:
    with no position set it writes nothing (XPT105's *Fix safety* states the conditions and the
    assumption). A branch that only prints, warns or logs goes under
    `if not torch.compiler.is_exporting():` (safe: eager is unchanged; export skips it).
    A conditional expression becomes `torch.where(test, a, b)`, which computes both sides.
    Every one of these is proven on the failing snippets of `tests/truth/fix_corpus.py`.

    ## Modes
    Error in both non-strict and strict export (torch 2.13), with two exceptions in
    non-strict export. A test of tensors built from Python constants only
    (`if torch.tensor(self.version) > 2:`, or the tensor bound to a name first) is folded to a
    constant there and exports (strict export still fails: an error in strict mode only). A test inside `try:` whose `except`
    catches `RuntimeError` (or `Exception`, or a bare `except:`) is a warning there: export
    catches its own failure and records the `except` path whatever the data.
    """

    CODE = "XPT101"
    NAME = "tensor-branch"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode / draft_export DATA_DEPENDENT_ERROR"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),),
        Mode.STRICT: (TorchError("Unsupported", "Data-dependent branching"),),
    }
    CONDITION = Condition.TENSOR

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_Match(self, node: cst.Match) -> None:
        self.check_conditions(node, "match")

    def judge(self, operand: cst.BaseExpression) -> Verdict | None:
        if self._constant(operand):
            if self.ctx.mode is not Mode.STRICT:
                return Verdict(None)  # non-strict export computes it from the constants
            return Verdict(Severity.ERROR, "a tensor made from Python constants: test the Python values instead",
                           fixable=False)
        return caught_fallback(self.ctx, operand)

    def _constant(self, operand: cst.BaseExpression) -> bool:
        """Every tensor the test reads is made from Python values (`torch.tensor(self.version)`)."""
        flow = self.ctx.flow
        if flow is None:
            return False
        sides = [operand.left, *(t.comparator for t in operand.comparisons)] if isinstance(operand, cst.Comparison) else [operand]
        tensors = [side for side in sides if is_tensor_like(self.ctx.value(side))]
        return bool(tensors) and all(flow.constant_tensor(side) for side in tensors)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self.check_conditions(node, "comprehension filter")

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} tests the tensor value `{short(operand)}`: data-dependent branch"

    def rewrite(self, node: cst.CSTNode) -> Rewrite | None:
        if isinstance(node, cst.IfExp) and self.ctx.flow is not None:
            return where_rewrite(self.ctx.flow, node)
        return branch_rewrite(self.ctx, node)

    VALID = [
        Valid(
            """
            import torch
            class Versioned(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.version = 3
                def forward(self, x):
                    return x * 2 if torch.tensor(self.version) > 2 else x
            def xport_example():
                return Versioned(), (torch.randn(3),)
            """,
            modes=(Mode.NON_STRICT,),
        ),
        Valid(
            """
            import torch
            class Versioned(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.version = 3
                def forward(self, x):
                    version = torch.tensor(self.version)  # a constant, bound to a name first
                    if version > 2:
                        return x * 2
                    return x
            def xport_example():
                return Versioned(), (torch.randn(3),)
            """,
            modes=(Mode.NON_STRICT,),
        ),
        Valid(
            """
            import torch
            class Flags(torch.nn.Module):
                def forward(self, x, return_dict=None, dim=None):
                    if dim:  # an option left at None: no tensor is known to be here
                        x = x.sum(dim)
                    for i, part in enumerate(x.chunk(2)):
                        if i == 1:  # a Python index
                            x = x + part.sum()
                    if return_dict:
                        return {"out": x}
                    return x
            def xport_example():
                return Flags(), (torch.randn(4),)
            """
        ),
        Valid(
            """
            import torch
            class Options(torch.nn.Module):
                def forward(self, x, *extra, **options):
                    for name in options:  # keyword names are strings, not tensors
                        if name.startswith("scale_"):
                            x = x * 2
                    for name, value in options.items():
                        if name == "bias":
                            x = x + value
                    if not torch.compiler.is_exporting():
                        if x.sum() > 0:  # never traced: export takes the other branch
                            print("positive")
                    return x
            def xport_example():
                return Options(), (torch.randn(4),), {"bias": torch.ones(4)}
            """
        ),
        Valid(
            """
            import torch
            class Gather(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.convs = torch.nn.ModuleList([torch.nn.Conv2d(4, 4, 1) for _ in range(2)])
                def forward(self, x):
                    feats = [conv(x) for conv in self.convs]
                    return sum(feats) if feats else x  # a list's truth: its length, a Python int
            def xport_example():
                return Gather(), (torch.randn(1, 4, 6, 6),)
            """
        ),
        Valid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    return torch.where(x.sum() > 0, x * 2, x)
            def xport_example():
                return Gate(), (torch.randn(4),)
            """
        ),
        Valid(
            """
            import torch
            from typing import Optional
            class MaskedAttention(torch.nn.Module):
                def forward(self, q, k, v, mask: Optional[torch.Tensor] = None):
                    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
                    if mask is not None:
                        scores = scores.masked_fill(mask == 0, float("-inf"))
                    return scores.softmax(-1) @ v
            def xport_example():
                q = torch.randn(2, 5, 8)
                return MaskedAttention(), (q, q, q, torch.ones(2, 5, 5))
            """
        ),
        Valid(
            """
            import torch
            class Branch(torch.nn.Module):
                def forward(self, x):
                    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
            def xport_example():
                return Branch(), (torch.randn(4),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class SpecAugment(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.masked_spec_embed = torch.nn.Parameter(torch.zeros(8))
                def forward(self, hidden_states, mask_time_indices):
                    if mask_time_indices.any():  # expect: XPT101
                        hidden_states = hidden_states.clone()
                        hidden_states[mask_time_indices] = self.masked_spec_embed
                    return hidden_states
            def xport_example():
                return SpecAugment(), (torch.randn(2, 6, 8), torch.rand(2, 6) > 0.5)
            """,
            expected_replacement="""
            import torch
            class SpecAugment(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.masked_spec_embed = torch.nn.Parameter(torch.zeros(8))
                def forward(self, hidden_states, mask_time_indices):
                    hidden_states = hidden_states.clone()
                    hidden_states[mask_time_indices] = self.masked_spec_embed
                    return hidden_states
            def xport_example():
                return SpecAugment(), (torch.randn(2, 6, 8), torch.rand(2, 6) > 0.5)
            """,
            other_args="(torch.randn(2, 6, 8), torch.zeros(2, 6, dtype=torch.bool))",
        ),
        Invalid(
            """
            import torch
            class Versioned(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.version = 3
                def forward(self, x):
                    if torch.tensor(self.version) > 2:  # expect: XPT101
                        return x * 2
                    return x
            def export():
                return torch.export.export(Versioned(), (torch.randn(3),), strict=True)
            """
        ),
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    scale = 2.0 if x.mean() > 0 else 0.5  # expect: XPT101
                    return x * scale
            def xport_example():
                return Scale(), (torch.ones(4),)
            """,
            expected_replacement="""
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    scale = torch.where(x.mean() > 0, 2.0, 0.5)  # expect: XPT101
                    return x * scale
            def xport_example():
                return Scale(), (torch.ones(4),)
            """,
            other_args="(-torch.ones(4),)",
        ),
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    if x.sum() > 0:  # expect: XPT101
                        return x * 2
                    return x
            def xport_example():
                return Gate(), (torch.ones(4),)
            """,
            expected_replacement="""
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    def true_fn(x):  # expect: XPT101
                        return x * 2
                    def false_fn(x):
                        return x.clone()
                    return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))
            def xport_example():
                return Gate(), (torch.ones(4),)
            """,
            other_args="(-torch.ones(4),)",
        ),
        Invalid(
            """
            import torch
            class SafeNorm(torch.nn.Module):
                def forward(self, x):
                    if torch.isnan(x).any():  # expect: XPT101
                        return torch.zeros_like(x)
                    return x / x.norm()
            def xport_example():
                return SafeNorm(), (torch.randn(8),)
            """,
            expected_replacement="""
            import torch
            class SafeNorm(torch.nn.Module):
                def forward(self, x):
                    def true_fn(x):  # expect: XPT101
                        return torch.zeros_like(x)
                    def false_fn(x):
                        return x / x.norm()
                    return torch.cond(torch.isnan(x).any(), true_fn, false_fn, (x,))
            def xport_example():
                return SafeNorm(), (torch.randn(8),)
            """,
            other_args="(torch.tensor([float('nan')] * 8),)",
        ),
        Invalid(
            """
            import torch
            class EarlyExit(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(3))
                    self.head = torch.nn.Linear(8, 1)
                def forward(self, h):
                    for layer in self.layers:
                        h = layer(h)
                        confidence = self.head(h).sigmoid()
                        if confidence.max() > 0.9:  # expect: XPT101
                            break
                    return h
            def xport_example():
                return EarlyExit(), (torch.randn(2, 8),)
            """
        ),
        Invalid(
            """
            import torch
            class Clamp(torch.nn.Module):
                def forward(self, x):
                    return x if x.max() < 1 else x / x.max()  # expect: XPT101
            def xport_example():
                return Clamp(), (torch.tensor([0.5, 3.0, -2.0, 1.5]),)
            """,
            expected_replacement="""
            import torch
            class Clamp(torch.nn.Module):
                def forward(self, x):
                    return torch.where(x.max() < 1, x, x / x.max())  # expect: XPT101
            def xport_example():
                return Clamp(), (torch.tensor([0.5, 3.0, -2.0, 1.5]),)
            """,
            other_args="(torch.full((4,), 0.5),)",
        ),
        Invalid(
            """
            import torch
            def has_padding(mask):
                return (mask == 0).any()
            class Pool(torch.nn.Module):
                def forward(self, x, mask):
                    if not has_padding(mask):  # expect: XPT101
                        return x.mean(1)
                    return (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
            def xport_example():
                return Pool(), (torch.randn(2, 5, 4), torch.ones(2, 5))
            """,
            expected_replacement="""
            import torch
            def has_padding(mask):
                return (mask == 0).any()
            class Pool(torch.nn.Module):
                def forward(self, x, mask):
                    def true_fn(x, mask):
                        return (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
                    def false_fn(x, mask):  # expect: XPT101
                        return x.mean(1)
                    return torch.cond(has_padding(mask), true_fn, false_fn, (x, mask))
            def xport_example():
                return Pool(), (torch.randn(2, 5, 4), torch.ones(2, 5))
            """,
            other_args="(torch.randn(2, 5, 4), torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]]))",
        ),
        Invalid(
            """
            import torch
            class MaskedAttention(torch.nn.Module):
                def forward(self, q, k, v, mask):
                    if (mask == 0).all():  # expect: XPT101
                        # every key is padding: nothing to attend to
                        return torch.zeros_like(q)
                    else:
                        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
                        scores = scores.masked_fill(mask == 0, float("-inf"))
                        return scores.softmax(-1) @ v
            def xport_example():
                q = torch.randn(2, 5, 8)
                return MaskedAttention(), (q, q, q, torch.ones(2, 5, 5))
            """,
            expected_replacement="""
            import torch
            class MaskedAttention(torch.nn.Module):
                def forward(self, q, k, v, mask):
                    def true_fn(q, k, v, mask):  # expect: XPT101
                        # every key is padding: nothing to attend to
                        return torch.zeros_like(q)
                    def false_fn(q, k, v, mask):
                        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
                        scores = scores.masked_fill(mask == 0, float("-inf"))
                        return scores.softmax(-1) @ v
                    return torch.cond((mask == 0).all(), true_fn, false_fn, (q, k, v, mask))
            def xport_example():
                q = torch.randn(2, 5, 8)
                return MaskedAttention(), (q, q, q, torch.ones(2, 5, 5))
            """,
            other_args="(torch.randn(2, 5, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8), torch.zeros(2, 5, 5))",
        ),
        Invalid(
            """
            import torch
            class TwoExpertRouter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 2)
                    self.expert_a = torch.nn.Linear(8, 8)
                    self.expert_b = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))
                def forward(self, x):
                    logits = self.gate(x)
                    if logits[:, 0].mean() > logits[:, 1].mean():  # expect: XPT101
                        out = self.expert_a(x)
                    else:
                        out = self.expert_b(x)
                    return out + x
            def xport_example():
                torch.manual_seed(0)
                return TwoExpertRouter(), (torch.randn(4, 8),)
            """,
            expected_replacement="""
            import torch
            class TwoExpertRouter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 2)
                    self.expert_a = torch.nn.Linear(8, 8)
                    self.expert_b = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))
                def forward(self, x):
                    logits = self.gate(x)
                    def true_fn(x):  # expect: XPT101
                        out = self.expert_a(x)
                        return out
                    def false_fn(x):
                        out = self.expert_b(x)
                        return out
                    out = torch.cond(logits[:, 0].mean() > logits[:, 1].mean(), true_fn, false_fn, (x,))
                    return out + x
            def xport_example():
                torch.manual_seed(0)
                return TwoExpertRouter(), (torch.randn(4, 8),)
            """,
            other_args="(-torch.randn(4, 8) * 0 + torch.linspace(-3, 3, 8),)",
        ),
        Invalid(
            """
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, t):
                    if t.abs().max() > 10:  # expect: XPT101
                        y = t / 10
                    elif t.abs().max() < 0.1:  # expect: XPT101
                        y = t * 10
                    else:
                        y = t
                    return y * 2
            def xport_example():
                return Rescale(), (torch.full((4,), 50.0),)
            """,
            expected_replacement="""
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, t):
                    def true_fn(t):  # expect: XPT101
                        y = t / 10
                        return y
                    def false_fn(t):
                        def true_fn(t):  # expect: XPT101
                            y = t * 10
                            return y
                        def false_fn(t):
                            y = t
                            return y.clone()
                        y = torch.cond(t.abs().max() < 0.1, true_fn, false_fn, (t,))
                        return y
                    y = torch.cond(t.abs().max() > 10, true_fn, false_fn, (t,))
                    return y * 2
            def xport_example():
                return Rescale(), (torch.full((4,), 50.0),)
            """,
            other_args="(torch.full((4,), 0.01),)",
        ),
        Invalid(
            """
            import torch
            class EarlyExit(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.first = torch.nn.Linear(8, 8)
                    self.second = torch.nn.Linear(8, 8)
                def forward(self, x):
                    h = self.first(x).tanh()
                    if h.abs().max() < 0.5:  # expect: XPT101
                        return h  # confident enough: skip the second layer

                    return self.second(h)
            def xport_example():
                return EarlyExit(), (torch.randn(2, 8) * 0.01,)
            """,
            expected_replacement="""
            import torch
            class EarlyExit(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.first = torch.nn.Linear(8, 8)
                    self.second = torch.nn.Linear(8, 8)
                def forward(self, x):
                    h = self.first(x).tanh()
                    def true_fn(h):  # expect: XPT101
                        return h.clone()  # confident enough: skip the second layer
                    def false_fn(h):
                        return self.second(h)
                    return torch.cond(h.abs().max() < 0.5, true_fn, false_fn, (h,))
            def xport_example():
                return EarlyExit(), (torch.randn(2, 8) * 0.01,)
            """,
            other_args="(torch.randn(2, 8) * 100,)",
        ),
        Invalid(
            """
            import torch
            class Sanitize(torch.nn.Module):
                def forward(self, x):
                    if torch.isnan(x).any():  # expect: XPT101
                        raise ValueError("NaN in the input")
                    return x.softmax(-1)
            def xport_example():
                return Sanitize(), (torch.randn(2, 4),)
            """,
            expected_replacement="""
            import torch
            class Sanitize(torch.nn.Module):
                def forward(self, x):
                    torch._assert_async(torch.logical_not(torch.isnan(x).any()), "NaN in the input")  # expect: XPT101
                    return x.softmax(-1)
            def xport_example():
                return Sanitize(), (torch.randn(2, 4),)
            """,
            other_args="(torch.tensor([[float('nan'), 0.0]]),)",
        ),
        Invalid(
            """
            import torch
            class Normalize(torch.nn.Module):
                def forward(self, x):
                    norm = x.norm(dim=-1, keepdim=True)
                    return x / norm if (norm > 1e-6).all() else x  # expect: XPT101
            def xport_example():
                return Normalize(), (torch.randn(3, 4),)
            """,
            expected_replacement="""
            import torch
            class Normalize(torch.nn.Module):
                def forward(self, x):
                    norm = x.norm(dim=-1, keepdim=True)
                    return torch.where((norm > 1e-6).all(), x / norm, x)  # expect: XPT101
            def xport_example():
                return Normalize(), (torch.randn(3, 4),)
            """,
            other_args="(torch.zeros(3, 4),)",
        ),
        Invalid(
            """
            import torch
            class PadMask(torch.nn.Module):
                def forward(self, x, lengths):
                    positions = torch.arange(x.shape[1])
                    if (lengths < x.shape[1]).any():  # expect: XPT101
                        x = x * (positions[None, :] < lengths[:, None]).unsqueeze(-1)
                    return x.sum(1)
            def xport_example():
                return PadMask(), (torch.randn(2, 6, 4), torch.tensor([3, 6]))
            """,
            expected_replacement="""
            import torch
            class PadMask(torch.nn.Module):
                def forward(self, x, lengths):
                    positions = torch.arange(x.shape[1])
                    def true_fn(x, lengths, positions):  # expect: XPT101
                        x = x * (positions[None, :] < lengths[:, None]).unsqueeze(-1)
                        return x.clone()
                    def false_fn(x, lengths, positions):
                        return x.clone()
                    x = torch.cond((lengths < x.shape[1]).any(), true_fn, false_fn, (x, lengths, positions))
                    return x.sum(1)
            def xport_example():
                return PadMask(), (torch.randn(2, 6, 4), torch.tensor([3, 6]))
            """,
            other_args="(torch.randn(2, 6, 4), torch.tensor([6, 6]))",
        ),
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, a, b):
                    if a.sum() > 0 and b.sum() > 0:  # expect: XPT101
                        out = a + b
                    else:
                        out = a - b
                    return out
            def xport_example():
                return Gate(), (torch.ones(3), torch.ones(3))
            """,
            expected_replacement="""
            import torch
            class Gate(torch.nn.Module):
                def forward(self, a, b):
                    def true_fn(a, b):  # expect: XPT101
                        out = a + b
                        return out
                    def false_fn(a, b):
                        out = a - b
                        return out
                    out = torch.cond(torch.logical_and(a.sum() > 0, b.sum() > 0), true_fn, false_fn, (a, b))
                    return out
            def xport_example():
                return Gate(), (torch.ones(3), torch.ones(3))
            """,
            other_args="(torch.ones(3), -torch.ones(3))",
        ),
        Invalid(
            """
            import torch
            class TopOneMoE(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(4, 2)
                    self.experts = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
                def forward(self, x):
                    top = self.gate(x).argmax(-1)
                    out = torch.zeros_like(x)
                    for e in range(2):
                        selected = (top == e).unsqueeze(-1).float()
                        if not selected.any():  # expect: XPT101
                            continue
                        out = out + self.experts[e](x) * selected
                    return out
            def xport_example():
                return TopOneMoE(), (torch.randn(6, 4),)
            """,
            expected_replacement="""
            import torch
            class TopOneMoE(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(4, 2)
                    self.experts = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
                def forward(self, x):
                    top = self.gate(x).argmax(-1)
                    out = torch.zeros_like(x)
                    for e in range(2):
                        selected = (top == e).unsqueeze(-1).float()
                        def true_fn(x, out, selected):
                            out = out + self.experts[e](x) * selected
                            return out.clone()
                        def false_fn(x, out, selected):  # expect: XPT101
                            return out.clone()
                        out = torch.cond(selected.any(), true_fn, false_fn, (x, out, selected))
                    return out
            def xport_example():
                return TopOneMoE(), (torch.randn(6, 4),)
            """,
            other_args="(torch.randn(6, 4) * 4,)",
        ),
        Invalid(
            """
            import warnings
            import torch
            class SafeExp(torch.nn.Module):
                def forward(self, x):
                    if (x > 50).any():  # expect: XPT101
                        warnings.warn("large inputs to exp")
                    return torch.exp(x.clamp(max=50))
            def xport_example():
                return SafeExp(), (torch.randn(4),)
            """,
            expected_replacement="""
            import warnings
            import torch
            class SafeExp(torch.nn.Module):
                def forward(self, x):
                    if not torch.compiler.is_exporting():
                        if (x > 50).any():  # expect: XPT101
                            warnings.warn("large inputs to exp")
                    return torch.exp(x.clamp(max=50))
            def xport_example():
                return SafeExp(), (torch.randn(4),)
            """,
            other_args="(torch.full((4,), 80.0),)",
        ),
        Invalid(
            """
            import torch
            class Attend(torch.nn.Module):
                def forward(self, scores, attention_mask=None):
                    if attention_mask is not None and (attention_mask.sum(-1) == 0).any():  # expect: XPT101
                        raise ValueError("a row attends to nothing")
                    if attention_mask is not None:
                        scores = scores.masked_fill(attention_mask == 0, -1e4)
                    return scores.softmax(-1)
            def xport_example():
                return Attend(), (torch.randn(2, 3),)
            """,
            expected_replacement="""
            import torch
            class Attend(torch.nn.Module):
                def forward(self, scores, attention_mask=None):
                    if attention_mask is not None:
                        torch._assert_async(torch.logical_not((attention_mask.sum(-1) == 0).any()), "a row attends to nothing")  # expect: XPT101
                    if attention_mask is not None:
                        scores = scores.masked_fill(attention_mask == 0, -1e4)
                    return scores.softmax(-1)
            def xport_example():
                return Attend(), (torch.randn(2, 3),)
            """,
            failing_args="(torch.randn(2, 3), torch.ones(2, 3))",
        ),
        Invalid(
            """
            import torch
            class Shift(torch.nn.Module):
                def forward(self, x):
                    if x.sum():  # expect: XPT101
                        x = x * 2
                    return x
            def xport_example():
                return Shift(), (torch.ones(3),)
            """,
            expected_replacement="""
            import torch
            class Shift(torch.nn.Module):
                def forward(self, x):
                    def true_fn(x):  # expect: XPT101
                        x = x * 2
                        return x.clone()
                    def false_fn(x):
                        return x.clone()
                    x = torch.cond(x.sum() != 0, true_fn, false_fn, (x,))
                    return x
            def xport_example():
                return Shift(), (torch.ones(3),)
            """,
            other_args="(torch.full((3,), -0.5),)",
        ),
    ]
