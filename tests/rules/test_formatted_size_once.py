"""One text built from several dynamic sizes is one XPT309 finding, whatever the spelling: the
failure is the expression's, and a second finding on the same line would only repeat it."""

from __future__ import annotations

import textwrap

import pytest

from xport_lint.analyzers import Config, check_source

_MODEL = """
import torch
from torch.export import Dim
class Tiles(torch.nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H % 8 == 0, {text})
        return x * 2
def export():
    shapes = {{"x": {{2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}}}}
    return torch.export.export(Tiles(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=shapes, strict=True)
"""


@pytest.mark.parametrize(
    "text", ['"%d x %d" % (H, W)', '"%i by %s" % (H, W)', 'f"{H}x{W}"', 'f"{H:d}{W:d}"', '"size %s %s" % (H, W)']
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_text_of_two_dynamic_sizes_is_one_finding(text: str, strict: bool) -> None:
    source = textwrap.dedent(_MODEL.format(text=text))
    findings = [f for f in check_source(source, "tiles.py", Config(strict=strict)) if f.code == "XPT309"]
    assert len(findings) <= 1
