"""What each expression in traced code holds, as far as torch.export is concerned.

A flow-insensitive abstract interpretation per function: every local name gets the union of
what is ever assigned to it, iterated to a fixed point. The lattice is a set of flags because a
name can be "a tensor or None" (an optional mask), and a rule asks "could this be a tensor?".
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain, repeat
from typing import Protocol, TypeGuard

import libcst as cst

from .fact_store import PerStatement
from .index import RETURN_KINDS, FileContext, Returned
from .names import (
    ImportTable,
    documented_python_scalars,
    dotted,
    is_entry_method,
    self_attribute,
    tensor_method_names,
)
from .shapes import kept_at, method_at, names_read, read_entry_path, returned_at
from .syntax import integer_literal
from .walk import body_nodes, children, iter_nodes


class Kind(enum.Flag):
    NONE = 0
    TENSOR = enum.auto()
    #: a boolean tensor (comparison, logical op): indexing with it gives a data-dependent size
    MASK = enum.auto()
    #: a tensor whose size depends on data (nonzero, boolean-mask indexing, unique, ...)
    DD_TENSOR = enum.auto()
    #: a Python value read from tensor data (`.item()`, `.tolist()`, `int(t)`): unbacked under export
    DATA = enum.auto()
    #: a Python int (or tuple of ints) read from a tensor's shape: symbolic, specialises on a guard
    SHAPE = enum.auto()
    #: a size of a DD_TENSOR: unbacked, so a guard on it fails instead of specialising
    DD_SIZE = enum.auto()
    #: an nn.Module instance (a submodule)
    MODULE = enum.auto()
    #: a numpy value computed from a tensor
    NUMPY = enum.auto()
    #: (with TENSOR) may be an object holding tensors: what a submodule or an unknown function
    #: returns (a `ModelOutput`), whose attributes may be tensors (`outputs.last_hidden_state`)
    STRUCTURE = enum.auto()
    #: (with DATA) the list `.tolist()` reads from a tensor: its elements are data, but its `len()`
    #: is the tensor's first size (measured on torch 2.13: `if len(x.tolist()) > 1` exports non-strict)
    DATA_LIST = enum.auto()


@dataclass(frozen=True)
class Value:
    kind: Kind = Kind.NONE
    #: the expression that made this value data-dependent (or shape-derived), for messages
    origin: cst.CSTNode | None = None

    # Flag arithmetic builds enum members through Enum.__call__ (a tenth of the dataflow's time on
    # the bench corpus): the common cases below compare the members' ints instead.
    def __or__(self, other: Value) -> Value:
        mine, theirs = self.kind._value_, other.kind._value_
        if not theirs or (mine | theirs == mine and (self.origin is not None or other.origin is None)):
            return self
        if not mine:
            return other
        return Value(Kind(mine | theirs), self.origin or other.origin)

    def has(self, kind: Kind) -> bool:
        return bool(self.kind._value_ & kind._value_)


NOTHING = Value()
#: what a Python value may carry: a number read from data, or a size
PYTHON_KINDS = Kind.DATA | Kind.SHAPE | Kind.DD_SIZE | Kind.DATA_LIST


def by_position(call: cst.Call, params: Sequence[str]) -> cst.Call:
    """`call` with its keyword arguments moved to the positions of the parameters they name
    (`self._tile(x, times=int(r))` of `def _tile(self, x, times)` -> `self._tile(x, int(r))`), each
    argument the caller's own node; `call` itself where they name other parameters or it has `*`/`**`."""
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    positional = [a for a in call.args if a.keyword is None]
    if not keywords or any(a.star for a in call.args) or set(keywords) != set(params[len(positional):]):
        return call
    rest = params[len(positional):]
    moved = [keywords[name].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for name in rest]
    return call.with_changes(args=[*positional, *moved])


def python_part(value: Value) -> Value:
    """What of `value` a Python scalar can hold (`n: int` given `t.item()`: the number, not a tensor)."""
    kind = value.kind & PYTHON_KINDS
    return Value(kind, value.origin) if kind else NOTHING


#: what a submodule or a function that is no torch op returns from tensors: tensors, or a structure of them
RETURNED = Value(Kind.TENSOR | Kind.STRUCTURE)

# Tensor methods whose result is a Python value read from the data.
DATA_METHODS = frozenset({"item", "tolist", "data_ptr", "equal", "is_nonzero", "allclose"})
# Tensor methods and torch functions whose output size depends on the data.
DD_OPS = frozenset(
    {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere", "repeat_interleave", "bincount"}
)
SHAPE_METHODS = frozenset({"size", "numel", "nelement"})
# Methods returning static Python facts (rank, dtype, device) or nothing tensor-like.
STATIC_METHODS = frozenset(
    {
        "dim", "ndimension", "type", "get_device", "is_contiguous", "is_floating_point",
        "is_complex", "element_size", "stride", "storage_offset", "is_shared", "numpy", "is_pinned",
        "is_inference", "is_conj", "is_neg", "is_signed", "is_coalesced", "is_distributed", "is_set_to",
    }
)
STATIC_ATTRS = frozenset(
    {
        "dtype", "device", "ndim", "requires_grad", "is_cuda", "is_sparse", "layout",
        "is_leaf", "is_meta", "is_quantized", "names", "grad_fn", "itemsize", "retains_grad",
        "output_nr", "_version",
    }
)
#: data attributes of a plain `torch.Tensor` that are tensors themselves
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad", "_base"})
#: fields of torch's named-tuple results (`torch.return_types`, torch 2.13): `x.max(-1).values`,
#: `torch.linalg.svd(a).S` are tensors
RETURN_TYPE_FIELDS = frozenset(
    {
        "values", "indices", "L", "LD", "LU", "P", "Q", "R", "S", "U", "V", "Vh", "a", "bin_edges",
        "cloned_coefficient", "eigenvalues", "eigenvectors", "exponent", "hist", "info", "inverse",
        "logabsdet", "logsumexp", "mantissa", "max", "min", "output", "pivots", "rank", "residuals",
        "result", "sign", "singular_values", "solution", "tau",
    }
)
#: data attributes of a plain `torch.Tensor` that are sizes (`nbytes` is numel * itemsize)
SIZE_ATTRS = frozenset({"shape", "nbytes"})
MASK_METHODS = frozenset(
    {
        "bool", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
        "logical_xor", "isnan", "isinf", "isfinite", "any", "all", "isin", "isclose",
    }
)
MASK_TORCH = MASK_METHODS | {"eq", "ne", "lt", "le", "gt", "ge", "greater", "less"}
# torch.* callables that return Python facts, not tensors.
TORCH_STATIC_PREFIXES = (
    "torch.is_", "torch.are_", "torch.get_", "torch.jit.", "torch.compiler.", "torch.cuda.", "torch.backends.",
    "torch.distributed.", "torch._C.", "torch.finfo", "torch.iinfo", "torch.device", "torch.dtype",
    "torch.Size", "torch.autocast", "torch.no_grad", "torch.enable_grad", "torch.inference_mode",
    "torch.set_grad_enabled", "torch.fx.", "torch._dynamo.", "torch.onnx.", "torch.library.",
    "torch.nn.init.", "torch.utils.", "torch.export.", "torch.overrides.", "torch.nn.Module",
    # the other device namespaces, as `torch.cuda.`: availability and properties, Python values
    "torch.xpu.", "torch.mps.", "torch.cpu.", "torch.mtia.", "torch.accelerator.", "torch.version.",
    "torch.amp.",
)
TORCH_TENSOR_EXCEPTIONS = frozenset({"torch.is_tensor"})
#: torch's Python helpers on Python values (`_pair(3)` is `(3, 3)`): what they return is what they take
TORCH_PYTHON_HELPERS = ("torch.nn.modules.utils.",)
#: torch functions that return Python numbers, not tensors
#: torch functions that return Python values, not tensors: numbers, and dtypes or bools about dtypes
#: (`torch.promote_types(a.dtype, b.dtype)`, `torch.result_type(a, b)`, `torch.can_cast(...)`: measured
#: on torch 2.13, a branch on them exports non-strict)
TORCH_PYTHON_VALUES = frozenset(
    {"torch.seed", "torch.initial_seed", "torch.get_num_threads", "torch.promote_types", "torch.result_type",
     "torch.can_cast"}
)
#: torch functions that read a Python value from tensor data (`torch.is_nonzero(t)`: a guard on data,
#: measured on torch 2.13), though named as the predicates on Python facts are
TORCH_DATA_READS = frozenset({"equal", "is_nonzero", "allclose"})
#: standard-library modules whose functions never return tensors (`sys.getrefcount(t)`)
PYTHON_ONLY_MODULES = ("sys.", "os.", "gc.", "inspect.", "warnings.", "logging.", "json.", "re.", "platform.")

BUILTIN_STATIC = frozenset(
    {"isinstance", "hasattr", "getattr", "callable", "type", "id", "str", "repr", "print",
     "range", "enumerate", "zip", "super", "iter", "next", "format", "hash", "issubclass"}
)


_TENSOR_LIKE = (Kind.TENSOR | Kind.MASK | Kind.DD_TENSOR)._value_


def is_tensor_like(value: Value) -> bool:
    return bool(value.kind._value_ & _TENSOR_LIKE)


def mark(kind: Kind, node: cst.CSTNode) -> Value:
    return Value(kind, node)


class OneLineHelper(Protocol):
    """A one-line helper as the dataflow reads it (`symbols.OneLineHelper`, named here without
    importing the layer above)."""

    free: frozenset[str] | None

    def at(self, call: cst.Call) -> cst.BaseExpression | None: ...


class Resolver:
    """What the dataflow needs to know about the file (implemented by `facts.FileFacts`)."""

    resolve: Callable[[cst.BaseExpression], str | None]
    #: what the rest of the project tells the file (what functions of other files return)
    context: FileContext
    #: the file's top-level functions, by name
    functions: dict[str, cst.FunctionDef]

    def self_attribute(self, cls: cst.ClassDef | None, name: str) -> Value: ...

    def call_helper(
        self, caller: FunctionFlow, call: cst.Call, args: Sequence[Value]
    ) -> Value | None: ...

    def while_exporting(self, test: cst.BaseExpression) -> bool | None: ...

    #: ids of statements only a call passing an optional argument runs, with its name (reach)
    optional_only: dict[int, str]

    def may_pass(self, caller: cst.FunctionDef, call: cst.Call, position: int, name: str) -> bool: ...

    def one_line_helper(self, written: str) -> OneLineHelper | None: ...

    def note_passed(self, caller: cst.FunctionDef, call: cst.Call, args: Sequence[Value]) -> None: ...

    def call_submodule(self, caller: FunctionFlow, attribute: str, call: cst.Call, args: Sequence[Value]) -> None: ...


class FunctionFlow:
    """Values of the names and expressions of one traced function."""

    def __init__(
        self,
        func: cst.FunctionDef,
        params: dict[str, Value],
        resolver: Resolver,
        cls: cst.ClassDef | None,
        statements: list[cst.CSTNode] | None = None,
        entries: frozenset[str] = frozenset(),
    ) -> None:
        """`statements`: those export runs (default: all of the body's). `entries`: the tensors
        inside nested example inputs, by path (`inputs['pixels']`: shapes.tensor_entries)."""
        self.entries = entries
        self.func = func
        self.statements = statements if statements is not None else list(walk_statements(func.body))
        self.cls = cls
        self.resolver = resolver
        params = _as_declared(params, func)
        #: what each parameter holds on entry (`summary_per_caller` re-solves with other values)
        self.params = params
        #: `-> torch.Tensor`: what it returns is a tensor (or a subclass), never a structure
        self._returns_tensor = func.returns is not None and declares_tensor(func.returns)
        self.env: dict[str, Value] = dict(params)
        # `*args` is a tuple and `**kwargs` a dict of names: their length and keys are Python
        # values, whatever they hold (`len(args) > 0`, `for k in kwargs: if k.startswith(...)`)
        star_arg, star_kwarg = func.params.star_arg, func.params.star_kwarg
        self.packed_args = star_arg.name.value if isinstance(star_arg, cst.Param) else None
        self.packed_kwargs = star_kwarg.name.value if star_kwarg is not None else None
        self.returns = NOTHING
        #: what the `return`s hand back other than a parameter as it is, the parameters they hand
        #: back as they are, and per element where every `return` is a tuple of one length (None:
        #: not so, or no return seen yet): the function's summary for callers in other files
        self._own_returns = NOTHING
        #: what the `return`s only a passed optional parameter runs hand back, by its name: only a
        #: call that may pass it gets it (see _guarding_parameter)
        self._optional_returns: dict[str, Value] = {}
        self._through: set[str] = set()
        #: parameters whose call is returned (`return d()`): a caller's lambda there gives its body
        self._called: set[str] = set()
        self._elements: list[tuple[Value, frozenset[str]]] | None = None
        self._tuple_returns = True
        #: id(expression) -> (the expression, its value): the expression is kept so that its id
        #: stays its own. Rules and rewrites ask for the values of nodes they build (a predicate
        #: rewritten, `len(t)` read as `t.shape[0]`); freed, such a node's id is reused by the
        #: next one, which then read the dead node's value (`torchvision` in a rewritten
        #: `not torchvision._is_tracing()` read as the tensor `boxes`), and which node died where
        #: depended on the process's history: fix texts differed between runs.
        self._memo: dict[int, tuple[cst.BaseExpression, Value]] = {}
        #: ids of the names in a nested function's body that read its own parameters (a nested
        #: `def helper(pair, a=True)` inside a function with a tensor `a`): their values
        self._shadowed: dict[int, Value] = {}
        for stmt in self.statements:
            if isinstance(stmt, cst.FunctionDef) and stmt is not func:
                self._shadow(stmt)
        #: per target name node, what its assignment binds (for the reads below)
        self._bound: dict[int, Value] = {}
        self._target_names: dict[int, str] = {}
        self._comprehensions = 0
        #: ids of reads of a reassigned name, with what the assignments before them bind (and the
        #: argument, for a parameter): `if n < 0: n = t.max()` tests the argument, not the tensor
        self._early: dict[int, Value] = {}
        #: names whose reads get ordered values, computed when a rule first reads one
        self._ordered: tuple[dict[str, Value], frozenset[str]] | None = None
        self._defined: dict[str, list[cst.BaseExpression | None]] | None = None
        #: loop variables bound to the elements of a `self.` attribute, with its name
        self._loop_attributes: dict[str, str | None] | None = None
        #: reads of `self.x` that a write of it just before reaches, with what it assigned
        self._attribute_writes: dict[int, Written] | None = None
        #: a number read from data was kept on `self` here (`self.peak = float(x.max())`)
        self._kept_on_self = False
        #: ids of reads where an `isinstance` test says what the name holds there, with what it says
        self._narrowed = self._isinstance_narrowed_reads()
        self._solve()
        interesting = self._reassigned_differently(params)
        if interesting:
            self._ordered = (params, interesting)
            self._memo.clear()  # the rules' reads are evaluated again, with the ordered values

    def _reassigned_differently(self, params: dict[str, Value]) -> frozenset[str]:
        """Names whose assignments (or argument) differ in kind: only they gain from ordered reads
        (`x = self.norm(x)` ten times over binds a tensor each time)."""
        kinds: dict[str, set[int]] = {}
        for node_id, name in self._target_names.items():
            kinds.setdefault(name, set()).add(self._bound.get(node_id, NOTHING).kind._value_)
        for name, found in kinds.items():
            if name in params:
                found.add(params[name].kind._value_)
        return frozenset(name for name, found in kinds.items() if len(found) > 1)

    def _reads_in_order(self, params: dict[str, Value], interesting: frozenset[str]) -> dict[int, Value]:
        """A flow-insensitive value is the union of every assignment of a name; a read outside
        any loop that assigns the name can only see the assignments before it (in source order)
        and, for a parameter, the argument: their union is as safe and often much smaller
        (a list tested with `if not masks:` before `masks = torch.cat(masks)`)."""
        names = self._target_names
        early: dict[int, Value] = {}
        seen: dict[str, Value] = {}
        stack: list[tuple[cst.CSTNode | _Branches, frozenset[str]]] = [(self.func.body, frozenset())]
        while stack:
            node, unsafe = stack.pop()
            node_type = type(node)
            if node_type is _Branches:
                node.step(seen)  # type: ignore[union-attr]
                continue
            if node_type is cst.If:
                # what the `if` body binds does not reach its `else`; after the `if`, either does
                branches = _Branches()
                stack.append((branches, unsafe))  # merge
                if node.orelse is not None:  # type: ignore[union-attr]
                    stack.append((node.orelse, unsafe))  # type: ignore[union-attr]
                stack.extend([(branches, unsafe), (node.body, unsafe), (branches, unsafe)])  # type: ignore[union-attr]
                stack.append((node.test, unsafe))  # type: ignore[union-attr]
                continue
            if node_type is cst.Name:
                name = node.value  # type: ignore[attr-defined]
                if name not in interesting:
                    continue
                if id(node) in names:
                    seen[name] = seen.get(name, NOTHING) | self._bound.get(id(node), NOTHING)
                elif name not in unsafe and (name in seen or name in params):
                    early[id(node)] = params.get(name, NOTHING) | seen.get(name, NOTHING)
                continue
            if node_type in _COMPREHENSIONS:
                # its first iterable is read in this scope, where the comprehension stands
                stack.append((node.for_in.iter, unsafe))  # type: ignore[union-attr]
                continue
            if node_type in _OWN_SCOPES:
                continue  # runs later, when called, or in a scope of its own
            if node_type in (cst.For, cst.While):
                # a read in a loop may follow an assignment of the previous iteration
                inside = {names[id(n)] for n in iter_nodes(node) if id(n) in names}
                unsafe = unsafe | (inside & interesting)
            kids = children(node)
            if node_type in _ASSIGNMENTS:
                # the value is computed before the targets are bound
                value = node.value  # type: ignore[attr-defined]
                kids = ([value] if value is not None else []) + [kid for kid in kids if kid is not value]
            stack.extend(zip(reversed(kids), repeat(unsafe)))
        return early

    def _shadow(self, nested: cst.FunctionDef) -> None:
        """A nested function's arguments hold what its annotations, defaults and uses say
        (`def _interp1d(table: Tensor, new_length: int)`), where its body names them; they are
        never mixed into the outer function's names."""
        params = {param.name.value: param_value(param, nested) for param in all_params(nested.params)}
        if not params:
            return
        for node in body_nodes(nested.body):
            if type(node) is cst.Name and node.value in params:  # type: ignore[attr-defined]
                self._shadowed[id(node)] = params[node.value]  # type: ignore[attr-defined]

    # -- fixed point over assignments ------------------------------------------------------

    def _solve(self) -> None:
        for _ in range(4):
            before = dict(self.env)
            self._memo.clear()
            self.returns = self._own_returns = NOTHING
            self._optional_returns = {}
            self._through, self._called, self._elements, self._tuple_returns = set(), set(), None, True
            for stmt in self.statements:
                self._assign_from(stmt)
            if self.env == before:
                return

    def _bind(self, target: cst.BaseExpression, value: Value) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = self.env.get(target.value, NOTHING) | value
            if not self._comprehensions:  # a comprehension's own scope is not the function's
                self._bound[id(target)] = value
                self._target_names[id(target)] = target.value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                inner = element.value
                self._bind(inner, value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, value)
        elif (
            isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"
            and value.has(Kind.DATA) and not is_tensor_like(value)
        ):
            # `self.peak = float(x.max())`: a number read from data kept on the module is read
            # back as that number here (`if self.peak > 1.0:`), under the key `self.peak`
            key = f"self.{target.attr.value}"
            self.env[key] = self.env.get(key, NOTHING) | value
            self._kept_on_self = True

    def _assign_from(self, stmt: cst.CSTNode) -> None:
        stmt_type = type(stmt)  # by exact type, as `_evaluate` dispatches
        if stmt_type is cst.Assign:
            value = self.value(stmt.value)
            for target in stmt.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(
                    stmt.value, (cst.Tuple, cst.List)
                ):
                    pairs = zip(target.target.elements, stmt.value.elements, strict=False)
                    for t, v in pairs:
                        self._bind(t.value, self.value(v.value))
                elif isinstance(target.target, (cst.Tuple, cst.List)) and (
                    parts := self._returned_parts(stmt.value, target.target)
                ) is not None:
                    # `count, boxes = helpers.filter(x)`: each part what the other file's summary says
                    for element, part in zip(target.target.elements, parts, strict=True):
                        self._bind(element.value, part)
                elif isinstance(target.target, (cst.Tuple, cst.List)) and value.has(Kind.DD_SIZE) and _is_whole_shape(
                    stmt.value
                ):
                    # `n, d = x[mask].shape`: only the first size is the data-dependent one
                    later = Value(value.kind & ~Kind.DD_SIZE, value.origin)
                    for position, element in enumerate(target.target.elements):
                        self._bind(element.value, value if position == 0 else later)
                elif isinstance(target.target, (cst.Tuple, cst.List)) and self._opaque_call(stmt.value):
                    # `embeddings, num_frames, width = self.patch_embeddings(x)`: which parts are
                    # tensors the call does not say; a part counts as one where it is used as one
                    used = _used_as_tensors(self.func)
                    for element in target.target.elements:
                        inner = element.value
                        if isinstance(inner, cst.Name):
                            self._bind(inner, value if inner.value in used else NOTHING)
                        else:
                            self._bind(inner, value)
                else:
                    self._bind(target.target, value)
        elif stmt_type is cst.AnnAssign and stmt.value is not None:
            self._bind(stmt.target, self.value(stmt.value))
        elif stmt_type is cst.AugAssign:
            self._bind(stmt.target, self.value(stmt.target) | self.value(stmt.value))
        elif stmt_type is cst.For:
            self._bind_loop(stmt.target, stmt.iter)
        elif stmt_type is cst.Return and stmt.value is not None:
            returned = self.value(stmt.value)
            if self._returns_tensor and returned.has(Kind.STRUCTURE):
                returned = Value(returned.kind & ~Kind.STRUCTURE, returned.origin)
            self.returns = self.returns | returned
            self._summarize_return(stmt.value, returned, self._guarding_parameter(stmt))
        elif stmt_type is cst.Return:
            self._tuple_returns = False  # a bare `return` hands back None
        elif stmt_type is cst.With:
            for item in stmt.items:
                if item.asname is not None:
                    self._bind(item.asname.name, NOTHING)
        elif stmt_type is cst.Expr and type(stmt.value) is cst.Call:
            for target, kept in self._kept_by_method(stmt.value):
                self._bind(target, self.value(kept))

    # -- what the function returns, for callers in other files -----------------------------

    def _summarize_return(self, expr: cst.BaseExpression, returned: Value, guard: str | None) -> None:
        """One `return`: what it hands back, set apart where it is a parameter as passed (each
        caller gets its own argument back, not the join of every caller's), or where only a call
        passing the optional parameter `guard` runs it, and per element of a tuple."""
        parts: list[tuple[Value, frozenset[str]]] | None = None
        if isinstance(expr, cst.Tuple) and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
            parts = [self._return_part(element.value, self.value(element.value)) for element in expr.elements]
        for value, through in parts if parts is not None else [self._return_part(expr, returned)]:
            if guard is None:
                self._own_returns = self._own_returns | value
            else:
                self._optional_returns[guard] = self._optional_returns.get(guard, NOTHING) | value
            self._through |= through
        if parts is not None and guard is not None:
            parts = [(NOTHING, through) for _, through in parts]  # the call adds them back (returned_to)
        if parts is None or (self._elements is not None and len(self._elements) != len(parts)):
            self._tuple_returns = False
        elif self._tuple_returns:
            known = self._elements
            self._elements = parts if known is None else [
                (a | b, c | d) for (a, c), (b, d) in zip(known, parts, strict=True)
            ]

    def _guarding_parameter(self, statement: cst.Return) -> str | None:
        """The parameter defaulting to None that only a call passing it runs `statement` for (the
        reach layer's optional path: the rest of `if ignore is None: return x`), else None."""
        name = self.resolver.optional_only.get(id(statement))
        return name if name is not None and any(
            param.name.value == name and type(param.default) is cst.Name and param.default.value == "None"
            for param in all_params(self.func.params)
        ) else None

    def _return_part(self, expr: cst.BaseExpression, value: Value) -> tuple[Value, frozenset[str]]:
        name = self._handed_back(expr)
        if name is not None:
            return NOTHING, frozenset({name})
        if type(expr) is cst.Call and not expr.args and (called := self._handed_back(expr.func)) is not None:
            self._called.add(called)  # `return d()`: what the caller's `lambda: ...` computes
        elif type(expr) is cst.IfExp and self.resolver.while_exporting(expr.test) is None:
            # `return d() if callable(d) else d`: each side its own part
            body = self._return_part(expr.body, self.value(expr.body))
            orelse = self._return_part(expr.orelse, self.value(expr.orelse))
            return body[0] | orelse[0], body[1] | orelse[1]
        if self._returns_tensor and value.has(Kind.STRUCTURE):
            value = Value(value.kind & ~Kind.STRUCTURE, value.origin)
        return value, frozenset()

    def _handed_back(self, expr: cst.BaseExpression) -> str | None:
        """The parameter `expr` is as the caller passed it (`return v`; `y = v` then `return y`):
        one never bound again in the function."""
        params = {param.name.value for param in all_params(self.func.params)}
        for _ in range(8):
            if not isinstance(expr, cst.Name):
                return None
            bound = self._definitions().get(expr.value, [])
            if expr.value in params:
                return expr.value if len(bound) == 1 else None
            if len(bound) == 1 and bound[0] is None and self._over_packed_args(expr.value):
                return f"*{self.packed_args}"  # `for arg in args: ... return arg`: one of the `*args`
            if len(bound) != 1 or bound[0] is None:
                return None
            expr = bound[0]
        return None

    def _over_packed_args(self, name: str) -> bool:
        """`name` is the variable of a `for` over `*args`, never bound otherwise (by _definitions)."""
        return self.packed_args is not None and any(
            type(node) is cst.For and isinstance(node.target, cst.Name) and node.target.value == name  # type: ignore[attr-defined]
            and isinstance(node.iter, cst.Name) and node.iter.value == self.packed_args  # type: ignore[attr-defined]
            for node in body_nodes(self.func.body)
        )

    def _positions(self) -> dict[str, int]:
        """Each parameter handed back by position: its place among the positional ones after
        `self`, and for `*args` (`*` and its name) the place its first element takes."""
        positional = [*self.func.params.posonly_params, *self.func.params.params]
        if self.cls is not None and positional and positional[0].name.value in ("self", "cls"):
            positional = positional[1:]
        positions = {param.name.value: i for i, param in enumerate(positional)}
        if self.packed_args is not None:
            positions[f"*{self.packed_args}"] = len(positional)
        return positions

    def returned_to(self, caller: FunctionFlow, call: cst.Call, args: Sequence[Value]) -> Value:
        """What `call` (in `caller`) gets back: what the function computes itself, and the
        arguments of this call it hands back as they are, not every call site's (`default(flag,
        self.rate)` of `def default(v, d): return v if exists(v) else d` gives this call's Python
        values); where it returns a parameter called, the body of a lambda this call passes there
        (`default(noise, lambda: torch.randn_like(x))`)."""
        positions = self._positions()
        declared = {param.name.value for param in all_params(self.func.params) if python_scalar_param(param)}
        out = self._own_returns
        for name, guarded in self._optional_returns.items():
            if self.resolver.may_pass(caller.func, call, positions.get(name, -1), name):
                out = out | guarded
        for name in self._through:
            passed = _argument(call, args, positions.get(name, -1), name)
            # `n: int` handed back is a Python value, a number read from data at most (as bound)
            out = out | (python_part(passed) if name in declared else passed)
        for name in self._called:
            for index in arguments_passing(call, positions.get(name, -1), name):
                passed = call.args[index]
                if isinstance(passed.value, cst.Lambda) and not passed.star:
                    out = out | caller.value(passed.value.body)
        return out

    def summary(self) -> Returned:
        """What this function returns, as its file's summary tells callers in other files."""
        positions = self._positions()

        def part(value: Value, through: frozenset[str] | set[str]) -> Returned:
            return Returned(_kind_names(value), tuple(sorted((positions.get(name, -1), name) for name in through)))

        whole = part(self._own_returns, self._through)
        optional = tuple(
            (positions.get(name, -1), name, kinds) for name, value in sorted(self._optional_returns.items())
            if (kinds := _kind_names(value))
        )
        elements = self._elements if self._tuple_returns and self._elements else []
        return Returned(
            whole.kinds, whole.through, tuple(replace(part(v, t), optional=optional) for v, t in elements),
            optional,
        )

    def summary_per_caller(self, declared: dict[str, Value], carried: frozenset[str]) -> Returned:
        """The summary where the parameters in `carried` hold, on entry, what some callers pass
        read from data (a masked selection, a number read): what the function returns with its
        parameters as `declared` (its declaration and uses say, no caller), and each carried
        parameter that changes what is returned handed back to every caller as that caller's own
        argument. One file normalising a masked selection with a shared helper does not make
        another file's input, normalised by the same helper, data-dependent (Kornia's
        `_l2_normalize`)."""

        def solved(params: dict[str, Value]) -> Returned:
            return FunctionFlow(self.func, params, self.resolver, self.cls, self.statements).summary()

        base = solved(declared)
        positions = self._positions()
        whole, parts = set(base.through), [set(e.through) for e in base.elements]
        for name in sorted(carried):
            alone = solved({**declared, name: self.params[name]})
            slot = (positions.get(name, -1), name)
            # only a size more (`len(values)` of a `.tolist()` list): no data of the caller's handed back
            if set(alone.kinds) - set(base.kinds) - {"SHAPE"}:
                whole.add(slot)
            if len(alone.elements) == len(parts):
                for part, mine, theirs in zip(parts, alone.elements, base.elements, strict=True):
                    if set(mine.kinds) - set(theirs.kinds):
                        part.add(slot)
        elements = tuple(
            Returned(e.kinds, tuple(sorted(t)), e.elements) for e, t in zip(base.elements, parts, strict=True)
        )
        return Returned(base.kinds, tuple(sorted(whole)), elements, base.optional)

    def _returned(self, call: cst.Call, args: Sequence[Value]) -> Value | None:
        """What a call of a function of another file returns, by that file's summary (None: no
        summary, the callee is unknown)."""
        summary = returned_by(self.resolver.context, call)
        return None if summary is None else _apply(summary, call, args, self._may_pass)

    def _may_pass(self, call: cst.Call, position: int, name: str) -> bool:
        """Whether `call`, made here, may pass the parameter at `position` named `name` something
        other than None on a default export (the resolver's `may_pass`)."""
        return self.resolver.may_pass(self.func, call, position, name)

    def _returned_parts(self, value: cst.BaseExpression, target: cst.Tuple | cst.List) -> list[Value] | None:
        """What each part of `a, b = f(x)` gets, where `f` is a one-line helper (or method) of the
        file that returns a tuple of that length (each element read at the call), or of another
        file and returns one (by its summary)."""
        if not isinstance(value, cst.Call) or any(isinstance(e, cst.StarredElement) for e in target.elements):
            return None
        inlined = self.returned_tuple(value, len(target.elements))
        if inlined is not None:
            return [self.value(e.value) for e in inlined.elements]
        summary = returned_by(self.resolver.context, value)
        if summary is None or len(summary.elements) != len(target.elements):
            return None
        args = [self.value(arg.value) for arg in value.args]
        return [_apply(element, value, args, self._may_pass) for element in summary.elements]

    def returned_tuple(self, value: cst.Call, length: int | None) -> cst.Tuple | cst.List | None:
        """The tuple of `length` elements (None: any) a helper (or method) of this file returns,
        written at the call `value`: a one-line helper (`return t.min().item(), t.max().item()`) or
        one of straight-line statements; None for anything else."""
        inlined = self.inlined(value)  # a one-line helper of the file: `return t.shape[0], t.shape[-1]`
        func = value.func
        if (inlined is None and self.cls is not None and isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name) and func.value.value == "self"):
            # a method of the class, of one line or straight-line statements: `h, w = self._hw(x)`;
            # a staticmethod's statements as a function's (it takes no `self`)
            method = next((s for s in self.cls.body.body
                           if isinstance(s, cst.FunctionDef) and s.name.value == func.attr.value), None)
            static_form = _STATIC_FORM(method) if method is not None and method.decorators else None
            static = static_form is not None
            method = static_form or method
            inlined = (method_at(method, value) or returned_at(method, value, not static, self._definitions())
                       if method is not None else None)
        if inlined is None and isinstance(func, cst.Name) and func.value in self.resolver.functions:
            # a function of the file of straight-line statements: `n, d = t.shape; return n, d`, or
            # of one `return` called with expressions (`_bounds(x.abs())`, which `inlined` leaves)
            helper = self.resolver.functions[func.value]
            inlined = returned_at(helper, value, False, self._definitions()) or self._one_return_at(helper, value)
        if isinstance(inlined, (cst.Tuple, cst.List)) and length in (None, len(inlined.elements)) and not any(
            isinstance(e, cst.StarredElement) for e in inlined.elements
        ):
            return inlined
        return None

    def _one_return_at(self, helper: cst.FunctionDef, call: cst.Call) -> cst.BaseExpression | None:
        """The one `return` of an undecorated function of the file written at `call`, whatever it
        passes (`method_at` of the function read as a method whose `self` is unused); None where it
        reads a name this function binds too."""
        free = names_read(helper.body) - {p.name.value for p in all_params(helper.params)}
        if helper.decorators or free & set(self._definitions()):
            return None
        return method_at(_as_method(helper), call)

    def _submodule_attribute(self, func: cst.BaseExpression) -> str | None:
        """The `self.` attribute holding the submodule a call reaches: `self.layers[i]`, or a
        loop variable over `self.layers` (`for layer in self.layers`, `enumerate(self.layers)`)."""
        if isinstance(func, cst.Subscript):
            return self_attribute(func.value)
        if not isinstance(func, cst.Name):
            return None
        if self._loop_attributes is None:
            self._loop_attributes = _LOOP_ATTRIBUTES(self.func)
        return self._loop_attributes.get(func.value)

    # -- expressions -----------------------------------------------------------------------

    def value(self, node: cst.BaseExpression) -> Value:
        cached = self._memo.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        value = self._evaluate(node)
        self._memo[id(node)] = (node, value)
        return value

    def _opaque_call(self, value: cst.BaseExpression) -> bool:
        """A call of a submodule (`self.block(x)`) or a function whose result's parts are
        unknown: not a torch op, whose tuples hold tensors (`torch.split`, `x.chunk`), however
        its module is spelled (`get_dimensions(img)`, `F.get_dimensions(img)` of torchvision's
        functional module: channels, height and width, Python ints)."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return True
        qualified = self.resolver.resolve(func)
        if isinstance(func, cst.Attribute):  # a library's function, not a method of a local value
            return qualified is not None and not qualified.startswith(("torch.", "numpy."))
        return isinstance(func, cst.Name) and not (qualified or "").startswith("torch.")

    def _is_kwargs_items(self, iterable: cst.BaseExpression) -> bool:
        return (
            self.packed_kwargs is not None
            and isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items"
            and isinstance(iterable.func.value, cst.Name)
            and iterable.func.value.value == self.packed_kwargs
        )

    def element_of(self, iterable: cst.BaseExpression) -> Value:
        """What a `for` over `iterable` binds: rows of a tensor, items of a `.tolist()`, ..."""
        if self.packed_kwargs is not None:
            keys = iterable.func.value if (
                isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute)
                and iterable.func.attr.value == "keys"
            ) else iterable
            if isinstance(keys, cst.Name) and keys.value == self.packed_kwargs:
                return NOTHING  # the keyword names
        if isinstance(iterable, cst.Call):
            fn = dotted(iterable.func)
            if fn in ("range", "reversed", "sorted") and iterable.args:
                inner = self.value(iterable.args[0].value)
                # `range(n.item())` yields data-dependent ints; range over a shape yields
                # plain ints of an unrolled loop.
                return Value(Kind.DATA, inner.origin) if inner.has(Kind.DATA) else NOTHING
            if fn == "enumerate" and iterable.args:
                return self.element_of(iterable.args[0].value)
            if fn == "zip":
                return _joined(self.element_of(arg.value) for arg in iterable.args)
        value = self.value(iterable)
        if value.has(Kind.DD_TENSOR):
            return Value(Kind.TENSOR, value.origin)
        if value.has(Kind.DATA_LIST):
            return Value(value.kind & ~Kind.DATA_LIST, value.origin)  # an element: data, not the list
        return value

    def _evaluate(self, node: cst.BaseExpression) -> Value:  # noqa: C901 - one dispatch
        # by exact type: libcst's concrete nodes have no subclasses, and isinstance through
        # their abstract bases' metaclass cost a tenth of a run
        node_type = type(node)
        if node_type is cst.Name:
            value = self._read(node)  # type: ignore[arg-type]
            if self._narrowed:
                for narrowing in self._narrowed.get(id(node), ()):
                    value = narrowed(value, narrowing)
            return value
        if node_type is cst.Attribute:
            return self._attribute(node)
        if node_type is cst.Call:
            return self._call(node)
        if node_type is cst.Subscript:
            return self._subscript(node)
        if node_type is cst.BinaryOperation:
            return _arith(self.value(node.left) | self.value(node.right))
        if node_type is cst.UnaryOperation:
            inner = self.value(node.expression)
            if isinstance(node.operator, cst.Not):
                # `not t` calls bool(t): the Python result is data-dependent
                if is_tensor_like(inner):
                    return Value(Kind.DATA, node)
            return inner
        if node_type is cst.Comparison:
            return self._comparison(node)
        if node_type is cst.BooleanOperation:
            return self.value(node.left) | self.value(node.right)
        if node_type is cst.IfExp:
            # `torch_int(...) if torch.jit.is_tracing() else int(...)`: export takes one side
            taken = self.resolver.while_exporting(node.test)
            if taken is not None:
                return self.value(node.body if taken else node.orelse)
            if self._comprehensions:
                self.value(node.test)  # `[2 * g if g > 0 else 1 for g in t.tolist()]`: read while `g` is bound
            return self.value(node.body) | self.value(node.orelse)
        if node_type is cst.Tuple or node_type is cst.List or node_type is cst.Set:
            return _joined(self.value(element.value) for element in node.elements)
        if node_type in _COMPREHENSIONS:
            return self._comprehension(node)
        if node_type is cst.NamedExpr:
            value = self.value(node.value)
            self._bind(node.target, value)
            return value
        if node_type is cst.Await:
            return self.value(node.expression)
        return NOTHING

    def _read(self, node: cst.Name) -> Value:
        if self._shadowed:
            shadowed = self._shadowed.get(id(node))
            if shadowed is not None:
                return shadowed
        if self._ordered is not None and node.value in self._ordered[1]:
            self._early = self._reads_in_order(*self._ordered)
            self._ordered = None
        if self._early:
            early = self._early.get(id(node))
            if early is not None:
                return early
        return self.env.get(node.value, NOTHING)

    def _isinstance_narrowed_reads(self) -> dict[int, list[Narrowing]]:
        """Reads of a name where an `isinstance` test says what it holds, whatever else the name
        may hold elsewhere: the body of `if isinstance(n, (int, float)):` a Python number (kornia's
        gaussian kernel: `sigma = torch.tensor([[float(sigma)]], ...)`), the `else` of
        `isinstance(ref, torch.Tensor)` (and the rest of the block after `if isinstance(ref,
        torch.Tensor): return ...`) no tensor (demucs' `center_trim`: `ref_size = ref`, an int
        length), the side of an `and`/`or` or a conditional expression the test guards. A region
        ends where it binds the name again."""
        out: dict[int, list[Narrowing]] = {}

        def written_as(test: cst.BaseExpression) -> cst.BaseExpression | None:
            """The test a flag bound once stands for (`is_tensor = isinstance(ref, torch.Tensor)`,
            `ref` never bound again), or a one-line helper's call written out."""
            if type(test) is cst.Call:
                return self.inlined(test)  # type: ignore[arg-type]
            bound = self.bound_once(test.value) if type(test) is cst.Name else None  # type: ignore[attr-defined]
            checked = bound.args[0].value if type(bound) is cst.Call and bound.args else None  # type: ignore[attr-defined]
            return bound if type(checked) is cst.Name and self._never_rebound(checked.value) else None  # type: ignore[attr-defined]

        def facts_of(test: cst.BaseExpression) -> tuple[Facts, Facts]:
            return _isinstance_facts(test, written_as)

        def note(facts: dict[str, Narrowing], region: Iterable[cst.CSTNode]) -> None:
            for name, narrowing in facts.items():
                for node in _reads_before_rebinding(region, name, narrowing):
                    out.setdefault(id(node), []).append(narrowing)

        ifs = {id(statement) for statement in self.statements if type(statement) is cst.If}
        for node in iter_nodes(self.func.body):
            node_type = type(node)
            if node_type is cst.BooleanOperation:
                holds, fails = facts_of(node.left)  # type: ignore[attr-defined]
                note(holds if isinstance(node.operator, cst.And) else fails, [node.right])  # type: ignore[attr-defined]
            elif node_type is cst.IfExp:
                holds, fails = facts_of(node.test)  # type: ignore[attr-defined]
                note(holds, [node.body])  # type: ignore[attr-defined]
                note(fails, [node.orelse])  # type: ignore[attr-defined]
            elif node_type is cst.If and id(node) in ifs:
                holds, fails = facts_of(node.test)  # type: ignore[attr-defined]
                note(holds, _in_order(node.body))  # type: ignore[attr-defined]
                orelse = node.orelse  # type: ignore[attr-defined]
                if orelse is not None:
                    note(fails, _in_order(orelse.body) if type(orelse) is cst.Else else [orelse])
            elif node_type is cst.IndentedBlock:
                statements = node.body  # type: ignore[attr-defined]
                for index, statement in enumerate(statements):
                    if type(statement) is not cst.If or id(statement) not in ifs:
                        continue
                    # `if isinstance(ref, torch.Tensor): return ...`: what follows runs only where it fails
                    holds, fails = facts_of(statement.test)
                    orelse = statement.orelse
                    rest = _flattened(statements[index + 1:])
                    if _always_leaves(statement.body):
                        note(fails, rest)
                    elif type(orelse) is cst.Else and _always_leaves(orelse.body):
                        note(holds, rest)
        return out

    def constant_tensor(self, expr: cst.BaseExpression, _through: frozenset[str] = frozenset()) -> bool:
        """`torch.tensor(scale).log2().round()`: a tensor made from Python numbers, through tensor
        methods and local names bound only to such tensors (`v = torch.tensor(self.version)`): a
        constant under export, so reading it back is no read of data (measured: torchvision's
        `float(torch.tensor(approx_scale).log2().round())` exports in both modes)."""
        if isinstance(expr, cst.Name):
            bound = self._definitions().get(expr.value)
            return (
                bool(bound) and expr.value not in _through and all(
                    value is not None and self.constant_tensor(value, _through | {expr.value}) for value in bound
                )
            )
        while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            receiver = expr.func.value
            if isinstance(receiver, cst.Name) and receiver.value == "torch":
                break
            if any(is_tensor_like(self.value(a.value)) for a in expr.args):
                return False
            expr = receiver
        if not isinstance(expr, cst.Call):
            return False
        made_by = self.resolver.resolve(expr.func) or ""
        if made_by not in _TENSOR_FROM_PYTHON:
            # `torch.log2(torch.tensor(scale))`: a torch function of constant tensors (poolers.py)
            tensors = [a.value for a in expr.args if is_tensor_like(self.value(a.value))]
            return (
                made_by.startswith("torch.") and bool(tensors)
                and all(self.constant_tensor(t, _through) for t in tensors)
                and not any(self.value(a.value).has(Kind.DATA) for a in expr.args)
            )
        values = [self.value(a.value) for a in expr.args]
        return all(not is_tensor_like(v) and not v.has(Kind.DATA) for v in values)

    def inlined(self, call: cst.Call) -> cst.BaseExpression | None:
        """What `call` of a module-level helper of this file computes, written at the call site:
        the helper's one `return` expression with its parameters replaced by the arguments
        (`_count(steps)` of `def _count(t): return int(t.item())` -> `int(steps.item())`), so a
        rewrite can see through the call; a helper of another file by its summary's expression
        (`helpers.count(steps)`). None for anything else: a helper with more statements,
        defaults, `*args`, names the caller binds too, or a lambda or comprehension in its return."""
        written = dotted(call.func)
        if written is None or (written == self.func.name.value and self.cls is None):
            return None  # not a plain name, or this helper calling itself
        if written.startswith("self.") and written.count(".") == 1:
            return self._method_inlined(call, written.removeprefix("self."))
        bound = self.bound_once(written) if isinstance(call.func, cst.Name) else None
        if isinstance(bound, cst.Lambda):
            return self._lambda_inlined(call, bound)
        helper = self.resolver.one_line_helper(written)
        if helper is None or helper.free is None or helper.free & set(self._definitions()):
            return None  # a name the helper reads is one the caller binds too
        expr = helper.at(by_position(call, helper.params))
        if expr is None:
            return None
        if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseNumber)):
            return expr  # an argument returned as it is stays the caller's own node
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # type: ignore[union-attr]

    def _lambda_inlined(self, call: cst.Call, func: cst.Lambda, foreign: bool = False) -> cst.BaseExpression | None:
        """`peak(x)` of `peak = lambda t: t.abs().max().item()` bound once in this function, written
        at the call as a one-line helper is; None where the lambda takes defaults or `*args`, or
        reads a local name bound more than once (which binding it sees depends on when it runs);
        `foreign`, a lambda of another scope (kept on `self` by `__init__`): None where it reads any
        name this function binds (written here, it would read this function's variable)."""
        params = func.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg or params.kwonly_params or any(
            p.default is not None for p in (*params.posonly_params, *params.params)
        ):
            return None
        names = {p.name.value for p in (*params.posonly_params, *params.params)}
        defined = self._definitions()
        free = names_read(func.body) - names
        if any(len(defined.get(name, ())) > (0 if foreign else 1) for name in free):
            return None
        expr = method_at(_as_method(_returning("_", params, func.body)), call)
        if expr is None or isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseNumber)):
            return expr
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # type: ignore[union-attr]

    def property_inlined(self, node: cst.Attribute) -> cst.BaseExpression | None:
        """`self.temp` of a one-line `@property` of the class (`return self.temperature.item()`),
        written here; None for anything else, or a property reading itself."""
        if self.cls is None or not (isinstance(node.value, cst.Name) and node.value.value == "self"):
            return None
        name = node.attr.value
        method = next((s for s in self.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name
                       and [dotted(d.decorator) for d in s.decorators] == ["property"]), None)
        if method is None or method is self.func:
            return None
        expr = method_at(method, cst.Call(node))
        if expr is None or any(type(n) is cst.Attribute and n.attr.value == name for n in iter_nodes(expr)):  # type: ignore[attr-defined]
            return None
        return expr

    def _method_inlined(self, call: cst.Call, name: str) -> cst.BaseExpression | None:
        """`self._count(steps)` of a one-line method of the class (`def _count(self, t)`, or a
        `@staticmethod` `def _count(t)`) written at the call, as a module-level helper is; None
        where the method reads a name the caller binds too, or calls itself."""
        method = next((s for s in self.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name),
                      None) if self.cls is not None else None
        if method is None:
            kept = _init_lambdas(self.cls).get(name) if self.cls is not None else None
            return self._lambda_inlined(call, kept, foreign=True) if kept is not None else None
        if method is self.func:
            return None
        if method.decorators:
            static_form = _STATIC_FORM(method)
            if static_form is None:
                return None  # a property, a classmethod reading its class, a wrapper: not a plain call of the body
            method = _as_method(static_form)
        expr = method_at(method, by_position(call, [p.name.value for p in method.params.params[1:]]))
        if expr is None:
            return None  # more than a `return`, or called with keywords naming no parameter
        params = {p.name.value for p in all_params(method.params)}
        body = method.body.body if isinstance(method.body, cst.IndentedBlock) else ()
        free = {name for s in body for name in names_read(s)} - params
        if free & set(self._definitions()):
            return None  # a name the method reads is one the caller binds too
        if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseNumber)):
            return expr
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # type: ignore[union-attr]

    def _kept_by_method(self, call: cst.Call) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
        """`self._observe(x)` called as a statement, of an undecorated method of the class whose
        body only keeps values on `self` (`shapes.kept_at`): each attribute it sets with its value
        written at the call, so `if self.peak > 2.0:` after the call reads that number; none where
        the method reads a name the caller binds too."""
        name = self_attribute(call.func)
        if self.cls is None or name is None:
            return []
        method = next((s for s in self.cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
        if method is None or method is self.func or method.decorators:
            return []
        kept = kept_at(method, call)
        if kept is None:
            return []
        params = {p.name.value for p in all_params(method.params)}
        free = names_read(method.body) - params
        return [] if free & set(self._definitions()) else [(write.targets[0].target, value) for write, value in kept]

    def bindings(self, name: str) -> list[cst.BaseExpression | None]:
        """What each binding of a local name binds (a parameter's first, as None; see _definitions)."""
        return self._definitions().get(name, [])

    def bound_once(self, name: str) -> cst.BaseExpression | None:
        """What a local name is bound to where a plain `name = expr` is its only binding."""
        bound = self._definitions().get(name, [])
        return bound[0] if len(bound) == 1 else None

    def _definitions(self) -> dict[str, list[cst.BaseExpression | None]]:
        """What each local name is bound to, per binding: the expression of a plain `name = expr`
        (or its element of `a, b = x, y`), None for any other binding (a parameter, unpacking,
        augmented assignment, a loop, `with`, an in-place method). The text alone decides it: kept
        per function, for every flow of it (a helper is solved again as its call sites' join grows)."""
        if self._defined is None:
            cached = _DEFINED.get(self.func)
            if cached is not None:
                self._defined = cached
                return cached
            defined: dict[str, list[cst.BaseExpression | None]] = {
                param.name.value: [None] for param in all_params(self.func.params)
            }
            for node in body_nodes(self.func.body):
                node_type = type(node)  # by exact type, as `_evaluate` dispatches
                if node_type is cst.Assign:
                    for target in node.targets:  # type: ignore[attr-defined]
                        for name, value in _pairs(target.target, node.value):  # type: ignore[attr-defined]
                            defined.setdefault(name, []).append(value)
                elif node_type in _OTHER_BINDINGS:
                    bound = node.name if node_type is cst.AsName else node.target  # type: ignore[attr-defined]
                    for name in _target_names(bound):
                        defined.setdefault(name, []).append(None)
                elif (
                    node_type is cst.Call and isinstance(node.func, cst.Attribute)  # type: ignore[attr-defined]
                    and isinstance(node.func.value, cst.Name) and node.func.attr.value.endswith("_")
                ):
                    defined.setdefault(node.func.value.value, []).append(None)  # `v.add_(x)`: changed in place
            self._defined = _DEFINED.put(self.func, defined)
        return self._defined

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp | cst.SetComp | cst.DictComp) -> Value:
        """A comprehension's variables live in its own scope (`[len(t) for t in x]` and a later
        `all(n % 8 == 0 for n in lengths)` may both name theirs `_`): bound while its parts
        are evaluated, then the outer values come back."""
        names = set()
        current: cst.CompFor | None = node.for_in
        while current is not None:
            names.update(_target_names(current.target))
            current = current.inner_for_in
        saved = {name: self.env[name] for name in names if name in self.env}
        self._comprehensions += 1
        try:
            self._bind_comprehension(node.for_in)
            current = node.for_in
            while current is not None:  # the filters, for the rules that read them later
                for condition in current.ifs:
                    self.value(condition.test)
                current = current.inner_for_in
            out = self.value(node.value if isinstance(node, cst.DictComp) else node.elt)
        finally:
            self._comprehensions -= 1
        for name in names:
            if name in saved:
                self.env[name] = saved[name]
            else:
                self.env.pop(name, None)
        return out

    def _bind_comprehension(self, for_in: cst.CompFor) -> None:
        current: cst.CompFor | None = for_in
        while current is not None:
            self._bind_loop(current.target, current.iter)
            current = current.inner_for_in

    def _bind_loop(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """What a `for` (statement or comprehension) binds. The keys of `**kwargs` and the
        index of `enumerate` are Python values: `if k.startswith(...)`, `if i == last` are no
        guard on data."""
        pair = target.elements if isinstance(target, cst.Tuple) else ()
        if len(pair) == 2 and self._is_kwargs_items(iterable):
            self._bind(pair[0].value, NOTHING)
            self._bind(pair[1].value, self.env.get(self.packed_kwargs or "", NOTHING))
        elif len(pair) == 2 and isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and (
            iterable.func.attr.value == "items" and not iterable.args
        ):
            # `for k, v in params.items()`: a dict's keys are names, not tensor data
            self._bind(pair[0].value, NOTHING)
            self._bind(pair[1].value, self.element_of(iterable))
        elif len(pair) == 2 and isinstance(iterable, cst.Call) and dotted(iterable.func) == "enumerate":
            self._bind(pair[0].value, NOTHING)
            inner = iterable.args[0].value if iterable.args else iterable
            self._bind(pair[1].value, self.element_of(inner))
        elif (
            pair and isinstance(iterable, cst.Call) and dotted(iterable.func) == "zip"
            and len(iterable.args) == len(pair) and not any(a.star for a in iterable.args)
        ):
            # `for feature, scale in zip(features, self.scale_factor_list)`: each from its own
            for element, arg in zip(pair, iterable.args, strict=True):
                self._bind(element.value, self.element_of(arg.value))
        else:
            self._bind(target, self.element_of(iterable))

    def _comparison(self, node: cst.Comparison) -> Value:
        (first, *more) = node.comparisons
        if not more and isinstance(first.operator, (cst.In, cst.NotIn)) and isinstance(
            first.comparator, (cst.Tuple, cst.List)
        ) and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Integer) for e in first.comparator.elements):
            left = self.value(node.left)  # `x.shape[1] in (3, 4)`: a test on the size, as `==` is
            if left.has(Kind.SHAPE) and not is_tensor_like(left):
                return _arith(left)
        if not more and _is_bool_literal(first):
            # `bool(mask.any()) is False`: the bool read from data, tested as `not` would
            left = self.value(node.left)
            if left.has(Kind.DATA) and not is_tensor_like(left):
                return left
        if tensor_membership(node, self.value):
            return Value(Kind.DATA, node)
        # `is`, membership (`"mask" in kwargs`) and comparisons with strings or None are about
        # Python objects, not tensor data
        if any(isinstance(t.operator, _STATIC_COMPARISONS) for t in node.comparisons) or any(
            isinstance(e, _LITERALS) or (isinstance(e, cst.Name) and e.value == "None")
            for e in (node.left, *(t.comparator for t in node.comparisons))
        ):
            return NOTHING
        out = self.value(node.left)
        for target in node.comparisons:
            out = out | self.value(target.comparator)
        if is_tensor_like(out):
            return Value(Kind.TENSOR | Kind.MASK, out.origin)
        return _arith(out)

    def _attribute(self, node: cst.Attribute) -> Value:
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            if self._attribute_writes is None:
                self._attribute_writes = _ATTRIBUTE_WRITES(self.func)
            written = self._attribute_writes.get(id(node))
            if written is not None:  # `self.n = boxes.shape[1]` just before: what it assigned
                out = NOTHING
                for expression in written:
                    out = out | self.value(expression)
                return out
            kept = self.env.get(f"self.{attr}")
            found = self.resolver.self_attribute(self.cls, attr)
            computed = self.property_inlined(node) if kept is None and found is NOTHING else None
            if computed is not None:
                return self.value(computed)  # `self.temp` of `@property def temp(self): return self.t.item()`
            return found if kept is None else found | kept
        base = self.value(node.value)
        if not is_tensor_like(base):
            return base if base.has(Kind.SHAPE | Kind.DD_SIZE | Kind.DATA) else NOTHING
        if attr in SIZE_ATTRS:
            if base.has(Kind.DD_TENSOR):
                return Value(Kind.DD_SIZE | Kind.SHAPE, base.origin)
            return mark(Kind.SHAPE, node)
        if attr in STATIC_ATTRS or attr.startswith("is_"):
            return NOTHING
        if attr in TENSOR_ATTRS or attr in RETURN_TYPE_FIELDS:
            return Value(base.kind & ~Kind.MASK, base.origin)
        if base.has(Kind.STRUCTURE):
            return base  # a field of what may be a structure may be a tensor
        # no attribute of a plain tensor: a subclass's metadata (torchvision's `BoundingBoxes.format`,
        # an enum) or a bound method (a call reads its receiver): not shown to be tensor data
        return NOTHING

    def _subscript(self, node: cst.Subscript) -> Value:
        base = self.value(node.value)
        index = NOTHING
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = index | self.value(element.slice.value)
        if is_tensor_like(base):
            if index.has(Kind.MASK) or index.has(Kind.DD_TENSOR):
                return mark(Kind.TENSOR | Kind.DD_TENSOR, node)
            if index.has(Kind.DATA):
                # x[n.item()] selects data-dependently, but with a static size
                return Value(base.kind & ~Kind.MASK, base.origin)
            return base
        if base.has(Kind.DD_SIZE) and _is_whole_shape(node.value) and _off_the_first_dim(node.slice):
            return Value(base.kind & ~Kind.DD_SIZE, base.origin)
        if self.entries and read_entry_path(node, self._never_rebound) in self.entries:
            return mark(Kind.TENSOR, node)  # `inputs["pixels"]`: a tensor the example passes inside a dict
        entry = self._dict_entry(node)
        return base if entry is None else self.value(entry)

    def _never_rebound(self, name: str) -> bool:
        """Bound only as the parameter it is (`inputs` of `forward(self, inputs)`)."""
        return self._definitions().get(name) == [None]

    def _dict_entry(self, node: cst.Subscript) -> cst.BaseExpression | None:
        """`stats["max"]` of `stats = {"max": x.max().item()}` (a dict display bound once, or
        written there): the expression its string key holds, read back as that value."""
        holder = node.value
        if isinstance(holder, cst.Name):
            holder = self.bound_once(holder.value)
        key = node.slice[0].slice if len(node.slice) == 1 else None
        if not (isinstance(holder, cst.Dict) and isinstance(key, cst.Index)
                and isinstance(key.value, cst.SimpleString)):
            return None
        wanted = key.value.evaluated_value
        return next((
            e.value for e in holder.elements
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            and e.key.evaluated_value == wanted
        ), None)

    def _call(self, node: cst.Call) -> Value:
        func = node.func
        args = [self.value(arg.value) for arg in node.args]
        any_tensor = any(is_tensor_like(a) for a in args)
        if isinstance(func, cst.Attribute):
            receiver = func.value
            method = func.attr.value
            if not (isinstance(receiver, cst.Name) and receiver.value == "self"):
                base = self.value(receiver)
                if is_tensor_like(base):
                    return self._tensor_method(node, method, base, args, receiver, node.args)
                if base.has(Kind.SHAPE | Kind.DD_SIZE) or (base.has(Kind.DATA_LIST) and method in SHAPE_METHODS):
                    return base  # torch.Size methods (numel, index); a `.tolist()` list has none: fails as `.shape`
                if base.has(Kind.NUMPY):
                    return base
        qualified = self.resolver.resolve(func)
        if qualified is not None:
            if not qualified.startswith("torch."):
                if any_tensor or any(a.has(Kind.DATA) for a in args):
                    self.resolver.note_passed(self.func, node, args)  # for a callee in another file
                returned = self._returned(node, args)
                if returned is not None:
                    return returned
            return self._library_call(node, qualified, args, any_tensor)
        if self._kept_on_self and isinstance(func, cst.Attribute):
            # `if self._hot():` of `def _hot(self): return self.level > 0.5`, `self.level` read from
            # data earlier in this function: the method's one `return`, read here, reads that number
            inlined = self.inlined(node)
            kept = self.value(inlined) if inlined is not None else NOTHING
            if kept.has(Kind.DATA):
                return kept
        attribute = self_attribute(func)
        kept = _kept_lambdas(self.cls).get(attribute) if attribute is not None and self.cls is not None else None
        if (isinstance(func, cst.Name) and isinstance(self.bound_once(func.value), cst.Lambda)) or kept is not None:
            # `peak(x)` of `peak = lambda t: t.max().item()`, or of `self.peak = ...` in `__init__`: what it computes
            inlined = self.inlined(node)
            if inlined is not None:
                return self.value(inlined)
            returned = kept.returned(self, node, args) if kept is not None else NOTHING
            if returned.has(Kind.DATA) and not is_tensor_like(returned):
                return mark(Kind.DATA, node)  # a lambda reading `__init__`'s names: a number read, not a tensor
        helper = self.resolver.call_helper(self, node, args)
        if helper is not None:
            return helper
        if any_tensor or any(a.has(Kind.DATA) for a in args):
            self.resolver.note_passed(self.func, node, args)
        returned = self._returned(node, args)
        if returned is not None:
            return returned
        name = dotted(func)
        if name in ("int", "float", "bool", "complex"):
            if args and is_tensor_like(args[0]) and not self.constant_tensor(node.args[0].value):
                return mark(Kind.DATA, node)
            return args[0] if args and not is_tensor_like(args[0]) else NOTHING
        if name == "len":
            if node.args and _is_whole_shape(node.args[0].value):
                return NOTHING  # len(x.shape) is the rank: static
            packed = node.args[0].value if node.args else None
            if isinstance(packed, cst.Name) and packed.value in (self.packed_args, self.packed_kwargs):
                return NOTHING  # how many arguments were passed: a Python count
            if args and args[0].has(Kind.DD_TENSOR):
                return Value(Kind.DD_SIZE | Kind.SHAPE, args[0].origin)
            if args and args[0].has(Kind.DATA_LIST):
                return mark(Kind.SHAPE, node)  # the length of `t.tolist()`: `t`'s first size
            if args and is_tensor_like(args[0]):
                return mark(Kind.SHAPE, node)
            return args[0] if args and args[0].has(Kind.SHAPE | Kind.DATA) else NOTHING
        if name == "map" and len(node.args) == 2:
            items = node.args[1].value
            if isinstance(items, cst.Name):
                items = self.bound_once(items.value)  # `inputs = (a, b)` ... `map(exists, inputs)`
            if isinstance(items, cst.Tuple | cst.List):
                return self._mapped(node.args[0].value, items)
        if name in ("any", "all") and args and (is_tensor_like(args[0]) or args[0].has(Kind.DATA)):
            # `any(flags.tolist())`, `all(t)`: the truth of each element read from data
            return mark(Kind.DATA, node)
        if name in ("min", "max", "abs", "round", "sum", "math.ceil", "math.floor", "math.sqrt"):
            return _joined(args)
        if name in ("tuple", "list", "torch.Size") and len(args) == 1 and not is_tensor_like(args[0]):
            return args[0]  # `tuple(x.size())`: the same sizes (or numbers read from data) in another container
        if name in BUILTIN_STATIC:
            return NOTHING
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.value.value == "self":
                attr = self.resolver.self_attribute(self.cls, func.attr.value)
                if attr.has(Kind.MODULE):
                    self.resolver.call_submodule(self, func.attr.value, node, args)
                if attr.has(Kind.MODULE) or any_tensor:
                    return RETURNED
                return NOTHING
        callee = self.value(func) if isinstance(func, cst.Name | cst.Subscript) else NOTHING
        if callee.has(Kind.MODULE):
            # `layer(x, flag)` for a `layer` of `self.layers`, `self.layers[i](x, flag)`: its forward
            # is given the arguments, joined with its other call sites'
            attribute = self._submodule_attribute(func)
            if attribute is not None:
                self.resolver.call_submodule(self, attribute, node, args)
            return RETURNED
        if any_tensor and not _is_class_name(name or ""):
            return RETURNED
        return NOTHING

    def _mapped(self, func: cst.BaseExpression, items: cst.Tuple | cst.List) -> Value:
        """`map(exists, (a, b))`: what `func` returns for each item, joined (`exists` of
        `return v is not None` gives Python bools, not tensors, whatever the items are)."""
        if any(isinstance(item, cst.StarredElement) for item in items.elements):
            return _joined(self.value(item.value) for item in items.elements)
        # each call is built here and kept by the memo (see _memo), so its id stays its own
        calls = [cst.Call(func, [cst.Arg(item.value)]) for item in items.elements]
        if isinstance(func, cst.Lambda):
            inlined = [self._lambda_inlined(call, func) for call in calls]
            return _joined(self.value(i if i is not None else c) for i, c in zip(inlined, calls, strict=True))
        return _joined(self.value(call) for call in calls)

    def _tensor_method(
        self, node: cst.Call, method: str, base: Value, args: list[Value], receiver: cst.BaseExpression,
        given: Sequence[cst.Arg],
    ) -> Value:
        """`receiver.method(*given)` (`args`: the values of `given`), a tensor's method, called bound
        or unbound (`torch.Tensor.item(t)`)."""
        if method in DATA_METHODS:
            if method in ("item", "tolist") and self.constant_tensor(receiver):
                return NOTHING  # a number read back from a tensor made of Python numbers: a constant
            if method == "tolist" and not base.has(Kind.DD_TENSOR):
                return mark(Kind.DATA | Kind.DATA_LIST, node)
            return mark(Kind.DATA, node)
        if method in SHAPE_METHODS:
            dim = given[0].value if given else None
            if base.has(Kind.DD_TENSOR) and not (method == "size" and _is_later_dim(dim)):
                return Value(Kind.DD_SIZE | Kind.SHAPE, base.origin)
            return mark(Kind.SHAPE, node)
        if method in DD_OPS and not (method == "repeat_interleave" and not _tensor_repeats(args, 0)):
            return mark(Kind.TENSOR | Kind.DD_TENSOR, node)
        if method == "numpy":
            return mark(Kind.NUMPY, node)
        if method in STATIC_METHODS:
            return NOTHING
        if method in MASK_METHODS:
            return Value(Kind.TENSOR | Kind.MASK | (base.kind & Kind.DD_TENSOR), base.origin)
        if method in ("masked_fill", "where", "index_select", "gather", "view", "reshape"):
            return Value(Kind.TENSOR | (base.kind & Kind.DD_TENSOR), base.origin)
        if method not in tensor_method_names():
            return NOTHING  # not a tensor's method: the receiver is another object, its value unknown
        return Value(Kind.TENSOR | (base.kind & Kind.DD_TENSOR), base.origin)

    def _library_call(
        self, node: cst.Call, qualified: str, args: list[Value], any_tensor: bool
    ) -> Value:
        if qualified.startswith(TORCH_PYTHON_HELPERS):
            return _joined(args)  # `_pair(x.shape[-2:])`: the same Python values, in a tuple
        if qualified.startswith("torch."):
            leaf = qualified.rsplit(".", 1)[1]
            if qualified == f"torch.Tensor.{leaf}" and args and is_tensor_like(args[0]):
                # `torch.Tensor.item(t)`: the method called unbound is `t.item()`
                return self._tensor_method(node, leaf, args[0], args[1:], node.args[0].value, node.args[1:])
            if leaf in TORCH_DATA_READS:
                return mark(Kind.DATA, node)
            if (
                qualified in TORCH_TENSOR_EXCEPTIONS
                or qualified in TORCH_PYTHON_VALUES
                or qualified.startswith(TORCH_STATIC_PREFIXES)
                or _is_predicate(qualified)  # `is_fake(x)` of torch._subclasses: a Python bool
            ):
                return NOTHING
            if leaf in DD_OPS and not (leaf == "repeat_interleave" and not _tensor_repeats(args, 1)):
                return mark(Kind.TENSOR | Kind.DD_TENSOR, node)
            if leaf == "where" and len(node.args) == 1 and not node.args[0].star:
                # `torch.where(cond)` is `nonzero(cond, as_tuple=True)`: as many indices as hits
                return mark(Kind.TENSOR | Kind.DD_TENSOR, node)
            if leaf == "numel":
                return mark(Kind.SHAPE, node)
            if leaf[:1].isupper():
                if leaf == "Parameter" or leaf.endswith("Tensor"):
                    return Value(Kind.TENSOR)
                return Value(Kind.MODULE)
            if leaf in MASK_TORCH:
                return Value(Kind.TENSOR | Kind.MASK)
            dd = NOTHING
            for a in args:
                if a.has(Kind.DD_TENSOR):
                    dd = a
            return Value(Kind.TENSOR | (dd.kind & Kind.DD_TENSOR), dd.origin)
        if qualified.startswith("numpy."):
            return mark(Kind.NUMPY, node) if any_tensor else NOTHING
        if qualified.startswith(PYTHON_ONLY_MODULES):
            return NOTHING
        if qualified.startswith(("math.", "operator.")):
            return _arith(_joined(args))  # `operator.gt(int(n), 3)` is `int(n) > 3`
        if _is_predicate(qualified) or _is_class_name(qualified):
            return NOTHING
        return RETURNED if any_tensor else NOTHING


def returned_by(context: FileContext, call: cst.Call) -> Returned | None:
    """What the function of another file `call` reaches returns, as the project index tells the
    file (by the callee as written: `count`, `helpers.count`, `self.gate`; None: unknown)."""
    if not context.returns:
        return None
    func = call.func
    written = dotted(func)
    if written is None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) and (
        dotted(func.value.func) == "super"
    ):
        written = f"super().{func.attr.value}"
    return context.returned(written) if written is not None else None


def _loop_attributes(func: cst.FunctionDef) -> dict[str, str | None]:
    """Loop variables of `func` bound to the elements of a `self.` attribute: `for layer in
    self.layers`, `for i, layer in enumerate(self.layers)` (None: a name also bound otherwise)."""
    out: dict[str, str | None] = {}
    for node in body_nodes(func.body):
        if type(node) is not cst.For:
            continue
        target, iterable = node.target, node.iter  # type: ignore[attr-defined]
        if (
            isinstance(iterable, cst.Call) and dotted(iterable.func) == "enumerate" and iterable.args
            and isinstance(target, cst.Tuple) and len(target.elements) == 2
        ):
            target, iterable = target.elements[1].value, iterable.args[0].value
        attribute = self_attribute(iterable)
        if isinstance(target, cst.Name) and attribute is not None:
            name = target.value
            out[name] = attribute if out.get(name, attribute) == attribute else None
    return out


#: _loop_attributes per function, for every flow of it
_LOOP_ATTRIBUTES: PerStatement[dict[str, str | None]] = PerStatement(_loop_attributes)  # type: ignore[arg-type]


#: what `self.x` holds where a write of it reaches a read: the expressions whose union it is
Written = tuple[cst.BaseExpression, ...]


class _AttributeWrites:
    """The reads of `self.x` that a write of `self.x` earlier in the same straight line reaches
    with nothing in between that may rewrite it (a call through `self`, a local closure): there
    `self.x` holds what that write assigned, not the join of every write of the class
    (`self.n = boxes.shape[1]; if self.n == 0:` beside a recovery path's `for self.n in data`)."""

    def __init__(self, func: cst.FunctionDef, closures: frozenset[str]) -> None:
        self.reads: dict[int, Written] = {}
        self._closures = closures
        #: per compound statement (by id), the `self.` attributes it binds anywhere in it, and
        #: whether it calls anything that may rewrite one: gathered bottom-up in one walk
        self._inside: dict[int, tuple[frozenset[str], bool]] = {}
        self._gather(func.body)
        self._block(func.body, {})

    def _gather(self, node: cst.CSTNode) -> tuple[frozenset[str], bool]:
        """What `node` binds on `self` anywhere in it (`for self.n in ...`, `x[self.i] = ...`: an
        attribute anywhere in a target), and whether it holds a call that may rewrite one; kept per
        compound statement, so that each node is looked at once, not once per statement around it."""
        written: set[str] = set()
        rewrites = False
        if isinstance(node, _HOLDS_STATEMENTS):
            written.update(_attributes_in_targets(node))
            for kid in children(node):
                kid_written, kid_rewrites = self._gather(kid)
                written.update(kid_written)
                rewrites = rewrites or kid_rewrites
        else:  # an expression or a simple statement: no statement inside
            for inner in iter_nodes(node):
                written.update(_attributes_in_targets(inner))
                rewrites = rewrites or (type(inner) is cst.Call and self._may_rewrite(inner))  # type: ignore[arg-type]
        out = (frozenset(written), rewrites)
        if isinstance(node, cst.BaseCompoundStatement):
            self._inside[id(node)] = out
        return out

    def _block(self, block: cst.BaseSuite, known: dict[str, Written]) -> None:
        for stmt in block.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small, known)
            elif isinstance(stmt, cst.BaseSmallStatement):
                self._small(stmt, known)
            else:
                self._compound(stmt, known)

    def _small(self, stmt: cst.BaseSmallStatement, known: dict[str, Written]) -> None:
        if isinstance(stmt, cst.Assign):
            self._expression(stmt.value, known)
            for target in stmt.targets:
                self._write(target.target, stmt.value, known)
        elif isinstance(stmt, cst.AnnAssign) and stmt.value is not None:
            self._expression(stmt.value, known)
            self._write(stmt.target, stmt.value, known)
        elif isinstance(stmt, cst.AugAssign):
            self._expression(stmt.target, known)  # `self.n += 1` reads `self.n` first
            self._expression(stmt.value, known)
            if (attribute := self_attribute(stmt.target)) is not None:
                known[attribute] = (stmt.target, stmt.value)
            else:
                self._write(stmt.target, stmt.value, known)
        elif isinstance(stmt, cst.Del):
            self._write(stmt.target, None, known)
        else:
            self._expression(stmt, known)

    def _write(self, target: cst.BaseExpression, value: cst.BaseExpression | None, known: dict[str, Written]) -> None:
        """`value` None: what `target` now holds is not known (`del`, a starred target)."""
        if (attribute := self_attribute(target)) is not None:
            if value is None:
                known.pop(attribute, None)
            else:
                known[attribute] = (value,)
        elif isinstance(target, (cst.Tuple, cst.List)):
            values: list[cst.BaseExpression | None] = [value] * len(target.elements)
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements) and not any(
                isinstance(e, cst.StarredElement) for e in (*value.elements, *target.elements)
            ):
                values = [e.value for e in value.elements]  # `self.h, self.w = x.shape[2], x.shape[3]`
            for element, part in zip(target.elements, values, strict=True):
                self._write(element.value, None if isinstance(element, cst.StarredElement) else part, known)
        else:
            self._expression(target, known)  # `out[self.n] = x` reads `self.n`
            base = target
            while isinstance(base, (cst.Subscript, cst.Attribute)) and self_attribute(base) is None:
                base = base.value
            if (attribute := self_attribute(base)) is not None:
                known.pop(attribute, None)  # `self.sizes[0] = t.item()` changes what `self.sizes` holds

    def _compound(self, stmt: cst.BaseCompoundStatement, known: dict[str, Written]) -> None:
        """A write inside a branch, loop or `try` may or may not have run after it: what the
        statement writes anywhere (or everything, past a call that may rewrite) is forgotten."""
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return  # runs later, when called
        written, rewrites = self._inside[id(stmt)]
        after = {} if rewrites else {k: v for k, v in known.items() if k not in written}
        if isinstance(stmt, cst.If):
            self._expression(stmt.test, known)
            self._block(stmt.body, dict(known))
            if stmt.orelse is not None:
                orelse = stmt.orelse
                if isinstance(orelse, cst.If):
                    self._compound(orelse, dict(known))
                else:
                    self._block(orelse.body, dict(known))
        elif isinstance(stmt, cst.For):
            self._expression(stmt.iter, known)
            self._block(stmt.body, dict(after))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self._expression(item.item, known)
                if item.asname is not None:  # `with ... as self.n`: what `__enter__` returns
                    self._write(item.asname.name, None, known)
            self._block(stmt.body, dict(known))
        elif isinstance(stmt, cst.Try):
            self._block(stmt.body, dict(known))
        known.clear()
        known.update(after)

    def _expression(self, node: cst.CSTNode, known: dict[str, Written]) -> None:
        """Records the reads of `node` in the order Python evaluates them; a call that may
        rewrite an attribute ends what is known."""
        node_type = type(node)
        if node_type in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            return  # runs later, when called
        if (attribute := self_attribute(node)) is not None:  # type: ignore[arg-type]
            if attribute in known:
                self.reads[id(node)] = known[attribute]
            return
        if node_type is cst.IfExp:
            kids: list[cst.CSTNode] = [node.test, node.body, node.orelse]  # type: ignore[attr-defined]
        elif node_type in _COMPREHENSIONS:
            kids = [node.for_in, *(kid for kid in children(node) if kid is not node.for_in)]  # type: ignore[attr-defined]
        else:
            kids = list(children(node))
        for kid in kids:
            self._expression(kid, known)
        if node_type is cst.Call and self._may_rewrite(node):  # type: ignore[arg-type]
            known.clear()

    def _may_rewrite(self, call: cst.Call) -> bool:
        """A call through `self` or `super()`, one handed `self`, or a function defined in the
        function (it may close over `self`)."""
        root = call.func
        while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
            root = root.func if isinstance(root, cst.Call) else root.value
        if isinstance(root, cst.Name) and root.value in ("self", "super", *self._closures):
            return True
        return any(isinstance(arg.value, cst.Name) and arg.value.value == "self" for arg in call.args)


#: the nodes a statement may be inside of (what `_AttributeWrites._gather` goes down through)
_HOLDS_STATEMENTS = (
    cst.BaseCompoundStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally,
    cst.MatchCase,
)


def _attribute_writes(func: cst.FunctionDef) -> dict[int, Written]:
    """`_AttributeWrites(func).reads`; for a function that assigns no `self.` attribute (most),
    nothing more than a look at its statements."""
    if not any(
        type(statement) in _ASSIGNMENTS and any(True for _ in _attributes_in_targets(statement))
        for statement in walk_statements(func.body)
    ):
        return {}
    closures = frozenset(node.name.value for node in body_nodes(func.body) if type(node) is cst.FunctionDef)  # type: ignore[attr-defined]
    return _AttributeWrites(func, closures).reads


#: _attribute_writes per function
_ATTRIBUTE_WRITES: PerStatement[dict[int, Written]] = PerStatement(_attribute_writes)  # type: ignore[arg-type]


def _attributes_in_targets(node: cst.CSTNode) -> Iterator[str]:
    """The `self.` attributes anywhere in what `node` itself binds or deletes (assignment, loop,
    `with ... as`, `del`)."""
    node_type = type(node)
    if node_type is cst.Assign:
        targets: Iterable[cst.CSTNode] = [t.target for t in node.targets]  # type: ignore[attr-defined]
    elif node_type in (cst.AugAssign, cst.AnnAssign, cst.For, cst.Del):
        targets = [node.target]  # type: ignore[attr-defined]
    elif node_type is cst.AsName:
        targets = [node.name]  # type: ignore[attr-defined]
    else:
        return
    for target in targets:
        for inner in iter_nodes(target):
            if (attribute := self_attribute(inner)) is not None:  # type: ignore[arg-type]
                yield attribute


def _kind_names(value: Value) -> tuple[str, ...]:
    return tuple(name for name in RETURN_KINDS if value.kind & Kind[name])


def _apply(
    summary: Returned, call: cst.Call, args: Sequence[Value], may_pass: Callable[[cst.Call, int, str], bool]
) -> Value:
    """What `call` gets back from a function of another file: what its summary says it returns
    (the call is where that comes from, with what only an optional argument the call `may_pass`
    returns), and the arguments it hands back as they are."""
    kind = Kind.NONE
    guarded = [kinds for position, name, kinds in summary.optional if may_pass(call, position, name)]
    for name in chain(summary.kinds, *guarded):
        kind |= Kind[name]
    out = Value(kind, call) if kind else NOTHING
    for position, name in summary.through:
        out = out | _argument(call, args, position, name)
    return out


def _argument(call: cst.Call, args: Sequence[Value], position: int, name: str) -> Value:
    """What `call` passes the parameter at `position` (-1: keyword-only) named `name` (see arguments_passing)."""
    return _joined([args[index] for index in arguments_passing(call, position, name)])


def arguments_passing(call: cst.Call, position: int, name: str) -> list[int]:
    """Which arguments of `call` may fill the parameter at `position` (-1: keyword-only) named
    `name` (`*args`: every positional argument from `position` on): the one passed by name or
    place, else every `*`/`**` argument; none where the default stands."""
    packed = name.startswith("*")
    found = []
    at = 0
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return [index]
        elif arg.star:
            found.append(index)
        else:
            if at == position and not packed:
                return [index]
            if packed and at >= position >= 0:
                found.append(index)
            at += 1
    return found


def _tensor_repeats(args: list[Value], index: int) -> bool:
    """`repeat_interleave` sizes its output from data only when `repeats` is a tensor (an int,
    `num_v_heads // num_k_heads`, repeats every element alike); `x.repeat_interleave(t)` with one
    argument is the same call with the tensor as repeats."""
    return index < len(args) and is_tensor_like(args[index]) or index >= len(args)


def _is_class_name(name: str) -> bool:
    """`FlavaLosses(...)`, `BaseModelOutput(...)`: building an object (tensors inside), which is
    not itself a tensor: `losses.all_none()` is a method of it."""
    leaf = name.rpartition(".")[2]
    return leaf[:1].isupper() and not leaf.isupper()


def _is_predicate(qualified: str) -> bool:
    """`is_tracing(x)`, `has_mask(x)`: by Python's naming convention a library predicate answers
    with a bool about its argument, not a tensor of it."""
    return qualified.rpartition(".")[2].startswith(("is_", "has_", "_is_", "_has_"))


#: methods that answer None when what they look up is missing (`masks.get(k)`, `cache.pop(k, None)`)
_LOOKUPS_MAY_ANSWER_NONE = frozenset({"get", "pop", "setdefault"})


def lookup_may_answer_none(call: cst.Call) -> bool:
    """`call` is a method lookup that may answer None (`masks.get(k)`): whatever the mapping
    holds, its value is optional, so a test of it is no test of a surely-present value."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _LOOKUPS_MAY_ANSWER_NONE


_STATIC_COMPARISONS = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def tensor_membership(node: cst.Comparison, value: Callable[[cst.BaseExpression], Value]) -> bool:
    """`0 in mask` (or `not in`) of a tensor: `Tensor.__contains__` reads `(mask == 0).any()` as a
    Python bool (measured on torch 2.13: a branch on it fails both modes); membership in a
    structure of tensors (`"logits" in outputs`) asks about its keys."""
    if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, (cst.In, cst.NotIn)):
        return False
    comparator = node.comparisons[0].comparator
    if isinstance(comparator, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp)):
        return False  # `t in (a, b)`: identity first, element by element
    container = value(comparator)
    if not is_tensor_like(container) or container.has(Kind.STRUCTURE):
        return False
    # a number looked for (`0 in mask`, `n in ids` of a size or a read): a key (`edge_type in
    # value_dict`, of a parameter taken for a tensor) is no claim
    left = node.left.expression if isinstance(node.left, cst.UnaryOperation) else node.left
    return isinstance(left, (cst.Integer, cst.Float)) or value(left).has(Kind.DATA | Kind.SHAPE | Kind.DD_SIZE)


def _is_bool_literal(target: cst.ComparisonTarget) -> bool:
    """`is True`, `is not False`: an identity test against a bool literal."""
    return isinstance(target.operator, (cst.Is, cst.IsNot)) and isinstance(target.comparator, cst.Name) \
        and target.comparator.value in ("True", "False")


def _is_whole_shape(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Attribute):
        return node.attr.value == "shape"
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "size"
        and not node.args
    )


def _is_later_dim(node: cst.BaseExpression | None) -> bool:
    """A literal dim other than the first. Data makes the first dim of what nonzero, unique,
    masked_select and boolean-mask indexing return; a later one (`.shape[1]`), or one counted
    from the end of a rank the code does not show (`.shape[-1]`), is not shown to be data."""
    index = integer_literal(node)
    return index is not None and index != 0


def _off_the_first_dim(elements: Sequence[cst.SubscriptElement]) -> bool:
    """`.shape[k]` for a literal `k` other than 0, or `.shape[k:]` from such a `k`."""
    if len(elements) != 1:
        return False
    part = elements[0].slice
    if isinstance(part, cst.Index):
        return _is_later_dim(part.value)
    return isinstance(part, cst.Slice) and part.upper is None and _is_later_dim(part.lower)


def _joined(values: Iterable[Value]) -> Value:
    """The join of `values` (NOTHING for none)."""
    out = NOTHING
    for value in values:
        out = out | value
    return out


def _arith(value: Value) -> Value:
    """Arithmetic keeps tensors tensors; Python scalars keep their provenance."""
    if is_tensor_like(value):
        return Value(value.kind & (Kind.TENSOR | Kind.DD_TENSOR), value.origin)
    return value


def all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if type(params.star_arg) is cst.Param:  # exact type: ABC isinstance is slow, and this is hot
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


def _static_form(method: cst.FunctionDef) -> cst.FunctionDef | None:
    """`method` as a staticmethod reads it: itself if it is one; a `@classmethod` whose body never
    reads its class parameter without that parameter (`def extent(cls, t): return t.min().item(),
    t.max().item()` computes from its arguments alone, as a staticmethod does); None for any other
    decorated method (a property, a wrapper)."""
    decorators = {dotted(d.decorator) for d in method.decorators}
    if decorators == {"staticmethod"}:
        return method
    params = method.params.params
    if decorators != {"classmethod"} or not params or method.params.posonly_params:
        return None
    if params[0].name.value in names_read(method.body):
        return None
    return method.with_changes(decorators=[], params=method.params.with_changes(params=params[1:]))


#: each method's static form, made once per method node (the facts of helpers are kept by node)
_STATIC_FORM: PerStatement[cst.FunctionDef | None] = PerStatement(_static_form)  # type: ignore[arg-type]


def _as_method(function: cst.FunctionDef) -> cst.FunctionDef:
    """`function`, which takes no `self` (a module function, a staticmethod, a lambda's body), as a
    method whose `self` is unused: `method_at` writes a method's one `return` at a call."""
    params = function.params
    positional = [cst.Param(cst.Name("self")), *params.posonly_params, *params.params]
    return function.with_changes(
        params=params.with_changes(params=positional, posonly_params=[], posonly_ind=cst.MaybeSentinel.DEFAULT)
    )


@dataclass(frozen=True)
class _KeptLambda:
    """A lambda kept on `self` by `__init__` (None: a `functools.partial`, never written in
    `forward`): whether a call may be written as its body; `function`, the lambda (or the call the
    partial makes) as a function of what a call passes it; the names `__init__` binds, each with
    the functions it defines by that name (a nested `def`, a lambda; none: another value); and the
    imports `__init__` makes."""

    func: cst.Lambda | None
    inlinable: bool
    function: cst.FunctionDef
    init_names: dict[str, list[cst.FunctionDef]]
    init_imports: ImportTable

    def returned(self, caller: FunctionFlow, call: cst.Call, args: Sequence[Value]) -> Value:
        """What `call` of it, made in `caller` (`args`: what it passes), returns: the dataflow of
        `function` given those arguments, through the functions `__init__` defines, else the
        file's (each solved for this call), else other files' by their summaries."""
        return _KeptScope(self.init_names, self.init_imports, caller).returned(self.function, call, args)

    def calls_past_init(self) -> list[cst.Call]:
        """The calls in what it returns of a function neither a parameter nor `__init__` binds
        (`helpers.count(t)`): export traces them wherever `forward` calls the lambda."""
        params = {param.name.value for param in all_params(self.function.params)}
        return [
            node for node in iter_nodes(self.function.body)
            if type(node) is cst.Call and (root := _root(node.func)) is not None  # type: ignore[attr-defined]
            and root not in params and root not in self.init_names
        ]


class _KeptScope:
    """The resolver of a kept lambda's flow and of the flows of the functions it calls, each
    solved for one call (so it binds nothing in the file's flows): in `__init__`'s scope, or the
    file's for a function of the file (no `init_names`, no `init_imports`). A name the scope binds
    is one of its imports, a function it defines, else a value nothing is known of; the rest is
    what the file's resolver says. What the lambda itself passes another file's function, `caller`
    passes."""

    def __init__(
        self, init_names: dict[str, list[cst.FunctionDef]], init_imports: ImportTable | None, caller: FunctionFlow,
        within: frozenset[str] = frozenset(),
    ) -> None:
        self.init_names = init_names
        self.init_imports = init_imports
        self.caller = caller
        #: the functions being solved already, outside in (a recursive call: nothing known)
        self.within = within
        self.file = caller.resolver
        self.context = self.file.context
        self.functions = self.file.functions
        self.optional_only: dict[int, str] = {}  # every `return` counts: the call passes what it passes

    def returned(self, function: cst.FunctionDef, call: cst.Call, args: Sequence[Value]) -> Value:
        """What `function` returns at `call`, its parameters what `args` give them."""
        return FunctionFlow(function, _passed_to(function, call, args), self, None).returns

    def resolve(self, func: cst.BaseExpression) -> str | None:
        root = _root(func)
        if self.init_imports is not None and root in self.init_imports.aliases:
            return self.init_imports.resolve(func)  # `import operator` in `__init__`
        return None if root in self.init_names else self.file.resolve(func)

    def call_helper(self, caller: FunctionFlow, call: cst.Call, args: Sequence[Value]) -> Value | None:
        """What a call of a function of the scope or of the file returns, solved for this call."""
        name = call.func.value if type(call.func) is cst.Name else None  # type: ignore[attr-defined]
        if name in self.init_names:
            functions, scope = self.init_names[name], (self.init_names, self.init_imports)
        elif name in self.functions:
            functions, scope = [self.functions[name]], ({}, None)  # a function of the file sees the file's names
        else:
            return None
        if not functions or name in self.within:
            return RETURNED if any(is_tensor_like(a) for a in args) else NOTHING  # nothing known of it
        inner = _KeptScope(*scope, self.caller, self.within | {name})  # type: ignore[operator]
        return _joined(inner.returned(function, call, args) for function in functions)

    def self_attribute(self, cls: cst.ClassDef | None, name: str) -> Value:
        return self.file.self_attribute(cls, name)

    def while_exporting(self, test: cst.BaseExpression) -> bool | None:
        return self.file.while_exporting(test)

    def may_pass(self, caller: cst.FunctionDef, call: cst.Call, position: int, name: str) -> bool:
        return bool(arguments_passing(call, position, name))

    def one_line_helper(self, written: str) -> OneLineHelper | None:
        return None if written.partition(".")[0] in self.init_names else self.file.one_line_helper(written)

    def note_passed(self, caller: cst.FunctionDef, call: cst.Call, args: Sequence[Value]) -> None:
        if not self.within:  # a call in the lambda itself: `forward` makes it, through the lambda
            self.file.note_passed(self.caller.func, call, args)

    def call_submodule(self, caller: FunctionFlow, attribute: str, call: cst.Call, args: Sequence[Value]) -> None:
        """Never called: the scope's flows have no class, so no `self.` attribute is a submodule."""


def _root(func: cst.BaseExpression) -> str | None:
    """The first name of a dotted callee (`helpers` of `helpers.count`; None: not dotted)."""
    written = dotted(func)
    return None if written is None else written.partition(".")[0]


def _passed_to(function: cst.FunctionDef, call: cst.Call, args: Sequence[Value]) -> dict[str, Value]:
    """What each parameter of `function` (which takes no `self`) holds at `call`: the join of the
    arguments that may fill it (`arguments_passing`; none: it holds its default, no data)."""
    params = function.params
    positional = (*params.posonly_params, *params.params)
    slots = {param.name.value: (i, param.name.value) for i, param in enumerate(positional)}
    if isinstance(params.star_arg, cst.Param):
        slots[params.star_arg.name.value] = (len(slots), f"*{params.star_arg.name.value}")
    if params.star_kwarg is not None:
        slots[params.star_kwarg.name.value] = (-1, f"**{params.star_kwarg.name.value}")
    return {
        param.name.value: _argument(call, args, *slots.get(param.name.value, (-1, param.name.value)))
        for param in all_params(params)
    }


def _returning(name: str, params: cst.Parameters, returned: cst.BaseExpression) -> cst.FunctionDef:
    """`def name(params): return returned`: a lambda as the function it is."""
    return cst.FunctionDef(cst.Name(name), params, cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(returned)])]))


def kept_lambda_calls(cls: cst.ClassDef, attribute: str) -> list[cst.Call]:
    """The calls past `__init__` of the lambda (or partial) `cls`'s `__init__` keeps as `self.<attribute>`."""
    kept = _kept_lambdas(cls).get(attribute)
    return kept.calls_past_init() if kept is not None else []


#: the parameters of a `functools.partial` as a function: what a call passes it, by position and by name
_PARTIAL_PARAMS = cst.Parameters(star_arg=cst.Param(cst.Name("__args")), star_kwarg=cst.Param(cst.Name("__kwargs")))


def _lambdas_kept_on_self(cls: cst.CSTNode) -> dict[str, _KeptLambda]:
    """`self.count = lambda t: int((t > 0).sum())` in `cls`'s `__init__`, the only binding of
    `self.count` there: attribute -> the lambda, whether it reads no name `__init__` binds (its
    locals, loop and `with` targets, imports, nested defs: not `forward`'s), so that a call
    `self.count(x)` may be written as the lambda's body, and the lambda as a function, for
    `_KeptLambda.returned` to solve through the functions it calls (`lambda t: positives(t)` of a
    nested `def positives(t): return int(t.sum())`); `functools.partial(positives, k)` as
    `def _(*a, **kw): return positives(k, *a, **kw)`."""
    assert isinstance(cls, cst.ClassDef)
    init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None:
        return {}
    bound: dict[str, list[cst.BaseExpression]] = {}
    for statement in walk_statements(init.body):
        if isinstance(statement, cst.Assign | cst.AnnAssign | cst.AugAssign):
            targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
            for target in targets:
                if (attribute := self_attribute(target)) is not None:
                    bound.setdefault(attribute, []).append(statement.value or target)  # type: ignore[attr-defined]
    if not any(len(values) == 1 and (isinstance(values[0], cst.Lambda) or _is_partial(values[0]))
               for values in bound.values()):
        return {}  # nothing kept: no need to walk `__init__` for its names and functions (most classes)
    local = {p.name.value for p in all_params(init.params)} | _bound_names(init.body)
    init_names: dict[str, list[cst.FunctionDef]] = {name: [] for name in local} | _functions_defined(init)
    init_imports = ImportTable()
    for node in iter_nodes(init.body):
        if type(node) is cst.Import or type(node) is cst.ImportFrom:
            init_imports.add(node)  # type: ignore[arg-type]
    out: dict[str, _KeptLambda] = {}
    for attribute, values in bound.items():
        func = values[0]
        if len(values) == 1 and isinstance(func, cst.Lambda):
            params = {p.name.value for p in all_params(func.params)}
            out[attribute] = _KeptLambda(func, not (names_read(func.body) - params) & local,
                                         _returning(attribute, func.params, func.body), init_names, init_imports)
        elif len(values) == 1 and _is_partial(func):
            # a call of it is a call of the function it wraps, with the arguments it binds first
            bound_args = func.args[1:]
            wrapped = func.with_changes(func=func.args[0].value, args=[
                *(a for a in bound_args if a.keyword is None and a.star != "**"),
                cst.Arg(cst.Name("__args"), star="*"),
                *(a for a in bound_args if a.keyword is not None or a.star == "**"),
                cst.Arg(cst.Name("__kwargs"), star="**"),
            ])
            out[attribute] = _KeptLambda(None, False, _returning(attribute, _PARTIAL_PARAMS, wrapped), init_names,
                                         init_imports)
    return out


def _is_partial(value: cst.BaseExpression) -> TypeGuard[cst.Call]:
    """`functools.partial(f, ...)`: a function kept with some of its arguments bound."""
    return isinstance(value, cst.Call) and bool(value.args) and dotted(value.func) in ("functools.partial", "partial")


def _functions_defined(init: cst.FunctionDef) -> dict[str, list[cst.FunctionDef]]:
    """The functions `__init__` defines, by name: its nested `def`s, and its names bound to a lambda
    (as the function the lambda is)."""
    out: dict[str, list[cst.FunctionDef]] = {}
    for node in iter_nodes(init.body):
        if type(node) is cst.FunctionDef:
            out.setdefault(node.name.value, []).append(node)  # type: ignore[attr-defined,arg-type]
        elif type(node) is cst.Assign and isinstance(node.value, cst.Lambda):  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    out.setdefault(name, []).append(_returning(name, node.value.params, node.value.body))  # type: ignore[attr-defined]
    return out


#: _lambdas_kept_on_self per class
_kept_lambdas: PerStatement[dict[str, _KeptLambda]] = PerStatement(_lambdas_kept_on_self)


def _init_lambdas(cls: cst.ClassDef) -> dict[str, cst.Lambda]:
    """The lambdas kept on `self` by `__init__` that a call may be written as (`_lambdas_kept_on_self`)."""
    return {attribute: kept.func for attribute, kept in _kept_lambdas(cls).items() if kept.inlinable and kept.func}


def walk_statements(body: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """Every statement (small and compound) in a function body, nested defs included."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        node_type = type(node)  # by exact type, as `FunctionFlow._evaluate` dispatches
        if node_type is cst.IndentedBlock or node_type is cst.SimpleStatementSuite or (
            node_type is cst.SimpleStatementLine
        ):
            stack.extend(reversed(node.body))  # type: ignore[attr-defined]
        elif node_type is cst.If:
            yield node
            stack.append(node.body)  # type: ignore[attr-defined]
            if node.orelse is not None:  # type: ignore[attr-defined]
                stack.append(node.orelse)  # type: ignore[attr-defined]
        elif node_type is cst.Else:
            stack.append(node.body)  # type: ignore[attr-defined]
        elif node_type is cst.For or node_type is cst.While:
            yield node
            stack.append(node.body)  # type: ignore[attr-defined]
            if node.orelse is not None:  # type: ignore[attr-defined]
                stack.append(node.orelse.body)  # type: ignore[attr-defined]
        elif node_type is cst.With:
            yield node
            stack.append(node.body)  # type: ignore[attr-defined]
        elif node_type is cst.Try or node_type is cst.TryStar:
            stack.append(node.body)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                stack.append(handler.body)
            if node.orelse is not None:  # type: ignore[attr-defined]
                stack.append(node.orelse.body)  # type: ignore[attr-defined]
            if node.finalbody is not None:  # type: ignore[attr-defined]
                stack.append(node.finalbody.body)  # type: ignore[attr-defined]
        elif node_type is cst.FunctionDef:
            yield node
            stack.append(node.body)  # type: ignore[attr-defined]
        elif node_type is cst.Match:
            for case in node.cases:  # type: ignore[attr-defined]
                stack.append(case.body)
        else:
            yield node


#: attributes and methods that only a tensor has among the values a parameter usually holds
#: (not `.get`, `.items`, `.keys`, `.append`, `.split`, ... of dicts, lists and strings)
TENSOR_USES = frozenset({
    "shape", "size", "dim", "ndim", "dtype", "device", "numel", "sum", "mean", "max", "min", "float", "half",
    "bool", "long", "int", "to", "view", "reshape", "unsqueeze", "squeeze", "masked_fill", "transpose",
    "permute", "contiguous", "expand", "repeat", "flatten", "cumsum", "any", "all", "abs", "clone", "detach",
    "softmax", "sigmoid", "exp", "log", "matmul", "type_as", "new_zeros", "new_ones", "ne", "eq", "gt", "lt",
    "argmax", "topk", "gather", "scatter", "item", "tolist", "nonzero", "chunk", "narrow", "masked_select",
})


def param_value(
    param: cst.Param, func: cst.FunctionDef | None = None, nodes: Sequence[tuple[cst.CSTNode, object]] | None = None,
    block: bool = False,
) -> Value:
    """What a traced function's parameter holds when no call site says otherwise. A tensor only
    where something says so: an annotation that names only `Tensor`, a required argument of
    `forward` (of a `block`, a class another one builds as a submodule, only the first: the
    parent passes the rest, `output_attentions` among them), or (for another parameter with no
    default or a `None` default) a use in the body that only a tensor has. Flags, counts and
    options (`return_dict=None`, `dim=None`, `logits_to_keep: Union[int, Tensor] = 0`) are not
    guessed to be tensor data: an unknown value never raises an error."""
    if python_scalar_param(param) or (func is not None and param.name.value in documented_python_scalars(func)):
        return NOTHING
    annotation = param.annotation
    if annotation is not None:
        names = annotation_names(annotation)
        if not any("Tensor" in name for name in names):
            return NOTHING
        return NOTHING if names & _CONTAINER_OR_SCALAR_ANNOTATIONS else Value(Kind.TENSOR)
    default = param.default
    if default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
        return NOTHING
    if func is None:
        return Value(Kind.TENSOR) if default is None else NOTHING
    name = param.name.value
    tensors, containers = _uses(func, nodes)
    if default is None and is_entry_method(func) and not (block and not _first_argument(param, func)):
        # a required argument of forward: the example's tensors, unless the body uses it only as
        # a dict or list (`for t in outputs`, `outputs.items()`)
        return NOTHING if name in containers and name not in tensors else Value(Kind.TENSOR)
    # a helper's argument is what its callers pass (bound from the call site where one is seen);
    # without one, a tensor only where the body uses it as one (`num_frames`, `dt_softplus`,
    # `frame_idx` are counts and flags)
    return Value(Kind.TENSOR) if name in tensors else NOTHING


class _Branches:
    """An `if` in the ordered walk: reached three times, after its test (remember the names'
    values), after its body (set them back for the `else`), after the `else` (join both)."""

    def __init__(self) -> None:
        self.visits = 0
        self.before: dict[str, Value] = {}
        self.body: dict[str, Value] = {}

    def step(self, seen: dict[str, Value]) -> None:
        self.visits += 1
        if self.visits == 1:
            self.before = dict(seen)
        elif self.visits == 2:
            self.body = dict(seen)
            seen.clear()
            seen.update(self.before)
        else:
            for name, value in self.body.items():
                seen[name] = seen.get(name, NOTHING) | value


def _pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    """Each name `target` binds, with the expression it gets where the assignment says (`n = e`,
    `n, _ = e, 0`), else None."""
    if isinstance(target, cst.Name):
        yield target.value, value
    elif (
        isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
    ):
        for inner, element in zip(target.elements, value.elements, strict=True):
            yield from _pairs(inner.value, element.value)
    else:
        for name in _target_names(target):
            yield name, None


_ASSIGNMENTS = (cst.Assign, cst.AugAssign, cst.AnnAssign)
_TENSOR_FROM_PYTHON = ("torch.tensor", "torch.as_tensor")
_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)
#: bindings other than a plain assignment (FunctionFlow._definitions)
_OTHER_BINDINGS = frozenset({cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName})
_OWN_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)


#: what `isinstance(x, ...)` names for a Python scalar
_PYTHON_TYPES = frozenset({
    "int", "float", "bool", "complex", "str", "numbers.Number", "numbers.Real", "numbers.Integral", "Number", "Real",
    "Integral",
})
#: what `isinstance(x, ...)` names for a Python container: no tensor itself, though it may hold some
_CONTAINER_TYPES = frozenset({"list", "tuple", "dict", "set", "frozenset", "bytes", "List", "Tuple", "Dict"})
#: `torch.Tensor` as `isinstance` names it (not `torch.FloatTensor`: a tensor of another dtype fails it)
_TENSOR_TYPES = frozenset({"torch.Tensor", "Tensor", "th.Tensor"})


class Narrowing(enum.Enum):
    """What an `isinstance` test says a name holds where it holds (or fails)."""

    PYTHON_NUMBER = enum.auto()
    NOT_A_TENSOR = enum.auto()
    TENSOR = enum.auto()


_TENSOR_ITSELF = Kind.TENSOR | Kind.MASK | Kind.DD_TENSOR | Kind.STRUCTURE


def narrowed(value: Value, narrowing: Narrowing) -> Value:
    """`value` where `narrowing` holds: a number keeps only what a Python scalar can hold; a value
    that is no tensor keeps what is not a tensor (a number read from data stays one); a tensor
    keeps only its tensor kinds, where the value may be one at all (the branch may never run)."""
    if narrowing is Narrowing.PYTHON_NUMBER:
        return python_part(value)
    if narrowing is Narrowing.NOT_A_TENSOR:
        kind = value.kind & ~_TENSOR_ITSELF
        return Value(kind, value.origin) if kind else NOTHING
    if not is_tensor_like(value):
        return value
    return Value(value.kind & (Kind.TENSOR | Kind.MASK | Kind.DD_TENSOR), value.origin)


Facts = dict[str, Narrowing]


def _isinstance_facts(
    test: cst.BaseExpression, written_as: Callable[[cst.BaseExpression], cst.BaseExpression | None]
) -> tuple[Facts, Facts]:
    """What `test` says of names where it holds and where it fails: `isinstance(n, (int, float))`
    holds for a Python number, `isinstance(t, torch.Tensor)` (or `torch.is_tensor(t)`) for a
    tensor and fails for anything else; `not` swaps them, both sides of an `and` hold together,
    both sides of an `or` fail together. `written_as` gives what a flag or a helper's call stands for."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        holds, fails = _isinstance_facts(test.expression, written_as)
        return fails, holds
    if isinstance(test, cst.BooleanOperation):
        left, right = _isinstance_facts(test.left, written_as), _isinstance_facts(test.right, written_as)
        if isinstance(test.operator, cst.And):
            return {**right[0], **left[0]}, {}
        return {}, {**right[1], **left[1]}
    called = dotted(test.func) if isinstance(test, cst.Call) else None
    if called not in ("isinstance", "torch.is_tensor"):
        spelled = written_as(test) if isinstance(test, (cst.Name, cst.Call)) else None
        return _isinstance_facts(spelled, lambda _: None) if spelled is not None else ({}, {})
    if not isinstance(test, cst.Call) or len(test.args) not in (1, 2) or not isinstance(test.args[0].value, cst.Name):
        return {}, {}
    name = test.args[0].value.value
    if called == "torch.is_tensor" and len(test.args) == 1:
        return {name: Narrowing.TENSOR}, {name: Narrowing.NOT_A_TENSOR}
    if called != "isinstance" or len(test.args) != 2:
        return {}, {}
    types = test.args[1].value
    named = {dotted(e.value) for e in types.elements} if isinstance(types, cst.Tuple) else {dotted(types)}
    if None in named or not named:
        return {}, {}
    if named <= _PYTHON_TYPES:
        return {name: Narrowing.PYTHON_NUMBER}, {}
    if named <= _PYTHON_TYPES | _CONTAINER_TYPES:
        return {name: Narrowing.NOT_A_TENSOR}, {}
    if named <= _TENSOR_TYPES:
        return {name: Narrowing.TENSOR}, {name: Narrowing.NOT_A_TENSOR}
    if named & _TENSOR_TYPES:  # `isinstance(r, (torch.Tensor, int))`: failing it, r is neither
        return {}, {name: Narrowing.NOT_A_TENSOR}
    return {}, {}


def _reads_before_rebinding(region: Iterable[cst.CSTNode], name: str, narrowing: Narrowing) -> Iterator[cst.Name]:
    """The reads of `name` in `region` (statements in order, or expressions) before it is bound
    again; where it is no tensor, only its reads as a value itself (`n > 0`, `m = n`), not as a
    container whose items may be tensors (`n[0]`, `n.mask`, `for t in n`, `torch.cat(n)`)."""
    for part in region:
        binds = name in _bound_names(part)
        if binds and not isinstance(part, (cst.BaseSmallStatement, cst.BaseExpression)):
            return  # a loop or a branch binding it: a later pass may read the new value
        if narrowing is Narrowing.NOT_A_TENSOR:
            yield from _reads_as_a_value(part, name)
        else:
            yield from (n for n in iter_nodes(part) if type(n) is cst.Name and n.value == name)  # type: ignore[misc]
        if binds:
            return  # the value is read before the name is bound again


#: calls that read their argument as a Python value (`int(n)`), not as a container
_PYTHON_CONVERSIONS = frozenset({"int", "float", "bool", "round", "abs"})


def _reads_as_a_value(node: cst.CSTNode, name: str) -> Iterator[cst.Name]:
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, as_container = stack.pop()
        current_type = type(current)
        if current_type is cst.Name:
            if not as_container and current.value == name:  # type: ignore[attr-defined]
                yield current  # type: ignore[misc]
            continue
        if current_type in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        held: set[int] = set()
        if current_type in (cst.Subscript, cst.Attribute, cst.StarredElement, cst.Element, cst.DictElement,
                            cst.Return, cst.Yield, cst.For, cst.CompFor):
            held.add(id(getattr(current, "iter", None) or current.value))  # type: ignore[attr-defined]
        elif current_type is cst.Call and dotted(current.func) not in _PYTHON_CONVERSIONS:  # type: ignore[attr-defined]
            held.update(id(arg) for arg in current.args)  # type: ignore[attr-defined]
        elif current_type is cst.Arg and as_container:
            held.add(id(current.value))  # type: ignore[attr-defined]
        stack.extend((kid, id(kid) in held) for kid in children(current))


def _always_leaves(body: cst.BaseSuite) -> bool:
    """The block ends in `return`, `raise`, `continue` or `break`: what follows it in its own
    block never runs after it."""
    if type(body) is cst.SimpleStatementSuite:
        last = body.body[-1] if body.body else None
    else:
        line = body.body[-1] if body.body else None
        last = line.body[-1] if type(line) is cst.SimpleStatementLine and line.body else None  # type: ignore[union-attr]
    return type(last) in (cst.Return, cst.Raise, cst.Continue, cst.Break)


def _in_order(block: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """A block's statements in order, each small statement of a line on its own."""
    return _flattened(block.body)


def _flattened(statements: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """`statements` in order, each small statement of a line on its own."""
    for statement in statements:
        if type(statement) is cst.SimpleStatementLine:
            yield from statement.body
        else:
            yield statement


def _bound_names(statement: cst.CSTNode) -> set[str]:
    """The names a statement binds anywhere in it (assignments, loops, `with ... as`, walrus,
    imports, nested `def` and `class`)."""
    out: set[str] = set()
    for node in iter_nodes(statement):
        node_type = type(node)
        if node_type is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                out.update(_target_names(target.target))
        elif node_type in _OTHER_BINDINGS:
            out.update(_target_names(node.name if node_type is cst.AsName else node.target))  # type: ignore[attr-defined]
        elif node_type is cst.ImportAlias and node.asname is None:  # type: ignore[attr-defined]
            out.add((dotted(node.name) or "").split(".")[0])  # type: ignore[attr-defined]
        elif node_type in (cst.FunctionDef, cst.ClassDef) and node is not statement:
            out.add(node.name.value)  # type: ignore[attr-defined]
    return out


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _first_argument(param: cst.Param, func: cst.FunctionDef) -> bool:
    """The first parameter after `self`."""
    params = [p for p in all_params(func.params) if p.name.value not in ("self", "cls")]
    return bool(params) and params[0] is param


_PYTHON_ANNOTATIONS = frozenset({"bool", "int", "float", "str"})
#: `tuple[int, int]`, `int | None`, `Optional[list[int]]`: Python values all through
_PYTHON_ANNOTATION_PARTS = _PYTHON_ANNOTATIONS | {
    "None", "tuple", "Tuple", "list", "List", "Optional", "Union", "typing", "Sequence", "Literal",
}
_ANNOTATION_NAMES = re.compile(r"[A-Za-z_]\w*")
_CONTAINER_OR_SCALAR_ANNOTATIONS = frozenset(
    {"int", "bool", "float", "str", "list", "List", "tuple", "Tuple", "dict", "Dict", "Sequence"}
)


def annotation_names(annotation: cst.Annotation) -> frozenset[str]:
    """Every name an annotation spells (`Optional[torch.FloatTensor]`: Optional, torch,
    FloatTensor), string annotations included; read from the tree, not rendered to text."""
    return _ANNOTATIONS(annotation)


def _annotation_names(annotation: cst.Annotation) -> frozenset[str]:
    names: set[str] = set()
    for node in iter_nodes(annotation.annotation):
        node_type = type(node)
        if node_type is cst.Name:
            names.add(node.value)  # type: ignore[attr-defined]
        elif node_type is cst.Attribute:
            names.add(node.attr.value)  # type: ignore[attr-defined]
        elif node_type is cst.SimpleString:
            names.update(_ANNOTATION_NAMES.findall(node.value[1:-1]))  # type: ignore[attr-defined]
    return frozenset(names)


_ANNOTATIONS: PerStatement[frozenset[str]] = PerStatement(_annotation_names)  # type: ignore[arg-type]


def declares_tensor(annotation: cst.Annotation) -> bool:
    """`torch.Tensor`, `Optional[torch.FloatTensor]`: a tensor (a subclass's extra attributes are
    its metadata, `BoundingBoxes.format`), never a structure holding tensors."""
    names = annotation_names(annotation)
    tensors = {name for name in names if name.endswith("Tensor")}
    return bool(tensors) and names - tensors <= _TENSOR_ANNOTATION_PARTS


_TENSOR_ANNOTATION_PARTS = frozenset({"torch", "typing", "Optional", "Union", "None"})


def _as_declared(params: dict[str, Value], func: cst.FunctionDef) -> dict[str, Value]:
    """An argument of a parameter declared a tensor is no structure, whatever a call site passes
    (`convert(inpt: torch.Tensor, ...)` given what `tv_tensors.wrap(...)` returns)."""
    declared = [
        param.name.value for param in all_params(func.params)
        if param.annotation is not None and params.get(param.name.value, NOTHING).has(Kind.STRUCTURE)
        and declares_tensor(param.annotation)
    ]
    if not declared:
        return params
    out = dict(params)
    for name in declared:
        out[name] = Value(out[name].kind & ~Kind.STRUCTURE, out[name].origin)
    return out


def python_scalar_param(param: cst.Param) -> bool:
    """Declared a Python scalar: annotated `bool`/`int`/`float`/`str`, or defaulting to a literal
    (`output_attentions: torch.Tensor | None = False` is a flag, whatever its annotation says)."""
    annotation = param.annotation
    if annotation is not None:
        names = annotation_names(annotation)
        if names and names <= _PYTHON_ANNOTATION_PARTS and names & _PYTHON_ANNOTATIONS:
            return True
    default = param.default
    if type(default) is cst.Name:  # exact types: ABC isinstance is slow, and this runs per call site
        return default.value in ("True", "False")
    return type(default) in (cst.Integer, cst.Float, cst.SimpleString)


_USES: PerStatement[tuple[frozenset[str], frozenset[str]]] = PerStatement()
#: FunctionFlow._definitions per function
_DEFINED: PerStatement[dict[str, list[cst.BaseExpression | None]]] = PerStatement()
_CONTAINER_USES = frozenset({"items", "keys", "values", "get", "append", "extend", "pop", "update", "setdefault"})


def _uses(
    func: cst.FunctionDef, nodes: Sequence[tuple[cst.CSTNode, object]] | None = None
) -> tuple[frozenset[str], frozenset[str]]:
    """Names `func` uses the way only tensors are used (`mask.sum()`, `bias.shape`), and the
    way dicts and lists are (`outputs.items()`, `seen.append(...)`, `cfg["key"]`): one walk per
    function."""
    cached = _USES.get(func)
    if cached is not None:
        return cached
    tensors: set[str] = set()
    containers: set[str] = set()
    walked = (n for n, _ in nodes) if nodes is not None else body_nodes(func.body)
    for node in walked:
        if type(node) is cst.Attribute and isinstance(node.value, cst.Name):  # type: ignore[attr-defined]
            if node.attr.value in TENSOR_USES:  # type: ignore[attr-defined]
                tensors.add(node.value.value)  # type: ignore[attr-defined]
            elif node.attr.value in _CONTAINER_USES:  # type: ignore[attr-defined]
                containers.add(node.value.value)  # type: ignore[attr-defined]
        elif type(node) is cst.Subscript and isinstance(node.value, cst.Name):  # type: ignore[attr-defined]
            # `layout_cfg["total_frames"]`: a dict read by key
            elements = node.slice  # type: ignore[attr-defined]
            if len(elements) == 1 and isinstance(elements[0].slice, cst.Index) and isinstance(
                elements[0].slice.value, (cst.SimpleString, cst.ConcatenatedString)
            ):
                containers.add(node.value.value)  # type: ignore[attr-defined]
    return _USES.put(func, (frozenset(tensors), frozenset(containers)))


def _used_as_tensors(func: cst.FunctionDef) -> frozenset[str]:
    return _uses(func)[0]
