"""Content-hash cache of findings and project-index summaries, so a second run over unchanged
files parses nothing.

Data only, never code: a SQLite table of JSON rows (no pickle), each sealed with a digest of
its body and validated field by field when read; anything damaged or malformed is a miss. It
lives in the user's cache directory, never in the linted tree, so a cloned repository cannot
ship one. Key: the engine's own source (any rule change invalidates everything), the enabled
codes, the mode and severity overrides, the file's path and text, and what the rest of the
project told its analysis (index.FileContext).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from .config import Config
from .index import EMPTY_CONTEXT, FileContext, ModuleSummary
from .model import Applicability, Edit, Finding, Fix, Position, Related, Severity, Span

_FILE = "findings-v3.sqlite3"
#: rows kept after a run (least recently used dropped): old versions of edited files pile up otherwise
_MAX_ENTRIES = 50_000


def default_directory() -> Path:
    """`$XPORT_LINT_CACHE_DIR`, else `$XDG_CACHE_HOME/xport-lint`, else `~/.cache/xport-lint`."""
    explicit = os.environ.get("XPORT_LINT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xport-lint"


def text_digest(text: str) -> str:
    """What a cache key knows of a file's text (the text itself is not kept)."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _private(path: Path, missing_ok: bool = False) -> bool:
    """Owned by this user and writable by no one else: a well-formed row is trusted as this
    user's own result, so only this user may have written it."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return missing_ok
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & 0o022


@functools.cache
def _engine_fingerprint() -> str:
    """The engine's source as loaded by this process (read once: the language server's child
    opens a cache for every indexing step)."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class Cache:
    """Effect: reads and writes one SQLite file in `directory` (created private to the user).
    A cache it cannot use never stops a run: the run is cold, and `warnings` says why (once)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_directory()
        self._engine = _engine_fingerprint()
        self._pending: dict[str, str] = {}
        self._used: list[str] = []
        self._db: sqlite3.Connection | None = None
        #: what went wrong with the cache, for the CLI to print once (the engine never prints)
        self.warnings: list[str] = []
        database = self.directory / _FILE
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            self._warn(f"cannot create the findings cache folder {self.directory} ({_reason(error)})")
            return
        if not _private(self.directory) or not _private(database, missing_ok=True):
            self._warn(f"not using the findings cache {database}: other users can write to it")
            return
        try:
            self._db = _open(database)
        except sqlite3.Error as error:
            if _damaged(error):
                self._rebuild(error)
            else:  # locked by another run for too long, or a folder it cannot write
                self._warn(f"cannot open the findings cache {database} ({error})")
        except OSError as error:
            self._warn(f"cannot open the findings cache {database} ({_reason(error)})")

    def _rebuild(self, error: sqlite3.Error) -> None:
        """Replace a damaged database file (a crash mid-write, a disk error) with an empty one:
        kept, it would make every later run cold."""
        database = self.directory / _FILE
        if self._db is not None:
            self._db.close()
            self._db = None
        try:
            for stale in (database, database.with_name(f"{_FILE}-journal"), database.with_name(f"{_FILE}-wal")):
                stale.unlink(missing_ok=True)
            self._db = _open(database)
        except (OSError, sqlite3.Error) as again:
            self._warn(f"the findings cache {database} is damaged and cannot be rebuilt ({again})")
            return
        self._warn(f"the findings cache {database} was damaged ({error}); rebuilt it empty")

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def key(self, text: str, path: str, config: Config, context: FileContext = EMPTY_CONTEXT) -> str:
        return self.key_with(text_digest(text), path, config, context.digest())

    def key_with(self, digest: str, path: str, config: Config, context_digest: str) -> str:
        """`key`, from the text's `digest` (`text_digest`) and the context's: a second run knows
        both without reading the file or rebuilding the index."""
        key = hashlib.sha256()
        for part in (
            self._engine,
            ",".join(sorted(config.enabled(path))),
            config.mode.value,
            str(config.target),  # facts with a torch version range
            repr(sorted((code, level.value) for code, level in config.severity.items())),
            # what an undeclared dimension is, and the declared ones: XPT3xx severities
            config.shapes,
            repr(sorted(config.dynamic_shapes.items())),
            path,  # the module name (from the path) is part of the summary
            context_digest,
            digest,
        ):
            key.update(part.encode())
            key.update(b"\0")
        return key.hexdigest()

    def project_key(self, kind: str, config: Config, files: list[tuple[str, str]]) -> str:
        """Key of a whole project's data (`kind`: what and its version), per engine: the
        configuration as written (what each file's key resolves from it, with the engine: the
        rules are not loaded to name it) and `files`' (path, what names its input) in order."""
        digest = hashlib.sha256(f"{self._engine}\0{kind}\0".encode())
        for part in (
            repr((config.select, config.extend_select, config.ignore, sorted(config.per_file_ignores.items()),
                  str(config.root), config.mode.value, str(config.target), config.shapes)),
            repr(sorted((code, level.value) for code, level in config.severity.items())),
            repr(sorted(config.dynamic_shapes.items())),
            *(f"{path}\0{name}" for path, name in files),
        ):
            digest.update(part.encode("utf-8", errors="surrogatepass"))
            digest.update(b"\0")
        return digest.hexdigest()

    def get(self, key: str, path: str) -> tuple[list[Finding], ModuleSummary | None] | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT body FROM findings WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as error:
            if _damaged(error):
                self._rebuild(error)
            return None  # a miss (busy, or damaged and now rebuilt)
        if row is None:
            return None
        try:
            body = json.loads(unsealed(row[0]))
            findings = [_finding(item) for item in body["findings"]]
            summary = None if body["summary"] is None else ModuleSummary.from_plain(body["summary"], path)
        except (ValueError, TypeError, KeyError, AttributeError):
            return None  # malformed: a miss, re-checked and overwritten
        self._used.append(key)
        return findings, summary

    def put(self, key: str, findings: list[Finding], summary: ModuleSummary | None) -> None:
        body = {"findings": [_plain(f) for f in findings], "summary": summary.to_plain() if summary else None}
        self._pending[key] = sealed(json.dumps(body, separators=(",", ":")))

    def data_key(self, kind: str, text: str) -> str:
        """Key of data derived from a file's text alone (`kind`: what and its version), per engine."""
        digest = hashlib.sha256(f"{self._engine}\0{kind}\0".encode())
        digest.update(text.encode("utf-8", errors="surrogatepass"))
        return digest.hexdigest()

    def get_data(self, keys: list[str]) -> dict[str, Any]:
        """The JSON values `put_data` stored under those of `keys` it has (one query per 500 keys);
        the caller validates them (a malformed value is the caller's miss)."""
        out: dict[str, Any] = {}
        if self._db is None:
            return out
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            try:
                rows = self._db.execute(
                    f"SELECT key, body FROM findings WHERE key IN ({','.join('?' * len(chunk))})", chunk
                ).fetchall()
            except sqlite3.Error:
                return out  # busy or damaged: misses (`get` rebuilds a damaged file)
            for key, body in rows:
                try:
                    out[key] = json.loads(unsealed(body))
                except (ValueError, TypeError):
                    continue
                self._used.append(key)
        return out

    def put_data(self, key: str, value: Any) -> None:
        self._pending[key] = sealed(json.dumps(value, separators=(",", ":")))

    def save(self) -> None:
        if self._db is None:
            return
        now = time.time()
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR REPLACE INTO findings (key, body, used) VALUES (?, ?, ?)",
                    [(k, body, now) for k, body in self._pending.items()],
                )
                self._db.executemany("UPDATE findings SET used = ? WHERE key = ?", [(now, k) for k in self._used])
                self._db.execute(
                    "DELETE FROM findings WHERE key NOT IN (SELECT key FROM findings ORDER BY used DESC LIMIT ?)",
                    (_MAX_ENTRIES,),
                )
        except sqlite3.Error as error:
            # busy, read-only, or a full disk: this run's results are lost, the next run re-checks
            self._warn(f"cannot write the findings cache {self.directory / _FILE} ({error}); the next run re-checks")
        finally:
            self._pending.clear()
            self._used.clear()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _open(database: Path) -> sqlite3.Connection:
    """The cache's connection, its table created; raises sqlite3.DatabaseError on a file that
    is not (or no longer) an SQLite database."""
    db = sqlite3.connect(database, timeout=5, isolation_level=None)
    try:
        db.execute("PRAGMA trusted_schema = OFF")
        db.execute("CREATE TABLE IF NOT EXISTS findings (key TEXT PRIMARY KEY, body TEXT NOT NULL, used REAL NOT NULL)")
    except sqlite3.Error:
        db.close()
        raise
    except UnicodeDecodeError as error:  # a damaged schema whose text no longer decodes
        db.close()
        raise sqlite3.DatabaseError(f"file is not a database (its schema does not decode: {error})") from error
    return db


_SEAL = 16  # hex digits of a row's digest


def sealed(body: str) -> str:
    """`body` behind a digest of itself, so a row damaged on disk reads as a miss, not as
    findings that differ from the file's."""
    return hashlib.blake2b(body.encode(), digest_size=_SEAL // 2).hexdigest() + body


def unsealed(stored: object) -> str:
    """The body of a row `sealed` wrote; raises ValueError when the row does not match its digest."""
    if not isinstance(stored, str) or len(stored) < _SEAL:
        raise ValueError("not a sealed row")
    body = stored[_SEAL:]
    if sealed(body)[:_SEAL] != stored[:_SEAL]:
        raise ValueError("row damaged: its digest does not match")
    return body


def _damaged(error: sqlite3.Error) -> bool:
    """A file that is not, or no longer, an SQLite database (not a locked or read-only one)."""
    text = str(error)
    return "not a database" in text or "malformed" in text


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def plain_findings(findings: list[Finding]) -> list[dict[str, Any]]:
    """Findings as JSON-ready data (`findings_from_plain` reads them back)."""
    return [_plain(f) for f in findings]


def findings_from_plain(value: Any) -> list[Finding]:
    """Findings from `plain_findings`' data, every field type-checked; raises ValueError,
    TypeError, KeyError or AttributeError on anything else."""
    if not isinstance(value, list):
        raise TypeError("expected a list of findings")
    return [_finding(item) for item in value]


def _plain(finding: Finding) -> dict[str, Any]:
    fix = finding.fix
    return {
        "code": finding.code, "name": finding.name, "message": finding.message,
        "severity": finding.severity.value, "span": _plain_span(finding.span), "url": finding.url,
        "related": [{"span": _plain_span(r.span), "message": r.message, "path": r.path} for r in finding.related],
        "fix": None if fix is None else {
            "title": fix.title, "applicability": fix.applicability.value,
            "edits": [{"span": _plain_span(e.span), "content": e.content} for e in fix.edits],
            "step": fix.step,
        },
        "after": finding.after,
    }


def _plain_span(span: Span) -> list[int]:
    return [span.start.line, span.start.column, span.end.line, span.end.column]


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError("expected a boolean")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _span(value: object) -> Span:
    if not (isinstance(value, list) and len(value) == 4 and all(type(v) is int and v >= 0 for v in value)):
        raise TypeError("expected four non-negative integers")
    return Span(Position(value[0], value[1]), Position(value[2], value[3]))


def _finding(item: Any) -> Finding:
    """A Finding from its stored form, every field type-checked (raises on anything else)."""
    fix_item = item["fix"]
    fix = None
    if fix_item is not None:
        fix = Fix(
            _str(fix_item["title"]),
            Applicability(fix_item["applicability"]),
            tuple(Edit(_span(e["span"]), _str(e["content"])) for e in fix_item["edits"]),
            _bool(fix_item.get("step", False)),
        )
    return Finding(
        code=_str(item["code"]),
        name=_str(item["name"]),
        message=_str(item["message"]),
        severity=Severity(item["severity"]),
        span=_span(item["span"]),
        fix=fix,
        related=tuple(
            Related(_span(r["span"]), _str(r["message"]), None if r["path"] is None else _str(r["path"]))
            for r in item["related"]
        ),
        url=_str(item["url"]),
        after=_line(item["after"]),
    )


def _line(value: object) -> int | None:
    if value is not None and not (type(value) is int and value > 0):
        raise TypeError("expected a line number or None")
    return value
