"""xport-lint's static engine: finds torch.export hazards in PyTorch model code.

Pure: imports libcst, never torch, pygls or lsprotocol (a test enforces it).
"""

from .config import Config
from .model import Applicability, Edit, Finding, Fix, Mode, Position, Related, Severity, Span
from .runner import check_source

__all__ = [
    "Applicability",
    "Config",
    "Edit",
    "Finding",
    "Fix",
    "Mode",
    "Position",
    "Related",
    "Severity",
    "Span",
    "check_source",
]
