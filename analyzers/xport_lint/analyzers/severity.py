"""The one severity policy: rule x condition x configuration x mode.

A rule states what torch does in each mode (its class severities) or, for the shape rules, per
finding from how the model declares its input shapes. Reach says under which condition export
runs the code (only in training mode, with a non-default configuration switch, when an optional
argument is passed): an error there is a warning that names the condition, and a rule's
warning about a Python side effect (a log, `self` state, randomness) is info. The project's
configuration (`[tool.xport-lint.severity]`) overrides all of it. Last, once a file's errors are
known: an error export reaches only after an earlier failure is a warning that says so
(after_failures).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple, Protocol

import libcst as cst

from .model import Mode, Severity
from .reach import AFTER_FAILURE, CERTAIN_FAILURES, FALSE_BY_DEFAULT, AfterFailure, FileReach, after_failure

TRAINING_ONLY = "only when exporting in training mode: `self.training` is False after `.eval()`"


class Rated(Protocol):
    """A rule class, as far as its severity goes (rule.Rule; named here without importing it)."""

    CODE: str
    SEVERITY: Severity | None
    STRICT_SEVERITY: Severity | None
    SIDE_EFFECT: bool


def in_mode(rule: type[Rated], mode: Mode) -> Severity | None:
    """The rule's severity in `mode` (None: the rule says nothing in that mode and is not run)."""
    return rule.STRICT_SEVERITY if mode is Mode.STRICT else rule.SEVERITY


def judge(
    rule: type[Rated], mode: Mode, configured: dict[str, Severity], reach: FileReach,
    node: int, statement: int | None, per_finding: Severity | None,
) -> tuple[Severity, str | None]:
    """A finding's severity, and the condition its message names where one lowered it.

    `node`, `statement`: ids of the reported node and its innermost statement; `per_finding`:
    the rule's own verdict for this finding (the shape rules), else None."""
    if rule.CODE in configured:
        return configured[rule.CODE], None
    severity = per_finding or in_mode(rule, mode) or Severity.INFO
    if severity is Severity.INFO or (severity is Severity.WARNING and not rule.SIDE_EFFECT):
        return severity, None
    condition = _condition(reach, node, statement)
    if condition is None:
        return severity, None
    # an error there fails only under the condition; a dropped side effect there is dropped from
    # a graph a default export does not build
    return (Severity.WARNING if severity is Severity.ERROR else Severity.INFO), condition


class TracedError(NamedTuple):
    """An error in traced code, or one a condition made a warning: `key` names its finding."""

    key: int
    code: str
    statement: cst.CSTNode
    line: int


@dataclass(frozen=True)
class AfterFailures:
    """The errors of a file that export never reaches because it stops at an earlier failure
    (see after_failures), and what that failure leaves unrun, for the file's summary."""

    #: key -> why: errors in functions export calls only after a statement where it fails
    unreached: dict[int, str]
    #: key -> line of an earlier error of the same function that fails first on every path to it
    after: dict[int, int]
    failures: AfterFailure


def after_failures(errors: list[TracedError], lowered: Mapping[int, str], reach: FileReach, path: str) -> AfterFailures:
    """The last step of the policy, once a file's errors are known: export stops at the first
    failure, so an error it can reach only after one is not where it fails. First the functions
    it calls only after a statement where it fails on every run (CERTAIN_FAILURES, plain or
    itself only after a failure), then, in each function, the errors after an earlier one (see
    first_failures). `lowered`: the errors a condition made warnings (see judge), key -> that
    condition."""
    failures = AfterFailure(reach, {
        id(error.statement): after_failure(path, error.line) for error in errors
        if error.code in CERTAIN_FAILURES and lowered.get(error.key, AFTER_FAILURE).startswith(AFTER_FAILURE)
    })
    unreached: dict[int, str] = {}
    if reached_after := failures.reached_after:
        # export stops before it calls them: their errors are not where it fails
        for error in errors:
            func = reach.traced_holder(error.statement) if error.key not in lowered else None
            if func is not None and (why := reached_after.get(id(func))) is not None:
                unreached[error.key] = why
    after = first_failures(errors, reach, {**lowered, **unreached}) if len(errors) > 1 else {}
    return AfterFailures(unreached, after, failures)


def first_failures(
    errors: list[TracedError], reach: FileReach, lowered: Mapping[int, str] = MappingProxyType({})
) -> dict[int, int]:
    """Errors that export never reaches because an earlier one fails on every path to them
    (export stops at the first failure): key -> that earlier error's line.
    They stay findings, as warnings that say so: the first one is what to fix first.
    `lowered`: the errors a condition made warnings (see judge), key -> that condition; one
    follows an earlier plain error or one under the same condition, a plain error only a plain
    one (another condition may not hold where the later failure is reached)."""
    by_function: dict[int, list[TracedError]] = {}
    for error in errors:
        func = reach.traced_holder(error.statement)
        if func is not None:
            by_function.setdefault(id(func), []).append(error)
    out: dict[int, int] = {}
    for group in by_function.values():
        if len(group) < 2:
            continue
        func = reach.traced_holder(group[0].statement)
        assert func is not None
        for key, _, statement, line in group:
            first = min(
                (
                    earlier.line for earlier in group
                    if earlier.line < line and earlier.statement is not statement
                    and lowered.get(earlier.key, lowered.get(key)) == lowered.get(key)
                    and reach.runs_before(func, earlier.statement, statement)
                ),
                default=None,
            )
            if first is not None:
                out[key] = first
    return out


def _condition(reach: FileReach, node: int, statement: int | None) -> str | None:
    """Why a default export may not run this: the first of an optional operand (`b` in
    `a is not None and b.any()`), a local a default configuration binds False, training mode, a
    configuration switch, an optional argument."""
    if node in reach.optional_nodes and statement not in reach.training_only:
        return optional_reason(reach.optional_nodes[node], reach)
    if node in reach.switched_nodes:
        return reach.switched_nodes[node]
    if node in reach.training_only_nodes:
        return TRAINING_ONLY
    if statement is None:
        return None
    if statement in reach.training_only:
        # a default export is of an `.eval()` module, which never runs this (measured: the
        # same branch fails a training-mode export and passes an eval one)
        return TRAINING_ONLY
    if statement in reach.switched:
        return reach.switched[statement]
    if statement in reach.optional_only:
        return optional_reason(reach.optional_only[statement], reach)
    return None


def optional_reason(name: str, reach: FileReach) -> str:
    """The condition of code that runs only when `name` is not None."""
    why = reach.maybe_none.get(name)
    if why == FALSE_BY_DEFAULT:
        return f"only when `{name}` is passed true: it defaults to False, and `if {name}:` guards this"
    if why is None:
        return f"only when `{name}` is passed: it defaults to None, and `{name} is not None` guards this"
    return f"only when `{name}` is not None ({why}), which `{name} is not None` guards"
