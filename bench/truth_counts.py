"""What the truth harness checks, counted: every example × mode pair that
`tests/truth/test_torch_truth.py` runs through real torch.export, by the claim it checks there.
The claim is the engine's own verdict on the example in that mode (no torch needed to count).

Usage: .venv/bin/python bench/truth_counts.py   (writes bench/results/truth.json)
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from figures import begin, write_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import all_cases  # noqa: E402
from xport_lint.analyzers import Config, check_source  # noqa: E402
from xport_lint.analyzers.model import Mode, Severity  # noqa: E402
from xport_lint.analyzers.rule import Invalid, Valid  # noqa: E402

#: as tests/truth/test_torch_truth.py: examples about the linter itself are not about torch
LINTER_CLAIMS = ("XPT000", "XPT001", "XPT412")


def claim(rule: type, case: Valid | Invalid, mode: Mode) -> str:
    """The kind of fact the harness checks for this pair."""
    if isinstance(case, Valid):
        return "valid example exports"
    if rule.CONFIRMATION_ONLY:
        fails = rule.severity(mode) is Severity.ERROR
        return f"found only by confirmation: export {'fails' if fails else 'exports, and differs from eager'}"
    found = check_source(case.source, "example.py", Config(select=("ALL",), strict=mode is Mode.STRICT))
    lines = set(case.expected_lines(rule.CODE))
    own = {f.severity for f in found if f.code == rule.CODE and f.span.start.line in lines}
    others = {f.code for f in found if f.severity is Severity.ERROR and f.code != rule.CODE}
    if Severity.ERROR in own:
        return "error: export fails with what the rule says"
    if others:
        return "another rule's error: export fails with what it says"
    if Severity.WARNING in own:
        return ("warning with a condition: export fails under it" if case.failing_args
                else "warning: exports, and differs observably from eager")
    if Severity.INFO in own:
        return "info: exports"
    return "rule silent in this mode: exports"


def main() -> None:
    stamp = begin("truth")
    kinds: Counter[str] = Counter()
    for rule, case, _ in all_cases():
        if rule.CODE in LINTER_CLAIMS:
            continue
        modes = (Mode.STRICT,) if "strict=True" in case.source else (Mode.NON_STRICT, Mode.STRICT)
        for mode in modes:
            if isinstance(case, Valid) and mode not in case.modes:
                continue
            kinds[claim(rule, case, mode)] += 1
    write_results("truth", stamp, {"pairs": sum(kinds.values()), "by_claim": dict(sorted(kinds.items()))})


if __name__ == "__main__":
    main()
