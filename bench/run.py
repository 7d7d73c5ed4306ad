"""Speed of xport-lint on real model code, side by side with bare parsers, ruff and torchfix.

Usage: bash bench/fetch_corpus.sh && .venv/bin/python bench/run.py [--pairs N] [--files N] [--torchfix]
Writes bench/results/speed.json (stamped, see bench/figures.py); `bench/all.py` renders it into
bench/RESULTS.md and the README. Every tool runs on the same files in the same run. The headline
ratio is the median of `--pairs` paired runs (bare parse, then the cold CLI, back to back): on a
shared machine a single pair moves by about 5%.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import libcst
from figures import begin, write_results

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
SRC = CORPUS / "src"


def files() -> list[str]:
    return (CORPUS / "files.txt").read_text().split()


def _parse_batch(paths: list[str]) -> int:
    for path in paths:
        libcst.parse_module((SRC / path).read_text(encoding="utf-8"))
    return len(paths)


def libcst_parse(paths: list[str], jobs: int) -> float:
    # the same scheduling as `xport-lint check -j`: biggest first, many small batches
    ordered = sorted(paths, key=lambda p: (SRC / p).stat().st_size, reverse=True)
    size = max(1, len(ordered) // (jobs * 32))
    batches = [ordered[i : i + size] for i in range(0, len(ordered), size)]
    start = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        sum(pool.map(_parse_batch, batches))
    return time.perf_counter() - start


def ast_parse(paths: list[str]) -> float:
    sources = [(SRC / p).read_text(encoding="utf-8") for p in paths]
    start = time.perf_counter()
    for source in sources:
        ast.parse(source)
    return time.perf_counter() - start


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})}, check=False)
    return time.perf_counter() - start


def list_file(paths: list[str]) -> Path:
    target = CORPUS / "args.txt"
    target.write_text("\n".join(paths))
    return target


#: repeats of the per-edit check and of the bare parse beside it
EDIT_REPEATS = 7


def per_edit_latency(paths: list[str]) -> dict[str, object]:
    """check_source on one file, as the language server will call it after an edit, beside a bare
    libcst parse of the same text: both the median of `EDIT_REPEATS` runs, each parse right after
    its check (so a busy moment on a shared machine weighs on both alike)."""
    from xport_lint.analyzers import check_source

    sizes = {p: (SRC / p).read_text(encoding="utf-8").count("\n") for p in paths}
    around_500 = min(paths, key=lambda p: abs(sizes[p] - 500))
    largest = max(paths, key=lambda p: sizes[p])
    out: dict[str, object] = {}
    for label, path in (("500_lines", around_500), ("largest", largest)):
        source = (SRC / path).read_text(encoding="utf-8")
        checks, parses = [], []
        for _ in range(EDIT_REPEATS):
            checks.append(_time(lambda s=source, p=path: check_source(s, p)))
            parses.append(_time(lambda s=source: libcst.parse_module(s)))
        out[label] = {"file": path, "lines": sizes[path], "median_s": statistics.median(checks),
                      "libcst_parse_s": statistics.median(parses)}
    return out


def _time(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3, help="paired runs of the bare parse and the cold CLI")
    parser.add_argument("--files", type=int, help="a reduced run: this many files spread over the corpus")
    parser.add_argument("--torchfix", action="store_true", help="also time torchfix (about ten minutes)")
    args = parser.parse_args()
    stamp = begin("speed")
    paths = files()
    reduced = None
    if args.files and args.files < len(paths):
        reduced = f"{args.files} of {len(paths)} files, {args.pairs} pair(s)"
        paths = paths[:: len(paths) // args.files][: args.files]
    lines = sum((SRC / p).read_text(encoding="utf-8").count("\n") for p in paths)
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    results: dict[str, object] = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, libcst {importlib.metadata.version('libcst')}",
        "files": len(paths),
        "lines": lines,
        "jobs": args.jobs,
        "ast_parse_1_process_s": ast_parse(paths),
    }
    cold = [exe, "check", "--no-cache", "--exit-zero", "--format", "json", "-j", str(args.jobs), *paths]
    pairs, findings = [], ""
    for _ in range(args.pairs):
        parse_s = libcst_parse(paths, args.jobs)
        start = time.perf_counter()
        findings = subprocess.run(cold, cwd=SRC, capture_output=True, text=True, check=True).stdout
        pairs.append({"parse_s": parse_s, "cold_s": time.perf_counter() - start})
    results["pairs"] = pairs
    cache = HERE / ".cache" / "findings"  # the bench's own, not the user's cache folder
    shutil.rmtree(cache, ignore_errors=True)
    warm = [exe, "check", "--cache-dir", str(cache), "--exit-zero", "--format", "json", "-j", str(args.jobs), *paths]
    timed(warm, SRC)  # fills the cache
    # the median of as many second runs as pairs: a single run of half a second is one sample of a shared machine
    results["xport_lint_cached_s"] = statistics.median(timed(warm, SRC) for _ in range(args.pairs))
    shutil.rmtree(cache, ignore_errors=True)
    counts: dict[str, int] = {}
    for item in json.loads(findings):
        counts[item["code"]] = counts.get(item["code"], 0) + 1
    results["findings"] = dict(sorted(counts.items()))
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff:
        results["ruff_all_rules_s"] = timed(
            [ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "--isolated", "-q", *paths],
            SRC, {"RAYON_NUM_THREADS": str(args.jobs)},
        )
    torchfix = HERE / ".venv-torchfix" / "bin" / "torchfix"
    if args.torchfix:
        results["torchfix_s"] = timed([str(torchfix), "--select", "ALL", "-j", str(args.jobs), *paths], SRC)
    results["per_edit"] = per_edit_latency(paths)
    print(write_results("speed", stamp, results, reduced))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
