"""Every fix of every flagged example is proven with real torch (see harness.py): it parses,
re-lints clean, is idempotent, touches only the flagged function, exports, and matches eager on
the example inputs and on inputs that take the other branch or size."""

from __future__ import annotations

import pytest

from tests.conftest import all_cases
from tests.truth.harness import prove
from xport_lint.analyzers.rule import Invalid, Rule
from xport_lint.analyzers.versions import installed, parse

#: the torch the proofs export with: a fix is proven where its example holds
INSTALLED = parse(installed() or "")

pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def fixed_cases() -> list[object]:
    return [
        pytest.param(rule, case, id=name)
        for rule, case, name in all_cases()
        if isinstance(case, Invalid) and case.replacement is not None and INSTALLED in case.torch_versions
    ]


def test_at_least_25_fixable_examples() -> None:
    assert len(fixed_cases()) >= 25


@pytest.mark.parametrize(("rule", "case"), fixed_cases())
def test_fix_is_proven(rule: type[Rule], case: Invalid) -> None:
    problem = prove(rule, case)
    assert problem is None, problem
