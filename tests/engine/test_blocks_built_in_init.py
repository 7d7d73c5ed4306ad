"""A class another module class of the file builds in `__init__` is a block: its `forward`'s
arguments after the first come from the parent's call, not from an export's example, however the
parent adds it (demucs' HDemucs: `dec = HDecLayer(...)`, then `self.decoder.insert(0, dec)`, and
`decode(x, skip, lengths.pop(-1))` of a list of `x.shape[-1]`). So `assert z.shape[-1] == length`
compares sizes, no tensor: no error. A block argument the body uses as a tensor (`mask.any()`)
stays one. Measured on torch 2.13: each parent exports in both modes where nothing is reported,
and fails both where the error stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import exports, load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

TEMPLATE = """
import torch
from torch import nn


class Dec(nn.Module):
    def __init__(self, pad=1):
        super().__init__()
        self.conv_tr = nn.ConvTranspose1d(4, 4, 4, 2)
        self.pad = pad

    def forward(self, x, skip, length):
        z = self.conv_tr(x + skip)
        z = z[..., self.pad:self.pad + length]
{check}
        return z


class Net(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.encoder = nn.ModuleList()
        self.decoder = nn.ModuleList()
        for _ in range(depth):
            self.encoder.append(nn.Conv1d(4, 4, 4, 2, 1))
{add}

    def forward(self, mix):
        x = mix
        saved, lengths = [], []
        for encode in self.encoder:
            lengths.append(x.shape[-1])
            x = encode(x)
            saved.append(x)
        x = torch.zeros_like(x)
        for decode in self.decoder:
{call}
        return x
"""

SIZE_CHECK = "        assert z.shape[-1] == length, (z.shape[-1], length)"
LOCAL_THEN_INSERT = "            dec = Dec()\n            self.decoder.insert(0, dec)"
POPPED_INLINE = "            x = decode(x, saved.pop(-1), lengths.pop(-1))"
SPELLINGS = {
    # (the check in Dec.forward, how Net adds the Dec, how Net calls it, whether an error stays)
    "local-then-insert": (SIZE_CHECK, LOCAL_THEN_INSERT, POPPED_INLINE, False),
    "append-directly": (SIZE_CHECK, "            self.decoder.append(Dec())", POPPED_INLINE, False),
    "bound-to-names-first": (
        SIZE_CHECK, LOCAL_THEN_INSERT,
        "            skip, length = saved.pop(-1), lengths.pop(-1)\n            x = decode(x, skip, length)", False,
    ),
    "negated-check": ("        if not z.shape[-1] == length:\n            raise ValueError(length)", LOCAL_THEN_INSERT,
                      POPPED_INLINE, False),
    # counter-spelling: the argument after the first is used as a tensor, and the parent passes one
    "tensor-argument": (
        "        if length.any():\n            z = z * 2", LOCAL_THEN_INSERT,
        "            x = decode(x, saved.pop(-1), (x > 0).float())", True,
    ),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_the_arguments_a_parent_passes_its_block(name: str, tmp_path: Path) -> None:
    check, add, call, error = SPELLINGS[name]
    source = TEMPLATE.format(check=check, add=add, call=call)
    if name == "tensor-argument":  # `length` is a mask there: slice by the input's own size
        source = source.replace("z[..., self.pad:self.pad + length]", "z[..., self.pad:self.pad + x.shape[-1] * 2]")
    found = [f for f in check_source(source, "model.py", Config()) if f.severity is Severity.ERROR]
    assert bool(found) is error, [f.message for f in found]
    module = load(source, tmp_path)
    for strict in (False, True):
        assert exports(module.Net().eval(), (torch.randn(1, 4, 64),), strict) is not error, strict
