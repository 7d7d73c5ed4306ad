"""The workspace's export readiness for the editor's model view: the request `xport-lint/models`
answers the report's JSON (docs/report.md, version 1), and once a client has asked, the
notification `xport-lint/modelsChanged` tells it which models' verdicts or confirmation states
changed after an edit, a save or a confirmation.

The report is a project check (the findings cache makes it warm) plus the open documents' unsaved
text; it runs in a child process of its own, so neither the event loop nor the lints of the
editor's documents wait for it."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .child import Child, Stopped

MODELS = "xport-lint/models"
MODELS_CHANGED = "xport-lint/modelsChanged"
#: seconds without a lint, a save or a confirmation before the verdicts are computed again
SETTLE = 0.5
log = logging.getLogger("xport_lint.server")


@dataclass
class _Project:
    """The child's project between requests: the workspace checked with each file's latest text,
    and the report made of it (what an edit leaves alone is kept from it)."""

    folders: list[str]
    config: Any
    files: list[str]
    workspace: Any
    checked: Any
    report: Any
    #: path -> the text its findings are of (the editor's while it is open, else the disk's)
    texts: dict[str, str]
    #: path -> (mtime, size) of the disk's text when it was read
    stamps: dict[str, tuple[int, int]]
    #: the files whose text is the editor's
    unsaved: set[str]


#: the child's project (the child serves one server, one workspace)
_project: _Project | None = None


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _compute(folders: list[str], config: Any, unsaved: dict[str, str]) -> dict[str, Any]:
    """Runs in the child: the workspace's report, each open document as its editor has it; and
    `recomputed`, the models whose findings and verdicts were worked out again. The first time
    (or when the files, folders or configuration change) the whole project is checked (through
    the findings cache); after that, only the files whose text changed are checked again (with
    those whose project context that changes), and only the models that reach one of them."""
    global _project
    from xport_lint.analyzers.cache import Cache
    from xport_lint.analyzers.files import discover, read
    from xport_lint.analyzers.project import ProjectCheck, check_project
    from xport_lint.analyzers.readiness import ConfirmationRecord, readiness

    files = discover(folders, config.exclude)
    project = _project
    cache = Cache()
    try:
        if project is None or project.folders != folders or project.config != config \
                or project.files != files:
            checked = check_project(files, config, cache, None)
            assert checked.workspace is not None
            texts = {r.path: r.text for r in checked.results if r.text is not None}
            stamps = {path: stamp for path in texts if (stamp := _stamp(path)) is not None}
            project = _Project(folders, config, files, checked.workspace, checked, None, texts, stamps, set())
            _project = None  # kept once the report is made
        edits: dict[str, str] = {}
        for path in project.texts:
            text = unsaved.get(path)
            if text is None:
                stamp = _stamp(path)
                if path not in project.unsaved and stamp == project.stamps.get(path):
                    continue
                text = read(path).text
                if stamp is not None:
                    project.stamps[path] = stamp
            if text is not None and text != project.texts[path]:
                edits[path] = text
        project.unsaved = {path for path in unsaved if path in project.texts}
        changed, renamed = _apply(project, edits)
        checked = ProjectCheck(
            list(project.checked.results), dict(project.workspace.summaries), {}, project.workspace)
        incremental = project.report is not None and not renamed
        report = readiness(checked, config, record=ConfirmationRecord(), cache=cache,
                           previous=project.report if incremental else None, changed=changed if incremental else None)
        cache.save()
    finally:
        cache.close()
    project.report = report
    _project = project
    kept = report.kept
    return {"report": report.to_json(), "recomputed": sorted(m.id for m in report.models if m.id not in kept)}


def _apply(project: _Project, edits: dict[str, str]) -> tuple[set[str], bool]:
    """Check the edited files with their new text, then, round after round, the files whose
    project context that changed (as a whole check's rounds do). Returns the files checked again,
    and whether one of them now defines or imports other names (classes, bases, functions,
    imports: which classes are models, and what a subclass elsewhere inherits, may change with
    them, so every model is worked out again)."""
    from xport_lint.analyzers.files import SourceFile
    from xport_lint.analyzers.project import FileResult

    workspace = project.workspace
    results = {r.path: r for r in project.checked.results}
    changed: set[str] = set()
    renamed = False
    todo = list(edits)
    for _ in range(8):
        if not todo:
            break
        for path in todo:
            text = edits.get(path, project.texts[path])
            before = workspace.summaries.get(path)
            checked, _ = workspace.update(path, text)
            after = workspace.summaries.get(path)
            renamed = renamed or (before.names() if before else None) != (after.names() if after else None)
            project.texts[path] = text
            results[path] = FileResult(SourceFile(path, text), checked.findings)
        changed.update(todo)
        todo = [p for p in workspace.reindex() if p in project.texts] if workspace.stale else []
        workspace.stale = False
    project.checked.results = list(results.values())
    return changed, renamed


def changed_models(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """Ids of the models whose verdicts, confirmation state or findings differ (or that came or went)."""

    def state(report: dict[str, Any] | None) -> dict[str, Any]:
        return {
            m["id"]: ({mode: v["verdict"] for mode, v in m["verdicts"].items()}, m["confirmation"]["state"],
                      [(f["code"], f["path"], f["line"]) for f in m["findings"]])
            for m in (report or {"models": []})["models"]
        }

    old, new = state(before), state(after)
    return sorted(i for i in old.keys() | new.keys() if old.get(i) != new.get(i))


class ModelsService:
    """One per server: the child process, the last report sent, the pending recomputation."""

    def __init__(self) -> None:
        self._child = Child()
        self.last: dict[str, Any] | None = None
        #: the client asked once: from then on, changes are notified
        self.subscribed = False
        self._pending: asyncio.Task[None] | None = None

    async def compute(self, ls: Any) -> tuple[dict[str, Any], list[str]]:
        """The report, and the ids of the models whose findings and verdicts were worked out again."""
        folders = [p for f in ls.workspace.folders.values() if (p := to_fs_path(f.uri))]
        if not folders and ls.workspace.root_path:
            folders = [ls.workspace.root_path]
        if not folders:
            torch = str(ls.config_for("untitled:models").target)
            return {"version": 1, "tool": {"name": "xport-lint", "version": "", "torch": torch},
                    "mode": "non-strict", "files": 0,
                    "summary": {m: {"fails": 0, "fails-when": 0, "unknown": 0, "exports": 0}
                                for m in ("non-strict", "strict")},
                    "models": [], "other_findings": []}, []
        config = ls.config_for(Path(folders[0], "__init__.py").as_uri())
        unsaved = {
            path: document.source for uri, document in list(ls.workspace.text_documents.items())
            if uri.startswith("file:") and (path := to_fs_path(uri)) and path.endswith(".py")
        }
        done = await asyncio.wrap_future(self._child.submit(_compute, folders, config, unsaved))
        return done["report"], done["recomputed"]

    async def request(self, ls: Any) -> dict[str, Any]:
        self.subscribed = True
        report, _ = await self.compute(ls)
        self.last = report
        return report

    def changed(self, ls: Any) -> None:
        """A document was linted, saved or confirmed: compute the report again once things settle,
        and notify the models that changed."""
        if not self.subscribed:
            return
        if self._pending is not None:
            self._pending.cancel()
        self._pending = asyncio.ensure_future(self._recompute(ls))

    async def _recompute(self, ls: Any) -> None:
        try:
            await asyncio.sleep(SETTLE)
            report, recomputed = await self.compute(ls)
        except (asyncio.CancelledError, Stopped):
            return
        except Exception:  # noqa: BLE001 - the view keeps its last report; the next change retries
            if self._child.stopped():
                return  # the server is stopping: the child was stopped under the computation
            log.exception("xport-lint could not compute the workspace's models")
            return
        changed = changed_models(self.last, report)
        self.last = report
        if changed:
            ls.protocol.notify(MODELS_CHANGED, {"changed": changed, "recomputed": recomputed, "report": report})

    def confirmed(self, ls: Any, path: str, text: str, outcome: Any) -> None:
        """Keep a confirmation's outcome (by the text's hash) for the report, and refresh the view."""
        from xport_lint.analyzers.readiness import ConfirmationRecord

        record = ConfirmationRecord()
        record.record(path, text, outcome.status, outcome.export_ok, outcome.model, outcome.summary)
        record.save()
        self.changed(ls)

    def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
        self._child.close()


service = ModelsService()


def register(server: LanguageServer) -> None:
    @server.feature(MODELS)
    async def models(ls: Any, params: Any) -> dict[str, Any]:
        """The workspace's models (docs/report.md); subscribes the client to `xport-lint/modelsChanged`."""
        return await service.request(ls)
