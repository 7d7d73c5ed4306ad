"""`xport-lint report` on the model corpus: its cold time against `check`'s (the report is one
project check plus what readiness.py reads from the index and the files' text: target within
1.2x), its warm time (the project's last report read back from the cache: target under 2 s)
beside `check`'s warm time, and the sizes of what it writes (markdown under GitHub's
65,536-character comment limit).

Usage: bash bench/fetch_corpus.sh && .venv/bin/python bench/report_bench.py [--pairs N] [--files N]
Writes bench/results/report.json (stamped, see bench/figures.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import begin, write_results

HERE = Path(__file__).parent
SRC = HERE / "corpus" / "src"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=SRC, capture_output=True, text=True, env={**os.environ, **env})
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:4])} ... failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=2, help="paired cold runs of check and report")
    parser.add_argument("--warm", type=int, default=3, help="warm report runs (median)")
    parser.add_argument("--files", type=int, help="a reduced run: this many files spread over the corpus")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    stamp = begin("report")
    paths = (HERE / "corpus" / "files.txt").read_text().split()
    if args.files:
        paths = paths[:: max(1, len(paths) // args.files)][: args.files]
    exe = str(Path(sys.executable).with_name("xport-lint"))
    jobs = ["-j", str(args.jobs)]
    pairs = []
    for _ in range(args.pairs):
        check, _ = timed([exe, "check", "--no-cache", "--exit-zero", "--format", "json", *jobs, *paths], {})
        report, _ = timed([exe, "report", "--no-cache", "--exit-zero", "--format", "json", *jobs, *paths], {})
        pairs.append({"check_cold_s": check, "report_cold_s": report, "ratio": report / check})
        print(f"cold: check {check:.1f} s, report {report:.1f} s ({report / check:.2f}x)", file=sys.stderr)
    with tempfile.TemporaryDirectory() as cache:
        env = {"XPORT_LINT_CACHE_DIR": cache}
        timed([exe, "report", "--exit-zero", "--format", "json", *jobs, *paths], env)  # fills the cache
        warm = [timed([exe, "report", "--exit-zero", "--format", "json", *jobs, *paths], env)[0]
                for _ in range(args.warm)]
        check_warm = [timed([exe, "check", "--exit-zero", "--format", "json", *jobs, *paths], env)[0]
                      for _ in range(args.warm)]
        sizes = {}
        outputs = {}
        for fmt in ("markdown", "html", "json"):
            outputs[fmt] = timed([exe, "report", "--exit-zero", "--format", fmt, *jobs, *paths], env)[1]
            sizes[fmt] = len(outputs[fmt].rstrip("\n"))
    data = json.loads(outputs["json"])
    findings = sum(len(m["findings"]) for m in data["models"]) + len(data["other_findings"])
    figures = {
        "files": len(paths),
        "jobs": args.jobs,
        "pairs": pairs,
        "warm_report_s": statistics.median(warm),
        "warm_report_runs_s": warm,
        "warm_check_s": statistics.median(check_warm),
        "sizes_chars": sizes,
        "markdown_cut": "Cut to fit GitHub's" in outputs["markdown"],
        "models": len(data["models"]),
        "exported_models": sum(1 for m in data["models"] if m["exported"]),
        "top_level_models": sum(1 for m in data["models"] if m["top_level"]),
        "verdicts": data["summary"],
        "findings_in_report": findings,
    }
    print(json.dumps(figures, indent=2))
    write_results("report", stamp, figures, reduced=f"{args.files} files" if args.files else None)


if __name__ == "__main__":
    main()
