"""Findings rendered for people (text), tools (JSON, ruff's keys), code scanning (SARIF 2.1.0)
and GitHub Actions annotations.

An internal failure (xport-lint itself failed on a file, `Finding.internal`) is no rule's finding
and is rendered as its own kind: `path: internal error: ...` in text, `"kind": "internal-error"`
with no code in JSON, a tool execution notification (the run not successful) in SARIF.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import click

from . import registry
from .lines import split_lines
from .model import Applicability, Finding, Position, Severity
from .notebooks import Notebook

VERSION = "0.1.0"
#: how every output names an internal failure
INTERNAL_ERROR = "internal error"
_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


#: path -> the notebook it is (its findings' lines are lines of its code cells as one module)
Notebooks = Mapping[str, Notebook]


def _location(position: Position, notebook: Notebook | None = None) -> dict[str, int]:
    # ruff's JSON is 1-based in both row and column; in a notebook, the row is the cell's
    line = notebook.locate(position.line)[1] if notebook is not None else position.line
    return {"row": line, "column": position.column + 1}


def _place(path: str, line: int, notebooks: Notebooks | None) -> tuple[str, int]:
    """`path` or `path:cell N` (as ruff writes a notebook's cells), and the line there."""
    notebook = (notebooks or {}).get(path)
    if notebook is None:
        return path, line
    cell, line = notebook.locate(line)
    return f"{path}:cell {cell}", line


def to_json_objects(
    findings: Sequence[tuple[str, Finding]], notebooks: Notebooks | None = None
) -> list[dict[str, Any]]:
    """ruff's keys; a notebook's rows are its cells' (`cell`: the 1-based cell number, else null);
    `kind`: "finding", or "internal-error" (no `code`, as ruff's JSON gives a syntax error none)."""
    out = []
    for path, finding in findings:
        notebook = (notebooks or {}).get(path)
        fix = None
        if finding.fix is not None:
            fix = {
                "applicability": finding.fix.applicability.value,
                "message": finding.fix.title,
                "edits": [
                    {
                        "content": edit.content,
                        "location": _location(edit.span.start, notebook),
                        "end_location": _location(edit.span.end, notebook),
                    }
                    for edit in finding.fix.edits
                ],
            }
        out.append(
            {
                "filename": path,
                "kind": finding.code if finding.internal else "finding",
                "code": None if finding.internal else finding.code,
                "message": f"{INTERNAL_ERROR}: {finding.message}" if finding.internal else finding.message,
                "cell": notebook.locate(finding.span.start.line)[0] if notebook is not None else None,
                "location": _location(finding.span.start, notebook),
                "end_location": _location(finding.span.end, notebook),
                "fix": fix,
                "severity": finding.severity.value,
                "url": finding.url,
                "confirmation": finding.confirmation,
                "related": [
                    {
                        "message": r.message,
                        "filename": r.path or path,
                        "location": _location(r.span.start, (notebooks or {}).get(r.path or path)),
                        "end_location": _location(r.span.end, (notebooks or {}).get(r.path or path)),
                    }
                    for r in finding.related
                ],
            }
        )
    return out


def render_json(findings: Sequence[tuple[str, Finding]], notebooks: Notebooks | None = None) -> str:
    return json.dumps(to_json_objects(findings, notebooks), indent=2)


def render_sarif(findings: Sequence[tuple[str, Finding]]) -> str:
    """Findings as results; internal failures as the invocation's notifications, which then did
    not run successfully (code scanning shows them as tool errors, not as alerts)."""
    failures = [
        {"level": "error", "message": {"text": f"{INTERNAL_ERROR}: {f.message}"},
         "locations": [_sarif_location(path, f.span.start, f.span.end)]}
        for path, f in findings if f.internal
    ]
    findings = [(path, f) for path, f in findings if not f.internal]
    used = sorted({f.code for _, f in findings})
    rules = []
    index: dict[str, int] = {}
    for code in used:
        rule = registry.RULES.get(code)
        if rule is None:
            continue
        index[code] = len(rules)
        level = rule.SEVERITY or rule.STRICT_SEVERITY or Severity.INFO
        rules.append(
            {
                "id": code,
                "name": rule.NAME,
                "shortDescription": {"text": rule.summary()},
                "fullDescription": {"text": rule.doc()},
                "helpUri": rule.url(),
                "help": {"text": rule.doc(), "markdown": rule.doc()},
                "defaultConfiguration": {"level": _sarif_level(level)},
            }
        )
    results = []
    for path, finding in findings:
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "level": _sarif_level(finding.severity),
            "message": {"text": finding.message},
            "locations": [_sarif_location(path, finding.span.start, finding.span.end)],
            "properties": {"confirmation": finding.confirmation, "severity": finding.severity.value},
        }
        if finding.code in index:
            result["ruleIndex"] = index[finding.code]
        if finding.related:
            result["relatedLocations"] = [
                {**_sarif_location(r.path or path, r.span.start, r.span.end), "id": i, "message": {"text": r.message}}
                for i, r in enumerate(finding.related)
            ]
        results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "xport-lint",
                        "version": VERSION,
                        "informationUri": "https://github.com/xport-lint/xport-lint",
                        "rules": rules,
                    }
                },
                "invocations": [{"executionSuccessful": not failures, "toolExecutionNotifications": failures}],
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2)


def _sarif_level(severity: Severity) -> str:
    return {"error": "error", "warning": "warning", "info": "note"}[severity.value]


def _sarif_location(path: str, start: Position, end: Position) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path.replace("\\", "/").removeprefix("./")},
            "region": {
                "startLine": start.line,
                "startColumn": start.column + 1,
                "endLine": end.line,
                "endColumn": max(end.column + 1, 1),
            },
        }
    }


def render_github(findings: Sequence[tuple[str, Finding]], notebooks: Notebooks | None = None) -> str:
    """Workflow commands; a notebook's lines are its cell's, the cell named in the message (ruff's way)."""
    lines = []
    for path, f in findings:
        level = {"error": "error", "warning": "warning", "info": "notice"}[f.severity.value]
        message = f.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        if f.internal:
            lines.append(f"::error title=xport-lint ({INTERNAL_ERROR}),file={path}::{INTERNAL_ERROR}: {message}")
            continue
        place, line = _place(path, f.span.start.line, notebooks)
        end_line = _place(path, f.span.end.line, notebooks)[1]
        cell = f"{place.removeprefix(path + ':')}: " if place != path else ""
        lines.append(
            f"::{level} title=xport-lint ({f.code}),file={path},line={line},"
            f"col={f.span.start.column + 1},endLine={end_line},"
            f"endColumn={f.span.end.column + 1}::{cell}{f.code} {message}"
        )
    return "\n".join(lines)


def render_text(
    findings: Sequence[tuple[str, Finding]], sources: dict[str, str], colour: bool,
    notebooks: Notebooks | None = None,
) -> str:
    """`path:line:col: CODE message`, then the source line with a caret range (like ruff); in a
    notebook, `path:cell N:line:col:` with the cell's line numbers."""
    blocks = []
    split: dict[str, list[str]] = {}  # each file split once, not once per finding
    for path, f in findings:
        style = _COLOURS[f.severity]
        if f.internal:  # about xport-lint, not a place in the file
            blocks.append(click.style(f"{path}:", bold=True) + " " + click.style(INTERNAL_ERROR, fg=style, bold=True)
                          + f": {f.message}")
            continue
        marker = ""
        if f.fix is not None:  # [*] `--fix` applies it; [~] only with `--unsafe-fixes` (its doc says why)
            marker = f" {fix_mark([f.fix.applicability])}".rstrip()
        place, shown_line = _place(path, f.span.start.line, notebooks)
        head = (
            click.style(f"{place}:{shown_line}:{f.span.start.column + 1}:", bold=True)
            + " "
            + click.style(f.code, fg=style, bold=True)
            + marker
            + " "
            + f.message
            + click.style(f" ({f.severity.value})", fg=style)
        )
        lines = [head]
        source_lines = split.get(path)
        if source_lines is None:
            source_lines = split[path] = [line.rstrip("\r\n") for line in split_lines(sources.get(path, ""))]
        if 0 < f.span.start.line <= len(source_lines):
            text = source_lines[f.span.start.line - 1].expandtabs(1)
            number = str(shown_line)
            gutter = " " * len(number)
            end = f.span.end.column if f.span.end.line == f.span.start.line else len(text)
            width = max(end - f.span.start.column, 1)
            lines.append(f"{gutter} |")
            lines.append(f"{number} | {text}")
            lines.append(f"{gutter} | " + " " * f.span.start.column + click.style("^" * width, fg=style))
            for related in f.related:
                if related.path is None and related.span == f.span:  # about the finding itself: no place to name
                    lines.append(f"{gutter} = note: {related.message}")
                    continue
                where, line = _place(related.path or path, related.span.start.line, notebooks)
                if related.path:
                    where = f"{where}:{line}"
                elif where != path:
                    where = f"{where.removeprefix(path + ':')}, line {line}"
                else:
                    where = f"line {line}"
                lines.append(f"{gutter} = note: {related.message} ({where})")
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks)
    return text if colour else click.unstyle(text)


def fix_mark(applicabilities: Collection[Applicability]) -> str:
    """The one meaning of the marks, for a finding, a rule or a count of findings: `[*]` when
    every fix is safe (`--fix` applies them all), `[~]` when some need `--unsafe-fixes`."""
    fixes = set(applicabilities) - {Applicability.DISPLAY_ONLY}
    if not fixes:
        return "   "
    return "[~]" if Applicability.UNSAFE in fixes else "[*]"


def render_statistics(findings: Sequence[tuple[str, Finding]]) -> str:
    counts = Counter(f.code for _, f in findings)
    fixes: dict[str, set[Applicability]] = {}
    for _, f in findings:
        if f.fix is not None:
            fixes.setdefault(f.code, set()).add(f.fix.applicability)
    rows = []
    for code, count in counts.most_common():
        rule = registry.RULES.get(code)
        name = rule.NAME if rule else ""
        rows.append(f"{count:5d}\t{code}\t{fix_mark(fixes.get(code, ()))} {name}")
    return "\n".join(rows)
