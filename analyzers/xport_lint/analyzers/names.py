"""Resolve dotted names through the file's imports, in one cheap pass.

libcst's QualifiedNameProvider would do this, at roughly ten times the cost of parsing; model
files import torch in a handful of well-known ways, so a table of import aliases is enough.
"""

from __future__ import annotations

import json
import re
import sys
from functools import cache
from pathlib import Path

import libcst as cst

from .fact_store import PerStatement

#: the methods of a module class calling the module runs with its arguments: `forward`, and a
#: `__call__` override, which runs first in both export modes, for the exported module and for a
#: submodule (measured on torch 2.13, tests/truth/test_call_override.py; torch_geometric's
#: `Aggregation.__call__` fills `dim_size` from the index before `super().__call__` runs `forward`)
ENTRY_METHODS = ("__call__", "forward")


def is_entry_method(func: cst.FunctionDef) -> bool:
    """`forward` or `__call__`: its arguments are the module's, as its caller passes them."""
    return func.name.value in ENTRY_METHODS


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


def self_attribute(node: cst.BaseExpression) -> str | None:
    """`x` for the expression `self.x`; None for anything else."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


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


#: a Python scalar type in a docstring, `int`, `Optional[int]`, `int or None`, `int, optional`
_SCALAR = r"(?:Optional\[)?(?:int|float|bool|str)\]?(?:\s+or\s+None)?(?:\s*,\s*optional)?"
#: a parameter a docstring types as a Python scalar: `current_epoch: int` or `num_nodes : int,
#: optional` on a line of its own (numpy, speechbrain), `num_nodes (int, optional): ...` (Google),
#: `:type num_nodes: int` (Sphinx)
_DOCUMENTED_SCALAR = re.compile(
    rf"^\s*(?:(\w+)\s*:\s*{_SCALAR}\s*$|(\w+)\s*\(\s*{_SCALAR}\s*\)\s*:|:type\s+(\w+)\s*:\s*{_SCALAR}\s*$)",
    re.MULTILINE,
)


def _documented_python_scalars(func: cst.CSTNode) -> frozenset[str]:
    assert isinstance(func, cst.FunctionDef)
    docstring = func.get_docstring(clean=False)
    if not docstring:
        return frozenset()
    return frozenset(next(name for name in match.groups() if name) for match in _DOCUMENTED_SCALAR.finditer(docstring))


#: the parameters a function's docstring types as Python scalars: a caller passes a number, flag or
#: string there (a tensor passed is the caller's bug), as an annotation `int` says
documented_python_scalars: PerStatement[frozenset[str]] = PerStatement(_documented_python_scalars)


#: torch.Tensor's callable attributes on torch 2.13, its methods (`is_cuda`, `requires_grad` are
#: properties: called, the receiver is no tensor); regenerate with the torch a release speaks for
TENSOR_METHODS_TABLE = Path(__file__).parent / "data" / "tensor_methods.json"


@cache
def tensor_method_names() -> frozenset[str]:
    """Every method torch.Tensor has: a method outside it (torch_sparse's `SparseTensor.nnz()`,
    `.is_cuda()`, a project class's own) is not a tensor's, whatever the receiver."""
    return frozenset(json.loads(TENSOR_METHODS_TABLE.read_text(encoding="utf-8"))["names"])
