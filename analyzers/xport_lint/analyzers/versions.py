"""Which torch the findings speak for: the measured versions, a rule fact's version range, and
the target of a run (`target-torch`, else the torch installed in this interpreter, read from its
package metadata without importing it, else the newest version the facts cover)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

#: (major, minor): facts differ between minor releases, never between patch releases measured
TorchVersion = tuple[int, int]

#: the versions every rule example is run on (truth harness, bench/versions.py)
MEASURED: tuple[TorchVersion, ...] = ((2, 13), (2, 14), (2, 15))
OLDEST, NEWEST = MEASURED[0], MEASURED[-1]
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)(?:\.\d+)?(?:[+.-].*)?\s*$")


def parse(text: str) -> TorchVersion | None:
    """`"2.14"`, `"2.14.1"` or `"2.14.1+cu130"` -> (2, 14); None if it is no version."""
    match = _VERSION.match(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def show(version: TorchVersion) -> str:
    return f"{version[0]}.{version[1]}"


@dataclass(frozen=True)
class Versions:
    """An inclusive range of torch versions a fact holds for (`last` None: and every later one)."""

    first: TorchVersion = OLDEST
    last: TorchVersion | None = None

    def __contains__(self, version: object) -> bool:
        return isinstance(version, tuple) and self.first <= version and (self.last is None or version <= self.last)

    def __str__(self) -> str:
        if self.last is None:
            return f"torch {show(self.first)}+" if self.first != OLDEST else "every measured torch"
        if self.first == self.last:
            return f"torch {show(self.first)}"
        return f"torch {show(self.first)}–{show(self.last)}"

    @property
    def everywhere(self) -> bool:
        return self.first <= OLDEST and self.last is None


ALL = Versions()


@cache
def installed() -> str | None:
    """The version of the torch distribution this interpreter would import (not imported)."""
    import importlib.metadata  # a tenth of the language server's start-up: imported when asked

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class Target:
    """The torch version a run judges for: `version` is a measured one; `note` says once why
    it is not the one asked for or installed (outside the measured range)."""

    version: TorchVersion
    source: str
    note: str | None = None

    def __str__(self) -> str:
        return show(self.version)


def resolve(asked: str | None) -> Target:
    """`asked` (the `target-torch` setting, already validated) or the installed torch, mapped
    onto the measured versions: outside them, the nearest one, said in `note` (not guessed)."""
    if asked is not None:
        wanted, source = parse(asked), "target-torch"
    else:
        found = installed()
        wanted, source = (parse(found), "the installed torch") if found else (None, "")
    if wanted is None:
        return Target(NEWEST, "the newest measured torch")
    if wanted in MEASURED:
        return Target(wanted, source)
    nearest = OLDEST if wanted < OLDEST else NEWEST
    return Target(
        nearest,
        source,
        note=(
            f"torch {show(wanted)} ({source}) is outside the versions xport-lint's facts are measured on "
            f"({show(OLDEST)}–{show(NEWEST)}): findings are those of torch {show(nearest)}"
        ),
    )
