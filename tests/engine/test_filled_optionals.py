"""A parameter defaulting to None that the function fills in first (`if homography is None:
homography = estimate(...)`, kornia's `_degensac_recover`) is no longer what the caller passed:
a later `homography is not None` test, or the code after `if homography is None: return`, runs
on a default export, so a failure there is an error, not a warning "only when `homography` is
passed". A test that runs before the fill, or a "fill" that may leave None, keeps the warning,
and so does `if not h:` itself (a tensor read only when `h` is passed; it was an error).
Measured on torch 2.13, both modes: the error spellings fail the default export; the warning
spellings export by default and fail with the argument passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

TEMPLATE = """
from typing import Optional

import torch


def estimate(x):
    return x * 2


def recover(x, h: Optional[torch.Tensor]):
    if h is None:
        h = estimate(x)
    if h is None:
        return x
    if h.sum() > 0:
        x = x * 2
    return x


class M(torch.nn.Module):
    def guess(self, x):
        return estimate(x), x

    def forward(self, x, h=None):
{body}
        return x
"""

READ = "            if h.sum() > 0:\n                x = x * 2\n"
GUARDED = "        if h is not None:\n" + READ
AFTER_RETURN = "        if h is None:\n            return x\n        if h.sum() > 0:\n            x = x * 2\n"
SPELLINGS = {
    # (forward's body, whether the data read is an error)
    "if-none-fill-then-guard": ("        if h is None:\n            h = estimate(x)\n" + GUARDED, True),
    "if-none-fill-then-return": ("        if h is None:\n            h = estimate(x)\n" + AFTER_RETURN, True),
    "if-not-fill": ("        if not h:\n            h = x * 2\n" + GUARDED, True),
    "or-fill": ("        h = h or estimate(x)\n" + GUARDED, True),
    "annotated-helper-parameter": ("        x = recover(x, None)\n", True),
    "ternary-fill": ("        h = estimate(x) if h is None else h\n" + GUARDED, True),
    "ternary-fill-negated": ("        h = h if h is not None else x + 1\n" + AFTER_RETURN, True),
    "method-fill-unpacked": ("        if h is None:\n            h, _ = self.guess(x)\n" + GUARDED, True),
    # counter-spellings: the argument stays optional
    "no-fill": (GUARDED, False),
    "if-not-return": ("        if not h:\n            return x\n" + "        if h.sum() > 0:\n            x = x * 2\n", False),
    "helper-parameter-no-fill": ("        if h is not None:\n            x = recover(x, h)\n", False),
    "read-before-fill": (GUARDED + "        if h is None:\n            h = estimate(x)\n", False),
    # a setting, not a computed value: transformers' `output_attentions if output_attentions is not
    # None else self.config.output_attentions` stays off by default
    "ternary-from-a-setting": ('        h = h if h is not None else getattr(self, "cached", None)\n' + GUARDED, False),
    "ternary-keeps-none": ("        h = h * 2 if h is not None else None\n" + GUARDED, False),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_an_optional_filled_in_first(name: str, tmp_path: Path) -> None:
    body, error = SPELLINGS[name]
    source = TEMPLATE.format(body=body)
    found = [f for f in check_source(source, "model.py", Config()) if "`h.sum() > 0`" in f.message]
    assert len(found) == 1, (name, found)
    # `if not h:` itself reads a tensor only when `h` is passed
    assert all(f.severity is Severity.WARNING for f in check_source(source, "model.py", Config())
               if "tensor value `h`:" in f.message)
    assert found[0].severity is (Severity.ERROR if error else Severity.WARNING), found[0].message
    assert ("only when `h` is passed" in found[0].message) is not error, found[0].message
    module = load(source, tmp_path)
    for strict in (False, True):
        for passed in (False, True) if not error else (False,):
            args = (torch.randn(2, 4), torch.randn(2, 4)) if passed else (torch.randn(2, 4),)
            try:
                torch.export.export(module.M().eval(), args, strict=strict)
                exported = True
            except Exception:  # noqa: BLE001 - the failure's type is torch's business; that it fails is the fact
                exported = False
            assert exported is not (error or passed), (strict, passed)
