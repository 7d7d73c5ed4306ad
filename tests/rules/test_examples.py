"""Each rule's examples are its tests: INVALID lines are flagged (and only those), VALID code
is not, and a fix produces exactly `expected_replacement`, idempotently."""

from __future__ import annotations

import pytest

from tests.conftest import case_params, invalid_params
from xport_lint.analyzers import Config, check_source, registry
from xport_lint.analyzers.fixes import apply_fixes
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.rule import REQUIRED_HEADINGS, Invalid, Rule, Valid
from xport_lint.analyzers.versions import show


def judged_for(case: Valid | Invalid) -> Config:
    """Every rule, for the first torch version the example holds for (a fact that changed)."""
    return Config(select=("ALL",), target_torch=show(case.torch_versions.first))


@pytest.mark.parametrize(("rule", "case"), case_params())
def test_flags_exactly_the_marked_lines(rule: type[Rule], case: Valid | Invalid) -> None:
    findings = [f for f in check_source(case.source, "example.py", judged_for(case)) if f.code == rule.CODE]
    expected = case.expected_lines(rule.CODE) if isinstance(case, Invalid) and not rule.CONFIRMATION_ONLY else []
    assert sorted({f.span.start.line for f in findings}) == expected


@pytest.mark.parametrize(("rule", "case"), invalid_params())
def test_fix_gives_expected_replacement(rule: type[Rule], case: Invalid) -> None:
    findings = [f for f in check_source(case.source, "example.py", judged_for(case)) if f.code == rule.CODE]
    fixed = apply_fixes(case.source, findings, unsafe=True)
    if case.replacement is None:
        assert all(f.fix is None for f in findings), "a fix without an expected_replacement"
        return
    assert fixed == case.replacement
    again = [f for f in check_source(fixed, "example.py", judged_for(case)) if f.code == rule.CODE]
    assert apply_fixes(fixed, again, unsafe=True) == fixed, "fix is not idempotent"
    assert not [f for f in again if f.fix is not None]


@pytest.mark.parametrize("rule", registry.RULES.values(), ids=list(registry.RULES))
def test_rule_is_documented_and_exemplified(rule: type[Rule]) -> None:
    assert rule.CODE.startswith("XPT") and len(rule.CODE) == 6
    assert rule.VALID and rule.INVALID
    doc = rule.doc()
    for heading in REQUIRED_HEADINGS:
        assert heading in doc, f"{rule.CODE} doc lacks {heading!r}"
    assert rule.SEVERITY is not None or rule.STRICT_SEVERITY is not None


def test_names_are_unique() -> None:
    names = [r.NAME for r in registry.RULES.values()]
    assert len(names) == len(set(names))


def test_at_least_forty_examples() -> None:
    assert sum(len(r.VALID) + len(r.INVALID) for r in registry.RULES.values()) >= 40


@pytest.mark.parametrize("rule", registry.RULES.values(), ids=list(registry.RULES))
def test_an_error_says_what_torch_raises(rule: type[Rule]) -> None:
    """Where a rule says error, it says with which exception (the truth harness compares it with
    torch's), except XPT000, whose error is the linter's own (the file does not parse)."""
    for mode in Mode:
        if rule.severity(mode) is Severity.ERROR and rule.CODE != "XPT000":
            assert rule.FAILS_WITH.get(mode), f"{rule.CODE} is an error in {mode.value} export but has no FAILS_WITH"
            assert "## What torch says" in rule.doc()


def test_every_measured_context_manager_failure_is_one_xpt410_says() -> None:
    from xport_lint.analyzers.rules._context_managers import catalogue

    rule = registry.RULES["XPT410"]
    for entries in catalogue().values():
        for entry in entries:
            for mode, key in ((Mode.STRICT, "strict"), (Mode.NON_STRICT, "non_strict")):
                if entry[key]["exports"]:
                    continue
                kind, _, message = entry[key]["error"].partition(": ")
                assert any(e.type == kind and e.phrase in message for e in rule.FAILS_WITH[mode]), entry[key]["error"]
