"""Symbolic shapes, a sixteenth batch: issue 24's strict-only zoo miss, timm's `_assert(H % p == 0,
f"Input image height ({H}) ...")` under a named `Dim`, reduced to small programs written before the
engine was touched (each outcome measured on torch 2.13.0 in both modes, and torch must still agree).

Measured: strict export builds an f-string that joins a size with other text (`f"height {H}"`,
`f"{H}{W}"`, `f"h {H // 2}"`, `f"h {x.size(2)}"`) from the size's value, so a named `Dim`, a derived
one (`16 * k`) or `Dim.DYNAMIC` fails (`Constraints violated (height)! ... specialized it to be a
constant (224)`), passed to `torch._assert`, to a helper, bound to a name even unused, in a submodule
of this file or another; non-strict export exports them all. It exports under `Dim.AUTO`, on a static
dimension, as an `assert`'s message (built only on failure), under an `if` not taken, and a lone
`f"{H}"` bound to a name or passed to `torch._assert`.

BEFORE (the engine at 8796d93, no XPT309): no error on the strict failures linted there (assert-message,
message-bound-first, assert-message-dynamic, message-to-a-helper).
AFTER: 12/13 strict failures flagged, 0/8 near misses, nothing in non-strict mode.
XPT309 (formatted-size) reads the sizes each f-string part formats (`Sizes.refs`), strict only.
Second set, timm's `to_2tuple` reduced: `self.patch_size = to_pair(patch_size)`, `to_pair` a helper of
the class's file returning `value if isinstance(value, tuple) else (value, value)` (or `if isinstance(...):
return tuple(value)` then `return (value, value)`), then `torch._assert(H % self.patch_size[0] == 0, ...)`
under `Dim("height", min=32, max=448)`: fails both modes with `patch_size=16`, exports with 1 (measured).
BEFORE (8796d93): no error on the failing ones. AFTER: `shapes.repeat_count` reads how many copies of an
integer argument such a helper returns (its `isinstance` tests of container types False for an integer),
and `init_constants` gives one entry per copy: 3/3 failing flagged, 0/2 near misses.
Left: timm's own spelling (`to_2tuple = _ntuple(2)`, a closure of another module, and `_init_img_size`
returning the pair) is not read.
Also left: `return x, f"{H}"` (a lone formatted size returned) fails strict too and is not flagged
(KNOWN_MISSES); `str(H)`, `"%d" % H` and `torch._check(c, lambda: f"{H}")` fail for other reasons
(measured: strict `Unsupported`; `%` fails both modes) and are not this batch's.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PIXELS = "(torch.randn(2, 3, 224, 224),)"
_HEIGHT = '{"x": {2: Dim("height", min=32, max=448)}}'
_UNPACK = "B, C, H, W = x.shape\n"
#: timm's PatchEmbed(strict_img_size=False): its `_assert` helper and an f-string message
_TIMM_BLOCK = """
def _assert(condition, message):
    assert condition, message


class Block(torch.nn.Module):
    def __init__(self, patch_size=16):
        super().__init__()
        self.patch_size = (patch_size, patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        _assert(H % self.patch_size[0] == 0, f"Input image height ({H}) must be divisible by patch size ({self.patch_size[0]}).")
        return x.flatten(2).transpose(1, 2)
"""
_LOCAL_BLOCK = """
class Check(torch.nn.Module):
    def forward(self, y):
        B, C, H, W = y.shape
        torch._assert(H > 0, f"height {H}")
        return y * 2
"""
_HELPER = "def check(condition, message):\n    assert condition, message"
_PAIRS = """
def to_pair(value):
    return value if isinstance(value, tuple) else (value, value)


def to_pair_checked(value):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value, value)


class Block(torch.nn.Module):
    def __init__(self, patch_size=16):
        super().__init__()
        self.patch_size = to_pair(patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H % self.patch_size[0] == 0, "height not divisible")
        return x * 2


class CheckedEmbed(torch.nn.Module):
    def __init__(self, patch_size=16):
        super().__init__()
        self.patch_size = to_pair_checked(patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        p = self.patch_size[0]
        torch._check(H % p == 0)
        return x * 2
"""
_LOCAL_PAIRS = """
def to_pair(value):
    return value if isinstance(value, tuple) else (value, value)


class LocalEmbed(torch.nn.Module):
    def __init__(self, patch_size=16):
        super().__init__()
        self.patch_size = to_pair(patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H % self.patch_size[0] == 0, "no")
        return x * 2
"""


def _strict_only(name: str, body: str, shapes: str = _HEIGHT, **more: str) -> Program:
    """A program that exports non-strict and fails strict."""
    return Program(name, body, _PIXELS, shapes, fails=False, strict_fails=True, **more)


def _exports(name: str, body: str, shapes: str = _HEIGHT, **more: str) -> Program:
    return Program(name, body, _PIXELS, shapes, fails=False, **more)


PROGRAMS: list[Program] = [
    _strict_only(
        "assert-message",
        _UNPACK + "torch._assert(H % 1 == 0, f'height {H}')\nreturn x * 2",
    ),
    _strict_only(
        "assert-message-dynamic",
        _UNPACK + "torch._assert(H > 0, f'height {H}')\nreturn x * 2",
        '{"x": {2: Dim.DYNAMIC}}',
    ),
    _strict_only(
        "assert-message-derived",
        _UNPACK + "torch._assert(H % 1 == 0, f'h {H}')\nreturn x * 2",
        '{"x": {2: 16 * Dim("k", min=2, max=28)}}',
    ),
    _strict_only(
        "message-read-inline",
        "torch._assert(x.shape[2] > 0, f'height {x.shape[2]}')\nreturn x * 2",
    ),
    _strict_only(
        "message-bound-first",
        _UNPACK + "msg = f'height {H}'\ntorch._assert(H > 0, msg)\nreturn x * 2",
    ),
    _strict_only("message-bound-unused", _UNPACK + "msg = f'height {H}'\nreturn x * 2"),
    _strict_only(
        "message-to-a-helper",
        _UNPACK + "check(H > 0, f'height {H}')\nreturn x * 2",
        top=_HELPER,
    ),
    _strict_only("two-sizes-joined", _UNPACK + "s = f'{H}{W}'\nreturn x * 2"),
    _strict_only("size-call-formatted", "s = f'h {x.size(2)}'\nreturn x * 2"),
    _strict_only("half-formatted", _UNPACK + "s = f'h {H // 2}'\nreturn x * 2"),
    _strict_only(
        "submodule-of-this-file",
        "return self.check(x)",
        top=_LOCAL_BLOCK,
        init="self.check = Check()",
    ),
    _strict_only(
        "timm-patch-embed-other-file",
        "return self.patch_embed(x)",
        '{"x": {2: 16 * hk, 3: 16 * wk}}',
        block=_TIMM_BLOCK,
        init="self.patch_embed = Block()",
        prelude='hk = Dim("hk", min=2, max=28)\nwk = Dim("wk", min=2, max=28)',
    ),
    _strict_only("returned-lone-size", _UNPACK + "return x * 2, f'{H}'"),
    # near misses: each exports in both modes
    _exports(
        "assert-message-auto",
        _UNPACK + "torch._assert(H > 0, f'height {H}')\nreturn x * 2",
        '{"x": {2: Dim.AUTO}}',
    ),
    _exports(
        "assert-message-static-dim",
        _UNPACK + "torch._assert(H > 0, f'height {H}')\nreturn x * 2",
        '{"x": {0: Dim("b", min=2, max=8)}}',
    ),
    _exports(
        "python-assert-message",
        _UNPACK + "assert H % 1 == 0, f'height {H}'\nreturn x * 2",
    ),
    _exports("plain-message", "torch._assert(x.shape[2] > 0, 'height')\nreturn x * 2"),
    _exports("lone-size-bound", _UNPACK + "s = f'{H}'\nreturn x * 2"),
    _exports("lone-size-message", _UNPACK + "torch._assert(H > 0, f'{H}')\nreturn x * 2"),
    _exports(
        "raise-not-taken",
        _UNPACK + "if x.dim() != 4:\n    raise ValueError(f'height {H}')\nreturn x * 2",
    ),
    _exports(
        "timm-patch-embed-batch-dim",
        "return self.patch_embed(x)",
        '{"x": {0: Dim("batch", min=2, max=8)}}',
        block=_TIMM_BLOCK,
        init="self.patch_embed = Block()",
    ),
]

PAIRS: list[Program] = [
    Program(
        "pair-helper-other-file",
        "return self.e(x)",
        _PIXELS,
        _HEIGHT,
        fails=True,
        block=_PAIRS,
        init="self.e = Block()",
    ),
    Program(
        "pair-helper-other-file-patch-one",
        "return self.e(x)",
        _PIXELS,
        _HEIGHT,
        fails=False,
        block=_PAIRS,
        init="self.e = Block(patch_size=1)",
    ),
    Program(
        "pair-checked-helper-bound",
        "return self.e(x)",
        _PIXELS,
        _HEIGHT,
        fails=True,
        block=_PAIRS,
        top="from .blocks import CheckedEmbed",
        init="self.e = CheckedEmbed()",
    ),
    Program(
        "pair-helper-this-file",
        "return self.e(x)",
        _PIXELS,
        _HEIGHT,
        fails=True,
        top=_LOCAL_PAIRS,
        init="self.e = LocalEmbed()",
    ),
    Program(
        "pair-helper-this-file-patch-one",
        "return self.e(x)",
        _PIXELS,
        _HEIGHT,
        fails=False,
        top=_LOCAL_PAIRS,
        init="self.e = LocalEmbed(1)",
    ),
]

#: (program, mode) -> why xport-lint's verdict still differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    (
        "returned-lone-size",
        Mode.STRICT,
    ): "a lone formatted size (`f'{H}'`) returned: only joined strings are read",
}

BATCH = ProgramBatch("shapes16", {"formatted sizes": PROGRAMS, "project pairs": PAIRS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
