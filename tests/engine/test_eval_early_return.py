"""`if self.prob == 0 or (self.disable_on_eval and self.training is False): return ...` (torchtune's
LayerDropout, `disable_on_eval=True` by default): an eval export returns there whatever `prob` is,
so the data-dependent selection after it runs only in training mode or with the switch off. Its
failure is a warning that names the switch, in every spelling of the training test, built
directly or through a builder function of the file that passes its own default on. Built with the
switch off (by a parent, or by a builder call of the file) the error stays. Measured on torch 2.13:
each model is exported `.eval()` in both modes and exports where the finding is a warning (and
fails with `disable_on_eval=False`), fails where it stays an error."""

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


class LayerDropout(torch.nn.Module):
    def __init__(self, prob=0.0, disable_on_eval=True):
        super().__init__()
        self.prob = prob
        self.disable_on_eval = disable_on_eval

    def forward(self, x):
        if {test}:
            return x * 2
        skip = torch.bernoulli(torch.full((x.shape[0],), self.prob))
        selected = (skip == 0).nonzero().squeeze()
        out = x.clone()
        if selected.numel() > 0:
            out[selected] = x[selected] * 2
        return out


def build(prob_max=0.5, disable_on_eval=True):
    return LayerDropout(prob_max / 2, disable_on_eval=disable_on_eval)
{extra}"""

OR_NOT_TRAINING = "self.prob == 0 or (self.disable_on_eval and self.training is False)"
BUILT = "\n\ndef built():\n    return build({arguments})\n"

SPELLINGS = {
    # (the early return's test, what the file adds, whether the finding stays an error)
    "is-false": (OR_NOT_TRAINING, "", False),
    "not-training": ("self.prob == 0 or (self.disable_on_eval and not self.training)", "", False),
    "equals-false": ("self.disable_on_eval and self.training == False or self.prob == 0", "", False),  # noqa: E712
    "built-with-the-default": (OR_NOT_TRAINING, BUILT.format(arguments="0.8"), False),
    # counter-spellings
    "built-with-the-switch-off": (OR_NOT_TRAINING, BUILT.format(arguments="0.8, disable_on_eval=False"), True),
    "parent-turns-it-off": (
        OR_NOT_TRAINING,
        "\n\nclass Parent(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.drop = LayerDropout(0.5, disable_on_eval=False)\n\n    def forward(self, x):\n"
        "        return self.drop(x)\n",
        True,
    ),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_what_follows_an_eval_return_the_default_takes(name: str, tmp_path: Path) -> None:
    test, extra, error = SPELLINGS[name]
    source = TEMPLATE.format(test=test, extra=extra)
    found = [f for f in check_source(source, "model.py", Config()) if f.code == "XPT105"]
    assert len(found) == 1, name
    assert found[0].severity is (Severity.ERROR if error else Severity.WARNING), found[0].message
    assert ("only with `disable_on_eval=False`" in found[0].message) is not error, found[0].message
    module = load(source, tmp_path)
    args = (torch.randn(4, 3),)
    switched_off = module.LayerDropout(0.5, disable_on_eval=False).eval()
    for strict in (False, True):
        # built with `prob > 0` (so only the training test returns): the default eval module exports
        assert exports(module.build().eval(), args, strict), strict
        assert not exports(switched_off, args, strict), strict
