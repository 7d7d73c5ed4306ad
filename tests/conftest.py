"""Shared helpers: every rule's examples, as pytest parameters."""

from __future__ import annotations

import pytest

from xport_lint.analyzers import registry
from xport_lint.analyzers.rule import Invalid, Rule, Valid


def all_cases() -> list[tuple[type[Rule], Valid | Invalid, str]]:
    cases: list[tuple[type[Rule], Valid | Invalid, str]] = []
    for code, rule in registry.RULES.items():
        cases += [(rule, case, f"{code}-valid-{i}") for i, case in enumerate(rule.VALID)]
        cases += [(rule, case, f"{code}-invalid-{i}") for i, case in enumerate(rule.INVALID)]
    return cases


def case_params() -> list[object]:
    return [pytest.param(rule, case, id=name) for rule, case, name in all_cases()]


def invalid_params() -> list[object]:
    return [pytest.param(rule, case, id=name) for rule, case, name in all_cases() if isinstance(case, Invalid)]
