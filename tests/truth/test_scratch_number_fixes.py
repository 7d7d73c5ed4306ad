"""A number read from tensor data kept on `self` in `forward` and read only later in that call
(scratch state) gets XPT406's step, a local name, where the fixes after it then prove out: tested by
an `if` (negated too), as a `range` count, as a size, beside a default set in `__init__`. Entries of
a dict or list literal read only entry by entry get a step of XPT104 (tested) or XPT203 (a size),
a local per entry, the same way. Where the
local would still have no fix (a branch that appends to a list, a number also added to the output,
the attribute read by another method) no step is offered: the program stays without a fix, never
with one that fails. torch's outcome is checked in both modes; the fix proofs run non-strict."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
class Scratch(nn.Module):
    def __init__(self):
        super().__init__()
{init}
{methods}
    def forward(self, x, n):
{body}


def xport_example():
    return Scratch(), (torch.randn(4) * 3, torch.tensor(2))


def xport_inputs():
    return [(torch.rand(4) * 0.5, torch.tensor(3))]
"""


def _indented(code: str, depth: int) -> str:
    return "\n".join(" " * depth + line if line else line for line in code.splitlines())


#: (name, non-strict failure, strict failure, forward's body, __init__'s lines, other methods)
_SPELLINGS = [
    ("tested", "GuardOnDataDependentSymNode", "UserError",
     "self.peak = float(x.abs().max())\nif self.peak > 1.0:\n    return x / self.peak\nreturn x", "", ""),
    ("negated", "GuardOnDataDependentSymNode", "UserError",
     "self.big = bool(x.abs().max() > 1.0)\nif not self.big:\n    return x\nreturn x / 2", "", ""),
    ("arithmetic-on-the-read", "GuardOnDataDependentSymNode", "UserError",
     "self.low = -x.abs().max().item()\nif self.low < -1.0:\n    return x * 2\nreturn x", "", ""),
    ("range-count", "GuardOnDataDependentSymNode", "UserError",
     "self.level = int(n)\nfor _ in range(self.level):\n    x = x * 0.5\nreturn x", "", ""),
    ("size", "GuardOnDataDependentSymNode", None,
     "self.copies = int(n)\nreturn x.repeat(self.copies)", "", ""),
    ("default-set-in-init", "GuardOnDataDependentSymNode", "UserError",
     "self.peak = float(x.abs().max())\ny = x * 2\nif self.peak > 1.0:\n    y = y / self.peak\nreturn y",
     "self.peak = 0.0", ""),
    ("branch-appends-to-a-list", "GuardOnDataDependentSymNode", "UserError",
     "self.peak = x.abs().max().item()\nout = []\nif self.peak > 1.0:\n    out.append(x / self.peak)\n"
     "else:\n    out.append(x)\nreturn out[0]", "", ""),
    ("also-added-to-the-output", "GuardOnDataDependentSymNode", "UserError",
     "self.peak = float(x.abs().max())\ny = x * 2\nif self.peak > 1.0:\n    y = y / self.peak\nreturn y + self.peak",
     "", ""),
    ("read-by-another-method", "GuardOnDataDependentSymNode", "UserError",
     "self.level = x.sigmoid().mean().item()\nif self._hot():\n    return x - 1\nreturn x", "",
     "def _hot(self):\n    return self.level > 0.5\n"),
    ("dict-entries-tested", "GuardOnDataDependentSymNode", "UserError",
     "stats = {'hi': x.max().item(), 'lo': x.min().item()}\nif stats['hi'] - stats['lo'] > 1.0:\n"
     "    return x / (stats['hi'] - stats['lo'])\nreturn x", "", ""),
    ("list-entry-negated", "GuardOnDataDependentSymNode", "UserError",
     "seen = [x.abs().max().item(), 0.0]\nif not seen[0] <= 1.0:\n    return x / seen[0]\nreturn x", "", ""),
    ("dict-entry-as-a-while-limit", "GuardOnDataDependentSymNode", "UserError",
     "cfg = {'limit': n.item()}\ni = 0\nwhile i < cfg['limit']:\n    x = x * 0.9\n    i += 1\nreturn x", "", ""),
    ("dict-entry-as-a-size", "GuardOnDataDependentSymNode", None,
     "cfg = {'reps': int(n)}\nreturn x.repeat(cfg['reps'])", "", ""),
    ("list-entry-as-a-size", "GuardOnDataDependentSymNode", None,
     "sizes = [int(n.item()), 4]\nreturn torch.cat([x, x.new_zeros(sizes[0])])", "", ""),
    ("dict-also-read-whole", "GuardOnDataDependentSymNode", "UserError",
     "stats = {'hi': x.max().item()}\nif stats['hi'] > 1.0:\n    return x / len(stats)\nreturn x", "", ""),
    ("dict-entry-written-after", "GuardOnDataDependentSymNode", "UserError",
     "stats = {'hi': x.max().item()}\nstats['hi'] = stats['hi'] * 2\nif stats['hi'] > 1.0:\n    return x / 2\n"
     "return x", "", ""),
]
for name, non_strict, strict, body, init, methods in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(
        body=_indented(body, 8), init=_indented(init or "pass", 8), methods=_indented(methods, 4)))

NO_FIX = {
    "branch-appends-to-a-list": "as a local, the branch appends to a list, which a torch.cond branch cannot",
    "also-added-to-the-output": "as a local, the number is read after the `if` too (the output adds it), so the"
    " tensor it is read from is not bound in its place",
    "read-by-another-method": "another method reads the attribute: it is not this call's scratch state",
    "dict-also-read-whole": "the dict is read whole (`len(stats)`), not only entry by entry",
    "dict-entry-written-after": "an entry is written after the literal: it no longer holds the literal's value",
}

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
