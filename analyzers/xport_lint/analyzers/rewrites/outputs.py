"""An output class made a pytree node: a `@dataclass` returned by `forward` registered at module
level, right after its definition, so export flattens it like a tuple and the exported program
hands back the same class.

Measured on torch 2.13 (both modes, equal to eager): `torch.export.register_dataclass(Output)`
exports a dataclass returned alone, in a tuple or in a dict; frozen, with an `Optional` tensor
field left `None`, with a `str` or `int` field, and a dataclass deriving from another.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..model import Applicability
from ..report import BlockReplacement, FixProposal
from .common import Names, Rewrite, statement_of

#: what makes a class a dataclass, resolved
_DATACLASS = ("dataclasses.dataclass",)


def registered_output_rewrite(
    cls: cst.ClassDef, names: Names, resolve: Callable[[cst.BaseExpression], str | None]
) -> Rewrite:
    """`cls` followed by its registration as a pytree node, when it is a dataclass; unsafe: a
    project that registers it elsewhere too fails at import, and code that flattens pytrees
    (`tree_map`) now sees through it."""
    decorators = [d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator for d in cls.decorators]
    if not any(resolve(d) in _DATACLASS for d in decorators):
        return Rewrite(reason=f"`{cls.name.value}` is not a dataclass: register it with `register_pytree_node` "
                       "(how to flatten it is the class's knowledge) or return a tuple, dict or NamedTuple")
    registration = statement_of(f"{names.torch}.export.register_dataclass({cls.name.value})")
    # the replaced lines start at `class`: its decorators and the lines above stay as they are
    bare = cls.with_changes(decorators=(), leading_lines=(), lines_after_decorators=())
    return Rewrite(
        fix=FixProposal(
            f"Register `{cls.name.value}` as a pytree node after its definition "
            "(assumes nothing else registers it)",
            Applicability.UNSAFE, (), imports=names.imports,
            blocks=(BlockReplacement(cls, cls, (bare, registration)),),
        )
    )
