"""Content-hash cache of findings, so a second run over unchanged files parses nothing.

Key: the engine's own source (any rule change invalidates everything), the enabled codes,
the configured mode and severity overrides, and the file's text.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from .config import Config
from .model import Finding

_FILE = "findings.pickle"
_MAX_ENTRIES = 20_000


def _engine_fingerprint() -> str:
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.entries: dict[str, list[Finding]] = {}
        self._engine = _engine_fingerprint()
        self._dirty = False
        self._used: set[str] = set()
        try:
            with open(directory / _FILE, "rb") as handle:
                loaded = pickle.load(handle)
            if isinstance(loaded, dict) and loaded.get("engine") == self._engine:
                self.entries = loaded["entries"]
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, KeyError, TypeError):
            self.entries = {}

    def key(self, text: str, path: str, config: Config) -> str:
        digest = hashlib.sha256()
        digest.update(",".join(sorted(config.enabled(path))).encode())
        digest.update(config.mode.value.encode())
        digest.update(repr(sorted(config.severity.items())).encode())
        digest.update(text.encode("utf-8", errors="surrogatepass"))
        return digest.hexdigest()

    def get(self, key: str) -> list[Finding] | None:
        self._used.add(key)
        return self.entries.get(key)

    def put(self, key: str, findings: list[Finding]) -> None:
        self._used.add(key)
        self.entries[key] = findings
        self._dirty = True

    def save(self) -> None:
        if not self._dirty:
            return
        if len(self.entries) > _MAX_ENTRIES:  # old versions of edited files pile up otherwise
            self.entries = {k: v for k, v in self.entries.items() if k in self._used}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / ".gitignore").write_text("*\n")
            fd, temp = tempfile.mkstemp(dir=self.directory)
            with os.fdopen(fd, "wb") as handle:
                pickle.dump({"engine": self._engine, "entries": self.entries}, handle)
            os.replace(temp, self.directory / _FILE)
        except OSError:
            pass  # a read-only checkout still lints, just without a cache
