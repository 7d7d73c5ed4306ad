"""CODE -> Rule: every module in `rules/` contributes one rule; codes are unique and stable.

`RULES` is loaded on first use: a second run answered from the cache never imports a rule."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import TYPE_CHECKING, Any

from . import rules as _rules_package

if TYPE_CHECKING:
    from .rule import Rule

    RULES: dict[str, type[Rule]]

CODE_PATTERN = re.compile(r"XPT\d{3}")


def _load() -> dict[str, type[Rule]]:
    from .rule import Rule

    table: dict[str, type[Rule]] = {}
    for info in sorted(pkgutil.iter_modules(_rules_package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{_rules_package.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                if not CODE_PATTERN.fullmatch(value.CODE):
                    raise ValueError(f"{value.__name__}: bad rule code {value.CODE!r}")
                if value.CODE in table:
                    raise ValueError(f"duplicate rule code {value.CODE}")
                table[value.CODE] = value
    return dict(sorted(table.items()))


_table: dict[str, type[Rule]] | None = None


def _rules() -> dict[str, type[Rule]]:
    global _table
    if _table is None:
        _table = _load()
    return _table


def __getattr__(name: str) -> Any:
    if name == "RULES":
        return _rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def select(prefixes: list[str]) -> set[str]:
    """Codes matching any prefix (`XPT1` -> every XPT1xx rule; `ALL` -> every rule)."""
    out: set[str] = set()
    for prefix in prefixes:
        prefix = prefix.strip().upper()
        if prefix == "ALL":
            out.update(_rules())
        else:
            out.update(code for code in _rules() if code.startswith(prefix))
    return out
