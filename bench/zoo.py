"""What export really runs, against what xport-lint analyses and reports: tiny-config models of
four model zoos (transformers, timm, torchvision, diffusers) exported under coverage in the zoo
interpreter, then the zoos' installed sources linted as one project, judged for the torch the
exports ran on (its `target-torch`: the zoo interpreter has torch 2.14.1, `bench/.venv-zoo`).

Usage:
  python bench/zoo.py export --python /path/to/zoo/python [MODEL...]  # runs bench/zoo_export.py per model
  python bench/zoo.py score                                  # lints the zoos, writes bench/results/zoo.json

The zoo interpreter needs torch transformers diffusers timm torchvision coverage; each run records
the versions it used, and every run must share one torch version. Figures: share of executed library lines inside the
functions xport-lint analyses; failing lines of failed exports that carry a finding; error findings
on lines a successful export executed (false errors: must be 0).

The `DYNAMIC` cases of bench/zoo_models.py export with named `Dim`s or `Dim.AUTO`. The lint learns
each declaration as a user exporting a library model tells it, since the export call (a model
built by `from_pretrained` or `timm.create_model`) names no class the lint can resolve: a
`[tool.xport-lint.dynamic-shapes]` entry for the exported class, e.g.

  [tool.xport-lint.dynamic-shapes."transformers.models.bert.modeling_bert.BertModel"]
  input_ids = { 0 = { name = "batch", min = 2, max = 16 }, 1 = { name = "seq", min = 2, max = 1024 } }

Each case is judged on its own: false errors on the lines its successful export ran, and for a
failed one the failing line (for a constraint violation, the lines `draft_export` says added the
guards) with the findings on it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from figures import begin, write_results

HERE = Path(__file__).parent
RUNS = HERE / "zoo_runs.json"


def export(python: str, only: list[str]) -> None:
    sys.path.insert(0, str(HERE))
    listing = subprocess.run(
        [
            python,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from zoo_models import DYNAMIC, MODELS; "
            "print(*MODELS, *DYNAMIC)",
            str(HERE),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    runs = json.loads(RUNS.read_text()) if RUNS.exists() and only else {}
    for model in listing:
        if only and model not in only:
            continue
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [python, str(HERE / "zoo_export.py"), model], capture_output=True, text=True, timeout=900
            )
        except subprocess.TimeoutExpired:
            print(f"{model}: timed out", file=sys.stderr)
            continue
        if done.returncode != 0 or not done.stdout.strip():
            print(f"{model}: could not run\n{done.stderr[-600:]}", file=sys.stderr)
            continue
        run = json.loads(done.stdout.strip().splitlines()[-1])
        runs[model] = run
        failure = run["failure"]
        print(
            f"{model}: {'ok' if failure is None else 'FAILED ' + failure['type']} "
            f"({time.perf_counter() - start:.0f} s, {sum(map(len, run['executed'].values()))} lines ran)",
            file=sys.stderr,
        )
        RUNS.write_text(json.dumps(runs))  # after each model: a long run interrupted keeps what it measured


def _function_spans(path: str) -> dict[tuple[str, str], tuple[int, int]]:
    """(module-level name or Class.method) -> first and last line, from CPython's ast."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (SyntaxError, OSError, UnicodeDecodeError):
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[("", node.name)] = (node.lineno, node.end_lineno or node.lineno)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[(node.name, item.name)] = (item.lineno, item.end_lineno or item.lineno)
    return out


def score() -> None:
    stamp = begin("zoo")
    sys.path.insert(0, str(HERE.parent / "analyzers"))
    from xport_lint.analyzers.config import Config
    from xport_lint.analyzers.files import discover
    from xport_lint.analyzers.project import check_project

    every = json.loads(RUNS.read_text())
    runs = {model: run for model, run in every.items() if "dynamic_shapes" not in run}
    versions = {json.dumps(run.get("versions"), sort_keys=True) for run in every.values()}
    if len(versions) != 1 or None in (run.get("versions") for run in every.values()):
        raise SystemExit(f"the runs used different or unrecorded versions ({sorted(versions)}): export them again")
    zoo_versions = next(iter(runs.values()))["versions"]
    roots = sorted({root for run in runs.values() for root in run["roots"]})
    files = discover(roots, ())
    start = time.perf_counter()
    # no cache: the time is a cold one, and findings are those of the torch the exports ran on
    config = Config(target_torch=zoo_versions["torch"])
    checked = check_project(files, config, None, None)
    lint_seconds = time.perf_counter() - start
    dynamic = _dynamic_cases(checked, config, {m: r for m, r in every.items() if "dynamic_shapes" in r})
    findings = {r.path: r.findings for r in checked.results}
    analysed: dict[str, set[int]] = {}
    for path, summary in checked.summaries.items():
        spans = _function_spans(path)
        lines: set[int] = set()
        for name, func in summary.functions.items():
            if func.calls is not None and ("", name) in spans:
                lines.update(range(spans[("", name)][0], spans[("", name)][1] + 1))
        for cls_name, cls in summary.classes.items():
            for name, func in cls.methods.items():
                if func.calls is not None and (cls_name, name) in spans:
                    lines.update(range(spans[(cls_name, name)][0], spans[(cls_name, name)][1] + 1))
        analysed[path] = lines
    per_model = {}
    executed_ok: dict[str, set[int]] = defaultdict(set)
    for run in runs.values():
        if run["failure"] is None:
            for path, lines in run["executed"].items():
                executed_ok[path].update(lines)
    false_errors = []
    for path, lines in executed_ok.items():
        for finding in findings.get(path, []):
            if finding.severity.value == "error" and finding.span.start.line in lines:
                false_errors.append(
                    {
                        "file": _short(path),
                        "line": finding.span.start.line,
                        "code": finding.code,
                        "message": finding.message,
                    }
                )
    for model, run in sorted(runs.items()):
        executed = sum(len(lines) for lines in run["executed"].values())
        inside = sum(len(set(lines) & analysed.get(path, set())) for path, lines in run["executed"].items())
        entry = {
            "executed_lines": executed,
            "inside_analysed": inside,
            "share": round(inside / executed, 3) if executed else None,
            "failure": run["failure"],
        }
        failure = run["failure"]
        if failure is not None and failure["file"]:
            on_line = [f for f in findings.get(failure["file"], []) if f.span.start.line == failure["line"]]
            entry["failing_line"] = f"{_short(failure['file'])}:{failure['line']}"
            entry["failing_line_flagged"] = [f"{f.code} ({f.severity.value})" for f in on_line]
        per_model[model] = entry
    failed = [m for m in per_model.values() if m["failure"] is not None and m.get("failing_line")]
    total_executed = sum(m["executed_lines"] for m in per_model.values())
    total_inside = sum(m["inside_analysed"] for m in per_model.values())
    summary = {
        "versions": zoo_versions,
        "files_linted": len(files),
        "lint_seconds_cold": round(lint_seconds, 1),
        "models": len(per_model),
        "exports_failed": len(failed),
        "failing_lines_flagged": sum(1 for m in failed if m["failing_line_flagged"]),
        "share_of_executed_lines_analysed": round(total_inside / total_executed, 3) if total_executed else None,
        "false_errors_on_executed_lines": len(false_errors),
    }
    figures = {"summary": summary, "models": per_model, "false_errors": false_errors, **dynamic}
    print(write_results("zoo", stamp, figures))
    print(json.dumps({"summary": summary, "dynamic_summary": dynamic["dynamic_summary"]}, indent=2))


def _dynamic_cases(checked: Any, config: Any, runs: dict[str, Any]) -> dict[str, Any]:
    """Each case exported with `dynamic_shapes`, judged with its declaration given to the lint as
    a user declares a library model's export: `[tool.xport-lint.dynamic-shapes]` keyed by the
    exported class. The project checked cold is checked again from the class's file under that
    configuration (and every file whose context that changes), then restored."""
    import dataclasses

    from xport_lint.analyzers.project import recheck
    from xport_lint.analyzers.shapes import read_table

    workspace = checked.workspace
    cases = {}
    for model, run in sorted(runs.items()):
        table = read_table({run["model_class"]: run["dynamic_shapes"]}, "dynamic-shapes")
        before = dict(workspace.results)
        declared = recheck(checked, [run["model_file"]], dataclasses.replace(config, dynamic_shapes=table), None, None)
        findings = {r.path: r.findings for r in declared.results}
        changed = [p for p, result in workspace.results.items() if before.get(p) is not result]
        recheck(checked, changed, config, None, None)  # back to the cold check for the next case
        failure = run["failure"]
        entry: dict[str, Any] = {
            "declared": {run["model_class"]: run["dynamic_shapes"]},
            "failure": failure,
            "files_checked_again": len(changed),
        }
        if failure is None:
            entry["false_errors"] = [
                f"{_short(path)}:{f.span.start.line} {f.code}"
                for path, lines in run["executed"].items()
                for f in findings.get(path, [])
                if f.severity.value == "error" and f.span.start.line in set(lines)
            ]
            # what the declaration changed on the lines the export ran (warnings it should leave)
            entry["findings_on_executed_lines"] = [
                f"{_short(path)}:{f.span.start.line} {f.code} ({f.severity.value})"
                for path, lines in run["executed"].items()
                for f in findings.get(path, [])
                if f.span.start.line in set(lines)
            ]
        else:
            places = failure.get("guards") or ([failure] if failure["file"] else [])
            entry["failing_lines"] = {
                f"{_short(p['file'])}:{p['line']}": [
                    f"{f.code} ({f.severity.value})"
                    for f in findings.get(p["file"], [])
                    if f.span.start.line == p["line"]
                ]
                for p in places
            }
        cases[model] = entry
    failed = [c for c in cases.values() if c["failure"] is not None]
    violations = [c for c in failed if c["failure"].get("constraint_violation")]

    def flagged(chosen: list[dict[str, Any]], severity: str | None = None) -> int:
        return sum(
            1
            for c in chosen
            if any(
                severity is None or f"({severity})" in flag for flags in c["failing_lines"].values() for flag in flags
            )
        )

    summary = {
        "cases": len(cases),
        "exports_failed": len(failed),
        "failed_with_a_failing_line": sum(1 for c in failed if c["failing_lines"]),
        "failed_flagged": flagged(failed),
        "failed_flagged_as_error": flagged(failed, "error"),
        "constraint_violations": len(violations),
        "constraint_violations_flagged": flagged(violations),
        "constraint_violations_flagged_as_error": flagged(violations, "error"),
        "false_errors_on_executed_lines": sum(len(c.get("false_errors", [])) for c in cases.values()),
    }
    return {"dynamic_summary": summary, "dynamic": cases}


def _short(path: str) -> str:
    marker = f"site-packages{os.sep}"
    return path.split(marker, 1)[1] if marker in path else path


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("export")
    run.add_argument("--python", required=True)
    run.add_argument("models", nargs="*")
    sub.add_parser("score")
    args = parser.parse_args()
    if args.command == "export":
        export(args.python, args.models)
    else:
        score()


if __name__ == "__main__":
    main()
