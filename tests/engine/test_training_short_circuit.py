"""A training check that short-circuits a boolean expression: `not self.training or <rest>` and
`self.training and <rest>` decide an eval export's value before <rest> runs, so a data read in
<rest> is no error there (measured on torch 2.13, eval modules, both modes: the `if`, the flag
bound to a name first, and the `and` flag export; `(not self.training or p) and x.sum() > 0`
fails, GuardOnDataDependentSymNode non-strict, Unsupported strict)."""

from __future__ import annotations

import textwrap

import pytest

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

HEAD = """
import random
import torch
class Drop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
        self.p = 0.1
"""

SHORT_CIRCUITED = {
    "or in an if": """
    def forward(self, x):
        keep = torch.rand(len(self.layers))
        for i, layer in enumerate(self.layers):
            if not self.training or self.p == 0.0 or keep[i] > self.p:
                x = layer(x)
        return x
""",
    "or bound to a name first": """
    def forward(self, x):
        keep = torch.rand(len(self.layers))
        for i, layer in enumerate(self.layers):
            run = not self.training or keep[i] > self.p
            if run:
                x = layer(x)
        return x
""",
    "and bound to a name first": """
    def forward(self, x):
        drop = self.training and random.random() < self.p and bool(x.sum() > 0)
        if drop:
            return x
        return self.layers[0](x)
""",
    "returned by a helper method": """
    def _runs(self, keep, i):
        return not self.training or keep[i] > self.p
    def forward(self, x):
        keep = torch.rand(len(self.layers))
        for i, layer in enumerate(self.layers):
            if self._runs(keep, i):
                x = layer(x)
        return x
""",
    "negated or": """
    def forward(self, x):
        keep = torch.rand(len(self.layers))
        for i, layer in enumerate(self.layers):
            if not (not self.training or keep[i] > self.p):
                continue
            x = layer(x)
        return x
""",
}


def _errors(code: str, strict: bool) -> list[str]:
    found = check_source(textwrap.dedent(HEAD) + textwrap.indent(textwrap.dedent(code), "    "), "model.py",
                         Config(strict=strict))
    return [f"{f.span.start.line}:{f.code}" for f in found if f.severity is Severity.ERROR]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("spelling", sorted(SHORT_CIRCUITED))
def test_a_data_read_after_a_training_short_circuit_is_no_error(spelling: str, strict: bool) -> None:
    assert _errors(SHORT_CIRCUITED[spelling], strict) == []


@pytest.mark.parametrize("strict", [False, True])
def test_a_data_read_after_the_short_circuit_group_still_runs_in_eval(strict: bool) -> None:
    code = """
    def forward(self, x):
        if (not self.training or self.p > 0) and x.sum() > 0:
            return x
        return -x
"""
    assert _errors(code, strict)
