"""One Config, fed from `[tool.xport-lint]` in pyproject.toml and overridden by CLI flags or
editor settings. Unknown keys and bad values raise ConfigError with the offending key."""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import functools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from . import registry
from .model import Mode, Severity
from .shapes import DimSpec, read_table
from .versions import MEASURED, Target, parse, resolve, show


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    strict: bool = False
    severity: dict[str, Severity] = field(default_factory=dict)
    #: model dotted path -> "package.module:function" giving its confirmation example
    examples: dict[str, str] = field(default_factory=dict)
    #: folders outside the linted paths whose code the project index follows (a library the
    #: models subclass and call): reported only where traced code of the linted paths reaches
    follow: tuple[str, ...] = ()
    #: what an input dimension is when nothing declares it: "static" (torch.export's default) or
    #: "dynamic" (every dimension Dim.AUTO: for library authors whose users choose)
    shapes: str = "static"
    #: `[tool.xport-lint.dynamic-shapes]`: model class -> its inputs' dynamic dimensions
    dynamic_shapes: dict[str, tuple[tuple[str, tuple[tuple[int, DimSpec], ...]], ...]] = field(default_factory=dict)
    #: the torch version findings speak for, "2.14" (None: the installed torch, else the newest
    #: measured); see versions.resolve
    target_torch: str | None = None
    #: directory the pyproject.toml was found in (globs are relative to it)
    root: Path | None = None

    @property
    def mode(self) -> Mode:
        return Mode.STRICT if self.strict else Mode.NON_STRICT

    @functools.cached_property
    def target(self) -> Target:
        """The measured torch version this run judges for (and a note when it is not the one asked)."""
        return resolve(self.target_torch)

    @functools.cached_property
    def _enabled_everywhere(self) -> frozenset[str]:
        if self.select:
            codes = registry.select(list(self.select))
        else:
            codes = {c for c, rule in registry.RULES.items() if rule.DEFAULT_ENABLED}
        codes |= registry.select(list(self.extend_select))
        codes -= registry.select(list(self.ignore))
        return frozenset(codes)

    def enabled(self, path: str | None = None) -> frozenset[str]:
        codes = set(self._enabled_everywhere)
        if path is not None and self.per_file_ignores:
            relative = self._relative(path)
            for pattern, ignored in self.per_file_ignores.items():
                if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(
                    PurePath(relative).name, pattern
                ):
                    codes -= registry.select(list(ignored))
        return frozenset(codes)

    def _relative(self, path: str) -> str:
        if self.root is not None:
            try:
                return Path(os.path.realpath(path)).relative_to(os.path.realpath(self.root)).as_posix()
            except ValueError:
                pass
        return PurePath(path).as_posix()

    def example_for(self, path: str, class_names: list[str]) -> str | None:
        """The `[tool.xport-lint.examples]` provider for a model class defined in `path`."""
        if not self.examples:
            return None
        dotted = self._relative(path).removesuffix(".py").replace("/", ".")
        candidates = {dotted, dotted.removeprefix("src.")}
        for name in class_names:
            for module in candidates:
                provider = self.examples.get(f"{module}.{name}")
                if provider is not None:
                    return provider
        return None

    def followed_folders(self) -> list[str]:
        """`follow`, as paths (relative to the pyproject.toml that names them)."""
        return [str(Path(self.root or ".") / folder) for folder in self.follow]

    def merged(self, **overrides: Any) -> Config:
        """This config with the non-None overrides applied (CLI flags, editor settings)."""
        values = {k: v for k, v in overrides.items() if v is not None}
        return dataclasses.replace(self, **values)

    @classmethod
    def from_table(cls, table: dict[str, Any], root: Path | None = None) -> Config:
        known = {"select", "extend-select", "ignore", "per-file-ignores", "exclude", "strict",
                 "severity", "examples", "follow", "shapes", "dynamic-shapes", "target-torch"}
        unknown = set(table) - known
        if unknown:
            hints = []
            for key in sorted(unknown):
                close = difflib.get_close_matches(key.replace("_", "-"), known, 1)
                hints.append(f"{key} (did you mean {close[0]}?)" if close else key)
            raise ConfigError(f"unknown key(s): {', '.join(hints)}")
        severity: dict[str, Severity] = {}
        for code, level in _mapping(table, "severity").items():
            if code.upper() not in registry.RULES:
                raise ConfigError(f"severity.{code}: unknown rule code")
            try:
                severity[code.upper()] = Severity(level)
            except ValueError:
                raise ConfigError(f"severity.{code}: {level!r} is not one of error, warning, info") from None
        examples = _mapping(table, "examples")
        if not all(isinstance(v, str) and ":" in v for v in examples.values()):
            raise ConfigError('examples: expected "package.Model" = "package.module:function" entries')
        strict = table.get("strict", False)
        if not isinstance(strict, bool):
            raise ConfigError("strict: expected true or false")
        follow = _strings(table.get("follow", ()), "follow", 'a list of folders, e.g. ["../vendor/layers"]')
        for folder in follow:
            target = Path(root or ".") / folder
            if not target.is_dir():
                raise ConfigError(f"follow: {folder}: no such folder (relative to {root or Path.cwd()})")
            resolved = target.resolve()
            if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
                # a cloned repository's config must not send the run through the whole disk
                raise ConfigError(f"follow: {folder}: the filesystem root or the home folder; name the library")
        shapes = table.get("shapes", "static")
        if shapes not in ("static", "dynamic"):
            raise ConfigError(
                'shapes: expected "static" (the default: what export does without dynamic_shapes) or "dynamic"'
            )
        try:
            dynamic_shapes = read_table(table.get("dynamic-shapes", {}), "dynamic-shapes")
        except ValueError as error:
            raise ConfigError(str(error)) from None
        target_torch = table.get("target-torch")
        if target_torch is not None:
            target_torch = torch_version(target_torch, "target-torch")
        return cls(
            target_torch=target_torch,
            shapes=shapes,
            dynamic_shapes=dynamic_shapes,
            select=_codes(table.get("select", ()), "select"),
            extend_select=_codes(table.get("extend-select", ()), "extend-select"),
            ignore=_codes(table.get("ignore", ()), "ignore"),
            per_file_ignores={
                pattern: _codes(codes, f"per-file-ignores.{pattern}")
                for pattern, codes in _mapping(table, "per-file-ignores").items()
            },
            exclude=_strings(table.get("exclude", ()), "exclude", "a list of gitignore-style patterns"),
            strict=strict,
            severity=severity,
            examples=examples,
            follow=follow,
            root=root,
        )

    @classmethod
    def discover(cls, start: Path, boundary: Path | None = None) -> Config:
        """The config of the nearest pyproject.toml with a `[tool.xport-lint]` table, searched from
        `start` up to `boundary` (default: `workspace_root(start)`), never above it: a
        pyproject.toml beside a checkout must not change how the checkout is linted."""
        pyproject = find_pyproject(start, boundary)
        if pyproject is None:
            return cls(root=None)
        return cls.load(pyproject)

    @classmethod
    def load(cls, pyproject: Path) -> Config:
        """The `[tool.xport-lint]` table of this file (one the user named, or the one found)."""
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{pyproject}: {error}") from None
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{pyproject}: `tool` must be a table")
        for misspelt in _MISSPELT_TABLES:
            if misspelt in tool:
                # a typo'd table name would otherwise be a silently unread configuration
                raise ConfigError(f"{pyproject}: [tool.{misspelt}] is not read: the table is [tool.xport-lint]")
        table = tool.get("xport-lint", {})
        if not isinstance(table, dict):
            raise ConfigError(
                f"{pyproject}: tool.xport-lint must be a table ([tool.xport-lint] with keys under it), "
                f"not {type(table).__name__} {table!r}"
            )
        try:
            return cls.from_table(table, root=pyproject.parent)
        except ConfigError as error:
            raise ConfigError(f"{pyproject}: [tool.xport-lint] {error}") from None


_VCS_MARKERS = (".git", ".hg", ".svn")
#: table names a user may mean for [tool.xport-lint]: reported, never silently ignored
_MISSPELT_TABLES = ("xport_lint", "xportlint", "xport-linter", "xport_linter")
#: text that makes a pyproject.toml worth parsing: any spelling of the table name
_MENTIONS = re.compile(r"xport[-_]?lint")


def workspace_root(start: Path) -> Path:
    """Where a search for configuration stops: the repository that holds `start` (the nearest
    folder with `.git`, `.hg` or `.svn`), else the current folder when `start` is inside it,
    else `start`'s own folder."""
    current = _folder(start)
    for directory in (current, *current.parents):
        if any((directory / marker).exists() for marker in _VCS_MARKERS):
            return directory
    cwd = Path(os.path.realpath(os.getcwd()))
    if current == cwd or cwd in current.parents:
        return cwd
    return current


def _folder(start: Path) -> Path:
    """`start` if it is a folder, else its parent; symlinks resolved without raising on loops."""
    current = Path(os.path.realpath(start))
    return current if current.is_dir() else current.parent


def find_pyproject(start: Path, boundary: Path | None = None) -> Path | None:
    current = _folder(start)
    stop = Path(os.path.realpath(boundary or workspace_root(start)))
    if current != stop and stop not in current.parents:
        return None  # `start` lies outside the boundary: nothing of the boundary's applies
    for directory in (current, *current.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            if "[tool.xport-lint" in text or (_MENTIONS.search(text) and _names_our_table(text)):
                return candidate
        if directory == stop:
            break
    return None


def _names_our_table(text: str) -> bool:
    """Whether a pyproject.toml that mentions xport-lint other than as `[tool.xport-lint]`
    (`tool.xport-lint = 1`, `[tool.xport_lint]`) has such a key under `tool`: found, so that
    `load` reports it. A file that does not parse is found too, for the same reason."""
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return True
    return isinstance(tool, dict) and any(name in tool for name in ("xport-lint", *_MISSPELT_TABLES))


def torch_version(value: object, key: str) -> str:
    """A `target-torch` value: "2.14" or "2.14.1" (a version outside the measured ones is
    accepted and said once per run, by versions.resolve)."""
    if not isinstance(value, str) or parse(value) is None:
        measured = ", ".join(f'"{show(v)}"' for v in MEASURED)
        raise ConfigError(f"{key}: expected a torch version such as {measured}, not {value!r}")
    return value.strip()


def _mapping(table: dict[str, Any], key: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{key}: expected a table, e.g. {key} = {{ ... }}")
    return value


def _strings(value: object, key: str, what: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key}: expected {what}")
    return tuple(value)


def _codes(value: object, key: str) -> tuple[str, ...]:
    """Rule codes or prefixes, each matching at least one rule (`ALL` matches all): a typo must
    not silently select or ignore nothing, and a bare string is not a list of its letters."""
    codes = _strings(value, key, 'a list of rule codes or prefixes, e.g. ["XPT1", "XPT404"]')
    unknown = [c for c in codes if c.strip().upper() != "ALL" and not registry.select([c])]
    if unknown:
        raise ConfigError(f"{key}: unknown rule code or prefix {', '.join(unknown)}")
    return codes
