"""Every example is an executable fact about torch 2.13: run it through real torch.export.

The severity is the one the engine reports on the example in that mode (shape findings take
theirs from the example's dynamic_shapes):
error   => export fails in that mode
warning => export succeeds, and on `other_args` the exported program rejects the input or
           computes something else than eager (where the example gives `other_args`)
clean   => export succeeds in every mode the example lists
Fixes are proven separately, in test_fixes.py.
Files with a zero-argument `export()` function are judged by calling it (call-site rules).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import all_cases
from tests.truth.harness import example, load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.rule import Invalid, Rule, Valid

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch
def exports(module: ModuleType, mode: Mode) -> tuple[bool, Any, str]:
    """(exported?, (program, model, args), error) for the file's export() or its example."""
    try:
        if hasattr(module, "export"):
            return True, (module.export(), None, ()), ""
        model, args, options = example(module)
        program = torch.export.export(model, args, **options, strict=mode is Mode.STRICT)
        return True, (program, model, args), ""
    except Exception as error:  # noqa: BLE001 - any failure is the fact under test
        return False, None, f"{type(error).__name__}: {error}"[:500]


def file_modes(source: str) -> tuple[Mode, ...]:
    """The engine judges a file with a `strict=True` export call in strict mode only."""
    return (Mode.STRICT,) if "strict=True" in source else (Mode.NON_STRICT, Mode.STRICT)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, equal_nan=True)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def reported_severity(rule: type[Rule], case: Invalid, mode: Mode) -> Severity | None:
    """What the engine says of the example in `mode` (a shape finding's severity depends on the
    example's dynamic_shapes): the most severe finding of the rule on the marked lines."""
    config = Config(select=("ALL",), strict=mode is Mode.STRICT)
    lines = set(case.expected_lines(rule.CODE))
    found = [f.severity for f in check_source(case.source, "example.py", config) if f.code == rule.CODE and f.span.start.line in lines]
    order = (Severity.ERROR, Severity.WARNING, Severity.INFO)
    return min(found, key=order.index) if found else rule.severity(mode)


def cases() -> list[object]:
    out = []
    for rule, case, name in all_cases():
        if rule.CODE in ("XPT000", "XPT001", "XPT412"):
            continue  # claims about the linter itself (a syntax error, a suppression, what it has not measured)
        for mode in file_modes(case.source):
            if isinstance(case, Valid) and mode not in case.modes:
                continue
            if isinstance(case, Invalid) and rule.severity(mode) is None:
                continue
            out.append(pytest.param(rule, case, mode, id=f"{name}-{mode.value}"))
    return out


@pytest.mark.parametrize(("rule", "case", "mode"), cases())
def test_example_claim_holds_in_real_torch(
    rule: type[Rule], case: Valid | Invalid, mode: Mode, tmp_path: Path
) -> None:
    module = load(case.source, tmp_path)
    ok, exported, error = exports(module, mode)
    if isinstance(case, Valid):
        assert ok, f"clean example does not export ({mode.value}): {error}"
        return
    severity = reported_severity(rule, case, mode)
    if severity is Severity.ERROR:
        assert not ok, f"{rule.CODE} claims export fails ({mode.value}), but it succeeded"
        return
    assert ok, f"{rule.CODE} claims export succeeds ({mode.value}): {error}"
    if severity is Severity.WARNING and case.other_args is not None and not hasattr(module, "export"):
        program, model, _ = exported
        other = eval(case.other_args, vars(module))  # noqa: S307 - the example's own inputs
        expected = model(*other)
        try:
            actual = program.module()(*other)
        except Exception:  # noqa: BLE001 - a rejected input is the specialisation we claim
            return
        assert not same(expected, actual), "exported program agrees with eager on other inputs"
