"""Two inputs with their own named `Dim`s, tied by adding what layers made of them (a feature
pyramid's top-down path, issue 24): `self.l4(c4) + F.interpolate(self.l5(c5), scale_factor=2)`
ties `h4` to `2 * h5`, and export fails with a constraint violation in both modes (torch 2.13).
A size through a 1x1 or padded 3x3 convolution is the size itself (`(h - 1) // 1 + 1`), and an
`nn.Upsample` layer or an interpolation to `(2 * h, 2 * w)` of the layer's own sizes doubles it
as `scale_factor=2` does. Near misses: the sizes declared as `2 * d` and `d`; interpolating to the
other input's sizes; a stride-2 convolution added to the other input (measured: exports, so
judged by no affine model), a max-pool likewise.

Figures (BEFORE is this file run on the engine of `86bc58f`): failing programs with an error 1/7
-> 7/7 in both modes; exporting programs with one 0/6 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(1, 8, 16, 16), torch.randn(1, 8, 8, 8))"
_SEPARATE = ('{"c4": {2: Dim("h4", min=4, max=64), 3: Dim("w4", min=4, max=64)}, '
             '"c5": {2: Dim("h5", min=2, max=32), 3: Dim("w5", min=2, max=32)}}')
_ONE_BY_ONE = "self.l4 = torch.nn.Conv2d(8, 8, 1)\nself.l5 = torch.nn.Conv2d(8, 8, 1)"
_STRIDED = "self.down = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)"
_TOP_DOWN = "return self.l4(c4) + F.interpolate(self.l5(c5), scale_factor=2.0)"


def _pyramid(name: str, body: str, init: str = _ONE_BY_ONE, fails: bool = True, shapes: str = _SEPARATE,
             prelude: str = "") -> Program:
    return Program(name, body, _ARGS, shapes, fails=fails, params="c4, c5", init=init, prelude=prelude)


PROGRAMS: list[Program] = [
    _pyramid("one-line", _TOP_DOWN),
    _pyramid("upsampled-named-first", "p5 = self.l5(c5)\nup = F.interpolate(p5, scale_factor=2, mode='nearest')\n"
             "return self.l4(c4) + up"),
    _pyramid("padded-3x3-layers", _TOP_DOWN,
             init="self.l4 = torch.nn.Conv2d(8, 8, 3, padding=1)\nself.l5 = torch.nn.Conv2d(8, 8, 3, padding=1)"),
    _pyramid("upsample-layer", "return self.l4(c4) + self.up(self.l5(c5))",
             init=_ONE_BY_ONE + "\nself.up = torch.nn.Upsample(scale_factor=2, mode='nearest')"),
    _pyramid("size-from-unpacked-shape", "p5 = self.l5(c5)\nh, w = p5.shape[-2:]\n"
             "up = F.interpolate(p5, size=(2 * h, 2 * w))\nreturn self.l4(c4) + up"),
    _pyramid("sequential-layers", _TOP_DOWN,
             init="self.l4 = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 1), torch.nn.ReLU())\n"
                  "self.l5 = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.BatchNorm2d(8))"),
    _pyramid("inputs-alone", "return c4 + F.interpolate(c5, scale_factor=2.0)", init=""),
    # near misses
    _pyramid("declared-double", _TOP_DOWN, fails=False, shapes='{"c4": {2: 2 * h, 3: 2 * w}, "c5": {2: h, 3: w}}',
             prelude='h, w = Dim("h", min=2, max=32), Dim("w", min=2, max=32)'),
    _pyramid("sized-as-the-other", "p5 = self.l5(c5)\nup = F.interpolate(p5, size=(c4.shape[2], c4.shape[3]))\n"
             "return self.l4(c4) + up", fails=False),
    _pyramid("strided-added", "return self.down(c4) + c5", init=_STRIDED, fails=False),
    _pyramid("strided-named-first", "y = self.down(c4)\ny = torch.relu(y)\nreturn y + self.l5(c5)",
             init=_STRIDED + "\nself.l5 = torch.nn.Conv2d(8, 8, 1)", fails=False),
    _pyramid("pooled-added", "return F.max_pool2d(c4, 2) + c5", init="", fails=False),
    _pyramid("strided-joined", "return torch.cat([self.down(c4), c5], 1)", init=_STRIDED, fails=False),
]

BATCH = ProgramBatch("layerties", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
