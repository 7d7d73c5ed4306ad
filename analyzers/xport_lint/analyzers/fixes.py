"""Apply text edits to source: the one place fixes touch user code."""

from __future__ import annotations

from collections.abc import Iterable

from .model import Applicability, Edit, Finding, Position
from .positions import split_lines


def _line_starts(source: str) -> list[int]:
    line_starts = [0]
    for line in split_lines(source):
        line_starts.append(line_starts[-1] + len(line))
    return line_starts


def _offset(line_starts: list[int], position: Position) -> int:
    line = min(max(position.line, 1), len(line_starts))
    return line_starts[line - 1] + position.column


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """`source` with `edits` applied; overlapping edits after the first are skipped."""
    line_starts = _line_starts(source)
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end))
    out: list[str] = []
    cursor = 0
    for edit in ordered:
        start = _offset(line_starts, edit.span.start)
        end = _offset(line_starts, edit.span.end)
        if start < cursor:
            continue  # overlaps an edit already applied: the next run picks it up
        out.append(source[cursor:start])
        out.append(edit.content)
        cursor = end
    out.append(source[cursor:])
    return "".join(out)


def fixable(findings: Iterable[Finding], unsafe: bool) -> list[Finding]:
    allowed = {Applicability.SAFE} | ({Applicability.UNSAFE} if unsafe else set())
    return [f for f in findings if f.fix is not None and f.fix.applicability in allowed]


def apply_fixes(source: str, findings: Iterable[Finding], unsafe: bool = False) -> str:
    """Apply the fixes of `findings` (safe ones only unless `unsafe`), each whole or not at all: a
    fix with an edit overlapping an earlier fix's waits for the next round, since applied in part a
    rewrite is left half done (a torch.cond rewrite binding `lo, hi = float(x.min()), float(x.max())`
    to tensors, one binding lost to XPT203's `.item()` there, failed export). An edit two fixes
    share (the same import) is made once."""
    line_starts = _line_starts(source)
    kept: dict[tuple[object, str], Edit] = {}
    taken: list[tuple[int, int]] = []
    for finding in fixable(findings, unsafe):
        assert finding.fix is not None
        new = [e for e in finding.fix.edits if (e.span, e.content) not in kept]
        spans = [(_offset(line_starts, e.span.start), _offset(line_starts, e.span.end)) for e in new]
        if any(start < end_taken and start_taken < end for start, end in spans for start_taken, end_taken in taken):
            continue
        taken += spans
        kept.update(((e.span, e.content), e) for e in new)
    return apply_edits(source, kept.values())
