"""One Config, fed from `[tool.xport-lint]` in pyproject.toml and overridden by CLI flags or
editor settings. Unknown keys and bad values raise ConfigError with the offending key."""

from __future__ import annotations

import dataclasses
import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from . import registry
from .model import Mode, Severity


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
    #: directory the pyproject.toml was found in (globs are relative to it)
    root: Path | None = None

    @property
    def mode(self) -> Mode:
        return Mode.STRICT if self.strict else Mode.NON_STRICT

    def enabled(self, path: str | None = None) -> frozenset[str]:
        if self.select:
            codes = registry.select(list(self.select))
        else:
            codes = {c for c, rule in registry.RULES.items() if rule.DEFAULT_ENABLED}
        codes |= registry.select(list(self.extend_select))
        codes -= registry.select(list(self.ignore))
        if path is not None:
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
                return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
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

    def merged(self, **overrides: Any) -> Config:
        """This config with the non-None overrides applied (CLI flags, editor settings)."""
        values = {k: v for k, v in overrides.items() if v is not None}
        return dataclasses.replace(self, **values)

    @classmethod
    def from_table(cls, table: dict[str, Any], root: Path | None = None) -> Config:
        known = {"select", "extend-select", "ignore", "per-file-ignores", "exclude", "strict",
                 "severity", "examples"}
        unknown = set(table) - known
        if unknown:
            raise ConfigError(f"unknown [tool.xport-lint] key(s): {', '.join(sorted(unknown))}")
        severity: dict[str, Severity] = {}
        for code, level in dict(table.get("severity", {})).items():
            try:
                severity[code.upper()] = Severity(level)
            except ValueError:
                raise ConfigError(
                    f"severity.{code}: {level!r} is not one of error, warning, info"
                ) from None
        examples = dict(table.get("examples", {}))
        if not all(isinstance(v, str) and ":" in v for v in examples.values()):
            raise ConfigError('examples: expected "package.Model" = "package.module:function" entries')
        strict = table.get("strict", False)
        if not isinstance(strict, bool):
            raise ConfigError("strict: expected true or false")
        return cls(
            select=_codes(table, "select"),
            extend_select=_codes(table, "extend-select"),
            ignore=_codes(table, "ignore"),
            per_file_ignores={
                k: tuple(v) for k, v in dict(table.get("per-file-ignores", {})).items()
            },
            exclude=tuple(table.get("exclude", ())),
            strict=strict,
            severity=severity,
            examples=examples,
            root=root,
        )

    @classmethod
    def discover(cls, start: Path) -> Config:
        """The config of the nearest pyproject.toml with a `[tool.xport-lint]` table."""
        pyproject = find_pyproject(start)
        if pyproject is None:
            return cls(root=None)
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{pyproject}: {error}") from None
        table = data.get("tool", {}).get("xport-lint", {})
        return cls.from_table(table, root=pyproject.parent)


def find_pyproject(start: Path) -> Path | None:
    current = start.resolve()
    if current.is_file():
        current = current.parent
    for directory in (current, *current.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "[tool.xport-lint" in text:
                return candidate
    return None


def _codes(table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key, ())
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key}: expected a list of rule codes or prefixes")
    return tuple(value)
