"""The context-manager catalogue against real torch: every entry re-measured in both modes (a
torch upgrade shows exactly which changed), and the static rules' claim for every entry matches
what torch does: an error in a mode if and only if export fails in that mode (failures of
CUDA-only context managers on a CPU build are a warning naming that condition)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.truth.context_catalogue import entries, measure, model_source
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

pytest.importorskip("torch")
pytestmark = pytest.mark.torch
CONTEXT_RULES = ("XPT410", "XPT411", "XPT412")


def params() -> list[object]:
    return [
        pytest.param(entry, strict, id=f"{entry['id']}-{'strict' if strict else 'non-strict'}")
        for entry in entries()
        for strict in (True, False)
    ]


def test_the_catalogue_covers_what_model_code_enters() -> None:
    catalogue = entries()
    assert len(catalogue) >= 40
    assert {e["category"] for e in catalogue} >= {"torch", "torch-cuda", "stdlib", "user"}
    assert {e["site"] for e in catalogue} == {"forward", "outside", "decorator"}


@pytest.mark.parametrize(("entry", "strict"), params())
def test_recorded_outcome_is_what_torch_does(entry: dict[str, Any], strict: bool) -> None:
    recorded = entry["strict" if strict else "non_strict"]
    assert measure(entry, strict) == recorded, "re-record with `python -m tests.truth.context_catalogue --write`"


@pytest.mark.parametrize(("entry", "strict"), params())
def test_the_rules_claim_matches_torch(entry: dict[str, Any], strict: bool) -> None:
    source = model_source(entry, strict=strict)
    findings = [f for f in check_source(source, "model.py", Config()) if f.code in CONTEXT_RULES]
    errors = [f for f in findings if f.severity is Severity.ERROR]
    outcome = entry["strict" if strict else "non_strict"]
    if entry["category"] == "torch-cuda" and not entry["non_strict"]["exports"]:
        assert not errors and any("CPU-only build" in f.message for f in findings), findings
        return
    assert bool(errors) == (not outcome["exports"]), (findings, outcome)
    if errors:
        with_line = next(i for i, line in enumerate(source.splitlines(), 1) if line.lstrip().startswith("with "))
        assert all(f.span.start.line == with_line for f in errors)
