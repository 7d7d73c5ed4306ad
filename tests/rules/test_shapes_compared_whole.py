"""Shapes compared whole (issue 24, written from a held-out probe's misses): timm's `assert
tuple(x.shape[-2:]) == self.img_size`, Whisper's `assert x.shape[1:] ==
self.positional_embedding.shape`, and the same in other spellings (`list(...)`, `torch.Size(...)`,
a tuple display, names unpacked first, `if ... != ...: raise`, two inputs' whole shapes). Python
compares the sizes one by one, so export guards each, and a named `Dim` among them fails with a
constraint violation in both modes (torch 2.13), as `assert x.shape[2] == 32` does (XPT304; XPT301
for the `if` that raises). Near misses: the compared sizes static, the two inputs sharing one `Dim`,
a `!=` assert (it holds for every size but one).

Figures (BEFORE is this file run on the engine of `3413ebe`): failing programs with an error 1/8 ->
8/8 in both modes (before, only the two inputs' shapes, through XPT305 on the sum after the assert);
exporting programs with one 0/4 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_IMAGE = "(torch.randn(2, 3, 32, 32),)"
_HW = '{"x": {2: Dim("h", min=16, max=256), 3: Dim("w", min=16, max=256)}}'
_PATCH_INIT = "self.img_size = (32, 32)\nself.proj = torch.nn.Conv2d(3, 16, 8, stride=8)"
_TOKENS = "\nreturn self.proj(x).flatten(2).transpose(1, 2)"
_AUDIO_INIT = ("self.conv1 = torch.nn.Conv1d(8, 16, 3, padding=1)\n"
               "self.conv2 = torch.nn.Conv1d(16, 16, 3, stride=2, padding=1)\n"
               'self.register_buffer("positional_embedding", torch.randn(20, 16))')
_AUDIO = """
x = F.gelu(self.conv1(x))
x = F.gelu(self.conv2(x))
x = x.permute(0, 2, 1)
assert x.shape[1:] == self.positional_embedding.shape, "incorrect audio shape"
return x + self.positional_embedding
"""
_PAIR = "(torch.randn(2, 8), torch.randn(2, 8))"


def _patch(name: str, check: str, shapes: str = _HW, fails: bool = True) -> Program:
    return Program(name, check + _TOKENS, _IMAGE, shapes, fails=fails, init=_PATCH_INIT)


PROGRAMS: list[Program] = [
    _patch("tuple-of-the-shape-to-a-kept-size", "assert tuple(x.shape[-2:]) == self.img_size, 'input size'"),
    _patch("shape-slice-to-literals", "assert x.shape[2:] == (32, 32)"),
    _patch("list-of-the-shape-to-a-list", "assert list(x.shape[2:]) == [32, 32]"),
    _patch("shape-slice-to-a-torch-size", "assert x.shape[-2:] == torch.Size([32, 32])"),
    _patch("unpacked-then-compared-as-a-tuple", "H, W = x.shape[-2:]\nassert (H, W) == self.img_size"),
    _patch("raised-on-a-whole-shape-difference", "if x.shape[-2:] != self.img_size:\n    raise ValueError('input size')"),
    Program("audio-frames-to-a-buffer-shape", _AUDIO, "(torch.randn(2, 8, 40),)", '{"x": {2: Dim("frames")}}', fails=True,
            init=_AUDIO_INIT),
    Program("two-inputs-whole-shapes", "assert x.shape == y.shape\nreturn x + y", _PAIR,
            '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}', fails=True, params="x, y"),
    # near misses
    _patch("compared-sizes-static", "assert tuple(x.shape[-2:]) == self.img_size, 'input size'", '{"x": {0: Dim("b")}}',
           fails=False),
    Program("audio-frames-static", _AUDIO, "(torch.randn(2, 8, 40),)", '{"x": {0: Dim("b")}}', fails=False,
            init=_AUDIO_INIT),
    Program("two-inputs-sharing-a-dim", "assert x.shape == y.shape\nreturn x + y", _PAIR, '{"x": {0: a}, "y": {0: a}}',
            fails=False, params="x, y", prelude='a = Dim("a")'),
    _patch("whole-shape-unequal-to-one-size", "assert x.shape[-2:] != (1, 1)", fails=False),
]

BATCH = ProgramBatch("wholeshape", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
