"""Confirmation results per file, wherever the confirmation was started (a lens, a command, a
tree view): kept by the SHA-256 of the text confirmed, so an edit makes a result stale and an
undo makes it fresh again; told to the client as `xport-lint/confirmationChanged`
(docs/server-protocol.md)."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xport_lint.analyzers.model import Finding, Related

CHANGED = "xport-lint/confirmationChanged"
REQUEST = "xport-lint/confirmation"
#: worker statuses that mean the run itself failed (not the model's export)
_COULD_NOT_RUN = ("no-example", "error", "timeout", "crash", "memory", "cancelled", "start")
#: how the note a confirmation adds to a finding starts (confirm.merge)
_TORCH_SAID = ("draft_export: ", "export: ", "strict export: ")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Stored:
    """One file's last confirmation: of the text with `digest`."""

    digest: str
    outcome: Any  # xport_lint.analyzers.confirm.Confirmation
    #: the outcome's findings with torch's symbols in the source's names
    findings: list[Finding]
    #: torch's suggested `dynamic_shapes`, when export failed on them (suggestions.Suggestion)
    suggestion: Any = None


def stored(outcome: Any, source: str) -> Stored:
    """Runs off the event loop: the translation and the suggestion parse the example."""
    from .suggestions import suggest

    return Stored(digest(source), outcome, translated(outcome, source), suggest(source, outcome.refined))


def state(result: Stored | None, text: str | None, running: bool = False) -> str:
    """running | passed | failed | error | stale | none (docs/server-protocol.md)."""
    if running:
        return "running"
    if result is None:
        return "none"
    if text is not None and result.digest != text:
        return "stale"
    outcome = result.outcome
    if outcome.status in _COULD_NOT_RUN:
        return "error"
    return "failed" if outcome.failed else "passed"


def payload(uri: str, result: Stored | None, text: str | None, running: bool = False) -> dict[str, Any]:
    """The params of `xport-lint/confirmationChanged`, and the answer to `xport-lint/confirmation`;
    `text`: the digest of the file's current text."""
    now = state(result, text, running)
    counts = {"confirmed": 0, "refuted": 0, "new": 0}
    outcome = result.outcome if result is not None else None
    for finding in result.findings if result is not None else []:
        if finding.confirmation in counts:
            counts[finding.confirmation] += 1
    summary = {
        "running": "confirming with draft_export…",
        "none": "not confirmed",
        "stale": f"changed since the confirmation ({outcome.summary})" if outcome is not None else "",
    }.get(now, outcome.summary if outcome is not None else "")
    return {
        "uri": uri,
        "state": now,
        "summary": summary,
        "status": outcome.status if outcome is not None else None,
        "exportOk": outcome.export_ok if outcome is not None else None,
        "contentHash": result.digest if result is not None else None,
        **counts,
    }


def translated(outcome: Any, source: str) -> list[Finding]:
    """The outcome's findings, with the symbols torch's report names (`u0`, `s77`) written as
    the source's names in the findings the run judged."""
    from xport_lint.analyzers.confirm.symbols import example_dims, symbol_names, translate

    failures = outcome.raw.get("failures") or []
    if not failures:
        return list(outcome.findings)
    dims = {f"{name}.shape[{dim}]": d.name for (name, dim), d in example_dims(source).items() if d.name}
    absolute = str(Path(outcome.path).resolve())
    everywhere: dict[str, str] = {}
    by_line: dict[int, dict[str, str]] = {}
    for failure in failures:
        names = symbol_names(failure)
        everywhere = {**names, **everywhere}
        frame = failure.get("frame") or {}
        if frame.get("file") == absolute and isinstance(frame.get("line"), int):
            by_line.setdefault(frame["line"], {}).update(names)
    out = []
    for finding in outcome.findings:
        if finding.confirmation is None:
            out.append(finding)
            continue
        names = {**everywhere, **by_line.get(finding.span.start.line, {})}
        # only torch's words: the run's own findings, and the note a confirmation adds at the
        # finding (a static message's `s1` is the user's variable, not torch's symbol)
        message = translate(finding.message, names, dims) if finding.confirmation == "new" else finding.message
        related = tuple(
            Related(r.span, translate(r.message, names, dims), r.path)
            if r.path is None and r.span == finding.span and r.message.startswith(_TORCH_SAID) else r
            for r in finding.related
        )
        out.append(dataclasses.replace(finding, message=message, related=related))
    return out
