"""A conditional expression choosing between two numbers on a test read from data (XPT101/XPT104)
is fixed with `torch.where` only where the number chosen is an operand of arithmetic with a
tensor, however it gets there (written in place, bound to a name, an element of a tuple): a
0-dim tensor computes the same there. Where the number is a count or a size (`x.chunk(parts)`,
`range(n)`), `torch.where` would hand a tensor where Python needs a number (measured on torch
2.13: `x.chunk(torch.where(c, 2, 1))` fails both modes), so no fix is offered and the finding
says why. Each spelling is a case of its own, torch 2.13's outcome checked in both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.runner import NO_FIX as NO_FIX_NOTE

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
class Chosen(nn.Module):
    def forward(self, x, level):
{body}


def xport_example():
    return Chosen(), (torch.randn(2, 4), torch.tensor(0.7))


def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor(0.2))]
"""

#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("factor-in-place", "return x * (2.0 if bool(level > 0.5) else 0.5)",
     "GuardOnDataDependentSymNode", "UserError"),
    ("factor-bound-to-a-name", "scale = 2.0 if level > 0.5 else 0.5\nreturn x * scale",
     "GuardOnDataDependentSymNode", "Unsupported"),
    ("factor-unpacked-from-a-tuple", "scale, shift = (2.0 if level > 0.5 else 0.5), 1.0\nreturn x * scale + shift",
     "GuardOnDataDependentSymNode", "Unsupported"),
    ("factor-on-the-left-negated", "scale = 0.5 if not bool(level > 0.5) else 2.0\nreturn scale * x",
     "GuardOnDataDependentSymNode", "UserError"),
    ("count-in-place", "return x.chunk(2 if bool(level > 0.5) else 1, dim=-1)[0]",
     "GuardOnDataDependentSymNode", "UserError"),
    ("count-bound-to-a-name", "parts = 2 if level > 0.5 else 1\nreturn torch.cat(x.chunk(parts, dim=-1))",
     "GuardOnDataDependentSymNode", "Unsupported"),
    ("count-of-a-range", "n = 3 if bool(level > 0.5) else 1\nfor _ in range(n):\n    x = x * 0.5\nreturn x",
     "GuardOnDataDependentSymNode", "UserError"),
    ("factor-also-used-as-a-count", "n = 2 if level > 0.5 else 1\nreturn x.repeat(1, n) * n",
     "GuardOnDataDependentSymNode", "Unsupported"),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

#: a number chosen where Python needs one: no fix, and the finding says why
NO_FIX = {name: "the number chosen is a count or a size" for name, *_ in _SPELLINGS if name.startswith("count")}
NO_FIX["factor-also-used-as-a-count"] = "the number chosen is a size too"

BATCH = CaseBatch(CASES, {}, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()


@pytest.mark.parametrize("case", [c for c in CASES if c.name in NO_FIX], ids=lambda c: c.name)
def test_a_number_used_as_a_count_says_why_there_is_no_fix(case: object) -> None:
    found = [f for f in check_source(case.source, "model.py", Config()) if f.code in ("XPT101", "XPT104")]  # type: ignore[attr-defined]
    reasons = [[r.message for r in f.related if r.message.startswith(NO_FIX_NOTE)] for f in found]
    assert found and all(r and "used as a Python number" in r[0] for r in reasons), reasons
