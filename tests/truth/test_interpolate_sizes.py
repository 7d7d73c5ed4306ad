"""A size turned into a float and back (`int(h / 2)`, `math.floor`, `round`, `math.ceil`) as
`F.interpolate`'s `size=`: torch 2.13 guards an interpolated output size to be at least 2, in both
modes, so it fails where the result can be 0 or 1 over the declared range; past that, strict export
keeps the size symbolic and exports, while non-strict export still fails on `int()` of a float
(Python asks the float for an int). XPT303 called every such size an error in strict mode too
(a held-out probe's false error: a UNet's `size = (int(h / 2), int(w / 2))`). Every outcome was
measured on a (1, 3, 32, 32) input with dims 2 and 3 declared `Dim(min=lo, max=512)`, and torch must
still agree."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import math\nfrom torch.export import Dim")


def case(name: str, non_strict: str | None, strict: str | None, size: str, low: int, inline: bool = False) -> None:
    """`size` (written with `{v}` for the size) for both spatial dims, bound to a tuple first or inline."""
    pair = f"({size.format(v='h')}, {size.format(v='w')})"
    body = f"return F.interpolate(x, size={pair}, mode=\"bilinear\", align_corners=False)" if inline else (
        f"size = {pair}\n        return F.interpolate(x, size=size, mode=\"bilinear\", align_corners=False)")
    CASES.case(name, non_strict, strict, f"""
class Resize(nn.Module):
    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        {body}


def xport_example():
    dims = {{2: Dim("h", min={low}, max=512), 3: Dim("w", min={low}, max=512)}}
    return {{"model": Resize(), "args": (torch.randn(1, 3, 32, 32),), "dynamic_shapes": {{"x": dims}}}}
""")


case("int-half-min-4", "UserError", None, "int({v} / 2)", 4)
case("int-half-min-4-inline", "UserError", None, "int({v} / 2)", 4, inline=True)
case("int-times-half-min-4", "UserError", None, "int({v} * 0.5)", 4)
case("floor-half-min-4", None, None, "math.floor({v} / 2)", 4)
case("round-half-min-4", None, None, "round({v} / 2)", 4)
case("int-half-min-2", "UserError", "UserError", "int({v} / 2)", 2)
case("floor-half-min-2", "UserError", "UserError", "math.floor({v} / 2)", 2)
case("round-half-min-2", "UserError", "UserError", "round({v} / 2)", 2)
case("ceil-quarter-min-4", "UserError", "UserError", "math.ceil({v} / 4)", 4)
case("int-quarter-min-4", "UserError", "UserError", "int({v} / 4)", 4)

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
