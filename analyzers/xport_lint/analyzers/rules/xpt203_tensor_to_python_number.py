from __future__ import annotations

import string
from collections.abc import Callable

import libcst as cst

from ..dataflow import FunctionFlow, Kind, Value, is_tensor_like
from ..dtypes import DType
from ..model import Applicability, Mode, Severity
from ..names import dotted
from ..positions import code_of
from ..reach import Traced
from ..report import BlockReplacement, FixProposal
from ..rewrites import scope_names
from ..rewrites.common import parent_block, receiver
from ..rewrites.predicates import TENSOR_MATH, data_bindings, read_list_source, tensor_value
from ..rewrites.state import entries_as_locals, identity_conversion_dropped
from ..rule import Invalid, Rule, TorchError, Valid
from ..syntax import argument
from ..walk import iter_nodes
from ._conditions import short
from ._fallbacks import caught_fallback
from ._guards import eager_only
from ._text import percent_operands

#: the conversions that need a number (`%s`, `%r`, `%a` show the symbol, and export non-strict)
_NUMERIC = frozenset("diouxXeEfFgGc")
_BOTH = frozenset(Mode)
#: a Python function of a number read from tensor data: the modes in which torch 2.13's export
#: fails on it (measured; a function not listed exports in both: `math.floor`, `math.ceil`,
#: `math.trunc`, `round`, `abs`, `**`). Non-strict export guards on the symbol where the function
#: needs a concrete float; strict export (Dynamo) traces some of them into symbolic math
#: (`math.sqrt`, `min`/`max`) and fails on others, `math.pow` among them, or exports a graph
#: torch refuses (`math.sin`: a `_sym_sin` node).
_NUMBER_FUNCTIONS: dict[str, frozenset[Mode]] = {
    "math.log": _BOTH, "math.log10": _BOTH, "math.log2": _BOTH, "math.log1p": _BOTH,
    "math.exp": _BOTH, "math.expm1": _BOTH, "math.fabs": _BOTH, "math.fmod": _BOTH,
    "math.hypot": _BOTH, "math.atan2": _BOTH, "math.copysign": _BOTH,
    "math.isnan": _BOTH, "math.isfinite": _BOTH,
    "math.sin": _BOTH, "math.cos": _BOTH, "math.tanh": _BOTH, "math.atan": _BOTH,
    "math.sqrt": frozenset({Mode.NON_STRICT}),
    "min": frozenset({Mode.NON_STRICT}), "max": frozenset({Mode.NON_STRICT}),
    "math.pow": frozenset({Mode.STRICT}),
}


#: arithmetic whose result is a tensor when one side is
_TENSOR_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)

#: Python's rounding of a number, and the tensor method that rounds the same way
#: (only `floor` fails: measured on torch 2.13, `math.ceil`/`math.trunc` of the same number export)
_ROUNDING = {"math.floor": "floor"}

#: torch functions and tensor methods that take a number read from data as a size and export
#: with the symbol, equal to eager (measured on torch 2.13: arange, zeros, view, interpolate's
#: `size`, `narrow`'s length, `repeat_interleave` by a number)
_SIZING = frozenset({
    "arange", "zeros", "ones", "empty", "full", "new_zeros", "new_ones", "new_empty", "new_full", "view",
    "reshape", "interpolate", "narrow", "repeat_interleave", "expand", "repeat", "unflatten",
})
#: ops that take a list of sizes, but a single number as something else: `x.split([n, m])` takes
#: sections read from data as symbols (measured on torch 2.13, both modes), `x.split(n)` makes a
#: number of pieces that depends on the data
_SIZED_BY_LIST = frozenset({"split"})
#: the checks export records as a range of the symbol they test (measured on torch 2.13: `k = n.item()`,
#: `torch._check(k <= 8)`, then `x.new_zeros(k)` exports in both modes and equals eager)
_CHECKS = frozenset({"torch._check", "torch._check_is_size"})
#: integer arithmetic on a number carried as a symbol stays carried (`k + 1`, `x.shape[0] - k`)
_CARRYING_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)
#: `F.interpolate`/`F.upsample`: its `scale_factor` (the third positional argument) must be a
#: concrete float (measured on torch 2.13: a number read from data fails both modes, "argument
#: 'scale_factors' must be tuple of floats, but found element of type SymFloat" non-strict,
#: "TypeError when making fake tensor call" strict); `size` is carried as a symbol
_RESAMPLING = frozenset({"torch.nn.functional.interpolate", "torch.nn.functional.upsample"})
#: reductions of a whole tensor (no `dim`): their result is 0-dim, whatever the input's rank
_WHOLE_REDUCTIONS = frozenset({"argmax", "argmin", "sum", "max", "min", "amax", "amin", "prod", "count_nonzero"})


class TensorToPythonNumber(Rule):
    """A tensor made a Python number: `int(t)`, `float(t)`, `bool(t)`, `len()`, `f"{t.item():.3f}"`.

    `len()` of a tensor whose size depends on data; `f"{...:.3f}"` or `"%.3f" % ...` of a tensor
    or of a number read from one.

    ## What it does
    Flags Python number conversions of tensors in traced code, number formatting (a format
    spec in an f-string, `"%.3f" % value`) of tensors and of numbers read from them, and the
    Python `math` functions (and `min`/`max` against another number) of a number read from a
    tensor that torch cannot carry as a symbol, per mode; and such a number given to
    `F.interpolate` as its `scale_factor`. Also `torch.as_tensor` of a number or list read from
    data, (strict) `.tolist()` of a tensor known not to hold integers, and (non-strict) such a number
    handed to a function of the file cached with `functools.lru_cache` / `functools.cache`. A list
    read from data used whole as an index (`x[t.tolist()]`, `x[[s[0], s[1]]]`), and a number read
    from data given to `F.one_hot` as `num_classes`, in both modes.

    ## Why it fails torch.export
    Non-strict export runs these conversions on fake tensors through `__torch_function__`, which
    must specialise the value to a concrete Python number, and there is none: it raises
    `GuardOnDataDependentSymNode` ("Could not extract specialized integer"). `t.item()` gives the
    same number as an unbacked symbol that export can carry through arithmetic and sizes, but
    not convert (`int(s.item())`, `float(v.item())`: "Could not extract specialized integer",
    a guard on data; measured on torch 2.13, `F.interpolate(x, size=int(s.item()))` among them)
    nor format as a number: `f"{loss.item():.3f}"`, `"{:.3f}".format(v)` and `"%.3f" % v` fail
    (`TypeError` on a tensor, a guard on data for the symbol); `f"{v}"`, `"%s" % v` and
    `print(v)` show the symbol and export. Strict export (Dynamo) converts `int(t)` and format
    specs itself, but not `%`-formatting: any `"..." % v` of a tensor or of a number read from
    one fails there ("Observed exception", or a guard on data).
    `math` of `v.item()` differs by function and mode (measured on torch 2.13): `math.log`,
    `math.exp`, `math.fabs` and most others fail in both modes (a guard on data; strict export
    makes `math.sin`, `math.cos`, `math.tanh` and `math.atan` symbolic nodes the exported
    program refuses); `math.sqrt` and `min`/`max(v.item(), 1.0)` fail only non-strict;
    `math.pow` only strict; `math.floor`, `math.ceil`, `math.trunc`, `round`, `abs` and `**`
    export in both. A `math` function given the tensor itself converts it to a float first
    (`math.exp(x.mean())`: fails in both modes, measured); torch's own op on the tensor is the fix
    where the result is an operand of tensor arithmetic. `F.interpolate(x, scale_factor=s.item())` fails in both modes, converted or
    not: the resampling kernel takes concrete floats only ("must be tuple of floats, but found
    element of type SymFloat"; strict: "TypeError when making fake tensor call"), while
    `size=n.item()` is carried as a symbol and exports. `x.unflatten(1, (k, -1))` with `k` read
    from data fails in both modes: unflatten infers the `-1` by dividing by the symbol ("unflatten
    got an unexpected error"; strict: "RuntimeError when making fake tensor call").
    `torch.as_tensor(v.item())` and `torch.as_tensor(t.tolist())` fail in both modes, whatever the
    dtype (as_tensor asks the number's concrete value: a guard on data), where `torch.tensor(...)`
    of the same read exports in both (measured on torch 2.13). Strict export refuses `.tolist()`
    of a tensor that does not hold integers ("Tensor.tolist() with non-integer tensor": floating
    point or booleans, a float buffer too) and takes it of integers; the dtype is read from the
    code that makes the tensor (a cast, the op, a factory, the export's example input, a buffer or
    parameter `__init__` keeps, a helper's parameter where every call of the file passes one
    dtype), and where it does not say, no error is claimed. A function cached
    with `functools.lru_cache` hashes its arguments: a number read from data fails non-strict
    export there ("unhashable type: non-nested SymInt", or a guard on a float), while strict export
    exports some such calls and fails others (measured on torch 2.13), so only non-strict is claimed.

    ## Example
    ```python
    scale = float(x.abs().max())
    ```

    ## Use instead
    ```python
    scale = x.abs().max().item()
    ```

    ## Fix safety
    Unsafe: `int(n.item())` or `float(...)` of `n.item()` or `n.tolist()[k]` (written there,
    or bound once to a name) becomes the number itself, where it is used only as the size of a
    tensor made or viewed (`arange`, `zeros`/`ones`/`empty`/`full` and their `new_` forms,
    `view`/`reshape`, `interpolate`'s `size`, `narrow`, `repeat_interleave`, `expand`, `repeat`,
    `unflatten`, the sections of `split([k, n - k])`), through integer arithmetic (`k + 1`), in
    `torch._check`/`torch._check_is_size` (a range export records), as a tensor's index or slice bound,
    or handed positionally to a one-line helper of the file that uses it once in such a position, converted once or more (`int(float(n.item()))`): export carries it
    as a symbol there (measured on torch 2.13: `torch.arange(n)`, `x[:, :n]`,
    `x.view(n, -1)`, `F.interpolate(x, size=n)` export in both modes and equal eager; an op
    whose output size it sets for later code, `logits.topk(k.item())`, exports but fails at
    run time, so it gets none; `x.split(k)` makes a number of pieces, XPT205). An `unflatten`
    that infers its `-1` from such a number gets the size written out (`x.shape[1] // k`,
    measured to export in both modes and equal eager; it raises where eager raises). It
    assumes the tensor holds integers (`float()`: floating point), so the conversion changed
    nothing. `len(t)` of a tensor whose length is data, used only there, becomes `t.shape[0]`
    (safe: the same number, carried as a symbol; measured on torch 2.13, `torch.zeros(len(u), 3)`
    fails non-strict where `torch.zeros(u.shape[0], 3)` exports in both modes and equals eager).
    Elsewhere (a branch, `range()`, a repeated list) no fix: the number would fail
    there instead. `int(t)` of a tensor used only there (`longest = int(lengths.max())`, then
    `tokens[:, :longest]`) becomes `t.item()` on the same assumption, and so does one a helper returns
    where every traced call of it in the file is used only there (`return int((t > 0).sum())`, then
    `torch.zeros(_count(x), 2)`; measured on torch 2.13: exports in both modes and equals eager). Kept in an entry of a dict or
    list literal read only entry by entry (`cfg = {"pad": int(extra.item())}`, then `cfg["pad"]`),
    each entry first becomes a local name (the same values), a step offered only where the fixes after it
    then fix the size (measured on torch 2.13: `x.repeat(cfg["reps"])` so fixed exports and
    equals eager).
    `math.floor` of a number read from data, used as a size of such an op (it gives export a float
    where the op needs an int: both modes fail on torch 2.13, where `math.ceil`, `math.trunc` and a
    slice bound export), becomes torch's rounding of the tensor read as an int,
    `s.floor().int().item()` (measured: exports in both modes and equals eager; it assumes the size
    fits in int32).
    `int()` of such a function of a number read from data, used only as a size or an index
    (`side = int(math.sqrt(n.sum().item()))`), becomes torch's op on the tensor truncated there,
    `torch.sqrt(n.sum()).int().item()` (measured: exports in both modes and equals eager; it
    assumes an int32 result not within float32 rounding of an integer).
    A function of `math` of a number read from data (`math.sqrt`, `log`, `exp`, `tanh`, ...) whose
    result is an operand of arithmetic with a tensor, `x / math.sqrt(v.sum().item())`, becomes
    torch's op of the same name on the tensor, `x / torch.sqrt(v.sum())` (measured on torch 2.13:
    exports in both modes and equals eager up to the rounding of float32 where Python computed in
    float64); elsewhere the number may be a size or a test, and no fix is offered.
    `s.index(max(s))` (or `min`) of `s = t.tolist()` read only there becomes `t.argmax().item()`
    (`argmin`), the first index of the largest as `list.index` finds it, and the list goes (strict
    export refuses `.tolist()` of floats); it assumes `t` is 1-d (measured on torch 2.13: indexing
    with the read index exports in both modes and equals eager).
    A print, warning or logging call that formats the number goes under
    `if not torch.compiler.is_exporting():` (safe: eager prints as before; measured to export in
    both modes). `float(t)` becomes `t.item()`, unsafe: `int(t)` truncates a floating-point tensor while `t.item()` returns a float, and
    `bool(t)` becomes a number instead of a bool; equal for tensors of the target dtype.
    `torch.as_tensor` of a read becomes `torch.tensor` (safe: the same new tensor of a Python number
    or list; measured to export non-strict and equal eager).
    `float(t.item())` (bound once) whose number only meets arithmetic with a tensor becomes `t`
    itself (`logits / t`: a 0-d tensor broadcasts; unsafe, it assumes `t` floating point, whose
    0-d tensor leaves the other operand's dtype; measured to export in both modes, equal to eager).
    `int(float(t))` becomes `t.long().item()`: the same truncation, carried as a symbol.

    ## Modes
    Error in non-strict export. In strict export, an error only for `%`-formatting (any
    conversion, `%s` included), a `scale_factor` read from data, an `unflatten` inferring a size
    from a number read from data, `math.floor` of a number read from data used as a size,
    `.index()`/`.count()` of a list read from data, a 0-dim tensor read from
    data used as an index (`x[s.argmax()]`: strict export converts it to a Python int, which
    non-strict export does not; a whole-tensor reduction is the 0-dim tensor recognised), and a
    number read from data as one of several indices (`x[:, k.item()]`: IndexError, measured on
    torch 2.13, where `x[k.item()]` alone, a slice bound and `x.select(1, k.item())` export),
    `.tolist()` of a tensor known to hold floating point or booleans; the
    other conversions export there, except `int()` of a boolean tensor (`int(x.sum() > 0)`), which
    guards on the symbolic bool (measured; fix `.long().item()` where the number is a size, index or
    slice bound). An error in both modes for `torch.as_tensor` of a read, and
    for `F.one_hot(labels)` without
    `num_classes` (or with -1), which reads its class count from the data (measured on torch 2.13;
    a count written out exports). The `math` functions are
    reported in the modes where they fail (above); torch's own ops (`v.log()`, `torch.sqrt`)
    work on the tensor in both. `min`/`max` of an integer read (`.item()` of `argmax`,
    `count_nonzero`, `bincount`, `.long()`, a boolean mask's `sum()`) against a number written out
    export in both modes (measured on torch 2.13) and are not reported.
    """

    CODE = "XPT203"
    NAME = "tensor-to-python-number"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "GuardOnDataDependentSymNode (specialized integer)"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("TypeError", "unhashable type: non-nested SymInt"), TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"), TorchError("GuardOnDataDependentSymNode", "Could not extract specialized integer from data-dependent expression"), TorchError("TypeError", "unsupported format string passed to"), TorchError("TypeError", "must be tuple of floats"), TorchError("RuntimeError", "unflatten got an unexpected error"), TorchError("TypeError", "must be real number"),),
        Mode.STRICT: (
            TorchError("Unsupported", "Observed exception"),
            TorchError("Unsupported", "torch.* op returned non-Tensor"),
            TorchError("UserError", "Could not guard on data-dependent expression"),
            TorchError("UserError", "Could not extract specialized integer from data-dependent expression"),
            TorchError("SpecViolationError", "is not an allowed operator type"),
            TorchError("Unsupported", "TypeError when making fake tensor call"),
            TorchError("TorchRuntimeError", "RuntimeError when making fake tensor call"),
            TorchError("TypeError", "must be real number"),
            TorchError("UserError", "Could not guard on data-dependent expression"),
            TorchError("IndexError", "are valid indices (got SymInt)"),
            TorchError("Unsupported", "with data-dependent output shape"),
            TorchError("Unsupported", "Tensor.tolist() with non-integer tensor"),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        self._scale_from_data(node)
        self._class_count_from_data(node)
        self._unflatten_by_data(node)
        if self._tensor_of_read(node) or self._non_integer_list(node) or self._cached_by_read(node):
            return
        if self._list_search(node):
            return
        if self._format_method(node) or self._number_function(node):
            return
        name = dotted(node.func)
        if name == "int" and self.ctx.mode is Mode.STRICT:
            self._int_of_bool(node)
        if name not in ("int", "float", "bool", "len") or len(node.args) != 1 or self.ctx.mode is Mode.STRICT:
            return
        if self.ctx.resolve(node.func) is not None:
            return  # shadowed by an import
        arg = node.args[0].value
        value = self.ctx.value(arg)
        if name == "len":
            if value.has(Kind.DD_TENSOR):
                # `len(t)` used only as a size, a slice bound or a lone index: `t.shape[0]` is the same
                # number carried as a symbol (measured on torch 2.13: `torch.zeros(len(u), 3)` fails
                # non-strict, `torch.zeros(u.shape[0], 3)` exports in both modes)
                fix = None
                if caught_fallback(self.ctx, node) is None and self._carried(node):
                    size = cst.parse_expression(f"{code_of(arg.with_changes(lpar=[], rpar=[]))}.shape[0]")
                    fix = FixProposal("Use `.shape[0]`: the size is carried as a symbol", Applicability.SAFE,
                                      ((node, size),))
                self.report(node, f"`{short(node)}` reads a size that depends on tensor data", fix=fix)
            return
        if name in ("int", "float") and _read_number(value):
            # `int(s.item())`: the symbol export carries has no concrete value to convert to
            caught = caught_fallback(self.ctx, node)
            message = f"`{short(node)}` converts a number read from tensor data: non-strict export has no concrete value for it"
            fix = None
            read = _unconverted(arg)
            if id(node) in self.ctx.shared.get("rounded_reads", ()):  # type: ignore[operator]
                self.report(node, message + " (fixed with the rounding around it)")
                return
            truncated_read = _truncated_read(arg, read, is_tensor_like(self.ctx.value(read))) if name == "int" else None
            if not caught and truncated_read is not None and self._carried(node):
                # `int(float(t.item()))` truncates what may be a float: `t.long().item()` truncates the same way
                fix = FixProposal("Read it truncated to an integer: `.long().item()` is carried as a symbol",
                                  Applicability.UNSAFE, ((node, truncated_read),))
            elif not caught and self._read_directly(read) and self._carried(node):
                dtype = "an integer" if name == "int" else "a floating-point"
                fix = FixProposal(f"Drop `{name}()`: the number read is carried as a symbol (assumes {dtype} tensor)",
                                  Applicability.UNSAFE, ((node, read.with_changes(lpar=[], rpar=[])),))
            elif not caught and name == "int" and (truncated := self._truncated_math(node, read)) is not None:
                fix = truncated
            elif not caught and name == "float" and (operand := self._read_as_operand(node, read)) is not None:
                fix = operand
            elif not caught and (step := self._entries_step(node)) is not None:
                fix = step
            elif not caught and self.ctx.flow is not None and self.ctx.traced is not None and (
                step := identity_conversion_dropped(self.ctx.flow, self.ctx.traced.func, node)
            ) is not None:
                fix = step
            elif not caught:
                message += (" (no automatic fix: the number is used where export needs a concrete value, not "
                            "only as a size, a slice bound or a lone index)" if self._read_directly(read) else
                            " (no automatic fix: what it converts is computed from the number, not the number read)")
            self.report(node, message + (f" ({caught.reason})" if caught else ""),
                        severity=caught.severity if caught else None, fix=fix)
            return
        if name in ("int", "float") and value.has(Kind.DD_SIZE) and not is_tensor_like(value):
            self._data_size_converted(node, name, arg)
            return
        if not is_tensor_like(value) or self._constant(arg):
            return  # not a tensor, or one made from Python numbers: a constant of the export
        fix = None
        if name == "bool" and self._only_asserted(node):
            # `ok = bool(t)`, then only `assert ok`: the tensor is asserted instead, which XPT103's
            # fix makes `torch._assert_async(ok, ...)`
            fix = FixProposal("Drop `bool()`: the name is only asserted (then see XPT103)", Applicability.UNSAFE,
                              ((node, arg.with_changes(lpar=[], rpar=[])),))
        elif name == "int" and self._asserted_integer(node):
            fix = FixProposal("Use `.item()` (the tensor holds integers): the assert compares the number export"
                              " carries", Applicability.UNSAFE, ((node, _item_of(arg)),))
        elif name == "int" and self._carried(node):
            # `longest = int(lengths.max())` read only as a size or a slice bound
            fix = self._long_item(node) or FixProposal(
                "Use `.item()` (assumes an integer tensor)", Applicability.UNSAFE, ((node, _item_of(arg)),)
            )
        elif name == "float" and (tested := self._tested(node)) is not None:
            # `.item()` would carry the number as a symbol, which the test then fails on instead
            self.report(node, f"`{short(node)}` turns a tensor into a Python number (no automatic fix: the number"
                        f" is tested by `{tested}`, which fails on the number `.item()` would read as well)")
            return
        elif name == "float" and self._returned_in_a_dict(node):
            self.report(node, f"`{short(node)}` turns a tensor into a Python number (no automatic fix: the number is"
                        " returned in a dict, whose entries are not followed to where they are tested)")
            return
        elif name == "float":
            fix = FixProposal("Use `.item()` (assumes a floating-point tensor)", Applicability.UNSAFE,
                              ((node, _item_of(arg)),))
        message = f"`{short(node)}` turns a tensor into a Python number"
        rounded = id(node) in self.ctx.shared.get("rounded_reads", ())  # type: ignore[operator]
        if rounded:
            # `.item()` alone would hand the rounding a float proxy, which fails the same way
            fix, message = None, message + " (fixed with the rounding around it)"
        caught = caught_fallback(self.ctx, node)
        if caught is not None:
            # measured on torch 2.13: `try: n = int((x > 0).sum())` / `except RuntimeError:` exports
            self.report(node, f"{message} ({caught.reason})", severity=caught.severity)
            return
        if fix is None and not rounded:
            fix = self._entries_step(node)
        if fix is None and not rounded:
            # `.item()` would read the same number as a symbol, which fails where this one is used
            message += (" (no automatic fix: the number is used where export needs a concrete value, not only as a"
                        " size, a slice bound or a lone index; keep the tensor there)")
        self.report(node, message, fix=fix)

    def _int_of_bool(self, node: cst.Call) -> None:
        """`int(x.sum() > 0)` in strict mode: Dynamo reads the boolean tensor as a symbolic bool and
        `int()` of it guards on its value (measured on torch 2.13: `Could not guard on data-dependent
        expression Eq(u0, 1)`, even where the number is never used; `float()` of it, `.item()` of
        it and `int()` of an integer tensor export)."""
        if len(node.args) != 1 or node.args[0].star or node.args[0].keyword or self.ctx.resolve(node.func):
            return
        arg = node.args[0].value
        if not is_tensor_like(self.ctx.value(arg)) or self._constant(arg) or self.ctx.dtypes().of(arg) is not DType.BOOL:
            return
        caught = caught_fallback(self.ctx, node)
        fix = self._long_item(node) if caught is None and self._carried(node) else None
        self.report(node, f"`{short(node)}` turns a boolean tensor into a Python int: strict export reads it as a "
                    "symbolic bool and `int()` guards on its value" + (f" ({caught.reason})" if caught else ""),
                    severity=caught.severity if caught else None, fix=fix)

    def _long_item(self, node: cst.Call) -> FixProposal | None:
        """`int(b)` of a boolean tensor as `b.long().item()`: the same 0 or 1, read as a symbolic int
        (measured on torch 2.13: exports in both modes where the number is a size, index or slice
        bound). None where the tensor is not known to hold booleans."""
        arg = node.args[0].value
        if self.ctx.dtypes().of(arg) is not DType.BOOL:
            return None
        long = cst.Call(cst.Attribute(_item_of(arg).func.value, cst.Name("long")))  # type: ignore[attr-defined]
        return FixProposal("Use `.long().item()`: the same 0 or 1, read as an integer", Applicability.SAFE,
                           ((node, _item_of(long)),))

    def _entries_step(self, node: cst.Call) -> FixProposal | None:
        """`cfg = {"pad": int(extra.item())}` (or a list literal) whose entries are read only one by
        one: the step that keeps each entry in a local name (rewrites.state.entries_as_locals), which
        the size rewrites then fix; the runner offers it only where they do."""
        statement, flow, traced = self.ctx.statement, self.ctx.flow, self.ctx.traced
        if not (
            isinstance(statement, cst.Assign) and len(statement.targets) == 1 and flow is not None
            and traced is not None and isinstance(statement.targets[0].target, cst.Name)
            and isinstance(statement.value, (cst.Dict, cst.List))
            and any(element.value is node for element in statement.value.elements)  # type: ignore[union-attr]
        ):
            return None
        return entries_as_locals(flow, traced.func, statement.targets[0].target.value)

    def _only_asserted(self, node: cst.Call) -> bool:
        """`node` is the whole value of `ok = bool(t)`, `ok` bound only there, and every other
        read of `ok` in the traced function is the whole test of an `assert`."""
        flow, traced = self.ctx.flow, self.ctx.traced
        if flow is None or traced is None:
            return False
        func = traced.func
        target = next((n for n in iter_nodes(func.body) if type(n) is cst.Assign and n.value is node), None)
        if target is None or len(target.targets) != 1 or not isinstance(target.targets[0].target, cst.Name):
            return False
        name = target.targets[0].target.value
        if flow.bound_once(name) is not node:
            return False
        reads = [n for n in iter_nodes(func.body) if type(n) is cst.Name and n.value == name]
        asserted = [n for n in iter_nodes(func.body) if type(n) is cst.Assert and isinstance(n.test, cst.Name)
                    and n.test.value == name]
        return bool(asserted) and len(reads) == len(asserted) + 1

    def _asserted_integer(self, node: cst.Call) -> bool:
        """`assert int(torch.isnan(x).sum()) == 0`, or `bad = int(...)` bound once and read only by
        such asserts: a tensor of integers (`_integer_tensor`) compared once in an `assert` whose
        message is absent or a string literal. `.item()` reads the same int, carried as a symbol:
        with no message non-strict export keeps the assert as a runtime check, with a literal one
        XPT103's `torch._check` fix follows (measured on torch 2.13, loaded from a file: `int()`
        fails non-strict, `t.item() == 0` exports in both modes and still raises on bad data)."""
        flow, traced = self.ctx.flow, self.ctx.traced
        if flow is None or traced is None or not self._integer_tensor(node.args[0].value):
            return False
        sides = [side for n in iter_nodes(traced.func.body) if type(n) is cst.Assert
                 and (n.msg is None or isinstance(n.msg, cst.SimpleString))  # type: ignore[attr-defined]
                 and isinstance(n.test, cst.Comparison) and len(n.test.comparisons) == 1  # type: ignore[attr-defined]
                 for side in (n.test.left, n.test.comparisons[0].comparator)]  # type: ignore[attr-defined]
        if any(side is node for side in sides):
            return True
        binding = next((n for n in iter_nodes(traced.func.body) if type(n) is cst.Assign and n.value is node), None)
        if binding is None or len(binding.targets) != 1 or not isinstance(binding.targets[0].target, cst.Name):
            return False
        name = binding.targets[0].target.value
        reads = [n for n in iter_nodes(traced.func.body) if type(n) is cst.Name and n.value == name]
        asserted = [side for side in sides if type(side) is cst.Name and side.value == name]
        return flow.bound_once(name) is node and bool(asserted) and len(reads) == len(asserted) + 1

    def _tested(self, node: cst.Call) -> str | None:
        """The first `if`/`while`/conditional expression/`assert` test of the traced function
        that reads the number `node` reads from data (through names or `self.` attributes), or None."""
        if self.ctx.traced is None:
            return None
        for inner in iter_nodes(self.ctx.traced.func.body):
            if type(inner) in (cst.If, cst.While, cst.IfExp, cst.Assert):
                value = self.ctx.value(inner.test)  # type: ignore[attr-defined]
                if value.has(Kind.DATA) and value.origin is node:
                    return short(inner.test)  # type: ignore[attr-defined]
        return None

    def _returned_in_a_dict(self, node: cst.Call) -> bool:
        """Whether `node` is a value of a dict display the traced function returns (written in the
        `return`, or a name bound once to it): its callers read it by key (`stats["peak"]`), which the
        dataflow does not follow, so whether `.item()`'s number is then tested is unknown (measured on
        torch 2.13: `.item()` there, tested by the caller, fails non-strict export as `float()` did)."""
        traced, flow = self.ctx.traced, self.ctx.flow
        if traced is None or flow is None:
            return False
        for inner in iter_nodes(traced.func.body):
            returned = inner.value if isinstance(inner, cst.Return) else None
            if isinstance(returned, cst.Name):
                returned = flow.bound_once(returned.value)
            if isinstance(returned, cst.Dict) and any(
                part is node for element in returned.elements for part in iter_nodes(element.value)
            ):
                return True
        return False

    def _constant(self, expr: cst.BaseExpression) -> bool:
        """A tensor made from Python numbers (or sizes), or arithmetic of such tensors and
        numbers (`torch.tensor(x.shape[-1]) // 2`): a constant under export, as torch.tensor of
        them is (measured on torch 2.13: `int()` of it exports in both modes)."""
        flow = self.ctx.flow
        if flow is None:
            return False
        if isinstance(expr, cst.UnaryOperation):
            return self._constant(expr.expression)
        if isinstance(expr, cst.BinaryOperation):
            sides = (expr.left, expr.right)
            plain = [not is_tensor_like(v) and not v.has(Kind.DATA) for v in map(self.ctx.value, sides)]
            constant = [self._constant(side) for side in sides]
            return any(constant) and all(p or c for p, c in zip(plain, constant, strict=True))
        return flow.constant_tensor(expr)

    def _read_directly(self, arg: cst.BaseExpression, depth: int = 0) -> bool:
        """`t.item()`, `t.tolist()[k]`, or a name bound once to one: the number itself, which export
        carries as a symbol where `int()`/`float()` of it needs a concrete value (measured on torch
        2.13: `n = length.item()` then `torch.arange(n)`, `x[:, :n]`, `x.view(n, -1)` and
        `F.interpolate(x, size=n)` export in both modes). Arithmetic on it is left alone: `int()`
        of a float product truncates."""
        if isinstance(arg, cst.Subscript) and len(arg.slice) == 1 and isinstance(arg.slice[0].slice, cst.Index):
            arg = arg.value
            if not (isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute) and arg.func.attr.value == "tolist"):
                return False
        if isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute) and not arg.args:
            return arg.func.attr.value in ("item", "tolist") and is_tensor_like(self.ctx.value(arg.func.value))
        flow = self.ctx.flow
        if isinstance(arg, cst.Name) and flow is not None and depth < 4:
            bound = flow.bound_once(arg.value)
            return bound is not None and self._read_directly(bound, depth + 1)
        return False

    def _data_size_converted(self, node: cst.Call, name: str, arg: cst.BaseExpression) -> None:
        """`int(picked.numel())`, `float(idx.shape[0])` of a size the data decides (a masked
        selection's, `nonzero`'s): non-strict export has no concrete value to convert, strict export
        carries it (measured on torch 2.13, as a `view` size, a `new_zeros` size, a factor of a
        tensor, bound to a name first). `int()` of the size is the size itself, so dropping it is
        safe where the symbol is carried (a size, an index, an operand of tensor arithmetic)."""
        caught = caught_fallback(self.ctx, node)
        fix = None
        flow, traced = self.ctx.flow, self.ctx.traced
        if name == "int" and not caught and flow is not None and traced is not None and (
            self._carried(node) or self._tensor_operand(flow, list(iter_nodes(traced.func.body)), node, 0)
        ):
            fix = FixProposal("Drop `int()`: the size is an int, carried as a symbol", Applicability.SAFE,
                              ((node, arg.with_changes(lpar=[], rpar=[])),))
        self.report(node, f"`{short(node)}` converts a size that depends on tensor data: non-strict export has no"
                    " concrete value for it" + (f" ({caught.reason})" if caught else ""),
                    severity=caught.severity if caught else None, fix=fix)

    def _carried(self, node: cst.Call, sizes_only: bool = False) -> bool:
        """Whether the converted number is used only where export carries a symbol: the size of
        a tensor made or viewed (`_SIZING`), a tensor's index or slice bound; written there, or
        reaching it through names bound once (`n = int(t)`, an element of `n, _ = int(t), 0`, an
        alias `m = n`) read only there, through a one-line helper handing its argument back, or
        returned by a helper every traced call of which is so used (`return int((t > 0).sum())`,
        then `torch.zeros(_count(x), 2)`).
        Elsewhere (a branch, `range()`, a list repeated) dropping `int()` only moves the failure,
        and an op whose output size it sets for later code to slice (`logits.topk(k.item())`)
        exports but fails at run time (measured)."""
        if self.ctx.traced is None or self.ctx.flow is None:
            return False
        return self._uses(self.ctx.traced, self.ctx.flow, sizes_only).carried(self.ctx.flow, node)

    def _uses(self, item: Traced, flow: FunctionFlow, sizes_only: bool) -> _Uses:
        """The uses of `item`'s values, built once per function."""
        cache = self.ctx.shared.setdefault("sized_positions" if sizes_only else "carried_positions", {})
        assert isinstance(cache, dict)
        if id(item.func) not in cache:
            cache[id(item.func)] = _Uses(
                item.func, self._carried_positions(flow, item.func.body, sizes_only),
                lambda inlined: self._carried_positions(flow, inlined, sizes_only),
                lambda: self._result_carried(item, sizes_only),
            )
        return cache[id(item.func)]

    def _result_carried(self, item: Traced, sizes_only: bool) -> bool:
        """Whether every traced call of the helper `item` is used only where export carries a
        symbol, in the function making it (False where some call is not known: see `calls_of`)."""
        asked = self.ctx.shared.setdefault("results_carried", {})
        assert isinstance(asked, dict)
        key = (id(item.func), sizes_only)
        if key not in asked:
            asked[key] = False  # a recursive helper: not carried
            calls = self.ctx.program.calls_of(item)
            asked[key] = calls is not None and all(
                self._uses(caller, flow := self.ctx.program.flow(caller), sizes_only).carried(flow, call)
                for caller, call in calls
            )
        return asked[key]

    def _carried_positions(self, flow: FunctionFlow, code: cst.CSTNode, sizes_only: bool = False) -> set[int]:
        """ids of the expressions of `code` (a function's body, or what a helper computes written
        at its call; `flow` is that function's) in a position export carries a symbol in
        (`sizes_only`: the sizes of `_SIZING` calls and `split` sections, no index or slice bound)."""
        positions: list[cst.BaseExpression] = []
        for node in iter_nodes(code):
            if isinstance(node, cst.Call) and isinstance(node.func, (cst.Attribute, cst.Name)):
                callee = self.ctx.resolve(node.func)
                name = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
                method = isinstance(node.func, cst.Attribute) and is_tensor_like(flow.value(node.func.value))
                known = (callee or "").startswith("torch.") or (callee is None and method)
                if name in _SIZING and known:
                    sized = node.args
                    if callee in _RESAMPLING:
                        size = argument(node.args, 1, "size")
                        sized = [cst.Arg(size)] if size is not None else []
                    for arg in sized:
                        elements = arg.value.elements if isinstance(arg.value, (cst.Tuple, cst.List)) else None
                        positions.extend([e.value for e in elements] if elements is not None else [arg.value])
                elif name in _SIZED_BY_LIST and known:
                    sections = argument(node.args, 1 if callee is not None and not method else 0, "split_size_or_sections")
                    if isinstance(sections, (cst.Tuple, cst.List)):
                        positions.extend(e.value for e in sections.elements)
            if isinstance(node, cst.Call) and node.args and self.ctx.resolve(node.func) in _CHECKS:
                # `torch._check(k <= 8)`: a test of the symbol export records, not a guard
                positions.extend(n for n in iter_nodes(node.args[0].value) if isinstance(n, cst.BaseExpression))
            elif not sizes_only and isinstance(node, cst.Subscript) and is_tensor_like(flow.value(node.value)):
                for element in node.slice:
                    part = element.slice
                    if isinstance(part, cst.Index) and len(node.slice) == 1:
                        # `x[:, n]`: a number read from data among several indices fails strict export
                        positions.append(part.value)
                    elif isinstance(part, cst.Slice):
                        positions.extend(b for b in (part.lower, part.upper, part.step) if b is not None)
        return {id(expr) for expr in positions}

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """`x[s.argmax()]`, `x[:, i]` with `i = (m > 0).sum()`: strict export turns a 0-dim index
        tensor into a Python int (`__index__`) and has no concrete value for it (measured on
        torch 2.13: "Could not extract specialized integer"); non-strict export indexes with the
        tensor, and a slice bound (`x[i:]`) is carried in both."""
        if self.ctx.flow is None or not is_tensor_like(self.ctx.value(node.value)):
            return
        if self._read_list_index(node) or self.ctx.mode is not Mode.STRICT:
            return
        for element in node.slice:
            index = element.slice.value if isinstance(element.slice, cst.Index) else None
            if index is not None and self._zero_dim_read(index):
                self.report(index, f"`{short(index)}` is a 0-dim tensor read from data used as an index: strict "
                            "export makes it a Python int and has no concrete value for it (non-strict export "
                            "indexes with the tensor)")
                return
            if index is not None and len(node.slice) > 1 and _read_number(self.ctx.value(index)):
                self.report(index, f"`{short(index)}` is a number read from tensor data used as one of several "
                            "indices: strict export refuses the symbol there (IndexError; `x[n]` alone, a slice "
                            f"bound, or `{short(node.value)}.select(dim, n)` export)")
                return

    def _read_list_index(self, node: cst.Subscript) -> bool:
        """`x[t.tolist()]` (or `rows = t.tolist()`, then `x[rows]`): a Python list of numbers read
        from data as an index, which torch turns back into a tensor needing each number concrete
        (measured on torch 2.13: "Could not extract specialized integer", both modes, also for
        `x[[s[0], s[1]]]` and `x[s[:1]]`; `i, j = t.tolist()` then `x[i]` exports, and so do
        `x[s[0]]` and `x[t]`)."""
        for element in node.slice:
            index = element.slice.value if isinstance(element.slice, cst.Index) else None
            if index is not None and self._read_list(index):
                message = f"`{short(index)}` is a list read from tensor data used as an index: torch needs each of " \
                          "its numbers concrete in both modes"
                source = read_list_source(self.ctx.flow, index)
                if source is not None:
                    # `x[t.tolist()]` (or of a name bound to it) -> `x[t]`: the same rows (or mask, of booleans)
                    fix = FixProposal(f"Index with the tensor `{short(source)}`", Applicability.UNSAFE,
                                      ((index, source),))
                    self.report(index, message, fix=fix)
                else:
                    self.report(index, f"{message} (no automatic fix: index with the tensor it is read from)")
                return True
        return False

    def _read_list(self, index: cst.BaseExpression) -> bool:
        """`t.tolist()`, a part of it (`s[:1]`), a name bound once to either, or a list display of
        numbers read from data (`[s[0], s[1]]`); not a name unpacked from it (`i, j = t.tolist()`:
        each a number) nor one element (`s[0]`)."""
        if isinstance(index, cst.List):
            return any(_read_number(self.ctx.value(e.value)) for e in index.elements)
        if not self.ctx.value(index).has(Kind.DATA_LIST):
            return False
        if isinstance(index, cst.Name):
            bound = self.ctx.flow.bound_once(index.value) if self.ctx.flow is not None else None
            return bound is not None and self._read_list(bound)
        if isinstance(index, cst.Subscript):
            return all(isinstance(e.slice, cst.Slice) for e in index.slice)
        return isinstance(index, cst.Call)

    def _zero_dim_read(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """A whole-tensor reduction of tensor data (`s.argmax()`, `torch.argmax(s)`), written
        here, bound once to a name, or handed back by a one-line helper."""
        flow = self.ctx.flow
        assert flow is not None
        if isinstance(expr, cst.Name) and depth < 4:
            bound = flow.bound_once(expr.value)
            return bound is not None and self._zero_dim_read(bound, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._picked_hit(expr)
        if not isinstance(expr, cst.Call):
            return False
        inlined = flow.inlined(expr) if depth < 4 else None
        if inlined is not None and inlined is not expr:
            return self._zero_dim_read(inlined, depth + 1)
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in _WHOLE_REDUCTIONS and not expr.args:
            receiver = func.value
        elif (
            self.ctx.resolve(func) in {f"torch.{name}" for name in _WHOLE_REDUCTIONS}
            and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star
        ):
            receiver = expr.args[0].value
        else:
            return False
        return is_tensor_like(self.ctx.value(receiver)) and not flow.constant_tensor(receiver)

    def _picked_hit(self, expr: cst.Subscript) -> bool:
        """`torch.nonzero(mask)[0, 0]`, `mask.nonzero()[0][0]`, `torch.where(mask)[0][0]`: one
        coordinate of a hit, picked by two integers from what `nonzero`/`argwhere` (rank 2) or
        one-argument `torch.where` (a tuple of rank-1 tensors) return: a 0-dim tensor of data."""
        picks = 0
        node: cst.BaseExpression = expr
        while isinstance(node, cst.Subscript):
            for element in node.slice:
                if not (isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.Integer)):
                    return False
                picks += 1
            node = node.value
        if picks != 2 or not isinstance(node, cst.Call):
            return False
        func, args = node.func, [a for a in node.args if a.keyword is None and not a.star]
        if len(args) != len(node.args):
            return False  # `as_tuple=True`, `*masks`: another structure
        if isinstance(func, cst.Attribute) and func.attr.value in ("nonzero", "argwhere") and not args:
            return is_tensor_like(self.ctx.value(func.value))
        if self.ctx.resolve(func) in ("torch.nonzero", "torch.argwhere", "torch.where") and len(args) == 1:
            return is_tensor_like(self.ctx.value(args[0].value))
        return False

    def _unflatten_by_data(self, node: cst.Call) -> None:
        """`x.unflatten(1, (k, -1))`, `k` read from data: unflatten infers the `-1` by dividing by
        the symbol, which fails in both modes (measured on torch 2.13: "unflatten got an
        unexpected error" non-strict, "RuntimeError when making fake tensor call" strict); the
        size written out, `x.shape[1] // k`, exports in both and equals eager."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "unflatten"
                and is_tensor_like(self.ctx.value(func.value))):
            return
        dim, sizes = argument(node.args, 0, "dim"), argument(node.args, 1, "sizes")
        fixable = True
        if isinstance(sizes, cst.Name) and self.ctx.flow is not None and self.ctx.traced is not None:
            # `part = (k, -1)` bound once: the sizes, rewritten where bound if only this call reads them
            name = sizes.value
            sizes = self.ctx.flow.bound_once(name)
            reads = [n for n in iter_nodes(self.ctx.traced.func.body) if type(n) is cst.Name and n.value == name]
            fixable = len(reads) == 2
        if not isinstance(sizes, (cst.Tuple, cst.List)) or dim is None:
            return
        elements = [e.value for e in sizes.elements]
        inferred = [e for e in elements if code_of(e).replace(" ", "") == "-1"]
        read = [e for e in elements if _read_number(self.ctx.value(e))]
        if len(inferred) != 1 or not read:
            return
        fix = None
        if fixable and len(elements) == 2 and isinstance(func.value, (cst.Name, cst.Attribute)) and isinstance(
            read[0], (cst.Name, cst.Call, cst.Attribute)
        ):
            size = cst.parse_expression(f"{code_of(func.value)}.shape[{code_of(dim)}] // {code_of(read[0])}")
            fix = FixProposal("Write the inferred size out as the dimension divided by the number",
                              Applicability.UNSAFE, ((inferred[0], size),))
        self.report(node, f"`{short(node)}` infers a size by dividing by `{short(read[0])}`, a number read from "
                    "tensor data, which unflatten cannot do with a symbol", fix=fix)

    def _scale_from_data(self, node: cst.Call) -> None:
        """`F.interpolate(x, scale_factor=s.item())`: torch's resampling kernels take concrete
        floats only, so a factor read from data fails in both modes, converted or not."""
        if self.ctx.resolve(node.func) not in _RESAMPLING:
            return
        scale = argument(node.args, 2, "scale_factor")
        if scale is not None and _read_number(self.ctx.value(scale)):
            self.report(scale, f"`{short(scale)}` is a number read from tensor data, given as `scale_factor`: "
                        "the resampling kernel needs a concrete float in both modes (no automatic fix: a size "
                        "computed from the input's and the factor, `size=`, is carried as a symbol instead)")

    def _class_count_from_data(self, node: cst.Call) -> None:
        """`F.one_hot(labels)` (or `num_classes=-1`): torch reads the class count as
        `labels.max() + 1`, a Python number of the data, which fails in both modes (measured on
        torch 2.13; a `num_classes` written out exports)."""
        if self.ctx.resolve(node.func) != "torch.nn.functional.one_hot" or any(a.star for a in node.args):
            return
        labels, classes = argument(node.args, 0, "tensor"), argument(node.args, 1, "num_classes")
        converted_here = self.ctx.mode is Mode.NON_STRICT and classes is not None and any(
            isinstance(n, cst.Call) and dotted(n.func) in ("int", "float") and len(n.args) == 1
            and is_tensor_like(self.ctx.value(n.args[0].value)) for n in iter_nodes(classes)
        )  # `int(t.max()) + 1`: the conversion's own finding says it there
        if classes is not None and _read_number(self.ctx.value(classes)) and not converted_here:
            # `num_classes=t.max().item() + 1`: the output's width, which one_hot needs concrete
            # (measured on torch 2.13: "Could not extract specialized integer", both modes)
            self.report(classes, f"`num_classes={short(classes)}` is a number read from tensor data: one_hot "
                        "needs the class count as a concrete int in both modes (no automatic fix: give the count "
                        "the model knows)")
            return
        if classes is not None and not (isinstance(classes, cst.UnaryOperation) and code_of(classes) == "-1"):
            return
        if labels is None or not is_tensor_like(self.ctx.value(labels)):
            return  # a tensor of Python constants too: measured to fail in both modes
        self.report(node, f"`{short(node)}` reads its class count from tensor data (`{short(labels)}.max() + 1`): "
                    "export has no concrete value for it in either mode (no automatic fix: give `num_classes`, "
                    "the count the model knows)")

    def _rounded_size(self, node: cst.Call, qualified: str | None) -> bool:
        """`math.floor(float(s))` used as a size: `math.floor` of a number read from data hands
        export a float proxy where an op wants an int size (measured on torch 2.13: `x.repeat(1,
        math.floor(s.item()))`, `arange`, `zeros`, `expand`, `view`, `repeat_interleave` fail both
        modes, "must be real number, not Proxy"; a slice bound exports, and so do `math.ceil` and
        `math.trunc`), whatever converted it first; torch's rounding of the tensor, read as an int
        (`s.floor().int().item()`), is carried as a symbol (measured: exports both modes, equal to eager)."""
        method = _ROUNDING.get(qualified or "")
        if method is None or len(node.args) != 1 or node.args[0].star or not self._carried(node, sizes_only=True):
            return False
        read = _unconverted(node.args[0].value)
        if not _read_number(self.ctx.value(read)) and not _read_number(self.ctx.value(node.args[0].value)):
            return False
        tensor = self._tensor_read(read)
        fix = None
        rounded = self.ctx.shared.setdefault("rounded_reads", set())
        assert isinstance(rounded, set)
        rounded.add(id(node.args[0].value))  # the conversion inside is fixed by this rewrite, not alone
        if tensor is not None:
            fix = FixProposal(f"Round the tensor: `.{method}().int().item()` (assumes the size fits in int32)",
                              Applicability.UNSAFE,
                              ((node, cst.parse_expression(f"{code_of(tensor)}.{method}().int().item()")),))
        self.report(node, f"`{short(node)}` rounds a number read from tensor data in Python and is used as a size:"
                    " export gets a float where the op needs an int" + ("" if fix else
                    " (no automatic fix: the tensor it is read from is not at hand here)"), fix=fix)
        return True

    def _tensor_read(self, read: cst.BaseExpression) -> cst.BaseExpression | None:
        """The tensor a number is read from: `s` of `s.item()` or of `float(s)`, written here or
        named (`part = s.item()`, bound once); None where it is not at hand."""
        read = _unconverted(read)
        flow, depth = self.ctx.flow, 0
        while isinstance(read, cst.Name) and flow is not None and depth < 4:
            bound = flow.bound_once(read.value)
            if bound is None:
                break
            read, depth = _unconverted(bound), depth + 1
        tensor = read.func.value if (
            isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute) and read.func.attr.value == "item"
            and not read.args
        ) else read
        if not is_tensor_like(self.ctx.value(tensor)):
            return None
        if not isinstance(tensor, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            tensor = tensor.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return tensor

    def _truncated_math(self, node: cst.Call, converted: cst.BaseExpression) -> FixProposal | None:
        """`int(math.sqrt(n.sum().item()))` used only as a size or an index ->
        `torch.sqrt(n.sum()).int().item()`: torch's op on the tensor, truncated towards zero as
        `int()` truncates, read as an int the size carries (measured on torch 2.13: exports in both
        modes and equals eager). It assumes the result fits in int32 and is not within the tensor
        dtype's rounding of an integer (Python computes in float64). None anywhere else."""
        if not (isinstance(converted, cst.Call) and len(converted.args) == 1 and not converted.args[0].star):
            return None
        function = TENSOR_MATH.get(self.ctx.resolve(converted.func) or "")
        if function is None or self.ctx.flow is None or not self._carried(node):
            return None
        tensor = self._tensor_read(converted.args[0].value)
        if tensor is None:
            return None
        names = scope_names(self.ctx.flow)
        new = cst.parse_expression(f"{names.torch}.{function}({code_of(tensor)}).int().item()")
        return FixProposal(f"Compute `{function}` on the tensor and truncate it there (assumes an int32 result)",
                           Applicability.UNSAFE, ((node, new),), imports=names.imports)

    def _list_search(self, node: cst.Call) -> bool:
        """`s.index(v)`, `s.count(v)` of a list read from data (`s = t.tolist()`): Python compares
        each number read with `v`, a guard on data (measured on torch 2.13: both modes fail, "Could
        not guard on data-dependent expression Eq(u0, 3)"; `v in s` exports strict)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("index", "count") and node.args):
            return False
        if not _read_number(self.ctx.value(func.value)):
            return False
        fix = self._extreme_index(node)
        self.report(node, f"`{short(node)}` searches a list read from tensor data: each comparison is a guard on"
                    " data" + ("" if fix else " (no automatic fix: the search is the tensor's own op,"
                    " `(t == v).nonzero()` or `t.argmax()` for the index of the largest, whose result is a tensor"
                    " where a number was)"), fix=fix)
        return True

    def _tensor_operand(self, flow: FunctionFlow, nodes: list[cst.CSTNode], expr: cst.CSTNode, depth: int) -> bool:
        """Whether what `expr` computes reaches only arithmetic with a tensor: as an operand there,
        through arithmetic with a number written out (`(std + 1e-5)` dividing a tensor), through a
        one-line helper handing it back (`_h(v)`), or a name bound once to it (`value = ...`,
        `value, _ = ..., 0`) whose every read is such an operand."""
        if depth > 4:
            return False
        for n in nodes:
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, _TENSOR_OPERATORS) and (
                n.left is expr and is_tensor_like(flow.value(n.right))
                or n.right is expr and is_tensor_like(flow.value(n.left))
            ):
                return True
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, _TENSOR_OPERATORS) and (
                n.left is expr and isinstance(n.right, (cst.Integer, cst.Float))
                or n.right is expr and isinstance(n.left, (cst.Integer, cst.Float))
            ):
                return self._tensor_operand(flow, nodes, n, depth + 1)
            if isinstance(n, cst.Call) and n is not expr and any(a.value is expr for a in n.args) \
                    and flow.inlined(n) is expr:
                return self._tensor_operand(flow, nodes, n, depth + 1)
            if isinstance(n, cst.Assign) and len(n.targets) == 1:
                target, value = n.targets[0].target, n.value
                if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple):
                    pairs = zip(target.elements, value.elements, strict=False)
                    target = next((t.value for t, v in pairs if v.value is expr), None)  # type: ignore[assignment]
                    if target is None:
                        continue
                elif value is not expr:
                    continue
                if not isinstance(target, cst.Name) or flow.bound_once(target.value) is None:
                    return False
                # `self.logit_scale` and `f(logit_scale=...)` name no local
                named = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)} | {
                    id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword is not None}
                reads = [r for r in nodes if isinstance(r, cst.Name) and r.value == target.value and r is not target
                         and id(r) not in named]
                return bool(reads) and all(self._tensor_operand(flow, nodes, r, depth + 1) for r in reads)
        return False

    def _extreme_index(self, node: cst.Call) -> FixProposal | None:
        """`s.index(max(s))` (or `min`), `s` bound once to `t.tolist()` -> `t.argmax().item()`: the
        first index of the largest, as `list.index` finds it (measured on torch 2.13: indexing with
        the read index exports in both modes and equals eager). It assumes `t` is 1-d (`max` of
        the rows of a 2-d tensor compares lists)."""
        func, flow = node.func, self.ctx.flow
        assert isinstance(func, cst.Attribute)
        searched = node.args[0].value
        extreme = flow.bound_once(searched.value) if flow is not None and isinstance(searched, cst.Name) else None
        held = searched.value if extreme is not None else None  # `part = max(n)` on the line before
        searched = extreme if extreme is not None else searched
        if (flow is None or func.attr.value != "index" or len(node.args) != 1 or not isinstance(func.value, cst.Name)
                or not isinstance(searched, cst.Call) or dotted(searched.func) not in ("max", "min")
                or self.ctx.resolve(searched.func) is not None or len(searched.args) != 1
                or not isinstance(searched.args[0].value, cst.Name) or searched.args[0].value.value != func.value.value):
            return None
        listed = flow.bound_once(func.value.value)
        if not (isinstance(listed, cst.Call) and isinstance(listed.func, cst.Attribute) and not listed.args
                and listed.func.attr.value == "tolist" and is_tensor_like(self.ctx.value(listed.func.value))):
            return None
        tensor = listed.func.value
        operand = code_of(tensor) if isinstance(tensor, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) \
            else f"({code_of(tensor)})"
        reduced = "argmax" if dotted(searched.func) == "max" else "argmin"
        new = cst.parse_expression(f"{operand}.{reduced}().item()")
        title = f"Read the index from `{reduced}` of the tensor (assumes it is 1-d)"
        # `s = t.tolist()` read only by the search goes too: strict export refuses `.tolist()` of floats
        traced = self.ctx.traced
        reads = [n for n in iter_nodes(traced.func.body) if isinstance(n, cst.Name) and n.value == func.value.value] \
            if traced is not None else []
        lines = [s for s in iter_nodes(traced.func.body) if isinstance(s, cst.SimpleStatementLine)] \
            if traced is not None and len(reads) == 3 else []
        binding = next((s for s in lines if len(s.body) == 1 and isinstance(s.body[0], cst.Assign)
                        and s.body[0].value is listed), None)
        search = next((s for s in lines if any(n is node for n in iter_nodes(s))), None)
        found = parent_block(traced.func, binding) if traced is not None and binding is not None else None
        between = 2 if held is not None else 1  # the line binding the largest goes too
        held_reads = sum(isinstance(n, cst.Name) and n.value == held for n in iter_nodes(traced.func.body)) \
            if traced is not None and held is not None else 2
        if found is not None and found[1] + between < len(found[0]) and found[0][found[1] + between] is search and (
            held is None or _binds_only(found[0][found[1] + 1], held)
        ) and held_reads == 2:
            assert search is not None
            return FixProposal(title, Applicability.UNSAFE, (), blocks=(
                BlockReplacement(binding, search, (search.deep_replace(node, new),)),))  # type: ignore[arg-type]
        if held is not None:
            return None
        if len(reads) != 3:
            return None  # the list is read elsewhere too, where a tensor would not do
        return FixProposal(title, Applicability.UNSAFE, ((node, new), (listed, tensor)))

    def _integral_compare(self, node: cst.Call) -> bool:
        """`min(k, counts.max().item())`: every number read is an integer (by the op it is read
        from) and every other operand a number written out or such a read. Python compares
        SymInts symbolically: measured on torch 2.13, `min`/`max` of an int read against an int or
        float literal export in both modes; a float read (`max(1, s.item())`) fails non-strict."""
        args = [a.value for a in node.args if not a.star]
        if len(args) != len(node.args):
            return False
        reads = [a for a in args if _read_number(self.ctx.value(a))]
        literals = [a for a in args if isinstance(a, (cst.Integer, cst.Float))]
        return bool(reads) and len(reads) + len(literals) == len(args) and all(self._integral(a) for a in reads)

    def _integral(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """`expr` is a number read from a tensor of integers: `.item()` of `argmax`, `count_nonzero`,
        `bincount`, `.long()`, a `sum()` of a boolean mask, or their `max`/`min` (names bound once followed)."""
        flow = self.ctx.flow
        if depth > 4 or flow is None:
            return False
        if isinstance(expr, cst.Name):
            bound = flow.bound_once(expr.value)
            return bound is not None and self._integral(bound, depth + 1)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "int":
            return self.ctx.resolve(expr.func) is None  # `int(t)`: reported as the conversion it is
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "item"):
            return False
        return self._integer_tensor(expr.func.value, depth + 1)

    def _integer_tensor(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """A tensor of integers by the code that makes it (see `dtypes`)."""
        return self.ctx.dtypes().of(expr, depth) is DType.INTEGRAL

    def _tensor_of_read(self, node: cst.Call) -> bool:
        """`torch.as_tensor(v.item())`, `torch.as_tensor(t.tolist())`: measured on torch 2.13, both
        modes fail (a guard on data: as_tensor asks the number's concrete value, whatever its dtype
        or `dtype=`), where `torch.tensor(...)` of the same number or list exports in both (but for
        `.tolist()` of floats in strict export, reported there)."""
        if self.ctx.resolve(node.func) != "torch.as_tensor" or not node.args or node.args[0].keyword is not None:
            return False
        value = self.ctx.value(node.args[0].value)
        if not _read_number(value):
            return False
        caught = caught_fallback(self.ctx, node)
        fix = None if caught else FixProposal(
            "Use `torch.tensor(...)`: it builds the same tensor from the number export carries",
            Applicability.SAFE, ((node.func, cst.parse_expression(f"{code_of(node.func).rsplit('.', 1)[0]}.tensor")),))
        self.report(node, f"`{short(node)}` makes a tensor of a number read from tensor data: `torch.as_tensor` needs"
                    " its concrete value, which export does not have" + (f" ({caught.reason})" if caught else ""),
                    severity=caught.severity if caught else None, fix=fix)
        return True

    def _cached_by_read(self, node: cst.Call) -> bool:
        """`_window(n)` of a function of the file decorated with `functools.lru_cache` / `cache`, `n`
        a number read from data: the cache hashes its arguments, and non-strict export has no
        concrete value to hash (measured on torch 2.13: "unhashable type: non-nested SymInt" for an
        integer read, a guard on data for a float one; a static size exports; strict export
        varies, so no claim there)."""
        if self.ctx.mode is Mode.STRICT or not isinstance(node.func, cst.Name):
            return False
        function = self.ctx.program.functions.get(node.func.value)
        if function is None or not any(
            self.ctx.resolve(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in ("functools.lru_cache", "functools.cache") for d in function.decorators
        ):
            return False
        read = next((a.value for a in node.args if _read_number(self.ctx.value(a.value))), None)
        if read is None:
            return False
        self.report(node, f"`{short(node)}` hands `{short(read)}`, a number read from tensor data, to a cached "
                    "function: the cache hashes it, and non-strict export has no concrete value to hash")
        return True

    def _non_integer_list(self, node: cst.Call) -> bool:
        """`t.tolist()` of a tensor known not to hold integers: strict export refuses it
        ("Tensor.tolist() with non-integer tensor", measured on torch 2.13 for float, half, double
        and bool tensors, a float buffer among them); of integers it exports in both modes, and
        non-strict export reads any dtype's elements as symbols. Unknown dtype: no finding."""
        func = node.func
        if (self.ctx.mode is not Mode.STRICT or node.args or not isinstance(func, cst.Attribute)
                or func.attr.value != "tolist" or not is_tensor_like(self.ctx.value(func.value))):
            return False
        dtype = self.ctx.dtypes().of(func.value)
        if dtype not in (DType.FLOATING, DType.BOOL):
            return False
        self.report(node, f"`{short(node)}` reads a {dtype.value} tensor into a Python list: strict export refuses "
                    "`.tolist()` of a tensor that does not hold integers (non-strict export reads it)")
        return True

    def _number_function(self, node: cst.Call) -> bool:
        """`math.log(v.item())`, `min(v.item(), 1.0)`: reported where the table says it fails."""
        qualified = self.ctx.resolve(node.func)
        if self._rounded_size(node, qualified):
            return True
        if qualified is None and dotted(node.func) in ("min", "max") and len(node.args) >= 2:
            qualified = dotted(node.func)  # the builtins against another number, not of an iterable
        modes = _NUMBER_FUNCTIONS.get(qualified or "")
        if modes is None:
            return False
        if qualified in ("min", "max") and self._integral_compare(node):
            return True
        # `math.exp(x.mean())` converts the tensor to a float itself (measured on torch 2.13: fails in both modes)
        tensor_given = (qualified or "").startswith("math.") and any(
            is_tensor_like(self.ctx.value(a.value)) and not self._constant(a.value) for a in node.args if not a.star)
        if self.ctx.mode in modes and (tensor_given or any(
            _read_number(self.ctx.value(a.value)) for a in node.args if not a.star
        )):
            caught = caught_fallback(self.ctx, node)
            fix = self._tensor_math(node, qualified or "")
            what = "a tensor, which it converts to a Python float" if tensor_given else "a number read from tensor data"
            message = (f"`{short(node)}` of {what}: {self.ctx.mode} export "
                       "has no concrete value for it" + ("" if fix else " (no automatic fix: torch's own op on the "
                       "tensor, `torch.log(t)` for `math.log(t.item())`, computes a tensor where a number was, "
                       "and the result is not only an operand of tensor arithmetic)"))
            self.report(node, message + (f" ({caught.reason})" if caught else ""),
                        severity=caught.severity if caught else None, fix=fix)
        return True

    def _read_as_operand(self, node: cst.Call, read: cst.BaseExpression) -> FixProposal | None:
        """`t = float(temp.item())`, then `logits / t`: where the number reaches only arithmetic with
        a tensor, the tensor it is read from is that operand (a 0-d tensor broadcasts, and leaves
        the other's dtype; measured on torch 2.13: exports in both modes, equal to eager). None
        anywhere else, or where the read is not `t.item()` of a tensor."""
        flow, traced = self.ctx.flow, self.ctx.traced
        if flow is not None and isinstance(read, cst.Name):
            read = flow.bound_once(read.value) or read  # `part = temperature.item()`, then `float(part)`
        if flow is None or traced is None or not (
            isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute) and read.func.attr.value == "item"
            and not read.args and is_tensor_like(flow.value(read.func.value))
        ):
            return None
        if not self._tensor_operand(flow, list(iter_nodes(traced.func.body)), node, 0):
            return None
        tensor = read.func.value.with_changes(lpar=[], rpar=[])
        return FixProposal("Use the tensor itself: the number read only meets tensor arithmetic (assumes a floating-point tensor)", Applicability.UNSAFE,
                           ((node, tensor),))

    def _tensor_math(self, node: cst.Call, qualified: str) -> FixProposal | None:
        """`x / math.sqrt(x.var().item() + eps)` -> `x / torch.sqrt(x.var() + eps)`: torch's op of
        the same name on the tensor the number is read from, where the result is an operand of
        arithmetic with a tensor (the quotient is that tensor either way; measured on torch 2.13:
        exports in both modes, equal to eager). None anywhere else: a number there may be a size,
        a branch's test or a Python value the code keeps."""
        if qualified in ("min", "max"):
            return self._clamped(node, qualified)
        function = TENSOR_MATH.get(qualified)
        flow, traced = self.ctx.flow, self.ctx.traced
        if function is None or flow is None or traced is None or len(node.args) != 1 or node.args[0].star:
            return None
        operand = self._tensor_operand(flow, list(iter_nodes(traced.func.body)), node, 0)
        bound = data_bindings(flow, traced.func, [node], exempt=node.args[0].value) if operand else {}
        tensor = tensor_value(flow, node.args[0].value, bound) if operand else None
        if tensor is None:
            return None
        names = scope_names(flow)
        new = cst.parse_expression(f"{names.torch}.{function}({code_of(tensor)})")
        return FixProposal(f"Compute `{function}` on the tensor (no number read from it)", Applicability.UNSAFE,
                           ((node, new), *bound.values()), imports=names.imports)

    def _clamped(self, node: cst.Call, builtin: str) -> FixProposal | None:
        """`max(peak.item(), 1e-5)` -> `peak.clamp(min=1e-5)` (`min` -> `max=`): a number read from
        data against a Python number, where the result is an operand of arithmetic with a tensor
        (CLIP's `min(logit_scale.exp().item(), 100.0) * logits`; measured on torch 2.13: exports in
        both modes, equal to eager). None anywhere else."""
        flow, traced = self.ctx.flow, self.ctx.traced
        if flow is None or traced is None or len(node.args) != 2 or any(a.star or a.keyword for a in node.args):
            return None
        read = [a.value for a in node.args if _read_number(self.ctx.value(a.value))]
        bound_by = [a.value for a in node.args if all(a.value is not r for r in read)]
        if len(read) != 1 or len(bound_by) != 1 or not _python_number(self.ctx.value(bound_by[0])):
            return None
        if not self._tensor_operand(flow, list(iter_nodes(traced.func.body)), node, 0):
            return None
        bound = data_bindings(flow, traced.func, [node], exempt=read[0])
        tensor = tensor_value(flow, read[0], bound)
        if tensor is None:
            return None
        side = "min" if builtin == "max" else "max"
        new = cst.parse_expression(f"{receiver(tensor)}.clamp({side}={code_of(bound_by[0])})")
        return FixProposal(f"Clamp the tensor (`{builtin}()` of a number read from it; assumes a floating-point"
                           " tensor)", Applicability.UNSAFE, ((node, new), *bound.values()))

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if node.format_spec and self.ctx.mode is not Mode.STRICT:
            spec = "".join(code_of(part) for part in node.format_spec)
            self._formatted(node.expression, f"with `:{spec}`")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        for operand, conversion in percent_operands(node):
            # strict export refuses every `%` of data; non-strict only a number's conversions
            if self.ctx.mode is Mode.STRICT or conversion in _NUMERIC:
                self._formatted(operand, f"with `{short(node.left)}`")

    def _format_method(self, node: cst.Call) -> bool:
        """`"{:.3f}".format(v)`: a format spec on a positional field (non-strict fails on it)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "format"
                and isinstance(func.value, cst.SimpleString)):
            return False
        template = func.value.evaluated_value
        if self.ctx.mode is Mode.STRICT or not isinstance(template, str):
            return True
        try:
            fields = [(field, spec) for _, field, spec, _ in string.Formatter().parse(template) if field is not None]
        except ValueError:
            return True
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        automatic = 0
        for field, spec in fields:
            if field == "":
                field, automatic = str(automatic), automatic + 1
            if not spec:
                continue
            operand = positional[int(field)] if field.isdigit() and int(field) < len(positional) else keywords.get(field)
            if operand is not None:
                self._formatted(operand, f"with `{{:{spec}}}`")
        return True

    def _formatted(self, operand: cst.BaseExpression, shown: str) -> None:
        value = self.ctx.value(operand)
        if is_tensor_like(value):
            what = "a tensor"
        elif value.has(Kind.DATA) and not value.has(Kind.SHAPE):
            what = "a number read from tensor data"
        else:
            return
        self.report(operand, f"`{short(operand)}` is {what}, formatted as a number {shown}: non-strict "
                    "export has no number to format",
                    fix=eager_only(self.ctx))

    VALID = [
        Valid(
            """
            import torch
            class Keep(torch.nn.Module):
                def forward(self, x, scores):
                    k = max(1, (scores > 0.5).sum().item())
                    return x[:k] * min(scores.argmax().item(), 4)
            def xport_example():
                return Keep(), (torch.randn(6), torch.rand(6))
            """
        ),
        Valid(
            """
            import torch
            class Peak(torch.nn.Module):
                def forward(self, x):
                    print("peak %s at %d" % (x.max().item(), 3))
                    return x / x.max()
            def xport_example():
                return Peak(), (torch.randn(3),)
            """,
            modes=(Mode.NON_STRICT,),
        ),
        Valid(
            """
            import torch
            class Normalise(torch.nn.Module):
                def forward(self, x):
                    return x / x.abs().max().item()
            def xport_example():
                return Normalise(), (torch.randn(6),)
            """
        ),
        Valid(
            """
            import torch
            class Report(torch.nn.Module):
                def forward(self, x):
                    print(f"mean {x.mean().item()}")
                    return x * 2
            def xport_example():
                return Report(), (torch.randn(3),)
            """
        ),
        Valid(
            """
            import math
            import torch
            class Bucket(torch.nn.Module):
                def forward(self, x, v):
                    value = v.item()
                    low, high = math.floor(value), math.ceil(value)
                    return x * (low + high + round(value) + value ** 2)
            def xport_example():
                return Bucket(), (torch.randn(3), torch.tensor(2.5))
            """
        ),
        Valid(
            """
            import math
            import torch
            class Bucket(torch.nn.Module):
                def forward(self, x, v):
                    return x * (math.floor(v.item()) + math.ceil(v.item()) + round(v.item()) + v.item() ** 2)
            def xport_example():
                return Bucket(), (torch.randn(3), torch.tensor(2.5))
            """
        ),
        Valid(
            """
            import math
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, x, v):
                    peak = v.max().item()
                    return x / math.sqrt(peak) / math.sqrt(v.sum().item()) / max(peak, 1e-6) * min(v.min().item(), 1.0)
            def export():
                return torch.export.export(Rescale(), (torch.randn(3), torch.tensor([2.0, 3.0])), strict=True)
            """,
            modes=(Mode.STRICT,),
        ),
        Valid(
            """
            import math
            import torch
            class Square(torch.nn.Module):
                def forward(self, x, v):
                    gain = v.item()
                    return x * math.pow(gain, 2) + math.pow(v.item(), 0.5)
            def xport_example():
                return Square(), (torch.randn(3), torch.tensor(4.0))
            """,
            modes=(Mode.NON_STRICT,),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Gather(torch.nn.Module):
                def forward(self, x, rows):
                    return x[rows.tolist()] * 2  # expect: XPT203
            def xport_example():
                return Gather(), (torch.randn(4, 8), torch.tensor([2, 0]))
            """,
            expected_replacement="""
            import torch
            class Gather(torch.nn.Module):
                def forward(self, x, rows):
                    return x[rows] * 2  # expect: XPT203
            def xport_example():
                return Gather(), (torch.randn(4, 8), torch.tensor([2, 0]))
            """,
            other_args="(torch.randn(4, 8), torch.tensor([3, 1]))",
        ),
        Invalid(
            """
            import torch
            class Rows(torch.nn.Module):
                def forward(self, x, h):
                    return x.unflatten(1, (h.item(), -1))  # expect: XPT203
            def xport_example():
                return Rows(), (torch.randn(2, 12), torch.tensor(3))
            """,
            expected_replacement="""
            import torch
            class Rows(torch.nn.Module):
                def forward(self, x, h):
                    return x.unflatten(1, (h.item(), x.shape[1] // h.item()))  # expect: XPT203
            def xport_example():
                return Rows(), (torch.randn(2, 12), torch.tensor(3))
            """,
            other_args="(torch.randn(2, 12), torch.tensor(4))",
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Zoom(torch.nn.Module):
                def forward(self, x, scale):
                    factor = scale.item()
                    return F.interpolate(x, scale_factor=factor, mode="nearest")  # expect: XPT203
            def xport_example():
                return Zoom(), (torch.randn(1, 2, 4), torch.tensor(2.0))
            """
        ),
        Invalid(
            """
            import torch
            class Longest(torch.nn.Module):
                def forward(self, x, lengths):
                    n = lengths.tolist()
                    return x[n.index(max(n))]  # expect: XPT203
            def xport_example():
                return Longest(), (torch.randn(3, 2), torch.tensor([1, 3, 2]))
            """,
            expected_replacement="""
            import torch
            class Longest(torch.nn.Module):
                def forward(self, x, lengths):
                    return x[lengths.argmax().item()]  # expect: XPT203
            def xport_example():
                return Longest(), (torch.randn(3, 2), torch.tensor([1, 3, 2]))
            """,
            other_args="(torch.randn(3, 2), torch.tensor([4, 3, 4]))",
        ),
        Invalid(
            """
            import math
            import torch
            class Tile(torch.nn.Module):
                def forward(self, x, s):
                    return x.repeat(1, math.floor(s.item()))  # expect: XPT203
            def xport_example():
                return Tile(), (torch.randn(2, 3), torch.tensor(2.5))
            """,
            expected_replacement="""
            import math
            import torch
            class Tile(torch.nn.Module):
                def forward(self, x, s):
                    return x.repeat(1, s.floor().int().item())  # expect: XPT203
            def xport_example():
                return Tile(), (torch.randn(2, 3), torch.tensor(2.5))
            """,
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Resize(torch.nn.Module):
                def forward(self, x, size):
                    return F.interpolate(x, size=int(size.item()))  # expect: XPT203
            def xport_example():
                return Resize(), (torch.randn(1, 1, 4), torch.tensor(8))
            """,
            expected_replacement="""
            import torch
            import torch.nn.functional as F
            class Resize(torch.nn.Module):
                def forward(self, x, size):
                    return F.interpolate(x, size=size.item())  # expect: XPT203
            def xport_example():
                return Resize(), (torch.randn(1, 1, 4), torch.tensor(8))
            """,
            other_args="(torch.randn(1, 1, 4), torch.tensor(6))",
        ),
        Invalid(
            """
            import torch
            class Trim(torch.nn.Module):
                def forward(self, tokens, lengths):
                    longest = int(lengths.max())  # expect: XPT203
                    return tokens[:, :longest] * 2
            def xport_example():
                return Trim(), (torch.randn(2, 6), torch.tensor([3, 5]))
            """,
            expected_replacement="""
            import torch
            class Trim(torch.nn.Module):
                def forward(self, tokens, lengths):
                    longest = lengths.max().item()  # expect: XPT203
                    return tokens[:, :longest] * 2
            def xport_example():
                return Trim(), (torch.randn(2, 6), torch.tensor([3, 5]))
            """,
            other_args="(torch.randn(2, 6), torch.tensor([1, 2]))",
        ),
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x, v):
                    factor = v.max().item()
                    return x * float(factor)  # expect: XPT203
            def xport_example():
                return Scale(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            expected_replacement="""
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x, v):
                    factor = v.max().item()
                    return x * v.max()  # expect: XPT203
            def xport_example():
                return Scale(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            other_args="(torch.randn(3), torch.tensor([-1.0, 0.5]))",
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Encode(torch.nn.Module):
                def forward(self, x, labels):
                    return F.one_hot(labels).float() @ x  # expect: XPT203
            def xport_example():
                return Encode(), (torch.randn(3, 2), torch.tensor([0, 2, 1]))
            """
        ),
        Invalid(
            """
            import torch
            class PickColumn(torch.nn.Module):
                def forward(self, x, k):
                    j = k.item()
                    return x[:, j] + x[j]  # expect: XPT203
            def export():
                return torch.export.export(PickColumn(), (torch.randn(3, 3), torch.tensor(1)), strict=True)
            """
        ),
        Invalid(
            """
            import torch
            class Peak(torch.nn.Module):
                def forward(self, x):
                    print("peak %s" % x.max().item())  # expect: XPT203
                    return x / x.max()
            def export():
                return torch.export.export(Peak(), (torch.randn(3),), strict=True)
            """,
            expected_replacement="""
            import torch
            class Peak(torch.nn.Module):
                def forward(self, x):
                    if not torch.compiler.is_exporting():
                        print("peak %s" % x.max().item())  # expect: XPT203
                    return x / x.max()
            def export():
                return torch.export.export(Peak(), (torch.randn(3),), strict=True)
            """,
        ),
        Invalid(
            """
            import torch
            class Criterion(torch.nn.Module):
                def forward(self, pred, target):
                    loss = ((pred - target) ** 2).mean()
                    value = loss.item()
                    print("loss {:.3f}".format(value))  # expect: XPT203
                    return loss
            def xport_example():
                return Criterion(), (torch.randn(4), torch.randn(4))
            """,
            expected_replacement="""
            import torch
            class Criterion(torch.nn.Module):
                def forward(self, pred, target):
                    loss = ((pred - target) ** 2).mean()
                    value = loss.item()
                    if not torch.compiler.is_exporting():
                        print("loss {:.3f}".format(value))  # expect: XPT203
                    return loss
            def xport_example():
                return Criterion(), (torch.randn(4), torch.randn(4))
            """,
        ),
        Invalid(
            """
            import torch
            class Normalise(torch.nn.Module):
                def forward(self, x):
                    return x / float(x.abs().max())  # expect: XPT203
            def xport_example():
                return Normalise(), (torch.randn(6),)
            """,
            expected_replacement="""
            import torch
            class Normalise(torch.nn.Module):
                def forward(self, x):
                    return x / x.abs().max().item()  # expect: XPT203
            def xport_example():
                return Normalise(), (torch.randn(6),)
            """,
        ),
        Invalid(
            """
            import torch
            class Pad(torch.nn.Module):
                def forward(self, tokens, lengths):
                    total = int(lengths.sum())  # expect: XPT203
                    return torch.nn.functional.pad(tokens, (0, total))
            def xport_example():
                return Pad(), (torch.randn(2, 3), torch.tensor([1, 2]))
            """
        ),
        Invalid(
            """
            import torch
            class TopHits(torch.nn.Module):
                def forward(self, scores):
                    hits = scores.nonzero()
                    k = len(hits)  # expect: XPT203
                    return scores[:k]
            def xport_example():
                return TopHits(), (torch.randn(8),)
            """,
            expected_replacement="""
            import torch
            class TopHits(torch.nn.Module):
                def forward(self, scores):
                    hits = scores.nonzero()
                    k = hits.shape[0]  # expect: XPT203
                    return scores[:k]
            def xport_example():
                return TopHits(), (torch.randn(8),)
            """,
        ),
        Invalid(
            """
            import torch
            class Criterion(torch.nn.Module):
                def forward(self, pred, target):
                    loss = ((pred - target) ** 2).mean()
                    print(f"loss {loss.item():.3f}")  # expect: XPT203
                    return loss
            def xport_example():
                return Criterion(), (torch.randn(4), torch.randn(4))
            """,
            expected_replacement="""
            import torch
            class Criterion(torch.nn.Module):
                def forward(self, pred, target):
                    loss = ((pred - target) ** 2).mean()
                    if not torch.compiler.is_exporting():
                        print(f"loss {loss.item():.3f}")  # expect: XPT203
                    return loss
            def xport_example():
                return Criterion(), (torch.randn(4), torch.randn(4))
            """,
        ),
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    label = "peak %.2f" % x.max().item()  # expect: XPT203
                    return x / x.max(), label
            def xport_example():
                return Scale(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import math
            import torch
            class Temperature(torch.nn.Module):
                def forward(self, logits, t):
                    temperature = t.item()
                    return logits / math.log(temperature)  # expect: XPT203
            def xport_example():
                return Temperature(), (torch.randn(4), torch.tensor(2.0))
            """,
            expected_replacement="""
            import math
            import torch
            class Temperature(torch.nn.Module):
                def forward(self, logits, t):
                    temperature = t
                    return logits / torch.log(temperature)  # expect: XPT203
            def xport_example():
                return Temperature(), (torch.randn(4), torch.tensor(2.0))
            """,
            other_args="(torch.randn(4), torch.tensor(5.0))",
        ),
        Invalid(
            """
            import math
            import torch
            class Temperature(torch.nn.Module):
                def forward(self, logits, t):
                    return logits * math.exp(-t.item())  # expect: XPT203
            def xport_example():
                return Temperature(), (torch.randn(4), torch.tensor(2.0))
            """,
            expected_replacement="""
            import math
            import torch
            class Temperature(torch.nn.Module):
                def forward(self, logits, t):
                    return logits * torch.exp(-t)  # expect: XPT203
            def xport_example():
                return Temperature(), (torch.randn(4), torch.tensor(2.0))
            """,
            other_args="(torch.randn(4), torch.tensor(-1.5))",
        ),
        Invalid(
            """
            import math
            import torch
            class Squash(torch.nn.Module):
                def forward(self, x, v):
                    return x * math.tanh(v.item())  # expect: XPT203
            def xport_example():
                return Squash(), (torch.randn(4), torch.tensor(0.5))
            """,
            expected_replacement="""
            import math
            import torch
            class Squash(torch.nn.Module):
                def forward(self, x, v):
                    return x * torch.tanh(v)  # expect: XPT203
            def xport_example():
                return Squash(), (torch.randn(4), torch.tensor(0.5))
            """,
            other_args="(torch.randn(4), torch.tensor(-2.0))",
        ),
        Invalid(
            """
            import torch
            class TemperatureSoftmax(torch.nn.Module):
                def forward(self, logits, temperature):
                    t = float(temperature.item())  # expect: XPT203
                    return torch.softmax(logits / t, dim=-1)
            def xport_example():
                return TemperatureSoftmax(), (torch.randn(4, 8), torch.tensor(0.7))
            """,
            expected_replacement="""
            import torch
            class TemperatureSoftmax(torch.nn.Module):
                def forward(self, logits, temperature):
                    t = temperature  # expect: XPT203
                    return torch.softmax(logits / t, dim=-1)
            def xport_example():
                return TemperatureSoftmax(), (torch.randn(4, 8), torch.tensor(0.7))
            """,
            other_args="(torch.randn(4, 8), torch.tensor(2.0))",
        ),
        Invalid(
            """
            import torch
            class ContrastiveHead(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.logit_scale = torch.nn.Parameter(torch.tensor(2.6593))
                def forward(self, image, text):
                    scale = min(self.logit_scale.exp().item(), 100.0)  # expect: XPT203
                    return scale * image @ text.t()
            def xport_example():
                return ContrastiveHead(), (torch.randn(3, 8), torch.randn(3, 8))
            """,
            expected_replacement="""
            import torch
            class ContrastiveHead(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.logit_scale = torch.nn.Parameter(torch.tensor(2.6593))
                def forward(self, image, text):
                    scale = self.logit_scale.exp().clamp(max=100.0)  # expect: XPT203
                    return scale * image @ text.t()
            def xport_example():
                return ContrastiveHead(), (torch.randn(3, 8), torch.randn(3, 8))
            """,
            other_args="(torch.randn(3, 8) * 2, torch.randn(3, 8))",
        ),
        Invalid(
            """
            import math
            import torch
            class Gain(torch.nn.Module):
                def forward(self, x):
                    gain = math.exp(x.mean())  # expect: XPT203
                    return x * gain
            def xport_example():
                return Gain(), (torch.randn(2, 3),)
            """,
            expected_replacement="""
            import math
            import torch
            class Gain(torch.nn.Module):
                def forward(self, x):
                    gain = torch.exp(x.mean())  # expect: XPT203
                    return x * gain
            def xport_example():
                return Gain(), (torch.randn(2, 3),)
            """,
            other_args="(torch.randn(2, 3) * 3,)",
        ),
        Invalid(
            """
            import math
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, x, v):
                    return x / math.sqrt(v.sum().item())  # expect: XPT203
            def xport_example():
                return Rescale(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            expected_replacement="""
            import math
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, x, v):
                    return x / torch.sqrt(v.sum())  # expect: XPT203
            def xport_example():
                return Rescale(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            other_args="(torch.randn(3), torch.tensor([0.5, 9.0]))",
        ),
        Invalid(
            """
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, x, v):
                    peak = v.max().item()
                    return x / max(peak, 1e-6)  # expect: XPT203
            def xport_example():
                return Rescale(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            expected_replacement="""
            import torch
            class Rescale(torch.nn.Module):
                def forward(self, x, v):
                    peak = v.max()
                    return x / peak.clamp(min=1e-6)  # expect: XPT203
            def xport_example():
                return Rescale(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            other_args="(torch.randn(3), torch.tensor([1e-9, 0.0]))",
        ),
        Invalid(
            """
            import torch
            class Clip(torch.nn.Module):
                def forward(self, x, v):
                    return x * min(v.min().item(), 1.0)  # expect: XPT203
            def xport_example():
                return Clip(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            expected_replacement="""
            import torch
            class Clip(torch.nn.Module):
                def forward(self, x, v):
                    return x * v.min().clamp(max=1.0)  # expect: XPT203
            def xport_example():
                return Clip(), (torch.randn(3), torch.tensor([2.0, 3.0]))
            """,
            other_args="(torch.randn(3), torch.tensor([-2.0, 0.5]))",
        ),
        Invalid(
            """
            import math
            import torch
            class Square(torch.nn.Module):
                def forward(self, x, v):
                    gain = v.item()
                    return x * math.pow(gain, 2)  # expect: XPT203
            def export():
                return torch.export.export(Square(), (torch.randn(3), torch.tensor(4.0)), strict=True)
            """
        ),
        Invalid(
            """
            import torch
            class Pick(torch.nn.Module):
                def forward(self, x, scores):
                    best = scores.argmax()
                    return x[:, best] * 2  # expect: XPT203
            def export():
                return torch.export.export(Pick(), (torch.randn(2, 4), torch.tensor([0.1, 0.9, 0.3, 0.2])), strict=True)
            """
        ),
        Invalid(
            """
            from math import pow
            import torch
            class Square(torch.nn.Module):
                def forward(self, x, v):
                    return x * pow(v.item(), 0.5)  # expect: XPT203
            def export():
                return torch.export.export(Square(), (torch.randn(3), torch.tensor(4.0)), strict=True)
            """
        ),
    ]


def _binds_only(statement: cst.BaseStatement, name: str) -> bool:
    """`name = ...` alone on its line."""
    return (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].targets[0].target, cst.Name)
            and statement.body[0].targets[0].target.value == name)


def _item_of(tensor: cst.BaseExpression) -> cst.Call:
    """`tensor.item()`, parenthesised where it needs to be (`(a + b).item()`)."""
    if not isinstance(tensor, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        tensor = tensor.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(cst.Attribute(tensor, cst.Name("item")))


def _python_number(value: Value) -> bool:
    """A number the export knows: nothing read from a tensor, not a tensor."""
    return not is_tensor_like(value) and not value.has(Kind.DATA | Kind.SHAPE | Kind.DD_SIZE)


def _read_number(value: Value) -> bool:
    """A Python number read from tensor data (`v.item()`): an unbacked symbol under export."""
    return value.has(Kind.DATA) and not value.has(Kind.SHAPE) and not is_tensor_like(value)


class _Uses:
    """Where each value of one function goes: the names an expression is bound to, the reads of
    each name, the call an expression is passed to; and which expressions sit where export
    carries a symbol (`positions`). Built once per function, on the first conversion asked about."""

    def __init__(
        self, func: cst.FunctionDef, positions: set[int], positions_in: Callable[[cst.CSTNode], set[int]],
        result_carried: Callable[[], bool],
    ) -> None:
        self.positions = positions
        #: the carried positions of other code: what a helper computes, written at its call
        self.positions_in = positions_in
        #: whether the function's result is used only in carried positions, at every call of it
        self.result_carried = result_carried
        #: id(expression) of what the function's `return`s hand back
        self.returned: set[int] = set()
        #: id(expression) -> the names `name = expression` (or a tuple's element of it) binds
        self.bound_to: dict[int, list[str]] = {}
        #: name -> its reads (not a target, a keyword or an attribute's name)
        self.reads: dict[str, list[cst.Name]] = {}
        #: id(argument) -> the call it is passed to, positionally
        self.passed_to: dict[int, cst.Call] = {}
        #: id(operand) -> the integer arithmetic it is an operand of
        self.operand_of: dict[int, cst.BinaryOperation] = {}
        skipped: set[int] = set()
        for node in iter_nodes(func.body):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    self._bind(target.target, node.value, skipped)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
                skipped.update(id(n) for n in _target_nodes(node.target))
            elif isinstance(node, cst.Arg) and node.keyword is not None:
                skipped.add(id(node.keyword))
            elif isinstance(node, cst.Attribute):
                skipped.add(id(node.attr))
            elif isinstance(node, cst.Call):
                for arg in node.args:
                    if not arg.star:  # by keyword too: the dataflow writes a helper's call with them in place
                        self.passed_to[id(arg.value)] = node
            elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _CARRYING_ARITHMETIC):
                self.operand_of[id(node.left)] = self.operand_of[id(node.right)] = node
            elif isinstance(node, cst.Return) and node.value is not None:
                self.returned.add(id(node.value))
            elif isinstance(node, cst.Name) and id(node) not in skipped:
                self.reads.setdefault(node.value, []).append(node)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression, skipped: set[int]) -> None:
        if isinstance(target, cst.Name):
            skipped.add(id(target))
            self.bound_to.setdefault(id(value), []).append(target.value)
        elif (
            isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
        ):
            for inner, element in zip(target.elements, value.elements, strict=True):
                self._bind(inner.value, element.value, skipped)
        else:
            skipped.update(id(n) for n in _target_nodes(target))

    def carried(self, flow: FunctionFlow, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether every use of `expr`'s value is a position export carries a symbol in."""
        if id(expr) in self.positions:
            return True
        if depth > 8:
            return False
        if id(expr) in self.returned:
            return self.result_carried()
        arithmetic = self.operand_of.get(id(expr))
        if arithmetic is not None:
            return self.carried(flow, arithmetic, depth + 1)
        call = self.passed_to.get(id(expr))
        if call is not None:
            inlined = flow.inlined(call)
            if inlined is None and _builtin_extreme(call):
                # `max(n, 1)` of symbols is a symbol (measured on torch 2.13: `torch.zeros(max(k.item(),
                # 1), 8)`, `x[: min(k.item(), 2)]` export in both modes and equal eager)
                return self.carried(flow, call, depth + 1)
            if inlined is expr:
                # `_h(n)` of `def _h(v): return v`: the number handed back is used where the call is
                return self.carried(flow, call, depth + 1)
            # `self._tile(x, n)` of `def _tile(self, x, times): return x.expand(times, -1)`: used
            # once in the helper, where export carries it
            used = [n for n in iter_nodes(inlined)] if inlined is not None else []
            return sum(n is expr for n in used) == 1 and id(expr) in self.positions_in(inlined)  # type: ignore[arg-type]
        names = self.bound_to.get(id(expr), [])
        return bool(names) and all(
            flow.bound_once(name) is expr and bool(self.reads.get(name))
            and all(self.carried(flow, read, depth + 1) for read in self.reads[name])
            for name in names
        )


def _builtin_extreme(call: cst.Call) -> bool:
    """`max(a, b, ...)` / `min(...)` of positional numbers (not of one iterable)."""
    return (
        isinstance(call.func, cst.Name) and call.func.value in ("max", "min") and len(call.args) >= 2
        and all(arg.keyword is None and not arg.star for arg in call.args)
    )


def _target_nodes(target: cst.CSTNode) -> list[cst.Name]:
    """The names a binding target binds (`a`, `a, (b, *c)`); an attribute or subscript binds none."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_nodes(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_nodes(target.value)
    return []


def _truncated_read(arg: cst.BaseExpression, read: cst.BaseExpression, tensor_read: bool) -> cst.BaseExpression | None:
    """`t.long().item()` for `int(float(t.item()))` or `int(float(t))`: where a `float()` stands
    between `int()` and the read, the tensor may hold floats, and dropping the conversions would
    hand on a float; None where none does, or the read is neither `t.item()` nor the tensor
    (`tensor_read`)."""
    if not any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "float"
               for n in iter_nodes(arg)):
        return None
    if isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute) and read.func.attr.value == "item" and (
        not read.args
    ):
        tensor = read.func.value
    elif tensor_read:
        tensor = read
    else:
        return None
    simple = isinstance(tensor, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    written = code_of(tensor.with_changes(lpar=[], rpar=[])) if simple else f"({code_of(tensor)})"
    return cst.parse_expression(f"{written}.long().item()")


def _unconverted(arg: cst.BaseExpression) -> cst.BaseExpression:
    """`arg` without the `int()`/`float()` conversions around it: `int(float(n.item()))` converts
    the number read twice, and both go where the first does."""
    while (
        isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value in ("int", "float")
        and len(arg.args) == 1 and arg.args[0].keyword is None and not arg.args[0].star
    ):
        arg = arg.args[0].value
    return arg
