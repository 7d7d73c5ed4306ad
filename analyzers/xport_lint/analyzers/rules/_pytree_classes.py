"""Classes that are no pytree node: what torch.export cannot flatten, as an output (XPT415) or an
example input (XPT416)."""

from __future__ import annotations

import libcst as cst

from ..names import dotted
from ..walk import iter_nodes

#: what registers a class as a pytree node, as the last name of the call or decorator
#: (`torch.utils._pytree.register_dataclass`, `register_pytree_node`, a library's own wrapper)
_REGISTERS = (
    "register_dataclass",
    "register_pytree_node",
    "_register_pytree_node",
    "register_pytree_node_class",
    "register_constant",
)


def unregistered_class(module: cst.Module, name: str) -> cst.ClassDef | None:
    """The class `name` of the module when it derives from nothing but `object` (a dataclass or a
    plain class) and the module does not register it as a pytree node; None otherwise."""
    classes = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    cls = classes.get(name)
    if cls is None or not _plain(cls, classes) or _registered(module, name):
        return None
    return cls


def not_a_pytree_node(named: str, words: str, advice: str) -> str:
    """The message tail both rules report: the class, that export fails on it (torch's `words`
    for the mode), and what to do."""
    return f"`{named}`, which is not a pytree node: export fails on it ({words}; {advice})"


def displayed_parts(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`value` and, for a tuple, list or dict display, its elements (values)."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return [e.value for e in value.elements if isinstance(e, cst.Element)]
    if isinstance(value, cst.Dict):
        return [e.value for e in value.elements if isinstance(e, cst.DictElement)]
    return [value]


def _plain(cls: cst.ClassDef, classes: dict[str, cst.ClassDef], seen: frozenset[str] = frozenset()) -> bool:
    """`cls` derives from nothing but `object` and other such classes of the file (so no
    NamedTuple, tuple, dict, Enum, tensor subclass or library class that may be registered)."""
    for base in cls.bases:
        if base.keyword is not None or not isinstance(base.value, cst.Name):
            return False
        name = base.value.value
        if name == "object":
            continue
        parent = classes.get(name)
        if parent is None or name in seen or not _plain(parent, classes, seen | {cls.name.value}):
            return False
    return not any(_registers(d.decorator) for d in cls.decorators)


def _registers(expr: cst.BaseExpression) -> bool:
    target = expr.func if isinstance(expr, cst.Call) else expr
    return (dotted(target) or "").rpartition(".")[2] in _REGISTERS


def _registered(module: cst.Module, name: str) -> bool:
    """The file registers the class `name` as a pytree node (a call whose first argument it is)."""
    return any(
        isinstance(node, cst.Call)
        and _registers(node)
        and node.args
        and isinstance(node.args[0].value, cst.Name)
        and node.args[0].value.value == name
        for node in iter_nodes(module)
    )
