"""`xport-lint repair`: from "fails" to "exports", one proven step at a time.

For one model (a file's `xport_example()`, or `pkg.mod:Class` with an example factory), in a
scratch copy of the project: export it in the user's interpreter (confirm/probe.py, through
the confirmation launcher: killable, memory-capped), take the failure torch reports at the line
it names, try the fixes xport-lint has for that line (then for the lines that called it), and
keep a fix only if the failure is gone, the new run does not fail inside the rewritten lines,
and where it exports the outputs equal eager on the example and on a second input whose
dynamic dimensions have another size. Stop when the model exports or nothing applies, and say
what blocks it and what a person should do. Nothing is written unless asked; installed packages
are never touched (`--allow PACKAGE` repairs a copy of one).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from .config import Config
from .confirm import dynamic_shapes_edit
from .confirm.supervisor import ConfirmError, Worker, WorkerOptions
from .dataflow import all_params
from .files import discover
from .fixes import apply_edits, apply_fixes
from .model import Finding
from .project import check_project
from .walk import iter_nodes

PROBE = Path(__file__).with_name("confirm") / "probe.py"
_SKIP = shutil.ignore_patterns(
    ".git", ".venv*", "venv", "__pycache__", "node_modules", ".xport-lint-cache", "*.egg-info", ".pytest_cache",
    ".ruff_cache", ".mypy_cache",
)
#: fixes tried per failure before giving up on it
_CANDIDATES = 6


@dataclass(frozen=True)
class Failure:
    """What torch raised, at the innermost frame outside torch (`file`, `line`), with the frames
    that led there, outermost first."""

    kind: str
    message: str
    file: str | None
    line: int | None
    chain: tuple[tuple[str, int, str], ...] = ()

    def headline(self) -> str:
        lines = [line for line in self.message.splitlines() if line.strip()]
        return lines[0][:300] if lines else self.kind


@dataclass(frozen=True)
class Outcome:
    """One export of the model and its comparison with eager."""

    exported: bool
    failure: Failure | None = None
    #: why the exported program's outputs differ from eager on the example (None: equal)
    differs: str | None = None
    #: the same on a second input with other sizes; `second_note`: why it was not compared
    second_differs: str | None = None
    second_note: str | None = None
    second_shapes: tuple[tuple[int, ...], ...] = ()
    dynamic: bool = False
    #: torch's `dynamic_shapes` suggestion for a constraint violation, and the dims it pins
    refined: str | None = None
    static: tuple[str, ...] = ()
    #: (file as torch wrote it, line, guard): where export added the guards that pin those dims
    pins: tuple[tuple[str, int, str], ...] = ()
    #: where torch suggests nothing: the Dims narrowed to the values its guards accept, and how
    narrowed: str | None = None
    narrowed_by: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.exported and self.differs is None and self.second_differs is None

    def evidence(self) -> str:
        if self.failure is not None:
            return f"fails: {self.failure.headline()}"
        if not self.exported:
            return "fails"
        parts = ["exports", "equals eager on the example" if self.differs is None else f"but {self.differs}"]
        if self.second_shapes:
            shapes = ", ".join(str(tuple(s)) for s in self.second_shapes)
            parts.append(f"equals eager on inputs {shapes}" if self.second_differs is None
                         else f"but on inputs {shapes}: {self.second_differs}")
        elif self.second_note:
            parts.append(f"second input not compared ({self.second_note})")
        elif self.dynamic:
            parts.append("no dimension stayed dynamic")
        return ", ".join(parts)


@dataclass(frozen=True)
class Step:
    failure: Failure
    title: str
    path: str
    diff: str
    after: Outcome
    kept: bool
    verdict: str


@dataclass
class Repair:
    initial: Outcome
    final: Outcome
    steps: list[Step] = field(default_factory=list)
    blocker: str | None = None
    advice: str | None = None
    #: project-relative path -> (original text, repaired text), for the files a kept step changed
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the changed paths that are in an allowed package (written only to `--allow-into`)
    library_paths: set[str] = field(default_factory=set)
    #: the lines that may pin a dim torch would make static (shape branches, sizes through floats)
    pinning: list[str] = field(default_factory=list)
    #: a scratch path as the user knows it (project-relative, or in its package)
    display: Callable[[str], str] = field(default=lambda path: path)

    @property
    def diff(self) -> str:
        return "".join(_diff(path, old, new) for path, (old, new) in sorted(self.changed.items()))


@dataclass(frozen=True)
class Target:
    """The model: a file with `xport_example()`, or `model` (`pkg.mod:Class`) with `example`
    (`pkg.mod:function`; default: the module's `xport_example`), imported from `root`."""

    root: str
    path: str | None = None
    model: str | None = None
    example: str | None = None


def _diff(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    ))


def _outcome(answer: dict[str, Any], scratch: str) -> Outcome:
    if answer.get("status") != "ran" or not answer.get("exported"):
        frames = [f for f in answer.get("frames") or [] if f.get("file")]
        chain = tuple((f["file"], int(f["line"]), f.get("function", "")) for f in frames)
        inner = chain[-1] if chain else (None, None, "")
        message = str(answer.get("error") or "the example could not be run")
        failure = Failure(str(answer.get("kind") or answer.get("status")), message, inner[0], inner[1], chain)
        pins = tuple((p["file"], int(p["line"]), p["guard"]) for p in answer.get("pins") or [])
        return Outcome(False, failure, refined=answer.get("refined"), static=tuple(answer.get("static") or ()),
                       dynamic=bool(answer.get("dynamic")), pins=pins, narrowed=answer.get("narrowed"),
                       narrowed_by=tuple(answer.get("narrowed_by") or ()))
    return Outcome(
        True,
        differs=answer.get("differs"),
        second_differs=answer.get("second_differs"),
        second_note=answer.get("second"),
        second_shapes=tuple(tuple(s) for s in answer.get("second_shapes") or ()),
        dynamic=bool(answer.get("dynamic")),
    )


class _Scratch:
    """A copy of the project (and of each allowed package) that fixes are tried in."""

    def __init__(self, root: str, folder: str, allowed: dict[str, str]) -> None:
        self.root = os.path.abspath(root)
        self.folder = folder
        self.project = os.path.join(folder, "project")
        shutil.copytree(self.root, self.project, ignore=_SKIP, symlinks=True)
        self.libraries = os.path.join(folder, "libraries")
        os.makedirs(self.libraries)
        #: package name -> its installed folder
        self.allowed = allowed
        for name, installed in allowed.items():
            shutil.copytree(installed, os.path.join(self.libraries, name), ignore=_SKIP)
        self.originals: dict[str, str] = {}

    def display(self, path: str) -> str:
        """`path` (a scratch file) as the user knows it: project-relative, or in its package."""
        for base in (self.project, self.libraries):
            if _inside(path, base):
                return os.path.relpath(path, base)
        return path

    def editable(self, path: str | None) -> bool:
        return path is not None and (_inside(path, self.project) or _inside(path, self.libraries))

    def read(self, path: str) -> str:
        return Path(path).read_text(encoding="utf-8")

    def write(self, path: str, text: str) -> None:
        self.originals.setdefault(path, self.read(path))
        Path(path).write_text(text, encoding="utf-8")


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == os.path.abspath(folder)
    except ValueError:
        return False


class Repairer:
    def __init__(
        self, target: Target, config: Config, python: str | None = None, timeout: float = 300.0,
        memory_limit: int | None = None, allowed: dict[str, str] | None = None, allow_static: bool = False,
        max_steps: int = 12, progress: Callable[[str], None] | None = None,
    ) -> None:
        self.target = target
        self.config = config
        options = WorkerOptions(python=python or WorkerOptions().python, timeout=timeout, script=PROBE)
        if memory_limit is not None:
            options = WorkerOptions(options.python, timeout, memory_limit or None, PROBE)
        self.options = options
        self.allowed = allowed or {}
        self.allow_static = allow_static
        self.max_steps = max_steps
        self.progress = progress or (lambda _: None)

    def run(self) -> Repair:
        with tempfile.TemporaryDirectory(prefix="xport-lint-repair-") as folder, self._worker() as worker:
            scratch = _Scratch(self.target.root, folder, self.allowed)
            return self._loop(scratch, worker)

    @contextmanager
    def _worker(self) -> Iterator[Worker]:
        worker = Worker(self.options)
        try:
            yield worker
        finally:
            worker.close()

    def _export(self, scratch: _Scratch, worker: Worker) -> Outcome:
        request: dict[str, Any] = {"root": scratch.project, "paths": [scratch.libraries] if self.allowed else [],
                                   "strict": self.config.strict, "model": self.target.model,
                                   "example": self.target.example}
        if self.target.path:
            request["path"] = os.path.join(scratch.project, os.path.relpath(self.target.path, self.target.root))
        try:
            answer = worker.request(request)
        except ConfirmError as error:
            answer = {"status": error.kind, "error": str(error)}
        finally:
            # a fresh process per export: each verdict is this version's alone, not one shaped by
            # what earlier exports left in torch's caches
            worker.close()
        return _outcome(answer, scratch.project)

    def _loop(self, scratch: _Scratch, worker: Worker) -> Repair:
        self.progress("exporting the model as it is")
        current = self._export(scratch, worker)
        repair = Repair(initial=current, final=current, display=scratch.display)
        tried: set[tuple[str, str]] = set()
        for _ in range(self.max_steps):
            if current.ok:
                break
            failure = current.failure
            if failure is None:
                repair.blocker = current.evidence()
                repair.advice = "the exported program does not equal eager: export it with a fix of your own"
                break
            kept = False
            # the cap counts only fixes not tried before: those an earlier failure already tried
            # (at the outer frames a new failure shares) must not crowd out the ones at its own line
            fresh = [c for c in self._candidates(scratch, current, failure, repair) if (c[0], c[2]) not in tried]
            for path, title, text in fresh[:_CANDIDATES]:
                tried.add((path, text))
                before = scratch.read(path)
                scratch.write(path, text)
                self.progress(f"trying: {title} ({scratch.display(path)})")
                after = self._export(scratch, worker)
                verdict = _judge(current, after, path, before, text)
                step = Step(failure, title, scratch.display(path), _diff(scratch.display(path), before, text), after,
                            verdict is None, verdict or "kept")
                repair.steps.append(step)
                if verdict is None:
                    current, kept = after, True
                    break
                Path(path).write_text(before, encoding="utf-8")
            if not kept:
                repair.blocker = f"{_where(scratch, failure)}: {failure.headline()}"
                repair.advice = repair.advice or _advice(scratch, failure, self.allowed)
                break
        repair.final = current
        if current.ok:
            repair.advice = None  # what a step on the way advised (a static resort) no longer applies
        for path, original in scratch.originals.items():
            text = scratch.read(path)
            if text != original:
                repair.changed[scratch.display(path)] = (original, text)
                if _inside(path, scratch.libraries):
                    repair.library_paths.add(scratch.display(path))
        return repair

    def _candidates(
        self, scratch: _Scratch, outcome: Outcome, failure: Failure, repair: Repair
    ) -> list[tuple[str, str, str]]:
        """(scratch path, title, fixed text) for the failure: the fixes of findings on the failing
        line, then on the lines that called it; for a constraint violation, the fixes at the
        lines its guards come from (they keep the whole declared range), then torch's
        `dynamic_shapes` (narrowed ranges; one that pins a dimension only with `allow_static`)."""
        out: list[tuple[str, str, str]] = []
        if outcome.static or outcome.pins:
            # a dim torch would pin or narrow: first the code fixes of the lines that guard it
            names = re.findall(r"Constraints violated \(([^)]*)\)", failure.message)
            dims = [n.strip() for n in ",".join(names).split(",") if n.strip()]
            out += self._keep_dynamic(scratch, repair, dims, outcome.pins)
        if outcome.narrowed is not None:
            # before torch's suggestion: where that pins a dim, the multiples that keep it dynamic
            narrowed = self._with_shapes(scratch, outcome.narrowed)
            if narrowed is not None:
                how = "; ".join(outcome.narrowed_by)
                why = "the values torch's guards accept" if outcome.refined is None and outcome.failure \
                    and "Constraints violated" in outcome.failure.message else "the multiples that export"
                out.append((narrowed[0], f"dynamic_shapes: {outcome.narrowed} (narrowed to {why}: {how}; kept "
                            "dynamic)", narrowed[1]))
        if outcome.refined is not None:
            shapes = self._shapes_candidate(scratch, outcome, repair)
            if shapes is not None:
                out.append(shapes)
        frames = [(f, line) for f, line, _ in reversed(failure.chain) if scratch.editable(f)]
        if not frames:
            return out
        findings = self._findings(scratch, {f for f, _ in frames})
        # a library path a config switch turns off: dropping the switch comes before any rewrite
        out += self._switches(scratch, frames, findings, repair)
        data_dependent = "GuardOnDataDependentSymNode" in failure.kind
        for path, line in frames:
            text = scratch.read(path)
            found = findings.get(path, [])
            if data_dependent and not _inside(path, scratch.project):
                # a library function reached only through other files is not traced code when
                # its file is read alone: read it as traced, its tensors sized by data, as torch
                # says they are here
                found = [*found, *_as_traced(text, path, line, self.config)]
            for finding in found:
                if finding.fix is None or not finding.span.start.line <= line <= finding.span.end.line:
                    continue
                fixed = apply_fixes(text, [finding], unsafe=True)
                if fixed != text and all(fixed != other for _, _, other in out):
                    out.append((path, f"{finding.code} {finding.fix.title}", fixed))
        if data_dependent and frames:
            path, line = frames[0]
            text = scratch.read(path)
            lines = text.splitlines()
            nonempty = 0 < line <= len(lines) and _NONEMPTY.search(lines[line - 1]) is not None
            for value in (True, False) if nonempty else (False, True):
                undecided = undecided_as(text, line, value)
                if undecided is not None:
                    out.append((path, _guard_title(value), undecided))
            sized = len_as_size(scratch.read(path), line)
            if sized is not None:
                out.append((path, "`len(t)` as `t.shape[0]` (a symbolic size, not a Python int read from data)", sized))
        return out

    def _switches(
        self, scratch: _Scratch, frames: list[tuple[str, int]], findings: dict[str, list[Finding]], repair: Repair
    ) -> list[tuple[str, str, str]]:
        """The project's `NAME="VALUE"` dropped where a finding at a failing line says its code
        runs only with that switch (transformers' experts loop: `experts_implementation="eager"`;
        the library's default replaces it); the advice names the switch when no project file sets
        it."""
        out: list[tuple[str, str, str]] = []
        for path, line in frames:
            for finding in findings.get(path, []):
                match = _SWITCH.search(finding.message)
                if match is None or not finding.span.start.line <= line <= finding.span.end.line:
                    continue
                name, value = match.groups()
                where = f"{scratch.display(path)}:{line}"
                for project_file in discover([scratch.project], self.config.exclude):
                    text = scratch.read(project_file)
                    dropped = without_switch(text, name, value)
                    if dropped is not None:
                        out.append((os.path.abspath(project_file), f'config switch: drop {name}="{value}" (the '
                                    f"library's default path replaces the code that fails at {where})", dropped))
                if not out:
                    repair.advice = (f'the code that fails at {where} runs only with {name}="{value}": leave that '
                                     "setting at the library's default, which replaces it")
                return out
        return out

    def _keep_dynamic(
        self, scratch: _Scratch, repair: Repair, dims: list[str], pins: tuple[tuple[str, int, str], ...] = ()
    ) -> list[tuple[str, str, str]]:
        """The fixes of the project's shape findings (a branch or loop on a size, a size through
        a float) on the `dims` torch would make static (all of them when none names one): the
        lines that may pin them. They are shown first, in the advice, and tried before any static
        suggestion."""
        files = discover([scratch.project], self.config.exclude)
        shape = [(r, f) for r in check_project(files, self.config, None, 1).results for f in r.findings
                 if f.code.startswith("XPT3")]
        named = [(r, f) for r, f in shape if any(f'"{d}"' in f.message or f"'{d}'" in f.message for d in dims)]
        out, lines = [], []
        # the lines torch's guards name first: the fixes there are the ones that keep the dim dynamic
        pinned = self._at_pins(scratch, files, pins, lines)
        for result, finding in named or shape:
            lines.append(f"{scratch.display(result.path)}:{finding.span.start.line} ({finding.code})")
            if finding.fix is not None and result.text is not None:
                fixed = apply_fixes(result.text, [finding], unsafe=True)
                if fixed != result.text:
                    title = f"{finding.code} {finding.fix.title} (keeps the dim dynamic)"
                    out.append((os.path.abspath(result.path), title, fixed))
        # each step's lines kept: the report names every guard the repair went through
        repair.pinning += [line for line in lines if line not in repair.pinning]
        return pinned + out

    def _at_pins(
        self, scratch: _Scratch, files: list[str], pins: tuple[tuple[str, int, str], ...], lines: list[str]
    ) -> list[tuple[str, str, str]]:
        """The fixes at the lines that added the pinning guards (each line also listed in `lines`,
        with its first guard and how many more it added)."""
        out: list[tuple[str, str, str]] = []
        guards: dict[tuple[str, int], list[str]] = {}
        # a guard that equates a dim with a number pins it alone: its line first
        for file, line, guard in sorted(pins, key=lambda pin: not re.fullmatch(r"Eq\(\w+, -?\d+\)", pin[2])):
            if scratch.editable(file) and os.path.isfile(file):
                path: str | None = file
            else:
                # torch cuts long paths at the front: the scratch file whose path ends like it
                path = next((p for p in files if os.path.abspath(p).endswith(file.lstrip("."))), None)
                path = path or _library_file(scratch.libraries, file)
            if path is not None:  # a guard inside torch names no line of yours
                guards.setdefault((os.path.abspath(path), line), []).append(guard)
        findings = self._findings(scratch, {path for path, _ in guards}, dynamic=True)
        for (path, line), added in guards.items():
            more = f" and {len(added) - 1} more" if len(added) > 1 else ""
            text = scratch.read(path)
            flag = flag_around(text, line)
            when = f"; only while {flag}: a model built or called with it the other way skips it" if flag else ""
            where = f"{scratch.display(path)}:{line} (guard {added[0]}{more}{when})"
            if where not in lines:
                lines.append(where)
            symbolic = size_without_int(text, line)
            if symbolic is not None:
                out.append((path, _SYMBOLIC_TITLE, symbolic))
            for finding in findings.get(path, []):
                if finding.fix is not None and finding.span.start.line <= line <= finding.span.end.line:
                    fixed = apply_fixes(text, [finding], unsafe=True)
                    if fixed != text:
                        out.append((path, f"{finding.code} {finding.fix.title} (at the pinning line)", fixed))
        return out

    def _findings(self, scratch: _Scratch, paths: set[str], dynamic: bool = False) -> dict[str, list[Finding]]:
        """Findings of `paths`: project files with the whole project's context, a library file on
        its own (its package can be thousands of files). `dynamic`: as if every dimension were
        dynamic (`shapes = "dynamic"`), for the lines that pin a dim the model declares dynamic:
        a library file declares no shapes, so its shape rules would offer no fix there."""
        config = dataclasses.replace(self.config, shapes="dynamic") if dynamic else self.config
        out: dict[str, list[Finding]] = {}
        project = [p for p in paths if _inside(p, scratch.project)]
        if project:
            files = discover([scratch.project], config.exclude)
            checked = check_project(files, config, None, 1)
            for result in checked.results:
                out[os.path.abspath(result.path)] = result.findings
        for path in paths - set(project):
            from .runner import check_source

            out[path] = check_source(scratch.read(path), path, config)
        return out

    def _with_shapes(self, scratch: _Scratch, shapes: str) -> tuple[str, str] | None:
        """(example file, its text with `shapes` as the `dynamic_shapes` its factory gives), or
        None where no example file or no `dynamic_shapes` in it can be edited."""
        example = self._example_file(scratch)
        if example is None:
            return None
        text = scratch.read(example)
        function = (self.target.example or "").partition(":")[2] or "xport_example"
        fixed = _with_dynamic_shapes(text, function, _dims_in_scope(text, shapes))
        return None if fixed is None else (example, fixed)

    def _shapes_candidate(self, scratch: _Scratch, outcome: Outcome, repair: Repair) -> tuple[str, str, str] | None:
        edited = None if outcome.refined is None else self._with_shapes(scratch, outcome.refined)
        if edited is None:
            if outcome.static:
                repair.advice = self._static_advice(outcome, repair)
            return None
        example, fixed = edited
        if outcome.static:
            repair.advice = self._static_advice(outcome, repair)
            if not self.allow_static:
                return None
            pinned = ", ".join(outcome.static)
            return example, f"dynamic_shapes: make {pinned} static (last resort: no code fix kept it dynamic)", fixed
        title = f"dynamic_shapes: {outcome.refined} (torch's suggested ranges: the dims narrowed, kept dynamic)"
        return example, title, fixed

    def _static_advice(self, outcome: Outcome, repair: Repair) -> str:
        """What a person should do where torch would make dims static: the lines that pin them first."""
        lines = f" ({', '.join(repair.pinning)})" if repair.pinning else ""
        return (
            f"torch would make {', '.join(outcome.static)} static. Keep it dynamic instead: find the line that pins "
            f"it{lines}, a branch on that size or a size computed from it, and rewrite it or state the range with "
            "torch._check(...). "
            + ("Made static as the last resort (--allow-static)." if self.allow_static else
               "Last resort: `--allow-static` applies torch's suggestion and makes it static.")
        )

    def _example_file(self, scratch: _Scratch) -> str | None:
        if self.target.path:
            return os.path.join(scratch.project, os.path.relpath(self.target.path, self.target.root))
        module = (self.target.example or self.target.model or "").partition(":")[0].replace(".", os.sep)
        for candidate in (module + ".py", os.path.join(module, "__init__.py")):
            path = os.path.join(scratch.project, candidate)
            if os.path.exists(path):
                return path
        return None


class _Enclosing(cst.CSTVisitor):
    """The innermost function (`func` or `Class.method`) whose body holds `line`, and its parameters."""

    def __init__(self, positions: Any, line: int) -> None:
        self.positions = positions
        self.line = line
        self.classes: list[str] = []
        self.found: tuple[str, list[str]] | None = None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        where = self.positions[node]
        if where.start.line <= self.line <= where.end.line:
            name = ".".join([*self.classes[-1:], node.name.value])
            self.found = (name, [p.name.value for p in all_params(node.params)])


def _as_traced(source: str, path: str, line: int, config: Config) -> list[Finding]:
    """Findings of `source` with the function around `line` analysed as traced code whose tensor
    arguments have sizes read from data (where torch failed on a data-dependent guard)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    from .index import FileContext, Reach
    from .runner import check_source

    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except cst.ParserSyntaxError:
        return []
    enclosing = _Enclosing(wrapper.resolve(PositionProvider), line)
    wrapper.module.visit(enclosing)
    if enclosing.found is None:
        return []
    name, params = enclosing.found
    context = FileContext(
        entries=((name, Reach("the exported model", (), path, line)),),
        arguments=((name, tuple((param, "dd") for param in params)),),
    )
    return check_source(source, path, config, context=context)


def _guard_title(value: bool) -> str:
    return (
        f"decide the test as {value} while exporting where data decides it (torch's guard_or_{str(value).lower()}: "
        "export keeps that branch, which must handle the other case too; eager is unchanged)"
    )


#: a test that holds when a size is not zero (`n > 0`, `n != 0`, `n >= 1`): the branch for the
#: general case, which export should keep (decided True); any other test decided False first
_NONEMPTY = re.compile(r"(>\s*0|!=\s*0|>=\s*1)\s*\)?\s*:?\s*$")


class _Undecided(cst.CSTTransformer):
    """Each comparison or flag in the test of the outermost `if` (or `a if test else b`) whose
    test covers `line`, as `guard_or_false(...)` (`guard_or_true` to decide it True): in
    `if n > (4000 if cpu else 100_000):` the size test is the one export cannot decide, not the
    conditional inside it."""

    def __init__(self, positions: Any, line: int, value: bool) -> None:
        self.positions = positions
        self.line = line
        self.value = value
        self.target: cst.CSTNode | None = None
        self.changed = False

    def visit_If(self, node: cst.If) -> None:
        self._choose(node)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._choose(node)

    def _choose(self, node: cst.If | cst.IfExp) -> None:
        where = self.positions[node.test]
        if self.target is None and where.start.line <= self.line <= where.end.line:
            self.target = node

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        return self._decide(original, updated)

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.IfExp:
        return self._decide(original, updated)

    def _decide(self, original: Any, updated: Any) -> Any:
        if original is not self.target:
            return updated
        self.changed = True
        return updated.with_changes(test=_wrap(updated.test, self.value))


def _wrap(test: cst.BaseExpression, value: bool) -> cst.BaseExpression:
    if isinstance(test, cst.BooleanOperation):
        return test.with_changes(left=_wrap(test.left, value), right=_wrap(test.right, value))
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.with_changes(expression=_wrap(test.expression, not value))
    if isinstance(test, (cst.Comparison, cst.Name, cst.Attribute, cst.Subscript)):
        # a size test, or a flag read out of a tensor (`flag = t.any().item()`): a symbolic bool;
        # a plain Python bool passes through guard_or_false/guard_or_true unchanged
        call = f"torch.fx.experimental.symbolic_shapes.guard_or_{str(value).lower()}"
        return cst.parse_expression(f"{call}({cst.Module([]).code_for_node(test.with_changes(lpar=[], rpar=[]))})")
    return test


def undecided_as(source: str, line: int, value: bool = False) -> str | None:
    """`source` with the size comparisons of the `if` at `line` decided `value` where export
    cannot decide them (torch's own advice for a data-dependent guard: guard_or_false, or
    guard_or_true), or None when no `if` test covers that line or the file does not import
    torch under that name."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    if not re.search(r"^import torch\b", source, re.MULTILINE):
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    undecided = _Undecided(wrapper.resolve(PositionProvider), line, value)
    fixed = module.visit(undecided)
    return fixed.code if undecided.changed and fixed.code != source else None


_SWITCH = re.compile(r'only with `(\w+)="([\w.-]+)"`')


class _WithoutSwitch(cst.CSTTransformer):
    def __init__(self, name: str, value: str) -> None:
        self.name = name
        self.value = value
        self.changed = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        kept = [a for a in updated.args if not (
            a.keyword is not None and a.keyword.value == self.name and isinstance(a.value, cst.SimpleString)
            and a.value.evaluated_value == self.value
        )]
        if len(kept) == len(updated.args):
            return updated
        self.changed = True
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(args=kept)


def without_switch(source: str, name: str, value: str) -> str | None:
    """`source` with each `name="value"` keyword argument dropped (the call then takes the
    library's default), or None when it passes none."""
    if name not in source:
        return None
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    dropped = _WithoutSwitch(name, value)
    fixed = module.visit(dropped)
    return fixed.code if dropped.changed else None


class _FlagAround(cst.CSTVisitor):
    """The innermost `if FLAG:` (or its `else:`) around `line` whose test is a plain flag."""

    def __init__(self, positions: Any, line: int) -> None:
        self.positions = positions
        self.line = line
        self.flag: str | None = None

    def visit_If(self, node: cst.If) -> None:
        test = node.test
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        plain = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
        if not isinstance(plain, (cst.Name, cst.Attribute)):
            return
        name = cst.Module([]).code_for_node(plain)
        for block, holds in ((node.body, not negated), (node.orelse, negated)):
            if block is None or isinstance(block, cst.If):
                continue
            where = self.positions[block]
            if where.start.line <= self.line <= where.end.line:
                self.flag = f"`{name}` is {'true' if holds else 'false'} (line {self.positions[node].start.line})"


def flag_around(source: str, line: int) -> str | None:
    """Which flag the code at `line` runs under (`if self.strict_img_size:` around a size check),
    or None: a library's switch that takes another path past the guard there."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    found = _FlagAround(wrapper.resolve(PositionProvider), line)
    wrapper.module.visit(found)
    return found.flag


_SYMBOLIC_TITLE = (
    "`int(t.shape[i])` as `t.shape[i]` at the line that pins the dim (int() makes a dynamic size a "
    "constant; the symbolic size compares the same in eager; keeps the dim dynamic)"
)


class _SizeWithoutInt(cst.CSTTransformer):
    """Each `int(...)` of a size (`.shape`, `.size(...)`) on `line`, unwrapped."""

    def __init__(self, positions: Any, line: int) -> None:
        self.positions = positions
        self.line = line
        self.changed = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (
            isinstance(original.func, cst.Name) and original.func.value == "int" and len(original.args) == 1
            and original.args[0].keyword is None and original.args[0].star == ""
            and self.positions[original].start.line == self.line
        ):
            return updated
        inner = cst.Module([]).code_for_node(original.args[0].value)
        if not re.search(r"\.shape\b|\.size\(", inner) or not _integral(original.args[0].value):
            return updated
        self.changed = True
        value = updated.args[0].value
        if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _integral(expression: cst.BaseExpression) -> bool:
    """Whether `expression` stays an integer without `int()`: no `/`, `**` or float literal (in
    `int(x.shape[1] ** 0.5)` the `int()` is what makes the size a whole number)."""
    return not any(
        isinstance(node, cst.Float) or (isinstance(node, cst.BinaryOperation)
                                        and isinstance(node.operator, (cst.Divide, cst.Power)))
        for node in iter_nodes(expression)
    )


def size_without_int(source: str, line: int) -> str | None:
    """`source` with `int()` dropped around the sizes on `line`: a guard log names that line as
    the one that made a dynamic dim a constant (`Eq(s0, 16)`); the SymInt keeps it symbolic and
    compares, indexes and computes like the int in eager. None when the line has no such call."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    unwrapped = _SizeWithoutInt(wrapper.resolve(PositionProvider), line)
    fixed = module.visit(unwrapped)
    return fixed.code if unwrapped.changed else None


class _LenAsSize(cst.CSTTransformer):
    def __init__(self, positions: Any, line: int) -> None:
        self.positions = positions
        self.line = line
        self.changed = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (
            isinstance(original.func, cst.Name) and original.func.value == "len" and len(original.args) == 1
            and self.positions[original].start.line == self.line
        ):
            return updated
        self.changed = True
        value = updated.args[0].value
        simple = isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
        text = cst.Module([]).code_for_node(value)
        return cst.parse_expression(f"{text if simple else f'({text})'}.shape[0]")


def len_as_size(source: str, line: int) -> str | None:
    """`source` with each `len(t)` on `line` as `t.shape[0]`: for a tensor the same number, but
    a symbolic size export can keep instead of a Python int it must read from data (a list
    there fails the proof, so the candidate is dropped)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    sized = _LenAsSize(wrapper.resolve(PositionProvider), line)
    fixed = module.visit(sized)
    return fixed.code if sized.changed else None


def _with_dynamic_shapes(source: str, function: str, shapes: str) -> str | None:
    """`source` with the `dynamic_shapes` that `function` (the example factory) gives replaced by
    `shapes`: its `"dynamic_shapes": ...` dict entry or `dynamic_shapes=` keyword; None if it has
    neither."""
    if function == "xport_example":
        edit = dynamic_shapes_edit(source, shapes)
        return None if edit is None else apply_edits(source, [edit])
    renamed = re.sub(rf"^def {re.escape(function)}\(", "def xport_example(", source, count=1, flags=re.MULTILINE)
    edit = dynamic_shapes_edit(renamed, shapes) if renamed != source else None
    # the same positions in `source`: only the `def` line's name differs, and it precedes the edit
    if edit is None or "def xport_example(" in source:
        return None
    fixed = apply_edits(renamed, [edit])
    return re.sub(r"^def xport_example\(", f"def {function}(", fixed, count=1, flags=re.MULTILINE)


def _dims_in_scope(source: str, shapes: str) -> str:
    """`shapes` (torch's rendering: `Dim(...)`) spelled so that `source` can evaluate it: as
    `torch.export.Dim` where the file binds no `Dim` of its own."""
    if re.search(r"^\s*from torch\.export import [^\n]*\bDim\b|^\s*Dim\s*=", source, re.MULTILINE):
        return shapes
    return re.sub(r"(?<![\w.])Dim\b", "torch.export.Dim", shapes)


def _library_file(libraries: str, cut: str) -> str | None:
    """The file of an allowed package's copy that a path torch cut at the front names."""
    parts = Path(cut).parts
    for start in range(len(parts)):
        candidate = os.path.join(libraries, *parts[start:])
        if os.path.isfile(candidate):
            return candidate
    return None


def _changed_lines(before: str, after: str) -> range:
    """The lines of `after` that differ from `before` (one span from the first to the last)."""
    old, new = before.splitlines(), after.splitlines()
    first = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    tail = 0
    while tail < min(len(old), len(new)) - first and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return range(first + 1, len(new) - tail + 1)


def _judge(current: Outcome, after: Outcome, path: str, before: str, text: str) -> str | None:
    """Why the fix is not kept, or None."""
    failure = current.failure
    assert failure is not None
    if after.ok:
        return None
    if after.exported:
        return f"exports but {after.differs or after.second_differs}: not kept"
    new = after.failure
    assert new is not None
    if new.file == path and new.line in _changed_lines(before, text):
        return f"fails at its own rewritten line {new.line}: {new.headline()}"
    introduced = [op for op in _HIGHER_ORDER if text.count(op) > before.count(op)]
    if introduced and "HigherOrderOp" in new.kind:
        # torch names the line that called into the op, not the branch that does not trace
        return f"the {introduced[0]} it introduces does not trace: {new.headline()}"
    violated_again = new.kind == failure.kind and new.file is None and failure.file is None
    suggestion = after.refined or after.narrowed
    if violated_again and not current.static and suggestion not in (None, current.refined, current.narrowed) \
            and not after.static:
        # torch narrows a range one violation at a time (h, then w): a new suggestion is progress
        return None
    if current.static and violated_again:
        # a constraint violation again: progress if fewer dims would be pinned, or the same ones
        # no longer by a guard on the rewritten lines
        if set(after.static) < set(current.static):
            return None
        changed = _changed_lines(before, text)
        pinned_here = [p for p in after.pins if _names(path, p[0]) and p[1] in changed]
        was_pinned_here = [p for p in current.pins if _names(path, p[0]) and p[1] in changed]
        if was_pinned_here and not pinned_here and set(after.static) == set(current.static):
            return None
        return "torch still pins the same dims" + (" at this line" if pinned_here else "")
    if new.file == failure.file and new.line == failure.line and new.kind == failure.kind:
        return "the same failure at the same line"
    if new.kind in ("error", "timeout", "crash", "memory", "cancelled", "start"):
        return f"the model no longer runs: {new.headline()}"
    return None


#: the control-flow ops rewrites introduce: torch reports a branch or body that does not trace
#: inside them as an UncapturedHigherOrderOpError at the line that called the op
_HIGHER_ORDER = ("torch.cond(", "while_loop(", "scan(")


def _names(path: str, cut: str) -> bool:
    """Whether a path torch cut at the front (its guard log) names the file `path`."""
    cut = cut.lstrip(".")
    return bool(cut) and os.path.abspath(path).endswith(cut)


def _where(scratch: _Scratch, failure: Failure) -> str:
    if failure.file is None:
        return "(no line named)"
    return f"{scratch.display(failure.file)}:{failure.line}"


def _advice(scratch: _Scratch, failure: Failure, allowed: dict[str, str]) -> str:
    if failure.file is not None and not scratch.editable(failure.file):
        package = _package_of(failure.file)
        callers = [f"{scratch.display(f)}:{line}" for f, line, _ in failure.chain if scratch.editable(f)]
        reach = f" (reached from {', '.join(callers)})" if callers else ""
        return (f"it fails in installed code{reach}; repair a copy with `--allow {package}` "
                f"(and `--allow-into DIR` with --write), or change what your code passes to it")
    text = failure.message
    if "GuardOnDataDependentSymNode" in text or "data-dependent" in text.lower():
        return ("a branch or size on tensor data that xport-lint has no proven fix for here: state what you know "
                "with torch._check(...) before the line, or compute it without the Python branch "
                "(torch.where, torch.cond, masks over a fixed count)")
    return "no fix xport-lint has made this failure go away; see torch's message above"


def _package_of(path: str) -> str:
    parts = Path(path).parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            index = parts.index(marker)
            if index + 1 < len(parts):
                return parts[index + 1].removesuffix(".py")
    return Path(path).parent.name


def render(repair: Repair) -> str:
    """The report a person reads: each step with its evidence, the whole diff, what remains."""
    out = [f"before: {repair.initial.evidence()}"]
    first = repair.initial.failure
    if first is not None and first.file:
        chain = " <- ".join(f"{repair.display(f)}:{line}" for f, line, _ in reversed(first.chain))
        out[0] += f"\n  at {chain}"
    for number, step in enumerate(repair.steps, 1):
        mark = "kept" if step.kept else "rejected"
        out.append(f"step {number} [{mark}] {step.title} in {step.path}")
        where = f" ({repair.display(step.failure.file)}:{step.failure.line})" if step.failure.file else ""
        out.append(f"  failure before: {step.failure.headline()}{where}")
        later = step.after.failure
        where = f" ({repair.display(later.file)}:{later.line})" if later is not None and later.file else ""
        out.append(f"  after: {step.after.evidence()}{where}"
                   + ("" if step.kept else f"\n  why rejected: {step.verdict}"))
    out.append(f"after: {repair.final.evidence()}")
    if repair.pinning:
        out.append("lines that may pin a dynamic dim: " + ", ".join(repair.pinning))
    if repair.blocker:
        out.append(f"blocker: {repair.blocker}")
        if repair.advice:
            out.append(f"what to do: {repair.advice}")
    diff = repair.diff
    if diff:
        out.append("")
        out.append(diff.rstrip("\n"))
    return "\n".join(out) + "\n"


def as_json(repair: Repair) -> dict[str, Any]:
    """The report for the editor (the server's repair command)."""

    def outcome(o: Outcome) -> dict[str, Any]:
        return {"exported": o.exported, "equal": o.ok, "evidence": o.evidence(),
                "failure": None if o.failure is None else {"kind": o.failure.kind, "message": o.failure.headline(),
                                                           "file": o.failure.file, "line": o.failure.line}}

    return {
        "before": outcome(repair.initial),
        "after": outcome(repair.final),
        "steps": [{"title": s.title, "path": s.path, "kept": s.kept, "verdict": s.verdict,
                   "failure": s.failure.headline(), "after": s.after.evidence(), "diff": s.diff} for s in repair.steps],
        "blocker": repair.blocker,
        "advice": repair.advice,
        "pinning": repair.pinning,
        "diff": repair.diff,
        "files": {path: new for path, (_, new) in repair.changed.items()},
    }


def write(repair: Repair, root: str, allow_into: str | None, allowed: dict[str, str]) -> list[str]:
    """Write the repaired files: project files in place; an allowed package's files into a copy
    of the package under `allow_into` (made on first use), never into the installed one."""
    written = []
    for path, (_, text) in sorted(repair.changed.items()):
        if path in repair.library_paths:
            if allow_into is None:
                continue
            package = Path(path).parts[0]
            copy = os.path.join(allow_into, package)
            if not os.path.exists(copy):
                shutil.copytree(allowed[package], copy, ignore=_SKIP)
            destination = os.path.join(allow_into, path)
        else:
            destination = os.path.join(root, path)
        Path(destination).write_text(text, encoding="utf-8")
        written.append(destination)
    return written
