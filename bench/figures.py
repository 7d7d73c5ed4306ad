"""Where every published figure comes from, and the text that publishes it.

Each benchmark writes `bench/results/<name>.json`: its raw figures and a stamp (the commit it
measured, whether the measured paths had uncommitted changes, the date, the paths whose code the
figures describe). README.md and bench/RESULTS.md quote figures only inside generated blocks
(`<!-- figures:NAME -->` ... `<!-- /figures -->`), which `render_blocks` rewrites from the JSON.
`tests/test_figures.py` reads only the committed JSON and git: a figure whose measured code
changed after it was measured fails the test (benchmarks `bench/all.py` re-runs) or is shown as
measured before those changes (benchmarks that need a person or another interpreter).

Standard library only: the test imports this in a fresh clone with no corpus and no torch.
"""

from __future__ import annotations

import json
import platform
import re
import subprocess
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from statistics import median
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
REFRESH = ".venv/bin/python bench/all.py"


@dataclass(frozen=True)
class Benchmark:
    name: str
    #: the script and its arguments, run from the repository root with the venv's python
    command: tuple[str, ...]
    #: extra arguments for a reduced run (`bench/all.py --quick`): proves the script, not a figure
    quick: tuple[str, ...]
    #: the code the figures describe: a later commit touching these makes them stale
    paths: tuple[str, ...]
    #: re-run by `bench/all.py` (kept fresh, checked by the test); otherwise labelled when stale
    default: bool
    #: how to re-run a benchmark `bench/all.py` does not run
    manual: str = ""


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            "speed", ("bench/run.py",), ("--files", "60", "--pairs", "1"), ("analyzers/", "bench/run.py"), default=True
        ),
        Benchmark(
            "server",
            ("bench/server_bench.py",),
            ("--edits", "3", "--open", "5", "--startups", "2"),
            ("analyzers/", "server/", "bench/server_bench.py", "bench/minimal_server.py"),
            default=True,
        ),
        Benchmark("confirm", ("bench/confirm_bench.py",), (), ("analyzers/", "bench/confirm_bench.py"), default=True),
        Benchmark(
            "truth",
            ("bench/truth_counts.py",),
            (),
            ("analyzers/", "tests/truth/test_torch_truth.py", "tests/conftest.py", "bench/truth_counts.py"),
            default=True,
        ),
        Benchmark(
            "fuzz",
            ("bench/fuzz.py",),
            ("--edits", "100", "--sizes", "125000"),
            ("analyzers/", "examples/", "bench/fuzz.py"),
            default=True,
        ),
        Benchmark(
            "fixes",
            ("bench/fix_rates.py",),
            ("--quick",),
            ("analyzers/", "tests/truth/harness.py", "tests/truth/fix_corpus.py", "bench/fix_rates.py"),
            default=True,
        ),
        Benchmark(
            "spelling",
            ("bench/spelling.py",),
            ("--quick",),
            ("analyzers/", "tests/engine/test_spellings.py", "tests/truth/test_spelling_fixes.py",
             "tests/truth/harness.py", "tests/truth/fix_corpus.py", "bench/spelling.py"),
            default=False,
            manual="`.venv/bin/python bench/spelling.py` (proves every fix a variant keeps with torch: "
            "about 20 minutes on 2 cores)",
        ),
        Benchmark(
            "report",
            ("bench/report_bench.py",),
            ("--files", "60", "--pairs", "1", "--warm", "1"),
            ("analyzers/", "bench/report_bench.py"),
            default=False,
            manual="`.venv/bin/python bench/report_bench.py` (about 4 cold corpus runs: over 2 minutes)",
        ),
        Benchmark(
            "precision",
            ("bench/precision.py", "score"),
            (),
            ("analyzers/", "bench/precision.py", "bench/precision_verdicts.json"),
            default=False,
            manual="`.venv/bin/python bench/precision.py sample SEED WARNING_SEED` (fresh seeds), judge every "
            "drawn error and warning without a "
            "verdict in `bench/precision_verdicts.json`, then `.venv/bin/python bench/precision.py score`",
        ),
        Benchmark(
            "precision_heldout",
            ("bench/precision.py", "--held-out", "score"),
            (),
            ("analyzers/", "bench/precision.py", "bench/precision_verdicts_heldout.json"),
            default=False,
            manual="`.venv/bin/python bench/precision.py fetch` (the libraries of `bench/heldout_wheels.txt`), "
            "`.venv/bin/python bench/precision.py --held-out sample SEED WARNING_SEED` (fresh seeds), judge every "
            "drawn error and warning without a verdict in `bench/precision_verdicts_heldout.json`, then "
            "`.venv/bin/python bench/precision.py --held-out score`",
        ),
        Benchmark(
            "precision_heldout2",
            ("bench/precision.py", "--held-out-2", "score"),
            (),
            ("analyzers/", "bench/precision.py", "bench/precision_verdicts_heldout2.json"),
            default=False,
            manual="`.venv/bin/python bench/precision.py --held-out-2 fetch` (the libraries of "
            "`bench/heldout2_wheels.txt`), `.venv/bin/python bench/precision.py --held-out-2 sample SEED "
            "WARNING_SEED` (fresh seeds), judge every drawn error and warning without a verdict in "
            "`bench/precision_verdicts_heldout2.json`, then `.venv/bin/python bench/precision.py --held-out-2 score`",
        ),
        Benchmark(
            "precision_heldout3",
            ("bench/precision.py", "--held-out-3", "score"),
            (),
            ("analyzers/", "bench/precision.py", "bench/precision_verdicts_heldout3.json"),
            default=False,
            manual="`.venv/bin/python bench/precision.py --held-out-3 fetch` (the libraries of "
            "`bench/heldout3_wheels.txt`), `.venv/bin/python bench/precision.py --held-out-3 sample SEED "
            "WARNING_SEED` (fresh seeds), judge every drawn error and warning without a verdict in "
            "`bench/precision_verdicts_heldout3.json`, then `.venv/bin/python bench/precision.py --held-out-3 score`",
        ),
        Benchmark(
            "repair",
            ("bench/repair_zoo.py",),
            (),
            ("analyzers/", "bench/repair_zoo.py", "bench/zoo_models.py"),
            default=False,
            manual="`.venv/bin/python bench/repair_zoo.py --python bench/.venv-zoo/bin/python` (the four zoos "
            "installed in that interpreter; an hour or more on 2 cores)",
        ),
        Benchmark(
            "zoo",
            ("bench/zoo.py", "score"),
            (),
            ("analyzers/", "bench/zoo.py", "bench/zoo_models.py", "bench/zoo_export.py"),
            default=False,
            manual="`.venv/bin/python bench/zoo.py export --python bench/.venv-zoo/bin/python` (torch 2.14.1 "
            "with the four zoos and coverage installed), then `.venv/bin/python bench/zoo.py score`",
        ),
        Benchmark(
            "versions",
            ("bench/versions.py",),
            ("--quick",),
            ("analyzers/", "tests/truth/", "tests/confirm/test_confirm_versions.py", "bench/versions.py"),
            default=False,
            manual="`bash bench/versions.sh` (one venv per torch version), then `.venv/bin/python bench/versions.py`",
        ),
    )
}


# --- stamps -------------------------------------------------------------------------------------


def git(*args: str, repo: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def dirty_paths(paths: tuple[str, ...] | list[str], repo: Path = REPO) -> list[str]:
    """Files under `paths` whose working copy differs from HEAD, untracked ones included."""
    changed = git("diff", "--name-only", "HEAD", "--", *paths, repo=repo).split("\n")
    untracked = git("ls-files", "--others", "--exclude-standard", "--", *paths, repo=repo).split("\n")
    return sorted({path for path in changed + untracked if path})


def begin(name: str, repo: Path = REPO) -> dict[str, Any]:
    """The stamp of a run starting now: call before measuring, hand it to `write_results`."""
    paths = list(BENCHMARKS[name].paths)
    return {
        "commit": git("rev-parse", "HEAD", repo=repo),
        "dirty": dirty_paths(paths, repo),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "paths": paths,
        "machine": f"{platform.machine()}, {_cores()} cores, Python {platform.python_version()}",
    }


def write_results(
    name: str, stamp: dict[str, Any], figures: dict[str, Any], reduced: str | None = None, repo: Path = REPO
) -> Path:
    """Write bench/results/<name>.json. Whatever changed in the measured paths while the run went
    on (uncommitted edits, or commits by someone else) marks the run dirty: it measured no commit."""
    changed = set(stamp["dirty"]) | set(dirty_paths(stamp["paths"], repo))
    if git("rev-parse", "HEAD", repo=repo) != stamp["commit"]:
        changed |= set(git("diff", "--name-only", stamp["commit"], "HEAD", "--", *stamp["paths"], repo=repo).split())
    stamp = {**stamp, "dirty": sorted(changed), "reduced": reduced}
    target = repo / "bench" / "results" / f"{name}.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps({"stamp": stamp, "figures": figures}, indent=2) + "\n")
    return target


def load(name: str, results: Path = RESULTS) -> dict[str, Any]:
    return json.loads((results / f"{name}.json").read_text())


def staleness(stamp: dict[str, Any], repo: Path = REPO) -> str | None:
    """Why these figures may not describe the code at HEAD, or None when they do: the stamp's
    commit must contain the last commit touching the measured paths, with nothing uncommitted,
    from a full run."""
    problems = []
    if stamp.get("dirty") is None:
        problems.append("stamp inferred from history, tree state unknown")
    elif stamp["dirty"]:
        problems.append(f"measured with uncommitted changes to {', '.join(stamp['dirty'][:3])}")
    if stamp.get("reduced"):
        problems.append(f"a reduced run ({stamp['reduced']})")
    last = git("log", "-1", "--format=%H", "--", *stamp["paths"], repo=repo)
    if last and not is_ancestor(last, stamp["commit"], repo):
        # no commit named: the text stays the same however many commits follow
        problems.append(
            f"the measured paths changed since: `git log {stamp['commit'][:7]}.. -- {' '.join(stamp['paths'])}`"
        )
    return "; ".join(problems) or None


def is_ancestor(older: str, newer: str, repo: Path = REPO) -> bool:
    done = subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], cwd=repo, capture_output=True)
    if done.returncode not in (0, 1):
        raise LookupError(f"git does not know {older[:7]} or {newer[:7]}: {done.stderr.decode().strip()}")
    return done.returncode == 0


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# --- text ---------------------------------------------------------------------------------------


def provenance(name: str, result: dict[str, Any], repo: Path = REPO) -> str:
    """One line saying which code the figures describe, and loudly when it may not be the current code."""
    stamp = result["stamp"]
    where = (
        f"`{stamp['commit'][:7]}` ({stamp['date'][:10]}; measured paths "
        f"{', '.join(f'`{p}`' for p in stamp['paths'])}; `bench/results/{name}.json`)"
    )
    problem = staleness(stamp, repo)
    if problem is None:
        return f"_Measured on {where}._"
    benchmark = BENCHMARKS[name]
    again = f"`{REFRESH} --only {name}`" if benchmark.default else benchmark.manual
    return f"**Not verified against the current code** ({problem}). Measured on {where}. Refresh with {again}."


def _s(seconds: float, digits: int = 1) -> str:
    return f"{seconds:.{digits}f} s"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def speed_ratio(figures: dict[str, Any]) -> tuple[float, list[float]]:
    """Median of the paired runs' cold/parse ratios, and the ratios."""
    ratios = [pair["cold_s"] / pair["parse_s"] for pair in figures["pairs"]]
    return median(ratios), ratios


def speed(r: dict[str, dict[str, Any]]) -> str:
    f = r["speed"]["figures"]
    ratio, ratios = speed_ratio(f)
    parse = median(p["parse_s"] for p in f["pairs"])
    cold = median(p["cold_s"] for p in f["pairs"])
    rows = [
        (
            "CPython `ast.parse`, 1 process",
            _s(f["ast_parse_1_process_s"]),
            f"{f['ast_parse_1_process_s'] / parse:.2f}x",
        ),
        (f"`libcst.parse_module`, {f['jobs']} processes (median)", _s(parse), "1.00x"),
        (
            f"**xport-lint, cold** (`check --no-cache -j {f['jobs']}`, index built from cold; median)",
            f"**{_s(cold)}**",
            f"**{ratio:.2f}x**",
        ),
        (
            "**xport-lint, second run** (findings and summaries from the cache)",
            f"**{_s(f['xport_lint_cached_s'], 2)}**",
            "",
        ),
    ]
    if "ruff_all_rules_s" in f:
        rows.append((f"ruff, every rule (`--select ALL`, {f['jobs']} threads)", _s(f["ruff_all_rules_s"]), ""))
    if "torchfix_s" in f:
        rows.append(
            (f"torchfix (`--select ALL -j {f['jobs']}`)", _s(f["torchfix_s"]), f"{f['torchfix_s'] / parse:.1f}x")
        )
    pairs = ", ".join(f"{x:.2f}x" for x in ratios)
    edit = f["per_edit"]
    findings = ", ".join(f"{code} {n:,}" for code, n in f["findings"].items()) or "none"
    return "\n".join(
        [
            provenance("speed", r["speed"]),
            "",
            f"{f['files']:,} files, {f['lines']:,} lines, {f['jobs']} processes where the tool can; {f['machine']}.",
            "",
            "| what | seconds | vs bare libcst parse |",
            "|---|---:|---:|",
            *(f"| {a} | {b} | {c} |" for a, b, c in rows),
            "",
            f"- Paired runs (bare parse, then the cold CLI, back to back): {pairs}; **median {ratio:.2f}x** "
            f"(target: at most 1.3x, issue 23).",
            f"- Findings (default rules): {findings}.",
            "- Per edit, engine alone (`check_source` on the whole file, median of repeats): "
            f"{_ms(edit['500_lines']['median_s'])} "
            f"on a {edit['500_lines']['lines']:,}-line file (libcst parse {_ms(edit['500_lines']['libcst_parse_s'])}), "
            f"{_ms(edit['largest']['median_s'])} on {edit['largest']['lines']:,} lines "
            f"(parse {_ms(edit['largest']['libcst_parse_s'])}).",
        ]
    )


def server(r: dict[str, dict[str, Any]]) -> str:
    f = r["server"]["figures"]
    small, large = f["edit_500_lines"], f["edit_largest"]
    startup = f["startup_xport_lint_s"] / f["startup_minimal_pygls_s"]
    return "\n".join(
        [
            provenance("server", r["server"]),
            "",
            f"Settings: {_settings(f)}. The workspace is the corpus, indexed in the background.",
            "",
            "| what | measured | target |",
            "|---|---:|---|",
            f"| start-up to the `initialize` response, bare pygls server (median of {f['startups']}) | "
            f"{_s(f['startup_minimal_pygls_s'], 3)} | |",
            f"| start-up to the `initialize` response, xport-lint | {_s(f['startup_xport_lint_s'], 3)} "
            f"(**{startup:.2f}x**) | within 1.25x |",
            f"| `didChange` to published diagnostics, {small['lines']:,}-line file "
            f"(median of {small['edits']} keystrokes) "
            f"| **{small['median_ms']:.1f} ms** (max {small['max_ms']:.1f}) | under 50 ms, plus the debounce |",
            f"| same, largest corpus file ({large['lines']:,} lines) | **{large['median_ms']:.1f} ms** "
            f"(first edit {large['first_edit_ms']:.1f}) | under 150 ms, plus the debounce |",
            *_server_big(f),
            f"| RSS after opening the {f['opened']} largest corpus files, server + its lint process | "
            f"**{f['rss_mb']:.0f} MB** | under 300 MB |",
        ]
    )


def _server_big(f: dict[str, Any]) -> list[str]:
    """The 20,000-line rows (absent from figures measured before server_bench.py had them)."""
    big, hover = f.get("edit_20000_lines"), f.get("hover_during_lint")
    if big is None or hover is None:
        return []
    return [
        f"| same, {big['lines']:,}-line module of distinct transformers model files | **{big['median_ms']:.1f} ms** "
        f"(first edit {big['first_edit_ms']:.1f}, max {big['max_ms']:.1f}) | under 1 s |",
        f"| hover on an input size while that module's edit is linted (median of {hover['hovers']}; "
        f"{hover['during_lint']} answered before the edit's diagnostics) | **{hover['median_ms']:.1f} ms** "
        f"(max {hover['max_ms']:.1f}) | under 100 ms |",
    ]


def _settings(f: dict[str, Any]) -> str:
    debounce = f["debounce_ms"]
    if f.get("default_settings"):
        return f"the server's defaults (debounce {debounce:g} ms, included in the latencies)"
    return f"debounce {debounce:g} ms, not the server's default (latencies exclude the default debounce)"


def confirm(r: dict[str, dict[str, Any]]) -> str:
    f = r["confirm"]["figures"]
    return "\n".join(
        [
            provenance("confirm", r["confirm"]),
            "",
            "| what | seconds |",
            "|---|---:|",
            f"| first confirmation (worker start and torch import) | {f['first_confirmation_s']:.2f} |",
            f"| **second and later confirmations of an edited file, warm worker** (median of {f.get('warm_runs', 5)}; "
            f"max {f['warm_confirmation_max_s']:.3f}) | **{f['warm_confirmation_median_s']:.3f}** |",
            f"| cache hit (file and its local imports unchanged: no worker call) | {f['cache_hit_s']:.3f} |",
        ]
    )


def truth(r: dict[str, dict[str, Any]]) -> str:
    f = r["truth"]["figures"]
    rows = [f"| {kind} | {count} |" for kind, count in f["by_claim"].items()]
    return "\n".join(
        [
            provenance("truth", r["truth"]),
            "",
            f"{f['pairs']} example × mode pairs; all but the confirmation-only ones are also checked as a whole file "
            "(error findings iff export fails):",
            "",
            "| claim checked with real torch | pairs |",
            "|---|---:|",
            *rows,
        ]
    )


def fuzz(r: dict[str, dict[str, Any]]) -> str:
    f = r["fuzz"]["figures"]
    rows = [
        (
            "every 3rd prefix of each example model (half-typed code) through `check_source`",
            f["prefixes"]["texts"],
            f"{f['prefixes']['failures']} raised",
        ),
        (
            "random edits of the example models with odd characters and line ends; every finding's range "
            "inside the text, every fix applied and compiled",
            f["edits"]["edits"],
            f["edits"]["failures"],
        ),
        (
            "hostile `[tool.xport-lint]` tables through the CLI: exit 2 naming the key, no traceback",
            f["configs"]["configs"],
            f["configs"]["not_exit_2_with_message"],
        ),
        (
            "cache databases with flipped bytes, truncated, or holding malformed rows: the same findings "
            "as an uncached run",
            f["caches"]["mutations"],
            f["caches"]["wrong_results"],
        ),
    ]
    return "\n".join(
        [
            provenance("fuzz", r["fuzz"]),
            "",
            f"Seed {f['seed']}.",
            "",
            "| job | inputs | wrong |",
            "|---|---:|---:|",
            *(f"| {a} | {b:,} | {c} |" for a, b, c in rows),
            "",
            "Time by file size (CLI, one file of repeated model code, cold):",
            "",
            "| file | seconds |",
            "|---|---:|",
            *(f"| {_size(size)} | {seconds:.1f} |" for size, seconds in f["seconds_per_file_by_size"].items()),
        ]
    )


def _size(key: str) -> str:
    """'5035 KB' -> '5.0 MB'."""
    kb = int(key.split()[0])
    return f"{kb / 1000:.1f} MB" if kb >= 1000 else f"{kb} KB"


def fixes(r: dict[str, dict[str, Any]]) -> str:
    f = r["fixes"]["figures"]
    snippets = f["failing_snippets"]
    snippet_rows = [
        f"| {rule} | {row['snippets']} | {row['proven']} | {row['failed']} |"
        for rule, row in sorted(snippets["per_rule"].items())
    ]
    examples = f["examples"]
    example_rows = [
        f"| {code} | {row['flagged']} | {row['fix_offered']} | {row['fix_proven']} |" for code, row in examples.items()
    ]
    flagged = sum(row["flagged"] for row in examples.values())
    offered = sum(row["fix_offered"] for row in examples.values())
    proven = sum(row["fix_proven"] for row in examples.values())
    lines = [
        provenance("fixes", r["fixes"]),
        "",
        "**In-sample**: the snippets and the examples were written alongside the rewrites they test, and "
        "every failure found was fixed against them.",
        "",
        "| rule of the snippet's first error | snippets | proven fix | offered fix that fails |",
        "|---|---:|---:|---:|",
        *snippet_rows,
        f"| **all** | **{snippets['total']}** "
        f"| **{snippets['proven']} ({snippets['proven'] / snippets['total']:.0%})** "
        f"| **{snippets['failed']}** |",
        "",
        "| rule | flagged examples | fix offered | fix proven |",
        "|---|---:|---:|---:|",
        *example_rows,
        f"| **all** | **{flagged}** | **{offered}** "
        f"| **{proven} ({proven / offered if offered else 0:.0%} of offered)** |",
    ]
    corpus = f.get("corpus")
    if corpus:
        offered_corpus = ", ".join(f"{code} {n}" for code, n in corpus["fixes_offered"].items())
        lines += [
            "",
            f"On the speed corpus, every fix applied (`--unsafe-fixes`): fixes offered {offered_corpus}; "
            f"**{corpus['files_fixed']} files rewritten, {len(corpus['broken'])} that fail to parse or change "
            f"again on a second pass**.",
        ]
    return "\n".join(lines)


def precision(r: dict[str, dict[str, Any]]) -> str:
    return _precision(r, "precision", (
        "**In-sample**: each wrong verdict of earlier samples was fixed in the engine against this same corpus, "
        "so this says how well the engine fits this corpus, not how it does on unseen code. The held-out "
        "figure is the next section's."
    ))


def precision_heldout(r: dict[str, dict[str, Any]]) -> str:
    return _precision(r, "precision_heldout", (
        "**Held out**: libraries the engine was never tuned on (`bench/heldout_wheels.txt`). Only the first "
        "sample of a seed is held out: what it finds wrong is then fixed against the same libraries, so a "
        "later sample is partly in-sample, as the history says."
    ))


def precision_heldout2(r: dict[str, dict[str, Any]]) -> str:
    return _precision(r, "precision_heldout2", (
        "**Held out, second set**: libraries nobody here has tuned the engine on (`bench/heldout2_wheels.txt`), "
        "sampled once and judged before any fix."
    ))


def precision_heldout3(r: dict[str, dict[str, Any]]) -> str:
    return _precision(r, "precision_heldout3", (
        "**Held out, third set**: libraries of other domains nobody here had looked at "
        "(`bench/heldout3_wheels.txt`), sampled once and judged before any fix."
    ))


def _precision(r: dict[str, dict[str, Any]], name: str, kind: str) -> str:
    f = r[name]["figures"]
    unjudged = f["sampled"] - f["judged"]
    lines = [
        provenance(name, r[name]),
        "",
        kind,
        "",
        "| measure | value |",
        "|---|---:|",
        f"| errors on the corpus | {f['errors_in_corpus']} |",
        f"| drawn (seed {f['seed']}) | {f['sampled']}, of which {f['judged']} judged |",
        f"| **right among the judged draws** | **{f['right']} of {f['judged']} ({f['right'] / f['judged']:.0%})** |",
    ]
    if f.get("all_judged") is not None:
        lines.append(
            f"| errors of the corpus with a verdict | {f['all_judged']} of {f['errors_in_corpus']}, "
            f"{f['all_right']} right ({f['all_right'] / f['all_judged']:.0%}) |"
        )
    if f.get("warnings_judged"):
        lines += [
            f"| warnings on the corpus | {f['warnings_in_corpus']} |",
            f"| warnings drawn (seed {f['warning_seed']}) | {f['warnings_sampled']}, of which "
            f"{f['warnings_judged']} judged |",
            f"| **useful among the judged warnings** | **{f['warnings_useful']} of {f['warnings_judged']} "
            f"({f['warnings_useful'] / f['warnings_judged']:.0%})** |",
        ]
    if len(f.get("samples", ())) > 1:
        lines += [
            "",
            f"Every sample scored so far (`bench/{name.replace('precision', 'precision_history')}.json`; each "
            "drawn with fresh seeds on the "
            "engine of its commit, the later ones after fixing what the earlier ones found wrong):",
            "",
            "| drawn on | seeds (errors/warnings) | errors right | warnings useful |",
            "|---|---|---:|---:|",
            *(
                f"| `{old['commit'][:7]}` | {old['seed']}/{old.get('warning_seed', '-')} | "
                f"{old['right']} of {old['judged']} ({old['right'] / old['judged']:.0%}) | "
                + (f"{old['warnings_useful']} of {old['warnings_judged']} "
                   f"({old['warnings_useful'] / old['warnings_judged']:.0%})" if old.get("warnings_judged") else "-")
                + " |"
                for old in f["samples"]
            ),
        ]
    if unjudged:
        lines += [
            "",
            f"**{unjudged} drawn errors have no verdict yet**: the figure is not final until they are judged "
            "(`bench/precision.py` lists them).",
        ]
    return "\n".join(lines)


def zoo(r: dict[str, dict[str, Any]]) -> str:
    s = r["zoo"]["figures"]["summary"]
    models = r["zoo"]["figures"]["models"]
    failing = [(name, m) for name, m in sorted(models.items()) if m.get("failing_line")]
    rows = [
        f"| {name} | `{m['failing_line']}` | {', '.join(m['failing_line_flagged']) or 'not flagged'} |"
        for name, m in failing
    ]
    share = {z: _share(models, z) for z in ("transformers", "diffusers", "torchvision", "timm")}
    v = s.get("versions")
    versions = (
        [
            f"Exported with torch {v['torch']} ({', '.join(f'{z} {v[z]}' for z in sorted(v) if z != 'torch')}); "
            f"linted with `target-torch` {v['torch'].split('+')[0]}, the torch the exports ran on.",
            "",
        ]
        if v
        else []
    )
    return "\n".join(
        [
            provenance("zoo", r["zoo"]),
            "",
            *versions,
            "**In-sample**: every false error the first runs found was fixed against these same models.",
            "",
            "| measure | value |",
            "|---|---:|",
            f"| exports that succeed | {s['models'] - s['exports_failed']} of {s['models']} |",
            f"| **error findings on a line a successful export ran** | **{s['false_errors_on_executed_lines']}** |",
            "| executed library lines inside the functions xport-lint analyses | "
            f"{s['share_of_executed_lines_analysed']:.0%} "
            f"({', '.join(f'{z} {v:.0%}' for z, v in share.items() if v is not None)}) |",
            f"| failing lines of the {s['exports_failed']} failed exports that carry a finding | "
            f"{s['failing_lines_flagged']} |",
            f"| files linted as one project, cold | {s['files_linted']:,} in {_s(s['lint_seconds_cold'])} |",
            "",
            "| failed export | failing line | finding on it |",
            "|---|---|---|",
            *rows,
            *_zoo_dynamic(r["zoo"]["figures"]),
        ]
    )


def _zoo_dynamic(f: dict[str, Any]) -> list[str]:
    """The cases exported with `dynamic_shapes`, each linted with its declaration."""
    d, cases = f.get("dynamic_summary"), f.get("dynamic", {})
    if not d:
        return []
    rows = []
    for name, c in sorted(cases.items()):
        dims = "; ".join(
            f"{arg}[{i}] {spec if isinstance(spec, str) else spec['name'] + _range(spec)}"
            for shapes in c["declared"].values()
            for arg, per in shapes.items()
            for i, spec in per.items()
        )
        if c["failure"] is None:
            outcome, seen = "exports", ", ".join(c["false_errors"]) or "no false error"
        else:
            kind = "constraint violation" if c["failure"].get("constraint_violation") else c["failure"]["type"]
            outcome = f"fails ({kind})"
            seen = "; ".join(
                f"`{line}` {', '.join(flags) or 'not flagged'}" for line, flags in c["failing_lines"].items()
            ) or "no library line named"
        rows.append(f"| {name} | {dims} | {outcome} | {seen} |")
    return [
        "",
        f"**Exported with `dynamic_shapes`** ({d['cases']} cases, each declared to the lint in "
        "`[tool.xport-lint.dynamic-shapes]`): "
        f"{d['cases'] - d['exports_failed']} export; **{d['false_errors_on_executed_lines']} error findings** on "
        f"lines a successful one ran; failing lines flagged in {d['failed_flagged']} of {d['exports_failed']} failed "
        f"exports ({d['failed_flagged_as_error']} as errors); constraint violations flagged "
        f"{d['constraint_violations_flagged']} of {d['constraint_violations']} "
        f"({d['constraint_violations_flagged_as_error']} as errors).",
        "",
        "| case | declared | export | false errors, or the failing lines and their findings |",
        "|---|---|---|---|",
        *rows,
    ]


def _range(spec: dict[str, Any]) -> str:
    bounds = [f"{key}={spec[key]}" for key in ("min", "max") if spec.get(key) is not None]
    return f" ({', '.join(bounds)})" if bounds else ""


def _share(models: dict[str, Any], zoo_name: str) -> float | None:
    chosen = [m for name, m in models.items() if name.startswith(zoo_name + "/")]
    executed = sum(m["executed_lines"] for m in chosen)
    return sum(m["inside_analysed"] for m in chosen) / executed if executed else None


def readme(r: dict[str, dict[str, Any]]) -> str:
    """The README's Speed paragraph: the headline figures, each with where it comes from."""
    sp, sv, cf, fz, zo = (r[n]["figures"] for n in ("speed", "server", "confirm", "fuzz", "zoo"))
    ratio, ratios = speed_ratio(sp)
    small, large = sv["edit_500_lines"], sv["edit_largest"]
    biggest_size, biggest_time = list(fz["seconds_per_file_by_size"].items())[-1]
    z = zo["summary"]
    severities = {
        flag.split(" ")[1].strip("()") for m in zo["models"].values() for flag in m.get("failing_line_flagged", [])
    }
    flagged = f" (as {' and '.join(s + 's' for s in sorted(severities))})" if severities else ""
    text = (
        f"On {sp['files']:,} real model files ({sp['lines'] / 1000:,.0f}k lines, {sp['jobs']} cores), with the project "
        f"index built from cold: {ratio:.2f}x bare libcst parsing (median of {len(ratios)} paired "
        f"run{'s' if len(ratios) != 1 else ''}: {', '.join(f'{x:.2f}x' for x in ratios)}; target 1.3x), "
        f"{_s(sp['xport_lint_cached_s'], 2)} from the cache; in the language server with {_settings(sv)}, "
        f"{small['median_ms']:.0f} ms from keystroke to diagnostics on a {small['lines']:,}-line file and "
        f"{large['median_ms']:.0f} ms on a {large['lines']:,}-line one; a warm draft_export confirmation in "
        f"{_s(cf['warm_confirmation_median_s'], 2)}; a {_size(biggest_size)} file in {_s(biggest_time)} "
        f"(linear in size, as libcst's parse). On {z['models']} real models exported under coverage, "
        f"{z['false_errors_on_executed_lines']} error findings fall on a line a successful export ran, and "
        f"{z['failing_lines_flagged']} of the {z['exports_failed']} failing lines carry a finding{flagged}; "
        "in-sample: the false errors found by earlier runs were fixed against these models."
    )
    sources, stale = [], []
    for name in ("speed", "server", "confirm", "fuzz", "zoo"):
        stamp = r[name]["stamp"]
        sources.append(f"{name} `{stamp['commit'][:7]}` ({stamp['date'][:10]})")
        if staleness(stamp) is not None:
            stale.append(name)
    measured = "Measured on: " + ", ".join(sources) + "."
    if stale:
        measured += (
            f" **Not verified against the current code: {', '.join(stale)}** (why, and how to refresh: "
            "`bench/RESULTS.md`)."
        )
    return (
        textwrap.fill(text, 100, break_on_hyphens=False) + "\n\n" + textwrap.fill(measured, 100, break_on_hyphens=False)
    )


def versions(r: dict[str, dict[str, Any]]) -> str:
    measured = r["versions"]["figures"]["versions"]

    def cell(counts: dict[str, int]) -> str:
        total = counts["passed"] + counts["failed"]
        said = f"{counts['passed']} of {total}"
        return f"**{said}**" if counts["failed"] else said

    rows = [
        f"| {version} | {cell(f['examples'])} | {cell(f['fixes'])} | {cell(f['catalogue'])} | "
        f"{cell(f['confirmation'])} | {f['examples']['skipped'] + f['fixes']['skipped'] + f['catalogue']['skipped']} |"
        for version, f in measured.items()
    ]
    failures = [f"- torch {version}: `{name}`" for version, f in measured.items() for name in f["failures"]]
    return "\n".join(
        [
            provenance("versions", r["versions"]),
            "",
            "| torch | rule examples agreeing (example × mode) | fixes proven | catalogue checks agreeing | "
            "confirmation tests | skipped |",
            "|---|---:|---:|---:|---:|---:|",
            *rows,
            *(["", "Disagreeing:", *failures] if failures else []),
        ]
    )


def repair(r: dict[str, dict[str, Any]]) -> str:
    cases = r["repair"]["figures"]["cases"]
    failing = [c for c in cases if c.get("failed_before")]
    exported = [c for c in failing if c.get("equal_after")]
    def dynamic(c: dict[str, Any]) -> str:
        if not c.get("dynamic") or not c.get("equal_after"):
            return "-"
        return "no (made static)" if c.get("made_static") else "yes"

    rows = [
        f"| {c['case']} | {'fails' if c.get('failed_before') else 'exports'} | "
        f"{'yes' if c.get('equal_after') else 'no'} | {dynamic(c)} | "
        f"{len(c.get('kept', []))} kept, {len(c.get('rejected', []))} rejected | "
        f"{(c.get('blocker') or c.get('error') or '').replace('|', '/')[:160]} |"
        for c in cases
    ]
    return "\n".join([
        provenance("repair", r["repair"]),
        "",
        f"**{len(exported)} of {len(failing)}** failing cases export after `repair` with outputs equal to eager "
        "(on the example, and on a second size where a dim is dynamic).",
        "",
        "| case | as it is | after repair: exports, equals eager | dims kept dynamic | steps | blocker left |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "What `repair` says a person should do about each blocker:",
        "",
        *(f"- {c['case']}: {c['advice'][:400]}" for c in cases if c.get("advice") and not c.get("equal_after")),
    ])


def spelling(r: dict[str, dict[str, Any]]) -> str:
    f = r["spelling"]["figures"]
    kinds = f["kinds"]
    total = {key: sum(row.get(key, 0) for row in kinds.values()) for key in (
        "variants", "same verdict", "known gap", "fix kept", "fix checked", "fix proven", "fix skipped"
    )}
    rows = [
        f"| `{kind}` | {row.get('variants', 0)} ({row.get('from the corpus', 0)} from the corpus) | "
        f"{row.get('same verdict', 0)} | {row.get('known gap', 0)} | {row.get('fix kept', 0)} of "
        f"{row.get('original fixed', 0)} | {row.get('fix proven', 0)} of "
        f"{row.get('fix checked', 0) - row.get('fix skipped', 0)} |"
        for kind, row in kinds.items()
    ]
    failures = f["proof_failures"]
    return "\n".join([
        provenance("spelling", r["spelling"]),
        "",
        f"**{total['same verdict']} of {total['variants']}** spelling variants get the same verdict "
        f"({total['known gap']} differ where `KNOWN_GAPS` says why, {len(f['unexplained'])} elsewhere); "
        f"**{total['fix proven']} of {total['fix checked'] - total['fix skipped']}** fixes they keep are proven "
        f"(export on torch, equal to eager; {total['fix skipped']} not checked: the original's own fix fails "
        "the proof).",
        "",
        "| kind | variants | same verdict | known gap | fix kept | fix proven |",
        "|---|---|---|---|---|---|",
        *rows,
        *(["", f"{len(failures)} proofs failed:"] if failures else []),
        *(f"- {failure.splitlines()[0][:160]}" for failure in failures),
    ])


def report(r: dict[str, dict[str, Any]]) -> str:
    f = r["report"]["figures"]
    ratios = [pair["ratio"] for pair in f["pairs"]]
    cold_check = median(pair["check_cold_s"] for pair in f["pairs"])
    cold_report = median(pair["report_cold_s"] for pair in f["pairs"])
    sizes = f["sizes_chars"]
    counts = f["verdicts"]["non-strict"]
    return "\n".join([
        provenance("report", r["report"]),
        "",
        f"{f['files']:,} files, `-j {f['jobs']}`; {f['models']:,} models ({f['top_level_models']:,} top-level, "
        f"{f['exported_models']:,} named by an export call or example), non-strict: {counts['fails']} fail, "
        f"{counts['fails-when']} fail only under a condition, {counts['exports']:,} export.",
        "",
        "| what | measured | target |",
        "|---|---:|---|",
        f"| `check --no-cache`, cold (median of {len(ratios)}) | {_s(cold_check)} | |",
        f"| `report --no-cache`, cold (median) | {_s(cold_report)} "
        f"(**{median(ratios):.2f}x** check; pairs {', '.join(f'{x:.2f}x' for x in ratios)}) | within 1.2x |",
        f"| `report`, warm (median of {len(f['warm_report_runs_s'])}) | **{_s(f['warm_report_s'], 2)}** "
        f"(`check` warm {_s(f['warm_check_s'], 2)}) | under 2 s |",
        f"| markdown | {sizes['markdown']:,} characters" + (" (cut, with its note)" if f["markdown_cut"] else "")
        + " | under 65,536 |",
        f"| HTML, one file | {sizes['html'] / 1e6:.1f} MB | |",
        f"| JSON | {sizes['json'] / 1e6:.1f} MB | |",
    ])


BLOCKS: dict[str, Callable[[dict[str, dict[str, Any]]], str]] = {
    "repair": repair,
    "speed": speed,
    "server": server,
    "confirm": confirm,
    "truth": truth,
    "fuzz": fuzz,
    "fixes": fixes,
    "spelling": spelling,
    "precision": precision,
    "precision_heldout": precision_heldout,
    "precision_heldout2": precision_heldout2,
    "precision_heldout3": precision_heldout3,
    "zoo": zoo,
    "report": report,
    "versions": versions,
    "readme-speed": readme,
}
#: a generated block: its markers on lines of their own; the body never crosses into another block
BLOCK = re.compile(
    r"^<!-- figures:(?P<name>[\w-]+) -->\n(?P<body>(?:(?!<!-- /?figures).)*?)\n?^<!-- /figures -->$", re.S | re.M
)


def blocks(text: str) -> dict[str, str]:
    """The generated blocks of a document, by name."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


def render_blocks(text: str, results: dict[str, dict[str, Any]]) -> str:
    """`text` with every generated block rewritten from `results`."""
    return BLOCK.sub(lambda m: f"<!-- figures:{m['name']} -->\n{BLOCKS[m['name']](results)}\n<!-- /figures -->", text)


def load_all(results: Path = RESULTS) -> dict[str, dict[str, Any]]:
    return {name: load(name, results) for name in BENCHMARKS}


DOCUMENTS = (REPO / "README.md", REPO / "bench" / "RESULTS.md")
