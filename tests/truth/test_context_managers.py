"""The context-manager catalogue against real torch: every entry re-measured in both modes on the
installed torch (2.13 by default; 2.14 and 2.15 in their venvs: a torch upgrade shows exactly
which changed), and the static rules' claim for every entry, judged for the installed torch,
matches what torch does: an error in a mode if and only if export fails in that mode (failures of
CUDA-only context managers on a CPU build are a warning naming that condition)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.truth.context_catalogue import cpu_build, entries, installed_version, measure, model_source
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity
from xport_lint.analyzers.rules._context_managers import NO_CUDA, outcome
from xport_lint.analyzers.versions import show

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
    if entry["category"] == "torch-cuda" and not cpu_build():
        pytest.skip("CUDA-only context managers are recorded from a CPU build (here: a CUDA build without a GPU)")
    recorded = outcome(entry, "strict" if strict else "non_strict", installed_version())
    assert measure(entry, strict) == recorded, "re-record with `python -m tests.truth.context_catalogue --write`"


@pytest.mark.parametrize(("entry", "strict"), params())
def test_the_rules_claim_matches_torch(entry: dict[str, Any], strict: bool) -> None:
    source = model_source(entry, strict=strict)
    version = installed_version()
    judged = Config(target_torch=show(version))
    findings = [f for f in check_source(source, "model.py", judged) if f.code in CONTEXT_RULES]
    errors = [f for f in findings if f.severity is Severity.ERROR]
    measured = outcome(entry, "strict" if strict else "non_strict", version)
    if entry["category"] == "torch-cuda" and not entry["non_strict"]["exports"]:
        if not strict:
            assert not errors and any("CPU-only build" in f.message for f in findings), findings
            return
        # strict: an error only where Dynamo refuses it whatever the build (nvtx.range)
        build_only = measured["error"] is not None and NO_CUDA.search(measured["error"])
        assert bool(errors) == (not measured["exports"] and not build_only), (findings, measured)
        return
    assert bool(errors) == (not measured["exports"]), (findings, measured)
    if errors:
        entered = "@" if entry["site"] == "decorator" else "with "
        line = next(i for i, text in enumerate(source.splitlines(), 1) if text.lstrip().startswith(entered))
        assert all(f.span.start.line == line for f in errors)


def test_every_failure_measured_on_a_later_torch_is_one_xpt410_says_for_it() -> None:
    from xport_lint.analyzers import registry
    from xport_lint.analyzers.model import Mode
    from xport_lint.analyzers.versions import parse

    rule = registry.RULES["XPT410"]
    later = [(entry, version, mode, found) for entry in entries() for version, outcomes in entry.get("versions", {}).items()
             for mode, found in outcomes.items() if not found["exports"]]
    assert later, "the catalogue records what changed on 2.14 and 2.15"
    for entry, version, mode, found in later:
        kind, _, message = found["error"].partition(": ")
        said = rule.FAILS_WITH[Mode.STRICT if mode == "strict" else Mode.NON_STRICT]
        assert any(e.type == kind and e.phrase in message and parse(version) in e.versions for e in said), (
            entry["id"], version, found["error"])
