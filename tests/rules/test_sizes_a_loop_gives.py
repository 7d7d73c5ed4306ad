"""Size tests on each size a loop over a shape gives (issue 24, written from a held-out probe's
miss): diffusers' UNet checks `for dim in x.shape[-2:]: if dim % default_overall_up_factor != 0:`
with `default_overall_up_factor = 2 ** self.num_upsamplers`; Python runs the loop once per size and
export guards each, so a named `Dim` whose range holds odd and even sizes fails with a constraint
violation in both modes (torch 2.13), XPT301 on the `if`, XPT304 on an `assert` in the loop. Near
misses: sizes declared `2 * d`, the sizes static, a loop whose body tests nothing, a range the
assert holds on.

Figures (BEFORE is this file run on the engine of `3413ebe`): failing programs with an error 0/4 ->
3/4 in both modes; with sizes copied into a container first (`tuple(x.size())[2:]`, `list(x.shape)[2:]`,
now read as the sizes they hold) 5/5; exporting programs with one 0/4 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_IMAGE = "(torch.randn(2, 8, 16, 16),)"
_HW = '{"x": {2: Dim("h", min=4), 3: Dim("w", min=4)}}'
_UNET_INIT = ("self.num_upsamplers = 1\nself.down = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)\n"
              "self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)")
_UNET = """
default_overall_up_factor = 2 ** self.num_upsamplers
forward_upsample_size = False
upsample_size = None
for dim in x.shape[-2:]:
    if dim % default_overall_up_factor != 0:
        forward_upsample_size = True
        break
h = self.down(x)
if forward_upsample_size:
    upsample_size = x.shape[-2:]
    h = F.interpolate(h, size=upsample_size, mode="nearest")
else:
    h = F.interpolate(h, scale_factor=2.0, mode="nearest")
return self.conv(h) + x
"""
_ODD = "odd = False\nfor s in {sizes}:\n    if s % 2 == 1:\n        odd = True\nreturn x * 2 if odd else x"
_BOUNDED = "for s in x.shape[2:]:\n    assert s <= 512, 'too large'\nreturn x"

PROGRAMS: list[Program] = [
    Program("upsample-factor-per-size", _UNET, _IMAGE, _HW, fails=True, init=_UNET_INIT),
    Program("odd-size-flag", _ODD.format(sizes="x.shape[2:]"), _IMAGE, _HW, fails=True),
    Program("odd-size-flag-of-a-tuple", _ODD.format(sizes="tuple(x.size())[2:]"), _IMAGE, _HW, fails=True),
    Program("odd-size-flag-of-a-list", _ODD.format(sizes="list(x.shape)[2:]"), _IMAGE, _HW, fails=True),
    Program("assert-per-size", _BOUNDED, _IMAGE, _HW, fails=True),
    # near misses
    Program("upsample-factor-declared-even", _UNET, _IMAGE, '{"x": {2: 2 * Dim("hh", min=2), 3: 2 * Dim("ww", min=2)}}',
            fails=False, init=_UNET_INIT),
    Program("upsample-factor-sizes-static", _UNET, _IMAGE, '{"x": {0: Dim("b")}}', fails=False, init=_UNET_INIT),
    Program("loop-testing-nothing", "n = 0\nfor s in x.shape[2:]:\n    n = max(n, 1)\nreturn x * n", _IMAGE, _HW,
            fails=False),
    Program("assert-within-the-range", _BOUNDED, _IMAGE,
            '{"x": {2: Dim("h", min=4, max=512), 3: Dim("w", min=4, max=512)}}', fails=False),
]

BATCH = ProgramBatch("loopsizes", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
