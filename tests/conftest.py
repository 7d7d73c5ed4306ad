"""Shared helpers: every rule's examples, as pytest parameters."""

from __future__ import annotations

from pathlib import Path

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


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test (and every `xport-lint` it starts) gets its own findings cache, never the user's."""
    directory = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(directory))
    monkeypatch.delenv("XPORT_LINT_CACHE_DIR", raising=False)
    return directory
