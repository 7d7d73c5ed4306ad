"""How export sees the sizes a model tests: each input dimension is static, `Dim.AUTO`,
`Dim.DYNAMIC` or a named `Dim` with a range, as declared by an export call, an
`xport_example()`, `[tool.xport-lint.dynamic-shapes]` or the configured default; and what a size
test or a loop over a size does under that declaration. The verdicts follow torch 2.13 as
measured (tests/truth/test_shapes.py):

- a static dimension: the size is a constant, a branch on it is decided, nothing to report;
- `Dim.AUTO`: export adds the guard and narrows (or fixes) the range without a word: a warning;
- `Dim.DYNAMIC`: as AUTO, but export fails where the guard fixes the size to one value (a loop
  over it, `len()` in non-strict mode, an equality that holds on the example);
- a named `Dim`: export fails (ConstraintViolationError) wherever the guard does not hold on
  the whole declared range; a test the range decides is no hazard at all.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst

from .fact_store import PerStatement
from .model import Mode, Severity
from .names import dotted
from .syntax import INTEGER_ARITHMETIC, UNKNOWN, integer_literal, literal_value
from .walk import children, iter_nodes

_DIM = ("torch.export.Dim", "torch.export.dynamic_shapes.Dim")


class DimKind(enum.Enum):
    STATIC = "static"
    AUTO = "auto"
    DYNAMIC = "dynamic"
    NAMED = "named"


@dataclass(frozen=True)
class DimSpec:
    """One declared dimension. A derived `Dim` (`2 * dx + 1`) is its root's name and range with
    `scale` and `offset`: the size is `scale * k + offset` for each `k` of the root's range."""

    kind: DimKind
    name: str = ""
    low: int | None = None
    high: int | None = None
    scale: int = 1
    offset: int = 0

    @property
    def derived(self) -> bool:
        return self.scale != 1 or self.offset != 0

    def text(self) -> str:
        if self.kind is DimKind.NAMED and self.derived:
            scaled = self.name if self.scale == 1 else f"{self.scale}*{self.name}"
            return scaled + (f" + {self.offset}" if self.offset > 0 else f" - {-self.offset}" if self.offset else "")
        if self.kind is DimKind.NAMED:
            bounds = "".join(
                f", {key}={value}" for key, value in (("min", self.low), ("max", self.high)) if value is not None
            )
            return f'Dim("{self.name}"{bounds})'
        return "static" if self.kind is DimKind.STATIC else f"Dim.{self.kind.name}"

    def values(self) -> tuple[int, float]:
        """The root values export considers: a backed size is never 0 or 1 (export specialises those)."""
        low = max(self.low if self.low is not None else 0, 2)
        return low, self.high if self.high is not None else math.inf

    def size(self, root: int) -> int:
        """The size this dimension has when its root `Dim` is `root`."""
        return self.scale * root + self.offset

    def range_text(self) -> str:
        """`batch ∈ [2, 64]`, `2*dx ∈ [4, 128]`: the sizes export allows, for hovers and messages."""
        low, high = self.values()
        top = "∞" if high == math.inf else str(self.size(int(high)))
        return f"{self.name if not self.derived else self.text()} ∈ [{self.size(low)}, {top}]"

    def to_plain(self) -> list[Any]:
        return [self.kind.value, self.name, self.low, self.high, self.scale, self.offset]

    @classmethod
    def from_plain(cls, data: Any) -> DimSpec:
        kind, name, low, high, *affine = data
        scale, offset = affine if len(affine) == 2 else (1, 0)
        if not isinstance(name, str) or not all(v is None or type(v) is int for v in (low, high)):
            raise TypeError("malformed dimension")
        if type(scale) is not int or type(offset) is not int:
            raise TypeError("malformed dimension")
        return cls(DimKind(kind), name, low, high, scale, offset)


STATIC = DimSpec(DimKind.STATIC)
AUTO = DimSpec(DimKind.AUTO)


def dim_range_problem(low: int | None, high: int | None, named: bool) -> str | None:
    """torch 2.13's refusal of a declared range, in its words, or None. A named `Dim` needs
    max > min (min defaults to 0): `Dim("b", min=4, max=4)` raises. A hint (`Dim.AUTO(min=...)`)
    needs non-negative bounds with min <= max (torch/export/dynamic_shapes.py)."""
    if named:
        if (high if high is not None else math.inf) > (low if low is not None else 0):
            return None
        return f"Cannot create Dim with inconsistent min={low}, max={high}"
    for key, value in (("min", low), ("max", high)):
        if value is not None and value < 0:
            return f"{key} must be non-negative, got {value}"
    if low is not None and high is not None and low > high:
        return f"min must be <= max, got min={low}, max={high}"
    return None


@dataclass(frozen=True)
class ShapeConfig:
    """How one module class is exported: per input (a `forward` parameter name, or `#0` for a
    positional entry of a tuple `dynamic_shapes`), the dimensions that are not static."""

    inputs: tuple[tuple[str, tuple[tuple[int, DimSpec], ...]], ...]
    #: where it is declared, for messages ("the export call in scripts/export.py")
    source: str
    #: what an unlisted dimension is (static; AUTO under `shapes = "dynamic"`)
    default: DimSpec = STATIC
    #: the file and line of the declaration (an export call, `xport_example()`); line 0: unknown
    path: str = ""
    line: int = 0
    #: the number of dimensions of an input (by the same keys), where the example shows it: a
    #: submodule's `t.shape[-2]` is then a dimension of its own
    ranks: tuple[tuple[str, int], ...] = ()

    def dim(self, param: str, position: int | None, index: int) -> DimSpec:
        """Dimension `index` of the input `param` (`batch['ids']`: an entry of a nested input),
        the parameter at `position`."""
        for key, dims in self.inputs:
            if _names_input(key, param, position):
                return dict(dims).get(index, STATIC)
        return self.default

    def rank(self, param: str, position: int | None) -> int | None:
        """The number of dimensions of the example of input `param` (as `dim` finds it), or None."""
        return next((rank for key, rank in self.ranks if _names_input(key, param, position)), None)

    def entries(self, params: list[str]) -> dict[str, tuple[int, int | None]]:
        """The declared entries of nested inputs of a `forward` with `params` (after `self`), by
        path (`batch['ids']`, `pair[0]`): the parameter's position and the entry's rank."""
        out: dict[str, tuple[int, int | None]] = {}
        for key, _ in self.inputs:
            base, bracket, rest = key.partition("[")
            position = int(base[1:]) if base.startswith("#") and base[1:].isdigit() else (
                params.index(base) if base in params else None)
            if bracket and position is not None and position < len(params):
                path = f"{params[position]}[{rest}"
                out[path] = (position, self.rank(path, position))
        return out

    def any_dynamic(self) -> bool:
        return self.default.kind is not DimKind.STATIC or any(
            spec.kind is not DimKind.STATIC for _, dims in self.inputs for _, spec in dims
        )

    def any_named(self) -> bool:
        """Whether a named `Dim` is declared: the only kind whose range a size test can split."""
        return self.default.kind is DimKind.NAMED or any(
            spec.kind is DimKind.NAMED for _, dims in self.inputs for _, spec in dims
        )

    def to_plain(self) -> list[Any]:
        return [
            [[key, [[i, spec.to_plain()] for i, spec in dims]] for key, dims in self.inputs],
            self.source, self.default.to_plain(), self.path, self.line, [list(rank) for rank in self.ranks],
        ]

    def note(self) -> tuple[str, int, str] | None:
        """(path, line, message) for a finding's related information."""
        if not self.line:
            return None
        declared = ", ".join(
            f"{key}: {{{', '.join(f'{i}: {spec.text()}' for i, spec in dims)}}}" for key, dims in self.inputs
        )
        return self.path, self.line, f"dynamic shapes declared here ({declared or 'all static'})"

    @classmethod
    def from_plain(cls, data: Any) -> ShapeConfig:
        inputs, source, default, path, line, ranks = data
        if not isinstance(source, str) or not isinstance(path, str) or type(line) is not int:
            raise TypeError("malformed shape config")
        parsed = []
        for key, dims in inputs:
            if not isinstance(key, str):
                raise TypeError("malformed shape config")
            parsed.append((key, tuple((int(i), DimSpec.from_plain(spec)) for i, spec in dims)))
        return cls(
            tuple(parsed), source, DimSpec.from_plain(default), path, line,
            tuple((str(key), int(rank)) for key, rank in ranks),
        )


def _names_input(key: str, param: str, position: int | None) -> bool:
    """Whether a `ShapeConfig` key names the input `param` (`batch['ids']` is the entry `ids` of
    the parameter `batch`), the parameter at `position` (a tuple `dynamic_shapes` says `#0['ids']`)."""
    if key == param:
        return True
    entry = param[param.find("["):] if "[" in param else ""
    return position is not None and key == f"#{position}{entry}"


def entry_path(base: str, key: cst.BaseExpression) -> str | None:
    """`batch['ids']`, `pair[0]`: the path of the entry a literal key reads of a nested input."""
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
        return f"{base}[{key.evaluated_value!r}]"
    if isinstance(key, cst.Integer):
        return f"{base}[{int(key.evaluated_value)}]"
    return None


def read_entry_path(expr: cst.BaseExpression, is_input: Callable[[str], bool]) -> str | None:
    """`batch['pair'][0]` of `batch["pair"][0]`: the path of the entry `expr` reads by literal
    keys of a name `is_input` accepts (an input not rebound there)."""
    if isinstance(expr, cst.Name):
        return expr.value if is_input(expr.value) else None
    if not (isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)):
        return None
    base = read_entry_path(expr.value, is_input)
    return entry_path(base, expr.slice[0].slice.value) if base is not None else None


# -- reading dynamic_shapes from code ---------------------------------------------------------


class ShapesReader:
    """Reads `dynamic_shapes` expressions of one file. `resolve`: the file's import resolution;
    names bound once in the file (`seq = Dim("seq")`, `shapes = {...}`) are followed."""

    def __init__(self, module: cst.Module, resolve: Callable[[cst.BaseExpression], str | None]) -> None:
        self.resolve = resolve
        self.module = module
        self.bindings, self.dim_bindings = bind_once(_assignments(module), resolve)
        #: `sc[x] = {0: batch}` of each name bound to a `ShapesCollection()`: (tensor, dims)
        self.collections: dict[str, list[tuple[cst.BaseExpression, cst.BaseExpression]]] = {
            name: [] for name, value in self.bindings.items()
            if isinstance(value, cst.Call) and (resolve(value.func) or "") in _COLLECTIONS
        }
        if self.collections:
            for target, value in _assignments(module):
                if (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name)
                        and target.value.value in self.collections and len(target.slice) == 1
                        and isinstance(target.slice[0].slice, cst.Index)):
                    self.collections[target.value.value].append((target.slice[0].slice.value, value))

    def _follow(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What `expr` stands for: through names bound once, `dict(x=...)` as the dict display it
        builds, and a call of a function of this file without arguments whose one `return` says
        (`def _shapes(): return {"x": {1: Dim("w")}}`)."""
        for _ in range(4):
            if isinstance(expr, cst.Name) and expr.value in self.bindings:
                expr = self.bindings[expr.value]
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
                if expr.func.value == "dict" and expr.args and all(a.keyword is not None for a in expr.args):
                    return cst.Dict([
                        cst.DictElement(cst.SimpleString(repr(a.keyword.value)), a.value)  # type: ignore[union-attr]
                        for a in expr.args
                    ])
                returned = None if expr.args else self._returned(expr.func.value)
                if returned is None:
                    break
                expr = returned
            elif isinstance(expr, cst.DictComp):
                return _dict_written_out(expr) or expr
            else:
                break
        return expr

    def _returned(self, name: str) -> cst.BaseExpression | None:
        """The value of the one `return` of the top-level function `name` of this file."""
        func = next((s for s in self.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
        if func is None or func.params.params:
            return None
        returns = [s for s in _statements(func.body) if isinstance(s, cst.Return)]
        return returns[0].value if len(returns) == 1 else None

    def model_class(self, expr: cst.BaseExpression) -> str | None:
        """The class a model expression builds, as written (`Decoder(...)`, `model` bound to one,
        `Decoder().eval()`)."""
        expr = self._follow(expr)
        while isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("eval", "train", "to", "float", "cpu"):
                expr = self._follow(func.value)
                continue
            return dotted(func)
        return None

    def config(self, shapes: cst.BaseExpression | None, source: str) -> ShapeConfig | None:
        """None: a `dynamic_shapes` this reader cannot read (no claim is made from it)."""
        if shapes is None:
            return ShapeConfig((), source)
        if isinstance(shapes, cst.Name) and shapes.value in self.collections:
            collected = self._collection(shapes)
            return ShapeConfig(tuple(collected), source) if collected is not None else None
        shapes = self._follow(shapes)
        if isinstance(shapes, cst.Name) and shapes.value == "None":
            return ShapeConfig((), source)
        inputs: list[tuple[str, tuple[tuple[int, DimSpec], ...]]] = []
        if isinstance(shapes, cst.Dict):
            for element in shapes.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                    return None
                key = element.key.evaluated_value
                entries = self.entries(key, element.value) if isinstance(key, str) else None
                if entries is None:
                    return None
                inputs.extend(entries)
        elif isinstance(shapes, (cst.Tuple, cst.List)):
            for position, element in enumerate(shapes.elements):
                entries = self.entries(f"#{position}", element.value)
                if entries is None or isinstance(element, cst.StarredElement):
                    return None
                inputs.extend(entries)
        else:
            collected = self._collection(shapes)
            if collected is None:
                return None
            inputs.extend(collected)
        return ShapeConfig(tuple(inputs), source)

    def _collection(self, shapes: cst.BaseExpression) -> list[tuple[str, tuple[tuple[int, DimSpec], ...]]] | None:
        """A `ShapesCollection` (`sc[x] = {0: batch}`), passed as it is or as
        `sc.dynamic_shapes(model, args)`: each tensor's dims, keyed by its position in the
        example args (the export call's, or the `xport_example()` dict's beside it)."""
        name, args = None, None
        if isinstance(shapes, cst.Name) and shapes.value in self.collections:
            name, args = shapes.value, self._collection_args(shapes.value)
        elif (isinstance(shapes, cst.Call) and isinstance(shapes.func, cst.Attribute)
              and shapes.func.attr.value == "dynamic_shapes" and isinstance(shapes.func.value, cst.Name)
              and shapes.func.value.value in self.collections and len(shapes.args) >= 2):
            name, args = shapes.func.value.value, self._follow(shapes.args[1].value)
        if name is None or not isinstance(args, (cst.Tuple, cst.List)):
            return None
        positions = {e.value.value: i for i, e in enumerate(args.elements) if isinstance(e.value, cst.Name)}
        out = []
        for tensor, value in self.collections[name]:
            dims = self._dims(value)
            if not isinstance(tensor, cst.Name) or tensor.value not in positions or dims is None:
                return None  # a tensor the args do not show, or dims not read: no claim
            out.append((f"#{positions[tensor.value]}", dims))
        return out

    def _collection_args(self, name: str) -> cst.BaseExpression | None:
        """The example args a `ShapesCollection` named `name` is exported with: an export call's
        positional args beside `dynamic_shapes=name`, or the `"args"` of a dict whose
        `"dynamic_shapes"` is `name`; one such place, else None."""
        found: list[cst.BaseExpression] = []
        for node in _walk(self.module):
            if isinstance(node, cst.Call):
                shapes = next((a.value for a in node.args if a.keyword is not None
                               and a.keyword.value == "dynamic_shapes"), None)
                positional = [a.value for a in node.args if a.keyword is None]
                if isinstance(shapes, cst.Name) and shapes.value == name and len(positional) >= 2:
                    found.append(self._follow(positional[1]))
            elif isinstance(node, cst.Dict):
                entries = {e.key.evaluated_value: e.value for e in node.elements
                           if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)}
                shapes = entries.get("dynamic_shapes")
                if isinstance(shapes, cst.Name) and shapes.value == name and "args" in entries:
                    found.append(self._follow(entries["args"]))
        return found[0] if len(found) == 1 else None

    def entries(
        self, key: str, expr: cst.BaseExpression, depth: int = 0
    ) -> list[tuple[str, tuple[tuple[int, DimSpec], ...]]] | None:
        """The dims declared for input `key`: its own (`{0: batch}`), or those of each entry of a
        nested input (`{"ids": {1: seq}}` of a dict input, `({0: n}, None)` of a tuple one), keyed
        by the entry's path (`batch['ids']`, `#0[1]`); None where a part is not read."""
        dims = self._dims(expr)
        if dims is not None:
            return [(key, dims)]
        expr = self._follow(expr)
        parts: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        if isinstance(expr, cst.Dict) and all(isinstance(e, cst.DictElement) for e in expr.elements):
            parts = [(self._follow(e.key), e.value) for e in expr.elements]  # type: ignore[union-attr]
        elif isinstance(expr, (cst.Tuple, cst.List)) and not any(
            isinstance(e, cst.StarredElement) for e in expr.elements
        ):
            parts = [(cst.Integer(str(i)), e.value) for i, e in enumerate(expr.elements)]
        if not parts or depth > 2:
            return None
        out = []
        for part, value in parts:
            path = entry_path(key, part)
            found = self.entries(path, value, depth + 1) if path is not None else None
            if found is None:
                return None
            out.extend(found)
        return out

    def _dims(self, expr: cst.BaseExpression) -> tuple[tuple[int, DimSpec], ...] | None:
        expr = self._follow(expr)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return ()
        out = []
        if isinstance(expr, cst.Dict):
            for element in expr.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.Integer):
                    return None
                spec = self.spec(element.value)
                if spec is None:
                    return None
                out.append((int(element.key.evaluated_value), spec))
        elif isinstance(expr, (cst.Tuple, cst.List)):
            for index, element in enumerate(expr.elements):
                spec = self.spec(element.value)
                if spec is None:
                    return None
                out.append((index, spec))
        else:
            return None
        return tuple((i, s) for i, s in out if s.kind is not DimKind.STATIC)

    def spec(self, expr: cst.BaseExpression) -> DimSpec | None:
        expr = self._follow(expr)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return STATIC
        api = self.resolve(expr) or ""
        for base in _DIM:
            for kind in (DimKind.AUTO, DimKind.DYNAMIC, DimKind.STATIC):
                if api == f"{base}.{kind.name}":
                    return DimSpec(kind)
        if isinstance(expr, cst.Name) and expr.value in self.dim_bindings:
            return self.dim_bindings[expr.value]
        hint = (self.resolve(expr.func) or "") if isinstance(expr, cst.Call) else None
        if hint and all(a.keyword is not None and a.keyword.value in ("min", "max") for a in expr.args):
            ranged = self._named(expr)  # type: ignore[arg-type]  # `Dim.DYNAMIC(min=4, max=64)`: a hint with a range
            for base in _DIM:
                for kind in (DimKind.AUTO, DimKind.DYNAMIC):
                    if hint == f"{base}.{kind.name}":
                        return DimSpec(kind, low=ranged.low, high=ranged.high) if ranged is not None else None
        if isinstance(expr, cst.Call) and hint in _DIM:
            return self._named(expr)
        if isinstance(expr, cst.BinaryOperation):
            return self._derived(expr)
        if isinstance(expr, cst.Integer):
            return STATIC
        return None

    def _derived(self, expr: cst.BinaryOperation) -> DimSpec | None:
        """`2 * dx`, `dx + 1`, `2 * dx - 1`: a derived `Dim` (torch allows `a * dim + b`)."""
        left, right = self._follow(expr.left), self._follow(expr.right)
        if isinstance(expr.operator, cst.Multiply):
            number, other = (
                (integer_literal(left), right) if integer_literal(left) is not None else (integer_literal(right), left)
            )
            inner = self.spec(other) if number is not None else None
            if inner is None or inner.kind is not DimKind.NAMED:
                return None
            return dataclasses.replace(inner, scale=inner.scale * number, offset=inner.offset * number)
        if isinstance(expr.operator, (cst.Add, cst.Subtract)):
            number, other = (
                (integer_literal(right), left) if integer_literal(right) is not None else (integer_literal(left), right)
            )
            if number is None or (isinstance(expr.operator, cst.Subtract) and other is right):
                return None
            inner = self.spec(other)
            if inner is None or inner.kind is not DimKind.NAMED:
                return None
            sign = -1 if isinstance(expr.operator, cst.Subtract) else 1
            return dataclasses.replace(inner, offset=inner.offset + sign * number)
        return None

    def spec_node(self, shapes: cst.BaseExpression, key: str, position: int, index: int) -> cst.BaseExpression | None:
        """The expression that declares dimension `index` of input `key` (or of the entry at
        `position` of a tuple) in a `dynamic_shapes` expression, for a fix to rewrite."""
        dims = self.dims_node(shapes, key, position)
        if isinstance(dims, cst.Dict):
            return next(
                (e.value for e in dims.elements if isinstance(e, cst.DictElement)
                 and isinstance(e.key, cst.Integer) and int(e.key.evaluated_value) == index),
                None,
            )
        if isinstance(dims, (cst.Tuple, cst.List)) and index < len(dims.elements):
            return dims.elements[index].value
        return None

    def declaration(self, shapes: cst.BaseExpression, key: str, position: int, index: int) -> cst.BaseExpression | None:
        """What `spec_node` names, followed to its binding (`h` of `h = Dim("h")`: the call)."""
        node = self.spec_node(shapes, key, position, index)
        return self._follow(node) if node is not None else None

    def dims_node(self, shapes: cst.BaseExpression, key: str, position: int) -> cst.BaseExpression | None:
        """The `{0: batch}` (or `(batch, None)`) that declares input `key`'s (or the entry at
        `position`'s) dimensions in a `dynamic_shapes` expression, followed through names."""
        shapes = self._follow(shapes)
        entry = None
        if isinstance(shapes, cst.Dict):
            entry = next(
                (e.value for e in shapes.elements if isinstance(e, cst.DictElement)
                 and isinstance(e.key, cst.SimpleString) and e.key.evaluated_value == key),
                None,
            )
        elif isinstance(shapes, (cst.Tuple, cst.List)) and position < len(shapes.elements):
            entry = shapes.elements[position].value
        return self._follow(entry) if entry is not None else None

    def _named(self, call: cst.Call) -> DimSpec | None:
        name, low, high = "", None, None
        for position, arg in enumerate(call.args):
            value = arg.value
            keyword = arg.keyword.value if arg.keyword is not None else ("name", "min", "max")[min(position, 2)]
            if keyword == "name" and isinstance(value, cst.SimpleString):
                name = str(value.evaluated_value)
            elif keyword in ("min", "max"):
                number = integer_literal(self._follow(value))
                if number is None:
                    return None
                low, high = (number, high) if keyword == "min" else (low, number)
        if dim_range_problem(low, high, named=True) is not None:
            return None  # torch refuses it (XPT505): no range to judge sizes against
        return DimSpec(DimKind.NAMED, name or "dim", low, high)


_DIMS_FUNCTIONS = ("torch.export.dims", "torch.export.dynamic_shapes.dims")
_COLLECTIONS = ("torch.export.ShapesCollection", "torch.export.dynamic_shapes.ShapesCollection")


def _dict_written_out(comp: cst.DictComp) -> cst.Dict | None:
    """`{name: {0: Dim(f"b_{name}")} for name in ("x", "y")}` as the dict display it builds, each
    string the loop takes written in place of its name (f-strings of literals joined); None for
    a comprehension over anything but a display of strings, with a condition or a second `for`."""
    loop = comp.for_in
    if (loop.ifs or loop.inner_for_in is not None or loop.asynchronous is not None
            or not isinstance(loop.target, cst.Name) or not isinstance(loop.iter, (cst.Tuple, cst.List))):
        return None
    taken = [element.value for element in loop.iter.elements]
    if not all(isinstance(value, cst.SimpleString) for value in taken):
        return None
    elements = []
    for value in taken:
        substitute = _Arguments({loop.target.value: value})
        key, written = comp.key.visit(substitute), comp.value.visit(substitute)
        if substitute.refused or not isinstance(key, cst.BaseExpression) or not isinstance(written, cst.BaseExpression):
            return None
        elements.append(cst.DictElement(key.visit(_JoinedStrings()), written.visit(_JoinedStrings())))
    return cst.Dict(elements)


class _JoinedStrings(cst.CSTTransformer):
    """An f-string whose every placeholder is a string literal, as the one string it makes."""

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.BaseExpression:
        text = []
        for part in updated_node.parts:
            if isinstance(part, cst.FormattedStringText):
                text.append(part.value)
            elif (isinstance(part, cst.FormattedStringExpression) and isinstance(part.expression, cst.SimpleString)
                  and part.conversion is None and part.format_spec is None):
                text.append(str(part.expression.evaluated_value))
            else:
                return updated_node
        return cst.SimpleString(repr("".join(text)))


def bind_once(
    assignments: Iterable[tuple[cst.BaseExpression, cst.BaseExpression]],
    resolve: Callable[[cst.BaseExpression], str | None],
) -> tuple[dict[str, cst.BaseExpression], dict[str, DimSpec]]:
    """Names bound once by `assignments` (target, value): to an expression (`seq = Dim("seq")`;
    `a, b = Dim("a"), Dim("b")` element by element), or to a named `Dim` of a `dims()` call
    (`batch, m = dims("batch", "m", max=64)`). A name bound twice is neither: which value an
    export sees is unknown."""
    bound: dict[str, list[cst.BaseExpression | DimSpec]] = {}

    def bind(target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            bound.setdefault(target.value, []).append(value)
            return
        if not isinstance(target, (cst.Tuple, cst.List)):
            return
        names = [e.value for e in target.elements]
        if any(isinstance(e, cst.StarredElement) for e in target.elements):
            return
        if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(names):
            for name, part in zip(names, value.elements, strict=True):
                if not isinstance(part, cst.StarredElement):
                    bind(name, part.value)
            return
        specs = _dims_call(value, resolve)
        if specs is not None and len(specs) == len(names):
            for name, spec in zip(names, specs, strict=True):
                if isinstance(name, cst.Name):
                    bound.setdefault(name.value, []).append(spec)
            return
        for name in names:  # bound to something unread: known as bound, not to what
            if isinstance(name, cst.Name):
                bound.setdefault(name.value, []).extend((value, value))

    for target, value in assignments:
        bind(target, value)
    once = {name: values[0] for name, values in bound.items() if len(values) == 1}
    return (
        {name: value for name, value in once.items() if isinstance(value, cst.BaseExpression)},
        {name: value for name, value in once.items() if isinstance(value, DimSpec)},
    )


def _dims_call(
    value: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]
) -> list[DimSpec] | None:
    """The named Dims of `dims("a", "b", min=2, max=64)` (one range for all), or None."""
    if not isinstance(value, cst.Call) or (resolve(value.func) or "") not in _DIMS_FUNCTIONS:
        return None
    names: list[str] = []
    bounds: dict[str, int | None] = {"min": None, "max": None}
    for arg in value.args:
        if arg.star:
            return None
        if arg.keyword is None and isinstance(arg.value, cst.SimpleString):
            names.append(str(arg.value.evaluated_value))
        elif arg.keyword is not None and arg.keyword.value in bounds:
            bounds[arg.keyword.value] = integer_literal(arg.value)
            if bounds[arg.keyword.value] is None:
                return None
        else:
            return None
    if dim_range_problem(bounds["min"], bounds["max"], named=True) is not None:
        return None
    return [DimSpec(DimKind.NAMED, name, bounds["min"], bounds["max"]) for name in names]


def _size_read(expr: cst.BaseExpression) -> bool:
    """`t.shape[i]`, `t.size(i)`, `t.size()[i]`, `t.numel()`, `t.dim()`: a Python int whatever the
    tensor `t` is (its value need not be known to know it is a number)."""
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        shape = expr.value
        return (isinstance(shape, cst.Attribute) and shape.attr.value == "shape") or (
            isinstance(shape, cst.Call) and isinstance(shape.func, cst.Attribute) and shape.func.attr.value == "size"
            and not shape.args)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method, count = expr.func.attr.value, len(expr.args)
        return (method == "size" and count == 1) or (method in ("numel", "dim") and count == 0)
    return False


def _assignments(module: cst.Module) -> Iterator[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(target, value) of the `target = value` statements of the module and of its top-level
    functions' bodies."""
    bodies: list[cst.BaseSuite | cst.Module] = [module]
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            bodies.append(stmt.body)
        elif isinstance(stmt, cst.If):  # `if __name__ == "__main__":`
            bodies.append(stmt.body)
    for body in bodies:
        statements = body.body if isinstance(body, (cst.Module, cst.IndentedBlock)) else ()
        for stmt in statements:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    yield small.targets[0].target, small.value


#: torch functions making a tensor of the sizes they are given (`torch.zeros(b, n)`, `torch.rand((b, n))`)
_SIZED_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.ones", "torch.zeros", "torch.empty"})
_FACTORIES = frozenset({*_SIZED_FACTORIES, "torch.randint", "torch.full"})

#: the literal sizes of one example input (None: a size not written as a number), or None
ExampleSizes = tuple[int | None, ...] | None


@dataclass(frozen=True)
class ExampleInputs:
    """The example inputs an `xport_example()` gives, as written: its export site's args and
    kwargs (the export site reads which `return` and which form)."""

    #: the `xport_example()` function (where the declaration is, for related information)
    at: cst.FunctionDef
    args: cst.BaseExpression | None
    kwargs: cst.BaseExpression | None


#: what declares a class's shapes: an export call, or the inputs of the `xport_example()` site
#: exporting it (a module-level `dynamic_shapes` shows no inputs)
Declaration = cst.CSTNode | ExampleInputs


def _declared_args(declaration: Declaration, reader: ShapesReader) -> cst.BaseExpression | None:
    """The example args of a declaration (an export call's second argument, an `xport_example()`'s
    "args"), followed."""
    args: cst.BaseExpression | None = None
    if isinstance(declaration, cst.Call) and len(declaration.args) > 1 and declaration.args[1].keyword is None:
        args = declaration.args[1].value
    elif isinstance(declaration, ExampleInputs):
        args = declaration.args
    return reader._follow(args) if args is not None else None


def declared_examples(declaration: Declaration, reader: ShapesReader) -> tuple[ExampleSizes, ...]:
    """The example inputs' sizes, by position, of a declaration (an export call, or an
    `xport_example()` returning `(model, args)` or a dict with `args`): inputs written as
    factory calls (`torch.randn(2, 8)`) have them; others are None."""
    args = _declared_args(declaration, reader)
    if not isinstance(args, cst.Tuple):
        return ()
    return tuple(
        None if isinstance(e, cst.StarredElement) else factory_sizes(reader._follow(e.value), reader.resolve)
        for e in args.elements
    )


def declared_entry_ranks(declaration: Declaration, reader: ShapesReader) -> tuple[tuple[str, int], ...]:
    """The number of dimensions of each tensor inside a nested example input (a dict or tuple of
    factory calls), keyed by its path as `ShapesReader.entries` keys it (`#0['ids']`)."""
    args = _declared_args(declaration, reader)
    out: list[tuple[str, int]] = []
    if isinstance(args, cst.Tuple):
        for position, element in enumerate(args.elements):
            if not isinstance(element, cst.StarredElement):
                _entry_ranks(f"#{position}", element.value, reader, out, 0)
    return tuple(out)


def _entry_ranks(
    path: str, expr: cst.BaseExpression, reader: ShapesReader, out: list[tuple[str, int]], depth: int
) -> None:
    """Add the rank of each factory call inside the example `expr` (at `path`) to `out`."""
    expr = reader._follow(expr)
    parts: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    if isinstance(expr, cst.Dict):
        parts = [(reader._follow(e.key), e.value) for e in expr.elements if isinstance(e, cst.DictElement)]
    elif isinstance(expr, (cst.Tuple, cst.List)):
        parts = [(cst.Integer(str(i)), e.value) for i, e in enumerate(expr.elements)
                 if not isinstance(e, cst.StarredElement)]
    for key, value in parts if depth < 3 else ():
        inner = entry_path(path, key)
        sizes = factory_sizes(reader._follow(value), reader.resolve)
        if inner is not None and sizes is not None:
            out.append((inner, len(sizes)))
        elif inner is not None:
            _entry_ranks(inner, value, reader, out, depth + 1)


def declared_keyword_examples(declaration: Declaration, reader: ShapesReader) -> dict[str, ExampleSizes]:
    """The keyword example inputs' sizes, by name, of a declaration (an export call's `kwargs=`,
    an `xport_example()` dict's "kwargs" or the third element of its tuple): as
    `declared_examples`, for `forward(self, *, x)`."""
    kwargs: cst.BaseExpression | None = None
    if isinstance(declaration, cst.Call):
        kwargs = next((a.value for a in declaration.args if a.keyword is not None and a.keyword.value == "kwargs"),
                      None)
    elif isinstance(declaration, ExampleInputs):
        kwargs = declaration.kwargs
    kwargs = reader._follow(kwargs) if kwargs is not None else None
    if not isinstance(kwargs, cst.Dict):
        return {}
    return {
        key.evaluated_value: factory_sizes(reader._follow(e.value), reader.resolve)
        for e in kwargs.elements
        if isinstance(e, cst.DictElement) and isinstance(key := reader._follow(e.key), cst.SimpleString)
        and isinstance(key.evaluated_value, str)
    }


def declared_ranks(program: Any, name: str) -> dict[int, int]:
    """The number of dimensions of each example input, by position, of the declaration that
    exports the class `name` in this file (`program`: the file's facts), where written as a
    factory call; a keyword input at its parameter's position in `forward` (as `Sizes.positions`)."""
    if name not in program.declared_shapes or program.shapes_reader is None:
        return {}
    declaration = program.shape_declarations.get(name)
    if declaration is None:
        return {}
    examples = declared_examples(declaration, program.shapes_reader)
    ranks = {position: len(sizes) for position, sizes in enumerate(examples) if sizes is not None}
    keywords = declared_keyword_examples(declaration, program.shapes_reader)
    info = program.classes.get(name)
    forward = info.methods.get("forward") if info is not None and keywords else None
    if forward is not None:
        params = [p.name.value for p in (*forward.params.params, *forward.params.kwonly_params)
                  if p.name.value not in ("self", "cls")]
        ranks.update({params.index(key): len(sizes) for key, sizes in keywords.items()
                      if sizes is not None and key in params})
    return ranks


def config_ranks(config: ShapeConfig, func: cst.FunctionDef) -> dict[int, int]:
    """The ranks `config` gives the inputs of `func` (a submodule's `forward`), by position."""
    if not config.ranks:
        return {}
    params = [p.name.value for p in func.params.params if p.name.value not in ("self", "cls")]
    given = dict(config.ranks)
    return {
        position: given[key] for position, name in enumerate(params)
        for key in (name, f"#{position}") if key in given
    }


def factory_sizes(expr: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]) -> ExampleSizes:
    """`torch.randn(2, 8)`, `torch.zeros((2, 8))`, `torch.full((2, 8), 0.0)`, `torch.tensor([1, 500])`:
    each size, or None."""
    if isinstance(expr, cst.Call) and resolve(expr.func) in ("torch.tensor", "torch.as_tensor") and expr.args and (
        expr.args[0].keyword is None and not expr.args[0].star
    ):
        return _nested_shape(expr.args[0].value)
    if not isinstance(expr, cst.Call) or resolve(expr.func) not in _FACTORIES:
        return None
    positional = [a.value for a in expr.args if a.keyword is None and not a.star]
    name = resolve(expr.func)
    if name == "torch.full":
        positional = positional[:1]
    elif name == "torch.randint":
        positional = positional[-1:]
    if len(positional) == 1 and isinstance(positional[0], (cst.Tuple, cst.List)):
        positional = [e.value for e in positional[0].elements]
    elif name in ("torch.full", "torch.randint") or not positional or not all(
        isinstance(p, cst.Integer) for p in positional
    ):
        return None
    return tuple(integer_literal(p) for p in positional)


def _nested_shape(data: cst.BaseExpression, depth: int = 0) -> tuple[int, ...] | None:
    """The shape of a tensor written as nested lists of numbers (`[[1, 2], [3, 4]]`: (2, 2)), or None."""
    if isinstance(data, (cst.Integer, cst.Float)) or integer_literal(data) is not None or (
        isinstance(data, cst.Name) and data.value in ("True", "False")
    ):
        return ()
    if depth > 8 or not isinstance(data, (cst.List, cst.Tuple)) or not data.elements or any(
        not isinstance(e, cst.Element) for e in data.elements
    ):
        return None
    inner = {_nested_shape(e.value, depth + 1) for e in data.elements}
    if len(inner) != 1 or None in inner:
        return None
    return (len(data.elements), *inner.pop())  # type: ignore[misc]


def number_inputs(sites: Iterable[Any]) -> dict[int, frozenset[str]]:
    """The parameters of each exported `forward` (by the function's id) that every export site
    of the file fills with a Python number (`args=(torch.randn(4, 2), 3)`): export makes them
    constants of the program, so they are Python values, never tensors (`if n > 2:` is decided).
    `sites`: the file's `ExportSite`s."""
    numbers: dict[int, set[str]] = {}
    others: dict[int, set[str]] = {}
    for site in sites:
        if site.forward is None or site.examples is None:
            continue
        for param, example in zip(site.positional, site.examples, strict=False):
            number = isinstance(example, (cst.Integer, cst.Float)) or integer_literal(example) is not None
            (numbers if number else others).setdefault(id(site.forward), set()).add(param.name.value)
    return {key: frozenset(names - others.get(key, set())) for key, names in numbers.items()}


def tensor_entries(sites: Iterable[Any], reader: ShapesReader) -> dict[int, frozenset[str]]:
    """The entries of nested example inputs that hold tensors (a factory call), for each exported
    `forward` (by the function's id), by the path the body reads them at (`inputs['pixels']`,
    `pair[0]`, `batch['pair'][1]`): a dict parameter read by key stays a Python dict, but these
    entries of it are the example's tensors. `sites`: the file's `ExportSite`s."""
    found: dict[int, set[str]] = {}
    for site in sites:
        if site.forward is None:
            continue
        examples = zip(site.positional, site.examples or (), strict=False)
        named = [(param.name.value, example) for param, example in examples]
        named += [(name, example) for name, example, _ in site.keyword_examples]
        ranks: list[tuple[str, int]] = []
        for name, example in named:
            _entry_ranks(name, example, reader, ranks, 0)
        found.setdefault(id(site.forward), set()).update(path for path, _ in ranks)
    return {key: frozenset(paths) for key, paths in found.items() if paths}


def init_buffers(
    cls: cst.ClassDef, resolve: Callable[[cst.BaseExpression], str | None],
    config_value: Callable[[str], int | None] | None = None, with_defaults: bool = False,
) -> dict[str, tuple[int, ...]]:
    """Buffers and parameters `__init__` makes with literal sizes: `self.register_buffer("w",
    torch.ones(4, 3))`, `self.w = nn.Parameter(torch.randn(4, 3))`, `self.w =
    nn.Buffer(torch.arange(3).expand((4, -1)))` -> {"w": (4, 3)}. `config_value`: the default
    of a field of the configuration class the module is built from, for a length read from it
    (BERT's `torch.arange(config.max_position_embeddings)`: 512 in `BertConfig`). `with_defaults`:
    a length may be an argument of `__init__` with an integer default not rebound there
    (`max_positions=64`), its length in a model built with its defaults (a parent may build it
    with another)."""
    defaults = init_defaults(cls) if with_defaults else {}

    def length(expr: cst.BaseExpression) -> int | None:
        number = integer_literal(expr)
        if number is None and isinstance(expr, cst.Name) and expr.value not in bound:
            number = defaults.get(expr.value)
        if (number is None and config_value is not None and isinstance(expr, cst.Attribute)
                and dotted(expr.value) in ("config", "self.config")):
            found = config_value(expr.attr.value)
            number = found if type(found) is int else None
        return number

    init = init_method(cls)
    if init is None:
        return {}
    found: dict[str, list[ExampleSizes]] = {}
    #: `__init__`'s locals bound once (`emb = torch.cat((freqs, freqs), dim=-1)`, then `emb.cos()`)
    bound: dict[str, list[cst.BaseExpression | None]] = {}
    for stmt in _statements(init.body):
        for target in stmt.targets if isinstance(stmt, cst.Assign) else ():
            for name in _target_names(target.target):  # a name unpacked from a tuple has no one value
                bound.setdefault(name, []).append(stmt.value if isinstance(target.target, cst.Name) else None)
    local = {name: values[0] for name, values in bound.items() if len(values) == 1}.get
    for stmt in _statements(init.body):
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
            call = stmt.value
            func = call.func
            if (isinstance(func, cst.Attribute) and func.attr.value == "register_buffer" and len(call.args) >= 2
                    and isinstance(call.args[0].value, cst.SimpleString)):
                found.setdefault(str(call.args[0].value.evaluated_value), []).append(
                    _buffer_sizes(call.args[1].value, resolve, length, local))
        elif isinstance(stmt, cst.Assign):
            for target in stmt.targets:
                t = target.target
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    value = stmt.value
                    kind = (resolve(value.func) or "").rpartition(".")[2] if isinstance(value, cst.Call) else ""
                    if kind in _WEIGHT_ARGUMENTS:  # `self.pos = nn.Embedding(64, 16)`: `self.pos.weight` is (64, 16)
                        lengths = [length(argument) if (argument := _argument_of(value, position, keyword)) is not None
                                   else None for position, keyword in _WEIGHT_ARGUMENTS[kind]]
                        found.setdefault(f"{t.attr.value}.weight", []).append(tuple(lengths))
                        continue
                    if (isinstance(value, cst.Call) and (dotted(value.func) or "").endswith(("Parameter", "Buffer"))
                            and value.args):
                        value = value.args[0].value  # `nn.Parameter(...)`, `nn.Buffer(..., persistent=False)`
                    found.setdefault(t.attr.value, []).append(_buffer_sizes(value, resolve, length, local))
    return {
        name: values[0] for name, values in found.items()
        if len(values) == 1 and values[0] is not None and None not in values[0]
    }  # type: ignore[misc]


#: layers whose `weight` is sized by their constructor: its dimensions' (position, keyword)
_WEIGHT_ARGUMENTS = {
    "Embedding": ((0, "num_embeddings"), (1, "embedding_dim")),
    "Linear": ((1, "out_features"), (0, "in_features")),
}

#: what keeps every size of the tensor it is given (its other arguments are not sizes)
_SIZE_KEEPING_FUNCTIONS = frozenset({"torch.tril", "torch.triu"})
_SIZE_KEEPING_METHODS = frozenset({"tril", "triu", "bool", "float", "half", "long", "int", "to", "clone",
                                   "contiguous", "cos", "sin", "exp", "sqrt", "double"})


def _buffer_sizes(
    expr: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None],
    length: Callable[[cst.BaseExpression], int | None] = integer_literal,
    local: Callable[[str], cst.BaseExpression | None] = lambda name: None,
    expanding: frozenset[str] = frozenset(),
) -> ExampleSizes:
    """A buffer's literal sizes: a factory's (`factory_sizes`), `torch.arange(64)`'s (`length`
    reads its argument: a literal, or a configuration default), and those
    kept through `.expand(1, -1)`, `.unsqueeze(0)`, `.view(1, -1)` of them (position ids), and
    through ops that keep every size (`torch.tril(...)`, `.bool()`: a causal mask); `local`: a
    name `__init__` binds once, read as its value, so a rotary cache is sized through
    `torch.outer(torch.arange(64), inv)`, `torch.cat((f, f), dim=-1)`, `.cos()` and arithmetic
    with a number. `expanding`: the names being read as their values (`x = x * 2` binds `x` once
    from itself: not read again)."""
    def sizes(inner: cst.BaseExpression, expanded: frozenset[str] = expanding) -> ExampleSizes:
        return _buffer_sizes(inner, resolve, length, local, expanded)

    if isinstance(expr, cst.Name) and expr.value not in expanding and (value := local(expr.value)) is not None:
        return sizes(value, expanding | {expr.value})  # `emb = ...`, then `emb.cos()`
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE_OPERATORS + (cst.Power,)):
        if isinstance(expr.left, (cst.Integer, cst.Float)):
            return sizes(expr.right)  # `1.0 / (10000 ** (t / 8))`: a number keeps the tensor's sizes
        if isinstance(expr.right, (cst.Integer, cst.Float)):
            return sizes(expr.left)
        return None
    if isinstance(expr, cst.Call) and resolve(expr.func) in ("torch.outer", "torch.ger") and len(expr.args) == 2:
        a, b = sizes(expr.args[0].value), sizes(expr.args[1].value)
        return (a[0], b[0]) if a is not None and b is not None and len(a) == len(b) == 1 else None
    if isinstance(expr, cst.Call) and resolve(expr.func) in ("torch.cat", "torch.concat") and expr.args:
        parts = expr.args[0].value
        axis = next(
            (integer_literal(a.value) for a in expr.args[1:] if a.keyword is None or a.keyword.value == "dim"), 0
        )
        repeated = 1
        if isinstance(parts, cst.BinaryOperation) and isinstance(parts.operator, cst.Multiply):
            repeated, parts = integer_literal(parts.right) or 0, parts.left  # `[torch.outer(t, inv)] * 2`
        if not isinstance(parts, (cst.Tuple, cst.List)) or axis is None:
            return None
        shapes = [sizes(e.value) for e in parts.elements] * repeated
        if not shapes or any(s is None or None in s or len(s) != len(shapes[0]) for s in shapes):  # type: ignore[arg-type]
            return None
        at = axis % len(shapes[0])  # type: ignore[arg-type]
        if any(s[:at] + s[at + 1:] != shapes[0][:at] + shapes[0][at + 1:] for s in shapes):  # type: ignore[index,operator]
            return None
        return (*shapes[0][:at], sum(s[at] for s in shapes), *shapes[0][at + 1:])  # type: ignore[index,misc]
    if isinstance(expr, cst.Call) and resolve(expr.func) in _SIZE_KEEPING_FUNCTIONS and expr.args:
        return sizes(expr.args[0].value)  # `torch.tril(torch.ones(16, 16))`
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and resolve(expr.func) is None:
        inner = sizes(expr.func.value)
        if expr.func.attr.value in _SIZE_KEEPING_METHODS:
            return inner  # `.tril()`, `.bool()`, `.to(torch.bool)`
        numbers = [a.value for a in expr.args if a.keyword is None and not a.star]
        if len(numbers) == 1 and isinstance(numbers[0], (cst.Tuple, cst.List)):
            numbers = [e.value for e in numbers[0].elements]
        wanted = [integer_literal(n) for n in numbers]
        if inner is None or None in inner or None in wanted or any(a.keyword is not None or a.star for a in expr.args):
            return None
        method = expr.func.attr.value
        if method == "unsqueeze" and len(wanted) == 1 and 0 <= wanted[0] <= len(inner):  # type: ignore[operator]
            return (*inner[: wanted[0]], 1, *inner[wanted[0]:])
        if method == "repeat" and len(wanted) >= len(inner) and all(w >= 1 for w in wanted):  # type: ignore[operator]
            grown = (*([1] * (len(wanted) - len(inner))), *inner)
            return tuple(w * i for w, i in zip(wanted, grown, strict=True))  # type: ignore[operator]
        if method == "expand" and len(wanted) >= len(inner):
            new, kept = wanted[: len(wanted) - len(inner)], wanted[len(wanted) - len(inner):]
            if all(w == -1 or w == i or i == 1 for w, i in zip(kept, inner, strict=True)):
                return (*new, *(i if w == -1 else w for w, i in zip(kept, inner, strict=True)))
        if method in ("view", "reshape") and wanted.count(-1) <= 1 and all(w == -1 or w > 0 for w in wanted):  # type: ignore[operator]
            total, known = math.prod(inner), math.prod(w for w in wanted if w != -1)  # type: ignore[misc]
            if total % known == 0 and (-1 in wanted or known == total):
                return tuple(total // known if w == -1 else w for w in wanted)
        return None
    if isinstance(expr, cst.Call) and resolve(expr.func) == "torch.arange":
        bounds = [length(a.value) for a in expr.args if a.keyword is None]
        if len(bounds) == 1 and bounds[0] is not None and bounds[0] >= 0:
            return (bounds[0],)
        if len(bounds) in (2, 3) and None not in bounds and (bounds + [1])[2] > 0:  # type: ignore[operator]
            start, end, step = (*bounds, 1)[:3]  # `torch.arange(0, 8, 2)`
            return (max(-(-(end - start) // step), 0),)  # type: ignore[operator]
        return None
    return factory_sizes(expr, resolve)


def passed_config(classes: Any, declared: dict[str, ShapeConfig], name: str) -> ShapeConfig | None:
    """How a submodule class is exported when a declared model of this file passes its own
    inputs to it: `self.up = Up()` in `__init__`, `self.up(x)` in `forward`, `x` declared
    `{0: Dim("batch")}` -> `Up.forward`'s first parameter has that batch `Dim`. One such call
    site, arguments that are the caller's inputs never rebound; None otherwise."""
    callee = classes.get(name)
    callee_forward = callee.methods.get("forward") if callee is not None else None
    if callee_forward is None:
        return None
    params = [p.name.value for p in callee_forward.params.params if p.name.value not in ("self", "cls")]
    found = [
        passed for parent, config in declared.items()
        for passed in _passed(classes.get(parent), parent, config, lambda written: written.rpartition(".")[2] == name,
                              params)
    ]
    return found[0] if len(found) == 1 and found[0].inputs else None


def passed_elsewhere(
    classes: Any, declared: dict[str, ShapeConfig], ranks: Callable[[str], dict[int, int]] | None = None,
) -> dict[str, ShapeConfig]:
    """`passed_config` for submodule classes of another file (`from .blocks import Up`), by the
    class as written here: their `forward`'s parameters are not known in this file, so each
    input is keyed by its position in the call (`#0`). The index hands the config to the file
    that defines the class."""
    written: dict[str, list[ShapeConfig]] = {}
    if declared:  # and a class of this file a declared one passes its inputs to (`self.vit = ViT()`)
        declared = {**{name: found for name in classes if name not in declared
                       and (found := passed_config(classes, declared, name)) is not None}, **declared}
    for parent, config in declared.items():
        info = classes.get(parent)
        if info is None:
            continue
        for layer in {*init_layer_calls(info.node).values(), *init_listed_layers(info.node).values()}:
            if layer.partition(".")[0] in classes:
                continue  # a class of this file: `passed_config` reads its parameters
            given = ranks(parent) if ranks is not None else {}
            written.setdefault(layer, []).extend(_passed(info, parent, config, layer.__eq__, None, given))
    return {name: found[0] for name, found in written.items() if len(found) == 1 and found[0].inputs}


def _passed(
    info: Any, parent: str, config: ShapeConfig, is_layer: Callable[[str], bool], params: list[str] | None,
    ranks: dict[int, int] | None = None,
) -> list[ShapeConfig]:
    """One config per call of a submodule of `parent` (whose class `is_layer` accepts) that
    passes `parent.forward`'s inputs on: by the callee's `params`, or by position; also from a
    method of `parent` that `forward` hands its inputs to (`self.forward_features(x)`, two calls
    deep at most). `ranks`: the parent's inputs' numbers of dimensions, by position, where its
    example shows them."""
    forward = info.methods.get("forward") if info is not None else None
    init = info.methods.get("__init__") if info is not None else None
    if forward is None or init is None or not config.inputs:
        return []
    attrs = {attr for attr, layer in init_layer_calls(info.node).items() if is_layer(layer)}
    listed = {attr for attr, layer in init_listed_layers(info.node).items() if is_layer(layer)}
    if not attrs and not listed:
        return []
    layers = init_layers(info.node)
    source = f"{config.source}, passed on by `{parent}.forward`"
    found: list[ShapeConfig] = []

    def walk(method: cst.FunctionDef, given: ShapeConfig, given_ranks: dict[int, int], depth: int) -> None:
        sizes = Sizes(method, layers=layers, declared=given)  # `self.block(batch["ids"])` passes an entry
        first_layer_calls = _first_layer_calls(method, listed)
        for at, node in _calls(method):
            func = node.func
            if id(node) in first_layer_calls:
                # `for stage in self.stages: x = stage(x)`: the first stage is given the input itself
                inputs, passed_ranks = _arguments(sizes, node, at, given, params, given_ranks, first_turn=True)
                found.append(ShapeConfig(inputs, source, AUTO, config.path, config.line, passed_ranks))
                continue
            if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                    and func.value.value == "self"):
                continue
            name = func.attr.value
            if name in attrs:
                inputs, passed_ranks = _arguments(sizes, node, at, given, params, given_ranks)
                found.append(ShapeConfig(inputs, source, AUTO, config.path, config.line, passed_ranks))
                continue
            called = info.methods.get(name) if name not in layers and depth < 2 else None
            if called is not None and called is not method:
                names = [p.name.value for p in called.params.params if p.name.value not in ("self", "cls")]
                inputs, _ = _arguments(sizes, node, at, given, names, {})
                if any(dims for _, dims in inputs):
                    walk(called, ShapeConfig(inputs, given.source, STATIC), {}, depth + 1)

    own = {int(key[1:]): rank for key, rank in config.ranks if key[1:].isdigit()}  # the declaration's example
    walk(forward, config, ranks or own, 0)
    return found


def _first_layer_calls(method: cst.FunctionDef, listed: set[str]) -> set[int]:
    """The ids of the calls `layer(...)` in the body of a loop `for layer in self.<attr>:` (or
    over `enumerate(self.<attr>)`) over one of the `listed` `nn.ModuleList`s, `layer` bound by
    nothing else, whose arguments no statement before the call's binds: the loop's first turn
    calls the list's first layer with what the loop is entered with (`x = stage(x)`)."""
    if not listed:
        return set()
    statements = _statements(method.body)
    first_bound: dict[str, int] = {}
    for index, stmt in enumerate(statements):
        if isinstance(stmt, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)):
            for name in _targets_within(stmt) if not isinstance(stmt, cst.For) else _names_bound(stmt):
                first_bound.setdefault(name, index)
    found: set[int] = set()
    for at, stmt in enumerate(statements):
        loop = stmt if isinstance(stmt, cst.For) else None
        layer, layers = _layer_loop(loop) if loop is not None else (None, None)
        if loop is None or layer is None or not (
                isinstance(layers, cst.Attribute) and isinstance(layers.value, cst.Name)
                and layers.value.value == "self" and layers.attr.value in listed) or first_bound[layer] != at:
            continue
        if any(layer in _targets_within(inner) for inner in statements[at + 1:]):
            continue  # the name is bound again (another loop, an assignment)
        inside = {id(inner): index for index, inner in enumerate(statements) if index > at}
        for index, inner in ((inside[id(i)], i) for i in _statements(loop.body) if id(i) in inside):
            if not isinstance(inner, cst.BaseSmallStatement):
                continue
            found |= {id(node) for node in iter_nodes(inner) if isinstance(node, cst.Call)
                      and isinstance(node.func, cst.Name) and node.func.value == layer
                      and all(isinstance(a.value, cst.Name) and first_bound.get(a.value.value, index) >= index
                              for a in node.args)}
    return found


def _calls(method: cst.FunctionDef) -> Iterator[tuple[int, cst.Call]]:
    """Every call of `method`'s body, with the index (in `_statements` order, as `Sizes` counts)
    of the statement that makes it."""
    for at, stmt in enumerate(_statements(method.body)):
        small = isinstance(stmt, cst.BaseSmallStatement)
        for part in [stmt] if small else [c for c in children(stmt) if isinstance(c, cst.BaseExpression)]:
            for node in _walk(part):
                if isinstance(node, cst.Call):
                    yield at, node


def _arguments(
    sizes: Sizes, call: cst.Call, at: int, config: ShapeConfig, params: list[str] | None, ranks: dict[int, int],
    first_turn: bool = False,
) -> tuple[tuple[tuple[str, tuple[tuple[int, DimSpec], ...]], ...], tuple[tuple[str, int], ...]]:
    """What `call` (in statement `at`) passes of the caller's declared inputs: per parameter of
    the callee (by `params`, a keyword, or `#position`), the declared dimensions of the input
    (still the input there: `x = self.patch_embed(x)` reads it) or of the tensor computed from
    it; and the ranks of inputs passed whole, or of tensors whose rank is known (a declared entry).
    `first_turn`: the call is a loop's first turn, before anything rebinds the inputs it passes."""
    inputs = []
    passed_ranks = []
    for position, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is not None:  # `input_ids=input_ids`: the callee's parameter of that name
            key = arg.keyword.value
            if params is not None and key not in params:
                continue
        elif params is not None and position >= len(params):
            break
        else:
            key = params[position] if params is not None else f"#{position}"
        value = arg.value
        if not isinstance(value, cst.Name) or value.value not in sizes.positions:
            # a tensor computed from the inputs (`self.conv_in(sample)`): each of its leading
            # dimensions an op keeps carries that input dimension's declaration on
            carried = _carried(sizes, value, config)
            if carried:
                inputs.append((key, carried))
                rank = sizes.rank(value)  # a declared entry's (`batch["ids"]`), from the example
                if rank is not None:
                    passed_ranks.append((key, rank))
            continue
        first = sizes._first_rebound.get(value.value)
        if not first_turn and value.value in sizes.reassigned and (first is None or at > first):
            continue
        dims = next((d for written, d in config.inputs if written == value.value), None)
        if dims is None:
            dims = next((d for written, d in config.inputs if written == f"#{sizes.positions[value.value]}"), ())
        inputs.append((key, dims))
        rank = ranks.get(sizes.positions[value.value])
        if rank is not None:
            passed_ranks.append((key, rank))
    return tuple(inputs), tuple(passed_ranks)


def _carried(sizes: Sizes, value: cst.BaseExpression, config: ShapeConfig) -> tuple[tuple[int, DimSpec], ...]:
    """The declared dimensions of `forward`'s inputs that the tensor `value` keeps, by its own
    dimension (`self.conv_in(sample)` keeps `sample`'s batch as its dimension 0); a dimension no
    modelled op ties to an input is left out (static to the callee: nothing is claimed of it)."""
    carried = []
    for index in range(_BLOCK_DIMS):
        ref = sizes.dim_of(value, index)
        if ref is not None:
            spec = config.dim(*ref)
            if spec.kind is not DimKind.STATIC:
                carried.append((index, spec))
    return tuple(carried)


# -- the sizes an expression reads ---------------------------------------------------------------

#: a dimension of a `forward` input: (parameter, its position, dimension index)
SizeRef = tuple[str, int, int]
#: what a module's `forward` hands back of its arguments' dimensions: (dimension of the result,
#: position of the argument, that argument's dimension), for the dimensions every `return` agrees on
BlockDims = tuple[tuple[int, int, int], ...]
#: the result dimensions `block_dims` looks at (batch, channels or sequence, and two more)
_BLOCK_DIMS = 4


class Sizes:
    """The input dimensions a size expression of one `forward` reads, and its value for given
    sizes. Names assigned once are followed (`seq_len = x.size(1)`, `b, s, _ = x.shape`)."""

    def __init__(
        self, func: cst.FunctionDef, leaves: frozenset[str] = frozenset(), constants: dict[str, int] | None = None,
        layers: dict[str, str] | None = None, blocks: dict[str, cst.ClassDef] | None = None,
        inline: Callable[[cst.Call], cst.BaseExpression | None] | None = None,
        far: dict[str, BlockDims] | None = None, ranks: dict[int, int] | None = None,
        functions: dict[str, cst.FunctionDef] | None = None, declared: ShapeConfig | None = None,
        config_value: Callable[[str], object] | None = None, elsewhere: dict[str, int | None] | None = None,
        config_built: dict[str, int | None] | None = None, calls: dict[str, list[cst.Call]] | None = None,
        module_constants: dict[str, int] | None = None,
    ) -> None:
        """`leaves`: names whose value `evaluate` takes from its table (a Python number read
        from data, bounded by `torch._check`) instead of following their assignment.
        `constants`: `self.x` integers the class's `__init__` sets (see `init_constants`);
        `module_constants`: the file's module-level integer constants (`PATCH = 4`).
        `layers`: the class of each submodule `__init__` sets (see `init_layers`).
        `blocks`: the module classes of the file, by name: a submodule of one of them keeps the
        dimensions its `forward` returns of its arguments.
        `inline`: what a call of a one-line helper computes, written at the call (the dataflow's
        `FunctionFlow.inlined`: a helper of this file, or of another file by its summary), so a
        size read through `_rows(x)` or `_h(x.shape[0])` is the size it hands back.
        `far`: per submodule attribute whose class is in another file, what its `forward` keeps
        of its arguments' dimensions (`block_dims`, from that file's summary).
        `ranks`: the number of dimensions of each input, by position, where the export's example
        shows it (`torch.randn(2, 8)`): `x.shape[-1]` is then a dimension of its own.
        `functions`: the file's top-level functions, whose few straight-line statements a size
        is read through (`returned_at`), as the methods of the class are.
        `declared`: the export's declaration, whose entries of nested inputs (`{"batch": {"ids":
        {1: seq}}}`) are inputs of their own where the body reads them (`batch["ids"]`, `ids, mask
        = batch`).
        `config_value`: the default of a field of the configuration class the model is built
        from, for a layer's size read from it (`nn.Conv1d(c, h, config.kernel_size)`).
        `elsewhere`: what other files' calls building the class pass its `__init__`
        (`defaults_as_built`), and `config_built` what the project's calls building a
        configuration class pass it (`layer_integer`), for the same sizes; `calls`: the file's
        calls by the name they call (`calls_by_callee`), whose calls building the class
        `defaults_as_built` joins (else those in its module classes)."""
        self.functions = functions or {}
        self.func = func
        self.leaves = leaves
        self.ranks = dict(ranks or {})
        self.inline = inline
        self.far = far or {}
        #: id(call) -> (call, what it computes at the call): the call is kept so its id stays its own
        self._inlined: dict[int, tuple[cst.Call, cst.BaseExpression | None]] = {}
        self.constants = constants or {}
        #: the file's upper-case module-level names bound once to an integer (`PATCH = 4`)
        self.module_constants = module_constants or {}
        self.layers = layers or {}
        self.blocks = blocks or {}
        self.calls = calls
        self._inner: dict[int, Sizes] = {}
        #: (id(size expression), test position) -> (the expression, its term over input sizes)
        self._formulas: dict[tuple[int, int | None], tuple[cst.BaseExpression, Term | None]] = {}
        self._buffers: dict[str, tuple[int, ...]] | None = None
        #: the node is kept beside each answer so its id stays its own
        self._ranks_seen: dict[tuple[int, int | None], tuple[cst.BaseExpression, int | None]] = {}
        self._terms_seen: dict[tuple[int, int, int | None], tuple[cst.BaseExpression, Term | None]] = {}
        #: per `view` argument: (the argument, the sizes it lists), so a size written out is one node
        self._listed_seen: dict[int, tuple[cst.BaseExpression, list[cst.BaseExpression] | None]] = {}
        #: the methods of the class whose `forward` this is (`self._length(x)` reads through a one-line one)
        owner = self._owner = next((c for c in self.blocks.values() if any(s is func for s in c.body.body)), None)
        self.methods = {
            s.name.value: s for s in (owner.body.body if owner is not None else ()) if isinstance(s, cst.FunctionDef)
        }
        #: what reads a size the class's layers are built with (`layer_integer`)
        self.layer_integer = layer_integer(
            owner, functools.partial(_calls_building, owner, calls, self.blocks), config_value, elsewhere, config_built
        ) if owner is not None else integer_literal
        # keyword-only inputs (`forward(self, *, x)`) follow the positional ones, as a tuple
        # `dynamic_shapes` lists them
        params = [p for p in (*func.params.params, *func.params.kwonly_params) if p.name.value not in ("self", "cls")]
        self.positions = {p.name.value: i for i, p in enumerate(params)}
        #: path (`batch['ids']`) -> the parameter's position and the entry's rank, per declared entry
        self.entries = declared.entries(list(self.positions)) if declared is not None else {}
        #: parameters that hold a count, a Python int defaulting to a non-negative literal
        #: (`past_key_values_length: int = 0`): an offset a slice's bounds may add
        self.counts = frozenset(p.name.value for p in params if _count_param(p))
        #: a name of `a, *_, b = value`, and the element it takes (from the end where negative)
        self.unpacked: dict[str, tuple[cst.BaseExpression, int]] = {}
        assigned: dict[str, list[cst.BaseExpression]] = {}
        bound_otherwise: set[str] = set()  # by `+=`, a loop, `with ... as`: not one plain value
        #: where each test sits in source order, and where each input is first rebound (`x =
        #: pad(x)`): a test before that reads the input itself
        self._order: dict[int, int] = {}
        #: id(statement) -> its index: where a rule judging an op (not a test) reads names (`read_at`)
        self._statement_index: dict[int, int] = {}
        self._first_rebound: dict[str, int] = {}
        self._loops: list[cst.For] = []
        self._loop_bodies: dict[int, set[int]] = {}
        in_loops: set[int] = set()
        top = {id(small) for line in func.body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body}
        #: where each plain `name = value` sits: index, value, whether at the top of the body, whether in a loop
        placed: dict[str, list[tuple[int, cst.BaseExpression, bool, bool]]] = {}
        #: ids of the tests an `if` raises on, alone or as an `or` operand (`if h != self.size[0] or
        #: w != self.size[1]: raise ...`): each must be false on the example, as an assert's
        self.raised_on: set[int] = set()
        #: statements only a call without the first input runs (`else:` of `if input_ids is not
        #: None:`): the export's example passes it, so their bindings are not the values export sees
        untaken: set[int] = set()
        first = params[0].name.value if params else None
        for index, stmt in enumerate(_statements(func.body)):
            self._statement_index[id(stmt)] = index
            if isinstance(stmt, (cst.If, cst.While, cst.Assert)):
                self._order.update((id(node), index) for node in _walk(stmt.test))
                if isinstance(stmt, cst.If) and _raises(stmt.body):
                    self.raised_on.update(id(operand) for operand in _or_operands(stmt.test))
                if isinstance(stmt, cst.If) and first is not None:
                    arm = _arm_without(stmt, first)
                    if arm is not None:
                        untaken.update(id(inner) for inner in _statements(arm))
            if id(stmt) in untaken:
                continue
            elif isinstance(stmt, cst.Expr):  # `torch._check(...)`
                self._order.update((id(node), index) for node in _walk(stmt.value))
            if isinstance(stmt, (cst.For, cst.While)):
                in_loops.update(id(inner) for inner in _statements(stmt.body))
                if isinstance(stmt, cst.For):
                    self._loops.append(stmt)
                if isinstance(stmt, cst.For):
                    self._order.update((id(node), index) for node in _walk(stmt.iter))
            if isinstance(stmt, cst.Assign):
                for target in stmt.targets:
                    self._note(target.target, stmt.value, assigned)
                    if isinstance(target.target, cst.Name):
                        placed.setdefault(target.target.value, []).append(
                            (index, stmt.value, id(stmt) in top, id(stmt) in in_loops)
                        )
                    for name in _target_names(target.target):
                        if name in self.positions and id(stmt) not in in_loops:
                            self._first_rebound.setdefault(name, index)
                        elif name in self.positions:
                            bound_otherwise.add(name)
            elif isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name) and type(
                stmt.operator
            ) in _AUGMENTED:
                # `attn += bias` as `attn = attn + bias`: its own read of `attn` sees the binding before
                value = cst.BinaryOperation(stmt.target, _AUGMENTED[type(stmt.operator)](), stmt.value)
                self._note(stmt.target, value, assigned)
                placed.setdefault(stmt.target.value, []).append((index, value, id(stmt) in top, id(stmt) in in_loops))
            elif isinstance(stmt, (cst.AugAssign, cst.AnnAssign)):
                if isinstance(stmt.target, cst.Name):
                    bound_otherwise.add(stmt.target.value)
            elif isinstance(stmt, (cst.For, cst.With)):
                bound_otherwise.update(_names_bound(stmt))
        self.assigned = {name: values[0] for name, values in assigned.items() if len(values) == 1}
        self.reassigned = frozenset(
            name for name, values in assigned.items() if name in self.positions or len(values) > 1
        ) | bound_otherwise
        #: a local bound by plain assignments only, more than once (`h = self.conv(x)`, then `h = h +
        #: t[:, :, None, None]`), or an input rebound so (`x = self.proj(x)`): each binding's index,
        #: value and whether it is at the top of the body; a read takes the last binding before its
        #: statement where that one is unconditional (an input's read before any: the input)
        self._values = {
            name: [(index, value, at_top) for index, value, at_top, _ in bindings]
            for name, bindings in placed.items()
            if (len(bindings) > 1 or name in self.positions) and bindings[0][2]
            and len(bindings) == len(assigned.get(name, ()))
            and name not in bound_otherwise and name not in self.unpacked
            and not any(in_loop for *_, in_loop in bindings)
        } if placed else {}
        #: id(a `Name` reading such a local or an input) -> the index of the statement it is read in, found
        #: when `bound` first asks (a walk of the whole body: most `Sizes` are never asked)
        self._read_in: dict[int, int] | None = None
        self._at: int | None = None

    def bound(self, name: str, node: cst.Name | None = None) -> cst.BaseExpression | None:
        """The one value the local `name` holds where `node` (else the current test) reads it: its
        only binding, or the last before the read where that one is unconditional; None otherwise."""
        if name not in self.reassigned:
            return self.assigned.get(name)
        values = self._values.get(name)
        if values is None:
            return None
        if node is not None and self._read_in is None:
            self._read_in = _reads_of(self.func.body, {*self._values, *self.positions})
        at = self._read_in.get(id(node), self._at) if node is not None else self._at  # type: ignore[union-attr]
        if at is None:
            return None
        before = [(index, value, at_top) for index, value, at_top in values if index < at]
        if not before or not before[-1][2]:
            return None
        return before[-1][1]

    def read_at(self, statement: cst.CSTNode | None) -> None:
        """Read names as they stand when `statement` runs, for a rule judging an op rather than a
        test: `x = x.view(B, H // 7, 7, ...)` reads the input `x`, which only the next statement
        sees rebound. Only up to the last statement that first rebinds an input: after it, every
        read is the same (and answers cached per position stay shared)."""
        at = self._statement_index.get(id(statement)) if statement is not None else None
        self._at = at if at is not None and at <= max(self._first_rebound.values(), default=-1) else None

    def entry(self, expr: cst.BaseExpression) -> tuple[str, int] | None:
        """The declared entry of a nested input `expr` reads (`batch["ids"]`, `pair[0]`, of an
        input not rebound where it is read): its path and its parameter's position."""
        path = read_entry_path(expr, self._input) if self.entries else None
        return (path, self.entries[path][0]) if path in self.entries else None

    def reads_input(self, node: cst.Name) -> bool:
        """Whether this read of a `forward` input's name reads the input itself: the name is never
        rebound, or is read before (or in) the statement that first rebinds it (`x = torch.cat([cls,
        x], 1)` reads the input; `x + self.pos` after it reads the cat)."""
        name = node.value
        if name not in self.positions:
            return False
        if name not in self.reassigned:
            return True
        if self._read_in is None:
            self._read_in = _reads_of(self.func.body, {*self._values, *self.positions})
        at, first = self._read_in.get(id(node)), self._first_rebound.get(name)
        if at is None or first is None:
            # a read written for the analysis (a helper's body at its call), or an input rebound
            # only in a loop or by `+=`: where the current test reads it
            return self._input(name)
        return at <= first

    def _input(self, tensor: str | None) -> bool:
        """Whether `tensor` still names the `forward` input where the current test reads it."""
        if tensor is None or tensor not in self.positions:
            return False
        if tensor not in self.reassigned:
            return True
        first = self._first_rebound.get(tensor)
        return first is not None and self._at is not None and self._at <= first  # the rebinding reads it too

    def _note(
        self, target: cst.BaseExpression, value: cst.BaseExpression, assigned: dict[str, list[cst.BaseExpression]]
    ) -> None:
        if isinstance(target, cst.Name):
            assigned.setdefault(target.value, []).append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
            if not starred and isinstance(value, cst.Name) and f"{value.value}[0]" in self.entries:
                # `features, mask = batch` of a tuple input whose entries are declared: each its entry
                for index, element in enumerate(target.elements):
                    item = cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(index))))])
                    self._note(element.value, item, assigned)
                return
            if not starred and isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
                # `n, _ = x.shape[1], 0`: each name its own element
                for element, part in zip(target.elements, value.elements, strict=True):
                    self._note(element.value, part.value, assigned)
                return
            star = next((i for i, e in enumerate(target.elements) if isinstance(e, cst.StarredElement)), None)
            count = len(target.elements)
            if (not starred and isinstance(value, cst.Attribute) and value.attr.value == "shape"
                    and isinstance(value.value, cst.Name) and value.value.value in self.positions):
                self.ranks.setdefault(self.positions[value.value.value], count)  # `b, c, h, w = x.shape`
            for index, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    for name in _target_names(element.value):
                        assigned.setdefault(name, []).extend((element.value, element.value))
                elif isinstance(element.value, cst.Name):
                    assigned.setdefault(element.value.value, []).append(element.value)
                    # after a starred name, an element counts from the end (`*_, w = x.shape`)
                    place = index if star is None or index < star else index - count
                    self.unpacked[element.value.value] = (value, place)

    def refs(self, expr: cst.BaseExpression) -> list[SizeRef] | None:
        """Every input dimension `expr` reads; None when it reads a size this cannot place."""
        out: list[SizeRef] = []
        outer = self._at  # where `read_at` placed the op being judged, for a size that is no test
        self._at = self._order.get(id(expr), outer)
        try:
            return out if self._collect(expr, out, 0) else None
        finally:
            self._at = outer

    def _collect(self, expr: cst.BaseExpression, out: list[SizeRef], depth: int) -> bool:
        if depth > 16:
            return False
        ref = self.ref(expr)
        if ref is not None:
            out.append(ref)
            return True
        formula = self._formula(expr)
        if formula is not None:
            out.extend(term_refs(formula))
            return True
        if isinstance(expr, (cst.Integer, cst.Float)) or self._constant(expr) is not None:
            return True
        dims = self._numel(expr)
        if dims is not None:
            out.extend(dims)
            return True
        if isinstance(expr, cst.Name):
            if expr.value in self.unpacked and expr.value not in self.reassigned:
                part = self._unpacked_part(expr.value)
                return self._collect(part, out, depth + 1) if part is not None else self._unpacked_ref(expr.value, out)
            value = self.bound(expr.value, expr)
            if value is None or isinstance(value, cst.Name) and value is expr:
                return False
            return self._collect(value, out, depth + 1)
        inlined = self.called(expr)
        if inlined is not None:
            return self._collect(inlined, out, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._collect(expr.left, out, depth + 1) and self._collect(expr.right, out, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return self._collect(expr.expression, out, depth + 1)
        if isinstance(expr, cst.Comparison):
            return self._collect(expr.left, out, depth + 1) and all(
                self._collect(t.comparator, out, depth + 1) for t in expr.comparisons
            )
        if isinstance(expr, (cst.Tuple, cst.List)):  # `c in (3, 4)`
            return all(isinstance(e, cst.Element) and self._collect(e.value, out, depth + 1) for e in expr.elements)
        return False

    def held_value(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` is a Python value the model holds that no size model reads:
        `self.img_size[0]` or `self.num_channels` set in `__init__` from its config (not to a
        literal, a layer, a tensor or a buffer) and never assigned in `forward`."""
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            expr = expr.value
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            return False
        owner, attr = self._owner, expr.attr.value
        if owner is None or self._constant(expr) is not None or self._held(expr) is not None:
            return False
        built = init_layer_calls(owner).get(attr)
        if built is not None and (built.startswith(("torch", "nn.", "F.")) or built.rpartition(".")[2][:1].isupper()):
            return False  # a layer, a tensor, a `Parameter`
        init = init_method(owner)
        return init is not None and _assigns(init, attr) and not _assigns(self.func, attr) and not any(
            isinstance(n, cst.Call) and n.args and isinstance(n.args[0].value, cst.SimpleString)
            and n.args[0].value.evaluated_value == attr for n in _walk(init.body)
        )  # `register_buffer("img_size", ...)` names a tensor (a key `CONFIG["img_size"]` does not)

    def size_itself(self, expr: cst.BaseExpression) -> SizeRef | None:
        """The input dimension `expr` is, with no arithmetic on it: `x.shape[1]`, `seq_len` of
        `seq_len = x.size(1)`, `s` of `b, s = x.shape` or of `shape = x.size(); b, s = shape`."""
        expr = self.followed(expr)
        found = self.ref(expr)
        name = expr.value if isinstance(expr, cst.Name) else None
        if found is None and name in self.unpacked and name not in self.reassigned:
            part = self._unpacked_part(name)  # type: ignore[arg-type]
            if part is not None:
                return self.ref(self.followed(part))
            out: list[SizeRef] = []
            return out[0] if self._unpacked_ref(name, out) else None  # type: ignore[arg-type]
        return found

    def slice_end(self, part: cst.Slice) -> SizeRef | None:
        """The input dimension a slice `start : end` ends at, where the end is that size plus
        offsets that cannot be negative (`: seq_len`, `past : seq_len + past` with `past: int =
        0`, `: x.shape[1] + 1`) and the start one of those offsets: the slice fits a buffer of
        length `n` only while that size is at most `n`. None for any other slice."""
        if part.upper is None or part.step is not None or (part.lower is not None and not self._offset(part.lower)):
            return None
        ends = [term for term in _summands(self.followed(part.upper)) if not self._offset(term)]
        return self.size_itself(ends[0]) if len(ends) == 1 else None

    def _offset(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` is a count that cannot be negative: a literal, `self.n` of `__init__`, a
        `counts` parameter."""
        expr = self.followed(expr)
        number = integer_literal(expr)
        if number is None:
            number = self._constant(expr)
        if number is not None:
            return number >= 0
        return isinstance(expr, cst.Name) and expr.value in self.counts and expr.value not in self.reassigned

    @functools.cached_property
    def first_layer_calls(self) -> dict[int, tuple[str, str]]:
        """`layer(x)` of a loop over a list of submodules at the top of `forward` (`for layer in
        self.layers:`, `for i, layer in enumerate(self.layers):`), by id: the attribute looped
        over and the input `x` it is first given, where no statement before the loop, nor one
        before the call in the loop, rebinds that input (the first pass runs the list's first
        layer on the input itself)."""
        found: dict[int, tuple[str, str]] = {}
        rebound: set[str] = set()
        statements = self.func.body.body
        walked = 0  # the statements before a layer loop are walked only where there is one (most have none)
        for index, stmt in enumerate(statements):
            layer, layers = _layer_loop(stmt) if isinstance(stmt, cst.For) else (None, None)
            if layer is not None and isinstance(layers, cst.Attribute) and dotted(layers.value) == "self":
                for before in statements[walked:index]:
                    rebound.update(_targets_within(before))
                walked = index
                attr = layers.attr.value
                in_loop = set(rebound)
                for inner in stmt.body.body:  # type: ignore[attr-defined]
                    for call in iter_nodes(inner):
                        if (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == layer
                                and len(call.args) == 1 and isinstance(call.args[0].value, cst.Name)
                                and call.args[0].value.value not in in_loop):
                            found[id(call)] = (attr, call.args[0].value.value)
                    in_loop.update(_targets_within(inner))
        return found

    def followed(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What a name bound once stands for (through names bound to names, and one-line
        helpers' calls), else `expr`."""
        for _ in range(16):
            inlined = self.called(expr)
            if inlined is not None:
                expr = inlined
                continue
            if not isinstance(expr, cst.Name) or expr.value in self.unpacked:
                return expr
            value = self.bound(expr.value, expr)
            if value is None or value is expr:
                return expr
            expr = value
        return expr

    def called(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """What a call of a one-line helper computes, written at the call (see `inline`), or of a
        one-line method of the model (`self._length(x)` of `def _length(self, t): return t.size(0)`);
        else None."""
        if not isinstance(expr, cst.Call):
            return None
        found = self._inlined.get(id(expr))
        if found is None:
            written = self.inline(expr) if self.inline is not None else None
            func = expr.func
            method = (self.methods.get(func.attr.value) if isinstance(func, cst.Attribute)
                      and isinstance(func.value, cst.Name) and func.value.value == "self" else None)
            helper = self.functions.get(func.value) if isinstance(func, cst.Name) else None
            taken = {*self.positions, *self.assigned, *self.reassigned, *self.unpacked}
            if written is None and method is not None:
                written = method_at(method, expr) or returned_at(method, expr, method=True, taken=taken)
            elif written is None and helper is not None:
                written = returned_at(helper, expr, method=False, taken=taken)
            found = self._inlined[id(expr)] = (expr, written)
        return found[1]

    def _unpacked_part(self, name: str) -> cst.BaseExpression | None:
        """`h` of `h, w = _hw(x)` where the helper returns a tuple (`t.shape[1], t.shape[2]`):
        that element, written at the call."""
        value, index = self.unpacked[name]
        inlined = self.called(value)
        if isinstance(inlined, (cst.Tuple, cst.List)) and index < len(inlined.elements):
            element = inlined.elements[index]
            return None if isinstance(element, cst.StarredElement) else element.value
        return None

    def _unpacked_place(self, name: str) -> tuple[cst.BaseExpression, int] | None:
        """The tensor and dimension (from its end where negative) of a name unpacked from its
        shape: `b, c, h, w = x.shape`, also of a slice of it (`h, w = x.shape[-2:]`: the element
        counted from the slice's start)."""
        value, index = self.unpacked[name]
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Slice):
            part = value.slice[0].slice
            start = integer_literal(part.lower) if part.lower is not None else 0
            if part.upper is not None or part.step is not None or start is None or index < 0 or (
                start < 0 and start + index >= 0
            ):
                return None
            value, index = value.value, start + index
        tensor = self._shape_of(value)
        return (tensor, index) if tensor is not None else None

    def _unpacked_ref(self, name: str, out: list[SizeRef]) -> bool:
        place = self._unpacked_place(name)
        tensor = place[0] if place is not None else None
        index = self._from_start(tensor, place[1]) if place is not None else None
        found = self._dim_of(tensor, index, 1) if tensor is not None and index is not None else None
        if found is None:
            return False
        out.append(found)
        return True

    def _listed_size(
        self, sizes: cst.BaseExpression, at: cst.BaseExpression
    ) -> tuple[cst.BaseExpression | None, int | None]:
        """The tensor and dimension `sizes[at]` reads: of `t.shape`/`t.size()`, or of a slice of
        them from a non-negative start (`t.size()[:-1]`, `t.shape[1:]`, also bound to a name first:
        `input_shape = x.size()[:-1]`, then `input_shape[1]`), where `at` is non-negative."""
        index = integer_literal(at)
        tensor = self._shape_of(sizes)
        if tensor is not None or index is None or index < 0:
            return tensor, index
        listed = sizes
        if isinstance(listed, cst.Name) and listed.value not in self.positions:
            listed = self.bound(listed.value, listed) or listed
        if not (isinstance(listed, cst.Subscript) and len(listed.slice) == 1
                and isinstance(listed.slice[0].slice, cst.Slice)):
            return None, index
        part = listed.slice[0].slice
        start = integer_literal(part.lower) if part.lower is not None else 0
        if part.step is not None or start is None or start < 0:
            return None, index
        return self._shape_of(listed.value), start + index

    def view_targets(self, args: Sequence[cst.Arg]) -> list[cst.BaseExpression] | None:
        """The sizes `view`/`reshape` is given, also as a shape built from another's
        (`x.view(x.size()[:-1] + (h, d))`, `x.view(*x.shape[:-1], h, d)`, through a name bound
        once): each size read from a shape written out as `t.shape[i]`. None where one is not known."""
        if any(a.keyword is not None for a in args):
            return None
        if len(args) == 1 and not args[0].star:
            listed = self._listed(args[0].value)
            if listed is not None:
                return listed
            followed = self.followed(args[0].value)
            if isinstance(followed, (cst.Tuple, cst.List)) or self._shape_of(followed) is not None or (
                isinstance(followed, cst.BinaryOperation) and not self.is_number(followed)
            ):
                return None  # a shape whose sizes are not known
            return [args[0].value]
        out: list[cst.BaseExpression] = []
        for arg in args:
            listed = self._listed(arg.value) if arg.star else [arg.value]
            if listed is None:
                return None
            out += listed
        return out

    def loop_instances(self, test: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """`test` once per size a loop over a shape gives its target (`for dim in x.shape[-2:]:
        if dim % 2 != 0: ...` is `x.shape[2] % 2 != 0`, then `x.shape[3] % 2 != 0`: Python runs
        the loop once per size and export guards each); None where no such loop holds `test`."""
        read = {node.value for node in _walk(test) if isinstance(node, cst.Name)}
        ids: set[int] | None = None
        for loop in self._loops:
            target = loop.target
            if not isinstance(target, cst.Name) or target.value not in read:
                continue
            ids = {id(node) for node in _walk(test)} if ids is None else ids
            if ids.isdisjoint(self._loop_body(loop)):
                continue
            listed = self._listed(_unwrapped_shape(loop.iter))
            if not listed:
                return None
            return [test.visit(_NameReplaced(target.value, size)) for size in listed]  # type: ignore[misc]
        return None

    def _loop_body(self, loop: cst.For) -> set[int]:
        """The ids of every node in `loop`'s body, computed once per loop."""
        body = self._loop_bodies.get(id(loop))
        if body is None:
            body = self._loop_bodies[id(loop)] = {id(node) for stmt in _statements(loop.body) for node in _walk(stmt)}
        return body

    def compared_whole(
        self, test: cst.BaseExpression, operator: type[cst.BaseCompOp] | tuple[type[cst.BaseCompOp], ...]
    ) -> list[cst.Comparison] | None:
        """A comparison of whole shapes by `operator` (`x.shape[2:] == (32, 32)`, `tuple(x.shape[-2:])
        == self.img_size`, `x.shape[1:] != self.pos.shape`), `cst.Equal` or `cst.NotEqual` or a tuple
        of both, as the comparisons of its sizes one by one (Python compares tuples element by
        element; export guards each): where one side lists sizes, the other's element `i` is read
        `other[i]`. None for anything else. The comparison may be bound to a name first, unpacked, or a helper's."""
        test = self.followed(test)
        if isinstance(test, cst.Name) and test.value in self.unpacked and test.value not in self.reassigned:
            test = self.followed(self._unpacked_part(test.value) or test)
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, operator)):
            return None
        sides = [_unwrapped_shape(self.followed(side)) for side in (test.left, test.comparisons[0].comparator)]
        listed = [self._listed(side) for side in sides]
        if all(found is None for found in listed):
            return None
        count = len(next(found for found in listed if found is not None))
        elements = [found if found is not None else [
            cst.Subscript(side, [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))]) for i in range(count)
        ] for side, found in zip(sides, listed, strict=True)]
        if len(elements[0]) != len(elements[1]) or not count:
            return None
        compared = test.comparisons[0].operator
        return [cst.Comparison(a, [cst.ComparisonTarget(compared, b)]) for a, b in zip(*elements, strict=True)]

    def _listed(self, expr: cst.BaseExpression, depth: int = 0) -> list[cst.BaseExpression] | None:
        """The sizes a shape expression lists: a tuple, `t.shape`/`t.size()` and slices of it by
        literals (of a tensor whose rank is known), and `+` of those."""
        seen = self._listed_seen.get(id(expr))
        if seen is not None:
            return seen[1]
        found = self._listed_of(expr, depth)
        self._listed_seen[id(expr)] = (expr, found)
        return found

    def _listed_of(self, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression] | None:
        if depth > 8:
            return None
        followed = self.followed(expr)
        if isinstance(followed, (cst.Tuple, cst.List)):
            out: list[cst.BaseExpression] = []
            for element in followed.elements:
                listed = self._listed(element.value, depth + 1) if isinstance(element, cst.StarredElement) else [
                    element.value]
                if listed is None:
                    return None
                out += listed
            return out
        if isinstance(followed, cst.BinaryOperation) and isinstance(followed.operator, cst.Add):
            left, right = self._listed(followed.left, depth + 1), self._listed(followed.right, depth + 1)
            return left + right if left is not None and right is not None else None
        part: cst.Slice | None = None
        sliced = followed.slice[0].slice if isinstance(followed, cst.Subscript) and len(followed.slice) == 1 else None
        if isinstance(sliced, cst.Slice):
            part, followed = sliced, followed.value  # type: ignore[attr-defined]
        tensor = self._shape_of(_unwrapped_shape(followed))  # `tuple(x.size())[2:]`
        rank = self._rank(tensor, depth + 1) if tensor is not None else None
        if tensor is None or rank is None:
            return None
        bounds = [0 if part is None or part.lower is None else integer_literal(part.lower),
                  rank if part is None or part.upper is None else integer_literal(part.upper)]
        if None in bounds or (part is not None and part.step is not None):
            return None
        start, stop = (b + rank if b < 0 else b for b in bounds)  # type: ignore[operator]
        return [cst.Subscript(cst.Attribute(tensor, cst.Name("shape")), [cst.SubscriptElement(cst.Index(
            cst.Integer(str(index))))]) for index in range(max(start, 0), min(stop, rank))]

    def _shape_of(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The tensor of `t.shape` / `t.size()`, also handed back by a helper (`_shape(x)` of
        `def _shape(t): return t.shape`)."""
        if isinstance(expr, cst.Attribute) and expr.attr.value == "shape":
            return expr.value
        if (
            isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "size"
        ):
            return expr.func.value
        if isinstance(expr, cst.Name) and expr.value not in self.positions:
            value = self.bound(expr.value, expr)  # `shape = x.shape`, then `shape[1]`
            return self._shape_of(value) if value is not None and value is not expr else None
        inlined = self.called(expr)
        return self._shape_of(inlined) if inlined is not None else None

    def shape_refs(self, expr: cst.BaseExpression) -> list[SizeRef] | None:
        """Every dimension of the input whose whole shape `expr` is (`x.shape`, `x.size()`, a
        name bound to one), where its rank is known; else None."""
        tensor = self._shape_of(expr)
        if not isinstance(tensor, cst.Name) or not self._input(tensor.value):
            return None
        position = self.positions[tensor.value]
        rank = self.ranks.get(position)
        return [(tensor.value, position, index) for index in range(rank)] if rank is not None else None

    def _numel(self, expr: cst.BaseExpression) -> list[SizeRef] | None:
        """Every dimension of the input whose `numel()` `expr` is (its size is their product),
        where its rank is known; else None."""
        if not (isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value == "numel" and isinstance(expr.func.value, cst.Name)):
            return None
        tensor = expr.func.value.value
        rank = self.ranks.get(self.positions[tensor]) if self._input(tensor) else None
        return [(tensor, self.positions[tensor], index) for index in range(rank)] if rank is not None else None

    def _from_start(self, tensor: cst.BaseExpression, index: int) -> int | None:
        """`index` counted from the start: a negative one of a tensor whose rank is known (an
        input's from the example, or `b, c, h, w = x.shape` in the body; a rebound name's from the
        ops that made it), else None."""
        if index >= 0:
            return index
        if not isinstance(tensor, cst.Name):
            return None
        rank = self._rank(tensor, 0)
        return index + rank if rank is not None and index >= -rank else None

    def ref(self, expr: cst.BaseExpression) -> SizeRef | None:
        """`x.shape[1]`, `x.size(1)`, `x.size()[1]`, `len(x)` of a `forward` parameter `x` (or
        of a tensor computed from one, where the ops keep the dimension; or handed back by a
        one-line helper: `_rows(x)` of `def _rows(t): return t.shape[0]`)."""
        read = self.size_read(expr)
        if read is None:
            inlined = self.called(expr) if isinstance(expr, cst.Call) else None
            return self.ref(inlined) if inlined is not None else None
        tensor, index = read[0], self._from_start(*read)
        if index is None:
            return None
        if isinstance(tensor, cst.Name):
            return self.through(tensor.value, index, read=tensor)
        return self._dim_of(tensor, index, 1)

    def size_read(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
        """The tensor and dimension (as written: -1 stays -1) of `t.shape[k]`, `t.size(k)`,
        `t.size()[k]`, `shape[k]` of `shape = t.shape`, `len(t)`; None for anything else."""
        tensor: cst.BaseExpression | None = None
        index = None
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            tensor, index = self._listed_size(expr.value, expr.slice[0].slice.value)
        elif isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].star:
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value == "size":
                tensor, index = func.value, integer_literal(expr.args[0].value)
            elif isinstance(func, cst.Name) and func.value == "len":
                tensor, index = expr.args[0].value, 0
        return (tensor, index) if tensor is not None and index is not None else None

    def rounded_up_pool(self, call: cst.Call) -> tuple[cst.BaseExpression, int, list[int | None]] | None:
        """`(tensor, spatial dimensions, stride of each)` where `call` applies a max or average
        pool built with `ceil_mode=True` to `tensor`: `F.max_pool2d(x, 3, 2, ceil_mode=True)`,
        `self.pool(x)` of such a layer, or `self.features(x)` of an `nn.Sequential` holding one
        after layers that carry its input's sizes (convolutions, pools, norms, activations): the
        pool's sizes then read the same input dimensions as the `Sequential`'s."""
        if not call.args or call.args[0].keyword is not None or any(a.star for a in call.args):
            return None
        first = call.args[0].value
        applied = self._applied_layer(call)
        if applied is None:
            return None
        kind, built, integer = applied
        if kind == "Sequential":
            members = built.args if built is not None else ()
            for member in members:
                if member.keyword is not None or member.star or not isinstance(member.value, cst.Call):
                    return None
                kind = (dotted(member.value.func) or "").rpartition(".")[2]
                strides = rounded_up_strides(kind, member.value, self.layer_integer)
                if strides is not None:
                    return first, len(strides), strides
                if kind not in _CARRYING_LAYERS:
                    return None
            return None
        strides = rounded_up_strides(kind, built, integer)
        return (first, len(strides), strides) if strides is not None else None

    def windowed(self, expr: cst.BaseExpression) -> bool:
        """Whether the tensor `expr` comes out of a pool (`F.max_pool2d(...)`, or a layer of this
        model: `self.pool(x)` of `nn.AvgPool2d`), whose sizes are divided by its stride even where
        the size model gives none (`ceil_mode=True`)."""
        expr = self.followed(expr)
        applied = self._applied_layer(expr) if isinstance(expr, cst.Call) else None
        return applied is not None and applied[0][:-2] in ("MaxPool", "AvgPool")

    def _applied_layer(
        self, call: cst.Call,
    ) -> tuple[str, cst.Call | None, Callable[[cst.BaseExpression], int | None]] | None:
        """The layer `call` applies, the call building it and what reads that call's sizes: a layer
        of this model (`self.pool(x)`, its sizes read with `__init__`'s defaults) or a functional
        pool (`F.max_pool2d(x, 2)` read as `MaxPool2d(2)`, its sizes literals)."""
        layer = self._layer(call)
        if layer is not None:
            return layer[0], layer[1], self.layer_integer
        name = (dotted(call.func) or "").rpartition(".")[2] if _is_module_call(call.func) else ""
        kind = _FUNCTIONAL_POOLS.get(name)
        return (kind, cst.Call(cst.Name(kind), call.args[1:]), integer_literal) if kind else None

    def through(self, tensor: str, index: int, depth: int = 0, read: cst.Name | None = None) -> SizeRef | None:
        """The input dimension that dimension `index` of the tensor named `tensor` is: the input's
        own, or followed through the ops that keep it (`h = self.proj(x)`: `Linear` keeps every
        dimension but the last; `self.norm(h)`, `h.float()`, `torch.relu(h)`, `h * 2` keep all;
        `transpose`/`permute`/`unsqueeze` move it). None where an op not modelled made it. `read`:
        the name as read, which places a read of a rebound input (`x = self.proj(x)`, then
        `x.shape[1]` reads the projection)."""
        if self.reads_input(read) if read is not None else self._input(tensor):
            return tensor, self.positions[tensor], index
        if depth > 12 or (tensor in self.positions and (read is None or tensor not in self._values)):
            return None
        value = self.bound(tensor, read)
        return self._dim_of(value, index, depth + 1) if value is not None and value is not read else None

    def dim_of(self, expr: cst.BaseExpression, index: int) -> SizeRef | None:
        """The input dimension that dimension `index` of the tensor `expr` computes is (see `through`)."""
        return self._dim_of(expr, index, 0)

    def _dim_of(self, expr: cst.BaseExpression, index: int, depth: int) -> SizeRef | None:  # noqa: C901 - one dispatch
        entry = self.entry(expr)
        if entry is not None:
            return entry[0], entry[1], index
        if isinstance(expr, cst.Name):
            return self.through(expr.value, index, depth, read=expr)
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in _ELEMENTWISE_OPERATORS:
            return self._dim_of(expr.left, index, depth) or self._dim_of(expr.right, index, depth)
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return None
        func = expr.func
        first = expr.args[0].value if expr.args and expr.args[0].keyword is None else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            layer = self.layers.get(func.attr.value)
            if layer in _ADD_OR_CHANGE_LAST_LAYERS:
                adds = layer == "Embedding"
                return self._through_last_changed(adds, first, index, depth) if first is not None else None
            keeps = layer in KEEP_ALL_LAYERS or (layer in _KEEP_FIRST_LAYERS and index == 0)
            if layer in self.blocks and not keeps:
                return self._through_block(self.blocks[layer], expr, index, depth)
            kept = self.far.get(func.attr.value)
            if kept is not None and not keeps:
                return self._through_far(kept, expr, index, depth)
            return self._dim_of(first, index, depth) if keeps and first is not None else None
        if isinstance(func, cst.Attribute) and not (isinstance(func.value, cst.Name) and func.value.value in _MODULES):
            method = func.attr.value
            if method in KEEP_ALL_METHODS:
                return self._dim_of(func.value, index, depth)
            numbers = [integer_literal(a.value) for a in expr.args]
            if None in numbers or any(n < 0 for n in numbers):  # type: ignore[operator]
                return None
            if method == "t" and not numbers and index in (0, 1):  # a matrix's transpose
                return self._dim_of(func.value, 1 - index, depth)
            if method in ("transpose", "swapaxes") and len(numbers) == 2:
                a, b = numbers
                moved = b if index == a else a if index == b else index
                return self._dim_of(func.value, moved, depth)  # type: ignore[arg-type]
            if method == "permute" and index < len(numbers):
                return self._dim_of(func.value, numbers[index], depth)  # type: ignore[arg-type]
            if method == "unsqueeze" and len(numbers) == 1 and index != numbers[0]:
                return self._dim_of(func.value, index - (index > numbers[0]), depth)  # type: ignore[operator]
            return None
        name = dotted(func) or ""
        if first is not None and name.rpartition(".")[2] in KEEP_ALL_FUNCTIONS and name.split(".")[0] in _MODULES:
            return self._dim_of(first, index, depth)
        if name in _SIZED_FACTORIES:  # `torch.rand(n, L)`: dimension 1 is `L`
            given = [a.value for a in expr.args if a.keyword is None]
            listed = self._listed(given[0]) if len(given) == 1 else given
            return self.size_itself(listed[index]) if listed is not None and index < len(listed) else None
        inlined = self.called(expr)
        return self._dim_of(inlined, index, depth + 1) if inlined is not None else None

    def _through_last_changed(self, adds: bool, first: cst.BaseExpression, index: int, depth: int) -> SizeRef | None:
        """Dimension `index` of `self.proj(x)` (`Linear`: the last dimension becomes the layer's
        width) or `self.embed(ids)` (`Embedding`: a last dimension is added): the input's, except
        the last; a non-negative index short of the last only where the input's rank is known,
        or the batch dimension of a `Linear`."""
        if index == -1:
            return None
        if index < 0:
            return self._dim_of(first, index + 1 if adds else index, depth)
        last = self._from_start(first, -1)
        if last is None:
            return self._dim_of(first, index, depth) if index == 0 or adds else None
        return self._dim_of(first, index, depth) if index < last + adds else None

    def _through_block(self, block: cst.ClassDef, call: cst.Call, index: int, depth: int) -> SizeRef | None:
        """Dimension `index` of `self.block(x)`, where the block's class is in this file: the
        dimension of the argument its `forward` hands back there (`return self.norm(h) + h`
        keeps every dimension of `h`), when every `return` agrees; None otherwise."""
        forward = next(
            (stmt for stmt in block.body.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "forward"),
            None,
        )
        if forward is None or any(a.keyword is not None or a.star for a in call.args):
            return None
        inner = self._inner.get(id(block))
        if inner is None:
            inner = self._inner[id(block)] = Sizes(
                forward, layers=init_layers(block), blocks=self.blocks, calls=self.calls
            )
        returned = [
            stmt.value for stmt in _statements(forward.body) if isinstance(stmt, cst.Return) and stmt.value is not None
        ]
        found = {inner._dim_of(value, index, depth + 1) for value in returned}
        if len(found) != 1 or None in found:
            return None
        ((_, position, inner_index),) = found  # type: ignore[misc]
        if position >= len(call.args):
            return None
        return self._dim_of(call.args[position].value, inner_index, depth + 1)

    def _through_far(self, kept: BlockDims, call: cst.Call, index: int, depth: int) -> SizeRef | None:
        """Dimension `index` of `self.block(x)` where the block's class is in another file: the
        argument's dimension its summary says `forward` hands back there."""
        found = next(((position, inner) for out, position, inner in kept if out == index), None)
        if found is None or any(a.keyword is not None or a.star for a in call.args) or found[0] >= len(call.args):
            return None
        return self._dim_of(call.args[found[0]].value, found[1], depth + 1)

    # -- what each op does to sizes ---------------------------------------------------------------

    def _formula(self, expr: cst.BaseExpression) -> Term | None:
        """A size read off a tensor an op computed (`h.shape[-1]` of `h = F.pad(x, (1, 1))`: the
        input's width plus 2), as a term over input sizes; None where an op on the way is not
        modelled. Cached per node and test position (a branch is sampled many times)."""
        tensor: cst.BaseExpression | None = None
        index = None
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            tensor, index = self._listed_size(expr.value, expr.slice[0].slice.value)
        elif (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "size"
              and len(expr.args) == 1 and expr.args[0].keyword is None):
            tensor, index = expr.func.value, integer_literal(expr.args[0].value)
        if tensor is None or index is None:
            return None
        key = (id(expr), self._at)
        found = self._formulas.get(key)
        if found is None:
            found = self._formulas[key] = (expr, self._size_term(tensor, index, 0))
        return found[1]

    def rank(self, expr: cst.BaseExpression) -> int | None:
        """How many dimensions the tensor `expr` has (None: not shown by the inputs and ops)."""
        return self._rank(expr, 0)

    def size_term(self, expr: cst.BaseExpression, index: int) -> Term | None:
        """Dimension `index` of the tensor `expr` as a term over the input sizes, by the per-op
        model below (None: an op not modelled made it)."""
        return self._size_term(expr, index, 0)

    def number_term(self, expr: cst.BaseExpression) -> Term | None:
        """The integer size expression `expr` (`n * c` of `b, n, c = x.shape`) as a term over the
        input sizes (None: not one the model reads)."""
        return self._term(expr, 0)

    def integer(self, expr: cst.BaseExpression) -> int | None:
        """The integer `expr` always holds: a literal, through names bound once, or `self.k` /
        `self.size[0]` as `__init__` sets it (the `k` of `s // k`, a window or patch size)."""
        expr = self.followed(expr)
        return integer_literal(expr) if integer_literal(expr) is not None else self._constant(expr)

    def _rank(self, expr: cst.BaseExpression, depth: int) -> int | None:
        """How many dimensions the tensor `expr` has, where the inputs' ranks and the ops show it
        (once per node and test position: operands may share subexpressions)."""
        if depth > _DEPTH:
            return None
        key = (id(expr), self._at)
        found = self._ranks_seen.get(key)
        if found is None:
            found = self._ranks_seen[key] = (expr, self._rank_of(expr, depth))
        return found[1]

    def _rank_of(self, expr: cst.BaseExpression, depth: int) -> int | None:  # noqa: C901 - one table
        entry = self.entry(expr)
        if entry is not None:
            return self.entries[entry[0]][1]
        if isinstance(expr, cst.Name):
            if self.reads_input(expr):
                return self.ranks.get(self.positions[expr.value])
            followed = expr.value not in self.positions or expr.value in self._values
            value = self.bound(expr.value, expr) if followed else None
            return self._rank(value, depth + 1) if value is not None and value is not expr else None
        held = self._held(expr)
        if held is not None:
            return len(held)
        if isinstance(expr, cst.BinaryOperation):
            ranks = [self._operand_rank(part, depth + 1) for part in (expr.left, expr.right)]
            return None if None in ranks else max(ranks)  # type: ignore[type-var]
        if isinstance(expr, cst.Subscript):
            return self._indexed(expr, depth, None)  # type: ignore[return-value]
        if not isinstance(expr, cst.Call) or not arguments_read(expr):
            return None
        func, args = expr.func, expr.args
        first = args[0].value if args and args[0].keyword is None else None
        layer = self._layer(expr)
        if layer is not None:
            kind, built = layer
            rank = self._rank(first, depth + 1) if first is not None else None
            if kind == "Sequential":
                kinds = [(dotted(a.value.func) or "").rpartition(".")[2] if isinstance(a.value, cst.Call) else ""
                         for a in (built.args if built is not None else ())]
                if built is None or not all(k in _LAYER_RANKS and k != "Sequential" for k in kinds):
                    return None
                return None if rank is None else rank + sum(_LAYER_RANKS[k] for k in kinds)
            return None if rank is None else rank + _LAYER_RANKS[kind]
        if isinstance(func, cst.Attribute) and not _is_module(func.value):
            method, tensor = func.attr.value, func.value
            if method in ("view", "reshape", "expand", "repeat", "permute"):
                sizes = self.view_targets(args) if method in ("view", "reshape") else view_sizes(args)
                return len(sizes) if sizes is not None else None
            rank = self._rank(tensor, depth + 1)
            if rank is None:
                return None
            if method in KEEP_ALL_METHODS or method in ("transpose", "swapaxes", "narrow", "t"):
                return rank
            if method == "unsqueeze":
                return rank + 1
            if method == "flatten":
                start, end = flatten_span(args, rank)
                return None if start is None else rank - (end - start)  # type: ignore[operator]
            if method == "unflatten" and len(args) == 2 and isinstance(args[1].value, (cst.Tuple, cst.List)):
                return rank + len(args[1].value.elements) - 1
            if method in _REDUCTIONS:
                dim, keep = _reduced(args)
                return rank if keep else None if dim is None else rank - 1
            return None
        name = (dotted(func) or "").rpartition(".")[2] if _is_module_call(func) else ""
        if name in KEEP_ALL_FUNCTIONS or name in _FUNCTIONAL_POOLS or name in (
            "pad", "interpolate", "cat", "concat", "concatenate", "pixel_shuffle", "narrow"
        ):
            target = first
            if name in ("cat", "concat", "concatenate"):
                target = _first_element(first)
            return self._rank(target, depth + 1) if target is not None else None
        if name == "stack":
            target = _first_element(first)
            rank = self._rank(target, depth + 1) if target is not None else None
            return None if rank is None else rank + 1
        if name == "flatten" and first is not None:  # `torch.flatten(x, 1)`: as `x.flatten(1)`
            rank = self._rank(first, depth + 1)
            start, end = flatten_span(args[1:], rank) if rank is not None else (None, None)
            return None if start is None or rank is None else rank - (end - start)  # type: ignore[operator]
        if name in ("matmul", "bmm") and len(args) == 2:
            ranks = [self._rank(a.value, depth + 1) for a in args]
            return None if None in ranks or min(ranks) < 2 else max(ranks)  # type: ignore[type-var,operator]
        inlined = self.called(expr)
        return self._rank(inlined, depth + 1) if inlined is not None else None

    def _operand_rank(self, expr: cst.BaseExpression, depth: int) -> int | None:
        """The rank of an operand of `+`/`*`/`@`: 0 for a number."""
        return 0 if self.is_number(expr, depth) else self._rank(expr, depth)

    def is_number(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether `expr` is a Python number: a literal, a size (`q.shape[-1]`), a constant of
        `__init__`, or arithmetic and `math`/`int`/`float` calls of those (`math.sqrt(8)`,
        `head_dim ** -0.5`); a scale that keeps a tensor's sizes (`scores / math.sqrt(d)`)."""
        if depth > _DEPTH:
            return False
        if isinstance(expr, (cst.Integer, cst.Float)) or self._constant(expr) is not None:
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self.is_number(expr.expression, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self.is_number(expr.left, depth + 1) and self.is_number(expr.right, depth + 1)
        if isinstance(expr, cst.Call):
            name = dotted(expr.func) or ""
            if name.startswith("math.") or name in ("int", "float", "round", "abs"):
                return all(a.keyword is None and not a.star and self.is_number(a.value, depth + 1) for a in expr.args)
        if isinstance(expr, cst.Name) and expr.value not in self.positions:
            if expr.value in self.unpacked:  # `b, n, c = x.shape`
                return self._shape_of(self.unpacked[expr.value][0]) is not None
            value = self.bound(expr.value, expr)
            if value is not None and value is not expr:
                return self.is_number(value, depth + 1)
        return _size_read(expr) or self._term(expr, depth + 1) is not None

    def _size_term(self, expr: cst.BaseExpression, index: int, depth: int) -> Term | None:
        """Dimension `index` of the tensor `expr`, as a term over input sizes: what each op makes
        of its operands' sizes (the table below); None where an op is not modelled (never a
        guess). Once per node, dimension and test position."""
        if depth > _DEPTH:
            return None
        key = (id(expr), index, self._at)
        found = self._terms_seen.get(key)
        if found is None:
            found = self._terms_seen[key] = (expr, self._term_of(expr, index, depth))
        return found[1]

    def _term_of(self, expr: cst.BaseExpression, index: int, depth: int) -> Term | None:  # noqa: C901 - one table
        if index < 0:
            rank = self._rank(expr, depth)
            if rank is None or index + rank < 0:
                return None
            index += rank
        if isinstance(expr, cst.Name):
            if self.reads_input(expr):
                return expr.value, self.positions[expr.value], index
            if expr.value in self.positions and expr.value not in self._first_rebound:
                return self._looped(expr.value, index)
            if expr.value in self.unpacked and expr.value not in self.reassigned:
                return self._piece_term(self.unpacked[expr.value][0], index, depth)
            value = self.bound(expr.value, expr)
            return self._size_term(value, index, depth + 1) if value is not None and value is not expr else None
        entry = self.entry(expr)
        if entry is not None:
            return entry[0], entry[1], index
        held = self._held(expr)
        if held is not None:
            return held[index] if index < len(held) else None
        if isinstance(expr, cst.BinaryOperation):
            return self._operator_term(expr, index, depth)
        if isinstance(expr, cst.Subscript):
            return self._indexed(expr, depth, index)  # type: ignore[return-value]
        if not isinstance(expr, cst.Call) or not arguments_read(expr):
            return None
        func, args = expr.func, expr.args
        first = args[0].value if args and args[0].keyword is None else None
        layer = self._layer(expr)
        if layer is not None:
            return self._layer_term(layer, first, index, depth) if first is not None else None
        if isinstance(func, cst.Attribute) and not _is_module(func.value):
            return self._method_term(func.attr.value, func.value, args, index, depth)
        name = (dotted(func) or "").rpartition(".")[2] if _is_module_call(func) else ""
        if name in KEEP_ALL_FUNCTIONS and first is not None:
            return self._size_term(first, index, depth + 1)
        if name in ("cat", "concat", "concatenate", "stack") and isinstance(first, (cst.List, cst.Tuple)):
            return self._joined_term(name == "stack", first, args, index, depth)
        if name == "pad" and first is not None and len(args) >= 2:
            return self._padded_term(first, args[1].value, index, depth)
        if name == "interpolate" and first is not None:
            return self._resized_term(first, args, index, depth)
        if name in _FUNCTIONAL_POOLS and first is not None:
            kind = _FUNCTIONAL_POOLS[name]  # `F.max_pool2d(x, 2)`: as `nn.MaxPool2d(2)` applied to `x`
            built = cst.Call(cst.Name(kind), args[1:])
            return self._one_layer_term(kind, built, lambda i: self._size_term(first, i, depth + 1),
                                        self._rank(first, depth + 1), index)
        if name in ("matmul", "bmm") and len(args) == 2:
            return self._product_term(args[0].value, args[1].value, index, depth)
        if name == "pixel_shuffle" and first is not None and len(args) == 2:
            return self._shuffled_term(first, args[1].value, index, depth)
        if name in ("narrow", "flatten") and first is not None:  # `torch.narrow(x, 0, 1, n)`: as `x.narrow(0, 1, n)`
            return self._method_term(name, first, args[1:], index, depth)
        inlined = self.called(expr)
        if inlined is not None:
            return self._size_term(inlined, index, depth + 1)
        found = self._dim_of(expr, index, depth)  # a block of this file or another, as it keeps dimensions
        return found

    def _piece_term(self, value: cst.BaseExpression, index: int, depth: int) -> Term | None:
        """Dimension `index` of a piece of `q, k, v = t.chunk(3, dim=-1)` (`split`, `torch.chunk`
        too): `t`'s own but along the split dimension, which is not modelled."""
        value = self.followed(value)
        if not isinstance(value, cst.Call) or any(a.star for a in value.args):
            return None
        func, args = value.func, list(value.args)
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("chunk", "split"):
            return None
        if not _is_module(func.value):
            tensor = func.value
        elif args and args[0].keyword is None:
            tensor, args = args[0].value, args[1:]  # `torch.chunk(t, 3, dim=-1)`
        else:
            return None
        given = [a.value for a in args[1:2] if a.keyword is None] + [a.value for a in args if a.keyword is not None
                                                                     and a.keyword.value == "dim"]
        axis = integer_literal(given[0]) if given else 0
        rank = self._rank(tensor, depth + 1)
        if axis is None or rank is None or not -rank <= axis < rank:
            return None
        return None if index == axis % rank else self._size_term(tensor, index, depth + 1)

    def _operator_term(self, expr: cst.BinaryOperation, index: int, depth: int) -> Term | None:
        """`a + b` broadcasts (dimensions aligned from the end; a size of 1 takes the other's);
        `a @ b` multiplies the last two dimensions (the batch ones broadcast)."""
        ranks = [self._operand_rank(part, depth + 1) for part in (expr.left, expr.right)]
        if isinstance(expr.operator, cst.MatrixMultiply):
            return self._product_term(expr.left, expr.right, index, depth)
        if type(expr.operator) not in _ELEMENTWISE_OPERATORS:
            return None
        if None in ranks:  # ranks not known: the dimension of the same place, as the operands agree
            left = self._size_term(expr.left, index, depth + 1)
            return left if left is not None else self._size_term(expr.right, index, depth + 1)
        total = max(ranks)  # type: ignore[type-var]
        terms = [
            self._size_term(part, index - (total - rank), depth + 1) if index - (total - rank) >= 0 else 1  # type: ignore[operator]
            for part, rank in zip((expr.left, expr.right), ranks, strict=True)
        ]
        known = [term for term in terms if term is not None and term != 1]
        if len(known) == len([t for t in terms if t != 1]) and known:
            return known[0]  # broadcasting makes the others equal to it
        return 1 if terms == [1, 1] else None

    def _product_term(self, left: cst.BaseExpression, right: cst.BaseExpression, index: int, depth: int) -> Term | None:
        ranks = [self._rank(left, depth + 1), self._rank(right, depth + 1)]
        if None in ranks or min(ranks) < 2:  # type: ignore[type-var]
            return None
        total = max(ranks)  # type: ignore[type-var]
        if index == total - 1:
            return self._size_term(right, ranks[1] - 1, depth + 1)  # type: ignore[operator]
        if index == total - 2:
            return self._size_term(left, ranks[0] - 2, depth + 1)  # type: ignore[operator]
        place = index - (total - ranks[0])  # type: ignore[operator]
        return self._size_term(left, place, depth + 1) if place >= 0 else None

    def _method_term(  # noqa: C901 - one table
        self, method: str, tensor: cst.BaseExpression, args: Sequence[cst.Arg], index: int, depth: int
    ) -> Term | None:
        if method in KEEP_ALL_METHODS:
            return self._size_term(tensor, index, depth + 1)
        rank = self._rank(tensor, depth + 1)
        numbers = [integer_literal(a.value) for a in args if a.keyword is None]
        if method in ("transpose", "swapaxes") and len(numbers) == 2 and rank is not None and None not in numbers:
            a, b = (n + rank if n < 0 else n for n in numbers)  # type: ignore[operator]
            return self._size_term(tensor, b if index == a else a if index == b else index, depth + 1)
        if method == "t" and rank == 2:
            return self._size_term(tensor, 1 - index, depth + 1)
        if method == "permute":
            order = view_sizes(args)
            place = integer_literal(order[index]) if order is not None and index < len(order) else None
            return self._size_term(tensor, place, depth + 1) if place is not None else None
        if method == "unsqueeze" and len(numbers) == 1 and numbers[0] is not None and rank is not None:
            at = numbers[0] + rank + 1 if numbers[0] < 0 else numbers[0]
            return 1 if index == at else self._size_term(tensor, index - (index > at), depth + 1)
        if rank is None:
            return None
        if method == "flatten":
            start, end = flatten_span(args, rank)
            if start is None or end is None:
                return None
            if index < start:
                return self._size_term(tensor, index, depth + 1)
            if index > start:
                return self._size_term(tensor, index + end - start, depth + 1)
            return self._product(tensor, range(start, end + 1), depth)
        if method in ("view", "reshape"):
            return self._reshaped_term(tensor, rank, self.view_targets(args), index, depth)
        if method == "repeat":
            times = view_sizes(args)
            if times is None or len(times) < rank or index >= len(times):
                return None
            count = integer_literal(times[index])
            place = index - (len(times) - rank)
            inner = self._size_term(tensor, place, depth + 1) if place >= 0 else 1
            return None if count is None or inner is None else _times(count, inner)
        if method == "expand":
            wanted = view_sizes(args)
            if wanted is None or index >= len(wanted):
                return None
            if integer_literal(wanted[index]) == -1:
                place = index - (len(wanted) - rank)
                return self._size_term(tensor, place, depth + 1) if place >= 0 else None
            return self._term(wanted[index], depth + 1)
        if method == "narrow" and len(args) == 3 and numbers[0] is not None:
            dim = numbers[0] + rank if numbers[0] < 0 else numbers[0]  # type: ignore[operator]
            return self._term(args[2].value, depth + 1) if index == dim else self._size_term(tensor, index, depth + 1)
        if method in _REDUCTIONS:
            dim, keep = _reduced(args)
            if dim is None:
                return None
            dim = dim + rank if dim < 0 else dim
            if index == dim and keep:
                return 1
            return self._size_term(tensor, index + (not keep and index >= dim), depth + 1)
        return None

    def _reshaped_term(
        self, tensor: cst.BaseExpression, rank: int, wanted: Sequence[cst.BaseExpression] | None, index: int, depth: int
    ) -> Term | None:
        """`view`/`reshape`: a size given is that size; `-1` is the input's element count over the others."""
        if wanted is None or index >= len(wanted):
            return None
        if integer_literal(wanted[index]) != -1:
            return self._term(wanted[index], depth + 1)
        others = [self._term(w, depth + 1) for i, w in enumerate(wanted) if i != index]
        whole = self._product(tensor, range(rank), depth)
        if whole is None or None in others:
            return None
        divisor: Term = 1
        for other in others:
            divisor = _times(other, divisor)  # type: ignore[arg-type]
        return whole if divisor == 1 else Op("//", whole, divisor)

    def _product(self, tensor: cst.BaseExpression, dims: Iterable[int], depth: int) -> Term | None:
        out: Term = 1
        for dim in dims:
            term = self._size_term(tensor, dim, depth + 1)
            if term is None:
                return None
            out = _times(term, out)
        return out

    def _joined_term(
        self, stacked: bool, parts: cst.List | cst.Tuple, args: Sequence[cst.Arg], index: int, depth: int
    ) -> Term | None:
        """`torch.cat`: the sum of the parts along `dim`, the first part's size elsewhere (they
        must agree); `torch.stack`: a new dimension as long as the list."""
        tensors = [e.value for e in parts.elements if isinstance(e, cst.Element)]
        given = [a for a in args[1:] if a.keyword is None or a.keyword.value == "dim"]
        dim = integer_literal(given[0].value) if given else 0
        rank = self._rank(tensors[0], depth + 1) if tensors else None
        if dim is None or not tensors or len(tensors) != len(parts.elements) or (dim < 0 and rank is None):
            return None
        dim = dim + rank + stacked if dim < 0 else dim  # type: ignore[operator]
        if stacked:
            if index == dim:
                return len(tensors)
            return self._size_term(tensors[0], index - (index > dim), depth + 1)
        if index != dim:
            return self._size_term(tensors[0], index, depth + 1)
        total: Term = 0
        for part in tensors:
            term = self._size_term(part, index, depth + 1)
            if term is None:
                return None
            total = term if total == 0 else Op("+", total, term)
        return total

    def _padded_term(self, tensor: cst.BaseExpression, pads: cst.BaseExpression, index: int, depth: int) -> Term | None:
        """`F.pad(x, (left, right, top, bottom))`: the last dimensions grow by their two pads."""
        rank = self._rank(tensor, depth + 1)
        amounts = [self._term(e.value, depth + 1) for e in pads.elements] if isinstance(
            pads, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in pads.elements) else None
        if rank is None or amounts is None or None in amounts or len(amounts) % 2:
            return None
        inner = self._size_term(tensor, index, depth + 1)
        from_end = rank - 1 - index
        if inner is None or from_end >= len(amounts) // 2:
            return inner
        return _plus(inner, _plus(amounts[2 * from_end], amounts[2 * from_end + 1]))

    def _resized_term(self, tensor: cst.BaseExpression, args: Sequence[cst.Arg], index: int, depth: int) -> Term | None:
        """`F.interpolate`: batch and channels kept; a spatial size is `size=` or an integer `scale_factor` times it."""
        if index < 2:
            return self._size_term(tensor, index, depth + 1)
        named = {a.keyword.value: a.value for a in args if a.keyword is not None}
        if len(args) > 1 and args[1].keyword is None:
            named.setdefault("size", args[1].value)
        rank = self._rank(tensor, depth + 1)
        if "size" in named and rank is not None:
            size = named["size"]
            if isinstance(size, (cst.Tuple, cst.List)):
                part = size.elements[index - 2] if index - 2 < len(size.elements) else None
                return self._term(part.value, depth + 1) if isinstance(part, cst.Element) else None
            return self._term(size, depth + 1) if rank == 3 else None
        factor = _whole_factor(named.get("scale_factor"))
        inner = self._size_term(tensor, index, depth + 1)
        return None if factor is None or inner is None else _times(factor, inner)

    def _shuffled_term(
        self, tensor: cst.BaseExpression, factor: cst.BaseExpression, index: int, depth: int
    ) -> Term | None:
        """`F.pixel_shuffle(x, r)` of (N, C, H, W): (N, C // r², H * r, W * r)."""
        times, rank = integer_literal(factor), self._rank(tensor, depth + 1)
        inner = self._size_term(tensor, index, depth + 1)
        if times is None or times < 1 or rank is None or rank < 3 or inner is None:
            return None
        if index == rank - 3:
            return Op("//", inner, times * times)
        return _times(times, inner) if index >= rank - 2 else inner

    def _looped(self, name: str, index: int) -> Term | None:
        """Dimension `index` of an input rebound only by `for layer in self.layers: x = layer(x)`
        over an `nn.ModuleList` of layers built with literal sizes: the input's own where every
        layer keeps it (a `Linear`'s batch), before the loop and after; None otherwise."""
        if name in self._first_rebound or self._owner is None:
            return None
        own = (name, self.positions[name], index)
        rank = self.ranks.get(self.positions[name])
        looped = False
        for loop in self._loops:
            bindings = [stmt for stmt in _statements(loop.body) if name in _bound_by(stmt)]
            if not bindings:
                continue
            layer, layers = _layer_loop(loop)
            listed = module_list(init_call(self._owner, layers.attr.value)) if (
                isinstance(layers, cst.Attribute) and isinstance(layers.value, cst.Name)
                and layers.value.value == "self") else None
            if layer is None or listed is None or not all(_applies(stmt, layer, name) for stmt in bindings):
                return None
            for built in listed:
                kind = (dotted(built.func) or "").rpartition(".")[2]
                if kind not in _LAYER_RANKS or kind == "Sequential" or _LAYER_RANKS[kind] or self._one_layer_term(
                        kind, built, lambda i: (name, self.positions[name], i), rank, index) != own:
                    return None
            looped = True
        return own if looped else None

    def held_size(self, expr: cst.BaseExpression) -> int | None:
        """`pos.shape[2]` of `pos = self.pos`, a buffer or parameter `__init__` makes: its literal size."""
        read = self.size_read(expr)
        if read is None or read[1] < 0:
            return None
        shape = self._held(self.followed(read[0]))
        return shape[read[1]] if shape is not None and read[1] < len(shape) else None

    def _held(self, expr: cst.BaseExpression) -> tuple[int, ...] | None:
        """The literal sizes of `self.<name>`, a buffer or parameter `__init__` makes (see `init_buffers`)."""
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            return None
        if self._buffers is None:
            self._buffers = init_buffers(self._owner, dotted) if self._owner is not None else {}
        return self._buffers.get(expr.attr.value)

    def _layer(self, call: cst.Call) -> tuple[str, cst.Call | None] | None:
        """`self.<attr>(...)` of a layer set in `__init__`: its class name and the call building it."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        kind = self.layers.get(func.attr.value)
        if kind is None or kind not in _LAYER_RANKS:
            return None
        return kind, init_call(self._owner, func.attr.value) if self._owner is not None else None

    def _layer_term(
        self, layer: tuple[str, cst.Call | None], first: cst.BaseExpression, index: int, depth: int
    ) -> Term | None:
        """A layer's output sizes from its input's and its constructor's arguments."""
        kind, built = layer
        if kind == "Sequential":
            if built is None or any(a.keyword is not None or a.star for a in built.args):
                return None
            return self._chain_term([a.value for a in built.args], first, index, depth)
        return self._one_layer_term(kind, built, lambda i: self._size_term(first, i, depth + 1),
                                    self._rank(first, depth + 1), index)

    def _chain_term(
        self, built: list[cst.BaseExpression], first: cst.BaseExpression, index: int, depth: int
    ) -> Term | None:
        """`nn.Sequential(a, b, c)`: each layer's sizes from the one before."""
        if not built:
            return self._size_term(first, index, depth + 1)
        last = built[-1]
        kind = (dotted(last.func) or "").rpartition(".")[2] if isinstance(last, cst.Call) else ""
        if kind not in _LAYER_RANKS or kind == "Sequential" or depth > _DEPTH:
            return None
        rank = self._rank(first, depth + 1)
        return self._one_layer_term(
            kind, last, lambda i: self._chain_term(built[:-1], first, i, depth + 1), rank, index,  # type: ignore[arg-type]
        )

    def _one_layer_term(
        self, kind: str, built: cst.Call | None, inner: Callable[[int], Term | None], rank: int | None, index: int
    ) -> Term | None:
        if kind in KEEP_ALL_LAYERS:
            return inner(index)
        if rank is None:
            return None
        if kind in ("Linear", "Embedding"):
            width = _layer_argument(built, 1, "out_features" if kind == "Linear" else "embedding_dim")
            last = rank - 1 if kind == "Linear" else rank
            return (width if width is not None else None) if index == last else inner(index)
        if kind == "Upsample":  # `nn.Upsample(scale_factor=2)`: as `F.interpolate` of the same arguments
            factor = _whole_factor(_argument_of(built, 1, "scale_factor"))
            source = inner(index)
            return source if index < 2 else None if factor is None or source is None else _times(factor, source)
        spatial = _SPATIAL.get(kind)
        if spatial is None or rank != spatial + 2 or index >= rank:
            return None  # an unbatched input: which dimension is which is not known
        if index == 0:
            return inner(0)
        if index == 1:
            return _layer_argument(built, 1, "out_channels") if kind.startswith("Conv") else inner(1)
        if kind.startswith("Adaptive"):
            size = _layer_argument(built, 0, "output_size")
            return size
        geometry = window_geometry(kind, built, spatial, self.layer_integer)
        source = inner(index)
        if geometry is None or source is None:
            return None
        kernel, stride, padding, dilation = geometry[index - 2]
        if kind.startswith("ConvTranspose"):  # (L - 1) * stride - 2 * padding + dilation * (kernel - 1) + 1
            return Op("+", _times(stride, source), 1 - stride - 2 * padding + dilation * (kernel - 1))
        reach = 2 * padding - dilation * (kernel - 1) - 1
        return Op("+", Op("//", Op("+", source, reach), stride), 1)

    def _indexed(self, expr: cst.Subscript, depth: int, index: int | None) -> Term | int | None:
        """`t[:, None, 0]`: a full slice keeps a dimension, `None` adds one of 1, an integer drops
        one. `index` None: the rank."""
        rank = self._rank(expr.value, depth + 1)
        kept: list[int | None] = []  # per result dimension: the tensor's, or None for an added 1
        at = 0
        for element in expr.slice:
            part = element.slice
            if isinstance(part, cst.Index) and isinstance(part.value, cst.Name) and part.value.value == "None":
                kept.append(None)
            elif isinstance(part, cst.Index) and isinstance(part.value, cst.Ellipsis):
                if rank is None:
                    return None
                rest = len([e for e in expr.slice if not (isinstance(e.slice, cst.Index) and isinstance(
                    e.slice.value, cst.Name) and e.slice.value.value == "None")]) - 1
                kept.extend(range(at, at + rank - rest))
                at += rank - rest
            elif isinstance(part, cst.Index) and integer_literal(part.value) is not None:
                at += 1
            elif isinstance(part, cst.Slice) and part.lower is None and part.upper is None and part.step is None:
                kept.append(at)
                at += 1
            elif isinstance(part, cst.Slice) and index == len(kept):
                # the dimension asked for: `pos[:, past : seq + past]` of a fixed-length buffer
                return self._sliced_term(expr.value, part, at, depth)
            elif isinstance(part, cst.Slice):
                kept.append(at)  # another dimension's slice: this one's place is all that counts
                at += 1
            else:
                return None
        if rank is not None:
            kept.extend(range(at, rank))
        if index is None:
            return len(kept) if rank is not None else None
        if index < len(kept):
            place = kept[index]
            return 1 if place is None else self._size_term(expr.value, place, depth + 1)
        return None

    def _sliced_term(self, tensor: cst.BaseExpression, part: cst.Slice, place: int, depth: int) -> Term | None:
        """`t[a:b]` along a dimension of fixed length `n` (a buffer's): `b - a` where `b` is an
        input size plus counts (export needs `b <= n` for that, see `slice_end`), and
        `min(b, n) - a` for literals; None otherwise (a slice of a dynamic size is a minimum)."""
        length = self._size_term(tensor, place, depth + 1)
        if type(length) is not int or part.step is not None:
            return None
        start = 0 if part.lower is None else self._term(part.lower, depth + 1)
        end = length if part.upper is None else self._term(part.upper, depth + 1)
        if type(start) is int and type(end) is int:
            return max(0, min(end, length) - start) if start >= 0 and end >= 0 else None
        if start is None or end is None or self.slice_end(part) is None:
            return None
        return end if start == 0 else Op("-", end, start)

    def _term(self, expr: cst.BaseExpression, depth: int) -> Term | None:
        """An integer-valued size expression (`x.shape[0] * 2`, `h // 2`, `4`) as a term."""
        if depth > _DEPTH:
            return None
        number = integer_literal(expr)
        if number is None:
            number = self._constant(expr)
        if number is not None:
            return number
        if isinstance(expr, cst.Name):
            if expr.value in self.leaves:
                return None
            if expr.value in self.unpacked and expr.value not in self.reassigned:
                found = self._unpacked_place(expr.value)
                return self._size_term(found[0], found[1], depth + 1) if found is not None else None
            value = self.bound(expr.value, expr)
            return self._term(value, depth + 1) if value is not None and value is not expr else None
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in _TERM_OPERATORS:
            left, right = self._term(expr.left, depth + 1), self._term(expr.right, depth + 1)
            if left is None or right is None:
                return None
            return Op(_TERM_OPERATORS[type(expr.operator)], left, right)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Power):
            base, exponent = self._term(expr.left, depth + 1), self._term(expr.right, depth + 1)
            if isinstance(base, int) and isinstance(exponent, int):  # `2 ** self.num_upsamplers`
                return INTEGER_ARITHMETIC[cst.Power](base, exponent)
            return None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self._term(expr.expression, depth + 1)  # `(-h) % 7`: the pad up to a multiple of 7
            return Op("-", 0, inner) if inner is not None else None
        ref = self.ref(expr)
        if ref is not None:
            return ref
        return self._formula(expr)

    def _constant(self, expr: cst.BaseExpression) -> int | None:
        """`self.max_len`, or `self.img_size[0]` of a tuple of integers, as `__init__` sets it."""
        suffix = ""
        if isinstance(expr, cst.Subscript):
            if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
                return None
            index = integer_literal(expr.slice[0].slice.value)
            if index is None:
                return None
            suffix, expr = f"[{index}]", expr.value
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return self.constants.get(expr.attr.value + suffix)
        if (not suffix and isinstance(expr, cst.Name) and expr.value in self.module_constants
                and expr.value not in self.positions and self.bound(expr.value, expr) is None):
            return self.module_constants[expr.value]  # `PATCH` of `PATCH = 4`, not bound in the function
        return None

    def leaves_read(self, expr: cst.BaseExpression, depth: int = 0) -> set[str] | None:
        """The `leaves` names `expr` reads, following single assignments (None: it reads
        something else that is not a constant)."""
        if depth > 16:
            return None
        if isinstance(expr, cst.Name):
            if expr.value in self.leaves:
                return {expr.value}
            value = self.bound(expr.value, expr)
            if value is None:
                return None
            return self.leaves_read(value, depth + 1)
        if isinstance(expr, cst.Integer):
            return set()
        parts: list[cst.BaseExpression] = []
        if isinstance(expr, cst.BinaryOperation):
            parts = [expr.left, expr.right]
        elif isinstance(expr, cst.UnaryOperation):
            parts = [expr.expression]
        elif isinstance(expr, cst.Comparison):
            parts = [expr.left, *(t.comparator for t in expr.comparisons)]
        else:
            return None
        out: set[str] = set()
        for part in parts:
            inner = self.leaves_read(part, depth + 1)
            if inner is None:
                return None
            out |= inner
        return out

    def evaluate(  # noqa: C901 - one dispatch
        self, expr: cst.BaseExpression, sizes: dict[Any, int], depth: int = 0
    ) -> int | bool | None:
        """`expr`'s value when the inputs have `sizes` (and the `leaves` their values); None
        where this cannot compute it."""
        if depth > 16:
            return None
        if depth == 0:
            outer = self._at  # see `refs`
            self._at = self._order.get(id(expr), outer)
            try:
                return self.evaluate(expr, sizes, 1)
            finally:
                self._at = outer
        if isinstance(expr, cst.Name) and expr.value in self.leaves:
            return sizes.get(expr.value)
        constant = self._constant(expr)
        if constant is not None:
            return constant
        ref = self.ref(expr)
        if ref is not None:
            return sizes.get(ref)
        formula = self._formula(expr)
        if formula is not None:
            return term_value(formula, sizes)
        if isinstance(expr, cst.Integer):
            return int(expr.evaluated_value)
        dims = self._numel(expr)
        if dims is not None:
            values = [sizes.get(dim) for dim in dims]
            return None if None in values else math.prod(values)  # type: ignore[arg-type]
        if isinstance(expr, cst.Name):
            if expr.value in self.unpacked and expr.value not in self.reassigned:
                part = self._unpacked_part(expr.value)
                if part is not None:
                    return self.evaluate(part, sizes, depth + 1)
                found: list[SizeRef] = []
                return sizes.get(found[0]) if self._unpacked_ref(expr.value, found) else None
            value = self.bound(expr.value, expr)
            if value is None:
                return None
            return self.evaluate(value, sizes, depth + 1)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self.evaluate(expr.expression, sizes, depth + 1)
            return -inner if inner is not None else None
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.evaluate(expr.left, sizes, depth + 1), self.evaluate(expr.right, sizes, depth + 1)
            if left is None or right is None:
                return None
            operation = INTEGER_ARITHMETIC.get(type(expr.operator))
            return operation(int(left), int(right)) if operation is not None else None
        if isinstance(expr, cst.Comparison):
            left = self.evaluate(expr.left, sizes, depth + 1)
            for target in expr.comparisons:
                listed = isinstance(target.comparator, (cst.Tuple, cst.List))
                if isinstance(target.operator, (cst.In, cst.NotIn)) and listed:
                    members = [self.evaluate(e.value, sizes, depth + 1) if isinstance(e, cst.Element) else None
                               for e in target.comparator.elements]  # type: ignore[union-attr]
                    if left is None or None in members or len(expr.comparisons) != 1:
                        return None
                    return (left in members) is isinstance(target.operator, cst.In)
                right = self.evaluate(target.comparator, sizes, depth + 1)
                compare = _COMPARE.get(type(target.operator))
                if left is None or right is None or compare is None:
                    return None
                if not compare(left, right):
                    return False
                left = right
            return True
        inlined = self.called(expr)
        return self.evaluate(inlined, sizes, depth + 1) if inlined is not None else None


def _assigns(func: cst.FunctionDef, attr: str) -> bool:
    """Whether `func` assigns `self.<attr>` (alone or in a tuple target)."""
    for stmt in _statements(func.body):
        targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else (
            [stmt.target] if isinstance(stmt, (cst.AugAssign, cst.AnnAssign)) else [])
        for target in targets:
            for node in _walk(target):
                if (isinstance(node, cst.Attribute) and node.attr.value == attr and isinstance(node.value, cst.Name)
                        and node.value.value == "self"):
                    return True
    return False


def pinned_to_held_value(
    test: cst.BaseExpression, sizes: Sizes, config: ShapeConfig, raised: bool = False
) -> Verdict | None:
    """A check that must hold (`assert`, `torch._check`, timm's `_assert`) equating a declared
    size with a value the model holds that no size model reads (`H == self.img_size[0]`, set
    from its config): whatever that value, it fails export under a named `Dim` whose range holds
    more than one size. The example must equal it (else the check fails in eager and export
    alike), and the guard then fixes the size to that one value (ConstraintViolationError).
    `raised`: `test` is what an `if` raises on, so `H != self.img_size[0]` is that check.
    None where the test is not that."""
    checked = _size_against_held(test, sizes, cst.NotEqual if raised else cst.Equal)
    if checked is None:
        return None
    ref, held = checked
    spec = config.dim(*ref)
    low, high = spec.values()
    if spec.kind is not DimKind.NAMED or high <= low:
        return None
    return _with_note(Verdict(
        Severity.ERROR,
        f"`{ref[0]}.shape[{ref[2]}]` is {spec.text()} ({config.source}); the check holds only where it equals "
        f"`{cst.Module([]).code_for_node(held)}`, a value the model holds: export fails whatever that value "
        "is (the example's size must equal it, and the guard then fixes the size to it: "
        "ConstraintViolationError); declare that dimension static",
        fixable=False,
    ), config)


def _size_against_held(
    test: cst.BaseExpression, sizes: Sizes, operator: type[cst.BaseCompOp]
) -> tuple[SizeRef, cst.BaseExpression] | None:
    """`H <operator> self.img_size[0]` (either way round): the input size and the held value."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, operator)):
        return None
    left, right = test.left, test.comparisons[0].comparator
    for size, held in ((left, right), (right, left)):
        ref = sizes.size_itself(size) if sizes.held_value(held) else None
        if ref is not None:
            return ref, held
    return None


def _raises(body: cst.BaseSuite) -> bool:
    """Whether a block ends in `raise` (an `if` that rejects its input)."""
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    if isinstance(body, cst.SimpleStatementSuite):
        return bool(body.body) and isinstance(body.body[-1], cst.Raise)
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)


def _arm_without(stmt: cst.If, name: str) -> cst.BaseSuite | None:
    """The arm of `if name is not None: ... else: ...` (or `if name is None:`) that runs only
    when `name` is None."""
    test = stmt.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)
            and test.left.value == name and isinstance(test.comparisons[0].comparator, cst.Name)
            and test.comparisons[0].comparator.value == "None"):
        return None
    operator = test.comparisons[0].operator
    if isinstance(operator, cst.Is):
        return stmt.body
    if isinstance(operator, cst.IsNot) and isinstance(stmt.orelse, cst.Else):
        return stmt.orelse.body
    return None


def _or_operands(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """`a or b or c`: each of a, b, c (the test itself where it is no `or`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        yield from _or_operands(test.left)
        yield from _or_operands(test.right)
    else:
        yield test


def _count_param(param: cst.Param) -> bool:
    """`past: int = 0`, `offset=2`: a parameter defaulting to a non-negative integer literal,
    annotated `int` or not at all."""
    annotation = param.annotation.annotation if param.annotation is not None else None
    default = integer_literal(param.default) if param.default is not None else None
    return default is not None and default >= 0 and (
        annotation is None or isinstance(annotation, cst.Name) and annotation.value == "int"
    )


def _summands(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The terms `a + b + c` adds up (`expr` itself when it is no sum)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        yield from _summands(expr.left)
        yield from _summands(expr.right)
    else:
        yield expr


def method_at(method: cst.FunctionDef, call: cst.Call) -> cst.BaseExpression | None:
    """The one `return` expression of `method` (`def _length(self, t): return t.size(0)`) with the
    call's arguments in place of its parameters (`self` stays the caller's), a parameter the call
    leaves out by its literal default (`max_period=10000`); None where the method is more than a
    `return`, takes `*args` or keyword-only parameters, or the call passes what it does not name."""
    body = method.body.body if isinstance(method.body, cst.IndentedBlock) else ()
    statements = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr)
                                          and isinstance(s.body[0].value, cst.SimpleString))]
    line = statements[0] if len(statements) == 1 else None
    returned = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    params = method.params
    if (not isinstance(returned, cst.Return) or returned.value is None
            or [p.name.value for p in params.params[:1]] != ["self"] or params.posonly_params or params.kwonly_params
            or not isinstance(params.star_arg, cst.MaybeSentinel) or params.star_kwarg is not None
            or any(a.star for a in call.args)):
        return None
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    passed: dict[str, cst.BaseExpression] = {}
    for index, param in enumerate(params.params[1:]):
        name = param.name.value
        if index < len(positional):
            passed[name] = positional[index]
        elif name in keywords:
            passed[name] = keywords.pop(name)
        elif param.default is not None and literal_value(param.default) is not UNKNOWN:
            passed[name] = param.default
        else:
            return None
    if keywords or len(positional) > len(params.params) - 1:
        return None
    substitute = _Arguments(passed)
    written = returned.value.visit(substitute)
    return None if substitute.refused or not isinstance(written, cst.BaseExpression) else written


def kept_at(method: cst.FunctionDef, call: cst.Call) -> list[tuple[cst.Assign, cst.BaseExpression]] | None:
    """What a method whose body only keeps values on `self` (`def _observe(self, t): self.peak =
    t.max().item()`) sets, each assignment with its value written at the call (`x.max().item()`
    for `self._observe(x)`), as `method_at` writes a `return`; None where the body does anything
    else (a docstring aside), or `method_at` refuses the call."""
    body = method.body.body if isinstance(method.body, cst.IndentedBlock) else ()
    kept: list[tuple[cst.Assign, cst.BaseExpression]] = []
    for line in body:
        small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
            continue
        target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self"):
            return None
        returning = method.with_changes(body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(small.value)])]))
        written = method_at(returning, call)
        if written is None:
            return None
        kept.append((small, written))  # type: ignore[arg-type]
    return kept or None


def arguments_written(expr: cst.BaseExpression, arguments: dict[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """`expr` of a helper's body with a call's `arguments` in place of the parameters it reads
    (`t.shape[-1] % k == 0` of `ensure_multiple(x, 4)`: `x.shape[-1] % 4 == 0`); None where it
    binds names of its own or reads a parameter the call does not pass."""
    substitute = _Arguments(arguments)
    written = expr.visit(substitute)
    return None if substitute.refused or not isinstance(written, cst.BaseExpression) else written


def returned_at(
    helper: cst.FunctionDef, call: cst.Call, method: bool, taken: Collection[str] = ()
) -> cst.BaseExpression | None:
    """What a helper of straight-line statements returns, written at the call, for the sizes it
    hands back (`def _hw(t): h = t.shape[-2]; w = t.shape[-1]; return h, w`, or `n, d = t.shape;
    return n, d`): each local bound once before the one `return` replaced by what it holds, then
    the parameters by the arguments (`method_at`). None for any other body (a branch, a loop, a
    name bound twice, unpacking anything but `.shape` or a tuple display), or where the helper
    reads a global name the caller binds (`taken`: written at the call, it would read the local)."""
    straight = _one_line(helper, method)
    if straight is None or straight[1] & set(taken):
        return None
    return method_at(straight[0], call)


def _one_line(helper: cst.FunctionDef, method: bool) -> tuple[cst.FunctionDef, set[str]] | None:
    """`_straight_line(helper, method)` and the helper's `_free_names`, once per helper (None
    where it is not straight-line): a helper's assignments are substituted once, not at every
    call of every round of a flow's solve."""
    return _ONE_LINE[method](helper)


def _one_line_of(helper: cst.FunctionDef, method: bool) -> tuple[cst.FunctionDef, set[str]] | None:
    one_line = _straight_line(helper, method)
    return None if one_line is None else (one_line, _free_names(helper))


#: `_one_line` of a function, and of a method
_ONE_LINE = {
    method: PerStatement(lambda helper, method=method: _one_line_of(helper, method))  # type: ignore[misc]
    for method in (False, True)
}


def _straight_line(helper: cst.FunctionDef, method: bool) -> cst.FunctionDef | None:
    """`helper` of straight-line statements as a one-line method returning what it returns,
    each local replaced by what it holds (see `returned_at`); None for any other body."""
    body = helper.body.body if isinstance(helper.body, cst.IndentedBlock) else ()
    lines = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr)
                                     and isinstance(s.body[0].value, cst.SimpleString))]
    if len(lines) < 2 or not all(isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 for line in lines):
        return None
    *steps, last = [line.body[0] for line in lines]  # type: ignore[union-attr]
    if not isinstance(last, cst.Return) or last.value is None or not all(
        isinstance(step, cst.Assign) and len(step.targets) == 1 for step in steps
    ):
        return None
    held: dict[str, cst.BaseExpression] = {}
    for step in steps:
        if not isinstance(step, cst.Assign) or len(step.targets) != 1:
            return None
        substitute = _Arguments(held)
        value = step.value.visit(substitute)
        target = step.targets[0].target
        if substitute.refused or not isinstance(value, cst.BaseExpression):
            return None
        if isinstance(target, cst.Name):
            pairs = [(target, value)]
        elif isinstance(target, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements
        ):
            names = [e.value for e in target.elements]
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(names) and all(
                isinstance(e, cst.Element) for e in value.elements
            ):
                parts = [e.value for e in value.elements]
            elif isinstance(value, cst.Attribute) and value.attr.value == "shape":
                parts = [cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))])
                         for i in range(len(names))]
            else:
                return None
            pairs = list(zip(names, parts, strict=True))  # type: ignore[arg-type]
        else:
            return None
        for name, part in pairs:
            if name.value in held:  # type: ignore[union-attr]
                return None
            held[name.value] = part  # type: ignore[union-attr]
    substitute = _Arguments(held)
    returned = last.value.visit(substitute)
    if substitute.refused or not isinstance(returned, cst.BaseExpression):
        return None
    if not method:  # a function of the file: read as a method whose `self` it does not use
        params = helper.params.with_changes(params=[cst.Param(cst.Name("self")), *helper.params.params])
        helper = helper.with_changes(params=params)
    return helper.with_changes(body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(returned)])]))


def _free_names(helper: cst.FunctionDef) -> set[str]:
    """The names `helper` reads that it does not bind (its globals)."""
    return names_read(helper.body) - {p.name.value for p in helper.params.params} - _bound_locals(helper)


def _bound_locals(helper: cst.FunctionDef) -> set[str]:
    """The names `helper`'s assignments bind."""
    return {
        n.value for s in _statements(helper.body) if isinstance(s, cst.Assign)
        for t in s.targets for n in iter_nodes(t.target) if isinstance(n, cst.Name)
    }


#: calls that assert their first argument (timm's `_assert` is torch's)
CHECK_APIS = ("torch._check", "torch._assert", "torch._check_is_size")
CHECK_NAMES = frozenset(api.rpartition(".")[2] for api in CHECK_APIS)


def _checks(helper: cst.FunctionDef) -> Iterator[tuple[cst.BaseExpression, cst.CSTNode, dict[str, str], bool]]:
    """Each check in a statement of `helper`'s body (after a docstring): `assert t`, `if not t:
    raise ...`, `torch._check(t)` / `torch._assert(t, ...)` / `_assert(t, ...)`, with its
    statement, the names that hold a parameter's value there (`value = ok`, `value, _ = ok,
    None`: the parameter's), and whether `t` must hold (False: `if t: raise ...`, where it must
    not; the guard on a size is the same)."""
    if not isinstance(helper.body, cst.IndentedBlock):
        return
    params = {p.name.value: p.name.value for p in helper.params.params}
    for line in helper.body.body:
        for name, value in _bound_names(line):
            if isinstance(value, cst.Name) and value.value in params:
                params[name] = params[value.value]
            else:
                params.pop(name, None)
        tested: cst.BaseExpression | None = None
        statement: cst.CSTNode = line
        held = True
        if isinstance(line, cst.If) and _raises_only(line.body) and line.orelse is None:
            test = line.test
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                tested = test.expression
            else:
                tested, held = test, False
        elif isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            statement = small = line.body[0]
            if isinstance(small, cst.Assert):
                tested = small.test
            elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and small.value.args:
                func = small.value.func
                called = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(
                    func, cst.Name) else ""
                if called in CHECK_NAMES and small.value.args[0].keyword is None:
                    tested = small.value.args[0].value
        if tested is not None:
            yield tested, statement, dict(params), held


def tested_parameters(helper: cst.FunctionDef) -> dict[str, tuple[cst.CSTNode, cst.CSTNode]]:
    """The parameters `helper` checks themselves (`assert ok`), each with the node that tests it
    and that node's statement: a call to it guards what it passes there, as that check would in
    the caller."""
    found: dict[str, tuple[cst.CSTNode, cst.CSTNode]] = {}
    for tested, statement, params, held in _checks(helper):
        if held and isinstance(tested, cst.Name) and tested.value in params and params[tested.value] not in found:
            found[params[tested.value]] = (tested, statement)
    return found


def tested_sizes(helper: cst.FunctionDef) -> list[tuple[cst.BaseExpression, cst.BaseExpression, cst.CSTNode]]:
    """The checks of `helper` that read its parameters inside an expression (`torch._check(t.shape[-1]
    % k == 0)`; `n = t.shape[1]`, then `assert n == expected`), each as written, with the locals
    bound once written out (`t.shape[1] == expected`), and its statement: a call guards that
    expression with its arguments in place of the parameters."""
    params = {p.name.value for p in helper.params.params} - {"self", "cls"}
    held = _locals_held(helper)
    own = _bound_locals(helper) - params
    found = []
    for tested, statement, *_ in _checks(helper):
        written = _locals_written(tested, held) if not isinstance(tested, cst.Name) else None
        read = names_read(written) if written is not None else set()
        if written is not None and read & params and not read & own:  # no local of the helper left
            found.append((tested, written, statement))
    return found


def _locals_held(helper: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """The locals a helper binds once to a value it shows (`n = t.shape[1]`, `_, n, _ = t.shape`),
    parameters aside."""
    params = {p.name.value for p in helper.params.params}
    body = helper.body.body if isinstance(helper.body, cst.IndentedBlock) else ()
    bindings = [pair for line in body for pair in (_unpacked_shape(line) or _bound_names(line))]
    names = [name for name, _ in bindings]
    return {
        name: value for name, value in bindings if value is not None and names.count(name) == 1 and name not in params
    }


def _locals_written(tested: cst.BaseExpression, held: dict[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """`tested` with the locals of `held` it reads written out (`n = t.size(0)`, `half = n // 2`,
    then `half > 4`: `t.size(0) // 2 > 4`), a few deep; None where that fails."""
    written: cst.BaseExpression | None = tested
    read = names_read(tested)
    for _ in range(_DEPTH_OF_LOCALS):
        if written is None or not read & held.keys():
            break
        written = arguments_written(written, held)
        read = names_read(written) if written is not None else set()
    return written


def _bound_names(line: cst.CSTNode) -> list[tuple[str, cst.BaseExpression | None]]:
    """The names a statement of the helper's body binds, each with what it binds (None: not shown)."""
    if not isinstance(line, cst.SimpleStatementLine):
        return []
    bound: list[tuple[str, cst.BaseExpression | None]] = []
    for small in line.body:
        if not isinstance(small, cst.Assign):
            continue
        for target in small.targets:
            if isinstance(target.target, cst.Name):
                bound.append((target.target.value, small.value))
            elif isinstance(target.target, cst.Tuple):
                values = small.value.elements if isinstance(small.value, cst.Tuple) else ()
                for position, element in enumerate(target.target.elements):
                    if isinstance(element.value, cst.Name):
                        value = values[position].value if position < len(values) else None
                        bound.append((element.value.value, value))
    return bound


def _unpacked_shape(line: cst.CSTNode) -> list[tuple[str, cst.BaseExpression]]:
    """The sizes a statement unpacks from a shape (`n, _ = t.shape`, `b, c = t.size()`), each
    name with the size it holds (`t.shape[0]`)."""
    small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
    if not isinstance(small, cst.Assign) or not isinstance(target, cst.Tuple):
        return []
    value = small.value
    if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) \
            and value.func.attr.value == "size":
        shape: cst.BaseExpression = value.func.value
    elif isinstance(value, cst.Attribute) and value.attr.value == "shape":
        shape = value.value
    else:
        return []
    elements = target.elements
    if any(isinstance(e, cst.StarredElement) for e in elements):
        return []
    return [
        (e.value.value, cst.Subscript(cst.Attribute(shape, cst.Name("shape")),
                                      [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))]))
        for i, e in enumerate(elements) if isinstance(e.value, cst.Name)
    ]


def _raises_only(body: cst.BaseSuite) -> bool:
    return (isinstance(body, cst.IndentedBlock) and len(body.body) == 1
            and isinstance(body.body[0], cst.SimpleStatementLine) and isinstance(body.body[0].body[0], cst.Raise))


def written_size_checks(helper: cst.FunctionDef) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """What `helper` checks of its parameters, as text for the files that call it (a function of
    another file is not parsed there): its parameters, and each check (`assert`, `if ...: raise`,
    `torch._check`/`_assert`) with the locals bound once written out (`batch = t.shape[0]`, then
    `if batch > 8: raise ...`: `t.shape[0] > 8`), where it reads nothing but parameters; None
    where it checks none."""
    tests = [tested for tested, *_ in _checks(helper)]
    if not tests:
        return None
    params = tuple(p.name.value for p in helper.params.params)
    held = _locals_held(helper)
    checks = []
    for tested in tests:
        written = _locals_written(tested, held)
        read = names_read(written) if written is not None else set()
        if written is not None and read and read <= set(params):
            checks.append(cst.Module([]).code_for_node(written))
    return (params, tuple(checks)) if checks else None


#: how many locals deep a helper's check is written out
_DEPTH_OF_LOCALS = 3


def names_read(expr: cst.CSTNode) -> set[str]:
    """The names `expr` reads (not attribute or keyword names: `t.size(dim=0)` reads `t` only)."""
    nodes = list(iter_nodes(expr))
    kept = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)} | {
        id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword is not None}
    return {n.value for n in nodes if isinstance(n, cst.Name) and id(n) not in kept}


class _Arguments(cst.CSTTransformer):
    """Writes arguments in place of the parameter names an expression reads (not attribute or
    keyword names); refuses an expression that binds names of its own."""

    def __init__(self, arguments: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.arguments = arguments
        self.refused = False
        self._kept: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.NamedExpr)):
            self.refused = True
            return False
        if isinstance(node, cst.Attribute):
            self._kept.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            self._kept.add(id(node.keyword))
        return True

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if id(original_node) in self._kept:
            return updated_node
        return self.arguments.get(original_node.value, updated_node)


_ELEMENTWISE_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
#: how a model names torch and its functional module
_MODULES = ("torch", "F", "nn", "functional")
KEEP_ALL_METHODS = frozenset({
    "float", "half", "double", "bfloat16", "contiguous", "clone", "detach", "to", "type_as", "relu", "sigmoid",
    "tanh", "exp", "abs", "neg", "sqrt", "rsqrt", "softmax", "log_softmax", "clamp", "masked_fill", "cumsum",
    "mul", "add", "sub", "div", "pow", "sin", "cos", "gelu", "silu", "relu_", "mul_", "add_",
    "triu", "tril", "log", "square", "reciprocal", "sign", "floor", "ceil", "masked_fill_", "argsort",
})
KEEP_ALL_FUNCTIONS = frozenset({
    "relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "layer_norm", "normalize",
    "exp", "abs", "clamp", "leaky_relu", "elu", "mish", "hardswish", "cumsum", "sqrt", "rsqrt", "triu", "tril",
    "sin", "cos", "argsort", "zeros_like", "ones_like", "rand_like", "randn_like", "empty_like", "full_like",
})
#: submodules whose output has every dimension of their input
KEEP_ALL_LAYERS = frozenset({
    "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
    "InstanceNorm2d", "Dropout", "Dropout1d", "Dropout2d", "Identity", "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid",
    "Softmax", "LeakyReLU", "Mish", "Hardswish", "ELU",
})
#: submodules whose output keeps every dimension of their input but the last: a linear layer
#: changes it, an embedding adds one after it
_ADD_OR_CHANGE_LAST_LAYERS = frozenset({"Linear", "Embedding"})
#: submodules that keep the batch dimension (0) only
_KEEP_FIRST_LAYERS = frozenset({
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
    "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "Flatten",
})

_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    cst.LessThan: lambda a, b: a < b, cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b, cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b,
}


# -- the op-size table's terms ------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    """A size computed from two others: `kind` is "+", "-", "*", "//" or "%"."""

    kind: str
    left: Term
    right: Term


#: augmented assignments read as the binary operation they bind (`a += b`: `a = a + b`)
_AUGMENTED: dict[type, type] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
}

#: a size: an input dimension (SizeRef), a constant, or an `Op` over two sizes
Term = Any

_DEPTH = 24
_TERM_OPERATORS: dict[type, str] = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.FloorDivide: "//", cst.Modulo: "%",
}
_TERM_ARITHMETIC = {symbol: INTEGER_ARITHMETIC[operator] for operator, symbol in _TERM_OPERATORS.items()}
#: number of dimensions each layer adds to its input's (Sequential: the sum over its layers)
_LAYER_RANKS: dict[str, int] = {
    **dict.fromkeys(KEEP_ALL_LAYERS, 0), "Linear": 0, "Embedding": 1, "Sequential": 0, "Upsample": 0,
    **dict.fromkeys((
        "Conv1d", "Conv2d", "Conv3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
        "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
        "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    ), 0),
}
#: spatial dimensions of each windowed layer (its input is (N, C, *spatial))
_SPATIAL: dict[str, int] = {kind: int(kind[-2]) for kind in _LAYER_RANKS if kind[-2:] in ("1d", "2d", "3d")
                            and not kind.startswith(("BatchNorm", "InstanceNorm", "Dropout"))}
#: methods reducing over `dim` (`keepdim=` keeps it as 1)
_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "prod", "std", "var", "logsumexp", "norm", "argmax", "argmin"})


def term_refs(term: Term) -> list[SizeRef]:
    """The input dimensions a term reads."""
    if isinstance(term, int):
        return []
    if isinstance(term, Op):
        return term_refs(term.left) + term_refs(term.right)
    return [term]


def term_value(term: Term, sizes: dict[Any, int]) -> int | None:
    """A term's value when the inputs have `sizes`; None where one is missing (or a division by 0)."""
    if isinstance(term, int):
        return term
    if isinstance(term, Op):
        left, right = term_value(term.left, sizes), term_value(term.right, sizes)
        return _TERM_ARITHMETIC[term.kind](left, right) if left is not None and right is not None else None
    return sizes.get(term)


class _NameReplaced(cst.CSTTransformer):
    """Every read of `name` replaced by `value`."""

    def __init__(self, name: str, value: cst.BaseExpression) -> None:
        super().__init__()
        self.name, self.value = name, value

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.value if original_node.value == self.name else updated_node


def _unwrapped_shape(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`tuple(s)`, `list(s)`, `torch.Size(s)`: the sizes `s` they copy."""
    if (isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star
            and dotted(expr.func) in ("tuple", "list", "torch.Size", "Size")):
        return expr.args[0].value
    return expr


def has_operation(term: Term, kind: str) -> bool:
    """Whether `term` applies `kind` anywhere ("%": a size padded up to a multiple, `h + (7 - h %
    7) % 7`; "//": a floor division)."""
    return isinstance(term, Op) and (
        term.kind == kind or has_operation(term.left, kind) or has_operation(term.right, kind))


def proven_multiple(term: Term, by: int, config: ShapeConfig) -> bool:
    """Whether `term` is a multiple of `by` as sympy shows it: a constant multiple, an input size
    declared as a multiple (`7 * d`), sums and products of those, and a remainder by `k` of a
    multiple of `k` (0)."""
    if isinstance(term, int):
        return term % by == 0
    if isinstance(term, tuple):
        spec = config.dim(*term)
        return spec.kind is DimKind.NAMED and spec.scale % by == 0 and spec.offset % by == 0
    if not isinstance(term, Op):
        return False
    if term.kind in ("+", "-"):
        return proven_multiple(term.left, by, config) and proven_multiple(term.right, by, config)
    if term.kind == "*":
        return proven_multiple(term.left, by, config) or proven_multiple(term.right, by, config)
    if term.kind == "%":
        return isinstance(term.right, int) and term.right > 0 and (
            proven_multiple(term.left, term.right, config)  # 0
            or term.right % by == 0 and proven_multiple(term.left, by, config)
        )
    return False


def unshown_remainder(term: Term, config: ShapeConfig) -> bool:
    """Whether `term` takes a remainder `a % k` that sympy cannot show to be 0 (`h % 2` of a
    `Dim("h")`; of `2 * Dim("d")` it is 0): export's guards on such a size stay unproven."""
    if not isinstance(term, Op):
        return False
    if term.kind == "%" and not (isinstance(term.right, int) and term.right > 0
                                 and proven_multiple(term.left, term.right, config)):
        return True
    return unshown_remainder(term.left, config) or unshown_remainder(term.right, config)


def term_low(term: Term, lows: dict[Any, int]) -> int | None:
    """The least value torch's range analysis gives `term` where each input size is at least its
    `lows`: sums and products of bounds, `a // k` of the bound, and any `a % k` in [0, k - 1]
    whatever `a` is (so `h + (4 - h % 4) % 4` is at least `h`, not the multiple of 4 it always
    is). None where a size has no bound or an operation is not one of these."""
    bounds = _term_bounds(term, lows)
    return bounds[0] if bounds is not None else None


def _term_bounds(term: Term, lows: dict[Any, int]) -> tuple[float, float] | None:
    if isinstance(term, int):
        return term, term
    if not isinstance(term, Op):
        return (lows[term], math.inf) if term in lows else None
    if term.kind == "%":
        return (0, term.right - 1) if isinstance(term.right, int) and term.right > 0 else None
    left, right = _term_bounds(term.left, lows), _term_bounds(term.right, lows)
    if left is None or right is None:
        return None
    if term.kind == "+":
        return left[0] + right[0], left[1] + right[1]
    if term.kind == "-":
        return left[0] - right[1], left[1] - right[0]
    if term.kind == "*" and left[0] >= 0 and right[0] >= 0:
        return left[0] * right[0], left[1] * right[1]
    if term.kind == "//" and isinstance(term.right, int) and term.right > 0:
        return left[0] // term.right, left[1] if left[1] == math.inf else left[1] // term.right
    return None


def _plus(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return a if b == 0 else b if a == 0 else Op("+", a, b)


def _times(a: Term, b: Term) -> Term:
    return b if a == 1 else a if b == 1 else Op("*", a, b)


def _bound_by(stmt: cst.CSTNode) -> set[str]:
    """The names a statement binds (assignments, loop and `with` targets)."""
    if isinstance(stmt, cst.Assign):
        return {name for target in stmt.targets for name in _target_names(target.target)}
    if isinstance(stmt, (cst.AugAssign, cst.AnnAssign)):
        return set(_target_names(stmt.target))
    if isinstance(stmt, (cst.For, cst.With)):
        return set(_names_bound(stmt))
    return set()


def _applies(stmt: cst.CSTNode, layer: str, name: str) -> bool:
    """`x = layer(x)`, or the residual `x = x + layer(x)` (the sum keeps what the layer keeps)."""
    if not (isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name)
            and stmt.targets[0].target.value == name):
        return False
    value = stmt.value
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        sides = (value.left, value.right)
        if not any(isinstance(side, cst.Name) and side.value == name for side in sides):
            return False
        value = next((side for side in sides if not isinstance(side, cst.Name)), value)
    return (isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name) and value.func.value == layer and len(value.args) == 1
            and not value.args[0].keyword and not value.args[0].star
            and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name)


def _layer_loop(loop: cst.For) -> tuple[str | None, cst.BaseExpression]:
    """The layer's name and what the loop runs over: `for layer in self.layers`, or `for i, layer
    in enumerate(self.layers)`."""
    target, layers = loop.target, loop.iter
    if (isinstance(layers, cst.Call) and isinstance(layers.func, cst.Name) and layers.func.value == "enumerate"
            and len(layers.args) == 1 and not layers.args[0].keyword and isinstance(target, cst.Tuple)
            and len(target.elements) == 2):
        target, layers = target.elements[1].value, layers.args[0].value
    return (target.value if isinstance(target, cst.Name) else None), layers


def _targets_within(stmt: cst.CSTNode) -> set[str]:
    """The names in the targets `stmt` and the statements in it bind (an assignment's or a
    loop's), in one walk."""
    targets = [t.target for n in iter_nodes(stmt) if isinstance(n, cst.Assign) for t in n.targets] + [
        n.target for n in iter_nodes(stmt) if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For))]
    return {inner.value for target in targets for inner in iter_nodes(target) if isinstance(inner, cst.Name)}


def module_list(built: cst.Call | None) -> list[cst.Call] | None:
    """The layers of `nn.ModuleList([nn.Linear(4, 4), ...])`, `nn.ModuleList([nn.Linear(4, 4) for _ in ...])`
    or `nn.ModuleList(nn.Linear(4, 4) for _ in ...)`."""
    if built is None or not (dotted(built.func) or "").endswith("ModuleList") or len(built.args) != 1:
        return None
    listed = built.args[0].value
    if isinstance(listed, (cst.ListComp, cst.GeneratorExp)) and isinstance(listed.elt, cst.Call):
        return [listed.elt]
    if isinstance(listed, (cst.List, cst.Tuple)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Call) for e in listed.elements):
        return [e.value for e in listed.elements]  # type: ignore[misc]
    return None


def _is_module(expr: cst.BaseExpression) -> bool:
    """`torch`, `F`, `nn`, or `self` (a layer or a block, not a tensor method)."""
    return isinstance(expr, cst.Name) and (expr.value in _MODULES or expr.value == "self") or (
        isinstance(expr, cst.Attribute) and (dotted(expr) or "").split(".")[0] in _MODULES
    )


def _is_module_call(func: cst.BaseExpression) -> bool:
    """`torch.cat`, `F.pad`, `torch.nn.functional.interpolate`."""
    return isinstance(func, cst.Attribute) and (dotted(func) or "").split(".")[0] in _MODULES


def arguments_read(call: cst.Call) -> bool:
    """Whether the size model reads `call`'s arguments: none is starred, but for the sizes of
    `view`/`reshape` (`x.view(*x.shape[:-1], h, d)`: see `Sizes.view_targets`)."""
    return not any(a.star for a in call.args) or (
        isinstance(call.func, cst.Attribute) and call.func.attr.value in ("view", "reshape")
    )


def view_sizes(args: Sequence[cst.Arg]) -> list[cst.BaseExpression] | None:
    """The sizes of `view(a, b)` / `view((a, b))`; None with keywords or a starred argument."""
    if any(a.keyword is not None or a.star for a in args):
        return None
    if len(args) == 1 and isinstance(args[0].value, (cst.Tuple, cst.List)):
        elements = args[0].value.elements
        return None if any(isinstance(e, cst.StarredElement) for e in elements) else [e.value for e in elements]
    return [a.value for a in args]


def flatten_span(args: Sequence[cst.Arg], rank: int) -> tuple[int | None, int | None]:
    named = {a.keyword.value: a.value for a in args if a.keyword is not None}
    plain = [a.value for a in args if a.keyword is None]
    first = named.get("start_dim", plain[0] if plain else None)
    last = named.get("end_dim", plain[1] if len(plain) > 1 else None)
    start = integer_literal(first) if first is not None else 0
    end = integer_literal(last) if last is not None else -1
    if start is None or end is None:
        return None, None
    return start + rank if start < 0 else start, end + rank if end < 0 else end


def _reduced(args: Sequence[cst.Arg]) -> tuple[int | None, bool]:
    """(dim, keepdim) of `t.sum(1)`, `t.mean(dim=-1, keepdim=True)`; dim None: not one literal dimension."""
    named = {a.keyword.value: a.value for a in args if a.keyword is not None}
    plain = [a.value for a in args if a.keyword is None]
    dim = named.get("dim", plain[0] if plain else None)
    keep = named.get("keepdim", plain[1] if len(plain) > 1 else None)
    kept = isinstance(keep, cst.Name) and keep.value == "True"
    if keep is not None and not (isinstance(keep, cst.Name) and keep.value in ("True", "False")):
        return None, False
    return (integer_literal(dim) if dim is not None else None), kept


def _first_element(expr: cst.BaseExpression | None) -> cst.BaseExpression | None:
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements and isinstance(expr.elements[0], cst.Element):
        return expr.elements[0].value
    return None


def _argument_of(built: cst.Call | None, position: int, keyword: str) -> cst.BaseExpression | None:
    """A layer's constructor argument as written, by keyword or position."""
    if built is None:
        return None
    value = next((a.value for a in built.args if a.keyword is not None and a.keyword.value == keyword), None)
    if value is None and len(built.args) > position and all(a.keyword is None for a in built.args[: position + 1]):
        value = built.args[position].value
    return value


def _whole_factor(scale: cst.BaseExpression | None) -> int | None:
    """A `scale_factor` that is a whole number (`2`, `2.0`)."""
    if isinstance(scale, cst.Float):
        value = float(scale.evaluated_value)
        return int(value) if value.is_integer() else None
    return integer_literal(scale) if scale is not None else None


def _layer_argument(built: cst.Call | None, position: int, keyword: str, spatial: int = 0) -> int | None:
    """A layer's integer constructor argument (`nn.Linear(8, 4)`'s out_features); `spatial`: the
    element of a tuple argument (an adaptive pool's `(7, 7)`)."""
    value = _argument_of(built, position, keyword)
    if isinstance(value, (cst.Tuple, cst.List)):
        element = value.elements[spatial] if spatial < len(value.elements) else None
        value = element.value if isinstance(element, cst.Element) else None
    return integer_literal(value) if value is not None else None


_WINDOW_ARGUMENTS = {
    "Conv": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation"),
    "ConvTranspose": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding", "groups",
                      "bias", "dilation"),
    "MaxPool": ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"),
    "AvgPool": ("kernel_size", "stride", "padding", "ceil_mode"),
}
#: torch.nn.functional's pools (their input first), as the layer of the same arguments
_FUNCTIONAL_POOLS = {
    f"{function}{n}d": f"{layer}{n}d" for n in (1, 2, 3) for function, layer in (
        ("max_pool", "MaxPool"), ("avg_pool", "AvgPool"), ("adaptive_avg_pool", "AdaptiveAvgPool"),
        ("adaptive_max_pool", "AdaptiveMaxPool"),
    ) if f"{layer}{n}d" in _LAYER_RANKS
}


#: layers whose output's spatial sizes are functions of their input's (a size stays dynamic through them)
_CARRYING_LAYERS = KEEP_ALL_LAYERS | {
    f"{family}{n}d" for family in ("Conv", "ConvTranspose", "MaxPool", "AvgPool") for n in (1, 2, 3)
}


def rounded_up_strides(
    kind: str, built: cst.Call | None, integer: Callable[[cst.BaseExpression], int | None] = integer_literal,
) -> list[int | None] | None:
    """The stride along each spatial dimension (None: not read) of a max or average pool `built`
    with `ceil_mode=True` (`nn.MaxPool2d(3, 2, ceil_mode=True)`, the sixth argument by position),
    whose output size is rounded up; None for any other layer or pool. The stride defaults to
    the kernel."""
    family = kind[:-2]
    if family not in ("MaxPool", "AvgPool") or built is None or any(a.star for a in built.args):
        return None
    names = _WINDOW_ARGUMENTS[family]
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(built.args):
        given[arg.keyword.value if arg.keyword is not None else names[position] if position < len(names) else ""] = (
            arg.value)
    ceil = given.get("ceil_mode")
    if not (isinstance(ceil, cst.Name) and ceil.value == "True"):
        return None
    stride = given.get("stride")
    if stride is None or (isinstance(stride, cst.Name) and stride.value == "None"):
        stride = given.get("kernel_size")
    spatial = int(kind[-2])
    if isinstance(stride, (cst.Tuple, cst.List)):
        return [integer(e.value) for e in stride.elements] if len(stride.elements) == spatial else None
    return [integer(stride) if stride is not None else None] * spatial


def window_geometry(
    kind: str, built: cst.Call | None, spatial: int,
    integer: Callable[[cst.BaseExpression], int | None] = integer_literal,
) -> list[tuple[int, int, int, int]] | None:
    """(kernel, stride, padding, dilation) per spatial dimension of a convolution or pooling built
    with sizes `integer` reads (literals; `init_integer` adds `__init__`'s defaults and constants:
    `nn.Conv2d(c, c, kernel_size, stride=stride)` in a block built with its defaults); a pool's
    stride defaults to its kernel. None for anything else (a string padding, `ceil_mode=True`, a
    size read from a variable)."""
    family = kind[:-2]
    names = _WINDOW_ARGUMENTS.get(family)
    if built is None or names is None or any(a.star for a in built.args):
        return None
    given: dict[str, cst.BaseExpression] = {"padding": cst.Integer("0"), "dilation": cst.Integer("1")}
    if family.startswith("Conv"):
        given["stride"] = cst.Integer("1")
    for position, arg in enumerate(built.args):
        keyword = arg.keyword.value if arg.keyword is not None else names[position] if position < len(names) else ""
        given[keyword] = arg.value
    if integer_literal(given.get("output_padding", cst.Integer("0"))) != 0:
        return None  # a transposed convolution's extra output size: not modelled
    for flag in ("ceil_mode", "return_indices"):  # a rounded-up size; a tuple of outputs
        if flag in given and not (isinstance(given[flag], cst.Name) and given[flag].value == "False"):
            return None
    given.setdefault("stride", given.get("kernel_size", cst.Integer("0")))
    if isinstance(given["stride"], cst.Name) and given["stride"].value == "None":
        given["stride"] = given.get("kernel_size", cst.Integer("0"))
    per_dim = []
    for key in ("kernel_size", "stride", "padding", "dilation"):
        value = given.get(key)
        numbers = (
            [integer(e.value) for e in value.elements] if isinstance(value, (cst.Tuple, cst.List))
            else [integer(value)] * spatial if value is not None else [None]
        )
        if len(numbers) != spatial or None in numbers or (key in ("kernel_size", "stride") and 0 in numbers):
            return None
        per_dim.append(numbers)
    return [tuple(column) for column in zip(*per_dim, strict=True)]  # type: ignore[misc]


def _statements(body: cst.BaseSuite) -> tuple[cst.CSTNode, ...]:
    """Every statement of a function body, nested blocks included, nested functions left out.
    Found once per body (`_BODY_STATEMENTS`): the shape facts of a class read its `__init__` and
    `forward` dozens of times (`init_call` per attribute, `block_dims`, each `Sizes`), about 4 %
    of a cold check when walked each time."""
    return _BODY_STATEMENTS(body)


def _walk_statements(body: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """`_statements`, walked."""
    # the type tests are asked once per node type, small statements (which hold no statements)
    # are not opened, and children come from walk.children, not libcst's `children`, which
    # rebuilds the node
    stack: list[cst.CSTNode] = [body]
    kinds = _STATEMENT_KINDS
    while stack:
        node = stack.pop()
        kind = kinds.get(type(node))
        if kind is None:
            kind = _statement_kind(type(node))
        if kind is _LEFT_OUT:
            continue
        if kind is not _BLOCK:
            yield node
            if kind is _SMALL:
                continue
        for child in reversed(children(node)):
            child_kind = kinds.get(type(child))
            if child_kind is None:
                child_kind = _statement_kind(type(child))
            if child_kind is not _OTHER:
                stack.append(child)


_BODY_STATEMENTS: PerStatement[tuple[cst.CSTNode, ...]] = PerStatement(
    lambda body: tuple(_walk_statements(body))  # type: ignore[arg-type]
)
_LEFT_OUT, _SMALL, _COMPOUND, _BLOCK, _OTHER = "left out", "small", "compound", "block", "other"
_STATEMENT_KINDS: dict[type, str] = {}


def _statement_kind(node_type: type) -> str:
    """What `_statements` does with a node of this type: leave it out (a nested function or
    class), yield it (a statement; a small one holds none), or only look inside (a block)."""
    if issubclass(node_type, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        kind = _LEFT_OUT
    elif issubclass(node_type, cst.BaseSmallStatement):
        kind = _SMALL
    elif issubclass(node_type, cst.BaseCompoundStatement):
        kind = _COMPOUND
    elif issubclass(node_type, (cst.BaseSuite, cst.BaseStatement, cst.Else, cst.ExceptHandler, cst.Finally)):
        kind = _BLOCK
    else:
        kind = _OTHER
    _STATEMENT_KINDS[node_type] = kind
    return kind


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def init_method(cls: cst.ClassDef) -> cst.FunctionDef | None:
    """The class's own `__init__`, where its body defines one."""
    return next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)


#: torch's helpers that repeat an integer into a tuple of that many (`_pair(16)` is `(16, 16)`)
_REPEATS = {
    "torch.nn.modules.utils._single": 1,
    "torch.nn.modules.utils._pair": 2,
    "torch.nn.modules.utils._triple": 3,
    "torch.nn.modules.utils._quadruple": 4,
}


def init_constants(
    cls: cst.ClassDef,
    defaults: dict[str, int] | None = None,
    resolve: Callable[[cst.BaseExpression], str | None] | None = None,
    functions: dict[str, cst.FunctionDef] | None = None,
) -> dict[str, int]:
    """`self.x` set once in `__init__` to an integer literal, or to an argument whose default is
    one (`max_len=512`: the model built with defaults, as an export example builds it; `defaults`:
    those to read, `init_defaults` unless given); a tuple of them (`self.img_size = (224, 224)`,
    `(patch_size, patch_size)`), torch's repeat of one (`_pair(patch_size)`, as `resolve` names
    the call) or a helper of the file's `functions` repeating its integer argument
    (`to_2tuple(patch_size)`: `repeat_count`) gives one entry per element (`img_size[0]`)."""
    init = init_method(cls)
    if init is None:
        return {}
    defaults = init_defaults(cls) if defaults is None else defaults
    rebound = {name for node in iter_nodes(init.body) for name in _rebinds(node)}
    defaults = {name: value for name, value in defaults.items() if name not in rebound}

    def number(value: cst.BaseExpression | None) -> int | None:
        if isinstance(value, cst.Integer):
            return int(value.evaluated_value)
        return defaults.get(value.value) if isinstance(value, cst.Name) else None

    found: dict[str, list[int | None]] = {}
    for stmt in _statements(init.body):
        targets = stmt.targets if isinstance(stmt, cst.Assign) else []
        for target in targets:
            t = target.target
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                value = stmt.value  # type: ignore[union-attr]
                found.setdefault(t.attr.value, []).append(number(value))
                for index, item in enumerate(_elements(value, resolve, functions or {})):
                    found.setdefault(f"{t.attr.value}[{index}]", []).append(number(item))
    return {name: values[0] for name, values in found.items() if len(values) == 1 and values[0] is not None}


def _rebinds(node: cst.CSTNode) -> list[str]:
    """The names an assignment statement part binds (`k = k * 2` rebinds the argument `k`: its
    default is no longer what `self.x = k` holds)."""
    if isinstance(node, cst.AssignTarget):
        return list(_target_names(node.target))
    if isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
        return [node.target.value]
    return []


def _elements(
    value: cst.BaseExpression,
    resolve: Callable[[cst.BaseExpression], str | None] | None,
    functions: dict[str, cst.FunctionDef],
) -> list[cst.BaseExpression | None]:
    """The elements of a tuple or list display (None for a starred one), or of a repeat of one
    argument (`_pair(k)`, or a helper of the file's `functions` that `repeat_count` reads:
    `[k, k]`); none for anything else."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return [None if isinstance(e, cst.StarredElement) else e.value for e in value.elements]
    if not (
        isinstance(value, cst.Call) and len(value.args) == 1
        and not value.args[0].star and value.args[0].keyword is None
    ):
        return []
    count = _REPEATS.get(resolve(value.func) or "") if resolve is not None else None
    if count is None and isinstance(value.func, cst.Name) and value.func.value in functions:
        count = repeat_count(functions[value.func.value])
    return [value.args[0].value] * count if count is not None else []


#: types an integer is no instance of (`isinstance(16, (tuple, list))` is False)
_CONTAINERS = frozenset({
    "tuple", "list", "str", "Iterable", "Sequence", "abc.Iterable", "abc.Sequence", "collections.abc.Iterable",
    "collections.abc.Sequence", "typing.Iterable", "typing.Sequence",
})


def repeat_count(helper: cst.FunctionDef) -> int | None:
    """How many copies of an integer first argument a helper returns (timm's `to_2tuple`,
    `value if isinstance(value, tuple) else (value, value)`: 2), its `if`s and conditional
    expressions taken as an integer takes them (`isinstance` of a container type is False); None
    where a statement or test is another kind."""
    params = helper.params
    if not params.params or isinstance(params.star_arg, cst.Param) or any(p.default is None for p in params.params[1:]):
        return None
    name = params.params[0].name.value
    for stmt in _top_level(helper.body):
        if isinstance(stmt, cst.If) and stmt.orelse is None:
            taken = _integer_test(stmt.test, name)
            if taken is None:
                return None
            if taken:
                inner = _top_level(stmt.body)
                return _copies(inner[0].value, name) if len(inner) == 1 and isinstance(inner[0], cst.Return) else None
        elif isinstance(stmt, cst.Return):
            return _copies(stmt.value, name)
        elif not (isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.SimpleString)):
            return None  # not a docstring
    return None


def _top_level(body: cst.BaseSuite) -> list[cst.CSTNode]:
    """A block's own statements in order, the small ones of each line apart (nested blocks closed)."""
    if not isinstance(body, cst.IndentedBlock):
        return list(body.body)
    lines = body.body
    return [small for line in lines for small in (line.body if isinstance(line, cst.SimpleStatementLine) else [line])]


def _integer_test(test: cst.BaseExpression, name: str) -> bool | None:
    """The value of `test` where `name` holds an integer, or None where it does not follow."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _integer_test(test.expression, name)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = _integer_test(test.left, name)
        deciding = isinstance(test.operator, cst.Or)
        return deciding if left is deciding else None if left is None else _integer_test(test.right, name)
    if not (isinstance(test, cst.Call) and dotted(test.func) == "isinstance" and len(test.args) == 2):
        return None
    checked, types = test.args[0].value, test.args[1].value
    listed = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
    if isinstance(checked, cst.Name) and checked.value == name and all(dotted(t) in _CONTAINERS for t in listed):
        return False
    return None


def _copies(value: cst.BaseExpression | None, name: str) -> int | None:
    """How many copies of `name` an expression returned holds: `(k, k)`, `(k,) * 2`,
    `tuple(repeat(k, 2))`, one side of `a if isinstance(k, ...) else b` as an integer takes it."""
    if isinstance(value, cst.IfExp):
        taken = _integer_test(value.test, name)
        return None if taken is None else _copies(value.body if taken else value.orelse, name)
    if isinstance(value, cst.Tuple) and value.elements and all(
        isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value == name for e in value.elements
    ):
        return len(value.elements)
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        once, times = _copies(value.left, name), integer_literal(value.right)
        return once * times if once is not None and times is not None else None
    if isinstance(value, cst.Call) and dotted(value.func) == "tuple" and len(value.args) == 1:
        inner = value.args[0].value
        if (
            isinstance(inner, cst.Call) and dotted(inner.func) in ("repeat", "itertools.repeat")
            and len(inner.args) == 2 and isinstance(inner.args[0].value, cst.Name)
            and inner.args[0].value.value == name
        ):
            return integer_literal(inner.args[1].value)
    return None


def init_defaults(cls: cst.ClassDef) -> dict[str, int]:
    """`__init__`'s arguments with an integer default (`width=8`): their value in a model built
    with its defaults, as an export example builds it."""
    init = init_method(cls)
    if init is None:
        return {}
    return {
        p.name.value: int(p.default.evaluated_value)
        for p in [*init.params.params, *init.params.kwonly_params]
        if isinstance(p.default, cst.Integer)
    }


#: a class as called (`Stem`, `blocks.Stem`) -> argument slot (position "0", "1", ... after
#: `self`, a keyword, or "*" for a starred one) -> the one integer literal every call of a file that
#: passes arguments gives there, or None (calls differ, or not an integer literal)
BuiltArguments = dict[str, dict[str, int | None]]


def construction_arguments(
    nodes: Iterable[tuple[cst.CSTNode, cst.CSTNode | None]], wanted: Callable[[str], bool]
) -> BuiltArguments:
    """What the file's calls of the classes `wanted` accepts as written (those of other files, in
    the file's summary; its configuration classes) pass, joined per callee: an `__init__` default
    or a configuration field's holds only where no call builds the class with another value
    (`defaults_as_built`, `layer_integer`). `nodes`: the file's (`FileSymbols.module_nodes`)."""
    found: dict[str, list[dict[str, int | None]]] = {}
    for node, _ in nodes:
        written = dotted(node.func) if type(node) is cst.Call and node.args else None  # type: ignore[attr-defined]
        if written is not None and wanted(written):
            found.setdefault(written, []).append({
                "*" if arg.star else arg.keyword.value if arg.keyword is not None else str(position):
                None if arg.star else integer_literal(arg.value)
                for position, arg in enumerate(node.args)  # type: ignore[attr-defined]
            })
    return {written: joined_arguments(calls) for written, calls in found.items()}


def joined_arguments(calls: Iterable[dict[str, int | None]]) -> dict[str, int | None]:
    """Per argument slot, the one integer the calls that give it pass, or None where they differ
    (commutative: the same whatever order the calls or files come in)."""
    joined: dict[str, int | None] = {}
    for call in calls:
        for slot, value in call.items():
            joined[slot] = value if joined.get(slot, value) == value else None
    return joined


def _passed_as_default(passed: dict[str, int | None], name: str, default: int) -> bool:
    """No call in `passed` (what the calls building a configuration pass it) gives the field
    `name` another value than its `default`, positionally or through `*args`/`**kwargs` either."""
    return not any(slot == "*" or slot.isdigit() for slot in passed) and passed.get(name, default) == default


def calls_by_callee(nodes: Iterable[cst.CSTNode]) -> dict[str, list[cst.Call]]:
    """The calls among `nodes`, by the last part of the name they call (`Stem` for
    `blocks.Stem(...)`): the calls that may build a class (`defaults_as_built`), found in one
    pass over a file instead of one walk of it per class."""
    found: dict[str, list[cst.Call]] = {}
    for node in nodes:
        if type(node) is cst.Call and (name := dotted(node.func)) is not None:  # type: ignore[attr-defined]
            found.setdefault(name.rpartition(".")[2], []).append(node)  # type: ignore[attr-defined]
    return found


def _calls_building(
    cls: cst.ClassDef, calls: dict[str, list[cst.Call]] | None, blocks: dict[str, cst.ClassDef]
) -> list[cst.Call]:
    """The calls that may build `cls`: the file's (`calls`), else those in its module classes
    (`blocks`). A function, not a method of `Sizes`: `Sizes.layer_integer` keeps it, and a bound
    method there would hold the `Sizes` in a reference cycle, keeping the file's trees alive."""
    if calls is None:
        calls = calls_by_callee(node for block in blocks.values() for node in iter_nodes(block))
    return calls.get(cls.name.value, [])


def defaults_as_built(
    cls: cst.ClassDef, calls: Iterable[cst.Call], elsewhere: dict[str, int | None] | None = None
) -> dict[str, int]:
    """`init_defaults` of `cls`, joined over the `calls` that build it (the file's, or its module
    classes': `calls_by_callee`) and over what other files' calls pass (`elsewhere`: its entry of
    their `construction_arguments`, joined by the project index): an argument every call of the
    file passes as one literal (`Stem(kernel_size=3)`, or omits where the default is that
    literal) holds it; one the calls give different values (or a name, or through
    `*args`/`**kwargs`), or another file gives another value, holds none. Not kept per class
    node: an edit elsewhere in the file (the call building it) changes it."""
    init = init_method(cls)
    names = [p.name.value for p in init.params.params][1:] if init is not None else []
    defaults = init_defaults(cls)
    # a required argument too (`Heads(8)` of `def __init__(self, n)`): what every call passes
    values: dict[str, set[int | None]] = {name: set() for name in [*defaults, *names]}
    passed_elsewhere = list((elsewhere or {}).items())
    if any(slot == "*" for slot, _ in passed_elsewhere):
        return {}
    for call in calls:
        passed: dict[str, int | None] = {}
        for position, arg in enumerate(call.args):  # type: ignore[attr-defined]
            if arg.star:
                return {}
            name = arg.keyword.value if arg.keyword is not None else names[position] if position < len(names) else ""
            passed[name] = integer_literal(arg.value)
        for name in values:
            values[name].add(passed.get(name, defaults.get(name)))
    for slot, value in passed_elsewhere:
        name = names[int(slot)] if slot.isdigit() and int(slot) < len(names) else slot
        if name in values:
            values[name].update((defaults[name], value) if name in defaults else (value,))
    built = {name: given.pop() if given else defaults.get(name) for name, given in values.items() if len(given) <= 1}
    return {name: value for name, value in built.items() if value is not None}


def layer_integer(
    cls: cst.ClassDef, calls: Callable[[], Iterable[cst.Call]], config_value: Callable[[str], object] | None = None,
    elsewhere: dict[str, int | None] | None = None, config_built: dict[str, int | None] | None = None,
) -> Callable[[cst.BaseExpression], int | None]:
    """What reads a size a layer of `cls` is built with (a convolution's kernel and stride):
    `init_integer` with the defaults the project builds it with (`defaults_as_built` over what
    `calls` gives, the calls building `cls`; `elsewhere`: what other files' calls pass it), or a
    field of the configuration it is built from (`config.kernel_size`: `config_value`, its
    default in the configuration class, as
    `init_buffers` reads a length), where no call building a configuration class gives that
    field another value (`config_built`: what those calls pass, joined)."""
    @functools.cache
    def defaults() -> dict[str, int]:
        return defaults_as_built(cls, calls(), elsewhere)

    def integer(expr: cst.BaseExpression) -> int | None:
        # the defaults only for a name or `self.<name>`, once: finding them may walk the classes
        found = init_integer(cls, expr, defaults() if isinstance(expr, (cst.Name, cst.Attribute)) else None)
        if found is None and config_value is not None and isinstance(expr, cst.Attribute) and dotted(
                expr.value) in ("config", "self.config"):
            field = config_value(expr.attr.value)
            if type(field) is int and _passed_as_default(config_built or {}, expr.attr.value, field):
                return field
            return None
        return found

    return integer


def init_integer(cls: cst.ClassDef, expr: cst.BaseExpression, defaults: dict[str, int] | None = None) -> int | None:
    """The integer an argument of a layer built in `__init__` holds: a literal, an argument of
    `__init__` with an integer default (`nn.LayerNorm(width)`), or a constant it set
    (`nn.LayerNorm(self.width)`). A size a layer's weights fix whatever value the model is
    built with; the default names the one an example built with defaults has (`defaults`: those
    to read, `init_defaults` unless given)."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Name):
        return (init_defaults(cls) if defaults is None else defaults).get(expr.value)
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        return init_constants(cls, defaults).get(expr.attr.value)
    if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in INTEGER_ARITHMETIC:
        # `nn.Linear(8 * 8 * 8, 10)`, `nn.Linear(width * 4, width)`
        left, right = init_integer(cls, expr.left, defaults), init_integer(cls, expr.right, defaults)
        return INTEGER_ARITHMETIC[type(expr.operator)](left, right) if left is not None and right is not None else None
    return None


def block_dims(block: cst.ClassDef, blocks: dict[str, cst.ClassDef]) -> BlockDims:
    """What `self.block(x)` keeps of its arguments' dimensions, for the file's summary (callers
    in other files read a size through it as `Sizes._through_block` does in one file)."""
    forward = next(
        (stmt for stmt in block.body.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "forward"), None
    )
    if forward is None:
        return ()
    returned = [stmt.value for stmt in _statements(forward.body) if isinstance(stmt, cst.Return) and stmt.value]
    if not returned:
        return ()
    inner = Sizes(forward, layers=init_layers(block), blocks=blocks)
    out = []
    for index in range(_BLOCK_DIMS):
        found = {inner._dim_of(value, index, 1) for value in returned}
        if len(found) == 1 and None not in found:
            ((_, position, inner_index),) = found  # type: ignore[misc]
            out.append((index, position, inner_index))
    return tuple(out)


def init_call(cls: cst.ClassDef, attr: str) -> cst.Call | None:
    """The call `__init__` sets `self.<attr>` to (`nn.Conv1d(4, 2, 3)`), where it sets it once."""
    init = init_method(cls)
    if init is None:
        return None
    found = [
        stmt.value for stmt in _statements(init.body) if isinstance(stmt, cst.Assign)
        for target in stmt.targets
        if isinstance(target.target, cst.Attribute) and isinstance(target.target.value, cst.Name)
        and target.target.value.value == "self" and target.target.attr.value == attr
    ]
    return found[0] if len(found) == 1 and isinstance(found[0], cst.Call) else None


CONVOLUTIONS = {"Conv1d": 1, "Conv2d": 2, "Conv3d": 3}


def conv_geometry(
    cls: cst.ClassDef, attr: str, integer: Callable[[cst.BaseExpression], int | None]
) -> list[tuple[int, int, int, int]] | None:
    """(kernel, stride, padding, dilation) per spatial dimension of `self.<attr> = nn.ConvNd(...)`
    set once in `__init__` with sizes `integer` reads (`Sizes.layer_integer`: literals,
    `__init__`'s defaults as the file builds it, constants it set, configuration fields); None for
    anything else (a string padding, a size read from a variable)."""
    call = init_call(cls, attr)
    kind = (dotted(call.func) or "").rpartition(".")[2] if call is not None else ""
    spatial = CONVOLUTIONS.get(kind)
    return window_geometry(kind, call, spatial, integer) if spatial else None


def init_layers(cls: cst.ClassDef) -> dict[str, str]:
    """`self.proj = nn.Linear(...)` set once in `__init__`: attribute -> the layer's class name
    (`Linear`), for the dimensions its output keeps."""
    return {attr: written.rpartition(".")[2] for attr, written in init_layer_calls(cls).items()}


def init_layer_calls(cls: cst.ClassDef) -> dict[str, str]:
    """`self.proj = nn.Linear(...)` set once in `__init__`: attribute -> the class as written
    (`nn.Linear`); for a class `__init__` takes as an argument (timm's `embed_layer=PatchEmbed`,
    then `self.patch_embed = embed_layer(...)`), the class its default names, the one a model
    built with its defaults has."""
    init = init_method(cls)
    if init is None:
        return {}
    defaults = {
        p.name.value: written for p in (*init.params.params, *init.params.kwonly_params)
        if p.default is not None and (written := dotted(p.default)) and written not in ("None", "True", "False")
    }
    found: dict[str, list[str]] = {}
    for stmt in _statements(init.body):
        for target in stmt.targets if isinstance(stmt, cst.Assign) else []:
            t = target.target
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                value = stmt.value  # type: ignore[union-attr]
                name = dotted(value.func) if isinstance(value, cst.Call) else None
                found.setdefault(t.attr.value, []).append(defaults.get(name, name) if name else "")
    return {attr: names[0] for attr, names in found.items() if len(names) == 1 and names[0]}


def init_listed_layers(cls: cst.ClassDef) -> dict[str, str]:
    """`self.blocks = nn.ModuleList([Block(...), ...])` (or a comprehension of `Block(...)`) set
    once in `__init__`: attribute -> the class of its first layer as written (`Block`)."""
    found = {}
    for attr, written in init_layer_calls(cls).items():
        if written.rpartition(".")[2] == "ModuleList":
            layers = module_list(init_call(cls, attr))
            first = dotted(layers[0].func) if layers else None
            if first:
                found[attr] = first
    return found


def _names_bound(stmt: cst.For | cst.With) -> Iterator[str]:
    targets: list[cst.BaseExpression] = []
    if isinstance(stmt, cst.For):
        targets.append(stmt.target)
    else:
        targets.extend(item.asname.name for item in stmt.items if item.asname is not None)  # type: ignore[misc]
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            yield target.value
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(e.value for e in target.elements)


# -- verdicts ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """A shape finding's severity (None: no finding) and the reason, for its message."""

    severity: Severity | None
    reason: str = ""
    #: whether the rule's rewrite helps (two inputs' sizes that must be equal need one shared
    #: `Dim`, which a `torch._check` or `torch.cond` in the code cannot give)
    fixable: bool = True
    #: (path, line, message): where the dimensions were declared
    notes: tuple[tuple[str, int, str], ...] = ()
    #: two input sizes export needs equal, declared with different named Dims: one shared Dim fixes it
    shared: tuple[SizeRef, SizeRef] | None = None


NO_FINDING = Verdict(None)
#: sizes sampled from a declared range past its low end (a branch's answer changes near the
#: constants it compares with; these bound where)
_SAMPLES = 2048


def judge_branch(
    test: cst.BaseExpression, sizes: Sizes | None, config: ShapeConfig, mode: Mode,
    examples: tuple[ExampleSizes, ...] = (),
) -> Verdict:
    """A branch on the size expression `test` under `config` (see the module docstring);
    `examples`: the example inputs' sizes by position, where the declaration shows them."""
    return _with_note(_judge_branch(test, sizes, config, mode, examples), config)


def judge_loop(expr: cst.BaseExpression, sizes: Sizes | None, config: ShapeConfig) -> Verdict:
    """A loop over `range(expr)`: Python needs one number of iterations, so export fixes the size."""
    return _with_note(_judge_loop(expr, sizes, config), config)


def describe_size(ref: SizeRef, config: ShapeConfig) -> str:
    """Markdown for a hover on an input size: what export makes of it, and why."""
    spec = config.dim(*ref)
    where = f"`{ref[0]}.shape[{ref[2]}]`"
    if spec.kind is DimKind.STATIC:
        what = "static: a constant of the exported program, so a test on it is decided at export"
    elif spec.kind is DimKind.NAMED:
        what = (
            f"dynamic, `{spec.text()}`: `{spec.range_text()}`; a test that splits this range "
            "fails export (ConstraintViolationError)"
        )
    else:
        what = f"dynamic, `{spec.text()}`: export narrows its range to what the code's tests allow, without a word"
    return f"{where} is {what} (from {config.source})."


def _with_note(verdict: Verdict, config: ShapeConfig) -> Verdict:
    note = config.note()
    if verdict.severity is None or note is None:
        return verdict
    return dataclasses.replace(verdict, notes=(note,))


def _judge_branch(
    test: cst.BaseExpression, sizes: Sizes | None, config: ShapeConfig, mode: Mode,
    examples: tuple[ExampleSizes, ...] = (), raised: bool | None = None,
) -> Verdict:
    """`raised`: the `if` raises when `test` holds (None: as the function's statements say)."""
    if raised is None:
        raised = sizes is not None and id(test) in sizes.raised_on
    instances = sizes.loop_instances(test) if sizes is not None else None
    if instances:  # `for dim in x.shape[-2:]: if dim % 2: ...`: each size the loop gives
        verdicts = [_judge_branch(instance, sizes, config, mode, examples, raised) for instance in instances]
        return next((v for v in verdicts if v.severity is Severity.ERROR), verdicts[0])
    whole = sizes.compared_whole(test, cst.NotEqual) if sizes is not None and raised else None
    if sizes is not None and whole is not None:
        # `if x.shape[-2:] != self.img_size: raise`: it raises unless each size equals its part
        verdicts = [_judge_branch(part, sizes, config, mode, examples, raised=True) for part in whole]
        return next((v for v in verdicts if v.severity is Severity.ERROR), verdicts[0])
    ordered = _compared_at_example(test, sizes, mode, examples) if sizes is not None and not raised else None
    if ordered:  # `if (gh, gw) != tuple(pos.shape[-2:]): pos = F.interpolate(...)`: the sizes Python compares
        verdicts = [_judge_branch(part, sizes, config, mode, examples, raised=False) for part in ordered]
        return next((v for v in verdicts if v.severity is Severity.ERROR), verdicts[0])
    if sizes is not None and raised:  # ViT's `if height != self.image_size[0]: raise`
        checked = _size_against_held(test, sizes, cst.NotEqual)
        if checked is not None and config.dim(*checked[0]).kind is DimKind.STATIC:
            return NO_FINDING  # a constant of the export: the check holds there as in eager
        pinned = pinned_to_held_value(test, sizes, config, raised=True) if checked is not None else None
        if pinned is not None:
            return pinned
    refs = sizes.refs(test) if sizes is not None else None
    if refs is None:
        if not config.any_dynamic():
            return NO_FINDING
        return Verdict(Severity.WARNING, f"{config.source} makes some input sizes dynamic")
    specs = {ref: config.dim(ref[0], ref[1], ref[2]) for ref in refs}
    dynamic = {ref: spec for ref, spec in specs.items() if spec.kind is not DimKind.STATIC}
    if not dynamic:
        return NO_FINDING  # every size it reads is a constant of the export
    where = config.source
    described = ", ".join(f"`{r[0]}.shape[{r[2]}]` is {s.text()}" for r, s in dynamic.items())
    if sizes is not None and len(specs) == 2 and _equality_of_sizes(test, sizes):
        (first, a), (second, b) = specs.items()
        if a.kind is DimKind.NAMED and b.kind is DimKind.NAMED and a.name == b.name and not _meet(a, b):
            return NO_FINDING  # one shared Dim (equal by declaration), or `dx` and `dx + 1` (never equal)
        given = [_example_size(ref, examples) for ref in (first, second)]
        if None not in given and given[0] != given[1]:
            return NO_FINDING  # the example takes the unequal side: only `s0 != s1`, no tie (measured)
        if {a.kind, b.kind} <= {DimKind.NAMED, DimKind.STATIC}:
            return Verdict(
                Severity.ERROR, f"{described} ({where}); export needs them equal: give both one shared `Dim`",
                fixable=False, shared=(first, second) if a.kind is b.kind else None,
            )
        return Verdict(Severity.WARNING, f"{described} ({where}); export makes them equal")
    named = [spec for spec in dynamic.values() if spec.kind is DimKind.NAMED]
    if mode is Mode.NON_STRICT and _reads_len(test) and any(s.kind is not DimKind.AUTO for s in dynamic.values()):
        return Verdict(
            Severity.ERROR, f"{described} ({where}); `len()` of a tensor fixes its size in non-strict export"
        )
    constant = None
    # the static sizes the test reads beside the dynamic one, where the example shows them
    fixed = {ref: _example_size(ref, examples) for ref, spec in specs.items() if spec.kind is DimKind.STATIC}
    if len(dynamic) == 1 and sizes is not None and None not in fixed.values():
        ((ref, spec),) = dynamic.items()
        constant = _constant_over(test, sizes, ref, spec, fixed)  # type: ignore[arg-type]
        if constant is True:
            return NO_FINDING  # the range decides it (`== 1` on a dynamic size: never, sizes are >= 2)
        if spec.kind is DimKind.DYNAMIC and _pins_example(test, sizes, ref, fixed, examples):  # type: ignore[arg-type]
            return Verdict(
                Severity.ERROR,
                f"{described} ({where}); the test holds only at the example's size: export specialises the "
                "Dim.DYNAMIC size to it and fails (ConstraintViolationError); use Dim.AUTO, or torch.cond",
            )
    if named and len(dynamic) == 1:
        if constant is False and sizes is not None:
            ((ref, spec),) = dynamic.items()
            if spec.derived and not _pins_example(test, sizes, ref, fixed, examples):  # type: ignore[arg-type]
                # measured on torch 2.13: `% 4`, `> 40`, `!= 34` of a `2 * h` size (assert, torch._check,
                # a branch) export in both modes, the guard kept as a run-time check; `== 32` fails
                return Verdict(Severity.WARNING, f"{described} ({where}); export keeps its guard on the derived "
                               "`Dim` as a run-time check: the exported program rejects the sizes it excludes")
            failure = "ConstraintViolationError"
            if any(isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "numel"
                   for n in _walk(test)):
                # measured: `x.numel() > 100` under `Dim("b")` of a (b, 8) input
                failure = ("ConstraintViolationError, or an AssertionError torch 2.13 raises while wording its "
                          "suggested fix where the bound the product puts on the size is a fraction "
                          "(`Expected op to be '==', got <=`)")
            return Verdict(
                Severity.ERROR,
                f"{described} ({where}); its guard does not hold on the whole range: export fails "
                f"with {failure} ({_narrowing(test, sizes, ref, spec, fixed)}, or use torch.cond)",  # type: ignore[arg-type]
            )
    if named:
        return Verdict(Severity.WARNING, f"{described} ({where}); export fails if its guard narrows the declared range")
    return Verdict(Severity.WARNING, f"{described} ({where}); export narrows the range to the example's side")


def judge_pieces(refs: list[SizeRef], config: ShapeConfig) -> Verdict:
    """A tensor split into one piece per index of the sizes `refs` (`x.unbind(0)`, `for row in
    x`): Python needs one number of pieces, so export fixes the size, as for a loop."""
    return _with_note(_judge_count(refs, config), config)


def _judge_loop(expr: cst.BaseExpression, sizes: Sizes | None, config: ShapeConfig) -> Verdict:
    refs = sizes.refs(expr) if sizes is not None else None
    if refs is None:
        if not config.any_dynamic():
            return NO_FINDING
        return Verdict(Severity.WARNING, f"{config.source} makes some input sizes dynamic")
    return _judge_count(refs, config)


def _judge_count(refs: list[SizeRef], config: ShapeConfig) -> Verdict:
    """A number of iterations or pieces that reads the sizes `refs`."""
    dynamic = {ref: spec for ref in refs if (spec := config.dim(*ref)).kind is not DimKind.STATIC}
    if not dynamic:
        return NO_FINDING
    described = ", ".join(f"`{r[0]}.shape[{r[2]}]` is {s.text()}" for r, s in dynamic.items())
    if any(spec.kind is not DimKind.AUTO for spec in dynamic.values()):
        return Verdict(
            Severity.ERROR,
            f"{described} ({config.source}); export fixes it to the example's size and fails "
            "(ConstraintViolationError: specialized to a constant)",
        )
    return Verdict(Severity.WARNING, f"{described} ({config.source}); Dim.AUTO silently becomes the example's size")


def _equality_of_sizes(test: cst.BaseExpression, sizes: Sizes) -> bool:
    """`a.shape[1] != b.shape[1]`: two input sizes compared for equality, nothing else (names
    bound once to either followed: `same = a.shape[1] == b.shape[1]`, `if same:`)."""
    test = sizes.followed(test)
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    return isinstance(target.operator, (cst.Equal, cst.NotEqual)) and _one_size(test.left, sizes) and _one_size(
        target.comparator, sizes
    )


def _one_size(expr: cst.BaseExpression, sizes: Sizes) -> bool:
    """`x.shape[1]`, `x.size(1)`, or a name bound to one or unpacked from a shape (`h` of `b, c, h, w = x.shape`)."""
    expr = sizes.followed(expr)
    if isinstance(expr, cst.Name) and expr.value in sizes.unpacked:
        return len(sizes.refs(expr) or ()) == 1
    return sizes.ref(expr) is not None


def _compared_at_example(
    test: cst.BaseExpression, sizes: Sizes, mode: Mode, examples: tuple[ExampleSizes, ...]
) -> list[cst.Comparison] | None:
    """The size comparisons a whole-shape `==` / `!=` in an `if` that does not raise makes on the
    example, in Python's order: each pair of equal sizes (export guards their equality), then the
    first unequal pair, which ends the comparison (its guard, `s != 8`, fails non-strict export;
    strict export keeps none for it: measured on torch 2.13, `if (gh, gw) != (8, 8):` under a
    named `Dim` exports strict where the example's `gh` is not 8). None where a size's example
    value is not known."""
    whole = sizes.compared_whole(test, (cst.NotEqual, cst.Equal))
    if not whole:
        return None
    ordered = []
    for part in whole:
        values = [_example_value(side, sizes, examples) for side in (part.left, part.comparisons[0].comparator)]
        if None in values:
            return None
        if values[0] == values[1]:
            ordered.append(part)
            continue
        if mode is Mode.NON_STRICT:
            ordered.append(part)
        break
    return ordered


def _example_value(side: cst.BaseExpression, sizes: Sizes, examples: tuple[ExampleSizes, ...]) -> int | None:
    """The value a size expression has on the example: a held buffer's literal size, or what the
    input sizes it reads compute (None: not known)."""
    held = sizes.held_size(side)
    if held is not None:
        return held
    refs = sizes.refs(side)
    if refs is None:
        return None
    at = {ref: _example_size(ref, examples) for ref in refs}
    if None in at.values():
        return None
    value = sizes.evaluate(side, at)  # type: ignore[arg-type]
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _example_size(ref: SizeRef, examples: tuple[ExampleSizes, ...]) -> int | None:
    sizes = examples[ref[1]] if ref[1] < len(examples) else None
    return sizes[ref[2]] if sizes is not None and ref[2] < len(sizes) else None


def _meet(a: DimSpec, b: DimSpec) -> bool:
    """Whether two sizes of one root `Dim` differ by declaration yet are equal at some root
    value of its range (`2 * dx - 2` and `dx` at 2): a test of their equality splits the range."""
    if (a.scale, a.offset) == (b.scale, b.offset) or a.scale == b.scale:
        return False
    root, rest = divmod(b.offset - a.offset, a.scale - b.scale)
    low, high = a.values()
    return rest == 0 and low <= root <= high


def _reads_len(expr: cst.BaseExpression) -> bool:
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len"
        for node in _walk(expr)
    )


def _reads_of(body: cst.BaseSuite, names: Iterable[str]) -> dict[int, int]:
    """id(each `Name` reading one of `names`) -> the index (in `_statements` order) of the
    statement it is read in: a test's or a loop's header for a compound statement, the whole of
    a small one."""
    wanted = frozenset(names)
    found: dict[int, int] = {}
    for index, stmt in enumerate(_statements(body)):
        if isinstance(stmt, (cst.If, cst.While)):
            read: cst.CSTNode | None = stmt.test
        elif isinstance(stmt, cst.For):
            read = stmt.iter
        elif isinstance(stmt, cst.BaseCompoundStatement):
            read = None
        else:
            read = stmt
        if read is not None:
            found.update(
                (id(node), index) for node in _walk(read) if isinstance(node, cst.Name) and node.value in wanted
            )
    return found


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    # walk.children, not libcst's `children` (which rebuilds every node below it on each call:
    # half of an edit's time on a 20,000-line module); it leaves out whitespace and punctuation,
    # which hold no expression
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _constant_over(
    test: cst.BaseExpression, sizes: Sizes, ref: SizeRef, spec: DimSpec, fixed: dict[SizeRef, int]
) -> bool | None:
    """Whether `test` has one answer for every size in `spec`'s range, the static sizes it also
    reads at their example's values (`fixed`); None: not computable."""
    low, high = spec.values()
    return constant_over(test, sizes, ref, low, high, spec.size if spec.derived else None, fixed)


def _pins_example(
    test: cst.BaseExpression, sizes: Sizes, ref: SizeRef, fixed: dict[SizeRef, int],
    examples: tuple[ExampleSizes, ...],
) -> bool:
    """Whether an equality test (`s == 6`, `s != 6`) answers at the example's size otherwise than
    at both its neighbours: its guard is `s == example`, a constant (a test with `%` or `//`
    guards a remainder instead, which this does not judge)."""
    followed = sizes.followed(test)
    example = _example_size(ref, examples)
    if (example is None or not isinstance(followed, cst.Comparison) or len(followed.comparisons) != 1
            or not isinstance(followed.comparisons[0].operator, (cst.Equal, cst.NotEqual))
            or any(isinstance(n, cst.BinaryOperation) and isinstance(n.operator, (cst.Modulo, cst.FloorDivide))
                   for n in _walk(followed))):
        return False
    answers = [sizes.evaluate(test, {**fixed, ref: size}) for size in (example - 1, example, example + 1)]
    return None not in answers and answers[1] != answers[0] and answers[1] != answers[2]


def _narrowing(
    test: cst.BaseExpression, sizes: Sizes, ref: SizeRef, spec: DimSpec, fixed: dict[SizeRef, int] | None = None
) -> str:
    """The declarations that decide `test`: the declared range cut where the answer turns
    (`Dim("seq", max=4)` or `Dim("seq", min=5)` for `seq > 4`), when it turns once."""
    low, high = spec.values()
    if spec.derived:
        return "narrow the root Dim's min/max so the test is constant"
    turns = []
    fixed = fixed or {}
    previous = sizes.evaluate(test, {**fixed, ref: int(low)})
    for size in range(int(low) + 1, int(min(high, low + _SAMPLES)) + 1):
        answer = sizes.evaluate(test, {**fixed, ref: size})
        if answer is None:
            return "narrow the Dim's min/max so the test is constant"
        if bool(answer) != bool(previous):
            turns.append(size)
        previous = answer
    if len(turns) != 1:
        return "narrow the Dim's min/max so the test is constant"
    cut = turns[0]
    below = dataclasses.replace(spec, high=cut - 1).text()
    above = dataclasses.replace(spec, low=cut).text()
    return f"declare `{below}` or `{above}`, whichever holds the example, so the test is decided"


def holding_range(test: cst.BaseExpression, sizes: Sizes, spec: DimSpec) -> tuple[int | None, int | None] | None:
    """The declared range of `spec` narrowed to where `test` holds, as (min, max) for a new
    `Dim` (None: the declared bound stays), when `test` reads that one size and holds on one
    interval of at least two sizes; else None (a single size would make the dimension static)."""
    refs = sizes.refs(test)
    if not refs or len(set(refs)) != 1 or spec.derived:
        return None
    ref = refs[0]
    low, high = spec.values()
    top = int(min(high, low + _SAMPLES))
    holding = [size for size in range(int(low), top + 1) if sizes.evaluate(test, {ref: size})]
    if len(holding) < 2 or holding[-1] - holding[0] + 1 != len(holding):
        return None
    if high == math.inf and holding[-1] == top:
        new_high = spec.high  # holds as far as it was sampled: an open end stays open
    else:
        new_high = holding[-1] if holding[-1] < high else spec.high
    new_low = holding[0] if holding[0] > low else spec.low
    if (new_low, new_high) == (spec.low, spec.high):
        return None
    return new_low, new_high


def constant_over(
    test: cst.BaseExpression, sizes: Sizes, key: Any, low: float, high: float,
    size_of: Callable[[int], int] | None = None, fixed: dict[Any, int] | None = None,
) -> bool | None:
    """Whether `test` has one answer for every integer value of `key` in [low, high]: every value
    near each finite end and near each constant the test compares with (where its answer can
    turn), and far out on an open end. None: not computable. `size_of`: the value `key` takes
    for each value of the range (a derived `Dim`'s `2 * k`), sampled in the root's range."""
    if size_of is not None:
        scale = max(abs(size_of(1) - size_of(0)), 1)
        root_test = _RootSampled(test, size_of, scale)
        return _constant_sampled(root_test, sizes, key, low, high, fixed or {})
    if low == -math.inf and high == math.inf:
        return None
    if low != -math.inf:
        candidates = set(range(int(low), int(min(high, low + _SAMPLES)) + 1))
    else:
        candidates = set(range(int(high) - _SAMPLES, int(high) + 1))
    for node in _walk(test):
        if isinstance(node, cst.Integer):
            number = int(node.evaluated_value)
            candidates.update(n for n in (number - 1, number, number + 1, 2 * number) if low <= n <= high)
    candidates.add(int(high) if high != math.inf else 10**9)
    candidates.add(int(low) if low != -math.inf else -(10**9))
    answers = set()
    for size in sorted(candidates):
        answer = sizes.evaluate(test, {**(fixed or {}), key: size})
        if answer is None:
            return None
        answers.add(bool(answer))
        if len(answers) > 1:
            return False
    return True


@dataclass(frozen=True)
class _RootSampled:
    test: cst.BaseExpression
    size_of: Callable[[int], int]
    scale: int


def _constant_sampled(
    root: _RootSampled, sizes: Sizes, key: Any, low: float, high: float, fixed: dict[Any, int]
) -> bool | None:
    """`constant_over` for a derived size: root values near each end, and near each constant
    of the test divided by the scale (where the derived size crosses it)."""
    if low == -math.inf:
        return None
    candidates = set(range(int(low), int(min(high, low + _SAMPLES)) + 1))
    for node in _walk(root.test):
        if isinstance(node, cst.Integer):
            pivot = int(node.evaluated_value) // root.scale
            candidates.update(n for n in range(pivot - 2, pivot + 3) if low <= n <= high)
    candidates.add(int(high) if high != math.inf else 10**9)
    answers = set()
    for value in sorted(candidates):
        answer = sizes.evaluate(root.test, {**fixed, key: root.size_of(value)})
        if answer is None:
            return None
        answers.add(bool(answer))
        if len(answers) > 1:
            return False
    return True


def read_table(table: Any, where: str) -> dict[str, tuple[tuple[str, tuple[tuple[int, DimSpec], ...]], ...]]:
    """`[tool.xport-lint.dynamic-shapes]`: `"pkg.models.Decoder" = { hidden = { 1 = "seq" } }`.
    A dimension is "static", "auto", "dynamic", a name (a `Dim` with that name), or
    `{ name = "seq", min = 2, max = 4096 }`. Raises ValueError naming the bad entry."""
    if not isinstance(table, dict):
        raise ValueError(f"{where}: expected a table of model classes")
    out = {}
    for model, inputs in table.items():
        if not isinstance(inputs, dict):
            raise ValueError(f'{where}."{model}": expected a table of inputs, e.g. {{ x = {{ 0 = "batch" }} }}')
        parsed = []
        for name, dims in inputs.items():
            if not isinstance(dims, dict):
                raise ValueError(f'{where}."{model}".{name}: expected a table of dimensions, e.g. {{ 0 = "batch" }}')
            specs = []
            for index, value in dims.items():
                if not str(index).isdigit():
                    raise ValueError(f'{where}."{model}".{name}: dimension {index!r} is not a number')
                specs.append((int(index), _table_spec(value, f'{where}."{model}".{name}.{index}')))
            parsed.append((str(name), tuple((i, s) for i, s in specs if s.kind is not DimKind.STATIC)))
        out[str(model)] = tuple(parsed)
    return out


def _table_spec(value: Any, where: str) -> DimSpec:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("static", "auto", "dynamic"):
            return DimSpec(DimKind(lowered))
        if value.isidentifier():
            return DimSpec(DimKind.NAMED, value)
    elif isinstance(value, dict) and set(value) <= {"name", "min", "max"} and isinstance(value.get("name"), str):
        low, high = value.get("min"), value.get("max")
        if all(v is None or (type(v) is int and v >= 0) for v in (low, high)):
            problem = dim_range_problem(low, high, named=True)
            if problem is not None:
                raise ValueError(f"{where}: {value!r}: torch.export.Dim refuses this range ({problem})")
            return DimSpec(DimKind.NAMED, value["name"], low, high)
    raise ValueError(
        f'{where}: {value!r} is not "static", "auto", "dynamic", a Dim name, or {{ name = "seq", min = 2, max = 4096 }}'
    )
