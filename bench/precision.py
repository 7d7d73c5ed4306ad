"""How often an error on library code is right: a seeded random sample of the corpus's errors,
each judged by reading its code, with the verdict and the reason recorded in
bench/precision_verdicts.json (judged by hand; this script only samples and counts).

Usage: .venv/bin/python bench/precision.py sample   # writes bench/precision_sample.json
       (judge every drawn error that has no verdict yet, in bench/precision_verdicts.json)
       .venv/bin/python bench/precision.py score    # writes bench/results/precision.json

In-sample: the engine's wrong verdicts were fixed against this same corpus. `score` refuses a
sample drawn on an engine other than the committed one.

Warnings are sampled the same way (WARNING_SIZE of them, their own seed) and judged, under the
key `warning <id>`, "useful" or "noise": useful means the graph a default export builds differs
from eager as the warning says, or the export fails under the condition it names, in a way a
user deploying the model would want to know (a log of Python values, per-call scratch state
or code only training runs is not).

Right means: the test reads tensor data (not a Python value or a static size) on a path a
default export takes (an `.eval()` module, non-strict, fp32, only the example's arguments).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from figures import BENCHMARKS, begin, git, write_results

HERE = Path(__file__).parent
SRC = HERE / "corpus" / "src"
SAMPLE = HERE / "precision_sample.json"
VERDICTS = HERE / "precision_verdicts.json"
SIZE = 60
SEED = 17
WARNING_SIZE = 40
WARNING_SEED = 23


def sample() -> None:
    import os

    stamp = begin("precision")

    sys.path.insert(0, str(HERE.parent / "analyzers"))
    from xport_lint.analyzers.cache import Cache
    from xport_lint.analyzers.config import Config
    from xport_lint.analyzers.project import check_project

    os.chdir(SRC)
    files = (HERE / "corpus" / "files.txt").read_text().split()
    checked = check_project(files, Config(), Cache(HERE / ".cache" / "precision"), None)
    errors = [
        (r.path, f) for r in checked.results for f in r.findings if f.severity.value == "error" and f.code != "XPT000"
    ]
    warnings = [(r.path, f) for r in checked.results for f in r.findings if f.severity.value == "warning"]
    out = _drawn(random.Random(SEED).sample(errors, min(SIZE, len(errors))))
    warned = _drawn(random.Random(WARNING_SEED).sample(warnings, min(WARNING_SIZE, len(warnings))))
    every = sorted(f"{path}:{f.span.start.line}:{f.code}" for path, f in errors)
    drawn = {
        "stamp": stamp, "errors_in_corpus": len(errors), "errors": every, "sample": out,
        "warnings_in_corpus": len(warnings), "warnings": warned,
    }
    SAMPLE.write_text(json.dumps(drawn, indent=2) + "\n")
    print(f"{len(errors)} errors, {len(warnings)} warnings; sampled {len(out)} and {len(warned)} into {SAMPLE.name}")


def _drawn(chosen: list) -> list[dict[str, str]]:
    """Each drawn finding with its message and the lines around it, in file order."""
    out = []
    for path, finding in sorted(chosen, key=lambda pf: (pf[0], pf[1].span.start)):
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        line = finding.span.start.line
        out.append(
            {
                "id": f"{path}:{line}:{finding.code}",
                "message": finding.message,
                "code": "\n".join(
                    f"{n}: {lines[n - 1]}" for n in range(max(1, line - 4), min(len(lines), line + 2) + 1)
                ),
            }
        )
    return out


def warning_key(finding: str) -> str:
    """A warning's key in the verdicts file (the same line may have been judged as an error)."""
    return f"warning {finding}"


def score() -> None:
    stamp = begin("precision")
    drawn = json.loads(SAMPLE.read_text())
    engine = [p for p in BENCHMARKS["precision"].paths if p != "bench/precision_verdicts.json"]
    drawn_on = drawn.get("stamp")
    if drawn_on is None:
        sys.exit("the sample has no stamp (drawn by an older script): run `sample` again")
    uncommitted = [path for path in drawn_on["dirty"] if path not in ("bench/precision_verdicts.json",)]
    if uncommitted or git("diff", "--name-only", drawn_on["commit"], "HEAD", "--", *engine):
        sys.exit(f"the sample was drawn on {drawn_on['commit'][:7]}, not on the committed engine: run `sample` again")
    verdicts = json.loads(VERDICTS.read_text())
    judged = [verdicts[item["id"]] for item in drawn["sample"] if item["id"] in verdicts]
    every = [verdicts[error] for error in drawn["errors"] if error in verdicts]
    figures = {
        "errors_in_corpus": drawn["errors_in_corpus"],
        "seed": SEED,
        "sampled": len(drawn["sample"]),
        "judged": len(judged),
        "right": sum(v["verdict"] == "right" for v in judged),
        "all_judged": len(every),
        "all_right": sum(v["verdict"] == "right" for v in every),
    }
    warned = [verdicts[key] for item in drawn.get("warnings", []) if (key := warning_key(item["id"])) in verdicts]
    if "warnings" in drawn:
        figures |= {
            "warnings_in_corpus": drawn["warnings_in_corpus"],
            "warning_seed": WARNING_SEED,
            "warnings_sampled": len(drawn["warnings"]),
            "warnings_judged": len(warned),
            "warnings_useful": sum(v["verdict"] == "useful" for v in warned),
        }
    warning_keys = [warning_key(item["id"]) for item in drawn.get("warnings", [])]
    for key in [*(item["id"] for item in drawn["sample"]), *warning_keys]:
        if key not in verdicts:
            print(f"no verdict yet: {key}", file=sys.stderr)
    print(write_results("precision", stamp, figures))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    {"sample": sample, "score": score}[sys.argv[1]]()
