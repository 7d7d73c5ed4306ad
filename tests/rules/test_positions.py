"""Every reported range covers exactly the code its message names: positions come from the
node, never from the first text that looks like it (`for step in range(n)` once pointed at the
`n` of `in`). Checked over every rule's examples, and on text built to mislead a text search."""

from __future__ import annotations

import re

import pytest

from tests.conftest import invalid_params
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.positions import split_lines
from xport_lint.analyzers.rule import Invalid, Rule

EVERYTHING = Config(select=("ALL",))
# messages that name something else than the flagged code: the model class or input an export
# call is about (XPT5xx), the qualified name of a custom op (XPT409)
NAMES_ANOTHER_THING = ("XPT5", "XPT409")
NAMED = re.compile(r"`([^`]+)`")


def covered(source: str, start: tuple[int, int], end: tuple[int, int]) -> str:
    lines = split_lines(source)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return source[offsets[start[0] - 1] + start[1] : offsets[end[0] - 1] + end[1]]


@pytest.mark.parametrize(("rule", "case"), invalid_params())
def test_a_range_covers_the_code_its_message_names(rule: type[Rule], case: Invalid) -> None:
    for finding in check_source(case.source, "example.py", EVERYTHING):
        named = [n for n in NAMED.findall(finding.message) if "…" not in n]  # "…": cut short
        if not named or finding.code.startswith(NAMES_ANOTHER_THING):
            continue
        text = covered(case.source, (finding.span.start.line, finding.span.start.column),
                       (finding.span.end.line, finding.span.end.column))
        assert text in named, (
            f"{finding.code} at {finding.span}: covers {text!r}, message names {named}"
        )


@pytest.mark.parametrize(
    ("source", "code", "expected"),
    [
        ("n = x.sum().item()\n        for step in range(n):\n            x = x + 1", "XPT201", "n"),
        ("t = x.max().item()\n        for step in range(t):\n            x = x + 1", "XPT201", "t"),
        ("b = x.sum() > 0\n        y = x if b else -x\n        x = y", "XPT101", "b"),
        ("if (x.sum()\n                > 0):\n            x = x + 1", "XPT101", "x.sum()\n                > 0"),
    ],
    ids=["range-n", "range-t", "ternary-named-like-an-earlier-word", "multi-line-test"],
)
def test_text_that_repeats_earlier_in_the_statement_does_not_mislead(source: str, code: str, expected: str) -> None:
    model = f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        {source}\n        return x\n"
    (finding,) = [f for f in check_source(model, "m.py", EVERYTHING) if f.code == code]
    text = covered(model, (finding.span.start.line, finding.span.start.column),
                   (finding.span.end.line, finding.span.end.column))
    assert text == expected
