"""Suppression comments on the flagged line: `# noqa: XPT101` (ruff's grammar) and
`# xport: ignore[XPT101]`. A bare `# noqa` or `# xport: ignore` silences every code.

For a whole file (ruff's `# ruff: noqa`): `# xport-lint: noqa` on a line of its own, anywhere in
the file, silences every code; `# xport-lint: noqa: XPT101,XPT203` the codes listed (a comment may follow:
`# xport-lint: noqa: XPT404  # debug model`)."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from .lines import split_lines

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


_FILE_NOQA = re.compile(
    r"^[ \t\f]*#\s*xport-lint:\s*noqa(?::\s*(?P<codes>[A-Z]+\d+(?:[\s,]+[A-Z]+\d+)*))?\s*(?:#.*)?$", re.IGNORECASE
)


def file_directives(source: str) -> list[Directive]:
    """The file-level suppressions of `source` (`# xport-lint: noqa` lines). Only real comments
    count, not the text of a string that looks like one."""
    if "xport-lint" not in source:
        return []
    candidates = []
    for number, text in enumerate(split_lines(source), start=1):
        match = _FILE_NOQA.match(text)
        if match is not None:
            listed = match.group("codes")
            codes = frozenset(c.upper() for c in _CODE.findall(listed)) if listed else None
            candidates.append(Directive(number, codes, text.index("#")))
    if not candidates:
        return []
    comments = _comments(source)
    return [d for d in candidates if (d.line, d.column) in comments]


def _comments(source: str) -> set[tuple[int, int]]:
    """Where comments start (line, column); as far as the text tokenizes."""
    out = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                out.add(token.start)
    except (tokenize.TokenError, SyntaxError):
        pass
    return out
