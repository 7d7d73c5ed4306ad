"""torch's symbols in the source's names, and the `Dim`s `xport_example()` declares.

A confirmation's details come in torch's words: `Eq(u0, 1)` (an unbacked size from data),
`s77 > 16` (a dynamic input size). draft_export's report says where each symbol comes from: the
frame's locals (`n: ['u0']`, `x: ['Tensor(shape: torch.Size([s77, 3]), ...)']`) and ShapeEnv's
sources (`s77: "L['x'].size()[0]"`). Here those become `n == 1` and `x.shape[0] > 16`, and a
size the example names with a `Dim` says so (`seq`). Pure text and `ast`: no torch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: a size symbol: `s27` (an input's dynamic size) or `u0` (a size read from data)
_SYMBOL = re.compile(r"\b[su]\d+\b")
_SHAPE = re.compile(r"Tensor\(shape: torch\.Size\(\[([^\]]*)\]\)")
_RELATIONS = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">="}


def source_name(source: str) -> str:
    """ShapeEnv's source as Python would read it: `L['x'].size()[0]` -> `x.shape[0]`."""
    text = re.sub(r"L\['([^']+)'\]", r"\1", source)
    text = re.sub(r"\.size\(\)\[(\d+)\]", r".shape[\1]", text)
    return re.sub(r"\.stride\(\)\[(\d+)\]", r".stride(\1)", text)


def symbol_names(failure: Mapping[str, Any]) -> dict[str, str]:
    """Symbol -> the source's name for it, from one draft_export failure: its `symbols`
    (ShapeEnv sources) first, then the frame's locals (a local that is the symbol, or a
    tensor local whose shape holds it)."""
    names = {symbol: source_name(str(source)) for symbol, source in (failure.get("symbols") or {}).items()}
    for local, values in (failure.get("locals") or {}).items():
        flat = values if isinstance(values, list) else [values]
        for index, value in enumerate(flat):
            if not isinstance(value, str):
                continue
            name = local if len(flat) == 1 else f"{local}[{index}]"
            if _SYMBOL.fullmatch(value):
                names.setdefault(value, name)
            shape = _SHAPE.match(value)
            if shape is not None:
                for dim, size in enumerate(s.strip() for s in shape.group(1).split(",")):
                    if _SYMBOL.fullmatch(size):
                        names.setdefault(size, f"{name}.shape[{dim}]")
    return names


def readable(expression: str, names: Mapping[str, str]) -> str:
    """torch's expression with each known symbol renamed and sympy's relations written as
    Python's: `Eq(u0, 1)` -> `n == 1`. An unknown symbol stays as torch wrote it."""
    text = _relations(expression.strip())
    return _SYMBOL.sub(lambda m: names.get(m.group(0), m.group(0)), text)


def translate(text: str, names: Mapping[str, str], dims: Mapping[str, str] | None = None) -> str:
    """A detail line with each backticked torch expression that names a known symbol followed
    by its source form: "... `Eq(u0, 1)`" -> "... `n == 1` (torch: `Eq(u0, 1)`)". `dims`: a
    source name -> the `Dim` the example gives it (`x.shape[0]` -> `seq`)."""
    dims = dims or {}
    named = {symbol: dims.get(name, name) for symbol, name in names.items()}

    def rename(match: re.Match[str]) -> str:
        expression = match.group("quoted") or match.group("bare")
        symbols = [symbol for symbol in dict.fromkeys(_SYMBOL.findall(expression)) if symbol in named]
        if not symbols:
            return match.group(0)
        said = [f"`{named[s]}` is {names[s]}" for s in symbols if names[s] in dims]
        return f"`{readable(expression, named)}` ({'; '.join([*said, f'torch: `{expression}`'])})"

    # a backticked expression, or a relation torch wrote bare ("... expression Eq(u0, 1) (unhinted: ...")
    return re.sub(r"`(?P<quoted>[^`]+)`|(?P<bare>\b(?:Eq|Ne|Lt|Le|Gt|Ge)\([^()`]*\))", rename, text)


def _relations(text: str) -> str:
    """`Eq(a, b)` -> `a == b` where the call is the whole expression (nested ones stay)."""
    match = re.fullmatch(r"(Eq|Ne|Lt|Le|Gt|Ge)\((.*)\)", text)
    if match is None:
        return text
    parts = _split_top_level(match.group(2))
    if len(parts) != 2:
        return text
    return f"{parts[0]} {_RELATIONS[match.group(1)]} {parts[1]}"


def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts


# -- the Dims of xport_example() -----------------------------------------------------------------


@dataclass(frozen=True)
class ExampleDim:
    """One dimension's entry in `xport_example()`'s `dynamic_shapes`: a `Dim(...)` call (where
    it is written: inline, or the assignment a name refers to), an int, or a hint."""

    name: str | None
    minimum: int | None
    maximum: int | None
    #: (line, column, end line, end column) of the expression that defines it; 1-based lines,
    #: 0-based code-point columns, as the engine counts
    where: tuple[int, int, int, int]
    #: how the source spells the call (`Dim`, `torch.export.Dim`); None: not a Dim call
    callee: str | None = None
    #: the quote character of the Dim's name in the source
    quote: str = '"'


def example_dims(source: str) -> dict[tuple[str, int], ExampleDim]:
    """(input, dimension) -> its `Dim` in `xport_example()`'s `dynamic_shapes` (a dict keyed by
    input names), resolving names assigned in the function or at module level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    example = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "xport_example"), None)
    if example is None:
        return {}
    bound = _assignments(tree.body) | _assignments(example.body)
    shapes = dynamic_shapes_value(example)
    spec = _resolve(shapes, bound) if shapes is not None else None
    return parse_dims(spec, bound, source) if isinstance(spec, ast.Dict) else {}


def dims_of(text: str) -> dict[tuple[str, int], ExampleDim]:
    """The same for a `dynamic_shapes` written out (torch's refined suggestion)."""
    try:
        spec = ast.parse(text, mode="eval").body
    except SyntaxError:
        return {}
    return parse_dims(spec, {}, text) if isinstance(spec, ast.Dict) else {}


def dynamic_shapes_value(example: ast.FunctionDef) -> ast.expr | None:
    """The expression `xport_example()` gives as `dynamic_shapes` (a dict entry or keyword)."""
    found = None
    for node in ast.walk(example):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "dynamic_shapes":
                    found = value
        elif isinstance(node, ast.keyword) and node.arg == "dynamic_shapes":
            found = node.value
    return found


def parse_dims(spec: ast.Dict, bound: Mapping[str, ast.expr], source: str) -> dict[tuple[str, int], ExampleDim]:
    out: dict[tuple[str, int], ExampleDim] = {}
    for key, value in zip(spec.keys, spec.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        per_input = _resolve(value, bound)
        if isinstance(per_input, ast.Dict):
            entries = [(k.value, v) for k, v in zip(per_input.keys, per_input.values, strict=True)
                       if isinstance(k, ast.Constant) and isinstance(k.value, int)]
        elif isinstance(per_input, (ast.Tuple, ast.List)):
            entries = list(enumerate(per_input.elts))
        else:
            continue
        for dim, entry in entries:
            described = _describe(_resolve(entry, bound), source)
            if described is not None:
                out[(key.value, dim)] = described
    return out


def _describe(node: ast.expr, source: str) -> ExampleDim | None:
    lines = source.splitlines()
    end_line = node.end_lineno or node.lineno
    where = (node.lineno, _column(lines, node.lineno, node.col_offset),
             end_line, _column(lines, end_line, node.end_col_offset or 0))
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return ExampleDim(None, node.value, node.value, where)
    if not isinstance(node, ast.Call) or not (node.args and isinstance(node.args[0], ast.Constant)):
        return None
    callee = ast.get_source_segment(source, node.func) or ""
    name = node.args[0].value
    if not callee.endswith("Dim") or not isinstance(name, str):
        return None
    bounds = {k.arg: k.value.value for k in node.keywords
              if k.arg in ("min", "max") and isinstance(k.value, ast.Constant) and isinstance(k.value.value, int)}
    quote = (ast.get_source_segment(source, node.args[0]) or '"')[0]
    return ExampleDim(name, bounds.get("min"), bounds.get("max"), where, callee, quote if quote in "'\"" else '"')


def _column(lines: list[str], line: int, offset: int) -> int:
    """ast's UTF-8 byte offset as a code-point column."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))


def _assignments(body: list[ast.stmt]) -> dict[str, ast.expr]:
    return {
        target.id: statement.value
        for statement in body if isinstance(statement, ast.Assign)
        for target in statement.targets if isinstance(target, ast.Name)
    }


def _resolve(node: ast.expr, bound: Mapping[str, ast.expr], depth: int = 4) -> ast.expr:
    while isinstance(node, ast.Name) and node.id in bound and depth:
        node, depth = bound[node.id], depth - 1
    return node
