"""A switch a forward passes to a helper of the same file (xcit's `dropout_layers(self.layers,
dropout=self.layer_dropout)` with `layer_dropout=0.` by default, and `if dropout == 0: return
layers` in the helper): what follows the test runs only with another value, so its failures are
warnings that name the parameter and its randomness is info. The value is what every call of the
file passes: a literal, a default construction's `self.x`, a parent's own `__init__` default passed
on. Another value at any call, a construction with another value, a rebound parameter or the helper
used as a value keep the error. Measured on torch 2.13: each default-built module is exported
`.eval()` in both modes; it exports where the finding is a warning and fails where it stays an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

EARLY_RETURN = "    if dropout == 0:\n        return x\n    if x.sum() > 0:\n        x = x * 2\n    return x\n"
GUARDED = "    if dropout > 0:\n        if x.sum() > 0:\n            x = x * 2\n    return x\n"
NEGATED = "    if not dropout:\n        return x\n    if x.sum() > 0:\n        x = x * 2\n    return x\n"
REBOUND = "    dropout = dropout * 2\n" + EARLY_RETURN

TEMPLATE = """
import torch


def helper(x, dropout):
{helper}

class Block(torch.nn.Module):
    def __init__(self, dim, layer_dropout=0.):
        super().__init__()
        self.linear = torch.nn.Linear(dim, dim)
        {store}

    def forward(self, x):
        {call}
        return self.linear(x)


class Net(torch.nn.Module):
    def __init__(self, layer_dropout=0.):
        super().__init__()
        self.block = {build}

    def forward(self, x):
        return self.block(x)
{extra}"""

STORE = "self.layer_dropout = layer_dropout"
CALL = "x = helper(x, dropout=self.layer_dropout)"
BUILD = "Block(4, layer_dropout)"
SPELLINGS = {
    # (helper body, __init__'s store, forward's call, Net's construction, more code, a default export fails)
    "early-return": (EARLY_RETURN, STORE, CALL, BUILD, "", False),
    "guarded-body": (GUARDED, STORE, CALL, BUILD, "", False),
    "negated-test": (NEGATED, STORE, CALL, BUILD, "", False),
    "positional-argument": (EARLY_RETURN, STORE, "x = helper(x, self.layer_dropout)", BUILD, "", False),
    "literal-argument": (EARLY_RETURN, "", "x = helper(x, 0)", BUILD, "", False),
    "bound-to-a-name-first": (EARLY_RETURN, "rate = layer_dropout\n        self.layer_dropout = rate", CALL,
                              "Block(4, layer_dropout=layer_dropout)", "", False),
    "tuple-unpacking": (EARLY_RETURN, "self.dim, self.layer_dropout = dim, layer_dropout", CALL, BUILD, "", False),
    "through-a-second-helper": (EARLY_RETURN, STORE, "x = outer(x, self.layer_dropout)", BUILD,
                                "\n\ndef outer(x, rate):\n    return helper(x, dropout=rate)\n", None),
    # counter-spellings: the error stays
    "another-value-at-a-traced-call": (EARLY_RETURN, STORE, "x = helper(helper(x, 0.5), self.layer_dropout)", BUILD,
                                       "", True),
    # a call no export runs still counts (the file's calls are read, not the traced ones: the same
    # answer whatever order the calls are visited in)
    "another-value-at-an-untraced-call": (EARLY_RETURN, STORE, CALL, BUILD,
                                          "\n\ndef other(x):\n    return helper(x, 0.5)\n", None),
    "built-with-another-value": (EARLY_RETURN, STORE, CALL, "Block(4, 0.5)", "", True),
    "helper-used-as-a-value": (EARLY_RETURN, STORE, CALL, BUILD, "\n\nCHOSEN = {'a': 1}\n\n"
                               "def pick():\n    return helper\n", None),
    "parameter-rebound": (REBOUND, STORE, CALL, BUILD, "", None),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_a_switch_passed_to_a_helper(name: str, tmp_path: Path) -> None:
    body, store, call, build, extra, fails = SPELLINGS[name]
    source = TEMPLATE.format(helper=body, store=store or "pass", call=call, build=build, extra=extra)
    (found,) = [f for f in check_source(source, "model.py", Config()) if f.code == "XPT101"]
    error = fails is not False
    assert found.severity is (Severity.ERROR if error else Severity.WARNING), found.message
    assert ("only with another `dropout`" in found.message) == (not error)
    if fails is None:  # the engine cannot tell; what torch does is the default value's business
        return
    model = load(source, tmp_path).Net().eval()
    for strict in (False, True):
        try:
            torch.export.export(model, (torch.randn(2, 4),), strict=strict)
            exported = True
        except Exception:  # noqa: BLE001 - the failure's type is torch's business; that it fails is the fact
            exported = False
        assert exported is not fails, strict
