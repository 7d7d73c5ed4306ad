"""Plain data the engine hands to its adapters (CLI, language server): no libcst objects leak out."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(enum.StrEnum):
    """A claim about torch.export (pinned to torch 2.13), not a matter of taste.

    error: `torch.export.export` fails on this code in the configured mode.
    warning: export succeeds, but the graph silently differs from eager.
    info: style or portability advice.
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Mode(enum.StrEnum):
    """How export traces: non-strict (the default since torch 2.7) runs Python; strict uses Dynamo."""

    NON_STRICT = "non-strict"
    STRICT = "strict"


class Applicability(enum.StrEnum):
    """ruff's fix applicability: `--fix` applies only `safe` fixes."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True, order=True)
class Position:
    """`line` is 1-based, `column` is a 0-based code-point offset (libcst's convention)."""

    line: int
    column: int


@dataclass(frozen=True, order=True)
class Span:
    start: Position
    end: Position


@dataclass(frozen=True)
class Edit:
    """Replace `span` of the original text with `content`."""

    span: Span
    content: str


@dataclass(frozen=True)
class Fix:
    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]
    #: a step another fix completes in the next round (report.FixProposal.step)
    step: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding (e.g. the `.item()` that fed an `if`)."""

    span: Span
    message: str
    #: the file it is in, when not the finding's own (the traced code that reaches a helper)
    path: str | None = None


def after_note(line: int) -> str:
    """The note a finding's message carries when an earlier failure comes first (`Finding.after`)."""
    return f" (after line {line}, whose failure export meets first on the way here)"


#: the code of an internal failure (`internal_failure`): no rule's code, so no selection, `noqa`
#: or rule table ever takes it for one
INTERNAL = "internal-error"


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    severity: Severity
    span: Span
    fix: Fix | None = None
    related: tuple[Related, ...] = field(default=())
    url: str = ""
    #: set by a draft_export confirmation: "confirmed", "refuted", "new" (found only by the run)
    confirmation: str | None = None
    #: the line of an earlier error that export meets first on every path here: this one is a
    #: warning, and `message` carries `after_note(after)`; None when nothing fails before it
    after: int | None = None

    @property
    def internal(self) -> bool:
        """xport-lint itself failed on the file (a rule raised, a worker crashed): not something in
        the file, and no rule's finding. Rendered as an internal error at output, never cached,
        and the CLI exits 2."""
        return self.code == INTERNAL

    @property
    def own_message(self) -> str:
        """`message` without the note that an earlier failure comes first: what fails here, the
        same whether or not a fix removed that earlier failure."""
        return self.message if self.after is None else self.message.replace(after_note(self.after), "", 1)


def internal_failure(what: str) -> Finding:
    """xport-lint's own failure on a file, at its first line, whatever the selection: a file not
    fully checked must never read as clean. `what` says what failed (the output says it is an
    internal error)."""
    return Finding(INTERNAL, INTERNAL, what, Severity.ERROR, Span(Position(1, 0), Position(1, 0)))
