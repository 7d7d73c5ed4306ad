"""`self.ignore_label is None or num_fg > 0` with `ignore_label=None` by default (nnunet's compound
losses), `self.check and x.sum() > 0` with `check=False`: the default configuration decides the
left operand, so a default export never evaluates the right one, which reads data only with
another configuration. Its failure is a warning that names the switch, in every spelling: inline,
bound to a name first, nested in another `and`, negated, through a method of the class. A left
operand the default does not decide (`is not None or ...`), or a class the file builds with
another value, keeps the error. Measured on torch 2.13: each default-built module is exported
`.eval()` in both modes and exports where the finding is a warning (and fails built with the
switch flipped), fails where it stays an error."""

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


class M(torch.nn.Module):
    def __init__(self, weight=1, label=None):
        super().__init__()
        self.weight = weight
        self.label = label

    def _unlabelled(self):
        return self.label is None

    def forward(self, x):
        num_fg = (x > 0).sum()
{body}
        return x
{parent}"""

PARENT = """

class Parent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = M(label=3)

    def forward(self, x):
        return self.loss(x)
"""

SPELLINGS = {
    # (forward's body, whether the finding stays an error)
    "inline": ("        x = x * 2 if self.weight != 0 and (self.label is None or num_fg > 0) else x\n", False),
    "bound-first": ("        use = self.label is None or num_fg > 0\n        if use:\n            x = x * 2\n", False),
    "and-switch-off": ("        if x.shape[0] > 1 and (self.label is not None and num_fg > 0):\n"
                       "            x = x * 2\n", False),
    "negated": ("        x = x * 2 if not self.label or num_fg > 0 else x\n", False),
    "through-a-method": ("        x = x * 2 if self._unlabelled() or num_fg > 0 else x\n", False),
    # counter-spellings
    "left-false-by-default": ("        x = x * 2 if self.label is not None or num_fg > 0 else x\n", True),
    "built-with-a-label": ("        x = x * 2 if self.label is None or num_fg > 0 else x\n", True),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_an_operand_the_default_configuration_never_evaluates(name: str, tmp_path: Path) -> None:
    body, error = SPELLINGS[name]
    source = TEMPLATE.format(body=body, parent=PARENT if name == "built-with-a-label" else "")
    found = [f for f in check_source(source, "model.py", Config()) if f.code == "XPT101"]
    assert len(found) == 1, name
    assert found[0].severity is (Severity.ERROR if error else Severity.WARNING), found[0].message
    assert ("label" in found[0].message) is not error, found[0].message  # the warning names the switch
    module = load(source, tmp_path)
    args = (torch.randn(2, 4),)
    default = (module.Parent() if name == "built-with-a-label" else module.M()).eval()
    for strict in (False, True):
        assert exports(default, args, strict) is not error, strict
        if not error:  # the configuration the message names evaluates the data test
            assert not exports(module.M(label=3).eval(), args, strict), strict
