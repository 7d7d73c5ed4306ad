"""What a convolution's output makes export guard, read from shapes.py's size terms (XPT307):
an `nn.Sequential` of `Conv1d`/`Conv2d` (and layers keeping every size) whose output is below 1
long at a named `Dim`'s low end fails in both modes, exactly 1 long non-strict only, and strict
too once an op computes on it (a `ReLU` after the last convolution, `* 2`, `torch.relu`); a
`.permute` or returning it exports strict. A patch convolution, whose output is `w // s`
(reach equal to its stride), merged with static dimensions (`.flatten(2)`, `.flatten(1)`,
`.view(b, c, -1)`, `.reshape(...)`, here or in a block of another file, through the input's
name rebound, `x = self.proj(x)`) fails in both modes over any range; `k=3, s=2`, a `permute`, a size declared `4 * p`, or height and width both `Dim`s export. Torch 2.13's outcome
checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_SEQ1D = "self.net = torch.nn.Sequential(torch.nn.Conv1d(4, 8, 3), torch.nn.ReLU(), torch.nn.Conv1d(8, 8, 3){})"
_SEQ2D = "self.net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2), torch.nn.ReLU())"
_PATCH = "self.proj = torch.nn.Conv2d(3, 8, {})"
_LINE = "(torch.randn(2, 4, 16),)"
_IMAGE = "(torch.randn(2, 3, 16, 16),)"
_BLOCK = """
class Block(torch.nn.Module):
    def forward(self, x):
        return x


class PatchEmbed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Conv2d(3, 8, 4, stride=4)

    def forward(self, x):
        x = self.proj(x)
        return x.flatten(2).transpose(1, 2)
"""


def _length(name: str, body: str, init: str, low: int, fails: bool, strict_fails: bool | None = None) -> Program:
    return Program(name, body, _LINE, f'{{"x": {{2: Dim("t", min={low})}}}}', fails=fails, strict_fails=strict_fails,
                   init=init)


def _image(name: str, body: str, init: str, shapes: str, fails: bool, strict_fails: bool | None = None,
           **more: str) -> Program:
    return Program(name, body, _IMAGE, shapes, fails=fails, strict_fails=strict_fails, init=init, **more)


PROGRAMS: list[Program] = [
    # a Sequential of convolutions: its output's length at the range's low end
    Program("seq-unbounded", "return self.net(x)", _LINE, '{"x": {2: Dim("t")}}', fails=True,
            init=_SEQ1D.format("")),
    _length("seq-one-long-bound-first", "h = self.net(x)\nreturn h", _SEQ1D.format(""), 5, True, False),
    _length("seq-one-long-relu-after", "return self.net(x)", _SEQ1D.format(", torch.nn.ReLU()"), 5, True),
    _length("seq-one-long-times-two", "h = self.net(x)\nreturn h * 2", _SEQ1D.format(""), 5, True),
    _length("seq-two-long", "return self.net(x)", _SEQ1D.format(", torch.nn.ReLU()"), 6, False),
    _image("seq-strided-2d-one-long", "return self.net(x)", _SEQ2D, '{"x": {2: Dim("h", min=3, max=64)}}', True),
    _image("seq-strided-2d-two-long", "return self.net(x)", _SEQ2D, '{"x": {2: Dim("h", min=5, max=64)}}', False),
    # one convolution 1 long at the low end: strict fails once an op computes on it
    _image("conv-one-long-permuted", "return self.proj(x).permute(0, 2, 3, 1)", _PATCH.format("4, stride=4"),
           '{"x": {2: Dim("h", min=4, max=64)}}', True, False),
    _image("conv-one-long-relu", "y = self.proj(x)\nreturn torch.relu(y)", _PATCH.format("4, stride=4"),
           '{"x": {2: Dim("h", min=4, max=64)}}', True),
    _image("conv-one-long-returned-beside", "y = self.proj(x)\nreturn y, x", _PATCH.format("4, stride=4"),
           '{"x": {2: Dim("h", min=4, max=64)}}', True, False),
    # a patch convolution's output `h // s` merged with another dimension
    _image("patch-viewed", "y = self.proj(x)\nreturn y.view(y.shape[0], y.shape[1], -1)",
           _PATCH.format("4, stride=4"), '{"x": {2: Dim("h", min=8, max=64)}}', True),
    _image("patch-reshaped-width", "return self.proj(x).reshape(x.shape[0], 8, -1)", _PATCH.format("4, stride=4"),
           '{"x": {3: Dim("w", min=8, max=64)}}', True),
    _image("patch-flattened-from-1", "feats = self.proj(x)\nfeats = feats.flatten(1)\nreturn feats",
           _PATCH.format("4, stride=4"), '{"x": {3: Dim("w", min=8, max=64)}}', True),
    _image("patch-two-padded", "return self.proj(x).flatten(2)", _PATCH.format("4, stride=2, padding=1"),
           '{"x": {2: Dim("h", min=8, max=64)}}', True),
    _image("strided-three-flattened", "return self.proj(x).flatten(2)", _PATCH.format("3, stride=2, padding=1"),
           '{"x": {2: Dim("h", min=8, max=64)}}', False),
    _image("patch-permuted-only", "return self.proj(x).permute(0, 2, 3, 1)", _PATCH.format("4, stride=4"),
           '{"x": {2: Dim("h", min=8, max=64)}}', False),
    _image("patch-flattened-multiple", "return self.proj(x).flatten(2)", _PATCH.format("4, stride=4"),
           '{"x": {2: 4 * p}}', False, prelude='p = Dim("p", min=2, max=16)'),
    _image("patch-flattened-height-and-width", "return self.proj(x).flatten(2).transpose(1, 2)",
           _PATCH.format("4, stride=4"), '{"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}', False),
    _image("patch-flattened-batch", "return self.proj(x).flatten(2)", _PATCH.format("4, stride=4"),
           '{"x": {0: Dim("b")}}', False),
    # in a block of another file
    Program("file-patch-embed-bound", "return self.inner(x)", _IMAGE, '{"x": {2: Dim("h", min=8, max=64)}}',
            fails=True, block=_BLOCK, top="from .blocks import PatchEmbed", init="self.inner = PatchEmbed()"),
    Program("file-patch-embed-batch", "return self.inner(x)", _IMAGE, '{"x": {0: Dim("b")}}',
            fails=False, block=_BLOCK, top="from .blocks import PatchEmbed", init="self.inner = PatchEmbed()"),
]

BATCH = ProgramBatch("convguards", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
