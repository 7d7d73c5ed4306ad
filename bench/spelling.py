"""The same fact spelt another way, for bench/RESULTS.md: the spelling variants of
tests/engine/test_spellings.py (every failing rule example and every snippet of the fix corpus,
rewritten one flagged expression at a time), how many keep their verdict (same rule, same line,
same severity, a fix where the original has one), and how many of the fixes they keep pass the
proof of tests/truth/harness.py with real torch (exports where the original fails, equals eager
on the example's inputs and on its other inputs).

Usage: .venv/bin/python bench/spelling.py [--quick] [--jobs N]   (writes bench/results/spelling.json)
`--quick` proves the first variant of each kind only: it checks the script, not the figures.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from figures import begin, write_results  # noqa: E402

from tests.engine.test_spellings import KINDS, KNOWN_GAPS, VARIANTS, Variant, difference, verdict  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=2, help="processes proving fixes (no timing is measured)")
    args = parser.parse_args()
    stamp = begin("spelling")
    rows = {kind: Counter() for kind in KINDS}
    unexplained = []
    to_prove: list[int] = []
    for index, variant in enumerate(VARIANTS):
        row = rows[variant.kind]
        row["variants"] += 1
        row["from the corpus"] += "-corpus-" in variant.case_id
        problem = difference(variant)
        if problem is None:
            row["same verdict"] += 1
        elif (variant.rule.CODE, variant.kind) in KNOWN_GAPS:
            row["known gap"] += 1
        else:
            unexplained.append(f"{variant.case_id} {variant.kind}: {problem}")
        if any(fixed for _, fixed in verdict(variant.original, variant.rule.CODE)):
            row["original fixed"] += 1
            if problem is None:
                row["fix kept"] += 1
                if provable(variant):
                    to_prove.append(index)
    if args.quick:
        firsts = {VARIANTS[i].kind: i for i in reversed(to_prove)}
        to_prove = sorted(firsts.values())
    with ProcessPoolExecutor(args.jobs, initializer=warnings.filterwarnings, initargs=("ignore",)) as pool:
        proofs = dict(zip(to_prove, pool.map(_prove, to_prove), strict=True))
    failures = []
    for index, (status, detail) in proofs.items():
        variant = VARIANTS[index]
        row = rows[variant.kind]
        row["fix checked"] += 1
        row[f"fix {status}"] += 1
        if status not in ("proven", "skipped"):
            failures.append(f"{variant.case_id} {variant.kind}: {status}: {detail[:200]}")
    result = {
        "kinds": {kind: dict(row) for kind, row in rows.items()},
        "unexplained": unexplained,
        "proof_failures": failures,
        "known_gaps": len(KNOWN_GAPS),
    }
    print(write_results("spelling", stamp, result, "the first variant of each kind proven" if args.quick else None))


def provable(variant: Variant) -> bool:
    """A variant the proof can run: one file (not a package), exported through `xport_example()`."""
    return not variant.files and "def xport_example(" in variant.source and variant.rule.SCOPE.value == "traced"


def _prove(index: int) -> tuple[str, str]:
    """The proof of a variant's fix, or "skipped" where the original's own fix does not pass it
    (there is nothing to compare: the fix rates count that one)."""
    from tests.truth.harness import prove_snippet
    from tests.truth.test_spelling_fixes import original_proof, with_inputs

    variant = VARIANTS[index]
    original, _ = original_proof(variant.original)
    if original != "proven":
        return "skipped", f"the original: {original}"
    status, detail = prove_snippet(with_inputs(variant))
    print(f"{variant.case_id} {variant.kind}: {status}", flush=True)
    return status, detail


if __name__ == "__main__":
    main()
