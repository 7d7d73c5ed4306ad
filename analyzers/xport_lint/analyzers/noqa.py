"""Suppression comments on the flagged line: `# noqa: XPT101` (ruff's grammar) and
`# xport: ignore[XPT101]`. A bare `# noqa` or `# xport: ignore` silences every code."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOQA = re.compile(
    r"#\s*(?:noqa(?::\s*(?P<noqa>[A-Z]+\d+(?:[\s,]+[A-Z]+\d+)*))?"
    r"|xport:\s*ignore(?:\[(?P<xport>[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)\])?)",
    re.IGNORECASE,
)
_CODE = re.compile(r"[A-Z]+\d+", re.IGNORECASE)


@dataclass(frozen=True)
class Directive:
    line: int
    #: None: every code
    codes: frozenset[str] | None
    column: int


def directive_on(line_text: str, line: int) -> Directive | None:
    if "#" not in line_text:
        return None
    match = _NOQA.search(line_text)
    if match is None:
        return None
    listed = match.group("noqa") or match.group("xport")
    codes = frozenset(c.upper() for c in _CODE.findall(listed)) if listed else None
    return Directive(line, codes, match.start())


def suppresses(directive: Directive | None, code: str) -> bool:
    return directive is not None and (directive.codes is None or code in directive.codes)


def all_directives(lines: list[str]) -> list[Directive]:
    out = []
    for number, text in enumerate(lines, start=1):
        directive = directive_on(text, number)
        if directive is not None:
            out.append(directive)
    return out
