"""Which files a run checks, and reading them without ever raising on bad input."""

from __future__ import annotations

import codecs
import io
import os
import stat
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from .notebooks import Notebook, NotebookError, parse_notebook

#: Bigger files are skipped with a notice: generated code, not model code a human edits.
MAX_BYTES = 8 * 1024 * 1024
_ALWAYS_SKIPPED = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".nox",
     ".mypy_cache", ".ruff_cache", ".pytest_cache", "build", "dist", "site-packages",
     ".xport-lint-cache"}
)


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str | None
    #: why `text` is None: unreadable, undecodable, too big or not a regular file
    problem: str | None = None
    skipped: bool = False
    #: how the bytes on disk were decoded, so a fix writes them back the same way
    encoding: str = "utf-8"
    bom: bool = False
    #: a Jupyter notebook: `text` is its code cells as one module (notebooks.py)
    notebook: Notebook | None = None

    def encode(self, text: str) -> bytes:
        """`text` as this file's bytes: its own encoding, its BOM (line endings are in `text`);
        a notebook's JSON with `text` as its code cells (NotebookError when that cannot be)."""
        if self.notebook is not None:
            return self.notebook.render(text)
        data = text.encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.bom else data


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> list[str]:
    """Python files and Jupyter notebooks under `paths`: folders walked (symlinks not followed, so no loops; only
    regular files, so a FIFO cannot hang the run), `.gitignore` and `exclude` respected; paths
    named explicitly are always included, and a folder that cannot be listed is listed itself,
    so that `read` reports it."""
    excluded = pathspec.GitIgnoreSpec.from_lines(exclude)
    found: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(_walk(path, excluded))
        else:
            found.append(str(path))
    return sorted(dict.fromkeys(found))


def _walk(root: Path, excluded: pathspec.PathSpec) -> Iterator[str]:
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    unlistable: list[str] = []
    for directory, subdirs, files in os.walk(root, followlinks=False, onerror=lambda e: unlistable.append(e.filename)):
        here = Path(directory)
        gitignore = here / ".gitignore"
        if gitignore.is_file():
            try:
                lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
                ignores.append((here, pathspec.GitIgnoreSpec.from_lines(lines)))
            except OSError:
                pass

        def ignored(candidate: Path, is_dir: bool) -> bool:
            relative = candidate.relative_to(root).as_posix() + ("/" if is_dir else "")
            if excluded.match_file(relative):
                return True
            for base, spec in ignores:
                if base == candidate or base not in candidate.parents:
                    continue
                inner = candidate.relative_to(base).as_posix() + ("/" if is_dir else "")
                if spec.match_file(inner):
                    return True
            return False

        subdirs[:] = sorted(
            d for d in subdirs if d not in _ALWAYS_SKIPPED and not ignored(here / d, True)
        )
        for name in sorted(files):
            if name.endswith((".py", ".pyi", ".ipynb")) and _regular(here / name) and not ignored(here / name, False):
                yield str(here / name)
    yield from unlistable


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return True  # vanished or unreadable: `read` says which


def read(path: str) -> SourceFile:
    """Decode like Python does (PEP 263 coding cookie, BOM); problems become a message. Only
    regular files are read (opened non-blocking and checked first: a FIFO would block forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return SourceFile(path, None, f"cannot read: {error.strerror or error}")
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return SourceFile(path, None, "cannot read: a folder that could not be listed")
        if not stat.S_ISREG(info.st_mode):
            return SourceFile(path, None, "skipped: not a regular file (a FIFO, socket or device)", True)
        if info.st_size > MAX_BYTES:
            return SourceFile(
                path, None, f"skipped: {info.st_size / 1e6:.1f} MB is over the {MAX_BYTES // 2**20} MB limit", True
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        return SourceFile(path, None, f"cannot read: {error.strerror or error}")
    finally:
        os.close(fd)
    return decode(path, data)


def decode(path: str, data: bytes) -> SourceFile:
    if path.endswith(".ipynb"):
        try:
            notebook = parse_notebook(data)
        except NotebookError as error:
            return SourceFile(path, None, f"cannot parse: {error}")
        return SourceFile(path, notebook.text, notebook=notebook)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        return SourceFile(path, None, f"cannot decode: {error}")
    if "\x00" in text:
        return SourceFile(path, None, "cannot parse: file contains NUL bytes")
    bom = encoding == "utf-8-sig"
    return SourceFile(path, text.removeprefix("\ufeff"), encoding="utf-8" if bom else encoding, bom=bom)


def write_back(source: SourceFile, text: str) -> str | None:
    """Write `text` (a fix of `source.text`) to the file `source` was read from, as it was stored
    (its encoding, its BOM). Returns why it was not written, or None.

    Written in place, as ruff does, so the file stays the same file: a symlink's target is
    written, hard links, mode and owner are kept. Not written when the file no longer holds the
    text the fix was computed from (an edit saved while the run went on: its bytes are compared
    through the same descriptor right before writing), when the file is read-only (judged by
    its mode bits, which root's writes would otherwise ignore), or when `text` needs characters
    the file's encoding cannot hold. A write that fails half-way puts the original bytes back."""
    if source.text is None:
        return "it was not read"
    try:
        data = source.encode(text)
    except UnicodeEncodeError as error:
        return f"it needs characters {source.encoding} cannot hold ({error.reason})"
    except NotebookError as error:
        return str(error)
    try:
        info = os.stat(source.path)
        if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o222:
            return f"the file is read-only (mode {stat.S_IMODE(info.st_mode):04o}); make it writable to fix it"
        fd = os.open(source.path, os.O_RDWR | os.O_NONBLOCK)
    except OSError as error:
        return error.strerror or str(error)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file"
        original = _read_all(fd)
        current = decode(source.path, original)
        if (current.text, current.encoding, current.bom) != (source.text, source.encoding, source.bom) or (
            source.notebook is not None and original != source.notebook.raw  # outputs saved meanwhile
        ):
            return "the file changed since it was read (an edit saved during the run); check it again"
        try:
            _write_all(fd, data)
            os.ftruncate(fd, len(data))
        except OSError as error:
            _write_all(fd, original)  # over the original's own blocks: needs no new space
            os.ftruncate(fd, len(original))
            return error.strerror or str(error)
        moved = os.stat(source.path)
        written = os.fstat(fd)
        if (moved.st_dev, moved.st_ino) != (written.st_dev, written.st_ino):
            return "the file was replaced while it was written (an editor saved it); check it again"
    except OSError as error:
        return error.strerror or str(error)
    finally:
        os.close(fd)
    return None


def _read_all(fd: int) -> bytes:
    """The file's whole content, from its start, through `fd`."""
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    """`data` over the file's start (os.pwrite may write less than asked)."""
    view = memoryview(data)
    offset = 0
    while offset < len(data):
        offset += os.pwrite(fd, view[offset:], offset)
