"""The only seam between the engine and LSP: findings become diagnostics, fixes become
WorkspaceEdits. The engine counts lines from 1 and columns in code points; LSP counts both
from 0 and columns in UTF-16 code units."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lsprotocol import types

from xport_lint.analyzers import Finding, Severity
from xport_lint.analyzers.model import Edit, Position, Related, Span

SOURCE = "xport-lint"
#: the start of the note a finding carries when its rule offers no fix there (runner.NO_FIX)
NO_FIX = "no automatic fix: "
#: the tail a confirmation adds to a judged finding's message: " [confirmed by draft_export:
#: DATA_DEPENDENT_ERROR]", " [confirmed by export: the range became 2..4]", " [refuted: ...]"
_VERDICT = re.compile(r" \[(?:confirmed by (?P<by>[^:\]]+)|refuted): (?P<said>[^\]]*)\]$")
#: torch's name for a failure (draft_export's failure types, EXPORT_FAILED)
_KIND = re.compile(r"[A-Z][A-Z_]+")
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def _utf16(line: str, column: int) -> int:
    prefix = line[:column]
    if prefix.isascii():
        return len(prefix)
    return len(prefix.encode("utf-16-le")) // 2


def position(lines: list[str], point: Position) -> types.Position:
    text = lines[point.line - 1] if 0 < point.line <= len(lines) else ""
    return types.Position(line=max(point.line - 1, 0), character=_utf16(text, point.column))


def lsp_range(lines: list[str], span: Span) -> types.Range:
    return types.Range(start=position(lines, span.start), end=position(lines, span.end))


def text_edit(lines: list[str], edit: Edit) -> types.TextEdit:
    return types.TextEdit(range=lsp_range(lines, edit.span), new_text=edit.content)


def noqa_edit(lines: list[str], finding: Finding) -> types.TextEdit:
    """Append `# noqa: CODE` to the flagged line, or add CODE to an existing noqa list."""
    row = finding.span.start.line
    text = lines[row - 1].rstrip("\r\n") if 0 < row <= len(lines) else ""
    end = types.Position(line=row - 1, character=_utf16(text, len(text)))
    marker = "# noqa: "
    if marker in text:
        return types.TextEdit(range=types.Range(start=end, end=end), new_text=f", {finding.code}")
    return types.TextEdit(range=types.Range(start=end, end=end), new_text=f"  # noqa: {finding.code}")


def diagnostic(uri: str, lines: list[str], finding: Finding) -> types.Diagnostic:
    """The finding as a diagnostic whose message fits a problem list: why no fix is offered
    (`data.noFix`) and a confirmation's verdict (`data.confirmation`, related information) are
    kept out of it (docs/server-protocol.md). An internal failure is its own kind: code
    `internal-error`, no rule page, no fix and nothing to suppress."""
    if finding.internal:
        return types.Diagnostic(
            range=lsp_range(lines, finding.span), message=f"internal error: {finding.message}",
            severity=types.DiagnosticSeverity.Error, code=finding.code, source=SOURCE,
        )
    data: dict[str, Any] = {"code": finding.code, "noqa": _edit_json(noqa_edit(lines, finding))}
    if finding.fix is not None:
        data["fix"] = {
            "title": finding.fix.title,
            "safe": finding.fix.applicability.value == "safe",
            "edits": [_edit_json(text_edit(lines, e)) for e in finding.fix.edits],
        }
    message, related = finding.message, list(finding.related)
    for note in related:
        if note.path is None and note.span == finding.span and note.message.startswith(NO_FIX):
            data["noFix"] = note.message.removeprefix(NO_FIX)
    if finding.confirmation is not None:
        message, data["confirmation"], related = _confirmation(finding)
    return types.Diagnostic(
        range=lsp_range(lines, finding.span),
        message=message,
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=finding.url) if finding.url else None,
        source=SOURCE,
        related_information=[
            types.DiagnosticRelatedInformation(location=_related_location(uri, lines, r), message=r.message)
            for r in related
        ]
        or None,
        data=data,
    )


def _confirmation(finding: Finding) -> tuple[str, dict[str, Any], list[Related]]:
    """The message without the confirmation's bracketed tail, the verdict as data, and the
    related notes with the verdict as a note at the finding itself."""
    message, related = finding.message, list(finding.related)
    verdict: dict[str, Any] = {"state": finding.confirmation}
    tail = _VERDICT.search(message)
    if tail is not None:
        message = message[: tail.start()]
        said = tail.group("said") or ""
        if tail.group("by"):
            verdict["by"] = tail.group("by")
            if _KIND.fullmatch(said):
                verdict["kind"] = said
            else:
                verdict["detail"] = said
        else:
            verdict |= {"by": "torch.export.export", "detail": said}
    elif finding.confirmation == "new":
        by, _, rest = message.partition(": ")
        kind, _, detail = rest.partition(": ")
        if by == "draft_export" and _KIND.fullmatch(kind):
            verdict |= {"by": by, "kind": kind, "detail": detail}
    by = verdict.get("by")
    for index, note in enumerate(related):
        said = note.message.partition(": ")[2]
        if by and note.path is None and note.span == finding.span and note.message.startswith(f"{by}: "):
            verdict.setdefault("detail", said)
            related[index] = Related(note.span, f"confirmed by {by}: {said}")
            break
    else:
        if finding.confirmation == "confirmed" and by:
            related.append(Related(finding.span, f"confirmed by {by}: {verdict.get('detail') or verdict.get('kind')}"))
        elif finding.confirmation == "refuted":
            related.append(Related(finding.span, f"refuted: {verdict.get('detail', '')}"))
    return message, verdict, related


def _related_location(uri: str, lines: list[str], related: Related) -> types.Location:
    """In this document, or at a line of another file (the traced code that reaches a helper)."""
    if related.path is None:
        return types.Location(uri=uri, range=lsp_range(lines, related.span))
    line = types.Position(line=max(related.span.start.line - 1, 0), character=0)
    return types.Location(uri=Path(related.path).absolute().as_uri(), range=types.Range(start=line, end=line))


def _edit_json(edit: types.TextEdit) -> dict[str, Any]:
    r = edit.range
    return {
        "range": [r.start.line, r.start.character, r.end.line, r.end.character],
        "newText": edit.new_text,
    }


def edits_from_data(data: dict[str, Any]) -> list[types.TextEdit]:
    out = []
    for item in data["edits"]:
        a, b, c, d = item["range"]
        out.append(
            types.TextEdit(
                range=types.Range(start=types.Position(line=a, character=b), end=types.Position(line=c, character=d)),
                new_text=item["newText"],
            )
        )
    return out


def edit_from_data(item: dict[str, Any]) -> types.TextEdit:
    return edits_from_data({"edits": [item]})[0]
