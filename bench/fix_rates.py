"""Fix success rate per rule, for bench/RESULTS.md: every flagged example of every rule, and
every snippet of the corpus of failing model code (tests/truth/fix_corpus.py), whether a fix is
offered, and whether it passes the proof of tests/truth/harness.py with real torch.

Usage: .venv/bin/python bench/fix_rates.py   (writes bench/fix_rates.json)
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from tests.truth.harness import prove  # noqa: E402
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
    result = {"examples": rows, "failing_snippets": snippets(), "corpus": corpus()}
    (HERE / "fix_rates.json").write_text(json.dumps(result, indent=2) + "\n")


def snippets() -> dict[str, object]:
    """The corpus of failing snippets: each one's outcome, and the rate per rule (the rule of its
    first error finding) and overall."""
    from tests.truth.fix_corpus import SNIPPETS
    from tests.truth.harness import prove_snippet
    from xport_lint.analyzers import Config, Severity, check_source

    outcomes: dict[str, dict[str, str]] = {}
    per_rule: dict[str, dict[str, int]] = {}
    for name, source in SNIPPETS.items():
        status, detail = prove_snippet(source)
        errors = [f.code for f in check_source(source, "snippet.py", Config()) if f.severity is Severity.ERROR]
        rule = errors[0] if errors else "none"
        outcomes[name] = {"rule": rule, "status": status, "detail": detail[:200]}
        row = per_rule.setdefault(rule, {"snippets": 0, "proven": 0, "failed": 0})
        row["snippets"] += 1
        row["proven"] += status == "proven"
        row["failed"] += status == "failed"
        print(f"{name}: {rule} {status}", flush=True)
    proven = sum(o["status"] == "proven" for o in outcomes.values())
    failed = sum(o["status"] == "failed" for o in outcomes.values())
    print(f"failing snippets: {proven}/{len(outcomes)} proven, {failed} offered fixes failed", flush=True)
    return {"proven": proven, "total": len(outcomes), "failed": failed, "per_rule": per_rule, "snippets": outcomes}


def corpus() -> dict[str, object] | None:
    """On the benchmark corpus (real model code): fixes offered per rule, and every file with
    all its fixes applied must parse and be stable under a second pass."""
    files = HERE / "corpus" / "files.txt"
    if not files.exists():
        return None
    import libcst as cst

    from xport_lint.analyzers import check_source
    from xport_lint.analyzers.fixes import apply_fixes

    flagged: dict[str, int] = {}
    offered: dict[str, int] = {}
    fixed_files, broken = 0, []
    for relative in files.read_text().split():
        text = (HERE / "corpus" / "src" / relative).read_text()
        findings = check_source(text, relative)
        for finding in findings:
            flagged[finding.code] = flagged.get(finding.code, 0) + 1
            offered[finding.code] = offered.get(finding.code, 0) + (finding.fix is not None)
        fixed = apply_fixes(text, findings, unsafe=True)
        if fixed == text:
            continue
        fixed_files += 1
        try:
            cst.parse_module(fixed)
            compile(fixed, relative, "exec")
        except (cst.ParserSyntaxError, SyntaxError) as error:
            broken.append(f"{relative}: does not parse: {error}"[:200])
            continue
        if apply_fixes(fixed, check_source(fixed, relative), unsafe=True) != fixed:
            broken.append(f"{relative}: a second pass changes it again")
    print(f"corpus: {fixed_files} files fixed, {len(broken)} broken", flush=True)
    return {
        "fixes_offered": {c: f"{offered[c]}/{flagged[c]}" for c in sorted(flagged) if offered[c]},
        "files_fixed": fixed_files,
        "broken": broken,
    }


if __name__ == "__main__":
    main()
