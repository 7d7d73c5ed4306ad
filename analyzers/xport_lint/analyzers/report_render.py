"""The export readiness report (readiness.Readiness, as its JSON) rendered for people: markdown
for a pull-request comment or a job summary, and one self-contained HTML page; and what changed
since a saved report (`--baseline`). Renderers read only the JSON, so a saved report renders
the same as a fresh one."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import Any

#: GitHub's limit on a comment's body (and a job summary's size per step, 1 MiB, is above it)
MARKDOWN_LIMIT = 65_536
ICONS = {"fails": "❌", "fails-when": "⚠️", "unknown": "❔", "exports": "✅"}
#: the HTML page's: in the fonts every system has (no emoji font needed)
GLYPHS = {"fails": "✗", "fails-when": "⚠", "unknown": "?", "exports": "✓"}
LABELS = {"fails": "fails", "fails-when": "fails when…", "unknown": "unknown", "exports": "exports"}
MODES = ("non-strict", "strict")
_URGENCY = {"fails": 0, "fails-when": 1, "unknown": 2, "exports": 3}


class BaselineError(ValueError):
    """A saved report that cannot be compared with (not a readiness JSON of a known version)."""


# -- baseline ------------------------------------------------------------------------------------

def finding_key(model: str, finding: dict[str, Any]) -> tuple[str, str, str, str]:
    """What a finding is matched by across runs: its model, code, file and flagged line's text."""
    return model, finding["code"], finding["path"], finding.get("source_line", "")


def _findings_by_key(report: dict[str, Any]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    out = {}
    for model in report["models"]:
        for finding in model["findings"]:
            out.setdefault(finding_key(model["id"], finding), finding)
    for finding in report["other_findings"]:
        out.setdefault(finding_key("", finding), finding)
    return out


def load_baseline(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BaselineError(f"not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("models"), list):
        raise BaselineError("not an xport-lint report of version 1 (save one with `report --format json`)")
    return data


def compare(report: dict[str, Any], baseline: dict[str, Any]) -> list[dict[str, Any]]:
    """The changes from `baseline` to `report`, new failures first."""
    changes: list[tuple[int, dict[str, Any]]] = []

    def add(rank: int, kind: str, model: str, mode: str | None = None, before: str | None = None,
            after: str | None = None, finding: str | None = None) -> None:
        changes.append((rank, {"kind": kind, "model": model, "mode": mode, "before": before, "after": after,
                               "finding": finding}))

    old = {m["id"]: m for m in baseline["models"]}
    new = {m["id"]: m for m in report["models"]}
    for model_id, model in new.items():
        before_model = old.get(model_id)
        for mode in MODES:
            after = model["verdicts"][mode]["verdict"]
            before = before_model["verdicts"][mode]["verdict"] if before_model else None
            if after == before:
                continue
            if after == "fails":
                add(0, "new-failure", model_id, mode, before, after)
            elif before == "fails":
                add(4, "fixed", model_id, mode, before, after)
            elif before_model is not None:
                add(2, "verdict-changed", model_id, mode, before, after)
        if before_model is None:
            add(3, "new-model", model_id, after=model["verdicts"][report["mode"]]["verdict"])
    for model_id, model in old.items():
        if model_id not in new:
            add(3, "removed-model", model_id, before=model["verdicts"][baseline.get("mode", "non-strict")]["verdict"])
    before_findings = _findings_by_key(baseline)
    after_findings = _findings_by_key(report)
    mode = report["mode"]
    for key, finding in after_findings.items():
        if key not in before_findings:
            error = finding["severity"].get(mode) == "error"
            add(0 if error else 1, "new-finding", key[0], mode, finding=_finding_title(finding))
    for key, finding in before_findings.items():
        if key not in after_findings:
            add(5, "resolved-finding", key[0], mode, finding=_finding_title(finding))
    return [change for _, change in sorted(changes, key=lambda item: item[0])]


def new_findings(report: dict[str, Any], baseline: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's findings the baseline does not have (what `--fail-on` counts with `--baseline`)."""
    before = _findings_by_key(baseline)
    return [f for key, f in _findings_by_key(report).items() if key not in before]


def _finding_title(finding: dict[str, Any]) -> str:
    return f"{finding['code']} {finding['path']}:{finding['line']} {finding['message']}"


# -- markdown ------------------------------------------------------------------------------------

def _md(text: str) -> str:
    """Text for an HTML context of the markdown (`<summary>`, `<code>`): escaped."""
    return html.escape(text, quote=False)


def _md_text(text: str) -> str:
    """A message in markdown: `<` and `&` escaped outside its code spans (GitHub shows an entity
    inside a code span as written), `|` escaped everywhere (a table cell)."""
    parts = text.split("`")
    return "`".join(part if index % 2 else html.escape(part, quote=False) for index, part in enumerate(parts))


def _summary_line(report: dict[str, Any]) -> str:
    mode = report["mode"]
    counts = report["summary"][mode]
    total = sum(counts.values())
    parts = [f"{counts[v]} {LABELS[v]}" for v in ("fails", "fails-when", "unknown", "exports") if counts[v]]
    return f"{total} models in {report['files']} files ({mode}): " + (", ".join(parts) or "none")


def _markdown_model(model: dict[str, Any], mode: str) -> str:
    verdict = model["verdicts"][mode]
    errors, warnings = verdict["errors"], verdict["warnings"]
    counts = ", ".join(c for c in (f"{errors} error(s)" if errors else "", f"{warnings} warning(s)" if warnings
                                   else "") if c) or "no findings"
    strict = model["verdicts"]["strict"]
    head = (f"{ICONS[verdict['verdict']]} <b>{_md(model['name'])}</b> <code>{_md(model['path'])}:{model['line']}</code>"
            f" · non-strict: {LABELS[model['verdicts']['non-strict']['verdict']]} · strict: "
            f"{LABELS[strict['verdict']]} · {counts}")
    lines = [f"<details><summary>{head}</summary>", ""]
    configs = model["export_config"]
    lines.append("Exported by: " + ("; ".join(_md_text(c["description"]) + (" (dynamic shapes)" if c["dynamic"] else "")
                                                for c in configs) if configs else "nothing names it (static shapes)"))
    confirmation = model["confirmation"]
    lines.append(f"Confirmation: {confirmation['state']}"
                 + (f" ({_md_text(confirmation['summary'])})" if confirmation["summary"] else ""))
    if verdict["conditions"]:
        lines.append("Fails when: " + "; ".join(_md_text(c) for c in verdict["conditions"]))
    if verdict["reason"]:
        lines.append(f"Unknown: {_md_text(verdict['reason'])}")
    lines.append("")
    for finding in model["findings"]:
        lines.extend(_markdown_finding(finding, mode))
    lines.extend(["</details>", ""])
    return "\n".join(lines)


def _markdown_finding(finding: dict[str, Any], mode: str) -> list[str]:
    severity = finding["severity"].get(mode) or "-"
    place = f"`{finding['path']}:{finding['line']}`"
    out = [f"- **{finding['code']}** ({severity}) {place}: {_md_text(finding['message'])}"]
    if len(finding["chain"]) > 1:
        out.append("  <br>chain: " + " → ".join(f"`{step['function']}`" for step in finding["chain"]))
    fix = finding["fix"]
    if fix is not None and fix["diff"]:
        fence = "````" if "```" in fix["diff"] else "```"
        out.extend([f"  <details><summary>fix ({fix['applicability']}): {_md(fix['title'])}</summary>", "",
                    f"  {fence}diff", *("  " + line for line in fix["diff"].rstrip("\n").split("\n")),
                    f"  {fence}", "  </details>"])
    return out


def _markdown_changes(changes: list[dict[str, Any]], path: str) -> list[str]:
    if not changes:
        return [f"**Since `{path}`:** no change.", ""]
    out = [f"**Since `{path}`** ({len(changes)} change(s), new failures first):", ""]
    for change in changes:
        what = change["kind"].replace("-", " ")
        detail = f" ({change['mode']}: {change['before'] or '-'} → {change['after'] or '-'})" if change["mode"] and (
            change["before"] or change["after"]) else ""
        finding = f": {_md_text(change['finding'])}" if change["finding"] else ""
        out.append(f"- {what} `{change['model'] or '(outside models)'}`{detail}{finding}")
    return [*out, ""]


def markdown(report: dict[str, Any], limit: int = MARKDOWN_LIMIT) -> str:
    """GitHub-flavoured markdown, at most `limit` characters: models that do not fit (the least
    urgent: they come last) are counted in a closing note."""
    mode = report["mode"]
    parts = [f"## Export readiness: {_md_text(_summary_line(report))}", ""]
    derived = [m for m in MODES if any(model["verdicts"][m]["basis"] == "derived" for model in report["models"])]
    parts += ["| | " + " | ".join(m + ("¹" if m in derived else "") for m in MODES) + " |", "|---|---|---|"]
    for verdict in ("fails", "fails-when", "unknown", "exports"):
        parts.append(f"| {ICONS[verdict]} {LABELS[verdict]} | {report['summary']['non-strict'][verdict]} | "
                     f"{report['summary']['strict'][verdict]} |")
    parts.append("")
    if derived:
        parts.append(f"¹ {derived[0]}: derived from the {mode} check by each rule's per-mode severity "
                     "(`report --both-modes` checks both).")
        parts.append("")
    baseline = report.get("baseline")
    if baseline is not None:
        parts.extend(_markdown_changes(baseline["changes"], baseline["path"]))
    head = "\n".join(parts)
    models = sorted(report["models"], key=lambda m: (_URGENCY[m["verdicts"][mode]["verdict"]], not m["exported"],
                                                      not m["top_level"], m["id"]))
    clean: list[dict[str, Any]] = []
    detailed: list[dict[str, Any]] = []
    for m in models:  # one pass: `m not in clean` compared whole models, 7 s on the corpus
        (clean if m["verdicts"][mode]["verdict"] == "exports" and not m["findings"] else detailed).append(m)
    blocks = [_markdown_model(m, mode) for m in detailed]
    if clean:
        names = ", ".join(f"`{m['name']}`" for m in clean)
        blocks.append(f"✅ Export with no findings ({len(clean)}): {names}\n")
    other = report["other_findings"]
    if other:
        lines = [f"<details><summary>Findings outside every model ({len(other)})</summary>", ""]
        for finding in other:
            lines.extend(_markdown_finding(finding, mode))
        blocks.append("\n".join([*lines, "</details>", ""]))
    body = [head]
    used = len(head) + 1
    reserve = 400  # the note on what was cut
    for shown, block in enumerate(blocks):
        if used + len(block) + 1 > limit - reserve:
            left = detailed[shown:] if shown < len(detailed) else []
            failing = sum(1 for m in left if m["verdicts"][mode]["verdict"] == "fails")
            body.append(
                f"> **Cut to fit GitHub's {limit:,}-character limit:** {len(blocks) - shown} more section(s) "
                f"not shown ({len(left)} model(s), {failing} failing). The HTML or JSON report "
                "(`xport-lint report --format html`) has every model."
            )
            break
        body.append(block)
        used += len(block) + 1
    return "\n".join(body)


# -- HTML ----------------------------------------------------------------------------------------

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#fff}
header{padding:16px 24px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
h1{font-size:20px;margin:0 0 4px}
.sub{color:#59636e}
.controls{display:flex;gap:16px;align-items:center;padding:12px 24px;flex-wrap:wrap}
.controls label{color:#59636e}
select,input{font:inherit;padding:2px 6px}
.counts span{margin-right:14px}
table{border-collapse:collapse;width:calc(100% - 48px);margin:0 24px 24px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #d8dee4;vertical-align:top}
th{cursor:pointer;user-select:none;background:#f6f8fa;position:sticky;top:0}
th[aria-sort=ascending]::after{content:" ▲"}
th[aria-sort=descending]::after{content:" ▼"}
tr.row{cursor:pointer}
tr.row:hover{background:#f6f8fa}
.v-fails{color:#cf222e;font-weight:600}.v-fails-when{color:#9a6700;font-weight:600}
.v-unknown{color:#59636e}.v-exports{color:#1a7f37;font-weight:600}
.derived{color:#59636e;font-size:12px}
tr.details td{background:#fbfcfd;padding:8px 16px 16px}
tr.details[hidden]{display:none}
.finding{margin:10px 0 14px}
.code{font-weight:600}
.chain{color:#59636e;margin:2px 0}
pre{background:#f6f8fa;border:1px solid #d8dee4;border-radius:6px;padding:8px;overflow:auto;margin:4px 0;
font-size:12.5px}
pre span{display:block;min-height:1.2em}
pre .hit{background:#fff8c5}
pre span.ln{color:#8c959f;display:inline-block;width:4em;user-select:none}
pre .add{background:#dafbe1}pre .del{background:#ffebe9}pre .hunk{color:#8250df}
.meta{color:#59636e;margin:2px 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
"""

_SCRIPT = """
(function(){
  var table=document.getElementById('models');
  var verdict=document.getElementById('filter-verdict'), pkg=document.getElementById('filter-package');
  var text=document.getElementById('filter-text'), shown=document.getElementById('shown');
  function apply(){
    var n=0;
    table.querySelectorAll('tbody.model').forEach(function(b){
      var ok=(!verdict.value||b.dataset.verdict===verdict.value)&&(!pkg.value||b.dataset.package===pkg.value)
        &&(!text.value||b.dataset.id.toLowerCase().indexOf(text.value.toLowerCase())>=0);
      b.hidden=!ok; if(ok)n++;
    });
    shown.textContent=n;
  }
  [verdict,pkg].forEach(function(e){e.addEventListener('change',apply)});
  text.addEventListener('input',apply);
  table.querySelectorAll('th').forEach(function(th){
    th.addEventListener('click',function(){
      var key=th.dataset.key, num=th.dataset.type==='number';
      var dir=th.getAttribute('aria-sort')==='ascending'?'descending':'ascending';
      table.querySelectorAll('th').forEach(function(o){o.removeAttribute('aria-sort')});
      th.setAttribute('aria-sort',dir);
      var bodies=Array.prototype.slice.call(table.querySelectorAll('tbody.model'));
      bodies.sort(function(a,b){
        var x=a.dataset[key], y=b.dataset[key];
        var c=num?(Number(x)-Number(y)):x.localeCompare(y);
        if(c===0)c=a.dataset.id.localeCompare(b.dataset.id);
        return dir==='ascending'?c:-c;
      });
      bodies.forEach(function(b){table.appendChild(b)});
    });
  });
  table.querySelectorAll('tr.row').forEach(function(r){
    r.addEventListener('click',function(){var d=r.nextElementSibling;d.hidden=!d.hidden;
      r.setAttribute('aria-expanded',String(!d.hidden));});
  });
  apply();
})();
"""

#: sort keys of the table's columns: (header, data attribute, type)
_COLUMNS = (
    ("Model", "name", "text"), ("Package", "package", "text"), ("File", "path", "text"),
    ("Non-strict", "nonstrict", "number"), ("Strict", "strict", "number"), ("Errors", "errors", "number"),
    ("Warnings", "warnings", "number"), ("Confirmation", "confirmation", "text"),
)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _message_html(message: str) -> str:
    """A message's `code` spans as <code>."""
    parts = message.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: plain text
        return _e(message)
    return "".join(f"<code>{_e(part)}</code>" if index % 2 else _e(part) for index, part in enumerate(parts))


def _excerpt_html(finding: dict[str, Any]) -> str:
    excerpt = finding["excerpt"]
    if not excerpt["start"]:
        return ""
    rows = []
    for offset, line in enumerate(excerpt["text"].split("\n")):
        number = excerpt["start"] + offset
        hit = finding["line"] <= number <= finding["end_line"]
        rows.append(f'<span class="{"hit" if hit else ""}"><span class="ln">{number}</span>{_e(line)}</span>')
    return '<pre class="excerpt">' + "".join(rows) + "</pre>"


def _diff_html(diff: str) -> str:
    rows = []
    for line in diff.splitlines():
        kind = "" if line.startswith(("+++", "---")) else "hunk" if line.startswith("@@") else (
            "add" if line.startswith("+") else "del" if line.startswith("-") else "")
        rows.append(f'<span class="{kind}">{_e(line)}</span>')
    return '<pre class="diff">' + "".join(rows) + "</pre>"


def _finding_html(finding: dict[str, Any], mode: str) -> str:
    severity = finding["severity"].get(mode) or "-"
    chain = " → ".join(f"<code>{_e(step['function'])}</code>" for step in finding["chain"])
    parts = [
        '<div class="finding">',
        f'<div><a class="code" href="{_e(finding["url"])}">{_e(finding["code"])}</a> ({_e(severity)}) '
        f'<code>{_e(finding["path"])}:{finding["line"]}</code> {_message_html(finding["message"])}</div>',
    ]
    if chain:
        parts.append(f'<div class="chain">reached: {chain}</div>')
    parts.append(_excerpt_html(finding))
    fix = finding["fix"]
    if fix is not None:
        parts.append(f'<div class="meta">fix ({_e(fix["applicability"])}): {_e(fix["title"])}</div>')
        if fix["diff"]:
            parts.append(_diff_html(fix["diff"]))
    parts.append("</div>")
    return "".join(parts)


def _model_html(model: dict[str, Any], mode: str) -> str:
    verdicts = model["verdicts"]
    current = verdicts[mode]
    data = {
        "id": model["id"], "name": model["name"], "package": model["package"] or "(top level)",
        "path": model["path"], "verdict": current["verdict"],
        "nonstrict": _URGENCY[verdicts["non-strict"]["verdict"]], "strict": _URGENCY[verdicts["strict"]["verdict"]],
        "errors": current["errors"], "warnings": current["warnings"], "confirmation": model["confirmation"]["state"],
    }
    attributes = " ".join(f'data-{key}="{_e(value)}"' for key, value in data.items())

    def cell(verdict: dict[str, Any]) -> str:
        derived = '<span class="derived" title="derived from the other mode\'s check"> (derived)</span>' if (
            verdict["basis"] == "derived") else ""
        name = verdict["verdict"]
        return f'<td class="v-{name}">{GLYPHS[name]} {LABELS[name]}{derived}</td>'

    configs = "; ".join(_e(c["description"]) + (" (dynamic shapes)" if c["dynamic"] else "")
                        for c in model["export_config"]) or "nothing names it (static shapes)"
    details = [f'<div class="meta">Exported by: {configs}</div>']
    if current["conditions"]:
        details.append('<div class="meta">Fails when: ' + "; ".join(_e(c) for c in current["conditions"]) + "</div>")
    if current["reason"]:
        details.append(f'<div class="meta">Unknown: {_e(current["reason"])}</div>')
    if model["submodules"]:
        details.append('<div class="meta">Submodules: ' + ", ".join(f"<code>{_e(s)}</code>"
                                                                      for s in model["submodules"]) + "</div>")
    confirmation = model["confirmation"]
    details.append(f'<div class="meta">Confirmation: {_e(confirmation["state"])}'
                   + (f" ({_e(confirmation['summary'])})" if confirmation["summary"] else "") + "</div>")
    details.extend(_finding_html(f, mode) for f in model["findings"])
    if not model["findings"]:
        details.append('<div class="meta">No findings.</div>')
    top = "" if model["top_level"] else ' <span class="derived">(submodule)</span>'
    return (
        f'<tbody class="model" {attributes}>'
        f'<tr class="row" aria-expanded="false"><td><b>{_e(model["name"])}</b>{top}</td>'
        f'<td>{_e(model["package"] or "(top level)")}</td><td><code>{_e(model["path"])}:{model["line"]}</code></td>'
        f'{cell(verdicts["non-strict"])}{cell(verdicts["strict"])}<td>{current["errors"]}</td>'
        f'<td>{current["warnings"]}</td><td>{_e(confirmation["state"])}</td></tr>'
        f'<tr class="details" hidden><td colspan="{len(_COLUMNS)}">{"".join(details)}</td></tr></tbody>'
    )


def _options(values: Iterable[str], everything: str) -> str:
    return f'<option value="">{_e(everything)}</option>' + "".join(
        f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)


def html_page(report: dict[str, Any]) -> str:
    """One self-contained page: no network, no external assets."""
    mode = report["mode"]
    models = sorted(report["models"], key=lambda m: (_URGENCY[m["verdicts"][mode]["verdict"]], not m["exported"],
                                                      not m["top_level"], m["id"]))
    packages = sorted({m["package"] or "(top level)" for m in models})
    counts = report["summary"][mode]
    header_cells = "".join(
        f'<th data-key="{key}" data-type="{kind}" scope="col">{_e(title)}</th>' for title, key, kind in _COLUMNS
    )
    changes = ""
    baseline = report.get("baseline")
    if baseline is not None:
        items = "".join(
            f"<li><b>{_e(c['kind'].replace('-', ' '))}</b> <code>{_e(c['model'] or '(outside models)')}</code>"
            + (f" {_e(c['mode'])}: {_e(c['before'] or '-')} → {_e(c['after'] or '-')}" if c["mode"] and (
                c["before"] or c["after"]) else "")
            + (f": {_e(c['finding'])}" if c["finding"] else "") + "</li>"
            for c in baseline["changes"]
        ) or "<li>no change</li>"
        changes = f'<section class="controls"><div><b>Since {_e(baseline["path"])}</b><ul>{items}</ul></div></section>'
    other = ""
    if report["other_findings"]:
        other = ('<section class="controls"><div><b>Findings outside every model</b>'
                 + "".join(_finding_html(f, mode) for f in report["other_findings"]) + "</div></section>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Export readiness — xport-lint</title><style>{_STYLE}</style></head>
<body><header><h1>Export readiness</h1>
<div class="sub">{_e(_summary_line(report))} · xport-lint {_e(report["tool"]["version"])},
torch {_e(report["tool"]["torch"])} · click a model for its findings, a column to sort</div></header>
<section class="controls">
<label>Verdict ({_e(mode)}) <select id="filter-verdict">{_options(
        [v for v in ("fails", "fails-when", "unknown", "exports")], "all")}</select></label>
<label>Package <select id="filter-package">{_options(packages, "all")}</select></label>
<label>Name <input id="filter-text" type="search" placeholder="filter"></label>
<span class="counts">{"".join(f'<span class="v-{v}">{GLYPHS[v]} {counts[v]} {LABELS[v]}</span>'
                               for v in ("fails", "fails-when", "unknown", "exports"))}</span>
<span>showing <b id="shown">{len(models)}</b> of {len(models)}</span>
</section>{changes}
<table id="models"><thead><tr>{header_cells}</tr></thead>
{"".join(_model_html(m, mode) for m in models)}
</table>{other}
<script>{_SCRIPT}</script></body></html>
"""
