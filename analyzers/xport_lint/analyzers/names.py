"""Resolve dotted names through the file's imports, in one cheap pass.

libcst's QualifiedNameProvider would do this, at roughly ten times the cost of parsing; model
files import torch in a handful of well-known ways, so a table of import aliases is enough.
"""

from __future__ import annotations

import sys

import libcst as cst


def dotted(node: cst.BaseExpression) -> str | None:
    """`torch.nn.functional` for the expression `torch.nn.functional`; None if not a name chain."""
    # exact type checks: isinstance against libcst's class hierarchy is slow, and this runs for
    # every call and attribute of traced code
    node_type = type(node)
    if node_type is cst.Name:
        return node.value  # type: ignore[attr-defined]
    if node_type is not cst.Attribute:
        return None
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportTable:
    """Local name -> fully qualified name, for every import in the file (at any depth)."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}

    def add(self, stmt: cst.Import | cst.ImportFrom) -> None:
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                full = _module_name(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.aliases[alias.asname.name.value] = full
                else:
                    root = full.split(".")[0]
                    self.aliases[root] = root
            return
        if stmt.relative or stmt.module is None:
            base = "." * len(stmt.relative) + (_module_name(stmt.module) if stmt.module else "")
        else:
            base = _module_name(stmt.module)
        if isinstance(stmt.names, cst.ImportStar):
            return
        for alias in stmt.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            # `from . import helpers` is `.helpers` (one level up from the file), not `..helpers`
            self.aliases[local] = f"{base}{name}" if base.endswith(".") else f"{base}.{name}"

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """Fully qualified name of a name chain, or None when its root is not an import."""
        name = dotted(node)
        if name is None:
            return None
        root, _, rest = name.partition(".")
        full = self.aliases.get(root)
        if full is None:
            return None
        return f"{full}.{rest}" if rest else full

    def imports_torch(self) -> bool:
        return any(v == "torch" or v.startswith("torch.") for v in self.aliases.values())


def is_standard_library(qualified: str) -> bool:
    """`abc.ABC`, `typing.Generic`, `object`: a name no model library defines."""
    return "." not in qualified or qualified.partition(".")[0] in sys.stdlib_module_names
