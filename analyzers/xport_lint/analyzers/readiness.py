"""Export readiness of a whole project: its models, each with a verdict per export mode, the
findings that stand in the way and the chain of calls that reaches each, where its export
configuration comes from, and what a draft_export confirmation last said about it.

Built on one project check (project.check_project: the same files, index and cache as `check`);
what it adds is read from the project index (which functions a model's `forward` reaches) and
from each file's text without parsing it again (where each function starts, what each
`__init__` builds, the export calls: `_FileFacts`, kept in the findings cache by the text's hash,
so a warm report derives nothing twice). With the previous report and the files changed since,
only the models that reach a changed file are worked out again (the language server's view).
The CLI's report of a project none of whose files changed is the last one, read back from the
cache (`report_data`).
The JSON it renders (`Readiness.to_json`) is a versioned schema,
documented in docs/report.md: the CLI's `report` command and the language server's
`xport-lint/models` request both return it.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import hashlib
import json
import os
import re
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from . import registry
from .cache import Cache, default_directory
from .config import Config
from .files import read
from .fixes import apply_edits
from .index import Key, ModuleSummary, Node, ProjectIndex
from .lines import split_lines
from .model import Finding, Mode, Position, Severity, Span
from .project import FileResult, ProjectCheck, check_project
from .rule import Scope
from .runner import SYNTAX_CODE
from .workspace import Workspace

#: bump when a key of the JSON changes meaning or goes; adding a key keeps the version
SCHEMA_VERSION = 1
MODES = (Mode.NON_STRICT, Mode.STRICT)

#: a model's verdict in one mode
EXPORTS, FAILS, FAILS_WHEN, UNKNOWN = "exports", "fails", "fails-when", "unknown"
VERDICTS = (FAILS, FAILS_WHEN, UNKNOWN, EXPORTS)

#: what a model's confirmation record says
NEVER_RUN, CONFIRMED, REFUTED, STALE, RUN_FAILED = "never-run", "confirmed", "refuted", "stale", "error"


@dataclass(frozen=True)
class Step:
    """One function on the way from a model's `forward` to a finding."""

    function: str
    path: str
    line: int

    def to_json(self) -> dict[str, Any]:
        return {"function": self.function, "path": self.path, "line": self.line}


@dataclass(frozen=True)
class ModelFinding:
    """A finding as it bears on a model: its severity in each mode, and how the model reaches it."""

    path: str
    finding: Finding
    #: mode -> severity there (None: the rule says nothing in that mode)
    severities: dict[Mode, Severity | None]
    #: the condition under which an error holds (training mode, an optional argument), if any
    condition: str | None
    chain: tuple[Step, ...]
    #: the fix as a unified diff of the file, when one is offered
    diff: str | None
    #: the flagged lines with a little context: (first line number, text)
    excerpt: tuple[int, str] = (0, "")

    def to_json(self) -> dict[str, Any]:
        f = self.finding
        fix = None
        if f.fix is not None:
            fix = {"title": f.fix.title, "applicability": f.fix.applicability.value, "diff": self.diff}
        return {
            "code": f.code, "name": f.name, "message": f.message,
            "severity": {mode.value: (s.value if s is not None else None) for mode, s in self.severities.items()},
            "condition": self.condition,
            "path": self.path, "line": f.span.start.line, "column": f.span.start.column + 1,
            "end_line": f.span.end.line, "end_column": f.span.end.column + 1,
            "chain": [step.to_json() for step in self.chain],
            "fix": fix, "url": f.url, "confirmation": f.confirmation,
            "source_line": self.source_line(),
            "excerpt": {"start": self.excerpt[0], "text": self.excerpt[1]},
        }

    def source_line(self) -> str:
        """The flagged line's text: what a baseline matches a finding by (its number moves with edits)."""
        start, text = self.excerpt
        lines = text.split("\n")
        index = self.finding.span.start.line - start
        return lines[index].strip() if start and 0 <= index < len(lines) else ""


@dataclass(frozen=True)
class Verdict:
    verdict: str
    #: for fails-when: the conditions under which export fails
    conditions: tuple[str, ...] = ()
    errors: int = 0
    warnings: int = 0
    #: "checked": the project was checked in this mode; "derived": severities carried over from
    #: the other mode's check by each rule's per-mode severity (rules only this mode runs: `unchecked`)
    basis: str = "checked"
    unchecked: tuple[str, ...] = ()
    #: for unknown: why
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict, "conditions": list(self.conditions), "errors": self.errors,
            "warnings": self.warnings, "basis": self.basis, "unchecked": list(self.unchecked), "reason": self.reason,
        }


@dataclass(frozen=True)
class ExportConfig:
    """Where a model's export configuration is declared (None on a model: static shapes, no example)."""

    #: "export-call", "xport_example", "export-script", "pyproject-dynamic-shapes", "pyproject-examples"
    kind: str
    description: str
    path: str | None = None
    line: int | None = None
    dynamic: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "description": self.description, "path": self.path, "line": self.line,
                "dynamic": self.dynamic}


@dataclass(frozen=True)
class ConfirmationState:
    state: str = NEVER_RUN
    export_ok: bool | None = None
    summary: str = ""
    #: sha256 of the file's text the record was made for (None: never run)
    hash: str | None = None
    checked_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "export_ok": self.export_ok, "summary": self.summary, "hash": self.hash,
                "checked_at": self.checked_at}


@dataclass
class ModelReport:
    id: str
    name: str
    path: str
    line: int
    package: str
    #: no other model of the project builds it as a submodule
    top_level: bool
    #: named by an export call, an export script, `xport_example()` or pyproject.toml
    exported: bool
    verdicts: dict[Mode, Verdict]
    export_configs: list[ExportConfig]
    findings: list[ModelFinding]
    confirmation: ConfirmationState
    #: ids of the project's models its `__init__` builds
    submodules: list[str] = field(default_factory=list)
    #: the files its findings and verdicts depend on (its own, its `__init__`'s, every file its
    #: `forward` reaches): an edit elsewhere leaves them as they are
    files: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "path": self.path, "line": self.line, "package": self.package,
            "top_level": self.top_level, "exported": self.exported,
            "verdicts": {mode.value: verdict.to_json() for mode, verdict in self.verdicts.items()},
            "export_config": [config.to_json() for config in self.export_configs],
            "submodules": self.submodules,
            "findings": [finding.to_json() for finding in self.findings],
            "confirmation": self.confirmation.to_json(),
        }


@dataclass
class Readiness:
    #: the mode the project was checked in (the other is derived unless both were checked)
    mode: Mode
    models: list[ModelReport]
    #: findings in no model's reach: export scripts, functions handed to export, module-level code
    other_findings: list[ModelFinding]
    files: int
    #: the torch version the findings speak for (`target-torch`, else the installed torch)
    torch: str
    #: ids of the models whose findings and verdicts were kept from the previous report (none
    #: of their files changed), not worked out again
    kept: frozenset[str] = frozenset()

    def counts(self, mode: Mode | None = None) -> dict[str, int]:
        mode = mode or self.mode
        out = dict.fromkeys(VERDICTS, 0)
        for model in self.models:
            out[model.verdicts[mode].verdict] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        from .output import VERSION

        return {
            "version": SCHEMA_VERSION,
            "tool": {"name": "xport-lint", "version": VERSION, "torch": self.torch},
            "mode": self.mode.value,
            "files": self.files,
            "summary": {mode.value: self.counts(mode) for mode in MODES},
            "models": [model.to_json() for model in self.models],
            "other_findings": [finding.to_json() for finding in self.other_findings],
        }


# -- the confirmation record ---------------------------------------------------------------------

def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


class ConfirmationRecord:
    """What the last draft_export confirmation of each file said, keyed by the file's absolute path
    and stamped with the sha256 of the text it ran on (so an edit makes it stale). A JSON file in
    the findings cache's folder (data only); unreadable or malformed, it is empty."""

    FILE = "confirmations-v1.json"

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or default_directory()) / self.FILE
        self.entries: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                self.entries = {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("hash"), str)}
        except (OSError, ValueError):
            pass

    def record(self, path: str, text: str, status: str, export_ok: bool | None, model: str | None,
               summary: str) -> None:
        self.entries[str(Path(path).resolve())] = {
            "hash": text_hash(text), "status": status, "export_ok": export_ok, "model": model, "summary": summary,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(self.entries, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:
            pass  # a record that cannot be kept costs only the next report's "never-run"

    def state(self, path: str, digest: str | None, model: str, verdict: str) -> ConfirmationState:
        """`digest`: `text_hash` of the file's text now (None: unreadable)."""
        if not self.entries:
            return ConfirmationState()
        entry = self.entries.get(str(Path(path).resolve()))
        if entry is None or entry.get("model") not in (None, model):
            return ConfirmationState()
        export_ok = entry.get("export_ok") if isinstance(entry.get("export_ok"), bool) else None
        common = {"export_ok": export_ok, "summary": str(entry.get("summary", "")), "hash": entry["hash"],
                  "checked_at": entry.get("at")}
        if digest is None or digest != entry["hash"]:
            return ConfirmationState(STALE, **common)
        if entry.get("status") != "ran" or export_ok is None:
            return ConfirmationState(RUN_FAILED, **common)
        # fails-when: the example decides the condition, so either outcome agrees with the report
        refutes = (verdict == FAILS and export_ok) or (verdict == EXPORTS and not export_ok)
        return ConfirmationState(REFUTED if refutes else CONFIRMED, **common)


# -- building the report ----------------------------------------------------------------------------

def build(
    files: list[str], config: Config, cache: Cache | None, jobs: int | None = None, both_modes: bool = False,
    record: ConfirmationRecord | None = None,
) -> Readiness:
    """Check the project (both modes with `both_modes`, else the configured one) and report its models."""
    return _readiness_of(Workspace.for_paths(files, config, cache, jobs), both_modes, record or ConfirmationRecord())


#: the cache entry of a project's last report (see `report_data`), and its format's version
_REPORT_KIND = "readiness-report-v1"


def report_data(
    files: list[str], config: Config, cache: Cache | None, jobs: int | None = None, both_modes: bool = False,
    record: ConfirmationRecord | None = None,
) -> dict[str, Any]:
    """`build(...).to_json()`, the report the CLI renders. With a cache, a project whose files'
    texts, configuration and engine are those of its last report is answered from that report
    (kept as JSON in the cache; only the confirmation states are read again): the same input
    gives the same check, index and report, and building them again from cached findings cost a
    warm run of the corpus a second of index and model work. The entry's key names the project
    (the folder it runs in, its files, configuration, modes), so each project keeps one report
    that a new one replaces; the entry holds the digest of every file's text beside the report."""
    record = record or ConfirmationRecord()
    workspace = Workspace.for_paths(files, config, cache, jobs)
    if cache is None:
        return _readiness_of(workspace, both_modes, record).to_json()
    sources = {path: read(path) for path in workspace.files}
    digests = {path: text_hash(s.text) for path, s in sources.items() if s.text is not None}
    # a file without text stands for why it has none (a finding of the report says so)
    inputs = text_hash(json.dumps([[path, digests.get(path, sources[path].problem)] for path in workspace.files]))
    project = json.dumps([os.getcwd(), workspace.files, repr(config), str(config.target), both_modes])
    key = cache.data_key(_REPORT_KIND, project)
    stored = cache.get_data([key]).get(key)
    if isinstance(stored, dict) and stored.get("inputs") == inputs and _well_formed(stored.get("report")):
        data: dict[str, Any] = stored["report"]
        mode = data["mode"]
        for model in data["models"]:
            state = record.state(model["path"], digests.get(model["path"]), model["name"],
                                 model["verdicts"][mode]["verdict"])
            model["confirmation"] = state.to_json()
        return data
    data = _readiness_of(workspace, both_modes, record).to_json()
    cache.put_data(key, {"inputs": inputs, "report": data})
    return data


def _readiness_of(workspace: Workspace, both_modes: bool, record: ConfirmationRecord) -> Readiness:
    """`build` of a workspace made by `Workspace.for_paths`."""
    checked = workspace.check_all()
    other = None
    config = workspace.config
    if both_modes:
        other_mode = Mode.NON_STRICT if config.mode is Mode.STRICT else Mode.STRICT
        other = check_project(workspace.linted, config.merged(strict=other_mode is Mode.STRICT), workspace.cache,
                              workspace.jobs)
    return readiness(checked, config, other, record, workspace.cache)


def _well_formed(data: object) -> bool:
    """A stored report as `Readiness.to_json` writes it, in what `report_data` reads of it (the
    renderers read the rest; the cache is this user's own, its rows are JSON written by this
    engine version: the check is against a damaged row, not a forged one)."""
    if not (isinstance(data, dict) and data.get("version") == SCHEMA_VERSION and isinstance(data.get("mode"), str)
            and isinstance(data.get("models"), list) and isinstance(data.get("other_findings"), list)
            and isinstance(data.get("summary"), dict) and isinstance(data.get("tool"), dict)):
        return False
    mode = data["mode"]
    return all(
        isinstance(m, dict) and isinstance(m.get("path"), str) and isinstance(m.get("name"), str)
        and isinstance(m.get("findings"), list) and isinstance(m.get("verdicts"), dict)
        and isinstance(m["verdicts"].get(mode), dict) and isinstance(m["verdicts"][mode].get("verdict"), str)
        for m in data["models"]
    )


def readiness(
    checked: ProjectCheck, config: Config, other: ProjectCheck | None = None, record: ConfirmationRecord | None = None,
    cache: Cache | None = None, previous: Readiness | None = None, changed: set[str] | None = None,
) -> Readiness:
    """The report of an already checked project (`other`: the same files checked in the other
    mode). `cache`: where the files' facts are kept (the check's own cache). `previous` and
    `changed`: the project's last report and the files changed since (edited, or checked again
    because their project context changed): only the models that reach one are worked out again."""
    assert checked.workspace is not None and checked.workspace.index is not None, "a ProjectCheck from check_project"
    return _Builder(checked, config, other, record or ConfirmationRecord(), cache).build(previous, changed)


_CALLED = re.compile(r"\b([A-Za-z_][\w.]*)\s*\(")
_EXPORT_CALL = re.compile(r"\b(?:torch\.export\.|export\.)?(?:draft_)?export\s*\(\s*([A-Za-z_][\w.]*)\s*(\()?")
#: lines of code shown around a finding (a report's excerpt), at most
_CONTEXT_LINES, _MAX_EXCERPT_LINES = 2, 12
_CONDITION = re.compile(r" \((only [^()]*(?:\([^()]*\)[^()]*)*)\)$")


@dataclass
class _FileFacts:
    """What the report reads from one file's text, without a second parse: where functions start
    and end (the `def`/`class` lines and their indentation), what each class's `__init__` calls,
    its export calls and `xport_example()`. Derived from the text alone, so cached by its hash
    (`Cache.put_data`, JSON); the text itself (the check's) serves excerpts, fixes' diffs and
    which function a finding is in."""

    #: sha256 of the text (a confirmation record is stamped with it)
    hash: str
    #: `func`, `Class` and `Class.method` (top-level ones, as the project index names them) -> line
    starts: dict[str, int]
    #: `Class.__init__` -> the names it calls, as written (`Head`, `nn.ModuleList`, `layers.Block`)
    init_calls: dict[str, list[str]]
    #: (the model as written, line, passes dynamic_shapes) of each export call
    export_calls: list[tuple[str, int, bool]]
    #: `xport_example()`: (its line, the names it calls, mentions dynamic_shapes)
    example: tuple[int, list[str], bool] | None
    text: str | None = field(default=None, compare=False)

    #: bump when what is derived, or how, changes (cached rows of another version are not read)
    KIND: ClassVar[str] = "readiness-facts-2"

    @classmethod
    def of(cls, text: str, digest: str) -> _FileFacts:
        facts = cls(digest, {}, {}, [], None, text)
        facts.starts = {qualified: span[0] for qualified, span in facts.spans.items()}
        for qualified in facts.spans:
            if qualified.endswith(".__init__") and qualified.count(".") == 1:
                called = (m.group(1) for m in _CALLED.finditer(facts.body(qualified)))
                facts.init_calls[qualified] = list(dict.fromkeys(called))
        if "export" in text:
            for match in _EXPORT_CALL.finditer(text):
                written = match.group(1)
                if match.group(2) is None:  # a variable: `model = Detector(...)` before the call
                    assigned = re.search(rf"^\s*{re.escape(written)}\s*=\s*([A-Za-z_][\w.]*)\s*\(",
                                         text[: match.start()], re.MULTILINE)
                    if assigned is None:
                        continue
                    written = assigned.group(1)
                call = text[match.start() : match.start() + 2000]
                facts.export_calls.append((written, text.count("\n", 0, match.start()) + 1,
                                           "dynamic_shapes" in call.split("\n\n")[0]))
        if "def xport_example" in text:
            body = facts.body("xport_example")
            facts.example = (facts.line_of("xport_example"),
                             list(dict.fromkeys(m.group(1) for m in _CALLED.finditer(body))), "dynamic_shapes" in body)
        return facts

    def to_plain(self) -> list[Any]:
        return [self.starts, self.init_calls, self.export_calls, self.example]

    @classmethod
    def from_plain(cls, data: Any, digest: str) -> _FileFacts:
        """Every field type-checked (JSON's keys are strings): raises ValueError/TypeError on
        anything else."""
        starts, init_calls, export_calls, example = data
        if not (isinstance(starts, dict) and isinstance(init_calls, dict)
                and all(type(line) is int for line in starts.values())
                and all(type(calls) is list and all(type(n) is str for n in calls) for calls in init_calls.values())):
            raise TypeError("malformed facts")
        exports = [(_str(e[0]), _int(e[1]), bool(e[2])) for e in export_calls]
        if example is not None:
            example = (_int(example[0]), [_str(n) for n in example[1]], bool(example[2]))
        return cls(digest, starts, init_calls, exports, example)

    @functools.cached_property
    def lines(self) -> list[str]:
        """The text's lines as Python numbers them (findings' lines; not `str.splitlines`'s)."""
        return [line.rstrip("\r\n") for line in self._lines_with_ends]

    @functools.cached_property
    def _lines_with_ends(self) -> list[str]:
        return split_lines(self.text) if self.text is not None else []

    @functools.cached_property
    def definitions(self) -> list[tuple[int, int, str, str]]:
        """(line, indent, kind, name) of every def/class of the text."""
        found = []
        text = self.text or ""
        line, offset = 1, 0
        for match in _DEFINITION.finditer(text):
            line += text.count("\n", offset, match.start())
            offset = match.start()
            found.append((line, len(match.group(1).expandtabs()), match.group(2), match.group(3)))
        return found

    @functools.cached_property
    def spans(self) -> dict[str, tuple[int, int]]:
        """`func`, `Class` and `Class.method` (top-level ones, as the project index names them) ->
        (first line, the line after the last): up to the next definition indented as much or less."""
        out: dict[str, tuple[int, int]] = {}
        open_: list[tuple[int, str | None, int]] = []  # (indent, qualified name or None, first line)
        owner: tuple[str, int] | None = None  # the enclosing top-level class and its body's indent
        for line, indent, kind, name in self.definitions:
            while open_ and open_[-1][0] >= indent:
                _, closed, first = open_.pop()
                if closed is not None:
                    out.setdefault(closed, (first, line))
            qualified = None
            if indent == 0:
                owner = (name, -1) if kind == "class" else None
                qualified = name
            elif owner is not None and len(open_) == 1 and (owner[1] == -1 or indent == owner[1]):
                owner = (owner[0], indent)
                qualified = f"{owner[0]}.{name}"
            open_.append((indent, qualified, line))
        end = len(self.lines) + 1
        for _, closed, first in open_:
            if closed is not None:
                out.setdefault(closed, (first, end))
        return out

    @functools.cached_property
    def line_starts(self) -> list[int]:
        """Offset of each line's first character (and of the end), for `split_lines`' lines."""
        starts = [0]
        for line in self._lines_with_ends:
            starts.append(starts[-1] + len(line))
        return starts

    def fix_diff(self, path: str, finding: Finding, context: int = 1) -> str | None:
        """The finding's fix as a unified diff of one hunk: only the lines its edits touch are
        rewritten (a whole-file diff of every fix took seconds on the corpus)."""
        assert finding.fix is not None
        starts = self.line_starts
        first = min(edit.span.start.line for edit in finding.fix.edits)
        last = min(max(edit.span.end.line for edit in finding.fix.edits), len(starts) - 1)
        begin, end = starts[first - 1], starts[last]
        region = self.text[begin:end]
        shifted = [
            dataclasses.replace(edit, span=Span(
                Position(edit.span.start.line - first + 1, edit.span.start.column),
                Position(edit.span.end.line - first + 1, edit.span.end.column),
            ))
            for edit in finding.fix.edits
        ]
        fixed = apply_edits(region, shifted)
        if fixed == region:
            return None
        top = max(first - 1 - context, 0)
        before = self.text[starts[top] : starts[min(last + context, len(starts) - 1)]]
        after = before[: begin - starts[top]] + fixed + before[end - starts[top] :]
        hunks = difflib.unified_diff(split_lines(before), split_lines(after), f"a/{path}", f"b/{path}", n=context)
        lines = [_HUNK.sub(lambda m: f"@@ -{int(m[1]) + top}{m[2]} +{int(m[3]) + top}{m[4]} @@", line)
                 if line.startswith("@@") else line for line in hunks]
        return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)

    def line_of(self, qualified: str) -> int:
        return self.starts.get(qualified, 1)

    def _indent(self, line: int) -> int:
        text = self.lines[line - 1].expandtabs() if 0 < line <= len(self.lines) else ""
        return len(text) - len(text.lstrip())

    def enclosing(self, line: int) -> str | None:
        """`func` or `Class.method` (as the project index names it) of the code at `line`: the
        definitions above it, each indented less than the last, read upwards from it."""
        indent = self._indent(line)
        chain: list[tuple[str, str]] = []
        lines = self.lines
        for number in range(min(line, len(lines) + 1) - 1, 0, -1):
            text = lines[number - 1]
            if not text.lstrip(" \t").startswith(("def", "class", "async")):
                continue
            match = _DEFINITION.match(text)
            if match is None:
                continue
            def_indent = len(match.group(1).expandtabs())
            if def_indent < indent:
                chain.append((match.group(2), match.group(3)))
                indent = def_indent
                if def_indent == 0:
                    break
        chain.reverse()
        if not chain or indent != 0:
            return None
        if chain[0][0] == "def":
            return chain[0][1]
        if len(chain) >= 2 and chain[1][0] == "def":
            return f"{chain[0][1]}.{chain[1][1]}"
        return None

    def body(self, qualified: str) -> str:
        """The text of `func` or `Class.method`."""
        span = self.spans.get(qualified)
        return "\n".join(self.lines[span[0] - 1 : span[1] - 1]) if span is not None else ""


def _int(value: object) -> int:
    if type(value) is not int:
        raise TypeError("expected an integer")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_DEFINITION = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.MULTILINE)


class _Builder:
    def __init__(self, checked: ProjectCheck, config: Config, other: ProjectCheck | None,
                 record: ConfirmationRecord, cache: Cache | None) -> None:
        workspace = checked.workspace
        assert workspace is not None and workspace.index is not None
        self.index: ProjectIndex = workspace.index
        self.config = config
        self.mode = config.mode
        self.other_mode = Mode.NON_STRICT if self.mode is Mode.STRICT else Mode.STRICT
        self.results: dict[str, FileResult] = {r.path: r for r in checked.results}
        self.other = {r.path: r for r in other.results} if other is not None else None
        self.linted = set(workspace.linted)
        self.summaries = checked.summaries
        self.record = record
        self.cache = cache
        self._facts: dict[str, _FileFacts | None] = {}
        self._seen: dict[int, tuple[dict[Mode, Severity | None], str | None, str | None, tuple[int, str]]] = {}
        self._successors: dict[Node, list[Node]] = {}
        self._clear: dict[Mode, Verdict] = {}
        self._load_facts([*self.summaries, *(p for p in self.results if p not in self.summaries)])

    @functools.cached_property
    def unchecked(self) -> tuple[str, ...]:
        """Enabled rules that only the other mode runs (its verdict, derived, cannot count them)."""
        enabled = self.config.enabled()
        return tuple(sorted(
            code for code, rule in registry.RULES.items()
            if code in enabled and rule.severity(self.other_mode) is not None and rule.severity(self.mode) is None
        ))

    def _load_facts(self, paths: list[str]) -> None:
        """The facts of `paths`: from the cache by their texts' hashes (one query for all), the
        others derived from the text and cached. Texts are the check's (read from disk only for
        a file the check did not report)."""
        texts: dict[str, str | None] = {}
        for path in paths:
            result = self.results.get(path)
            text = result.text if result is not None else None
            if text is None:
                try:
                    text = Path(path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    text = None
            texts[path] = text
        digests = {path: text_hash(text) for path, text in texts.items() if text is not None}
        keys = {path: self.cache.data_key(_FileFacts.KIND, digest) for path, digest in digests.items()} \
            if self.cache is not None else {}
        stored = self.cache.get_data(list(keys.values())) if self.cache is not None else {}
        for path, text in texts.items():
            if text is None:
                self._facts[path] = None
                continue
            facts = None
            if path in keys and keys[path] in stored:
                try:
                    facts = _FileFacts.from_plain(stored[keys[path]], digests[path])
                    facts.text = text
                except (ValueError, TypeError, IndexError, KeyError):
                    facts = None  # malformed: derived again and overwritten
            if facts is None:
                facts = _FileFacts.of(text, digests[path])
                if self.cache is not None:
                    self.cache.put_data(keys[path], facts.to_plain())
            self._facts[path] = facts

    def facts(self, path: str) -> _FileFacts | None:
        if path not in self._facts:
            self._load_facts([path])
        return self._facts[path]

    # -- models --------------------------------------------------------------------------------

    def model_keys(self) -> list[Key]:
        out = []
        for path, summary in sorted(self.summaries.items()):
            if path not in self.linted:
                continue
            for name in summary.classes:
                key = (summary.module, name)
                if self.index.is_module_class(key) and self.index.find_method(key, "forward") is not None:
                    out.append(key)
        return out

    def submodules(self, key: Key, models: set[Key], names: set[str]) -> tuple[list[Key], str | None]:
        """Project models that `key`'s `__init__` constructs (`self.head = Head(...)`, in a
        ModuleList, ...): exporting `key` runs their `forward` too; and the file of that `__init__`.
        `names`: the models' class names (a call to anything else is not resolved)."""
        init = self.index.find_method(key, "__init__")
        if init is None:
            return [], None
        path = self.index.path_of[init[0]]
        facts = self.facts(path)
        if facts is None:
            return [], path
        owner = self.index.by_module[init[0]]
        found = []
        for written in facts.init_calls.get(init[1], ()):
            if written.rpartition(".")[2] not in names:
                continue
            target = self.index.resolve_local(owner, written)
            if isinstance(target, tuple) and target in models and target != key and target not in found:
                found.append(target)
        return found, path

    def successors(self, node: Node, children: dict[Key, list[Key]]) -> list[Node]:
        """What `node` runs next, in sorted order: its callees, and for a `forward`, the `forward`
        of each submodule its class builds. Worked out once per node (models share their helpers)."""
        known = self._successors.get(node)
        if known is None:
            index = self.index
            callees = list(index.callees(node))
            owner = node[1] or (node[0][0], node[0][1].rpartition(".")[0])
            if node[0][1].endswith(".forward") and owner in children:
                for child in children[owner]:
                    child_forward = index.find_method(child, "forward")
                    if child_forward is not None:
                        callees.append(index.node(child_forward, child))
            known = self._successors[node] = sorted(callees, key=repr)
        return known

    def reach(self, key: Key, children: dict[Key, list[Key]]) -> tuple[dict[Key, Node], dict[Node, Node | None]]:
        """Every function a model's export runs -> the first node that runs it on a shortest path
        from its `forward` (through submodules' `forward`; ties in sorted order), and each node's
        parent on that path (`chain` follows them)."""
        forward = self.index.find_method(key, "forward")
        assert forward is not None
        start = self.index.node(forward, key)
        first: dict[Key, Node] = {}
        parents: dict[Node, Node | None] = {start: None}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            first.setdefault(node[0], node)
            for callee in self.successors(node, children):
                if callee not in parents:
                    parents[callee] = node
                    queue.append(callee)
        return first, parents

    @staticmethod
    def chain(node: Node, parents: dict[Node, Node | None]) -> tuple[Key, ...]:
        out = []
        current: Node | None = node
        while current is not None:
            out.append(current[0])
            current = parents[current]
        return tuple(reversed(out))

    def build(self, previous: Readiness | None = None, changed: set[str] | None = None) -> Readiness:
        """The report; with `previous` (this project's last report) and `changed` (the files edited
        since, and those whose project context that changed), a model none of whose files changed
        keeps its findings and verdicts (its export configuration and confirmation are read again)."""
        keys = self.model_keys()
        models = set(keys)
        names = {key[1] for key in keys}
        children: dict[Key, list[Key]] = {}
        inits: dict[Key, str | None] = {}
        for key in keys:
            children[key], inits[key] = self.submodules(key, models, names)
        built_by_others = {child for kids in children.values() for child in kids}
        exports = self.export_configs(models)
        findings = self.located_findings()
        kept = {m.id: m for m in previous.models} if previous is not None and changed is not None else {}
        reports = []
        reused = set()
        for key in keys:
            path = self.index.path_of[key[0]]
            facts = self.facts(path)
            configs = exports.get(key, [])
            model = kept.get(f"{key[0]}.{key[1]}")
            if model is None or not model.files or model.files & changed or inits[key] in changed:
                model = self.model(key, children, inits[key], findings)
            else:
                reused.add(model.id)
                model = copy.copy(model)  # the previous report's stays as it was
            # what does not depend on the model's files: read again even for a kept model
            model.line = facts.line_of(key[1]) if facts is not None else 1
            model.top_level = key not in built_by_others
            model.exported = bool(configs)
            model.export_configs = configs
            model.confirmation = self.record.state(path, facts.hash if facts else None, key[1],
                                                   model.verdicts[self.mode].verdict)
            model.submodules = [f"{c[0]}.{c[1]}" for c in children[key]]
            reports.append(model)
        reports.sort(key=lambda m: (not m.exported, not m.top_level, VERDICTS.index(m.verdicts[self.mode].verdict),
                                    m.id))
        claimed = {(f.path, f.finding.code, f.finding.span) for m in reports for f in m.findings}
        other = [
            self.model_finding(path, finding, self.outside_chain(path, finding))
            for path, items in sorted(findings.by_path.items())
            for finding in items
            if (path, finding.code, finding.span) not in claimed
        ]
        return Readiness(self.mode, reports, other, len(self.linted), str(self.config.target), frozenset(reused))

    def model(self, key: Key, children: dict[Key, list[Key]], init: str | None, findings: _Located) -> ModelReport:
        """One model's findings and verdicts: what its `forward` reaches, and the files that decide them."""
        first, parents = self.reach(key, children)
        mine: list[ModelFinding] = []
        broken: list[str] = []
        path = self.index.path_of[key[0]]
        files = {path} | ({init} if init else set())
        for function, node in first.items():
            function_path = self.index.path_of.get(function[0])
            if function_path is None:
                continue
            files.add(function_path)
            if function_path in findings.problems:
                broken.append(f"{function_path} was not fully checked ({findings.problems[function_path]})")
            items = findings.by_function.get((function_path, function[1]))
            if items:
                chain = tuple(self.step(k) for k in self.chain(node, parents))
                mine.extend(self.model_finding(function_path, item, chain) for item in items)
        mine.sort(key=lambda f: (_rank(f.severities.get(self.mode)), f.path, f.finding.span.start, f.finding.code))
        verdicts = {mode: self.verdict(mine, mode, broken) for mode in MODES}
        return ModelReport(
            id=f"{key[0]}.{key[1]}", name=key[1], path=path, line=1, package=key[0].rpartition(".")[0],
            top_level=True, exported=False, verdicts=verdicts, export_configs=[], findings=mine,
            confirmation=ConfirmationState(), files=frozenset(files),
        )

    # -- findings --------------------------------------------------------------------------------

    def step(self, key: Key) -> Step:
        path = self.index.path_of.get(key[0], "")
        facts = self.facts(path) if path else None
        return Step(key[1], path, facts.line_of(key[1]) if facts is not None else 0)

    def located_findings(self) -> _Located:
        located = _Located()
        merged: dict[str, list[Finding]] = {}
        for path, result in self.results.items():
            merged[path] = list(result.findings)
        if self.other is not None:
            for path, result in self.other.items():
                have = {(f.code, f.span) for f in merged.get(path, [])}
                merged.setdefault(path, []).extend(f for f in result.findings if (f.code, f.span) not in have)
        for path, items in merged.items():
            facts = self.facts(path)
            for finding in items:
                if finding.internal:
                    located.problems[path] = "internal error"
                elif finding.code == SYNTAX_CODE:
                    located.problems[path] = finding.message.split(":")[0]
                located.by_path.setdefault(path, []).append(finding)
                rule = registry.RULES.get(finding.code)
                if facts is None or rule is None or rule.SCOPE is not Scope.TRACED:
                    continue
                function = facts.enclosing(finding.span.start.line)
                if function is not None:
                    located.by_function.setdefault((path, function), []).append(finding)
        return located

    def severities(self, path: str, finding: Finding) -> dict[Mode, Severity | None]:
        """Each mode's severity: checked where that mode's check found it; else carried over by
        the rule's per-mode severity (a condition that made an error a warning holds in both)."""
        out: dict[Mode, Severity | None] = {self.mode: finding.severity}
        if self.other is not None:
            result = self.other.get(path)
            match = next((f for f in (result.findings if result else []) if f.code == finding.code
                          and f.span == finding.span), None)
            mine = next((f for f in self.results[path].findings if f.code == finding.code
                         and f.span == finding.span), None) if path in self.results else None
            out = {self.mode: mine.severity if mine else None, self.other_mode: match.severity if match else None}
            return {mode: out[mode] for mode in MODES}
        rule = registry.RULES.get(finding.code)
        if rule is None or finding.code in self.config.severity:
            out[self.other_mode] = finding.severity
        else:
            here, there = rule.severity(self.mode), rule.severity(self.other_mode)
            if here == there:
                out[self.other_mode] = finding.severity
            elif finding.severity is Severity.WARNING and here is Severity.ERROR:
                out[self.other_mode] = Severity.WARNING if there is Severity.ERROR else there
            else:
                out[self.other_mode] = there
        return {mode: out[mode] for mode in MODES}

    def model_finding(self, path: str, finding: Finding, chain: tuple[Step, ...]) -> ModelFinding:
        """The finding as a model sees it; what does not depend on the model is worked out once
        (a helper's finding is listed under every model that reaches it)."""
        known = self._seen.get(id(finding))
        if known is None:
            known = self._seen[id(finding)] = self._describe(path, finding)
        severities, condition, diff, excerpt = known
        return ModelFinding(path, finding, severities, condition, chain, diff, excerpt)

    def _describe(
        self, path: str, finding: Finding
    ) -> tuple[dict[Mode, Severity | None], str | None, str | None, tuple[int, str]]:
        severities = self.severities(path, finding)
        condition = None
        rule = registry.RULES.get(finding.code)
        conditional = rule is not None and any(
            severities[mode] is Severity.WARNING and rule.severity(mode) is Severity.ERROR for mode in MODES
        )
        if conditional and (match := _CONDITION.search(finding.message)):
            condition = match.group(1)
        diff = None
        facts = self.facts(path)
        if finding.fix is not None and finding.fix.edits and facts is not None:
            diff = facts.fix_diff(path, finding)
        excerpt = (0, "")
        if facts is not None:
            first = max(1, finding.span.start.line - _CONTEXT_LINES)
            last = min(len(facts.lines), finding.span.end.line + _CONTEXT_LINES, first + _MAX_EXCERPT_LINES - 1)
            excerpt = (first, "\n".join(facts.lines[first - 1 : last]))
        return severities, condition, diff, excerpt

    def outside_chain(self, path: str, finding: Finding) -> tuple[Step, ...]:
        """A finding outside every model: the chain the index knows from its own entry point."""
        facts = self.facts(path)
        summary = self.summaries.get(path)
        if facts is None or summary is None:
            return ()
        function = facts.enclosing(finding.span.start.line)
        if function is None:
            return ()
        key = (summary.module, function)
        chain = [key]
        while (parent := self.index.parents.get(chain[-1])) is not None:
            chain.append(parent[0])
        return tuple(self.step(k) for k in reversed(chain))

    def verdict(self, findings: list[ModelFinding], mode: Mode, broken: list[str]) -> Verdict:
        if not findings and not broken:  # most models: one verdict object per mode
            known = self._clear.get(mode)
            if known is None:
                known = self._clear[mode] = self._verdict([], mode, [])
            return known
        return self._verdict(findings, mode, broken)

    def _verdict(self, findings: list[ModelFinding], mode: Mode, broken: list[str]) -> Verdict:
        errors = [f for f in findings if f.severities[mode] is Severity.ERROR]
        warnings = [f for f in findings if f.severities[mode] is Severity.WARNING]
        basis = "checked" if mode is self.mode or self.other is not None else "derived"
        unchecked: tuple[str, ...] = ()
        if basis == "derived":
            unchecked = self.unchecked
        common = {"errors": len(errors), "warnings": len(warnings), "basis": basis, "unchecked": unchecked}
        if errors:
            return Verdict(FAILS, **common)
        if broken:
            return Verdict(UNKNOWN, reason="; ".join(sorted(set(broken))), **common)
        conditions = tuple(dict.fromkeys(
            f.condition for f in warnings if f.condition is not None
        ))
        if conditions:
            return Verdict(FAILS_WHEN, conditions, **common)
        return Verdict(EXPORTS, **common)

    # -- export configuration -----------------------------------------------------------------------

    def export_configs(self, models: set[Key]) -> dict[Key, list[ExportConfig]]:
        """Where each model's export is declared: export calls and `xport_example()` in the
        project's files, export scripts' declared shapes (the index's), pyproject.toml's tables."""
        out: dict[Key, list[ExportConfig]] = {}
        for module, declared in self.index.declared_shapes().items():
            for name, shapes in declared.items():
                out.setdefault((module, name), []).append(ExportConfig(
                    "export-script", shapes.source, shapes.path or None, shapes.line or None, shapes.any_dynamic()))
        for path, summary in sorted(self.summaries.items()):
            facts = self.facts(path)
            if facts is None:
                continue
            for key, config in self._calls_in(path, summary, facts, models):
                if not any(c.path == config.path and c.line == config.line for c in out.get(key, [])):
                    out.setdefault(key, []).append(config)
        for key in models:
            module, name = key
            qualified = f"{module}.{name}"
            if qualified in self.config.dynamic_shapes or name in self.config.dynamic_shapes:
                out.setdefault(key, []).append(ExportConfig(
                    "pyproject-dynamic-shapes", f"[tool.xport-lint.dynamic-shapes] {qualified}", dynamic=True))
            provider = self.config.example_for(self.index.path_of[module], [name])
            if provider is not None:
                out.setdefault(key, []).append(ExportConfig(
                    "pyproject-examples", f"[tool.xport-lint.examples] {qualified} = \"{provider}\""))
        return out

    def _calls_in(
        self, path: str, summary: ModuleSummary, facts: _FileFacts, models: set[Key]
    ) -> Iterator[tuple[Key, ExportConfig]]:
        for written, line, dynamic in facts.export_calls:
            target = self.index.resolve_local(summary, written)
            if isinstance(target, tuple) and target in models:
                yield target, ExportConfig("export-call", f"export call in {path}:{line}", path, line, dynamic)
        if facts.example is not None:
            line, called, dynamic = facts.example
            for name in called:
                target = self.index.resolve_local(summary, name)
                if isinstance(target, tuple) and target in models:
                    yield target, ExportConfig(
                        "xport_example", f"xport_example() in {path}:{line}", path, line, dynamic)


@dataclass
class _Located:
    by_path: dict[str, list[Finding]] = field(default_factory=dict)
    #: (path, `func` / `Class.method`) -> its traced-code findings
    by_function: dict[tuple[str, str], list[Finding]] = field(default_factory=dict)
    #: path -> why it was not fully checked (a syntax error, an internal error)
    problems: dict[str, str] = field(default_factory=dict)


def _rank(severity: Severity | None) -> int:
    return {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}.get(severity, 3) if severity else 3
