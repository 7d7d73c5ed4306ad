"""How often an error on library code is right: a seeded random sample of the corpus's errors,
each judged by reading its code, with the verdict and the reason recorded in
bench/precision_verdicts.json (judged by hand; this script only samples and counts).

Usage: .venv/bin/python bench/precision.py sample   # writes bench/precision_sample.json
       .venv/bin/python bench/precision.py score    # counts the verdicts of the current sample

Right means: the test reads tensor data (not a Python value or a static size) on a path a
default export takes (an `.eval()` module, non-strict, fp32, only the example's arguments).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
SRC = HERE / "corpus" / "src"
SAMPLE = HERE / "precision_sample.json"
VERDICTS = HERE / "precision_verdicts.json"
SIZE = 60
SEED = 17


def sample() -> None:
    import os

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
    chosen = random.Random(SEED).sample(errors, min(SIZE, len(errors)))
    out = []
    for path, finding in sorted(chosen, key=lambda pf: (pf[0], pf[1].span.start)):
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        line = finding.span.start.line
        out.append({
            "id": f"{path}:{line}:{finding.code}", "message": finding.message,
            "code": "\n".join(f"{n}: {lines[n - 1]}" for n in range(max(1, line - 4), min(len(lines), line + 2) + 1)),
        })
    SAMPLE.write_text(json.dumps({"errors_in_corpus": len(errors), "sample": out}, indent=2) + "\n")
    print(f"{len(errors)} errors; sampled {len(out)} into {SAMPLE.name}")


def score() -> None:
    drawn = json.loads(SAMPLE.read_text())
    verdicts = json.loads(VERDICTS.read_text())
    judged = [verdicts[item["id"]] for item in drawn["sample"] if item["id"] in verdicts]
    right = sum(1 for v in judged if v["verdict"] == "right")
    print(json.dumps({
        "errors_in_corpus": drawn["errors_in_corpus"], "sampled": len(drawn["sample"]), "judged": len(judged),
        "right": right, "precision": round(right / len(judged), 3) if judged else None,
    }, indent=2))


if __name__ == "__main__":
    {"sample": sample, "score": score}[sys.argv[1]]()
