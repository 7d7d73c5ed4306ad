from __future__ import annotations

import math
from collections.abc import Callable

import libcst as cst

from ..dataflow import is_tensor_like
from ..model import Applicability, Mode, Severity
from ..names import dotted, self_attribute
from ..report import FixProposal
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, DimSpec, SizeRef, Sizes
from ..walk import children, iter_nodes
from ._conditions import short
from ._text import text_operands

#: calls that turn a float computed from a size back into an int
_TO_INT = frozenset({"round", "int", "math.floor", "math.ceil", "math.trunc"})
#: torch functions making a new tensor whose positional arguments are its sizes
_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.arange"})
#: tensor methods doing the same
_NEW_FACTORIES = frozenset({"new_zeros", "new_ones", "new_empty"})
#: resizes whose `size=` is an output size
_RESIZES = frozenset({"torch.nn.functional.interpolate", "torch.nn.functional.upsample"})
#: Python's float functions: a size passed to one is read as a Python float
_MATH_FLOAT = frozenset({"math.sqrt", "math.log", "math.log2", "math.log10", "math.exp"})


class FloatSize(Rule):
    """A size computed through a float (`round(x.shape[0] / 2)`) on a dimension with a named `Dim`, or asked for a Python number (`int(H)`, `len(x)`).

    ## What it does
    Flags `round()`, `int()`, `math.floor()`/`ceil()`/`trunc()` of an expression that divides
    or scales an input's size by a float (`/`, `* 0.5`), in a model's `forward`, where the export
    gives that dimension a named `Dim`; the same through Python's float functions
    (`int(math.sqrt(n))`), and `math.sqrt(x.shape[-1])` itself in non-strict mode. With static
    shapes, `Dim.AUTO` or `Dim.DYNAMIC` export succeeds (measured on torch 2.13) and nothing is
    reported, except `Dim.DYNAMIC` under a float step by one or `math.sqrt` (see Modes).

    In non-strict mode, also `int()` or `float()` of a size with no float step (`int(H)`,
    `int(x.size(2))`, `float(H)`, `int(H // 2)`): Python asks the symbolic size for a number,
    which makes it a constant. Under a named `Dim` whatever the arithmetic; under `Dim.DYNAMIC`
    where one value of the result holds the size to one value (`H`, `H + 1`, `2 * H`; not
    `H // 2`). Strict export keeps it symbolic (measured: exports). The same for `len(x)` of a
    tensor whose first dimension is a named `Dim` or `Dim.DYNAMIC` (`Tensor.__len__` must return
    an int), also of a tensor computed from the input.

    ## Why it fails torch.export
    The result is a symbolic float turned into an int; using it as a size or slice bound makes
    export add guards it cannot prove for every value of the declared range
    (`round(s0 / 2) <= s0`), so export fails with `ConstraintViolationError: Not all values of
    dim0_x ... satisfy the generated guard`. ExportDB: `dynamic_shape_round`.

    ## Example
    ```python
    return x[: round(x.shape[0] / 2)]  # dynamic_shapes={"x": {0: Dim("dim0_x")}}
    ```

    ## Use instead
    Integer arithmetic on the size (`(x.shape[0] + 1) // 2`) where the range allows it, or
    `Dim.AUTO` for that dimension, which lets export pick the range the code supports.

    ## Fix safety
    `int()` of integer arithmetic on sizes (`int(H)`, `int(H // 2)`): the fix drops the `int()`,
    whose value in Python is its argument's (a size already is an int). Safe. `len(x)` becomes
    `x.shape[0]`, the same number. Safe. No fix for `float()` or a float step: the value would
    change.

    ## Modes
    Error in both modes, where the dimension has a named `Dim` (torch 2.13) and the result is
    used as a slice bound, a `view`/`reshape` size, in a test, or anything else that guards it;
    nothing where the range is bounded and every slice bound the result makes stays within its
    low end (export proves the guards by intervals), nor where the result is never read or only
    scales a tensor (`x * n`: measured, exports in both modes). As a new tensor's size
    (`torch.zeros(n)`, `x.new_zeros(n)`): error in non-strict mode where the result can be 0 or 1
    over the range (specialised), nothing in strict mode (measured). As `F.interpolate`'s `size=`:
    error in both modes where the result can be 0 or 1 over the range (export guards an output
    size of at least 2), nothing in strict mode otherwise (measured). Past the first dimension, non-strict export also
    needs a slice's end below the low end and its start at most two below it: an error in
    non-strict mode only there (measured). A float step by one
    (`int(x.shape[0] / 1)`): error in non-strict mode under a named `Dim` or `Dim.DYNAMIC` (the
    result becomes a constant), nothing in strict mode (measured: it exports). `math.sqrt(s)`
    (or `math.log`, `math.exp`) of a size: error in non-strict mode under a named `Dim` or
    `Dim.DYNAMIC` (Python asks the size for a float: it becomes a constant), nothing in strict
    mode (measured: `x / math.sqrt(x.shape[-1])` exports); `s ** -0.5` stays symbolic in both.
    `int()`/`float()` of a size with no float step, and `len()` of a tensor: error in non-strict
    mode (above), nothing in strict mode.
    """

    CODE = "XPT303"
    NAME = "float-size"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SEVERITY_FROM_SHAPES = True
    PYTORCH_NAME = "ConstraintViolationError / dynamic_shape_round"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("UserError", "Constraints violated"),),
        Mode.STRICT: (TorchError("UserError", "Constraints violated"),),
    }

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.resolve(node.func) or dotted(node.func)
        if name in _MATH_FLOAT and len(node.args) == 1 and id(node) not in self._converted:
            self._math_float(node)
            return
        if name not in _TO_INT | {"float", "len"} or len(node.args) != 1 or node.args[0].star or node.args[0].keyword:
            return
        if name == "len":
            self._length(node)
            return
        self._converted.update(
            id(inner) for inner in iter_nodes(node.args[0].value)
            if type(inner) is cst.Call and dotted(inner.func) in _MATH_FLOAT  # type: ignore[attr-defined]
        )
        sizes = self.ctx.sizes()
        if sizes is None:
            return
        # `half = x.shape[0] / 2` on the line before `round(half)`: the same float size
        traced = self.ctx.traced
        numbers = _init_numbers(traced.cls.node) if traced is not None and traced.cls is not None else {}
        argument = _inlined(node.args[0].value, sizes, numbers)
        if not _float_arithmetic(argument):
            if name in ("int", "float"):
                self._python_number(node, name, argument, sizes)
            return
        if name == "float":
            return
        refs = sizes.refs(_sized_operands(argument))
        if not refs:
            return
        config = self.ctx.shape_config()
        by_one = _by_one(argument)
        if by_one and self.ctx.mode is Mode.STRICT:
            return  # strict export folds `s / 1` back to the size (measured)
        kinds = (DimKind.NAMED, DimKind.DYNAMIC) if by_one else (DimKind.NAMED,)
        named = [(ref, spec) for ref in refs if (spec := config.dim(*ref)).kind in kinds]
        if not named:
            return
        (param, _, index), spec = named[0]
        if not by_one and len(set(refs)) == 1 and self._proven_in_range(node, sizes, named[0][0], spec):
            return  # every bound it makes stays within the declared range: export proves its guards
        if by_one:
            why: str | None = "non-strict export makes the result a constant and fails"
        elif name == "int" and self.ctx.mode is Mode.NON_STRICT:
            why = "export cannot prove its guards for the whole range and fails"
        else:
            why = self._guarded(node, *named[0])
        if why is None:
            return  # no guard on the result that fails: it stays a symbolic int
        note = config.note()
        self.report(
            node,
            f"`{short(node)}` turns the size `{param}.shape[{index}]` ({spec.text()}, {config.source}) into a "
            f"float and back: {why}",
            notes=(note,) if note is not None else (),
        )

    def _guarded(self, call: cst.Call, ref: SizeRef, spec: DimSpec) -> str | None:
        """Why export fails on `call`'s result (None: it adds no guard that fails). Measured on torch 2.13 under
        a named `Dim`: `n = math.floor(H / 2)` (or `round`, `ceil`, `trunc`) never read, read by
        `x * n`, or a statement on its own, exports in both modes; as a slice bound or a
        `reshape` size it fails in both. As a new tensor's size (`x.new_zeros(n)`,
        `torch.zeros(n)`) strict export keeps it; non-strict fails where the result can be 0 or
        1 over the range (`H / 4` with `min=4`: a size of one is specialised), not where it
        cannot (`H / 2`). `int(H / 2)` fails non-strict even unread (Python asks the float for
        an int): the caller does not ask this there."""
        guards = "export cannot prove its guards for the whole range and fails"
        traced = self.ctx.traced
        if traced is None:
            return guards
        parents = {id(child): node for node in iter_nodes(traced.func) for child in children(node)}
        uses = self._uses(call, parents)
        if uses is None or "guard" in uses:
            return guards
        if not uses & {"size", "resize"} or ("resize" not in uses and self.ctx.mode is Mode.STRICT):
            return None
        sizes = self.ctx.sizes()
        low = spec.values()[0]
        smallest = _value(call, sizes, ref, int(low)) if sizes is not None and low != -math.inf else None
        if smallest is not None and smallest >= 2:
            return None
        if "resize" in uses:
            return "as `interpolate`'s output size it can be 0 or 1 over the range, which export specialises, and fails"
        return "as a new tensor's size it can be 0 or 1 over the range, which non-strict export specialises, and fails"

    def _uses(self, call: cst.Call, parents: dict[int, cst.CSTNode]) -> set[str] | None:
        """How `call`'s result is read, in place or through the names or `self.` attribute it is
        bound to: `scale` (arithmetic with a tensor), `size` (a new tensor's size), `guard`
        (anything else); None where the binding is not followed."""
        traced = self.ctx.traced
        assert traced is not None
        parent = parents.get(id(call))
        if isinstance(parent, cst.Expr):
            return set()
        if isinstance(parent, cst.Element) and isinstance(tuple_ := parents.get(id(parent)), cst.Tuple) \
                and isinstance(statement := parents.get(id(tuple_)), cst.Assign):
            targets = statement.targets
            if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
                bound = [targets[0].target]  # `size = (int(h / 2), int(w / 2))`: the tuple's uses
            else:
                if len(targets) != 1 or not isinstance(target := targets[0].target, cst.Tuple):
                    return None
                elements = target.elements
                if len(elements) != len(tuple_.elements) or any(isinstance(e, cst.StarredElement) for e in elements):
                    return None
                bound = [elements[[id(e) for e in tuple_.elements].index(id(parent))].value]
        elif isinstance(parent, cst.Assign):
            bound = [target.target for target in parent.targets]
        else:
            return {self._use(call, parents)}
        written = {
            id(name) for node in iter_nodes(traced.func) if isinstance(node, cst.AssignTarget)
            for name in iter_nodes(node.target) if isinstance(name, cst.Name)
        }
        uses: set[str] = set()
        for target in bound:
            if isinstance(target, cst.Name):
                uses.update(
                    self._use(node, parents) for node in iter_nodes(traced.func)
                    if isinstance(node, cst.Name) and node.value == target.value and id(node) not in written
                    and not isinstance(parents.get(id(node)), cst.Attribute)  # `a.n` is not `n`
                )
            elif (attribute := self_attribute(target)) is not None and traced.cls is not None:
                read = any(
                    self_attribute(node) == attribute and node is not target
                    for node in iter_nodes(traced.cls.node) if isinstance(node, cst.Attribute)
                )
                uses.update({"guard"} if read else set())
            else:
                return None
        return uses

    def _use(self, operand: cst.BaseExpression, parents: dict[int, cst.CSTNode]) -> str:
        """How one read of the result is used (see `_uses`)."""
        parent = parents.get(id(operand))
        if isinstance(parent, cst.BinaryOperation) and isinstance(
            parent.operator, (cst.Multiply, cst.Add, cst.Subtract, cst.Divide)
        ):
            other = parent.right if parent.left is operand else parent.left
            return "scale" if is_tensor_like(self.ctx.value(other)) else "guard"
        if isinstance(parent, cst.Element) and isinstance(parents.get(id(parent)), (cst.Tuple, cst.List)):
            parent = parents.get(id(parents.get(id(parent))))  # `torch.zeros((n, 3))`
        keyword = parent.keyword.value if isinstance(parent, cst.Arg) and parent.keyword is not None else None
        call = parents.get(id(parent)) if isinstance(parent, cst.Arg) else None
        if isinstance(call, cst.Call):
            name = self.ctx.resolve(call.func) or ""
            method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
            if keyword is None and (name in _FACTORIES or (method in _NEW_FACTORIES and not name.startswith("torch."))):
                return "size"
            if keyword == "size" and name in _RESIZES:
                return "resize"  # measured on torch 2.13: an output size below 2 is guarded in both modes
        return "guard"

    @property
    def _converted(self) -> set[int]:
        """Nodes inside a call turning a float back into an int (judged with it, not alone)."""
        key = "float-size:converted"
        found = self.ctx.shared.get(key)
        if found is None:
            found = self.ctx.shared[key] = set()
        return found  # type: ignore[return-value]

    def _math_float(self, node: cst.Call) -> None:
        """`math.sqrt(x.shape[-1])`: non-strict export hands Python's float function the size as
        a float, a constant, which a named `Dim` or `Dim.DYNAMIC` refuses; strict keeps it symbolic."""
        if self.ctx.mode is Mode.STRICT:
            return
        sizes = self.ctx.sizes()
        refs = sizes.refs(node.args[0].value) if sizes is not None else None
        if not refs:
            return
        config = self.ctx.shape_config()
        named = [(ref, spec) for ref in refs if (spec := config.dim(*ref)).kind in (DimKind.NAMED, DimKind.DYNAMIC)]
        if not named:
            return
        (param, _, index), spec = named[0]
        note = config.note()
        self.report(
            node,
            f"`{short(node)}` reads the size `{param}.shape[{index}]` ({spec.text()}, {config.source}) as a Python "
            "float: non-strict export makes it a constant and fails (`x.shape[-1] ** -0.5` stays symbolic)",
            notes=(note,) if note is not None else (),
        )

    def _python_number(self, node: cst.Call, name: str, argument: cst.BaseExpression, sizes: Sizes) -> None:
        """`int(H)`, `float(x.size(2))`, `int(H // 2)`: non-strict export asks the symbolic size
        for a Python number, which specialises it (measured on torch 2.13: a named `Dim` fails
        whatever the arithmetic; `Dim.DYNAMIC` fails where the value pins the size to one value,
        `H`, `H + 1`, `2 * H`, not `H // 2`; strict keeps it symbolic)."""
        if self.ctx.mode is Mode.STRICT:
            return
        refs = sizes.refs(argument)
        if not refs:
            return
        config = self.ctx.shape_config()
        kept = {ref: spec for ref in refs if (spec := config.dim(*ref)).kind in (DimKind.NAMED, DimKind.DYNAMIC)}
        pins = len(kept) == 1 and _pins(argument, sizes)
        failing = [(ref, spec) for ref, spec in kept.items() if spec.kind is DimKind.NAMED or pins]
        if not failing:
            return
        (param, _, index), spec = failing[0]
        note = config.note()
        written = node.args[0].value
        fix = (
            FixProposal("Drop `int()`: the size already is an int", Applicability.SAFE, ((node, _parenthesized(written)),))
            if name == "int" and _integral(argument, sizes) and id(node) not in self._made_text()
            else None
        )
        self.report(
            node,
            f"`{short(node)}` asks the size `{param}.shape[{index}]` ({spec.text()}, {config.source}) for a Python "
            f"{name}: non-strict export makes it a constant and fails (the size itself already is an int)",
            fix=fix,
            notes=(note,) if note is not None else (),
        )

    def _length(self, node: cst.Call) -> None:
        """`len(x)` of a tensor whose first dimension is kept dynamic: `Tensor.__len__` must hand
        Python an int, so non-strict export makes the size a constant and fails (measured on torch
        2.13 under a named `Dim` and `Dim.DYNAMIC`, also of a tensor computed from the input;
        strict export and `Dim.AUTO` keep it). `x.shape[0]` is the same number, kept symbolic."""
        if self.ctx.mode is Mode.STRICT or not self.ctx.shape_config().any_dynamic():
            return
        sizes = self.ctx.sizes()
        tensor = node.args[0].value
        if sizes is None or not is_tensor_like(self.ctx.value(tensor)):
            return
        ref = sizes.ref(node)
        if ref is None:
            return
        config = self.ctx.shape_config()
        spec = config.dim(*ref)
        if spec.kind not in (DimKind.NAMED, DimKind.DYNAMIC):
            return
        size = cst.Subscript(
            cst.Attribute(_parenthesized(tensor), cst.Name("shape")), [cst.SubscriptElement(cst.Index(cst.Integer("0")))]
        )
        note = config.note()
        self.report(
            node,
            f"`{short(node)}` asks for the size `{ref[0]}.shape[{ref[2]}]` ({spec.text()}, {config.source}) as a "
            "Python int (`Tensor.__len__`): non-strict export makes it a constant and fails (`.shape[0]` keeps it)",
            fix=FixProposal("Use `.shape[0]`: the same size, kept symbolic", Applicability.SAFE, ((node, size),)),
            notes=(note,) if note is not None else (),
        )

    def _made_text(self) -> set[int]:
        """Expressions of the traced function made text in place (`str(int(H))`, `f"{int(H)}"`,
        `"%d" % int(H)`): dropping their `int()` would leave a size made text, which fails strict
        export (XPT309) or, where the text is used, differs from eager, so they get no fix. Found
        once per function."""
        traced = self.ctx.traced
        assert traced is not None
        key = f"float-size:text:{id(traced.func)}"
        found = self.ctx.shared.get(key)
        if found is None:
            found = self.ctx.shared[key] = {
                id(value) for inner in iter_nodes(traced.func.body) for value in text_operands(inner)
            }
        return found  # type: ignore[return-value]

    def _proven_in_range(self, call: cst.Call, sizes: Sizes, ref: SizeRef, spec: DimSpec) -> bool:
        """Whether export proves the guards of the slices `call`'s result bounds, as torch 2.13
        does by interval arithmetic over a bounded named `Dim` (the bound's smallest and largest
        value over the range, against the range's low end `n`): every bound lies in [0, n]
        (measured: `x[: round(x.shape[0] / 2.0)]` exports under `Dim(min=5, max=10)`, fails
        under `max=1000`); non-strict export also guards, on a dimension past the first, an end
        `!= n` (so it must stay below n) and a start that leaves `n - start != 1` (so at most
        n - 2). A range without a max, or a result used other than as a slice bound: not proven."""
        low, high = spec.values()
        traced = self.ctx.traced
        if spec.derived or high == math.inf or high - low > _SAMPLED or traced is None:
            return False
        bounds = [
            (part, part is element.slice.upper, axis)
            for node in iter_nodes(traced.func.body) if isinstance(node, cst.Subscript)
            for axis, element in enumerate(node.slice) if isinstance(element.slice, cst.Slice)
            for part in (element.slice.lower, element.slice.upper) if part is not None and _holds(part, call, sizes)
        ]
        if not bounds or _used_otherwise(traced.func.body, call, sizes, len(bounds)):
            return False
        for bound, upper, axis in bounds:
            values = [_value(_inlined(bound, sizes), sizes, ref, size) for size in range(int(low), int(high) + 1)]
            if None in values:
                return False
            smallest, largest = min(values), max(values)  # type: ignore[type-var]
            if smallest < 0 or largest > low:  # type: ignore[operator]
                return False
            if self.ctx.mode is Mode.NON_STRICT and axis > 0 and (largest >= low if upper else largest > low - 2):  # type: ignore[operator]
                return False
        return True

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Crop(torch.nn.Module):
                def forward(self, x):
                    # every bound lies in [0, 5] on the range [5, 10]: export proves the guards
                    return x[: round(x.shape[0] / 2.0)]
            def xport_example():
                n = Dim("n", min=5, max=10)
                return {"model": Crop(), "args": (torch.randn(6, 2),), "dynamic_shapes": {"x": {0: n}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Half(torch.nn.Module):
                def forward(self, x):
                    # Dim.AUTO: export picks the range itself (measured: exports in both modes)
                    return x[: round(x.shape[0] / 2)]
            def xport_example():
                return {"model": Half(), "args": (torch.randn(6, 2),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
            """
        ),
        Valid(
            """
            import torch
            class Half(torch.nn.Module):
                def forward(self, x):
                    return x[: round(x.shape[0] / 2)]  # static shapes: a constant
            def xport_example():
                return Half(), (torch.randn(6, 2),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x / len(x)  # expect: XPT303
            def xport_example():
                return {"model": Scale(), "args": (torch.randn(8, 16),), "dynamic_shapes": {"x": {0: Dim("b")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x / x.shape[0]  # expect: XPT303
            def xport_example():
                return {"model": Scale(), "args": (torch.randn(8, 16),), "dynamic_shapes": {"x": {0: Dim("b")}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Crop(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    pixels = int(H) * W  # expect: XPT303
                    return x.reshape(B, C, pixels)
            def xport_example():
                return {"model": Crop(), "args": (torch.randn(2, 3, 32, 32),), "dynamic_shapes": {"x": {2: Dim("h", min=16, max=64)}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Crop(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    pixels = H * W  # expect: XPT303
                    return x.reshape(B, C, pixels)
            def xport_example():
                return {"model": Crop(), "args": (torch.randn(2, 3, 32, 32),), "dynamic_shapes": {"x": {2: Dim("h", min=16, max=64)}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Rows(torch.nn.Module):
                def forward(self, x):
                    n = int(x.shape[0] / 1)  # expect: XPT303
                    return x[:n]
            def xport_example():
                return {"model": Rows(), "args": (torch.randn(6, 3),), "dynamic_shapes": {"x": {0: Dim.DYNAMIC}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class DynamicShapeRound(torch.nn.Module):
                def forward(self, x):
                    return x[: round(x.shape[0] / 2)]  # expect: XPT303
            def xport_example():
                dim0_x = Dim("dim0_x")
                return {"model": DynamicShapeRound(), "args": (torch.randn(3, 2),), "dynamic_shapes": {"x": {0: dim0_x}}}
            """
        ),
        Invalid(
            """
            import math
            import torch
            from torch.export import Dim
            class Pool(torch.nn.Module):
                def forward(self, x):
                    return x[:, : math.ceil(x.size(1) * 0.5)].mean(1)  # expect: XPT303
            def xport_example():
                return {"model": Pool(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: Dim("seq")}}}
            """
        ),
    ]


#: the widest declared range whose sizes are each tried (torch's intervals give the same answer)
_SAMPLED = 4096


def _holds(expr: cst.CSTNode, call: cst.Call, sizes: Sizes) -> bool:
    """Whether `expr` reads `call`'s result: the call itself, or a name bound once to it."""
    return any(
        node is call or (isinstance(node, cst.Name) and sizes.followed(node) is call) for node in _nodes(expr)
    )


def _used_otherwise(body: cst.CSTNode, call: cst.Call, sizes: Sizes, in_bounds: int) -> bool:
    """Whether `call`'s result is read anywhere but in the `in_bounds` slice bounds found: the
    call itself, or the name it is bound to, read elsewhere (a `view`, a loop, a return)."""
    bound = [name for name, value in sizes.assigned.items() if value is call and name not in sizes.reassigned]
    if not bound:
        return False  # read in place: the slice bounds are its only uses
    reads = sum(
        1 for node in iter_nodes(body)
        if isinstance(node, cst.Name) and node.value in bound
    )
    return reads - len(bound) > in_bounds  # the assignment's own target is one read of each name


def _value(expr: cst.BaseExpression, sizes: Sizes, ref: SizeRef, size: int) -> float | None:  # noqa: C901 - one dispatch
    """`expr`'s value in Python arithmetic (floats included) when the input size `ref` is
    `size`; None where it reads anything else."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return float(expr.evaluated_value)
    if isinstance(expr, cst.Name) or sizes.ref(expr) is not None:
        refs = sizes.refs(expr)
        return float(size) if refs == [ref] else None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _value(expr.expression, sizes, ref, size)
        return -inner if inner is not None else None
    if isinstance(expr, cst.BinaryOperation):
        left, right = _value(expr.left, sizes, ref, size), _value(expr.right, sizes, ref, size)
        operation = _FLOAT_ARITHMETIC.get(type(expr.operator))
        if left is None or right is None or operation is None or (right == 0 and not isinstance(
            expr.operator, (cst.Add, cst.Subtract, cst.Multiply)
        )):
            return None
        return operation(left, right)
    if isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword:
        convert = _TO_INT_VALUE.get(dotted(expr.func) or "")
        inner = _value(expr.args[0].value, sizes, ref, size)
        return float(convert(inner)) if convert is not None and inner is not None else None
    return None


_FLOAT_ARITHMETIC: dict[type, Callable[[float, float], float]] = {
    cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b, cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b, cst.FloorDivide: lambda a, b: a // b, cst.Modulo: lambda a, b: a % b,
}
_TO_INT_VALUE: dict[str, Callable[[float], int]] = {
    "round": round, "int": int, "math.floor": math.floor, "math.ceil": math.ceil, "math.trunc": math.trunc,
}


def _pins(expr: cst.BaseExpression, sizes: Sizes) -> bool:
    """Whether `expr` is one size, or it shifted or scaled by an integer (`H`, `H + 1`, `2 * H`):
    a single value of it holds the size to a single value."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        if isinstance(expr.left, cst.Integer):
            return _pins(expr.right, sizes)
        return isinstance(expr.right, cst.Integer) and _pins(expr.left, sizes)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _pins(expr.expression, sizes)
    return _size_leaf(expr, sizes)


def _integral(expr: cst.BaseExpression, sizes: Sizes) -> bool:
    """Whether `expr` is integer arithmetic on sizes and integers (`int()` of it is itself)."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)) and (
            _integral(expr.left, sizes) and _integral(expr.right, sizes)
        )
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, (cst.Minus, cst.Plus)) and _integral(expr.expression, sizes)
    return _size_leaf(expr, sizes)


def _size_leaf(expr: cst.BaseExpression, sizes: Sizes) -> bool:
    """A name unpacked from a shape, `x.shape[i]`, `x.size(i)`, `len(x)` or `x.numel()` of an input."""
    if isinstance(expr, cst.Name):
        return expr.value in sizes.unpacked and bool(sizes.refs(expr))
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "numel":
        return bool(sizes.refs(expr))
    return isinstance(expr, (cst.Subscript, cst.Call)) and sizes.ref(expr) is not None


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` where `int(expr)` stood: in parentheses unless it is one term."""
    if isinstance(expr, (cst.Name, cst.Subscript, cst.Call, cst.Attribute, cst.Integer)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _float_arithmetic(expr: cst.BaseExpression) -> bool:
    """`a / b`, a product with a float literal, a power by one (`n ** 0.5`), or a call of
    Python's float functions (`math.sqrt`), anywhere in `expr`."""
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and dotted(node.func) in _MATH_FLOAT:
            return True
        if isinstance(node, cst.BinaryOperation) and (
            isinstance(node.operator, cst.Divide)
            or (isinstance(node.operator, cst.Multiply) and isinstance(node.left, cst.Float) | isinstance(node.right, cst.Float))
            or (isinstance(node.operator, cst.Power) and isinstance(node.right, cst.Float))
        ):
            return True
        stack.extend(node.children)
    return False


def _by_one(expr: cst.BaseExpression) -> bool:
    """Whether every float step of `expr` divides or multiplies by one (`int(s / 1)`)."""
    steps = [
        node for node in _nodes(expr)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.Multiply))
    ]
    return bool(steps) and all(
        any(isinstance(side, (cst.Integer, cst.Float)) and float(side.evaluated_value) == 1.0
            for side in ((node.right,) if isinstance(node.operator, cst.Divide) else (node.left, node.right)))
        for node in steps
    )


def _nodes(expr: cst.CSTNode) -> list[cst.CSTNode]:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


def _inlined(
    expr: cst.BaseExpression, sizes: Sizes, numbers: dict[str, cst.BaseNumber] | None = None
) -> cst.BaseExpression:
    """`expr` with each name bound once replaced by what it is bound to, and each `self.k` of
    `numbers` by the number `__init__` sets it to (`x.size(1) * self.k`, `self.k = 0.5`: the
    same float step)."""
    numbers = numbers or {}

    class _Inline(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            followed = sizes.followed(original)
            return updated if followed is original else followed.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
            if isinstance(original.value, cst.Name) and original.value.value == "self" and original.attr.value in numbers:
                return numbers[original.attr.value]
            return updated.with_changes(attr=original.attr)  # `x.shape`: `shape` is no name read

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)

    if isinstance(expr, cst.Name):
        return sizes.followed(expr)
    return expr.visit(_Inline())  # type: ignore[return-value]


def _init_numbers(cls: cst.ClassDef) -> dict[str, cst.BaseNumber]:
    """`self.k` set once in `__init__`, to a number written there (`self.k = 0.5`)."""
    init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    found: dict[str, list[cst.BaseExpression]] = {}
    for node in iter_nodes(init.body) if init is not None else ():
        targets = node.targets if isinstance(node, cst.Assign) else [node] if isinstance(node, cst.AugAssign) else []
        for target in targets:
            t = target.target
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                found.setdefault(t.attr.value, []).append(node.value if isinstance(node, cst.Assign) else t)
    return {
        name: values[0] for name, values in found.items()
        if len(values) == 1 and isinstance(values[0], (cst.Integer, cst.Float))
    }


def _sized_operands(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`x.shape[0] / 2` read as `x.shape[0] // 2` (the same sizes, in integer arithmetic the
    size analysis reads); float literals as 1; `math.sqrt(n)` and `n ** 0.5` as `n`."""

    class _Integral(cst.CSTTransformer):
        def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BinaryOperation) -> cst.BaseExpression:
            if isinstance(updated.operator, cst.Power):  # `n ** 0.5` reads `n`
                return updated.left.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return updated

        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            if dotted(original.func) in _MATH_FLOAT and len(updated.args) == 1:
                return updated.args[0].value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return updated

        def leave_Divide(self, original: cst.Divide, updated: cst.Divide) -> cst.FloorDivide:
            return cst.FloorDivide()

        def leave_Float(self, original: cst.Float, updated: cst.Float) -> cst.Integer:
            return cst.Integer("1")

    return expr.visit(_Integral())  # type: ignore[return-value]
