"""Symbolic shapes through submodules and fixed-length buffers, the spellings real library models
use (issue 24 on real code: the zoo's BertEmbeddings and UNet2DModel, reduced without the
library): a declared `Dim` carried into a block's `forward` through the layer before it
(`self.block(self.conv_in(x))`, a `Linear`, a keyword argument, a method `forward` calls); a
buffer made by `nn.Buffer(...)` or `register_buffer(..., torch.arange(n).expand((1, -1)))`
sliced by an input size that was unpacked from a name bound to `x.size()`, or offset by an int
argument (`past : seq + past`); a size test on such a slice; a check equating a declared size
with a value the model holds from its config. Each program has a twin whose declared range
the code supports.

Each outcome was measured on torch 2.13.0 in both modes, and torch must still agree. Written
with the engine change that reads these spellings (shapes.py: `_passed` carries a computed
argument's dims and follows a method, `init_buffers` reads `nn.Buffer`, `Sizes.slice_end`),
from the patterns of the two library models, not from any held-out program.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_BATCH_TEST = """
class Block(torch.nn.Module):
    def forward(self, h):
        if h.shape[0] >= 64:
            h = h.contiguous()
        return h * 2
"""
_POSITIONS = 'self.register_buffer("pos", torch.arange(16).expand((1, -1)), persistent=False)'
_SEQ = '{"x": {1: Dim("seq", min=2, max=%d)}}'
_CONFIG = 'CONFIG = {"image_size": %d}'
_HELD = 'self.img_size = (CONFIG["image_size"], CONFIG["image_size"])'

PROGRAMS: list[Program] = [
    # a batch Dim reaches a block of another file through a convolution that keeps dimension 0
    Program("conv-then-block", "return self.block(self.conv_in(x))", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=128)}}', fails=True,
            init="self.conv_in = torch.nn.Conv2d(3, 3, 3, padding=1)\nself.block = Block()", block=_BATCH_TEST),
    Program("conv-then-block-in-range", "return self.block(self.conv_in(x))", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=32)}}', fails=False,
            init="self.conv_in = torch.nn.Conv2d(3, 3, 3, padding=1)\nself.block = Block()", block=_BATCH_TEST),
    # through a name bound to a Linear's output, then passed by keyword
    Program("linear-then-block-by-keyword", "h = self.proj(x)\nreturn self.block(h=h)", "(torch.randn(2, 8),)",
            '{"x": {0: Dim("batch", min=2, max=128)}}', fails=True,
            init="self.proj = torch.nn.Linear(8, 8)\nself.block = Block()", block=_BATCH_TEST),
    # through a method `forward` hands the input to (timm's `forward_features`)
    Program("method-then-block", "return self.features(x)", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=128)}}', fails=True,
            init="self.conv_in = torch.nn.Conv2d(3, 3, 3, padding=1)\nself.block = Block()", block=_BATCH_TEST,
            methods="def features(self, x):\n    return self.block(self.conv_in(x))"),
    Program("method-then-block-in-range", "return self.features(x)", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=32)}}', fails=False,
            init="self.conv_in = torch.nn.Conv2d(3, 3, 3, padding=1)\nself.block = Block()", block=_BATCH_TEST,
            methods="def features(self, x):\n    return self.block(self.conv_in(x))"),
    # an nn.Buffer sliced by the sequence length
    Program("nn-buffer-slice", "return x + self.pos[:, : x.shape[1]]", "(torch.randn(2, 8),)", _SEQ % 32,
            fails=True, init="self.pos = torch.nn.Buffer(torch.arange(16).expand((1, -1)), persistent=False)"),
    Program("nn-buffer-slice-in-range", "return x + self.pos[:, : x.shape[1]]", "(torch.randn(2, 8),)", _SEQ % 16,
            fails=False, init="self.pos = torch.nn.Buffer(torch.arange(16).expand((1, -1)), persistent=False)"),
    # the sizes unpacked from a name bound to `x.size()`
    Program("unpacked-size-slice", "shape = x.size()\nbatch, seq = shape\nreturn x + self.pos[:, :seq]",
            "(torch.randn(2, 8),)", _SEQ % 32, fails=True, init=_POSITIONS),
    # a slice offset by an int argument (0 by default): it ends at `seq + past`
    Program("offset-slice", "return x + self.pos[:, past : x.shape[1] + past]", "(torch.randn(2, 8),)", _SEQ % 32,
            fails=True, params="x, past: int = 0", init=_POSITIONS),
    Program("offset-slice-in-range", "return x + self.pos[:, past : x.shape[1] + past]", "(torch.randn(2, 8),)",
            _SEQ % 16, fails=False, params="x, past: int = 0", init=_POSITIONS),
    # a size test on the slice reads the input size it ends at (`b - a` along the buffer)
    Program("test-on-a-buffer-slice", "p = self.pos[:, 0 : x.shape[1]]\nif p.shape[1] > 8:\n    return x * 2\nreturn x + p",
            "(torch.randn(2, 8),)", _SEQ % 16, fails=True, init=_POSITIONS),
    Program("test-on-a-buffer-slice-the-range-decides",
            "p = self.pos[:, 0 : x.shape[1]]\nif p.shape[1] > 16:\n    return x * 2\nreturn x + p",
            "(torch.randn(2, 8),)", _SEQ % 16, fails=False, init=_POSITIONS),
    # a check equating a declared size with a value the model holds from its config (timm's
    # PatchEmbed: `_assert(H == self.img_size[0])`): whatever the value, export fails
    Program("assert-on-a-held-size", 'B, C, H, W = x.shape\nassert H == self.img_size[0], "size"\nreturn x * 2',
            "(torch.randn(2, 3, 8, 8),)", '{"x": {2: Dim("h", min=4, max=16)}}', fails=True,
            top=_CONFIG % 8, init=_HELD),
    Program("check-on-a-held-size", "torch._check(x.shape[3] == self.img_size[1])\nreturn x * 2",
            "(torch.randn(2, 3, 8, 8),)", '{"x": {3: Dim("w", min=4, max=16)}}', fails=True,
            top=_CONFIG % 8, init=_HELD),
    Program("assert-helper-on-a-held-size-the-example-differs",
            "B, C, H, W = x.shape\n_assert(H == self.img_size[0], 'size')\nreturn x * 2",
            "(torch.randn(2, 3, 8, 8),)", '{"x": {2: Dim("h", min=4, max=16)}}', fails=True, violation=False,
            top=_CONFIG % 12 + "\n\ndef _assert(condition, message):\n    assert condition, message", init=_HELD),
    Program("assert-on-a-held-size-of-a-static-dim",
            'B, C, H, W = x.shape\nassert H == self.img_size[0], "size"\nreturn x * 2',
            "(torch.randn(2, 3, 8, 8),)", '{"x": {0: Dim("b", min=2, max=16)}}', fails=False,
            top=_CONFIG % 8, init=_HELD),
    # BertEmbeddings' spelling whole: nn.Buffer, sizes unpacked from `input_ids.size()`, an offset
    Program("bert-positions",
            "input_shape = x.size()\nbatch_size, seq_length = input_shape\n"
            "position_ids = self.position_ids[:, past : seq_length + past]\nreturn self.pos(position_ids)",
            "(torch.randint(0, 16, (2, 8)),)", _SEQ % 32, fails=True, params="x, past: int = 0",
            init="self.pos = torch.nn.Embedding(16, 4)\n"
                 "self.position_ids = torch.nn.Buffer(torch.arange(16).expand((1, -1)), persistent=False)"),
]
#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = ProgramBatch("subsizes", {"submodules and buffers": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
