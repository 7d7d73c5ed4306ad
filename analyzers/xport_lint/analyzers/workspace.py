"""The project as one model: its files, their summaries, the project index built from them, the
context each file is analysed with, and the findings. Every command asks it: the CLI's check,
`--fix`, `--diff`, the fix prover and the baseline (through project.check_project), and the
language server's child process (diagnostics, fix-all, hover, the workspace indexing between
lints). So a file is analysed with the same project context whichever command asks, and the
loop that settles the index (check, re-index, check again the files whose context changed)
exists once, here."""

from __future__ import annotations

import time
from collections.abc import Iterable

from .cache import Cache
from .config import Config
from .files import SourceFile, discover, read
from .incremental import ChunkedParser
from .index import EMPTY_CONTEXT, FileContext, ModuleSummary, ProjectIndex
from .model import Finding, Span
from .runner import FileCheck, check_file, fix_source, size_facts
from .workers import FOLLOWED, FileResult, Progress, check_round, tune_gc


class ProjectCheck:
    """`results`; `summaries`: path -> its summary for the project index (files that parsed);
    `contexts`: path -> what the rest of the project tells its analysis (a fix of the file and
    the re-check of that fix need it: without it, a helper another file calls is not traced),
    asked of `workspace` on first use when not given (a report without fixes never needs them);
    `workspace`: the project model the check ran in, which `recheck`, fixes and the fix prover
    ask for each file's context."""

    def __init__(
        self, results: list[FileResult], summaries: dict[str, ModuleSummary],
        contexts: dict[str, FileContext] | None = None, workspace: Workspace | None = None,
    ) -> None:
        self.results = results
        self.summaries = summaries
        self._contexts = contexts
        self.workspace = workspace

    @property
    def contexts(self) -> dict[str, FileContext]:
        if self._contexts is None:
            workspace = self.workspace
            self._contexts = {p: workspace.context(p) for p in workspace.files} if workspace is not None else {}
        return self._contexts


#: rounds of re-checking files whose project context changed (each round follows calls one file
#: further; real projects settle in two or three)
_MAX_ROUNDS = 8
#: the cache entry of a settled `check_all` (its files' final contexts), and its format's version
_SETTLED_KIND = "settled-contexts-v1"


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
        self.summaries: dict[str, ModuleSummary] = {}
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
        is answered from that run's contexts in one round (see `_from_settled_run`)."""
        tune_gc()
        if self.cache is None:
            return self._rounds(list(self.files), progress)
        sources = {p: read(p) for p in self.files}
        settled_key = self._settled_key(sources)
        checked = self._from_settled_run(sources, settled_key)
        if checked is not None:
            return checked
        checked = self._rounds(list(self.files), progress, sources)
        if self._settled:
            self._record_settled(settled_key)
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
        contexts = None if self._index_pending else {p: self.context(p) for p in self.files}
        return ProjectCheck(reported, dict(self.summaries), contexts, self)

    # -- a settled run again (the CLI's second run over an unchanged project) ---------------

    def _settled_key(self, sources: dict[str, SourceFile]) -> str:
        """Names the whole input of `check_all`: the files in order, each with its text (or why it
        has none), the engine and the configuration (in each file's first-round cache key)."""
        assert self.cache is not None
        parts = []
        for path in self.files:
            source = sources[path]
            if source.text is None:
                parts.append(f"{path}\0unread\0{source.problem}")
            else:
                parts.append(self.cache.key(source.text, path, self.config, self.contexts[path]))
        return self.cache.data_key(_SETTLED_KIND, "\n".join(parts))

    def _record_settled(self, key: str) -> None:
        """The contexts a settled `check_all` ended with, for `_from_settled_run`."""
        assert self.cache is not None
        digests = {p: self.contexts[p].digest() for p in self.files if self.results[p].text is not None}
        self.cache.put_data(key, digests)

    def _from_settled_run(self, sources: dict[str, SourceFile], key: str) -> ProjectCheck | None:
        """The project checked with the contexts a settled run over the same input ended with:
        every file's findings and summary from the cache under its final context. The rounds
        from empty contexts reach the same contexts (same texts, engine and configuration: the
        record's key) and so the same findings; they cost a second run four index builds and a
        cache read of every file whose context changed. The index is built only when something
        asks for it (fixes, the fix prover, a recheck), not for a report. None (check by rounds)
        when the record or any file's entry is missing."""
        assert self.cache is not None
        record = self.cache.get_data([key]).get(key)
        readable = [p for p in self.files if sources[p].text is not None]
        if not isinstance(record, dict) or set(record) != set(readable):
            return None
        if not all(isinstance(d, str) for d in record.values()):
            return None
        hits: dict[str, tuple[list[Finding], ModuleSummary | None]] = {}
        for path in readable:
            text = sources[path].text
            assert text is not None
            hit = self.cache.get(self.cache.key_with(text, path, self.config, record[path]), path)
            if hit is None:
                return None
            hits[path] = hit
        self.summaries = {p: s for p, (_, s) in hits.items() if s is not None}
        self._index_pending = True
        for path in self.files:
            findings = hits[path][0] if path in hits else []
            self.results[path] = FileResult(sources[path], findings)
        self._settled = True
        return self._outcome()

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
        return check_file(text, path, self.config, parser, self.context(path))

    def update(self, path: str, text: str, parser: ChunkedParser | None = None) -> tuple[FileCheck, bool]:
        """An open document's text stands for `path` from now on: checked with its context and
        its summary recorded. Also whether the index needs rebuilding (the summary changed),
        which the next `index_step` does, off the path of the edit's own diagnostics."""
        context = self.context(path)
        checked = check_file(text, path, self.config, parser, context)
        self.open.add(path)
        self.contexts[path] = context
        before = self.summaries.get(path)
        self._summarized(path, checked.summary)
        if path not in self.files:
            self.files.append(path)
        same = before is not None and checked.summary is not None and before.to_plain() == checked.summary.to_plain()
        if self.index is not None and not same:
            self.stale = True
        return checked, self.stale

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
        return fix_source(text, path, self.config, unsafe, findings, context=self.context(path))

    def size_facts(self, path: str, text: str) -> list[tuple[Span, str]]:
        """What export makes of each input size `text`'s models read (for hovers)."""
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
