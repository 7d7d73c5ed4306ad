"""The project as one model: its files, their summaries, the project index built from them, the
context each file is analysed with, and the findings. Every command asks it: the CLI's check,
`--fix`, `--diff`, the fix prover and the baseline (through project.check_project), and the
language server's child process (diagnostics, fix-all, hover, the workspace indexing between
lints). So a file is analysed with the same project context whichever command asks, and the
loop that settles the index (check, re-index, check again the files whose context changed)
exists once, here."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .cache import Cache, findings_from_plain, plain_findings, text_digest
from .config import Config
from .files import SourceFile, discover, read
from .index import EMPTY_CONTEXT, FileContext, ModuleSummary, ProjectIndex
from .model import Finding, Span
from .workers import FOLLOWED, FileResult, Progress, check_round, tune_gc

if TYPE_CHECKING:  # the engine is imported where a file is checked (a second run checks none)
    from .incremental import ChunkedParser
    from .runner import FileCheck


class ProjectCheck:
    """`results`; `summaries`: path -> its summary for the project index (files that parsed),
    asked of `workspace` on first use when not given (a report from a second run never needs
    them); `contexts`: path -> what the rest of the project tells its analysis (a fix of the
    file and the re-check of that fix need it: without it, a helper another file calls is not
    traced), likewise asked of `workspace` on first use; `workspace`: the project model the
    check ran in, which `recheck`, fixes and the fix prover ask for each file's context."""

    def __init__(
        self, results: list[FileResult], summaries: dict[str, ModuleSummary] | None,
        contexts: dict[str, FileContext] | None = None, workspace: Workspace | None = None,
    ) -> None:
        self.results = results
        self._summaries = summaries
        self._contexts = contexts
        self.workspace = workspace

    @property
    def summaries(self) -> dict[str, ModuleSummary]:
        if self._summaries is None:
            self._summaries = dict(self.workspace.summaries) if self.workspace is not None else {}
        return self._summaries

    @property
    def contexts(self) -> dict[str, FileContext]:
        if self._contexts is None:
            workspace = self.workspace
            self._contexts = {p: workspace.context(p) for p in workspace.files} if workspace is not None else {}
        return self._contexts


#: rounds of re-checking files whose project context changed (each round follows calls one file
#: further; real projects settle in two or three)
_MAX_ROUNDS = 8
#: the cache entry of a settled `check_all` (its files' final contexts and findings), and its
#: format's version
_SETTLED_KIND = "settled-findings-v2"


class Workspace:
    """The files of a project and what the project index makes of each. `files`: the linted
    files; `followed`: files outside them that `follow` names (analysed for what the linted
    code reaches in them, reported only where they have findings)."""

    def __init__(
        self, config: Config, files: Iterable[str] = (), followed: Iterable[str] = (), cache: Cache | None = None,
        jobs: int | None = None,
    ) -> None:
        self.config = config
        self.cache = cache
        self.jobs = jobs
        self.linted = list(files)
        linted = set(self.linted)
        self.followed = [p for p in followed if p not in linted]
        self.files = [*self.linted, *self.followed]
        self.results: dict[str, FileResult] = {}
        self._summaries: dict[str, ModuleSummary] = {}
        #: path -> the digests of its text and context its summary is cached under, still to
        #: read (`summaries`)
        self._summary_keys: dict[str, tuple[str, str]] = {}
        #: the open document whose summary `update` left to compute, and what computes it
        self._deferred: tuple[str, Callable[[], ModuleSummary]] | None = None
        self._contexts: dict[str, FileContext] = dict.fromkeys(self.linted, EMPTY_CONTEXT) | dict.fromkeys(
            self.followed, FOLLOWED
        )
        self._index: ProjectIndex | None = None
        #: the files' findings came from a settled run's record: the index and the contexts it
        #: gives are built when first asked for (`_index_from_record`)
        self._index_pending = False
        #: files whose editor text, not the disk's, stands for them (language server documents)
        self.open: set[str] = set()
        #: files on disk still to summarize for the index (`index_step`); None: not discovered yet
        self._todo: list[str] | None = None
        #: an open document's summary changed since the index was built
        self.stale = False
        #: the last rounds ended with no file's context changing (not cut at _MAX_ROUNDS)
        self._settled = False

    @classmethod
    def for_paths(cls, files: list[str], config: Config, cache: Cache | None, jobs: int | None) -> Workspace:
        """The linted `files`, and the files `follow` names in the configuration."""
        followed = discover(config.followed_folders(), config.exclude) if config.follow else []
        return cls(config, files, followed, cache, jobs)

    @property
    def index(self) -> ProjectIndex | None:
        if self._index_pending:
            self._index_from_record()
        return self._index

    @index.setter
    def index(self, index: ProjectIndex | None) -> None:
        self._index_pending = False
        self._index = index

    @property
    def contexts(self) -> dict[str, FileContext]:
        """The context each file was last analysed with (what the index told it then)."""
        if self._index_pending:
            self._index_from_record()
        return self._contexts

    @contexts.setter
    def contexts(self, contexts: dict[str, FileContext]) -> None:
        self._contexts = contexts

    # -- what the project tells a file -------------------------------------------------------

    def context(self, path: str) -> FileContext:
        """What the rest of the project makes of `path` (its helpers another file's traced code
        calls, its classes that are modules through another file)."""
        if self.index is None:
            return self.contexts.get(path, EMPTY_CONTEXT)
        return self.index.context(path)

    def reindex(self) -> list[str]:
        """Rebuild the index after `update`s changed summaries; the files whose context changed
        (the readiness view checks them again with its own texts)."""
        return self._reindex()

    def _reindex(self) -> list[str]:
        """Rebuild the index; the files analysed with a context that has changed since."""
        index = self.index = ProjectIndex(self.files, self.summaries, self.followed, previous=self.index)
        return [p for p in self.files if p in self.contexts and self.contexts[p] != index.context(p)]

    # -- the whole project (the CLI) ---------------------------------------------------------

    def check_all(self, progress: Progress | None = None) -> ProjectCheck:
        """Every file, then, round after round, the files whose context the index changed, until
        none does (each round follows calls one file further; real projects settle in two or three).
        With a cache, a project whose files and configuration are those of a settled run before
        is answered from that run's record in one read (see `_from_settled_run`); files whose
        stat is unchanged since a run hashed them are not even read (`_FileStats`)."""
        tune_gc()
        if self.cache is None:
            return self._rounds(list(self.files), progress)
        stats = _FileStats(self.cache, self.files)
        sources: dict[str, SourceFile] = {}
        digests: dict[str, str] = {}
        for path in self.files:
            known = stats.digest(path)
            if known is not None:
                digests[path] = known
                continue
            source = sources[path] = read(path)
            if source.text is not None:
                digests[path] = stats.hashed(path, source.text)
        settled_key = self._settled_key(digests, sources)
        checked = self._from_settled_run(settled_key, digests, sources, stats)
        if checked is None:
            sources |= {p: read(p) for p in self.files if p not in sources}
            checked = self._rounds(list(self.files), progress, sources)
            if self._settled:
                self._record_settled(settled_key)
        stats.save()
        return checked

    def recheck(self, changed: Iterable[str]) -> ProjectCheck:
        """The project after `changed` files were rewritten on disk (fixes written): they are
        checked again with their contexts, then every file whose context that changes."""
        tune_gc()
        wanted = set(changed)
        return self._rounds([p for p in self.files if p in wanted], None)

    def _rounds(
        self, todo: list[str], progress: Progress | None, sources: dict[str, SourceFile] | None = None
    ) -> ProjectCheck:
        """`sources`: the files' text already read for the first round."""
        self._settled = False
        for round_number in range(_MAX_ROUNDS):
            told = progress if round_number == 0 else None
            contexts = {p: self.context(p) for p in todo}
            read_before = sources if round_number == 0 else None
            for result, summary in check_round(todo, self.config, self.cache, self.jobs, contexts, told, read_before):
                self.results[result.path] = result
                self.contexts[result.path] = contexts[result.path]
                self._summarized(result.path, summary)
            todo = self._reindex()
            if not todo:
                self._settled = True
                break
        return self._outcome()

    def _outcome(self) -> ProjectCheck:
        linted = set(self.linted)
        reported = [
            self.results[p] for p in self.files if p in self.results and (p in linted or self.results[p].findings)
        ]
        if self._index_pending:  # a second run: asked of the record when needed
            return ProjectCheck(reported, None, None, self)
        return ProjectCheck(reported, dict(self.summaries), {p: self.context(p) for p in self.files}, self)

    # -- a settled run again (the CLI's second run over an unchanged project) ---------------

    def _settled_key(self, digests: dict[str, str], sources: dict[str, SourceFile]) -> str:
        """Names the whole input of `check_all`: the engine, the configuration, and the files in
        order, each with its text's digest and first-round context (or why it has no text)."""
        assert self.cache is not None
        files = [
            (p, f"{digests[p]}\0{self.contexts[p].digest()}" if p in digests else f"unread\0{sources[p].problem}")
            for p in self.files
        ]
        return self.cache.project_key(_SETTLED_KIND, self.config, files)

    def _record_settled(self, key: str) -> None:
        """The contexts a settled `check_all` ended with, and each file's findings, for
        `_from_settled_run`."""
        assert self.cache is not None
        record = {
            p: [self.contexts[p].digest(), plain_findings(self.results[p].findings)]
            for p in self.files if self.results[p].text is not None
        }
        self.cache.put_data(key, record)

    def _from_settled_run(
        self, key: str, digests: dict[str, str], sources: dict[str, SourceFile], stats: _FileStats
    ) -> ProjectCheck | None:
        """The project checked with the contexts a settled run over the same input ended with:
        every file's findings from that run's record, its summary from the cache under its final
        context when something asks for the summaries. The rounds from empty contexts reach the
        same contexts (same texts, engine and configuration: the record's key) and so the same
        findings; they cost a second run four index builds and a cache read of every file. The
        index is built only when something asks for it (fixes, the fix prover, a recheck), not
        for a report. A file with findings is read (they are shown with its text), and its text
        must be the one the record is of. None (check by rounds) when the record is missing or
        does not match."""
        assert self.cache is not None
        record = self.cache.get_data([key]).get(key)
        if not isinstance(record, dict) or set(record) != set(digests):
            return None
        found: dict[str, list[Finding]] = {}
        for path, entry in record.items():
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
                return None
            try:
                found[path] = findings_from_plain(entry[1])
            except (ValueError, TypeError, KeyError, AttributeError):
                return None
            if found[path] and path not in sources:
                source = sources[path] = read(path)  # shown with the findings: its text is needed
                if source.text is None or stats.hashed(path, source.text) != digests[path]:
                    return None
        for path in self.files:
            source = sources.get(path)
            if source is None:
                self.results[path] = FileResult.unread(path, found[path])
            else:
                self.results[path] = FileResult(source, found.get(path, []))
        self._summary_keys = {p: (digests[p], entry[0]) for p, entry in record.items()}
        self.summaries = {}
        self._index_pending = True
        self._settled = True
        return self._outcome()

    @property
    def summaries(self) -> dict[str, ModuleSummary]:
        """path -> its summary for the project index; after `_from_settled_run`, read from the
        cache when first asked for."""
        if self._summary_keys:
            self._load_summaries()
        self._settle()
        return self._summaries

    @summaries.setter
    def summaries(self, summaries: dict[str, ModuleSummary]) -> None:
        self._summaries = summaries

    def _load_summaries(self) -> None:
        """The summaries `_from_settled_run` left in the cache; when one is gone from it (evicted,
        or the cache closed since), the project is checked again by rounds, which gives the same
        findings and every summary."""
        keys, self._summary_keys = self._summary_keys, {}
        cache = self.cache
        hits = {
            p: cache.get(cache.key_with(text, p, self.config, context), p) if cache is not None else None
            for p, (text, context) in keys.items()
        }
        if any(hit is None for hit in hits.values()):
            self._index_pending = False
            self._index = None
            self._contexts = dict.fromkeys(self.linted, EMPTY_CONTEXT) | dict.fromkeys(self.followed, FOLLOWED)
            self._rounds(list(self.files), None)
            return
        self._summaries = {p: hit[1] for p, hit in hits.items() if hit is not None and hit[1] is not None}

    def _index_from_record(self) -> None:
        """The index of the summaries `_from_settled_run` read, and each file's context from it."""
        self._index_pending = False
        self._index = ProjectIndex(self.files, self.summaries, self.followed)
        self._contexts = {p: self._index.context(p) for p in self.files}

    def _summarized(self, path: str, summary: ModuleSummary | None) -> None:
        if summary is not None:
            self.summaries[path] = summary
        else:
            self.summaries.pop(path, None)

    # -- one text at a time (the fix prover, the language server) --------------------------

    def check(self, path: str, text: str, parser: ChunkedParser | None = None) -> FileCheck:
        """`text` as the file `path`, analysed with its project context (nothing is recorded)."""
        from .runner import check_file

        return check_file(text, path, self.config, parser, self.context(path))

    def update(self, path: str, text: str, parser: ChunkedParser | None = None) -> tuple[FileCheck, bool]:
        """An open document's text stands for `path` from now on: checked with its context, its
        summary recorded when something reads the summaries (`_settle`: the index's next step,
        once typing pauses; an edit's diagnostics never wait for it, and a newer edit of the same
        document replaces it unread). Also whether the index may need a step."""
        from .runner import check_file

        if self._deferred is not None and self._deferred[0] != path:
            self._settle()  # one document's analysis kept at a time
        context = self.context(path)
        checked = check_file(text, path, self.config, parser, context, summarize=False)
        self.open.add(path)
        self.contexts[path] = context
        if path not in self.files:
            self.files.append(path)
        if checked.later is not None:
            self._deferred = (path, checked.later)
        else:  # nothing to summarize (a syntax error): no summary from now on
            self._deferred = None
            self._record_summary(path, None)
        return checked, self.stale or (self._deferred is not None and self.index is not None)

    def _settle(self) -> None:
        """Record the summary `update` left to compute; the index is stale if it changed."""
        if self._deferred is None:
            return
        (path, later), self._deferred = self._deferred, None
        self._record_summary(path, later())

    def _record_summary(self, path: str, summary: ModuleSummary | None) -> None:
        before = self._summaries.get(path)
        self._summarized(path, summary)
        same = before is not None and summary is not None and before.to_plain() == summary.to_plain()
        if self.index is not None and not same:
            self.stale = True

    def close(self, path: str) -> None:
        """The editor closed `path`: the disk's text stands for it again at the next indexing."""
        if path in self.open:
            self.open.discard(path)
            if self._todo is not None:
                self._todo.append(path)

    def fix(self, path: str, text: str, unsafe: bool = False, findings: list[Finding] | None = None) -> str:
        """`text` with its fixes applied round after round, each round checked with the file's
        project context (without it a helper another file calls is not traced, and its
        findings would vanish from the re-check rather than be fixed)."""
        from .runner import fix_source

        return fix_source(text, path, self.config, unsafe, findings, context=self.context(path))

    def size_facts(self, path: str, text: str) -> list[tuple[Span, str]]:
        """What export makes of each input size `text`'s models read (for hovers)."""
        from .runner import size_facts

        return size_facts(text, path, self.config, self.context(path))

    # -- indexing between lints (the language server) ---------------------------------------

    def index_step(self, folders: list[str], seconds: float) -> tuple[bool, list[str]]:
        """Summarize files on disk for about `seconds` (at least one file), through the findings
        cache. Returns whether the index is settled, and the open documents whose context the
        rebuilt index changed (to lint again)."""
        if self._todo is None:
            discovered = discover(folders, self.config.exclude)
            on_disk = set(discovered)
            self.files = [*discovered, *(p for p in self.files if p not in on_disk)]
            self._todo = list(discovered)
        self._settle()
        if not self._todo and not self.stale and self._index is not None:
            return True, []  # the open documents' summaries are those indexed: nothing to do
        cache = self.cache if self.cache is not None else Cache()
        deadline = time.monotonic() + seconds
        done = 0
        try:
            while done < len(self._todo) and (done == 0 or time.monotonic() < deadline):
                path = self._todo[done]
                done += 1
                if path not in self.open:  # an open document's editor text is what counts
                    self._summarize_from_disk(path, cache)
            cache.save()
        finally:
            del self._todo[:done]
            if cache is not self.cache:
                cache.close()
        if self._todo:
            return False, []
        self.stale = False
        changed = self._reindex()
        # files on disk whose context changed are summarized again (one call further)
        self._todo = [p for p in changed if p not in self.open]
        return not self._todo, [p for p in changed if p in self.open]

    def _summarize_from_disk(self, path: str, cache: Cache) -> None:
        from .runner import check_file

        source = read(path)
        if source.text is None:
            return
        context = self.context(path)
        key = cache.key(source.text, path, self.config, context)
        hit = cache.get(key, path)
        if hit is None:
            checked = check_file(source.text, path, self.config, context=context)
            cache.put(key, checked.findings, checked.summary)
            hit = (checked.findings, checked.summary)
        self.contexts[path] = context
        self._summarized(path, hit[1])


#: the cache entry of the files' stats and text digests, and its format's version
_STATS_KIND = "file-stats-v1"
#: a file changed this close to the run that recorded its stat may have changed again since
#: within the file system's timestamp granularity (coarse clocks, 2 s on FAT) with the same
#: size: its text is hashed, not trusted from the stat (git's "racy" entries)
_RACY_NS = 2_000_000_000


class _FileStats:
    """Each file's text digest, known without reading it where its stat (device, inode, size,
    modification and change times) is the one a run recorded with that digest, as git's index
    does. The digest, not the stat, is what the cache keys hold: a stat that differs only sends
    the file to be read and hashed. Notebooks are always read (the output needs their cells)."""

    def __init__(self, cache: Cache, files: list[str]) -> None:
        self.cache = cache
        self.key = cache.data_key(_STATS_KIND, "\0".join([os.getcwd(), *files]))  # relative paths
        self.taken = time.time_ns()  # before any stat: a file written after it is never trusted
        self.stats = {p: _stat(p) for p in files}
        record = cache.get_data([self.key]).get(self.key)
        self._known: dict[str, str] = {}
        self.recorded: dict[str, list[Any]] = {}
        if isinstance(record, dict) and isinstance(record.get("taken"), int) and isinstance(record.get("files"), dict):
            trusted_before = record["taken"] - _RACY_NS
            for path, entry in record["files"].items():
                stat = self.stats.get(path)
                if (
                    stat is not None and isinstance(entry, list) and len(entry) == 6 and entry[:5] == list(stat)
                    and isinstance(entry[5], str) and max(stat[3], stat[4]) < trusted_before
                ):
                    self._known[path] = entry[5]
                    self.recorded[path] = entry
        self._changed = False

    def digest(self, path: str) -> str | None:
        """The digest of `path`'s text, if its stat says it is the one recorded."""
        return self._known.get(path)

    def hashed(self, path: str, text: str) -> str:
        """The digest of `text`, read from `path` after its stat was taken (recorded with it)."""
        digest = text_digest(text)
        stat = self.stats.get(path)
        if stat is not None and not path.endswith(".ipynb"):
            self.recorded[path] = [*stat, digest]
            self._changed = True
        return digest

    def save(self) -> None:
        if self._changed:
            self.cache.put_data(self.key, {"taken": self.taken, "files": self.recorded})


def _stat(path: str) -> tuple[int, int, int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns
