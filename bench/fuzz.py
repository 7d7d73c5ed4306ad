"""Hostile and odd input against the real engine, CLI and fixes; counts what went wrong.

Usage: .venv/bin/python bench/fuzz.py [--seed N] [--edits N] [--sizes BYTES ...]
Writes bench/results/fuzz.json (stamped, see bench/figures.py). Jobs:

- prefixes: every 3rd prefix of each example model (half-typed code): `check_source` must return
  findings, never raise;
- edits: random insertions and deletions in the example models, with U+0085, U+2028, form feeds,
  CR, tabs and brackets among the inserted text: `check_source` must not raise, every finding's
  range must lie inside the text, and every fix must apply, re-parse and leave the bytes outside
  its edits alone;
- sizes: files of 125 KB, 500 KB, 2 MB and 5 MB of model code through the CLI: seconds per file
  (linear time is the claim);
- configs: hostile `[tool.xport-lint]` tables through the CLI: exit 2 with a message, never a
  traceback;
- caches: garbage, truncated and tampered cache databases: the findings are still reported,
  never a traceback, never code run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import begin, write_results

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.fixes import apply_fixes
from xport_lint.analyzers.positions import split_lines

HERE = Path(__file__).parent
EXAMPLES = sorted((HERE.parent / "examples").glob("*.py"))
EXE = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
ODD = ["\x85", "\u2028", "\u2029", "\x0c", "\r", "\r\n", "\t", "(", ")", "[", "]", ":", "    ", "if x.sum() > 0:\n",
       "'", '"""', "\\", "# noqa: XPT101", "é", "\x0b", "\n"]
HOSTILE_CONFIGS = [
    "exclude = [1]", "severity = 5", 'per-file-ignores = ["x"]', 'per-file-ignores = { "*" = "XPT" }',
    'select = "XPT1"', 'ignore = ["NOPE"]', "strict = 1", 'severity = { XPT101 = "fatal" }', "examples = 3",
    'examples = { "a.B" = 1 }', "unknown = true", "[tool.xport-lint.severity]\nXPT999 = \"error\"",
]


def check_never_raises(text: str) -> list[str]:
    try:
        findings = check_source(text, "fuzz.py", Config(select=("ALL",)))
    except Exception as error:  # noqa: BLE001 - the count is the result
        return [f"raised {type(error).__name__}: {error}"]
    problems = []
    lines = split_lines(text) or [""]
    for finding in findings:
        end = finding.span.end
        if not (1 <= finding.span.start.line <= max(len(lines), 1) and 1 <= end.line <= max(len(lines), 1)):
            problems.append(f"{finding.code} range outside the text: {finding.span}")
    fixed = apply_fixes(text, findings, unsafe=True)
    if fixed != text:
        try:
            compile(fixed, "fuzz.py", "exec")
        except SyntaxError as error:
            try:
                compile(text, "fuzz.py", "exec")
            except SyntaxError:
                pass  # broken before the fix: not the fix's doing
            else:
                problems.append(f"a fix broke the syntax: {error}")
    return problems


def prefixes() -> dict[str, int]:
    checked = failed = 0
    for path in EXAMPLES:
        source = path.read_text()
        for cut in range(0, len(source) + 1, 3):
            checked += 1
            failed += bool(check_never_raises(source[:cut]))
    return {"texts": checked, "failures": failed}


def edits(count: int, rng: random.Random) -> dict[str, object]:
    failures: list[str] = []
    sources = [p.read_text() for p in EXAMPLES]
    for _ in range(count):
        text = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.7:
                text = text[:at] + rng.choice(ODD) + text[at:]
            else:
                text = text[:at] + text[at + rng.randint(1, 20):]
        failures += check_never_raises(text)
    return {"edits": count, "failures": len(failures), "examples": failures[:5]}


SIZES = (125_000, 500_000, 2_000_000, 5_000_000)
#: random edits per run: enough to have found every crash so far, cheap enough for `bench/all.py`
EDITS = 1000


def sizes(folder: Path, targets: list[int]) -> dict[str, float]:
    unit = (HERE.parent / "examples" / "router.py").read_text()
    out = {}
    for target in targets:
        path = folder / f"big_{target}.py"
        repeats = target // len(unit) + 1
        path.write_text("".join(unit.replace("class ", f"class C{i}_") for i in range(repeats)))
        began = time.perf_counter()
        subprocess.run([EXE, "check", "--no-cache", "--exit-zero", "-q", str(path)], capture_output=True, check=False)
        out[f"{path.stat().st_size // 1000} KB"] = round(time.perf_counter() - began, 2)
    return out


def configs(folder: Path) -> dict[str, object]:
    bad = []
    (folder / "m.py").write_text((HERE.parent / "examples" / "router.py").read_text())
    for table in HOSTILE_CONFIGS:
        (folder / "pyproject.toml").write_text(f"[tool.xport-lint]\n{table}\n")
        result = subprocess.run([EXE, "check", "--no-cache", "m.py"], cwd=folder, capture_output=True, text=True)
        if result.returncode != 2 or "Traceback" in result.stderr:
            bad.append((table, result.returncode, result.stderr[-200:]))
    (folder / "pyproject.toml").unlink()
    return {"configs": len(HOSTILE_CONFIGS), "not_exit_2_with_message": len(bad), "examples": bad[:3]}


def caches(folder: Path, rng: random.Random) -> dict[str, object]:
    cache = folder / "cache"
    (folder / "m.py").write_text((HERE.parent / "examples" / "router.py").read_text())
    command = [EXE, "check", "--cache-dir", str(cache), "--format", "json", "m.py"]
    expected = subprocess.run(command, cwd=folder, capture_output=True, text=True).stdout
    (database,) = cache.glob("*.sqlite3")
    original = database.read_bytes()
    wrong = []
    mutations = 0
    for round_ in range(30):
        data = bytearray(original)
        kind = round_ % 3
        if kind == 0:  # flipped bytes
            for _ in range(rng.randint(1, 50)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            database.write_bytes(bytes(data))
        elif kind == 1:  # truncated
            database.write_bytes(bytes(data[: rng.randrange(len(data))]))
        else:  # well-formed rows with hostile bodies
            database.write_bytes(original)
            with sqlite3.connect(database) as db:
                # malformed ones: a well-formed row is trusted by design (the cache is private to
                # the user: in their cache folder, refused when others could write it)
                body = rng.choice(['[{"code": 1}]', "not json", '[{"fix": {"edits": [{}]}}]', "null", '{"a": 1}'])
                db.execute("UPDATE findings SET body = ?", (body,))
        mutations += 1
        result = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        if result.stdout != expected or "Traceback" in result.stderr:
            wrong.append((kind, result.returncode, result.stderr[-200:]))
    return {"mutations": mutations, "wrong_results": len(wrong), "examples": wrong[:3]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edits", type=int, default=EDITS)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="file sizes to time, bytes")
    args = parser.parse_args()
    stamp = begin("fuzz")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        os.environ["XDG_CACHE_HOME"] = str(folder / "xdg")
        results = {
            "seed": args.seed,
            "prefixes": prefixes(),
            "edits": edits(args.edits, rng),
            "configs": configs(folder),
            "caches": caches(folder, rng),
            "seconds_per_file_by_size": sizes(folder, args.sizes),
        }
    full = args.edits >= EDITS and set(args.sizes) >= set(SIZES)
    reduced = None if full else f"{args.edits} edits, sizes {args.sizes}"
    print(write_results("fuzz", stamp, results, reduced))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
