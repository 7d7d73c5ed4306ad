"""The `xport-lint repair` command (the loop itself is repair.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click

from .config import Config, ConfigError
from .repair import Repairer, Target, as_json, render, write

_FIND_PACKAGE = (
    "import importlib.util, sys\n"
    "spec = importlib.util.find_spec(sys.argv[1])\n"
    "print(spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else '')\n"
)


def _project_root(start: Path) -> Path:
    """The nearest folder holding pyproject.toml (or .git) above `start`; else `start`'s folder."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").exists() or (candidate / ".git").exists():
            return candidate
    return folder


def _installed(python: str, package: str) -> str:
    """The folder `package` is installed in, as the user's interpreter imports it."""
    found = subprocess.run([python, "-c", _FIND_PACKAGE, package], capture_output=True, text=True, timeout=120)
    folder = found.stdout.strip()
    if found.returncode != 0 or not folder:
        raise click.UsageError(f"--allow {package}: {python} has no package of that name")
    return folder


@click.command()
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--model", default=None, help="The model as `pkg.mod:Class`, imported from the project root.")
@click.option("--example", default=None,
              help="`pkg.mod:function` returning the example (default: the model module's xport_example()).")
@click.option("--root", type=click.Path(exists=True, file_okay=False), default=None,
              help="The project folder copied to scratch (default: the nearest with pyproject.toml or .git).")
@click.option("--write", "write_files", is_flag=True, help="Write the repaired files (default: only show the diff).")
@click.option("--allow", multiple=True, help="Also repair this installed package, in a copy (never in place).")
@click.option("--allow-into", type=click.Path(file_okay=False), default=None,
              help="With --write: the folder the repaired copy of each --allow package is written to.")
@click.option("--allow-static", is_flag=True,
              help="As a last resort, apply torch's dynamic_shapes suggestion even where it makes a dimension static.")
@click.option("--strict/--non-strict", default=None, help="Export in strict mode (default: the configuration's).")
@click.option("--python", default=None, help="Interpreter with torch that exports the model (default: this one).")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds per export.")
@click.option("--max-steps", type=int, default=12, show_default=True, help="Failures to repair at most.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def repair(
    path: str | None, model: str | None, example: str | None, root: str | None, write_files: bool,
    allow: tuple[str, ...], allow_into: str | None, allow_static: bool, strict: bool | None, python: str | None,
    timeout: float, max_steps: int, output_format: str,
) -> None:
    """Repair a model until it exports: PATH's xport_example(), or --model pkg.mod:Class.

    Each failure torch reports is fixed in a scratch copy and the fix kept only if the failure
    is gone and the outputs equal eager (on a second size too where shapes are dynamic). Exit
    status 0 when the model exports after the repair, 1 when a blocker remains."""
    if (path is None) == (model is None):
        raise click.UsageError("name the model: a PATH with xport_example(), or --model pkg.mod:Class")
    if allow_into and not allow:
        raise click.UsageError("--allow-into is where --allow packages are written: name a package with --allow")
    start = Path(path).resolve() if path else Path(root or ".").resolve()
    project = Path(root).resolve() if root else _project_root(start)
    if path and not Path(path).resolve().is_relative_to(project):
        raise click.UsageError(f"{path} is not inside the project folder {project}")
    try:
        config = Config.discover(start).merged(strict=strict)
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
    # a relative path names an interpreter from here, not from the scratch copy's folder
    interpreter = os.path.abspath(python) if python and os.sep in python else python or sys.executable
    allowed = {package: _installed(interpreter, package) for package in allow}
    if model and not example:
        # `[tool.xport-lint.examples]` maps a model's dotted path to its example factory
        example = config.examples.get(model.replace(":", "."))
    target = Target(str(project), str(Path(path).resolve()) if path else None, model, example)

    def progress(message: str) -> None:
        if output_format == "text":
            click.echo(f"xport-lint: {message}", err=True)

    result = Repairer(target, config, interpreter, timeout, allowed=allowed, allow_static=allow_static,
                      max_steps=max_steps, progress=progress).run()
    if output_format == "json":
        click.echo(json.dumps(as_json(result), indent=2))
    else:
        click.echo(render(result), nl=False)
    if write_files and result.changed:
        written = write(result, str(project), allow_into, allowed)
        skipped = len(result.changed) - len(written)
        click.echo(f"xport-lint: wrote {', '.join(os.path.relpath(w) for w in written) or 'nothing'}"
                   + (f"; {skipped} library file(s) not written: name a copy with --allow-into" if skipped else ""),
                   err=True)
    sys.exit(0 if result.final.ok else 1)
