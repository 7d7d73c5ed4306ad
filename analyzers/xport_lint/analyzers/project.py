"""A whole project checked: every file in worker processes (workers.py), then again where the
project index changes what a file's analysis knows (index.ProjectIndex), until nothing changes:
the rounds of workspace.Workspace, the one project model the CLI and the language server share.
`check_project` and `recheck` are the entry points the commands and the benchmarks call."""

from __future__ import annotations

from .cache import Cache
from .config import Config
from .workers import FILE_TIME_LIMIT, FOLLOWED, FileResult, Progress, check_isolated, problem_finding
from .workspace import ProjectCheck, Workspace

__all__ = [
    "FILE_TIME_LIMIT", "FOLLOWED", "FileResult", "Progress", "ProjectCheck", "Workspace", "check_isolated",
    "check_project", "problem_finding", "recheck",
]


def check_project(
    files: list[str], config: Config, cache: Cache | None, jobs: int | None, progress: Progress | None = None
) -> ProjectCheck:
    """Check every file; then, from their summaries, the project index tells each file what other
    files make of it (classes that are modules through another file, helpers that another file's
    traced code calls); files whose context changed are checked again, until none does
    (workspace.Workspace.check_all)."""
    return Workspace.for_paths(files, config, cache, jobs).check_all(progress)


def recheck(previous: ProjectCheck, changed: list[str], config: Config, cache: Cache | None,
            jobs: int | None) -> ProjectCheck:
    """The project after `changed` files were rewritten on disk (fixes written): they are
    checked again with their contexts, then every file whose context that changes, as
    `check_project` does. The other files' results are kept."""
    assert previous.workspace is not None, "a ProjectCheck from check_project"
    workspace = previous.workspace
    workspace.config, workspace.cache, workspace.jobs = config, cache, jobs
    return workspace.recheck(changed)


