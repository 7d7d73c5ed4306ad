"""What the confirmation worker and repair's probe share: both run as scripts in the *user's*
interpreter (this folder is their `sys.path[0]`), so this module imports nothing of xport-lint's
and touches no process state when imported."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def package_module(path: str) -> tuple[str, str] | None:
    """(the folder above its top package, its dotted name) of a file inside a package (folders
    holding an `__init__.py`), so it can be imported by that name and its relative imports
    (`from .blocks import Block`) resolve; None for a file outside any package."""
    file = Path(path)
    folder, parts = file.parent, [] if file.stem == "__init__" else [file.stem]
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.insert(0, folder.name)
        folder = folder.parent
    if file.parent == folder or not all(part.isidentifier() for part in parts):
        return None
    return str(folder), ".".join(parts)


def normalise(value: Any) -> dict[str, Any]:
    """`(model, args)`, `(model, args, kwargs)` or a dict with those keys and more."""
    if isinstance(value, dict):
        return {"model": value["model"], "args": tuple(value.get("args", ())), "kwargs": value.get("kwargs") or {},
                "dynamic_shapes": value.get("dynamic_shapes"), "strict": value.get("strict")}
    model, args, *rest = value
    return {"model": model, "args": tuple(args), "kwargs": rest[0] if rest else {}, "dynamic_shapes": None,
            "strict": None}


def suggested_fixes(message: str) -> str | None:
    """The lines of torch's "Suggested fixes:" block in an export error, if it has one."""
    marker = "Suggested fixes:"
    if marker not in message:
        return None
    lines = []
    for line in message.split(marker, 1)[1].splitlines():
        if not line.strip():
            if lines:
                break
            continue
        if "The error above" in line or "For more information" in line:
            break
        lines.append(line.strip())
    return "\n".join(lines) or None


def refine_shapes(fixes: str, shapes: Any) -> Any:
    """`shapes` with torch's suggested fixes applied. torch 2.13's
    `refine_dynamic_shapes_from_suggested_fixes` fails on the whole error message (it reads the
    trailing "The error above..." line as a fix), so it gets the fix lines only."""
    from torch.export.dynamic_shapes import refine_dynamic_shapes_from_suggested_fixes

    lines = "\n".join(f"  {line}" for line in fixes.splitlines())
    return refine_dynamic_shapes_from_suggested_fixes(f"Suggested fixes:\n{lines}", shapes)
