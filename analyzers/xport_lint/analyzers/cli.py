"""`xport-lint`: the engine, headless, for pre-commit and CI. A thin adapter: files in,
`check_source` per file, findings out. Exit codes: 0 clean, 1 findings, 2 usage/internal error."""

from __future__ import annotations

import difflib
import functools
import importlib
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from . import output, registry
from .cache import Cache
from .config import Config, ConfigError, torch_version
from .files import SourceFile, decode, discover, write_back
from .index import EMPTY_CONTEXT, FileContext
from .lines import split_lines
from .model import Applicability, Finding, Severity
from .notebooks import Notebook, NotebookError, parse_notebook
from .project import FileResult, ProjectCheck, check_project, problem_finding, recheck

if TYPE_CHECKING:  # the engine: imported where a file is checked or fixed (a second run does neither)
    from .rule import Rule
    from .workspace import Workspace


def _codes(values: tuple[str, ...]) -> tuple[str, ...] | None:
    out = tuple(c.strip() for v in values for c in v.split(",") if c.strip())
    return out or None


class _Commands(click.Group):
    """Subcommands whose modules only their own runs need are imported when asked for, so that
    `check` does not pay for them (a second run over a cached project is well under a second)."""

    _LAZY = {"repair": ".repair_command", "report": ".report_command"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._LAZY and cmd_name not in self.commands:
            self.add_command(getattr(importlib.import_module(self._LAZY[cmd_name], __package__), cmd_name))
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(output.VERSION, prog_name="xport-lint")
def main() -> None:
    """Find torch.export failures in PyTorch model code, before you export."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Only these codes or prefixes (comma-separated).")
@click.option("--extend-select", multiple=True, help="Add codes to the selection (e.g. XPT001).")
@click.option("--ignore", multiple=True, help="Codes or prefixes to skip.")
@click.option("--strict/--non-strict", default=None, help="Judge severities for strict export.")
@click.option("--target-torch", default=None, metavar="VERSION",
              help="Torch version the findings speak for, e.g. 2.14 (default: the installed torch, else 2.15).")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix/--diff: apply unsafe fixes too.")
@click.option("--diff", is_flag=True, help="Print the fixes as a diff; change nothing.")
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]),
    default="text", show_default=True,
)
@click.option("--statistics", is_flag=True, help="Count findings per rule.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="warning", show_default=True,
              help="Lowest severity that makes the exit status 1 (info findings are advice by default).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("--baseline", type=click.Path(dir_okay=False), help="Report only findings not in FILE.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), help="Record current findings in FILE.")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the findings cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Findings cache folder (default: $XPORT_LINT_CACHE_DIR, else the user cache dir).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False),
              help="pyproject.toml to read instead of the nearest one.")
@click.option("-j", "--jobs", type=int, default=None, help="Worker processes (default: all cores).")
@click.option("--confirm", is_flag=True,
              help="Run torch.export.draft_export on each file's xport_example() (executes your code).")
@click.option("--stdin-filename", type=click.Path(dir_okay=False), default=None,
              help="Read the file from stdin (PATH `-`), named this for the configuration and the output.")
@click.option("--python", "python", default=None, help="Interpreter with torch for --confirm (default: this one).")
@click.option("--torch-output", is_flag=True,
              help="With --confirm: print torch's own output (its logging, warnings, graph dumps) after each file.")
@click.option("--confirm-timeout", type=float, default=120.0, show_default=True, help="Seconds per example.")
@click.option("--confirm-memory", type=click.FloatRange(min=0), default=None,
              help="Address-space cap of the confirmation worker in GiB (default: half the machine's memory; 0: none).")
def check(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    strict: bool | None,
    target_torch: str | None,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    output_format: str,
    statistics: bool,
    exit_zero: bool,
    fail_on: str,
    quiet: bool,
    baseline: str | None,
    write_baseline: str | None,
    no_cache: bool,
    cache_dir: str | None,
    config_path: str | None,
    jobs: int | None,
    confirm: bool,
    python: str | None,
    confirm_timeout: float,
    confirm_memory: float | None,
    torch_output: bool,
    stdin_filename: str | None,
) -> None:
    """Check PATHS (files or folders; default: the current folder; `-`: one file from stdin)."""
    targets = list(paths) or (["-"] if stdin_filename else ["."])
    stdin = targets == ["-"]
    if "-" in targets and not stdin:
        raise click.UsageError("`-` reads one file from stdin: it cannot be combined with other paths")
    if stdin and confirm:
        raise click.UsageError("--confirm imports the file it confirms: it cannot confirm stdin")
    missing = [p for p in targets if not stdin and not os.path.lexists(p)]
    if missing:
        raise click.UsageError(f"no such file or folder: {', '.join(missing)}")
    try:
        first = Path(stdin_filename or ".") if stdin else Path(targets[0])
        base = Config.load(Path(config_path)) if config_path else Config.discover(first)
        config = base.merged(
            select=_codes(select), extend_select=_codes(extend_select), ignore=_codes(ignore),
            strict=strict,
            target_torch=torch_version(target_torch, "--target-torch") if target_torch is not None else None,
        )
        unknown = [c for c in (config.select + config.extend_select + config.ignore)
                   if not registry.select([c]) and c.upper() != "ALL"]
        if unknown:
            raise ConfigError(f"unknown rule code or prefix: {', '.join(unknown)}")
        for code in config.severity:  # (the rules load only when a code needs checking)
            if code not in registry.RULES:
                raise ConfigError(f"severity: unknown rule code {code}")
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
    if config.target.note:
        click.echo(f"xport-lint: {config.target.note}", err=True)  # once a run, whatever the file count
    if confirm and not _has_torch(python or sys.executable):
        raise click.UsageError(
            f"--confirm runs torch.export in {python or sys.executable}, which cannot import torch. Install it "
            "there (pip install torch==2.13.0, or from an xport-lint checkout: pip install -e \".[confirm]\"), "
            "or pass --python /path/to/the/python/that/has/your/torch"
        )
    if stdin:
        findings, sources, notebooks = _check_stdin(stdin_filename or "-", config, fix, diff, unsafe_fixes, exit_zero)
        # with --fix, stdout is the fixed text: the report goes to stderr (as ruff does)
        _finish(findings, sources, output_format, statistics, quiet, fail_on, exit_zero, 0, baseline,
                write_baseline, err=fix, notebooks=notebooks)
    files = discover(targets, config.exclude)
    cache = None if no_cache else Cache(Path(cache_dir) if cache_dir else None)
    progress = _ProgressBar()
    if sys.stderr.isatty() and output_format == "text" and not quiet:
        _announce_big_files(files)
    try:
        checked = check_project(files, config, cache, jobs, progress)
    finally:
        progress.close()
    confirmer = _confirmer(python, confirm_timeout, confirm_memory) if confirm else None
    try:
        findings, sources, per_file = _collect(checked.results, notify=True)
        if fix or diff:
            written = _fix(checked, per_file, sources, config, confirmer, diff, unsafe_fixes, exit_zero, quiet)
            if written:
                # the report shows what is left, each file checked with its project context again
                checked = recheck(checked, written, config, cache, jobs)
                findings, sources, per_file = _collect(checked.results)
        failed_examples = 0
        if confirmer is not None:
            failed_examples = _confirm(
                checked.results, per_file, sources, config, confirmer, quiet,
                progress=sys.stderr.isatty() and output_format == "text" and not quiet, torch_output=torch_output,
            )
    finally:
        if confirmer is not None:
            confirmer.close()
        if cache is not None:
            cache.save()
            cache.close()
            for warning in cache.warnings:  # a cold run must not pass for a cached one in silence
                click.echo(f"xport-lint: {warning}", err=True)

    for path, file_findings in per_file.items():
        findings.extend((path, f) for f in file_findings)
    notebooks = {  # a second run reads no file it has no findings in (notebooks are always read)
        r.path: notebook for r in checked.results if r.path.endswith(".ipynb") and (notebook := r.source.notebook)
    }
    _finish(findings, sources, output_format, statistics, quiet, fail_on, exit_zero, failed_examples, baseline,
            write_baseline, notebooks=notebooks)


def _finish(
    findings: list[tuple[str, Finding]], sources: dict[str, str], output_format: str, statistics: bool, quiet: bool,
    fail_on: str, exit_zero: bool, failed_examples: int, baseline: str | None, write_baseline: str | None,
    err: bool = False, notebooks: dict[str, Notebook] | None = None,
) -> NoReturn:
    """Report `findings` (on stderr with `err`; a notebook's by cell) and exit with the status they call for."""
    findings.sort(key=lambda pf: (pf[0], pf[1].span.start, pf[1].code))

    if write_baseline:
        _write_baseline(write_baseline, findings, sources)
        click.echo(f"xport-lint: wrote {len(findings)} findings to {write_baseline}", err=True)
        sys.exit(0)
    if baseline:
        findings = _filter_baseline(baseline, findings, sources)

    _report(findings, sources, output_format, statistics, quiet, err, notebooks)
    if any(f.internal for _, f in findings):
        sys.exit(2)  # xport-lint failed on a file: never a clean (or merely "findings") result
    threshold = _SEVERITY_RANK[Severity(fail_on)]
    failing = [f for _, f in findings if _SEVERITY_RANK[f.severity] >= threshold]
    sys.exit(1 if (failing or failed_examples) and not exit_zero else 0)


#: a file this long takes seconds to check (about a second per thousand lines): worth a word
_BIG_FILE_LINES = 10_000


def _announce_big_files(files: list[str]) -> None:
    """Name each long file before the run, on a terminal: the bar counts files, so one huge file
    is a long silence that reads as a hang. Sizes are read from `stat` first (cheap)."""
    for path in files:
        try:
            if os.stat(path).st_size < _BIG_FILE_LINES * 16:
                continue
            lines = Path(path).read_bytes().count(b"\n")
        except OSError:
            continue  # reported by the run itself
        if lines >= _BIG_FILE_LINES:
            click.echo(f"xport-lint: checking {path} ({lines:,} lines)...", err=True)


class _ProgressBar:
    """A bar on a terminal, once more than 50 files are to be checked (not cache hits)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total <= 50 or not sys.stderr.isatty():
                return
            self.bar = click.progressbar(length=total, label="xport-lint", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def _confirmer(python: str | None, timeout: float, memory_gib: float | None) -> Any:
    from .confirm import Confirmer, WorkerOptions


    options = WorkerOptions(python=python or sys.executable, timeout=timeout)
    if memory_gib is not None:
        options = WorkerOptions(options.python, timeout, int(memory_gib * 2**30) if memory_gib else None)
    return Confirmer(options)


def _has_torch(python: str) -> bool:
    """Whether `python` can import torch, asked without importing it (torch's import takes seconds).
    A `python` that is no Python interpreter at all is a usage error naming what is wrong with it."""
    import shutil
    import subprocess

    found = shutil.which(python) if os.sep not in python else python
    if found is None or not os.path.exists(found):
        raise click.UsageError(f"--python {python}: no such interpreter")
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise click.UsageError(f"--python {python}: not executable")
    probe = "import importlib.util; print('xport-lint-probe', importlib.util.find_spec('torch') is not None)"
    try:
        answer = subprocess.run([found, "-c", probe], capture_output=True, text=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError) as error:
        raise click.UsageError(f"--python {python}: not a Python interpreter ({error})") from None
    if answer[:1] != ["xport-lint-probe"]:
        raise click.UsageError(f"--python {python}: not a Python interpreter (`{python} -c` did not run Python)")
    return answer[1:] == ["True"]


def _collect(
    results: list[FileResult], notify: bool = False
) -> tuple[list[tuple[str, Finding]], dict[str, str], dict[str, list[Finding]]]:
    """From a project check: the findings for files that could not be read, the text of each
    file with findings (what the output, baselines and fixes read; a second run leaves the other
    files unread), each file's findings. `notify`: say on stderr which files were skipped."""
    problems: list[tuple[str, Finding]] = []
    for result in results:
        if result.skipped:
            if notify:
                click.echo(f"xport-lint: {result.path}: {result.problem}", err=True)
        elif result.problem is not None:
            problems.append((result.path, problem_finding(result.problem)))
    sources = {r.path: r.text for r in results if r.findings and r.text is not None}
    return problems, sources, {r.path: r.findings for r in results if r.findings}


def _fix(
    checked: ProjectCheck, per_file: dict[str, list[Finding]], sources: dict[str, str], config: Config,
    confirmer: Any, diff: bool, unsafe_fixes: bool, exit_zero: bool, quiet: bool,
) -> list[str]:
    """Apply fixes (proven by re-export first when confirming); with --diff, print them and exit.
    Returns the files written."""
    assert checked.workspace is not None, "a ProjectCheck from check_project"
    prove = _prover(confirmer, config, quiet, checked.workspace) if confirmer is not None else None
    files = {r.path: r.source for r in checked.results}
    changed, written = _apply(
        per_file, sources, files, config, unsafe_fixes, write=not diff, prove=prove, contexts=checked.contexts
    )
    if diff:
        if changed:
            click.echo("".join(changed), nl=False)
        elif not unsafe_fixes and any(
            f.fix is not None and f.fix.applicability is Applicability.UNSAFE
            for fs in per_file.values()
            for f in fs
        ):
            click.echo("xport-lint: no safe fixes; unsafe ones exist: `--diff --unsafe-fixes` shows them", err=True)
        sys.exit(1 if changed and not exit_zero else 0)
    if changed and not quiet:
        refused = len(changed) - len(written)
        click.echo(f"xport-lint: fixed {len(written)} file{'s' if len(written) != 1 else ''}"
                   + (f"; {refused} not written (why: above)" if refused else ""), err=True)
    return written


def _check_stdin(
    path: str, config: Config, fix: bool, diff: bool, unsafe: bool, exit_zero: bool
) -> tuple[list[tuple[str, Finding]], dict[str, str], dict[str, Notebook]]:
    """One file read from stdin, named `path` (editors and pipes). With --fix the fixed text is
    printed to stdout (all of it, fixed or not); with --diff the diff, and the run exits.
    Returns the findings, the text, and the notebook it is (`path` ending in `.ipynb`)."""
    from .runner import check_source, fix_source

    source = decode(path, sys.stdin.buffer.read())
    if source.text is None:
        return [(path, problem_finding(source.problem or "cannot read stdin"))], {}, {}
    notebooks = {path: source.notebook} if source.notebook is not None else {}
    findings = check_source(source.text, path, config)
    if not (fix or diff):
        return [(path, f) for f in findings], {path: source.text}, notebooks
    text = fix_source(source.text, path, config, unsafe, findings)
    if diff:
        if text != source.text:
            click.echo(_unified_diff(path, source.text, text, source.notebook), nl=False)
        sys.exit(1 if text != source.text and not exit_zero else 0)
    try:
        data = source.encode(text)
    except NotebookError as error:
        click.echo(f"xport-lint: {path}: fix not applied: {error}", err=True)
        text, data = source.text, source.encode(source.text)
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    if text == source.text:
        return [(path, f) for f in findings], {path: text}, notebooks
    if source.notebook is not None:
        notebooks = {path: parse_notebook(data)}  # the fixed cells' lines
    return [(path, f) for f in check_source(text, path, config)], {path: text}, notebooks


def _unified_diff(path: str, original: str, text: str, notebook: Notebook | None = None) -> str:
    """The fix as a unified diff; a notebook's per changed cell (`path:cell N`, as ruff's)."""
    if notebook is not None:
        return notebook.diff(path, text)
    return "".join(difflib.unified_diff(
        split_lines(original), split_lines(text), fromfile=f"a/{path}", tofile=f"b/{path}",
    ))


def _prover(
    confirmer: Any, config: Config, quiet: bool, workspace: Workspace
) -> Callable[[str, str, str, list[Finding]], str]:
    """Re-exports fixed code through the confirmation worker before it is written: a sibling copy
    (so the file's local imports resolve) is imported and its `xport_example()` exported. All
    the file's fixes together first; when the file still fails (another finding has no fix, or
    one fix does not export), each fix is kept on its own merit: it removes an export failure
    and adds none. Returns the text to write (the original when no fix is proven). The static
    findings it compares with are the file's in its project context (`workspace`)."""
    from .confirm import has_example
    from .fixes import apply_fixes

    root = str(config.root) if config.root else None

    def failures(path: str, text: str) -> tuple[bool, Counter[tuple[str, str]]]:
        original = Path(path)
        copy = original.with_name(f".{original.stem}.xport-fix-{os.getpid()}.py")
        try:
            copy.write_text(text, encoding="utf-8")
            outcome = confirmer.confirm(str(copy), text, workspace.check(path, text).findings, root=root,
                                        strict=config.strict)
        finally:
            copy.unlink(missing_ok=True)
        # what fails, without line numbers (a fix moves the lines below it) nor the note that an
        # earlier failure comes first (a fix of that one removes the note, not this failure)
        failing = Counter(
            (f.code, re.sub(r"(line |:)\d+", r"\1", f.own_message))
            for f in outcome.findings if f.confirmation in ("confirmed", "new")
        )
        return bool(outcome.export_ok), failing

    def prove(path: str, original: str, fixed: str, findings: list[Finding]) -> str:
        if not has_example(fixed):
            return fixed  # nothing to re-export with: the fixes' own proofs (in the test suite) stand
        exports, _ = failures(path, fixed)
        if exports:
            if not quiet:
                click.echo(f"xport-lint: fixes for {path} proven: the fixed model exports", err=True)
            return fixed
        kept: list[Finding] = []
        text = original
        _, left = failures(path, original)
        for finding in findings:
            trial = apply_fixes(original, [*kept, finding], unsafe=True)
            if trial == text:
                continue
            exports, failing = failures(path, trial)
            if exports or (sum(failing.values()) < sum(left.values()) and not failing - left):
                kept.append(finding)
                text, left = trial, failing
        verdict = (
            f"{len(kept)} of {len(findings)} fix(es) applied, each proven on its own (it removes an export "
            "failure and adds none); the model still fails on what no fix covers" if kept
            else "not applied: the fixed model does not export, and no fix alone removes an export failure"
        )
        click.echo(f"xport-lint: fixes for {path}: {verdict}", err=True)
        return text

    return prove


def _confirm(
    results: list[FileResult], per_file: dict[str, list[Finding]], sources: dict[str, str], config: Config,
    confirmer: Any, quiet: bool, progress: bool = False, torch_output: bool = False,
) -> int:
    """Confirm every file with an example; merge into `per_file`. Returns failed examples.
    `progress`: a bar naming the file being confirmed (each takes seconds); its notes follow.
    `torch_output`: torch's own output of each run (kept off stderr by the worker) follows its note."""
    import ast

    from .confirm import has_example
    from .readiness import ConfirmationRecord

    todo: list[tuple[FileResult, str, str | None]] = []
    for result in results:
        text = sources.get(result.path, result.text)
        if text is None:
            continue
        if result.source.notebook is not None:
            if not quiet:
                click.echo(f"xport-lint: {result.path}: not confirmed (a notebook: confirmation imports .py files)",
                           err=True)
            continue
        provider = None
        if config.examples:
            try:
                names = [n.name for n in ast.parse(text).body if isinstance(n, ast.ClassDef)]
            except SyntaxError:
                names = []
            provider = config.example_for(result.path, names)
        if provider is None and not has_example(text):
            continue
        todo.append((result, text, provider))
    failed = 0
    notes: list[str] = []
    root = str(config.root) if config.root else None
    record = ConfirmationRecord()  # each model's confirmation state in `xport-lint report`
    with click.progressbar(
        todo, label="confirming", file=sys.stderr, hidden=not progress,
        item_show_func=lambda item: item[0].path if item is not None else None,
    ) as bar:
        for result, text, provider in bar:
            outcome = confirmer.confirm(result.path, text, per_file.get(result.path, []),
                                        root=root, strict=config.strict, provider=provider)
            per_file[result.path] = outcome.findings
            sources[result.path] = text  # a finding confirmation adds is shown with its line
            record.record(result.path, text, outcome.status, outcome.export_ok, outcome.model, outcome.summary)
            failed += outcome.failed
            if quiet:
                continue
            cached = " (cached)" if outcome.cached else ""
            notes.append(f"xport-lint: confirmation of {result.path}: {outcome.summary}{cached}")
            if outcome.suggested_fixes:
                notes.append(f"  suggested dynamic_shapes fixes:\n  {outcome.suggested_fixes}")
            if outcome.refined:
                verdict = "passes" if outcome.refined["export_ok"] else "still fails"
                notes.append(f"  with them applied ({outcome.refined['rounds']} round(s)), export {verdict}:\n"
                             f"  dynamic_shapes={outcome.refined['source']}")
            if torch_output:
                shown = outcome.log.rstrip() or "(nothing)"
                notes.append("  torch's output:\n" + "\n".join(f"  | {line}" for line in shown.splitlines()))
            if not progress:
                click.echo("\n".join(notes), err=True)
                notes.clear()
    record.save()
    if notes:
        click.echo("\n".join(notes), err=True)
    return failed


def _apply(
    per_file: dict[str, list[Finding]], sources: dict[str, str], files: dict[str, SourceFile], config: Config,
    unsafe: bool, write: bool,
    prove: Callable[[str, str, str, list[Finding]], str] | None = None,
    contexts: dict[str, FileContext] | None = None,
) -> tuple[list[str], list[str]]:
    """Fix each file until nothing more applies (edits that overlapped wait for a second round),
    each with its project context. With `prove`, only what it proves of the fixes is written.
    Returns the diffs and the files written."""
    from .fixes import fixable
    from .runner import fix_source

    diffs: list[str] = []
    written: list[str] = []
    for path, findings in per_file.items():
        original = sources[path]
        context = (contexts or {}).get(path, EMPTY_CONTEXT)
        text = fix_source(original, path, config, unsafe, findings, context=context)
        notebook = files[path].notebook
        if text != original and prove is not None and notebook is None:  # a notebook is never imported
            text = prove(path, original, text, fixable(findings, unsafe))
        if text == original:
            continue
        diffs.append(_unified_diff(path, original, text, notebook))
        if write:
            problem = write_back(files[path], text)
            if problem is not None:
                click.echo(f"xport-lint: {path}: fix not written: {problem}", err=True)
                continue
            sources[path] = text
            written.append(path)
    return diffs, written


def _fingerprint(path: str, finding: Finding, sources: dict[str, str]) -> str:
    """Survives edits elsewhere in the file: the code plus the flagged line's text."""
    lines = _lines(sources.get(path, ""))
    line = lines[finding.span.start.line - 1].strip() if 0 < finding.span.start.line <= len(lines) else ""
    return f"{Path(path).as_posix()}::{finding.code}::{line}"


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> list[str]:
    """A file's lines, split once per file (per finding, baselines were quadratic in size)."""
    return [line.rstrip("\r\n") for line in split_lines(text)]


def _write_baseline(target: str, findings: list[tuple[str, Finding]], sources: dict[str, str]) -> None:
    counts = Counter(_fingerprint(p, f, sources) for p, f in findings)
    Path(target).write_text(json.dumps({"version": 1, "findings": dict(sorted(counts.items()))}, indent=1) + "\n")


def _filter_baseline(
    source: str, findings: list[tuple[str, Finding]], sources: dict[str, str]
) -> list[tuple[str, Finding]]:
    try:
        data = json.loads(Path(source).read_text())
        remaining = Counter(data["findings"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise click.UsageError(f"cannot read baseline {source}: {error}") from None
    out = []
    for path, finding in findings:
        key = _fingerprint(path, finding, sources)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            out.append((path, finding))
    return out


def _report(
    findings: list[tuple[str, Finding]], sources: dict[str, str], fmt: str, statistics: bool, quiet: bool,
    err: bool = False, notebooks: dict[str, Notebook] | None = None,
) -> None:
    """The findings in `fmt`, on stdout (stderr with `err`: stdout holds the fixed text)."""
    echo = functools.partial(click.echo, err=err)
    if fmt == "json":
        echo(output.render_json(findings, notebooks))
        return
    if fmt == "sarif":
        echo(output.render_sarif(findings))
        return
    if fmt == "github":
        if findings:
            echo(output.render_github(findings, notebooks))
        return
    if statistics:
        if findings:
            echo(output.render_statistics(findings))
        return
    colour = (sys.stderr if err else sys.stdout).isatty() and "NO_COLOR" not in os.environ
    if findings:
        echo(output.render_text(findings, sources, colour, notebooks), color=colour)
    if not quiet:
        by_severity = Counter(f.severity.value for _, f in findings)
        fixable = sum(1 for _, f in findings if f.fix is not None and f.fix.applicability.value == "safe")
        if findings:
            parts = ", ".join(f"{by_severity[s]} {s}" for s in ("error", "warning", "info") if by_severity[s])
            summary = f"\nFound {len(findings)} finding{'s' if len(findings) != 1 else ''} ({parts})."
            unsafe = sum(1 for _, f in findings if f.fix is not None and f.fix.applicability.value == "unsafe")
            if fixable:
                summary += f"\n[*] {fixable} fixable with `xport-lint check --fix`."
            if unsafe:
                more = "more " if fixable else ""
                summary += (f"\n[~] {unsafe} {more}fixable with `--fix --unsafe-fixes` (they hold under an "
                            "assumption each rule's doc states; `--diff --unsafe-fixes` shows them first).")
            echo(summary)
        else:
            echo("All checks passed!")


@main.command("server")
@click.option("--tcp", metavar="HOST:PORT", help="Listen on TCP instead of stdio (debugging).")
def serve(tcp: str | None) -> None:
    """Start the language server (stdio by default)."""
    from xport_lint.server import missing_requirements  # the one upward import, on demand

    problem = missing_requirements()
    if problem is not None:
        click.echo(f"xport-lint: {problem}", err=True)
        sys.exit(3)
    from xport_lint.server.app import main as run_server

    run_server(["--tcp", tcp] if tcp else [])


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown", "page"]), default="text")
def list_rules(output_format: str) -> None:
    """List every rule: code, name, severities, fixability (`page`: docs/rules.md, every doc)."""
    rows = []
    for code, rule in registry.RULES.items():
        fixes = _fix_applicabilities(rule)
        rows.append({
            "code": code,
            "name": rule.NAME,
            "non_strict": rule.SEVERITY.value if rule.SEVERITY else None,
            "strict": rule.STRICT_SEVERITY.value if rule.STRICT_SEVERITY else None,
            "fixable": rule.fixable(),
            "fix_applicability": sorted(a.value for a in fixes),
            "fix_mark": output.fix_mark(fixes),
            "default": rule.DEFAULT_ENABLED,
            "summary": rule.summary(),
        })
    if output_format == "json":
        click.echo(json.dumps(rows, indent=2))
    elif output_format == "markdown":
        click.echo(rules_table())
    elif output_format == "page":
        click.echo(rules_page(), nl=False)
    else:
        for row in rows:
            severities = f"{row['non_strict'] or '-'}/{row['strict'] or '-'}"
            click.echo(f"{row['code']} {row['fix_mark']} {row['name']:<30} {severities:<16} {row['summary']}")
        click.echo("\n[*] its fixes are safe: `--fix` applies them. [~] some need `--unsafe-fixes` (the rule's "
                   "*Fix safety* says under what assumption); `check` marks each finding's own fix.")


def _fix_applicabilities(rule: type[Rule]) -> set[Applicability]:
    """How safe a rule's fixes are, read off its fixed examples (a rule may fix one case safely
    and another under an assumption), so `rules` marks them as `check` marks findings."""
    from .runner import check_source

    found: set[Applicability] = set()
    everything = Config(select=("ALL",))
    for case in rule.INVALID:
        if case.expected_replacement is not None:
            found.update(f.fix.applicability for f in check_source(case.source, "example.py", everything)
                         if f.code == rule.CODE and f.fix is not None)
    return found


def rules_table() -> str:
    """The README's rule table, generated from the registry."""
    lines = [
        "| Code | Name | Non-strict | Strict | Fix | What it flags |",
        "|---|---|---|---|---|---|",
    ]
    for code, rule in registry.RULES.items():
        fix = "yes" if rule.fixable() else ""
        opt = " (opt-in)" if not rule.DEFAULT_ENABLED else ""
        if rule.SEVERITY_FROM_SHAPES:
            severities = "by `dynamic_shapes`¹ | by `dynamic_shapes`¹"
        else:
            severities = (
                f"{rule.SEVERITY.value if rule.SEVERITY else '-'} | "
                f"{rule.STRICT_SEVERITY.value if rule.STRICT_SEVERITY else '-'}"
            )
        lines.append(f"| {code} | `{rule.NAME}`{opt} | {severities} | {fix} | {rule.summary()} |")
    lines += [
        "",
        "¹ Static dimensions (export's default): nothing. `Dim.AUTO`: a warning where export narrows "
        "or fixes the range (XPT301, XPT302). A named `Dim` whose declared range the code cannot keep "
        "(a test that splits it, a loop over it, float arithmetic on it): error. Read from the export "
        "call, `xport_example()`, an export script elsewhere in the project, or `[tool.xport-lint]`.",
    ]
    return "\n".join(lines)


def rules_page() -> str:
    """docs/rules.md, where each diagnostic's link (`Rule.url()`) points: every rule's doc,
    under an anchor named by its code."""
    parts = ["# xport-lint rules", "", "Generated by `xport-lint rules --format page`.", "", rules_table(), ""]
    for code, rule in registry.RULES.items():
        body = rule_markdown(rule).replace("\n## ", "\n### ").replace(f"# {code} ", f"## {code} ", 1)
        parts += [f'<a id="{code.lower()}"></a>', "", body, ""]
    return "\n".join(parts)


@main.command("rule")
@click.argument("code")
def show_rule(code: str) -> None:
    """Print a rule's documentation and its examples."""
    rule = registry.RULES.get(code.upper())
    if rule is None:
        raise click.UsageError(f"unknown rule {code}; see `xport-lint rules`")
    click.echo(rule_markdown(rule))


def rule_markdown(rule: type[Rule]) -> str:
    from .rule import strip_markers

    severities = (
        f"non-strict: {rule.SEVERITY.value if rule.SEVERITY else 'not reported'}, "
        f"strict: {rule.STRICT_SEVERITY.value if rule.STRICT_SEVERITY else 'not reported'}"
    )
    parts = [f"# {rule.CODE} {rule.NAME}", "", f"Severity ({severities}; measured on torch 2.13, 2.14 and 2.15).", ""]
    if rule.PYTORCH_NAME:
        parts += [f"PyTorch's name for it: {rule.PYTORCH_NAME}", ""]
    parts.append(rule.doc())
    flagged = [strip_markers(case.source).rstrip() for case in rule.INVALID]
    clean = [strip_markers(case.source).rstrip() for case in rule.VALID]
    parts += ["", "## Flagged examples (checked against torch.export)"]
    parts += [f"```python\n{code}\n```" for code in flagged]
    parts += ["", "## Clean examples"]
    parts += [f"```python\n{code}\n```" for code in clean]
    return "\n".join(parts)


if __name__ == "__main__":
    main()
