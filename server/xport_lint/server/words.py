"""What the editor shows on a finding: a hover of a few lines (the message, why, the fix, the
confirmation's verdict, a link to the rule's documentation), not the rule's whole page."""

from __future__ import annotations

import functools
import re
from typing import Any

from lsprotocol import types

_WHY = re.compile(r"^## Why[^\n]*\n(.*?)(?=^## |\Z)", re.DOTALL | re.MULTILINE)
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.")
#: a first sentence shorter than this is followed by the next one
_SHORT = 100


@functools.cache
def why(code: str) -> str:
    """The opening of the rule doc's "Why" section: its first sentence, and the next one when
    the first is short ("" when it has none)."""
    from xport_lint.analyzers import registry

    rule = registry.RULES.get(code)
    found = _WHY.search(rule.doc()) if rule is not None else None
    if found is None:
        return ""
    text = " ".join(found.group(1).split())
    said = first_sentence(text)
    if len(said) < _SHORT and len(said) < len(text):  # "Those ops are fine under export: ..." says why only next
        said += " " + first_sentence(text[len(said):].lstrip())
    return said


def first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence: not inside backticks, brackets or
    quotes, not an abbreviation's."""
    depth, quoted = 0, False
    for index, char in enumerate(text):
        if char == "`":
            quoted = not quoted
        elif not quoted and char in "([":
            depth += 1
        elif not quoted and char in ")]":
            depth = max(depth - 1, 0)
        elif (char in ".!?" and not quoted and depth == 0 and text[index + 1 : index + 2] in ("", " ")
              and not text[: index + 1].endswith(_ABBREVIATIONS)):
            return text[: index + 1]
    return text


def finding_hover(diagnostic: types.Diagnostic) -> str:
    """Markdown for the hover on one of xport-lint's diagnostics."""
    from xport_lint.analyzers import registry

    code = str(diagnostic.code)
    rule = registry.RULES.get(code)
    data: dict[str, Any] = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    severity = {types.DiagnosticSeverity.Error: "error", types.DiagnosticSeverity.Warning: "warning"}.get(
        diagnostic.severity or types.DiagnosticSeverity.Information, "info"
    )
    parts = [f"**{code}** `{rule.NAME if rule else ''}` · {severity}", diagnostic.message]
    reason = why(code)
    if reason:
        parts.append(f"**Why:** {reason}")
    fix = data.get("fix")
    if fix:
        unsafe = "" if fix.get("safe") else " (unsafe: it holds under the assumption the rule's doc states)"
        parts.append(f"**Fix:** {fix['title']}{unsafe}")
    elif data.get("suggestion"):
        then = "export then succeeds" if data.get("exportOk") else "export still fails after it"
        parts.append(f"**Fix:** {data['title']} (torch's suggestion: {then})")
    elif data.get("noFix"):
        parts.append(f"**No automatic fix:** {data['noFix']}")
    verdict = data.get("confirmation")
    if isinstance(verdict, dict):
        said = verdict.get("detail") or verdict.get("kind") or ""
        if verdict.get("state") == "confirmed":
            parts.append(f"**Confirmed by {verdict.get('by', 'draft_export')}:** {said}".rstrip())
        elif verdict.get("state") == "refuted":
            parts.append(f"**Refuted:** {said}".rstrip())
        else:
            parts.append(f"**Found by the confirmation run** ({verdict.get('by', 'draft_export')})")
    href = diagnostic.code_description.href if diagnostic.code_description else None
    if href:
        parts.append(f"[{code} in the rules documentation]({href})")
    return "\n\n".join(parts)
