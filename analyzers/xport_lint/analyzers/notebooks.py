"""Jupyter notebooks (nbformat 4) as one Python module, as ruff lints them: the code cells in
order, each IPython magic line neutralised, so that a model class in one cell and the helper it
calls in another are analysed together. Findings map back to `cell N, line L`; a fix of the
module maps back to the code cells' `source`, every other part of the JSON kept. Read with the
standard `json` module; nothing in a notebook is ever executed."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .model import Edit, Finding, Position, Span

#: the line between two cells in the module (a comment: analysis never sees it)
BOUNDARY = "# ---- xport-lint: next notebook cell ----"
#: what an IPython magic line becomes (a statement, so that a block holding only it still parses)
MAGIC = "pass  # xport-lint: IPython magic"
#: cell magics whose body is still Python run by the kernel (the others hold other languages)
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
#: `%magic`, `!shell`, `x = %magic` / `x = !shell`, `obj?` / `??obj` (IPython's own syntax)
_MAGIC_LINE = re.compile(r"\s*(?:[%!]|[\w.]+\s*=\s*[%!]|\?\??[\w.]+\s*$|[\w.]+\?\??\s*$)")


class NotebookError(ValueError):
    """A file that is not an nbformat 4 notebook, or a fix that cannot be mapped back to cells."""


@dataclass(frozen=True)
class Cell:
    """One code cell as it is in the module."""

    #: 1-based among all the notebook's cells (markdown too), as ruff and Jupyter number them
    number: int
    #: its first line in the module (1-based) and how many lines it has there
    start: int
    length: int
    #: the lines that were IPython magics, in order, as written in the cell
    magics: tuple[str, ...]
    #: whether the cell's source ended with a newline (the module's copy always does)
    ends_with_newline: bool


@dataclass(frozen=True)
class Notebook:
    """A notebook read from `raw`, and where each code cell is in the module `text`."""

    raw: bytes
    text: str
    cells: tuple[Cell, ...]
    indent: int | None

    def locate(self, line: int) -> tuple[int, int]:
        """The cell number and the line in it of module line `line` (1-based both). A line
        between cells (the boundary comment) belongs to the cell before it."""
        chosen = self.cells[0] if self.cells else Cell(1, 1, 0, (), True)
        for cell in self.cells:
            if cell.start > line:
                break
            chosen = cell
        return chosen.number, max(line - chosen.start + 1, 1)

    def in_cell(self, finding: Finding) -> tuple[int, Finding]:
        """The number of the cell `finding` is in, and the finding in that cell's own lines (as
        an editor shows one cell per document). A fix that also edits another cell is left out,
        and so are notes in other cells."""
        number, _ = self.locate(finding.span.start.line)

        def moved(span: Span) -> Span | None:
            (cell, start), (end_cell, end) = self.locate(span.start.line), self.locate(span.end.line)
            if cell != number or end_cell != number:
                return None
            return Span(Position(start, span.start.column), Position(end, span.end.column))

        span = moved(finding.span) or finding.span
        fix = finding.fix
        if fix is not None:
            edits = [(moved(e.span), e.content) for e in fix.edits]
            fix = replace(fix, edits=tuple(Edit(s, c) for s, c in edits if s is not None)) if all(
                s is not None for s, _ in edits) else None
        related = tuple(
            replace(r, span=moved(r.span)) for r in finding.related if r.path is None and moved(r.span) is not None
        ) + tuple(r for r in finding.related if r.path is not None)
        return number, replace(finding, span=span, fix=fix, related=related)

    def render(self, text: str) -> bytes:
        """The notebook's bytes with `text` (a fix of `self.text`) as its code cells' source.
        Raises NotebookError when a fix crossed a cell boundary or dropped a magic line."""
        if text == self.text:
            return self.raw
        chunks = _split_cells(text)
        if len(chunks) != len(self.cells):
            raise NotebookError("a fix spans two cells; fix it by hand")
        data = json.loads(self.raw.decode("utf-8-sig"))
        for cell, chunk, before in zip(self.cells, chunks, _split_cells(self.text), strict=True):
            if chunk == before:
                continue  # written as it was (its line endings too)
            source = _restore_magics(chunk, cell.magics)
            if not cell.ends_with_newline:
                source = source.removesuffix("\n")
            entry = data["cells"][cell.number - 1]
            entry["source"] = source.splitlines(keepends=True) if isinstance(entry["source"], list) else source
        out = json.dumps(data, indent=self.indent, ensure_ascii=not _keeps_unicode(self.raw))
        return (out + "\n" if self.raw.rstrip(b" \t").endswith(b"\n") else out).encode("utf-8")

    def diff(self, path: str, text: str) -> str:
        """A unified diff per changed code cell (headed `path:cell N`, as ruff's), from this
        module to `text`."""
        out: list[str] = []
        chunks = _split_cells(text)
        if len(chunks) != len(self.cells) or any(
            _count_magics(chunk) != len(cell.magics) for cell, chunk in zip(self.cells, chunks, strict=True)
        ):  # not writable as it is (render says why): the module's own diff
            return "".join(difflib.unified_diff(self.text.splitlines(True), text.splitlines(True), path, path))
        for cell, chunk, before in zip(self.cells, chunks, _split_cells(self.text), strict=True):
            if chunk != before:
                name = f"{path}:cell {cell.number}"
                old, new = _restore_magics(before, cell.magics), _restore_magics(chunk, cell.magics)
                out.extend(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{name}", f"b/{name}"))
        return "".join(out)


def parse_notebook(raw: bytes) -> Notebook:
    """The notebook in `raw` as a module. Raises NotebookError saying what is wrong."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise NotebookError(f"not a notebook: not UTF-8 ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise NotebookError(f"not a notebook: invalid JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a notebook: no list of `cells`")
    if data.get("nbformat") != 4:
        raise NotebookError(f"not an nbformat 4 notebook (nbformat: {data.get('nbformat')!r})")
    sources: list[str | None] = []
    for number, entry in enumerate(data["cells"], start=1):
        if not isinstance(entry, dict) or entry.get("cell_type") not in ("code", "markdown", "raw"):
            raise NotebookError(f"not a notebook: cell {number} has no known `cell_type`")
        source = "".join(_source_lines(entry, number))
        sources.append(source if entry["cell_type"] == "code" else None)
    return from_cells(sources, raw)


def from_cells(sources: Sequence[str | None], raw: bytes = b"") -> Notebook:
    """The module of a notebook whose cells hold `sources` (None: a markdown or raw cell), as
    an editor holds one open; `raw`: the file they were read from."""
    lines: list[str] = []
    cells: list[Cell] = []
    for number, source in enumerate(sources, start=1):
        if source is None or _foreign_cell_magic(source):
            continue
        body, magics = _neutralise(source)
        if cells:
            lines.append(BOUNDARY + "\n")
        cells.append(Cell(number, len(lines) + 1, len(body), tuple(magics), source.endswith("\n") or not source))
        lines.extend(body)
    return Notebook(raw, "".join(lines), tuple(cells), _indent(raw))


def _source_lines(entry: dict[str, Any], number: int = 0) -> list[str]:
    source = entry.get("source", "")
    if isinstance(source, str):
        return [source]
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return source
    raise NotebookError(f"not a notebook: cell {number} has a `source` that is not text")


def _foreign_cell_magic(source: str) -> bool:
    """A cell run by a cell magic (`%%bash`, `%%writefile`): not Python, left out as ruff does."""
    first = source.lstrip().split("\n", 1)[0]
    if not first.startswith("%%"):
        return False
    name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
    return name not in _PYTHON_CELL_MAGICS


def _neutralise(source: str) -> tuple[list[str], list[str]]:
    """The cell's lines (each ending in a newline) with each magic line made `pass`, and the
    magic lines as written."""
    body: list[str] = []
    magics: list[str] = []
    scanner = _Scanner()
    for line in source.splitlines():
        if scanner.at_statement_start and _MAGIC_LINE.match(line):
            magics.append(line)
            body.append(line[: len(line) - len(line.lstrip())] + MAGIC + "\n")
        else:
            scanner.feed(line)
            body.append(line + "\n")
    return body, magics


class _Scanner:
    """Whether the next line starts a statement: not inside brackets, a string or after a
    backslash (`% x` continuing `("a"` is Python, as is a docstring line starting with `!`)."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's quote (`'`, `"`, `'''` or `"""`)
        self.continued = False

    @property
    def at_statement_start(self) -> bool:
        return not (self.depth or self.quote or self.continued)

    def feed(self, line: str) -> None:
        i = 0
        while i < len(line):
            char = line[i]
            if self.quote:
                if char == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = ""
                    continue
            elif char == "#":
                break
            elif char in "'\"":
                self.quote = line[i : i + 3] if line.startswith(char * 3, i) else char
                i += len(self.quote)
                continue
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            i += 1
        if self.quote in ("'", '"'):
            self.quote = ""  # an unterminated one-line string: a syntax error the parser reports
        self.continued = line.endswith("\\") and not self.quote


def _split_cells(text: str) -> list[str]:
    """The module's text cut at the boundary lines: one chunk per code cell."""
    chunks: list[list[str]] = [[]]
    for line in text.splitlines(keepends=True):
        if line.rstrip("\r\n") == BOUNDARY:
            chunks.append([])
        else:
            chunks[-1].append(line)
    return ["".join(chunk) for chunk in chunks]


def _count_magics(chunk: str) -> int:
    return sum(line.strip() == MAGIC for line in chunk.splitlines())


def _restore_magics(chunk: str, magics: tuple[str, ...]) -> str:
    lines = chunk.splitlines(keepends=True)
    placeholders = [i for i, line in enumerate(lines) if line.strip() == MAGIC]
    if len(placeholders) != len(magics):
        raise NotebookError("a fix removed an IPython magic line; fix it by hand")
    for i, magic in zip(placeholders, magics, strict=True):
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = indent + magic.lstrip() + "\n"
    return "".join(lines)


def _indent(raw: bytes) -> int | None:
    """The file's JSON indentation (Jupyter writes 1 space); None for a one-line file."""
    match = re.search(rb"\n( *)\S", raw)
    return len(match.group(1)) if match else None


def _keeps_unicode(raw: bytes) -> bool:
    """Whether the file holds non-ASCII characters as themselves (Jupyter does), not as `\\u` escapes."""
    return any(byte > 127 for byte in raw) or b"\\u" not in raw
