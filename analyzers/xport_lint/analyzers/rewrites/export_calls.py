"""Edits at the export call: `strict=False`, the size a sized dimension gives a `Dim`, a
`Dim`'s range narrowed to what the code needs, and a named `Dim` made `Dim.DYNAMIC`."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from ..model import Applicability
from ..report import FixProposal
from ..shapes import ShapesReader, SizeRef
from .common import Rewrite


def sized_dim(size: cst.BaseExpression) -> tuple[str, int] | None:
    """(tensor name, dimension) for `x.size(d)`, `x.shape[d]`, `x.size()[d]` or `len(x)`."""
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value == "len":
        if len(size.args) == 1 and isinstance(size.args[0].value, cst.Name):
            return size.args[0].value.value, 0
        return None
    index: cst.BaseExpression | None = None
    owner: cst.BaseExpression | None = None
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute) and size.func.attr.value == "size":
        if len(size.args) == 1:
            owner, index = size.func.value, size.args[0].value
    elif isinstance(size, cst.Subscript) and len(size.slice) == 1 and isinstance(size.slice[0].slice, cst.Index):
        base = size.value
        if isinstance(base, cst.Attribute) and base.attr.value == "shape":
            owner, index = base.value, size.slice[0].slice.value
        elif (
            isinstance(base, cst.Call)
            and isinstance(base.func, cst.Attribute)
            and base.func.attr.value == "size"
            and not base.args
        ):
            owner, index = base.func.value, size.slice[0].slice.value
    if isinstance(owner, cst.Name) and isinstance(index, cst.Integer):
        return owner.value, index.evaluated_value
    return None


def non_strict_rewrite(export_calls: Iterable[cst.Call]) -> Rewrite:
    """`strict=True` -> `strict=False` at the file's export calls, for code that only strict
    export (Dynamo) rejects."""
    replacements: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for call in export_calls:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "strict" and isinstance(arg.value, cst.Name):
                if arg.value.value == "True":
                    replacements.append((arg.value, cst.Name("False")))
    if not replacements:
        return Rewrite(reason="strict mode comes from the configuration, not from an export call in this file")
    return Rewrite(
        fix=FixProposal(
            "Export with strict=False (assumes the rest of the model exports non-strict too)",
            Applicability.UNSAFE,
            tuple(replacements),
        )
    )


def narrowed_dim_rewrite(
    declared: cst.BaseExpression | None,
    resolve: Callable[[cst.BaseExpression], str | None],
    low: int | None,
    high: int | None,
    why: str,
) -> Rewrite:
    """The `Dim(...)` call `declared` (the expression a `dynamic_shapes` entry names, followed to
    its binding) rewritten with `min=low, max=high`: a declaration that states the range the
    code already enforces."""
    if not isinstance(declared, cst.Call) or resolve(declared.func) not in _DIM_CALLS:
        return Rewrite(reason="the Dim is not a `Dim(...)` call this file writes")
    name = next((a.value for a in declared.args if a.keyword is None or a.keyword.value == "name"), None)
    if name is None:
        return Rewrite(reason="the Dim has no name argument")
    args = [cst.Arg(name)]
    for keyword, value in (("min", low), ("max", high)):
        if value is not None:
            args.append(cst.Arg(cst.Integer(str(value)), keyword=cst.Name(keyword), equal=_EQUAL))
    new = declared.with_changes(args=args)
    text = cst.Module([]).code_for_node(new)
    return Rewrite(FixProposal(f"Declare `{text}` ({why})", Applicability.UNSAFE, ((declared, new),)))


def dynamic_dim_rewrite(
    entry: cst.BaseExpression | None,
    declared: cst.BaseExpression | None,
    resolve: Callable[[cst.BaseExpression], str | None],
    low: int | None,
    high: int | None,
    why: str,
) -> Rewrite:
    """The `dynamic_shapes` entry `entry`, which declares the named `Dim(...)` call `declared`,
    replaced by `Dim.DYNAMIC` over the same range (`min=low, max=high`): export keeps the size
    dynamic and accepts a guard that holds over the range where a named Dim needs torch to
    prove it."""
    if entry is None or not isinstance(declared, cst.Call) or resolve(declared.func) not in _DIM_CALLS:
        return Rewrite(reason="the Dim is not a `Dim(...)` call this file writes")
    hint = cst.Attribute(declared.func, cst.Name("DYNAMIC"))
    args = [
        cst.Arg(cst.Integer(str(value)), keyword=cst.Name(keyword), equal=_EQUAL)
        for keyword, value in (("min", low), ("max", high)) if value is not None
    ]
    new: cst.BaseExpression = cst.Call(hint, args) if args else hint
    text = cst.Module([]).code_for_node(new)
    return Rewrite(FixProposal(f"Declare the dimension `{text}` ({why})", Applicability.UNSAFE, ((entry, new),)))


def shared_dim_rewrite(
    shapes: cst.BaseExpression | None, reader: ShapesReader, first: SizeRef, second: SizeRef
) -> Rewrite:
    """Two input sizes export needs equal, declared with two named Dims in `shapes` (this file's
    `dynamic_shapes`, None: declared in another file): the second declared with the first's Dim
    (the test stays; with one Dim it always holds)."""
    if shapes is None:
        return Rewrite(reason="the dynamic_shapes are declared in another file")
    keep, replace = reader.spec_node(shapes, *first), reader.spec_node(shapes, *second)
    if keep is None or replace is None:
        return Rewrite(reason="the two Dims are not written in one dynamic_shapes of this file")
    title = f"Declare `{second[0]}.shape[{second[2]}]` with the Dim of `{first[0]}.shape[{first[2]}]`"
    title += " (assumes the two sizes are always equal)"
    return Rewrite(FixProposal(title, Applicability.UNSAFE, ((replace, keep),)))


_DIM_CALLS = ("torch.export.Dim", "torch.export.dynamic_shapes.Dim")
_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
