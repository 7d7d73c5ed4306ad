"""Shared by the rules on values made text (XPT203: a number read from data; XPT303, XPT309: a
size): which operands each spelling of Python string formatting makes text, and how."""

from __future__ import annotations

import re

import libcst as cst

#: `%` conversions as Python reads them: a mapping key, flags, width, precision, length, then the conversion
PERCENT = re.compile(r"%(\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(.)")


def percent_operands(node: cst.BinaryOperation) -> list[tuple[cst.BaseExpression, str]]:
    """(operand, conversion) of `"..." % operands`, one per conversion in order; empty where the
    operands are not placed one per conversion (a mapping key, a `*` width, a count Python itself
    rejects) or the left side is no string literal."""
    left = node.left
    if not isinstance(node.operator, cst.Modulo) or not isinstance(left, (cst.SimpleString, cst.ConcatenatedString)):
        return []
    text = left.evaluated_value
    if not isinstance(text, str):
        return []
    found = list(PERCENT.finditer(text))
    if any(m.group(1) for m in found) or "*" in text:
        return []
    conversions = [m.group(2) for m in found if m.group(2) != "%"]
    operands = [e.value for e in node.right.elements] if isinstance(node.right, cst.Tuple) else [node.right]
    if len(operands) != len(conversions):
        return []
    return list(zip(operands, conversions, strict=True))


def text_operands(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """Every value `node` makes text, in any spelling: `str`/`repr`/`format` of it, an f-string
    field, a `%` operand. Wider than `text_spellings`: a size made text in a spelling that exports
    still becomes text of the symbol, which differs from eager where the text is used."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("str", "repr", "format"):
        return [node.args[0].value] if node.args else []
    if isinstance(node, cst.FormattedStringExpression):
        return [node.expression]
    if isinstance(node, cst.BinaryOperation):
        return [operand for operand, _ in percent_operands(node)]
    return []


def call_of(node: cst.CSTNode, names: tuple[str, ...]) -> bool:
    """`node` is `name(value)` of one of `names`, one positional argument."""
    return (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in names
        and len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None
    )


def lone_field(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """`H` of `f"{H}"`: an f-string of one field, no conversion or spec."""
    if isinstance(node, cst.FormattedString) and len(node.parts) == 1:
        part = node.parts[0]
        if isinstance(part, cst.FormattedStringExpression) and part.conversion is None and part.format_spec is None:
            return part.expression
    return None


def text_spellings(node: cst.CSTNode) -> list[tuple[cst.BaseExpression, str]]:  # noqa: C901 - one table
    """What `node` makes text, with the spelling it uses: `joined` (an f-string or `%` of several
    parts), `str`/`shape` (`str(v)`, `repr(v)`), `format` (`format(v)`), `spec` (a format spec),
    `integer` (`%d`), `bare` (`"%s" % v`, no tuple). An f-string of one plain field, or `%s` of a
    one-element tuple with nothing else, is not listed: torch 2.13 exports both."""
    if isinstance(node, cst.FormattedString):
        out: list[tuple[cst.BaseExpression, str]] = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                if part.format_spec and part.conversion is None:
                    out.append((part.expression, "spec"))
                if len(node.parts) > 1:
                    out.append((part.expression, "joined"))
        return out
    if isinstance(node, cst.Call):
        if call_of(node, ("str", "repr")):
            value = node.args[0].value
            return [(value, "str"), (value, "shape")]
        if isinstance(node.func, cst.Name) and node.func.value == "format" and 1 <= len(node.args) <= 2:
            value = node.args[0].value
            spec = node.args[1].value if len(node.args) == 2 else None
            given = not isinstance(spec, cst.SimpleString) or spec.evaluated_value != ""
            return [(value, "format"), *([(value, "spec")] if spec is not None and given else [])]
        return []
    if not isinstance(node, cst.BinaryOperation):
        return []
    if isinstance(node.operator, cst.Add):  # f"{H}" + "x": a joining f-string in two pieces
        return [
            (field, "joined") for side, other in ((node.left, node.right), (node.right, node.left))
            if (field := lone_field(side)) is not None and isinstance(other, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))
        ]
    placed = percent_operands(node)
    if not placed:
        return []
    text = node.left.evaluated_value  # type: ignore[attr-defined]
    bare = not isinstance(node.right, cst.Tuple)
    joined = len(placed) > 1 or PERCENT.sub("", text) != ""
    out = []
    for operand, conversion in placed:
        if conversion in ("d", "i"):
            out.append((operand, "integer"))
        elif conversion in ("s", "r") and (bare or joined):
            out.append((operand, "bare" if bare else "joined"))
    return out
