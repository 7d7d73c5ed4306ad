"""`flag = self.switch and <rest>` (x-transformers' `cond_on_distance = self.cond_on_distance and
(random() < p)`, `cond_on_distance=False` by default): a default export stops at the switch, so
<rest> and what `if flag:` guards run only with the switch on. Their failures are warnings that
name the switch and their randomness is info. A switch on by default, an `or`, or a flag bound
twice keeps the error. Measured on torch 2.13: each default-built module is exported `.eval()` in
both modes and exports where the finding is a warning (and fails built with the switch on), fails
where it stays an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

TEMPLATE = """
import torch


class M(torch.nn.Module):
    def __init__(self, cond={default}, p=2.0):
        super().__init__()
        self.cond = cond
        self.p = p

    def forward(self, x):
{body}
        return x
"""

GUARDED = "            if x.sum() > 0:\n                x = x * 2\n"
SPELLINGS = {
    # (forward's body, the default of `cond`, whether the finding stays an error)
    "flag-then-if": ("        flag = self.cond and x.mean() < self.p\n        if flag:\n" + GUARDED, False, False),
    "flag-then-if-and": ("        flag = self.cond and x.mean() < self.p\n        if flag and x.sum() > 0:\n"
                         "            x = x * 2\n", False, False),
    "assignment-reads-data": ("        flag = self.cond and bool(x.max() > 0)\n        x = x * 2 if flag else x\n",
                              False, False),
    "annotated-assignment": ("        flag: bool = self.cond and bool(x.max() > 0)\n        x = x * 2 if flag else x\n",
                             False, False),
    # counter-spellings
    "switch-on-by-default": ("        flag = self.cond and x.mean() < self.p\n        if flag:\n" + GUARDED, True, True),
    "or-reads-data": ("        flag = self.cond or bool(x.max() > 0)\n        x = x * 2 if flag else x\n", False, True),
    "flag-bound-twice": ("        flag = self.cond and x.mean() < self.p\n        flag = flag or x.numel() > 3\n"
                         "        if flag:\n" + GUARDED, False, True),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_a_flag_bound_to_a_switch_and_more(name: str, tmp_path: Path) -> None:
    body, default, error = SPELLINGS[name]
    source = TEMPLATE.format(default=default, body=body)
    found = [f for f in check_source(source, "model.py", Config()) if f.code in ("XPT101", "XPT104", "XPT203")]
    assert found, name
    first = min(found, key=lambda f: f.span.start.line)
    assert first.severity is (Severity.ERROR if error else Severity.WARNING), first.message
    # the later findings follow the first failure (a warning that says so) or name the switch
    assert all(("only with `cond=True`" in f.message) != error for f in found)
    module = load(source, tmp_path)
    # a warning: the default exports and the switch it names fails; an error: the default fails
    for strict in (False, True):
        for switch_on in (False, True) if not error else (False,):
            model = (module.M(cond=True) if switch_on else module.M()).eval()
            try:
                torch.export.export(model, (torch.randn(2, 4),), strict=strict)
                exported = True
            except Exception:  # noqa: BLE001 - the failure's type is torch's business; that it fails is the fact
                exported = False
            assert exported is not (error or switch_on), (strict, switch_on)
