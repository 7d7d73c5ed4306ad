"""Re-run the benchmarks and regenerate every published figure from their results.

Usage (from the repository root, after `bash bench/fetch_corpus.sh`, with the measured code
committed: a run over uncommitted changes is stamped dirty and fails tests/test_figures.py):

  .venv/bin/python bench/all.py                  # every default benchmark, then the figures
  .venv/bin/python bench/all.py --only speed     # one benchmark (repeatable), then the figures
  .venv/bin/python bench/all.py --render         # only regenerate the figures from the JSON
  .venv/bin/python bench/all.py --quick          # reduced runs: proves the scripts, not figures

Each benchmark writes bench/results/<name>.json (see bench/figures.py); the figures are the
blocks between `<!-- figures:NAME -->` and `<!-- /figures -->` in README.md and bench/RESULTS.md.
Benchmarks that need a person or another interpreter (precision, zoo) run only when named.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from figures import BENCHMARKS, DOCUMENTS, REPO, load_all, render_blocks


def run(names: list[str], quick: bool) -> list[str]:
    """Run each benchmark in its own process; the names of those that failed."""
    failed = []
    for name in names:
        benchmark = BENCHMARKS[name]
        command = [sys.executable, *benchmark.command, *(benchmark.quick if quick else ())]
        print(f"== {name}: {' '.join(command[1:])}", flush=True)
        began = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
        print(f"== {name}: {'ok' if done.returncode == 0 else 'FAILED'} in {time.perf_counter() - began:.0f} s",
              flush=True)
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
            failed.append(name)
    return failed


def render() -> list[str]:
    """Rewrite the generated blocks of README.md and bench/RESULTS.md; the files changed."""
    results = load_all()
    changed = []
    for document in DOCUMENTS:
        text = document.read_text()
        rendered = render_blocks(text, results)
        if rendered != text:
            document.write_text(rendered)
            changed.append(str(document.relative_to(REPO)))
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS), help="run only this benchmark")
    parser.add_argument("--render", action="store_true", help="run nothing, regenerate the figures")
    parser.add_argument("--quick", action="store_true", help="reduced runs (stamped as such; not figures)")
    args = parser.parse_args()
    names = args.only or [name for name, b in BENCHMARKS.items() if b.default]
    began = time.perf_counter()
    failed = [] if args.render else run(names, args.quick)
    if not args.render:
        print(f"== all: {time.perf_counter() - began:.0f} s", flush=True)
    print("figures regenerated in:", ", ".join(render()) or "nothing (already current)")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
