from __future__ import annotations

import libcst as cst

from ..dataflow import Kind, is_tensor_like
from ..model import Mode, Severity
from ..rewrites import Rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import Verdict
from ._conditions import Condition, ConditionRule, branch_rewrite, short
from ._fallbacks import caught_fallback

_PAD_SEQUENCE = "torch.nn.utils.rnn.pad_sequence"


class DataDependentSizeBranch(ConditionRule, Rule):
    """A branch on the size of a tensor whose size depends on data (`nonzero`, `x[mask]`, ...).

    ## What it does
    Flags conditions on `.shape`/`.size()`/`len()`/`.numel()` of tensors produced by
    `nonzero`, boolean-mask indexing, `masked_select`, `unique` or `argwhere`
    (`if keep.shape[0] == 0:` after `keep = scores > t`; `boxes[keep]`). A mask is a comparison or
    logical op in the traced code, a `.bool()` cast, or an input the export's example fills with a
    boolean tensor (`forward(self, x, mask)` exported with `(x, x > 0)`).

    ## Why it fails torch.export
    Those ops are fine under export: their output size becomes an unbacked symbol `u0`. But a
    branch on `u0` needs its value: export raises `GuardOnDataDependentSymNode` ("Could not guard
    on data-dependent expression Eq(u0, 0)").

    ## Example
    ```python
    idx = (scores > 0.5).nonzero()
    if idx.shape[0] == 0:
        return scores.new_zeros(0)
    ```

    ## Use instead
    Write the code so that the empty case needs no branch (most ops accept size-0 tensors), or
    state the assumption with `torch._check(idx.shape[0] > 0)`.

    ## Fix safety
    Unsafe: the `torch.cond` rewrite of XPT101 (`xport-lint rule XPT101`, *Fix safety*), with
    the same assumption (side-effect-free branches) and the same cases without a fix. A
    validation branch (`if bad: raise ...`) becomes `torch._check(not bad)` (raises `RuntimeError`; the `raise` is kept as a comment) instead.
    A guard that skips work on an empty selection goes (`if idx.numel() > 0:` keeps its body,
    `if top_x.shape[0] == 0: continue` is deleted) where the code it skips writes only through the
    selection (`out[idx] = ...`, `final.index_add_(0, top_x, ...)`, `out = out.index_add(...)`),
    everything else it binds is read nowhere else, and it calls no reduction that fails on zero
    elements (`max`, `amax`, `topk`, ...): with an empty selection it writes nothing. The
    assumption: every op it runs accepts an empty selection (a submodule's `forward` is not read).

    `nn.utils.rnn.pad_sequence` of several tensors whose sizes depend on data (pieces of a `split`
    by a list read from data, masked selections, `nonzero`s) compares those sizes to find the
    longest: strict export guards on that comparison (`u1 > u0`).

    ## Modes
    Error in both modes (torch 2.13), but `pad_sequence`: an error in strict export only
    (non-strict export pads to a size it carries as a symbol; measured). In non-strict export, a warning inside `try:` whose `except`
    catches `RuntimeError` (or `Exception`, or a bare `except:`): export catches its own failure
    and records the `except` path whatever the data; strict export still fails.
    """

    CODE = "XPT105"
    NAME = "data-dependent-size-branch"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode (unbacked size)"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),),
        Mode.STRICT: (TorchError("UserError", "Could not guard on data-dependent expression"),),
    }
    CONDITION = Condition.DD_SIZE

    def visit_If(self, node: cst.If) -> None:
        self.check_conditions(node, "if")

    def visit_Match(self, node: cst.Match) -> None:
        self.check_conditions(node, "match")

    def judge(self, operand: cst.BaseExpression) -> Verdict | None:
        return caught_fallback(self.ctx, operand)

    def visit_While(self, node: cst.While) -> None:
        self.check_conditions(node, "while")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.check_conditions(node, "conditional expression")

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.mode is not Mode.STRICT or not node.args or self.ctx.resolve(node.func) != _PAD_SEQUENCE:
            return
        pieces = self._data_sized_pieces(node.args[0].value)
        if pieces is not None:
            self.report(node, f"`{short(node)}` pads to the longest of `{short(pieces)}`, whose sizes depend on"
                        " tensor data: strict export guards on which is longer")

    def _data_sized_pieces(self, sequence: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression | None:
        """`sequence` (or what a name bound once to it, `list()` or `tuple()` of it, computes) when it
        holds several tensors whose sizes depend on data: a literal or a comprehension of tensors
        made by a data-dependent op, or the pieces of a `split` by sections read from data."""
        flow = self.ctx.flow
        if flow is None or depth > 4:
            return None
        if isinstance(sequence, cst.Name):
            bound = flow.bound_once(sequence.value)
            return self._data_sized_pieces(bound, depth + 1) if bound is not None else None
        if isinstance(sequence, cst.List | cst.Tuple):
            sized = [e for e in sequence.elements if self.ctx.value(e.value).has(Kind.DD_TENSOR)]
            return sequence if len(sequence.elements) > 1 and sized else None
        if isinstance(sequence, cst.ListComp | cst.GeneratorExp):
            return sequence if self.ctx.value(sequence.elt).has(Kind.DD_TENSOR) else None
        if not isinstance(sequence, cst.Call) or not sequence.args:
            return None
        if isinstance(sequence.func, cst.Name) and sequence.func.value in ("list", "tuple"):
            return self._data_sized_pieces(sequence.args[0].value, depth + 1)
        method = isinstance(sequence.func, cst.Attribute) and sequence.func.attr.value == "split" and (
            is_tensor_like(self.ctx.value(sequence.func.value)))
        if not method and self.ctx.resolve(sequence.func) != "torch.split":
            return None
        sections = sequence.args[0 if method else 1].value if len(sequence.args) > (0 if method else 1) else None
        read = sections is not None and (value := self.ctx.value(sections)).has(Kind.DATA) and not is_tensor_like(value)
        return sequence if read else None

    def rewrite(self, node: cst.CSTNode) -> Rewrite | None:
        if isinstance(node, cst.While):
            # the size tested must change in the loop for it to end
            return Rewrite(reason="the loop runs until a size that depends on data says stop, and that size"
                           " changes from step to step: torch.while_loop carries tensors of fixed shapes")
        return branch_rewrite(self.ctx, node)

    def message(self, operand: cst.CSTNode, keyword: str) -> str:
        return f"{keyword} tests `{short(operand)}`, a size that depends on tensor data"

    VALID = [
        Valid(
            """
            import torch
            class Positives(torch.nn.Module):
                def forward(self, scores):
                    keep = scores[scores > 0]
                    return keep.sum() / (keep.numel() + 1)
            def xport_example():
                return Positives(), (torch.randn(16),)
            """
        ),
        Valid(
            """
            import torch
            class Points(torch.nn.Module):
                def forward(self, x, params: dict):
                    # data makes only the first size of `x[mask]`: the later ones are the input's
                    pts = x[x[:, 0] > 0]
                    if pts.shape[-1] == 3:
                        pts = pts[:, :2]
                    n, d = pts.shape
                    if d == 2:
                        pts = pts * 2
                    if pts.size(1) == 2 and pts.shape[1:] == (2,):
                        pts = pts + 1
                    for key, value in params.items():  # a dict's keys are names, not data
                        if key == "scale":
                            pts = pts * value
                    return pts
            def xport_example():
                return Points(), (torch.randn(5, 3), {"scale": torch.tensor(2.0)})
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Fallback(torch.nn.Module):
                def forward(self, x):
                    try:
                        idx = x.nonzero()
                        if idx.shape[0] == 0:  # expect: XPT105
                            return x
                        return x * 2
                    except RuntimeError:
                        return x + 1
            def xport_example():
                return Fallback(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            class Detections(torch.nn.Module):
                def forward(self, boxes, scores):
                    keep = scores > 0.5
                    boxes = boxes[keep]
                    if boxes.shape[0] == 0:  # expect: XPT105
                        return boxes.new_zeros(1, 4)
                    return boxes
            def xport_example():
                return Detections(), (torch.rand(10, 4), torch.rand(10))
            """,
            expected_replacement="""
            import torch
            class Detections(torch.nn.Module):
                def forward(self, boxes, scores):
                    keep = scores > 0.5
                    boxes = boxes[keep]
                    def true_fn(boxes):  # expect: XPT105
                        return boxes.new_zeros(1, 4)
                    def false_fn(boxes):
                        return boxes.clone()
                    return torch.cond(boxes.shape[0] == 0, true_fn, false_fn, (boxes,))
            def xport_example():
                return Detections(), (torch.rand(10, 4), torch.rand(10))
            """,
            other_args="(torch.rand(10, 4), torch.zeros(10))",
        ),
        Invalid(
            """
            import torch
            class FirstHit(torch.nn.Module):
                def forward(self, x):
                    hits = torch.nonzero(x > 0)
                    return hits[0] if hits.size(0) > 0 else x.new_zeros(1, dtype=torch.long)  # expect: XPT105
            def xport_example():
                return FirstHit(), (torch.randn(8),)
            """
        ),
        Invalid(
            """
            import torch
            class PooledHits(torch.nn.Module):
                def forward(self, feats, scores):
                    idx = torch.nonzero(scores > 0.5).squeeze(1)
                    if idx.shape[0] > 0:  # expect: XPT105
                        pooled = feats[idx].mean(0)
                    else:
                        pooled = feats.new_zeros(feats.shape[1])
                    return pooled
            def xport_example():
                return PooledHits(), (torch.randn(6, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.3, 0.8]))
            """,
            expected_replacement="""
            import torch
            class PooledHits(torch.nn.Module):
                def forward(self, feats, scores):
                    idx = torch.nonzero(scores > 0.5).squeeze(1)
                    def true_fn(feats, idx):  # expect: XPT105
                        pooled = feats[idx].mean(0)
                        return pooled
                    def false_fn(feats, idx):
                        pooled = feats.new_zeros(feats.shape[1])
                        return pooled
                    pooled = torch.cond(idx.shape[0] > 0, true_fn, false_fn, (feats, idx))
                    return pooled
            def xport_example():
                return PooledHits(), (torch.randn(6, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.3, 0.8]))
            """,
            other_args="(torch.randn(6, 4), torch.zeros(6))",
        ),
        Invalid(
            """
            import torch
            class FirstDetection(torch.nn.Module):
                def forward(self, boxes, scores):
                    keep = torch.nonzero(scores > 0.3)
                    if keep.shape[0] == 0:  # expect: XPT105
                        raise ValueError("no detection above the threshold")
                    return boxes[keep[:, 0]].sum(0)
            def xport_example():
                return FirstDetection(), (torch.rand(5, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.5]))
            """,
            expected_replacement="""
            import torch
            class FirstDetection(torch.nn.Module):
                def forward(self, boxes, scores):
                    keep = torch.nonzero(scores > 0.3)
                    torch._check(keep.shape[0] != 0)  # was: raise ValueError("no detection above the threshold") # expect: XPT105
                    return boxes[keep[:, 0]].sum(0)
            def xport_example():
                return FirstDetection(), (torch.rand(5, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.5]))
            """,
            other_args="(torch.rand(5, 4), torch.zeros(5))",
        ),
        Invalid(
            """
            import torch
            class ClipBoxes(torch.nn.Module):
                def forward(self, boxes, scores):
                    boxes = boxes[scores > 0.5]
                    if boxes.shape[0] > 0:  # expect: XPT105
                        boxes = boxes.clamp(0, 1)
                    return boxes * 2
            def xport_example():
                return ClipBoxes(), (torch.randn(6, 4), torch.rand(6))
            """,
            expected_replacement="""
            import torch
            class ClipBoxes(torch.nn.Module):
                def forward(self, boxes, scores):
                    boxes = boxes[scores > 0.5]
                    def true_fn(boxes):  # expect: XPT105
                        boxes = boxes.clamp(0, 1)
                        return boxes.clone()
                    def false_fn(boxes):
                        return boxes.clone()
                    boxes = torch.cond(boxes.shape[0] > 0, true_fn, false_fn, (boxes,))
                    return boxes * 2
            def xport_example():
                return ClipBoxes(), (torch.randn(6, 4), torch.rand(6))
            """,
            other_args="(torch.randn(6, 4), torch.zeros(6))",
        ),
        Invalid(
            """
            import torch
            class Router(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 1)
                    self.expert = torch.nn.Linear(8, 8)
                def forward(self, tokens):
                    idx = torch.nonzero(self.gate(tokens).squeeze(-1) > 0).squeeze(1)
                    out = tokens.clone()
                    if idx.numel() > 0:  # expect: XPT105
                        out[idx] = self.expert(tokens[idx])
                    return out
            def xport_example():
                return Router(), (torch.randn(10, 8),)
            """,
            expected_replacement="""
            import torch
            class Router(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = torch.nn.Linear(8, 1)
                    self.expert = torch.nn.Linear(8, 8)
                def forward(self, tokens):
                    idx = torch.nonzero(self.gate(tokens).squeeze(-1) > 0).squeeze(1)
                    out = tokens.clone()
                    out[idx] = self.expert(tokens[idx])
                    return out
            def xport_example():
                return Router(), (torch.randn(10, 8),)
            """,
            other_args="(torch.zeros(10, 8) - 1e3,)",
        ),
        Invalid(
            """
            import torch
            from torch.nn.utils.rnn import pad_sequence
            class Segments(torch.nn.Module):
                def forward(self, x, lengths):
                    pieces = torch.split(x, lengths.tolist())
                    return pad_sequence(pieces, batch_first=True)  # expect: XPT105
            def export():
                return torch.export.export(Segments(), (torch.randn(5, 2), torch.tensor([2, 3])), strict=True)
            """
        ),
    ]
