"""xport-lint's static engine: finds torch.export hazards in PyTorch model code.

Pure: imports libcst, never torch, pygls or lsprotocol (a test enforces it). The names below
load on first use, so `from xport_lint.analyzers.model import Finding` costs no libcst import
(the language server answers `initialize` before it needs the parser).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import Config
    from .model import Applicability, Edit, Finding, Fix, Mode, Position, Related, Severity, Span
    from .runner import check_source

_EXPORTS = {
    "Config": "config",
    "check_source": "runner",
    **{name: "model" for name in ("Applicability", "Edit", "Finding", "Fix", "Mode", "Position", "Related",
                                  "Severity", "Span")},
}
__all__ = [
    "Applicability", "Config", "Edit", "Finding", "Fix", "Mode", "Position", "Related", "Severity", "Span",
    "check_source",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
