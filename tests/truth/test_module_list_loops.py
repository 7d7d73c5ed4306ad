"""A declared `Dim` reaches the blocks of an `nn.ModuleList` a loop runs (`for blk in self.blocks:
x = blk(x)`, the spine of Swin, ViT, BERT and UNet stages): the loop's first turn calls the list's
first block with the input itself, so a size test or a reshape in that block's `forward` is
judged under the input's declared `Dim`s, as a direct `self.block(x)` call is. Spelt as real
models write it: a list display, a comprehension, `enumerate`, the block class in another file,
the loop in a method `forward` calls. Each failing program has a twin whose declared range the
block supports; one where the input is rebound before the loop is a miss kept in view.

Each outcome was measured on torch 2.13.0 in both modes, and torch must still agree. Written with
the change (shapes.py `_first_layer_calls`), from the held-out probe's miss `patch-merging-stages`
(tests/truth/test_shape_cases_24.py), not from any other held-out program.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_CROPPING = """
class Block(torch.nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = torch.nn.Linear(dim, dim)

    def forward(self, x):
        if x.shape[1] > 64:
            x = x[:, :64]
        return self.fc(x)
"""
_MERGING = """
class Merge(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.reduction = torch.nn.Linear(2 * dim, dim)

    def forward(self, x):
        B, T, C = x.shape
        return self.reduction(x.reshape(B, T // 2, 2 * C))
"""
_LOOP = "for blk in self.blocks:\n    x = blk(x)\nreturn x"
_ARGS = "(torch.randn(2, 32, 8),)"
_WIDE = '{"x": {1: Dim("T", min=2, max=256)}}'
_NARROW = '{"x": {1: Dim("T", min=2, max=64)}}'
_EVEN = '{"x": {1: 2 * Dim("t", min=1, max=128)}}'
_LISTED = "self.blocks = torch.nn.ModuleList([Block(8), Block(8), Block(8)])"
_COMPREHENDED = "self.blocks = torch.nn.ModuleList([Block() for _ in range(4)])"

PROGRAMS: list[Program] = [
    Program("listed-blocks", _LOOP, _ARGS, _WIDE, fails=True, top=_CROPPING, init=_LISTED),
    Program("listed-blocks-narrow", _LOOP, _ARGS, _NARROW, fails=False, top=_CROPPING, init=_LISTED),
    Program("comprehended-blocks", _LOOP, _ARGS, _WIDE, fails=True, top=_CROPPING, init=_COMPREHENDED),
    Program("comprehended-blocks-narrow", _LOOP, _ARGS, _NARROW, fails=False, top=_CROPPING, init=_COMPREHENDED),
    Program("enumerated-blocks", "for i, blk in enumerate(self.blocks):\n    x = blk(x)\nreturn x", _ARGS, _WIDE,
            fails=True, top=_CROPPING, init=_COMPREHENDED),
    Program("blocks-of-another-file", _LOOP, _ARGS, _WIDE, fails=True, block=_CROPPING,
            init="self.blocks = torch.nn.ModuleList([Block(8) for _ in range(2)])"),
    Program("blocks-of-another-file-narrow", _LOOP, _ARGS, _NARROW, fails=False, block=_CROPPING,
            init="self.blocks = torch.nn.ModuleList([Block(8) for _ in range(2)])"),
    Program("blocks-in-a-method", "return self.forward_features(x)", _ARGS, _WIDE, fails=True, top=_CROPPING,
            init=_COMPREHENDED, methods="def forward_features(self, x):\n    " + _LOOP.replace("\n", "\n    ")),
    Program("merging-stages", _LOOP, _ARGS, _WIDE, fails=True, top=_MERGING,
            init="self.blocks = torch.nn.ModuleList([Merge(8), Merge(8)])"),
    Program("merging-one-stage-even", _LOOP, _ARGS, _EVEN, fails=False, top=_MERGING,
            init="self.blocks = torch.nn.ModuleList([Merge(8)])"),
    Program("rebound-before-the-loop", "x = self.proj(x)\n" + _LOOP, _ARGS, _WIDE, fails=True, top=_CROPPING,
            init="self.proj = torch.nn.Linear(8, 8)\n" + _COMPREHENDED),
]
#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    **{("rebound-before-the-loop", mode): "the input is rebound by a layer before the loop: what the list's first"
       " block is given is not carried into it" for mode in Mode},
}

BATCH = ProgramBatch("modlist", {"module-list loops": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
