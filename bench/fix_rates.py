"""Fix success rate per rule, for bench/RESULTS.md: every flagged example of every rule, whether
a fix is offered, and whether it passes the proof of tests/truth/fixproof.py with real torch.

Usage: .venv/bin/python bench/fix_rates.py   (writes bench/fix_rates.json)
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from tests.truth.fixproof import prove  # noqa: E402
from xport_lint.analyzers import registry  # noqa: E402


def main() -> None:
    warnings.filterwarnings("ignore")
    rows = {}
    for code, rule in registry.RULES.items():
        if rule.CONFIRMATION_ONLY or code in ("XPT000", "XPT001"):
            continue
        flagged = offered = proven = 0
        failures = []
        for index, case in enumerate(rule.INVALID):
            flagged += 1
            problem = prove(rule, case)
            if problem == "no fix was offered":
                continue
            offered += 1
            if problem is None:
                proven += 1
            else:
                failures.append(f"{code}-invalid-{index}: {problem}")
        rows[code] = {"flagged": flagged, "fix_offered": offered, "fix_proven": proven, "failures": failures}
        print(f"{code}: {flagged} flagged, {offered} fixes offered, {proven} proven", flush=True)
    (HERE / "fix_rates.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
