"""The Rule base class: one rule = one file = one class, with its code, doc, examples and fix.

A rule's examples are executable facts: `tests/rules/test_examples.py` checks that the engine
flags exactly the INVALID lines, and `tests/truth/` runs every example through real
`torch.export.export` to check the severity's claim (error => export fails, ...).
"""

from __future__ import annotations

import enum
import functools
import inspect
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

import libcst as cst

from .context import RuleContext
from .model import Mode, Severity
from .report import FixProposal
from .severity import in_mode
from .versions import ALL, Versions

EXPECT = re.compile(r"\s*# expect: (XPT\d{3})\s*$")
DOCS_URL = "https://github.com/xport-lint/xport-lint/blob/main/docs/rules.md#{anchor}"
REQUIRED_HEADINGS = ("## What it does", "## Why it fails torch.export", "## Example", "## Use instead")


class Scope(enum.Enum):
    #: runs on the code torch.export traces (forward and what it reaches)
    TRACED = "traced"
    #: runs on the whole file (export call sites, op registrations)
    MODULE = "module"


@dataclass(frozen=True)
class Valid:
    """Code the rule must not flag; exports in every mode in `modes`."""

    code: str
    modes: tuple[Mode, ...] = (Mode.NON_STRICT, Mode.STRICT)
    #: the torch versions this example holds for (checked on each, judged with that target)
    torch_versions: Versions = ALL

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")


@dataclass(frozen=True)
class Invalid:
    """Code the rule flags on each line marked `# expect: XPTnnn`.

    `other_args`: an expression (evaluated in the example's namespace) giving inputs that drive
    the other branch or another size, where the rule claims the exported graph differs from eager.
    `failing_args`: where the finding is a warning that names a condition (an optional argument
    given), inputs that meet it: export with them fails.
    `expected_replacement`: the code after the rule's fix; required iff the rule fixes this case.
    `torch_versions`: the torch versions the example holds for (a fact that changed between
    releases: the same code is a `Valid` example for the others).
    """

    code: str
    expected_replacement: str | None = None
    other_args: str | None = None
    failing_args: str | None = None
    torch_versions: Versions = ALL

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def replacement(self) -> str | None:
        if self.expected_replacement is None:
            return None
        return textwrap.dedent(self.expected_replacement).lstrip("\n")

    def expected_lines(self, code: str) -> list[int]:
        return [
            i
            for i, line in enumerate(self.source.splitlines(), start=1)
            if (m := EXPECT.search(line)) and m.group(1) == code
        ]


@dataclass(frozen=True)
class TorchError:
    """How torch says an export fails: the exception's class name and a phrase of its message,
    in the torch `versions` that say it so. `TorchError("", "")` is any failure (a rule that
    reports what export raised)."""

    type: str
    phrase: str
    versions: Versions = ALL

    def matches(self, error: BaseException, version: tuple[int, int] | None = None) -> bool:
        """`version`: the torch that raised it (None: any of them)."""
        return (
            (version is None or version in self.versions)
            and (not self.type or type(error).__name__ == self.type)
            and self.phrase in str(error)
        )

    def __str__(self) -> str:
        said = f"`{self.type}: {self.phrase}`" if self.type else "whatever export raises"
        return said if self.versions.everywhere else f"{said} ({self.versions})"


class Rule:
    CODE: ClassVar[str]
    NAME: ClassVar[str]
    #: severity in non-strict export (the default); None: the rule is silent in that mode
    SEVERITY: ClassVar[Severity | None]
    STRICT_SEVERITY: ClassVar[Severity | None]
    #: the severity is decided per finding from how the model is exported (shape rules); the
    #: class severities are then those of a `Dim.AUTO` dimension
    SEVERITY_FROM_SHAPES: ClassVar[bool] = False
    #: flags a Python side effect export drops or bakes in (a log, `self` state, randomness): where
    #: a default export does not run it (training mode, a config switch), its warning is info
    SIDE_EFFECT: ClassVar[bool] = False
    SCOPE: ClassVar[Scope] = Scope.TRACED
    #: MODULE-scope rules run only on files containing one of these strings (a cheap prefilter)
    TRIGGERS: ClassVar[tuple[str, ...]] = ()
    #: opt-in rules run only when selected explicitly
    DEFAULT_ENABLED: ClassVar[bool] = True
    #: reported only by a draft_export confirmation (`check --confirm`), never statically
    CONFIRMATION_ONLY: ClassVar[bool] = False
    #: PyTorch's own name for the failure (draft_export failure type, ExportDB case, error class)
    PYTORCH_NAME: ClassVar[str] = ""
    #: what torch raises where the rule says error, per mode (the truth harness compares them)
    FAILS_WITH: ClassVar[dict[Mode, tuple[TorchError, ...]]] = {}
    VALID: ClassVar[list[Valid]] = []
    INVALID: ClassVar[list[Invalid]] = []

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    @classmethod
    def severity(cls, mode: Mode) -> Severity | None:
        """The severity the rule claims in `mode` (severity.judge decides each finding's)."""
        return in_mode(cls, mode)

    @classmethod
    def doc(cls) -> str:
        doc = inspect.cleandoc(cls.__doc__ or "")
        said = [
            f"{label}: " + "; or ".join(str(error) for error in errors)
            for mode, label in ((Mode.NON_STRICT, "Non-strict"), (Mode.STRICT, "Strict"))
            if (errors := cls.FAILS_WITH.get(mode))
        ]
        if said:
            doc += "\n\n## What torch says\n" + "\n".join(f"- {line}" for line in said)
        ranged = [
            f"- Example {kind} {i + 1} holds for {case.torch_versions} only"
            for kind, cases in (("valid", cls.VALID), ("invalid", cls.INVALID))
            for i, case in enumerate(cases)
            if not case.torch_versions.everywhere
        ]
        if ranged:
            doc += "\n\n## Torch versions\n" + "\n".join(ranged)
        return doc

    @classmethod
    def summary(cls) -> str:
        return cls.doc().splitlines()[0] if cls.doc() else cls.NAME

    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(anchor=cls.CODE.lower())

    @classmethod
    def fixable(cls) -> bool:
        return any(case.expected_replacement is not None for case in cls.INVALID)

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        fix: FixProposal | None = None,
        related: Iterable[tuple[cst.CSTNode, str]] = (),
        statement: cst.CSTNode | None = None,
        severity: Severity | None = None,
        notes: tuple[tuple[str, int, str], ...] = (),
    ) -> None:
        """`statement`: the one holding `node`, where the walk's current one is wider (a
        module-wide rule that visits a whole function). `severity`: this finding's, where the
        rule decides it per finding. `notes`: (path, line, message) of places in other files."""
        self.ctx.add(self, node, message, fix, related, statement, severity, notes)

    def visitors(self) -> dict[str, Callable[[cst.CSTNode], None]]:
        return {name[len("visit_") :]: getattr(self, name) for name in _visitor_names(type(self))}


@functools.cache
def _visitor_names(rule: type[Rule]) -> tuple[str, ...]:
    """A rule class's `visit_` methods (`dir` costs about 1 % of a cold check when asked per file)."""
    return tuple(name for name in dir(rule) if name.startswith("visit_"))


def strip_markers(code: str) -> str:
    """An example as shown in docs: without the `# expect:` markers."""
    return "\n".join(EXPECT.sub("", line) for line in code.splitlines())
