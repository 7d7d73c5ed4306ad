"""Fix success rate per rule, for bench/RESULTS.md: every flagged example of every rule, and
every snippet of the corpus of failing model code (tests/truth/fix_corpus.py), whether a fix is
offered, and whether it passes the proof of tests/truth/harness.py with real torch.

Usage: .venv/bin/python bench/fix_rates.py [--quick]   (writes bench/results/fixes.json)
`--quick` proves a few rules and snippets and skips the corpus: it checks the script, not the figures.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from figures import begin, write_results  # noqa: E402

from tests.truth.harness import prove  # noqa: E402
from xport_lint.analyzers import registry  # noqa: E402

QUICK_RULES, QUICK_SNIPPETS = 3, 5


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=2, help="processes proving fixes (no timing is measured)")
    args = parser.parse_args()
    stamp = begin("fixes")
    rules = [c for c, r in registry.RULES.items() if not r.CONFIRMATION_ONLY and c not in ("XPT000", "XPT001")]
    rules = rules[:QUICK_RULES] if args.quick else rules
    from tests.truth.fix_corpus import SNIPPETS

    names = list(SNIPPETS)[:QUICK_SNIPPETS] if args.quick else list(SNIPPETS)
    with ProcessPoolExecutor(args.jobs, initializer=warnings.filterwarnings, initargs=("ignore",)) as pool:
        cases = [(code, index) for code in rules for index in range(len(registry.RULES[code].INVALID))]
        problems = dict(zip(cases, pool.map(_prove_example, cases), strict=True))
        outcomes = dict(zip(names, pool.map(_prove_snippet, names), strict=True))
        fixed_corpus = None if args.quick else corpus(pool)
    result = {
        "examples": examples(rules, problems),
        "failing_snippets": snippets(outcomes),
        "corpus": fixed_corpus,
    }
    reduced = f"{QUICK_RULES} rules, {QUICK_SNIPPETS} snippets, no corpus" if args.quick else None
    print(write_results("fixes", stamp, result, reduced))


def _prove_example(case: tuple[str, int]) -> str | None:
    code, index = case
    rule = registry.RULES[code]
    return prove(rule, rule.INVALID[index])


def _prove_snippet(name: str) -> dict[str, str]:
    from tests.truth.fix_corpus import SNIPPETS
    from tests.truth.harness import prove_snippet
    from xport_lint.analyzers import Config, Severity, check_source

    source = SNIPPETS[name]
    status, detail = prove_snippet(source)
    errors = [f.code for f in check_source(source, "snippet.py", Config()) if f.severity is Severity.ERROR]
    print(f"{name}: {errors[0] if errors else 'none'} {status}", flush=True)
    return {"rule": errors[0] if errors else "none", "status": status, "detail": detail[:200]}


def examples(rules: list[str], problems: dict[tuple[str, int], str | None]) -> dict[str, object]:
    """Per rule: flagged examples, fixes offered, fixes proven, and what failed."""
    rows = {}
    for code in rules:
        mine = {index: problem for (c, index), problem in problems.items() if c == code}
        offered = {i: p for i, p in mine.items() if p != "no fix was offered"}
        rows[code] = {
            "flagged": len(mine),
            "fix_offered": len(offered),
            "fix_proven": sum(p is None for p in offered.values()),
            "failures": [f"{code}-invalid-{i}: {p}" for i, p in offered.items() if p is not None],
        }
        print(
            f"{code}: {rows[code]['flagged']} flagged, {rows[code]['fix_offered']} fixes offered, "
            f"{rows[code]['fix_proven']} proven",
            flush=True,
        )
    return rows


def snippets(outcomes: dict[str, dict[str, str]]) -> dict[str, object]:
    """The corpus of failing snippets: each one's outcome, and the rate per rule (the rule of its
    first error finding) and overall."""
    per_rule: dict[str, dict[str, int]] = {}
    for outcome in outcomes.values():
        row = per_rule.setdefault(outcome["rule"], {"snippets": 0, "proven": 0, "failed": 0})
        row["snippets"] += 1
        row["proven"] += outcome["status"] == "proven"
        row["failed"] += outcome["status"] == "failed"
    proven = sum(o["status"] == "proven" for o in outcomes.values())
    failed = sum(o["status"] == "failed" for o in outcomes.values())
    print(f"failing snippets: {proven}/{len(outcomes)} proven, {failed} offered fixes failed", flush=True)
    return {"proven": proven, "total": len(outcomes), "failed": failed, "per_rule": per_rule, "snippets": outcomes}


def corpus(pool: ProcessPoolExecutor) -> dict[str, object] | None:
    """On the benchmark corpus (real model code): fixes offered per rule, and every file with
    all its fixes applied must parse and be stable under a second pass."""
    files = HERE / "corpus" / "files.txt"
    if not files.exists():
        return None
    flagged: dict[str, int] = {}
    offered: dict[str, int] = {}
    fixed_files, broken = 0, []
    for codes, fixed, problem in pool.map(_fix_file, files.read_text().split(), chunksize=8):
        for code, has_fix in codes:
            flagged[code] = flagged.get(code, 0) + 1
            offered[code] = offered.get(code, 0) + has_fix
        fixed_files += fixed
        broken += [problem] if problem else []
    print(f"corpus: {fixed_files} files fixed, {len(broken)} broken", flush=True)
    return {
        "fixes_offered": {c: f"{offered[c]}/{flagged[c]}" for c in sorted(flagged) if offered[c]},
        "files_fixed": fixed_files,
        "broken": broken,
    }


def _fix_file(relative: str) -> tuple[list[tuple[str, bool]], bool, str | None]:
    """(code, has a fix) per finding; whether the fixes changed the file; what broke, if anything."""
    import libcst as cst

    from xport_lint.analyzers import check_source
    from xport_lint.analyzers.fixes import apply_fixes

    text = (HERE / "corpus" / "src" / relative).read_text()
    findings = check_source(text, relative)
    codes = [(finding.code, finding.fix is not None) for finding in findings]
    fixed = apply_fixes(text, findings, unsafe=True)
    if fixed == text:
        return codes, False, None
    try:
        cst.parse_module(fixed)
        compile(fixed, relative, "exec")
    except (cst.ParserSyntaxError, SyntaxError) as error:
        return codes, True, f"{relative}: does not parse: {error}"[:200]
    if apply_fixes(fixed, check_source(fixed, relative), unsafe=True) != fixed:
        return codes, True, f"{relative}: a second pass changes it again"
    return codes, True, None


if __name__ == "__main__":
    main()
