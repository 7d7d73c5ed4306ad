"""The `xport-lint report` command: the project's export readiness (readiness.py) as markdown,
HTML or JSON (report_render.py). Exit codes as `check`: 0 nothing reaches `--fail-on`, 1 a
finding does, 2 a usage error."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from .cache import Cache
from .config import Config, ConfigError
from .files import discover
from .readiness import ConfirmationRecord, report_data
from .report_render import BaselineError, compare, html_page, load_baseline, markdown, new_findings

_SEVERITIES = ("error", "warning", "info")


@click.command("report")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["markdown", "html", "json"]), default="markdown",
              show_default=True)
@click.option("--strict/--non-strict", default=None, help="Check in strict mode (default: the configuration's).")
@click.option("--both-modes", is_flag=True, help="Check in both modes (twice the work) instead of deriving the other.")
@click.option("--baseline", type=click.Path(dir_okay=False, exists=True),
              help="A report saved with --format json: show what changed since (new failures first).")
@click.option("--fail-on", type=click.Choice(_SEVERITIES), default="warning", show_default=True,
              help="Lowest severity that makes the exit status 1 (with --baseline: of new findings only).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-o", "--output", "output_path", type=click.Path(dir_okay=False), default=None,
              help="Write the report to FILE instead of stdout.")
@click.option("--confirm", is_flag=True,
              help="Run torch.export.draft_export on each file's example first (executes your code).")
@click.option("--python", "python", default=None, help="Interpreter with torch for --confirm (default: this one).")
@click.option("--confirm-timeout", type=float, default=120.0, show_default=True, help="Seconds per example.")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the findings cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Findings cache folder (default: $XPORT_LINT_CACHE_DIR, else the user cache dir).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False),
              help="pyproject.toml to read instead of the nearest one.")
@click.option("-j", "--jobs", type=int, default=None, help="Worker processes (default: all cores).")
def report(
    paths: tuple[str, ...], output_format: str, strict: bool | None, both_modes: bool, baseline: str | None,
    fail_on: str, exit_zero: bool, output_path: str | None, confirm: bool, python: str | None,
    confirm_timeout: float, no_cache: bool, cache_dir: str | None, config_path: str | None, jobs: int | None,
) -> None:
    """Export readiness of the models in PATHS (default: the current folder): which export, in which mode,
    and what stands in the way."""
    targets = list(paths) or ["."]
    missing = [p for p in targets if not os.path.lexists(p)]
    if missing:
        raise click.UsageError(f"no such file or folder: {', '.join(missing)}")
    try:
        base = Config.load(Path(config_path)) if config_path else Config.discover(Path(targets[0]))
        config = base.merged(strict=strict)
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
    saved = None
    if baseline is not None:
        try:
            saved = load_baseline(Path(baseline).read_text(encoding="utf-8"))
        except (OSError, BaselineError) as error:
            raise click.UsageError(f"--baseline {baseline}: {error}") from None
    files = discover(targets, config.exclude)
    cache = None if no_cache else Cache(Path(cache_dir) if cache_dir else None)
    record = ConfirmationRecord(Path(cache_dir) if cache_dir else None)
    try:
        data = report_data(files, config, cache, jobs, both_modes=both_modes, record=record)
        if confirm:
            _confirm(data, config, record, python, confirm_timeout)
            data = report_data(files, config, cache, jobs, both_modes=both_modes, record=record)
    finally:
        if cache is not None:
            cache.save()
            cache.close()
            for warning in cache.warnings:
                click.echo(f"xport-lint: {warning}", err=True)
    counted = [f for m in data["models"] for f in m["findings"]] + data["other_findings"]
    if saved is not None:
        data["baseline"] = {"path": baseline, "changes": compare(data, saved)}
        counted = new_findings(data, saved)
    if output_format == "json":
        text = json.dumps(data, separators=(",", ":"))  # json's C encoder: indenting takes its Python one
    elif output_format == "html":
        text = html_page(data)
    else:
        text = markdown(data)
    if output_path is not None:
        Path(output_path).write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)
    threshold = _SEVERITIES.index(fail_on)
    mode = data["mode"]
    failing = [f for f in counted if (s := f["severity"].get(mode)) is not None and _SEVERITIES.index(s) <= threshold]
    sys.exit(0 if exit_zero or not failing else 1)


def _confirm(data: dict[str, Any], config: Config, record: ConfirmationRecord, python: str | None,
             timeout: float) -> None:
    """draft_export on every file holding a model's example; each outcome kept in `record`."""
    from .confirm import Confirmer, WorkerOptions, has_example

    interpreter = python or sys.executable  # without torch there, each file's outcome says so
    paths = dict.fromkeys(m["path"] for m in data["models"])
    confirmer = Confirmer(WorkerOptions(python=interpreter, timeout=timeout))
    root = str(config.root) if config.root else None
    try:
        for path in paths:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            names = [m["name"] for m in data["models"] if m["path"] == path]
            provider = config.example_for(path, names)
            if provider is None and not has_example(text):
                continue
            outcome = confirmer.confirm(path, text, [], root=root, strict=config.strict, provider=provider)
            record.record(path, text, outcome.status, outcome.export_ok, outcome.model, outcome.summary)
            click.echo(f"xport-lint: confirmation of {path}: {outcome.summary}", err=True)
    finally:
        confirmer.close()
        record.save()
