"""Symbolic shapes, a twenty-third batch: pooling along a named `Dim`. Each outcome measured on
torch 2.13.0 in both modes on a (2, 3, 16, 16) input (a (2, 3, 16) one for 1-d pools), the height
declared as named, and torch must still agree:

- a pool whose output is 1 long at the range's low end (`nn.MaxPool2d(3, 2)` at `min=4`,
  `F.max_pool2d(x, 2)`, `F.avg_pool1d(x, 2)`, `nn.AvgPool2d(2)` at `min=2`): non-strict export
  guards the output `!= 1` and fails, whatever follows; strict export fails once an op computes
  on the output (`* 2`, `+ 1`, `torch.relu`, `.flatten(1)`), as after a convolution, and exports
  the output returned, permuted, summed or convolved.

- a pool that rounds its output up (`ceil_mode=True`) with a stride of 2 or more along a named
  `Dim`, with or without a range, fails both modes by itself: torch guards that the last window
  starts inside the input (`2*((h - 1) // 2) < h`), which holds but which it cannot prove (after
  a strided convolution it raises an `AssertionError` simplifying it). Layers, keywords, the
  functional and `torch.` spellings, 1-d pools, a stride read from `__init__`'s default, a pool
  inside an `nn.Sequential` after a convolution: all fail. Stride 1, `Dim.DYNAMIC` (also with a
  range), `Dim.AUTO`, `2 * Dim("k")`, a static size, `ceil_mode=False`, adaptive pools export.

BEFORE (the engine at 191cfda, the batch's first part written after measuring torch): non-strict
10 of 10 pool failures flagged, strict 0 of 5, no false error. AFTER (XPT307 reports a pool's
1-long output in strict mode where an op computes on it): strict 5/5, no false error on the 5
programs that export strict. The second part, BEFORE (the engine at 7916810): 0 of 14 ceil-mode
failures flagged in either mode; AFTER (XPT310): 14/14 in both modes, no error on its 9 exporting
programs. XPT310's fix (`Dim.DYNAMIC` over the same range) proves out on each program it is
offered for.

- a pooled (or convolved) size fixed or merged by a view: literal target sizes (`h.reshape(2, 3,
  8, 8)`, `h.view(2, 3 * 8 * 8)`) tie the pooled size to a constant; a pool whose output is
  `h // s` (kernel = stride) merged with static sizes (`.flatten(2)`, `.reshape(2, 3, -1)`) makes
  torch guard `(h // 2) % (8 * (h // 2)) != 0`, which it cannot prove, as after a patch
  convolution. Both fail both modes. An adaptive pool's fixed output, `Dim.DYNAMIC` (the pooled
  size may equal the constant over a range), both spatial sizes `Dim`s, `2 * Dim("k")` and a
  permute export.

The third part, BEFORE (the engine at fe817bc): 0 of 9 failures flagged in either mode; AFTER (XPT305 reads a tensor's sizes
as shapes.py's terms where its own model has none, and folds `3 * 8 * 8`; XPT307 reads a pool's
`h // s` merged as a patch convolution's): 9/9 in both modes, no error on its 5 exporting programs.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")
_FROM_4 = '{"x": {2: Dim("h", min=4, max=64)}}'
_FROM_2 = '{"x": {2: Dim("h", min=2, max=64)}}'
_VIOLATION = "UserError"


def case(
    name: str, non_strict: bool, strict: bool, lines: str, shapes: str, init: str = "", rank: int = 4,
    stride_default: bool = False, failure: str = _VIOLATION, other: str | None = None,
) -> None:
    """`lines` of `forward` (after `init` in `__init__`, which takes `stride=2` where
    `stride_default`); each flag: that mode fails with a constraint violation (or the assertion
    torch raises simplifying it: `failure`); `other`: the sizes of an input that exports, where
    not a taller one."""
    body = "\n".join("        " + line for line in lines.strip().splitlines())
    built = "".join("\n        " + line for line in init.strip().splitlines())
    if stride_default:
        built = "\n        self.stride = stride" + built
    params = ", stride=2" if stride_default else ""
    ctor = f"    def __init__(self{params}):\n        super().__init__(){built}\n\n" if init else ""
    sizes = "2, 3, 16, 16" if rank == 4 else "2, 3, 16"
    other = other or ("2, 3, 20, 16" if rank == 4 else "2, 3, 20")
    CASES.case(name, failure if non_strict else None, failure if strict else None, f"""
from torch.export import Dim


class M(nn.Module):
{ctor}    def forward(self, x):
{body}


def xport_example():
    return {{"model": M(), "args": (torch.randn({sizes}),), "dynamic_shapes": {shapes}}}


def xport_inputs():
    return [(torch.randn({other}),)]
""")


# -- a pool 1 long at the low end: non-strict always, strict where an op computes on it ---------
_POOL = "self.pool = nn.MaxPool2d(3, 2)"
case("max-pool-returned", True, False, "return self.pool(x)", _FROM_4, _POOL)
case("max-pool-times", True, True, "h = self.pool(x)\nreturn h * 2", _FROM_4, _POOL)
case("max-pool-relu", True, True, "h = self.pool(x)\nreturn torch.relu(h)", _FROM_4, _POOL)
case("max-pool-flatten", True, True, "h = self.pool(x)\nreturn h.flatten(1)", _FROM_4, _POOL)
case("max-pool-permuted", True, False, "h = self.pool(x)\nreturn h.permute(0, 2, 3, 1)", _FROM_4, _POOL)
case("max-pool-convolved", True, False, "h = self.pool(x)\nreturn self.conv(h)", _FROM_4,
     _POOL + "\nself.conv = nn.Conv2d(3, 4, 1)")
case("functional-max-pool-times", True, True, "h = F.max_pool2d(x, 2)\nreturn h * 2", _FROM_2)
case("functional-max-pool-returned", True, False, "return F.max_pool2d(x, 2)", _FROM_2)
case("avg-pool-1d-plus", True, True, "h = F.avg_pool1d(x, 2)\nreturn h + 1", _FROM_2, rank=3)
case("avg-pool-summed", True, False, "h = self.pool(x)\nreturn h.sum()", _FROM_2, "self.pool = nn.AvgPool2d(2)")

# -- a pool rounding up (ceil_mode=True, stride >= 2) along a named Dim: both modes, by itself ---
_H = '{"x": {2: Dim("h", min=4, max=64)}}'
_CEIL = "self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)"
case("ceil-layer-returned", True, True, "return self.pool(x)", _H, _CEIL)
case("ceil-layer-times", True, True, "h = self.pool(x)\nreturn h * 2", _H, _CEIL)
case("ceil-layer-unbounded", True, True, "return self.pool(x)", '{"x": {2: Dim("h")}}', _CEIL)
case("ceil-layer-keywords", True, True, "return self.pool(x)", _H,
     "self.pool = nn.MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=True)")
case("ceil-layer-stride-over-kernel", True, True, "return self.pool(x)", _H, "self.pool = nn.MaxPool2d(2, 3, ceil_mode=True)")
case("ceil-layer-padded-avg", True, True, "return self.pool(x)", _H, "self.pool = nn.AvgPool2d(3, 2, 1, ceil_mode=True)")
case("ceil-layer-init-default", True, True, "return self.pool(x)", _H,
     "self.pool = nn.MaxPool2d(3, self.stride, ceil_mode=True)", stride_default=True)
case("ceil-layer-width", True, True, "return self.pool(x)", '{"x": {3: Dim("w", min=4, max=64)}}', _CEIL,
     other="2, 3, 16, 20")
case("ceil-functional-keyword", True, True, "return F.max_pool2d(x, 3, 2, ceil_mode=True)", _H)
case("ceil-functional-positional", True, True, "h = F.avg_pool2d(x, 3, 2, 0, True)\nreturn h", _H)
case("ceil-torch-function", True, True, "return torch.max_pool2d(x, 3, 2, 0, 1, True)", _H)
case("ceil-1d", True, True, "return self.pool(x)", _H, "self.pool = nn.AvgPool1d(3, 2, ceil_mode=True)", rank=3)
case("ceil-after-conv", True, True, "h = self.conv(x)\nreturn self.pool(h)", _H, "self.conv = nn.Conv2d(3, 8, 3, 2, 1)\n" + _CEIL,
     failure="AssertionError")
case("ceil-in-sequential", True, True, "return self.features(x)", '{"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}',
     "self.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, ceil_mode=True))")
# near misses: export in both modes
case("ceil-stride-one", False, False, "return self.pool(x)", _H, "self.pool = nn.MaxPool2d(3, 1, ceil_mode=True)")
case("ceil-dynamic", False, False, "return self.pool(x) * 2", '{"x": {2: Dim.DYNAMIC}}', _CEIL)
case("ceil-dynamic-ranged", False, False, "return self.pool(x) * 2", '{"x": {2: Dim.DYNAMIC(min=4, max=64)}}', _CEIL)
case("ceil-auto", False, False, "return self.pool(x) * 2", '{"x": {2: Dim.AUTO}}', _CEIL)
case("ceil-derived-even", False, False, "return self.pool(x) * 2", '{"x": {2: 2 * Dim("k", min=2, max=32)}}', _CEIL)
case("ceil-static-height", False, False, "return self.pool(x) * 2", '{"x": {0: Dim("b", min=1, max=8)}}', _CEIL)
case("ceil-off", False, False, "return self.pool(x) * 2", _H, "self.pool = nn.MaxPool2d(2, 2, ceil_mode=False)")
case("ceil-adaptive", False, False, "return self.pool(x) * 2", _H, "self.pool = nn.AdaptiveAvgPool2d(7)")
case("ceil-under-branch", False, False, "if x.shape[0] > 8:\n    return self.pool(x)\nreturn x", _H, _CEIL)

# -- a pooled size merged or fixed by a view: both modes --------------------------------------
case("pool-reshaped-literal", True, True, "h = F.max_pool2d(x, 2)\nreturn h.reshape(2, 3, 8, 8)", _H)
case("pool-viewed-arithmetic", True, True, "h = F.max_pool2d(x, 2)\nreturn h.view(2, 3 * 8 * 8)", _H)
case("pool-layer-reshaped", True, True, "h = self.pool(x)\nreturn h.reshape(6, 64)", _H, "self.pool = nn.AvgPool2d(2)")
case("conv-viewed-literal", True, True, "h = self.conv(x)\nreturn h.view(2, 256)", _H, "self.conv = nn.Conv2d(3, 4, 3, 2, 1)")
case("pool-merged-minus-one", True, True, "h = F.max_pool2d(x, 2)\nreturn h.reshape(2, 3, -1)", _H)
case("pool-flattened", True, True, "h = F.max_pool2d(x, 2)\nreturn h.flatten(2)", _H)
case("pool-layer-flattened", True, True, "h = self.pool(x)\nreturn h.flatten(1)", _H, "self.pool = nn.MaxPool2d(2)")
case("pool-1d-viewed", True, True, "h = F.avg_pool1d(x, 2)\nreturn h.view(2, -1)", _H, rank=3)
case("pool-by-4-flattened", True, True, "h = F.max_pool2d(x, 4)\nreturn h.flatten(2)", '{"x": {2: Dim("h", min=8, max=64)}}')
# near misses: export in both modes
case("adaptive-pool-reshaped", False, False, "h = F.adaptive_avg_pool2d(x, 4)\nreturn h.reshape(2, 48)", _H)
case("pool-reshaped-dynamic", False, False, "h = F.max_pool2d(x, 2)\nreturn h.reshape(2, 3, 8, 8)", '{"x": {2: Dim.DYNAMIC}}',
     other="2, 3, 16, 16")
case("pool-flattened-both-dims", False, False, "h = F.max_pool2d(x, 2)\nreturn h.flatten(2)",
     '{"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}')
case("pool-flattened-derived", False, False, "h = F.max_pool2d(x, 2)\nreturn h.flatten(2)", '{"x": {2: 2 * Dim("k", min=2, max=32)}}')
case("pool-permuted", False, False, "h = F.max_pool2d(x, 2)\nreturn h.permute(0, 2, 3, 1)", _H)

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
#: failing programs (non-strict) whose error has no fix, and why none is offered
_LITERAL = ("the literal sizes are the author's: which of them should follow the input is the model's choice, "
            "so no rewrite is offered")
_MERGED = ("declaring the size a multiple of the stride narrows what export accepts: no automatic fix, as after "
           "a patch convolution")
NO_FIX: dict[str, str] = {
    **dict.fromkeys(("pool-reshaped-literal", "pool-viewed-arithmetic", "pool-layer-reshaped", "conv-viewed-literal"),
                    _LITERAL),
    **dict.fromkeys(("pool-merged-minus-one", "pool-flattened", "pool-layer-flattened", "pool-1d-viewed",
                     "pool-by-4-flattened"), _MERGED),
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
