from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import libcst as cst

from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import (
    KEEP_ALL_FUNCTIONS,
    KEEP_ALL_LAYERS,
    KEEP_ALL_METHODS,
    DimKind,
    DimSpec,
    Op,
    ShapeConfig,
    ShapesReader,
    SizeRef,
    Sizes,
    arguments_read,
    declared_examples,
    has_operation,
    init_buffers,
    init_call,
    init_integer,
    module_list,
    proven_multiple,
    term_refs,
    term_value,
    unshown_remainder,
)
from ..syntax import argument, integer_constant, integer_literal
from ..walk import iter_nodes
from ._conditions import short
from ._helper_ops import judge_helper_call


@dataclass(frozen=True)
class _Dim:
    """One dimension of a tensor `forward` holds: `scale * s + offset` of an input's size `s`
    (`ref`; `affine` None: some function of it not modelled), a constant `size`, or unknown
    (neither)."""

    ref: SizeRef | None = None
    size: int | None = None
    affine: tuple[int, int] | None = (1, 0)
    #: a strided slice's `k` (`x[::2]`: the size is `ceil(s / k)`), with `affine` None: no
    #: constant, and no multiple of another root's size
    stride: int = 1
    #: with `affine` None, the size as shapes.py's term of the input size, where it has one
    #: (`2 * ((h - 1) // 2 + 1)` after a stride-2 conv and its transpose)
    term: object = None

    @property
    def exact(self) -> bool:
        return self.affine == (1, 0)


_UNKNOWN = _Dim(affine=None)

#: the sizes a size expression of one input size is evaluated at to read it as `k * s + c`
_AFFINE_PROBES = (1, 2, 3, 7, 64, 1001)


_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
_MATMUL = ("torch.matmul", "torch.mm", "torch.bmm")
_CAT = ("torch.cat", "torch.concat", "torch.concatenate")
_FACTORIES = frozenset({
    "torch.zeros", "torch.ones", "torch.empty", "torch.randn", "torch.rand", "torch.full", "torch.arange",
})
_STACK = ("torch.stack",)
#: tensor methods making a new tensor of the sizes they are given
_NEW_FACTORIES = frozenset({"new_zeros", "new_ones", "new_empty", "new_full"})
#: layers whose output changes the last dimension only
_LAST_CHANGED = frozenset({"Linear", "LazyLinear", "Bilinear"})
#: losses of class scores against class indices (or probabilities of the input's shape)
_CLASS_LOSSES = frozenset({"cross_entropy", "nll_loss"})
#: losses of an input against a target: class losses, and elementwise ones (which broadcast)
_LOSSES = _CLASS_LOSSES | frozenset({
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div",
})
#: reductions over the dimensions they are given (`x.mean(0)` drops dimension 0)
_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "prod"})


def _retied(source: str, declared: str, fixed: str) -> Invalid:
    """A rule example whose fix only declares its `dynamic_shapes` line `declared` as `fixed`."""
    return Invalid(source, expected_replacement=source.replace(declared, fixed))


class DimTie(Rule):
    """An op that needs two sizes equal, where `dynamic_shapes` declares them independent.

    ## What it does
    In a model's `forward`, follows each tensor's dimensions from the inputs (ranks from the
    example inputs) through the ops that relate sizes: slices by literals (`y[1:]`, `x[:, :-1]`),
    `torch.cat`/`stack`, `F.pad`, `F.interpolate` (`size=`, a whole `scale_factor=`), `einsum`,
    `view`/`reshape`/`flatten` (`flatten(0, 1)` multiplies the sizes it merges), transposes,
    matrix products, elementwise arithmetic, `repeat`, `repeat_interleave` by a number, `expand`,
    reductions over one dimension (`x.mean(0)`), `torch.where`, `F.linear` and layers that keep
    dimensions (`Linear` keeps all but the last). It flags a pair of sizes an op needs
    equal (elementwise operands aligned from the right as broadcasting does; a product's inner
    dimensions; the parts of a `cat` off its axis; one `einsum` letter) where one is a named
    `Dim` and the other a different named `Dim` (or the same one moved: `x[1:]` against `x`), or
    a constant other than 1. It also flags `chunk`/`split` along a dimension with a plain named
    `Dim` (the pieces fix its size or need it a multiple of the count), `view`/`reshape` to
    literal sizes that fix the element count (also arithmetic on literals, `3 * 8 * 8`, and of a
    tensor out of a pool or convolution whose sizes change over a named `Dim`'s range; a size the
    target keeps, `x.view(b, 8, 4, 4)` of `(b, n, 16)`, cancels: `n` is fixed to 8), a constant
    where a named size was beside a `-1` elsewhere (`x.view(b, 8, -1)`), and a `-1` that needs a named size divisible by
    the other target sizes, literals or constants `__init__` sets (`x.view(b, n, self.num_heads,
    -1)`), and `unflatten` parts that do (also `x.unflatten(2, (h // 2, 2))`, as `view` does),
    and `F.pixel_unshuffle(x, r)`, which needs the last two sizes multiples of `r`; a `Linear` built in `__init__` with
    literal sizes (or `F.linear` with a parameter of literal sizes) applied to a tensor whose
    last size is a named `Dim` (its weight fixes that size), as `LayerNorm(8)` fixes the last
    size and `GroupNorm`/`BatchNormNd`/`ConvNd` the channels of a batched input; and `expand` to a
    literal size other than the input's (or 1), or to another input's size; `expand_as(y)`,
    `broadcast_to(y.shape)` and `expand(y.shape)` broadcast as `x + y` does. A `split` piece that
    floor-divides the split size (`[n // 2, n - n // 2]`) needs it a multiple. A `view` target's
    sizes read as sizes (`x.view(b, n * c)` of `b, n, c = x.shape` folds `n` into the features a
    `Linear` then fixes). Each read of a rebound input name is the value bound last before it
    (`x = torch.cat([cls, x], 1)`, then `x + self.pos_embed`). A constant tied to
    `Dim.DYNAMIC` is flagged too (export specialises it and fails). Also followed: `einsum` with
    `...`, a strided slice `x[::2]` (`ceil(s / 2)`: tied to another root's `Dim` or a constant
    it fails), `ConvTranspose` layers, `x.new_zeros(...)`, an `nn.Sequential` of `Flatten`,
    size-keeping layers and a `Linear`, the first `Linear` of an `nn.ModuleList` that a
    `for layer in self.layers:` of the function's top runs on an input, `torch.split`/`torch.chunk` by a size computed from the
    split dimension (`w // 2`), and 1-d max pooling (`F.max_pool1d`, `nn.MaxPool1d`), which
    specialises the length it pools. Comparisons (`torch.arange(n) < 3`, `x > y`) broadcast as
    arithmetic does; `expand` takes the sizes it is given (`cls.expand(x.shape[0], -1, -1)`); a
    `view` in the statement that rebinds its input (`x = x.view(B, H // 7, 7, ...)`) reads the
    input; a block of another file is judged with the declared dims its caller passes it; the op
    a helper returns (`to_tokens(x)` of `return t.reshape(t.shape[0], 4, 8)`: a function of this
    file of straight-line statements, a one-line method, a one-line function of another file) is
    judged with the call's arguments in place and reported on the call. A size
    tied to one computed from it that no affine form holds (down by a strided conv or pool and
    back up) is judged on the declared range: flagged where the two are equal for some of its
    sizes and not others: `x[..., 0::2, :]` joined with `x[..., 1::2, :]` (Swin's patch merging,
    YOLO's focus, `rotate_half`) is `(h + 1) // 2` against `h // 2`, equal for even sizes only.
    Two sizes always equal are flagged too where one takes a remainder sympy cannot show to be 0
    (the halves of `x` padded by `h % 2` first). `F.scaled_dot_product_attention` ties the
    dimensions before the last two (batch, heads) as broadcasting does; `F.cross_entropy` /
    `F.nll_loss` tie the targets to the samples (and class indices to the dimensions after the
    classes); elementwise losses (`F.mse_loss`) broadcast. A size computed from a named one
    through strided convolutions and pools, flattened into a fixed `Linear`, is judged on the
    declared range: flagged where it equals the features for some sizes and not others (an old
    ResNet head's `AvgPool2d(4)` then `view(b, -1)`). An op not modelled leaves sizes unknown (no
    finding); ops under an `if` are left out (the example may take the other side).

    ## Why it fails torch.export
    The op adds the guard `s0 == s1` (or `s0 == 4`, `s0 % 2 == 0`): two named `Dim`s become
    one, or a named `Dim` is narrowed, which the declaration says it is not: `Constraints
    violated (dy)! ... The values of dy = L['y'].size()[0] and dx = L['x'].size()[0] must always
    be equal`.

    ## Example
    ```python
    def forward(self, x, y):
        return x @ y  # x: {1: Dim("k1")}, y: {0: Dim("k2")}
    ```

    ## Use instead
    One shared `Dim` for sizes the op ties (`k = Dim("k")`, `{1: k}` and `{0: k}`), a derived
    `Dim` where one is computed from the other (`y[1:]` against `x`: `dy = dx + 1`; a
    `cat([x, x])` against `y`: `2 * dx`), or a static dimension where the other side is a
    constant.

    ## Fix safety
    Unsafe, at the declaration of this file: two plain sizes get one shared `Dim`; a size an op
    moves by a constant or a whole factor gets a derived `Dim` of the other's root, where that
    root is a name (`b = Dim("b")`). It assumes the sizes keep that relation for every input
    the model will see.

    ## Modes
    Error in both modes (torch 2.13). `Dim.AUTO` takes the tie without a word: nothing reported.
    """

    CODE = "XPT305"
    NAME = "dim-tie"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {mode: (TorchError("UserError", "Constraints violated"),) for mode in Mode}

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, _ELEMENTWISE):
            self._check(node, node.left, node.right, matmul=False)
        elif isinstance(node.operator, cst.MatrixMultiply):
            self._check(node, node.left, node.right, matmul=True)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        """`attn += bias` broadcasts as `attn + bias` does."""
        if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)):
            self._check(node, node.target, node.value, matmul=False)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, _COMPARISONS):
            self._check(node, node.left, node.comparisons[0].comparator, matmul=False)  # `x > y` broadcasts

    def visit_Call(self, node: cst.Call) -> None:  # noqa: C901 - one dispatch
        func = node.func
        if self._setting() is None:
            return  # each judgement below needs a named Dim or Dim.DYNAMIC (building `sizes` costs)
        judge_helper_call(self, node, self._conditional(), keep_fixes=True)  # its fixes edit the declaration
        if isinstance(func, cst.Attribute) and func.attr.value in ("view", "reshape") and node.args:
            self._reshape(node, func.value)
            return
        first_layers = self.ctx.sizes().first_layer_calls if self.ctx.sizes() is not None else {}  # type: ignore[union-attr]
        if isinstance(func, cst.Name) and id(node) in first_layers:
            self._first_listed_layer(node, first_layers[id(node)])
            return
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            if self.ctx.sizes() is not None and self.ctx.sizes().layers.get(func.attr.value) == "MaxPool1d":  # type: ignore[union-attr]
                self._pooled_1d(node)
                return
            self._linear(node, func.attr.value)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in ("masked_fill", "masked_fill_") and node.args:
            self._check(node, func.value, node.args[0].value, matmul=False)  # the mask broadcasts to the tensor
            return
        shaped_as = _shaped_as(node, self.ctx.resolve(func) or "")
        if shaped_as is not None:  # `x.expand_as(y)`, `torch.broadcast_to(x, y.shape)`: as `x + y` broadcasts
            self._check(node, *shaped_as, matmul=False)
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "expand" and node.args:
            self._expanded(node, func.value)
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "unflatten" and len(node.args) == 2:
            self._unflattened(node, func.value)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in ("topk", "kthvalue") and not (
            self.ctx.resolve(func) or ""
        ).startswith("torch."):
            self._ranked(node, func.value, node.args)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in ("chunk", "split") and not (
            self.ctx.resolve(func) or ""
        ).startswith("torch."):
            if node.args:
                self._split(node, func.attr.value, func.value, node.args)
            return
        name = self.ctx.resolve(func) or ""
        if name in ("torch.topk", "torch.kthvalue") and node.args and node.args[0].keyword is None:
            self._ranked(node, node.args[0].value, node.args[1:])  # `torch.topk(x, 5, dim=1)`
            return
        if name in ("torch.split", "torch.chunk") and len(node.args) >= 2 and node.args[0].keyword is None:
            self._split(node, name[6:], node.args[0].value, node.args[1:])  # `torch.split(x, k, dim=1)`
            return
        if name in _CAT or name in _STACK or name == "torch.einsum":
            self._joined(node, name)
            return
        if name in ("torch.nn.functional.max_pool1d", "torch.max_pool1d"):
            self._pooled_1d(node)
            return
        if name in ("torch.nn.functional.pixel_unshuffle", "torch.pixel_unshuffle") and len(node.args) == 2:
            self._unshuffled(node)
            return
        if name == "torch.where" and len(node.args) == 3 and not any(a.keyword or a.star for a in node.args):
            # the condition broadcasts against both values as they do against each other
            condition, chosen, other = (arg.value for arg in node.args)
            for left, right in ((chosen, other), (condition, chosen), (condition, other)):
                if self._check(node, left, right, matmul=False):
                    return
            return
        if name == "torch.nn.functional.linear" and len(node.args) >= 2 and not any(a.keyword or a.star for a in node.args):
            self._functional_linear(node)
            return
        if name.rpartition(".")[2] in _LOSSES and name.startswith("torch.nn.functional.") and len(node.args) >= 2 and (
            not any(a.keyword or a.star for a in node.args[:2])
        ):
            self._loss(node, name)
            return
        if name == "torch.nn.functional.scaled_dot_product_attention" and len(node.args) >= 3 and not any(
            a.keyword or a.star for a in node.args[:3]
        ):
            self._attention(node)
            return
        if len(node.args) != 2 or not (isinstance(func, cst.Attribute) and func.attr.value in ("matmul", "mm", "bmm")):
            return
        if name in _MATMUL:
            self._check(node, node.args[0].value, node.args[1].value, matmul=True)

    def _setting(self) -> tuple[Sizes, ShapeConfig, tuple, dict[str, tuple[int, ...]]] | None:
        """The forward's sizes, its declaration, the example sizes and the literal buffers
        (None: not a model's forward whose declaration has a named Dim or `Dim.DYNAMIC`, the
        kinds a tie or a constant can break). The example sizes come from a declaration of this
        file; a block of another file, given the declared dims its caller passes, has none (what
        needs them, the static sizes beside a named one, is not judged there)."""
        traced, program = self.ctx.traced, self.ctx.program
        if traced is None or traced.cls is None:
            return None
        config = self.ctx.shape_config()
        if not any(spec.kind in (DimKind.NAMED, DimKind.DYNAMIC) for _, dims in config.inputs for _, spec in dims):
            return None
        sizes = self.ctx.sizes()
        if sizes is None:
            return None
        cls = traced.cls.node
        key = f"ties:{id(cls)}"
        found = self.ctx.shared.get(key)
        if found is None:
            declaration = program.shape_declarations.get(cls.name.value)
            reader = program.shapes_reader
            examples = declared_examples(declaration, reader) if declaration is not None and reader is not None else ()
            found = self.ctx.shared[key] = (examples, init_buffers(cls, self.ctx.resolve))
        examples, buffers = found  # type: ignore[misc]
        return sizes, config, examples, buffers

    def _conditional(self) -> set[int]:
        """The nodes of `forward` under an `if` or a conditional expression: the example may not
        take that side, and an op the trace never runs ties nothing (measured)."""
        traced = self.ctx.traced
        assert traced is not None
        key = f"conditional:{id(traced.func)}"
        found = self.ctx.shared.get(key)
        if found is None:
            found = set()
            for node in iter_nodes(traced.func.body):
                if isinstance(node, cst.If):
                    parts: list[cst.CSTNode | None] = [node.body, node.orelse]
                elif isinstance(node, cst.IfExp):
                    parts = [node.body, node.orelse]
                else:
                    continue
                found.update(id(inner) for part in parts if part is not None for inner in iter_nodes(part))
            self.ctx.shared[key] = found
        return found  # type: ignore[return-value]

    def _split_by(self, node: cst.Call, targets: list[cst.BaseExpression], setting: tuple) -> bool:
        """`x.view(b, 2, s // 2)`: a target size that floor-divides a plain named size by `k`
        keeps the element count only where `k` divides it, a guard the `Dim` does not give
        (measured: fails in both modes; declared `2 * h` it exports)."""
        sizes, config = setting[0], setting[1]
        for target in targets:
            split = sizes.followed(target)
            if not (isinstance(split, cst.BinaryOperation) and isinstance(split.operator, cst.FloorDivide)):
                continue
            by = sizes.integer(split.right)
            size = _size_of(split.left, sizes)
            if size.ref is None and by is not None and self._split_unproven(
                node, _from_term(sizes.number_term(split.left)), by, config
            ):
                return True  # `Hp // 7` of `Hp = H + (7 - H % 7) % 7`
            spec = config.dim(*size.ref) if size.ref is not None else None
            if by is None or by < 2 or spec is None or spec.kind is not DimKind.NAMED:
                continue
            if spec.scale % by == 0 and spec.offset % by == 0:
                continue  # a multiple of `by` by declaration
            self.report(node, f"`{short(node)}`: `{short(split)}` keeps the element count only where {by} divides "
                              f"{_name(size)} ({spec.text()}), so export needs it a multiple of {by} and fails with "
                              "ConstraintViolationError (Constraints violated); declare it as a derived `Dim` "
                              f"(`{by} * {spec.name}`)")
            return True
        return False

    def _split_unproven(self, node: cst.Call, dim: _Dim, by: int, config: ShapeConfig) -> bool:
        """Splitting by `by` a size computed from a named size with `%` (Swin's pad up to a window
        multiple, `h + (7 - h % 7) % 7`): export cannot show `by` divides it for the whole range,
        though it always does, and fails in both modes (measured, as `view(b, -1, 7, c)`,
        `view(b, hp // 7, 7, c)` and `unflatten(1, (-1, 7))`; merging it exports, and so does the
        split where the `Dim` is declared `7 * d`). Sizes written with `//` alone are not judged:
        strict export proves some of them."""
        if dim.ref is None or dim.term is None or by < 2 or not has_operation(dim.term, "%"):
            return False
        spec = config.dim(*dim.ref)
        if spec.kind is not DimKind.NAMED or proven_multiple(dim.term, by, config):
            return False
        self.report(node, f"`{short(node)}`: splits a size computed with `%` from {_name(dim)} ({spec.text()}) "
                          f"by {by}: export cannot show {by} divides it for every size in the range and fails with "
                          "ConstraintViolationError (Constraints violated); declare it as a derived `Dim` "
                          f"(`{by} * {spec.name}`) so the remainder is 0")
        return True

    def _split_computed(self, node: cst.Call, dims: list[_Dim], targets: list[cst.BaseExpression], setting: tuple) -> bool:
        """`x.view(b, -1, 7, c)` of a tensor whose size `b` and `c` are kept around one size
        computed with `%` from a named size: the literals between split it (`_split_unproven`)."""
        sizes = setting[0]
        given = [self._target_size(target, setting) for target in targets]
        dims = _with_examples(dims, setting)
        first = 0
        while first < min(len(dims), len(targets)) and _same_size(dims[first], given[first], targets[first]):
            first += 1
        last = 0
        while last < min(len(dims), len(targets)) - first and _same_size(dims[-1 - last], given[-1 - last], targets[-1 - last]):
            last += 1
        middle, split = dims[first:len(dims) - last], targets[first:len(targets) - last]
        numbers = [integer_literal(t) if integer_literal(t) is not None else sizes.integer(t) for t in split]
        if len(middle) != 1 or len(split) < 2 or numbers.count(-1) > 1:
            return False
        by = math.prod(n for n in numbers if n is not None and n != -1)
        return self._split_unproven(node, middle[0], by, setting[1])

    def _divides(self, node: cst.Call, dims: list[_Dim], targets: list[cst.BaseExpression], setting: tuple) -> bool:
        """`x.reshape(x.shape[0], 2, -1)` of `(4, d)`: the `-1` is `4 * d / 8`, so export needs
        `d` even, a guard a named `Dim` does not give (measured: fails in both modes). Reported
        where one named size is in the element count, the other sizes are constants, and the
        target's constants do not divide theirs."""
        sizes, config = setting[0], setting[1]
        if any(d.ref is None and d.size is None for d in dims):
            return False
        # without a `-1` the element count is a constant: `Dim.DYNAMIC` refuses that as a named Dim does
        # (measured: `x.reshape(x.shape[0], 4, 8)` of `(2, d)` fails under `Dim.DYNAMIC`, exports under `Dim.AUTO`)
        counted = all(integer_literal(target) != -1 for target in targets)
        pinning = (DimKind.NAMED, DimKind.DYNAMIC) if counted else (DimKind.NAMED,)
        named = [d for d in dims if d.ref is not None]
        total = math.prod(d.size for d in dims if d.ref is None)  # type: ignore[misc]
        rest = 1
        for target in targets:
            number = integer_literal(target)
            if number is None:
                number = sizes.integer(target)  # `self.num_heads` as `__init__` sets it
            if number == -1:
                continue
            if number is None:
                size = _size_of(target, sizes)
                kept = next((d for d in named if d.ref == size.ref), None) if size.ref is not None else None
                if kept is not None:
                    # a size the target keeps (`x.view(b, 8, 4, 4)` of `(b, n, 16)`): the same factor on
                    # both sides; the other sizes decide (measured: fails in both modes, n tied to 8)
                    named.remove(kept)
                    continue
                if size.ref is None or config.dim(*size.ref).kind is not DimKind.STATIC:
                    return False
                position, index = size.ref[1], size.ref[2]
                example = setting[2][position] if position < len(setting[2]) else None
                number = example[index] if example is not None and index < len(example) else None
                if number is None:
                    return False
            rest *= number
        if len(named) != 1 or config.dim(*named[0].ref).kind not in pinning or config.dim(  # type: ignore[misc]
            *named[0].ref  # type: ignore[misc]
        ).derived:
            return False  # none left (the `-1` or the count a constant), or two: not this test
        if rest <= 0 or total % rest == 0 and not counted:
            return False
        spec = config.dim(*named[0].ref)  # type: ignore[misc]
        if counted:
            self.report(node, f"`{short(node)}`: the target sizes fix the element count at {rest}, so export ties "
                              f"{_name(named[0])} ({spec.text()}) to the constant {rest / total:g} and fails with "
                              "ConstraintViolationError (Constraints violated); use -1 for the dynamic dimension")
            return True
        self.report(node, f"`{short(node)}`: the `-1` is {_name(named[0])} ({spec.text()}) times {total}/{rest}, so "
                          f"export needs it a multiple of {rest // math.gcd(total, rest)} and fails with "
                          "ConstraintViolationError (Constraints violated); declare it as a derived `Dim` "
                          f"(`{rest // math.gcd(total, rest)} * {spec.name}`)")
        return True

    def _split(self, node: cst.Call, method: str, tensor: cst.BaseExpression, args: Sequence[cst.Arg]) -> None:
        """`x.chunk(2, dim)`, `x.split(2, dim)`, `x.split([2, 4], dim)` (or `torch.split(x, ...)`)
        along a dimension with a plain named `Dim`: the number or sizes of the pieces fix it, or
        need it a multiple of the count (measured: all three fail in both modes; a chunk of a
        `2 * d` dimension exports). A piece size computed from the dimension (`w // 2`) needs it a
        multiple too (measured: fails in both modes; declared `2 * d` it exports). A list that
        sums to the dimension (`[2, w - 2]`) fixes nothing; non-strict export guards its computed
        piece `!= 1`, which fails where the range lets it be 1 (measured at `min=3`; `min=4`
        exports; strict exports both)."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional() or not args:
            return
        dims = self._operand(tensor, setting)
        axis = argument(args, 1, "dim")
        axis = integer_literal(axis) if axis is not None else 0
        count = args[0].value
        if dims is None or axis is None or not -len(dims) <= axis < len(dims) or args[0].keyword is not None:
            return
        dim = dims[axis]
        spec = setting[1].dim(*dim.ref) if dim.ref is not None else None
        if spec is None or spec.kind is not DimKind.NAMED or not dim.exact:
            return
        if spec.derived:
            self._chunked_derived(node, method, count, dim, spec, setting[1])
            return
        if isinstance(count, (cst.List, cst.Tuple)):
            # `[n // 2, n - n // 2]`: a piece floor-dividing the size (measured: fails in both modes
            # at any `min`, torch cannot prove the pieces' guards over the range; `2 * d` exports)
            count = next((e.value for e in count.elements if self._divided(e.value, dim, setting[0])), count)
            if isinstance(count, (cst.List, cst.Tuple)):
                self._split_list(node, count, dim, spec)
                return
        by = self._divided(count, dim, setting[0])
        if by is not None:
            if spec.scale % by == 0 and spec.offset % by == 0:
                return
            why, factor = f"a piece size of `{short(count)}` needs it a multiple of {by}", str(by)
        elif isinstance(count, cst.Integer) and int(count.evaluated_value) > 1:
            why = (f"export needs it a multiple of {count.value}" if method == "chunk"
                   else "the number of pieces depends on it")
            factor = count.value
        else:
            return
        self.report(node, f"`{short(node)}`: splitting {_name(dim)} ({spec.text()}): {why}, so export fails with "
                          "ConstraintViolationError (Constraints violated); declare it as a derived `Dim` "
                          f"(`{factor} * {spec.name}`) or static")

    def _chunked_derived(
        self, node: cst.Call, method: str, count: cst.BaseExpression, dim: _Dim, spec: DimSpec, config: ShapeConfig
    ) -> None:
        """`x.chunk(2, 1)` along a size declared `2 * d` where another input's size is the root
        `d` itself: torch guards the number of pieces (`(3*d - 1) // d == 2`), which it cannot
        prove over d's range (measured: fails in both modes, unpacked or indexed); no input
        carrying `d` itself, or `x.unflatten(1, (2, -1))`, exports."""
        if method != "chunk" or not (isinstance(count, cst.Integer) and int(count.evaluated_value) > 1):
            return
        carried = any(s.kind is DimKind.NAMED and s.name == spec.name and not s.derived
                      for _, dims in config.inputs for _, s in dims)
        if carried:
            self.report(node, f"`{short(node)}`: chunking {_name(dim)} ({spec.text()}) while another input's size is "
                              f"`{spec.name}` itself: export guards the number of pieces, which it cannot prove "
                              "over the range, and fails with ConstraintViolationError (Constraints violated); "
                              f"use `unflatten({dim.ref[2]}, ({count.value}, -1))` and index the pieces")  # type: ignore[index]

    def _ranked(self, node: cst.Call, tensor: cst.BaseExpression, args: Sequence[cst.Arg]) -> None:
        """`x.topk(k, dim)` / `x.kthvalue(k, dim)` along a named size: export guards `k <= n`. A
        constant `k` above the declared `min` splits the range; a `k` that floor-divides the size
        (`n // 2`) is one export cannot show below it (measured: both fail in both modes at every
        `min` tried; `k` at most `min` exports)."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional() or any(a.star for a in args):
            return
        sizes, config = setting[0], setting[1]
        count, axis = argument(args, 0, "k"), argument(args, 1, "dim")
        axis_number = integer_literal(axis) if axis is not None else -1
        dims = self._operand(tensor, setting)
        if count is None or axis_number is None or not dims or not -len(dims) <= axis_number < len(dims):
            return
        dim = dims[axis_number % len(dims)]
        spec = config.dim(*dim.ref) if dim.ref is not None and dim.exact else None
        if spec is None or spec.kind is not DimKind.NAMED:
            return
        number = sizes.integer(count)
        low = spec.values()[0]
        if number is not None and number > low:
            self.report(node, f"`{short(node)}`: k = {number} needs {_name(dim)} ({spec.text()}) at least {number}: "
                              f"export guards `{number} <= {spec.name}`, which splits the declared range, and fails "
                              f"with ConstraintViolationError (Constraints violated); declare `min={number}`")
            return
        term = sizes.number_term(count) if number is None else None
        if term is not None and set(term_refs(term)) == {dim.ref} and has_operation(term, "//"):
            self.report(node, f"`{short(node)}`: k = `{short(count)}` floor-divides {_name(dim)} ({spec.text()}): "
                              f"export guards `k <= {spec.name}` and cannot show it, so it fails with "
                              "ConstraintViolationError (Constraints violated); compute k from a `Dim` declared "
                              "for it, or use a constant k at most the declared `min`")

    def _split_list(self, node: cst.Call, listed: cst.List | cst.Tuple, dim: _Dim, spec: DimSpec) -> None:
        """Pieces listed as literals fix the total; one piece written as the size less the
        literals (`[2, w - 2]`) sums to it, so only its length of 1 is guarded (non-strict)."""
        numbers = [self._setting()[0].integer(e.value) for e in listed.elements]  # type: ignore[index]
        if None not in numbers:
            self.report(node, f"`{short(node)}`: splitting {_name(dim)} ({spec.text()}): the listed sizes fix its "
                              "total, so export fails with ConstraintViolationError (Constraints violated); declare "
                              "it static, or compute the last piece from the size (`[" + ", ".join(
                                  str(n) for n in numbers[:-1]) + f", {_name(dim).strip('`')} - "
                              f"{sum(numbers[:-1])}]`)")  # type: ignore[arg-type]
            return
        computed = [e.value for e, n in zip(listed.elements, numbers, strict=True) if n is None]
        rest = sum(n for n in numbers if n is not None)
        piece = computed[0] if len(computed) == 1 else None
        if not (isinstance(piece, cst.BinaryOperation) and isinstance(piece.operator, cst.Subtract)
                and integer_literal(piece.right) == rest and _size_of(piece.left, self._setting()[0]).ref == dim.ref):  # type: ignore[index]
            return  # not the size less the literals: what the pieces add up to is not known
        if self.ctx.mode is Mode.STRICT or spec.values()[0] > rest + 1:
            return
        self.report(node, f"`{short(node)}`: the piece `{short(piece)}` is 1 long at {_name(dim)} = {rest + 1}, "
                          f"inside {spec.text()}: non-strict export guards it `!= 1` and fails with "
                          "ConstraintViolationError (Constraints violated); declare "
                          f"`min={rest + 2}`", severity=Severity.ERROR)

    def _divided(self, count: cst.BaseExpression, dim: _Dim, sizes: Sizes) -> int | None:
        """`k` of a piece size `w // k` (k >= 2) computed from the split dimension's own size `w`."""
        count = sizes.followed(count)
        if not (isinstance(count, cst.BinaryOperation) and isinstance(count.operator, cst.FloorDivide)):
            return None
        by = sizes.integer(count.right)
        return by if by is not None and by >= 2 and _size_of(count.left, sizes).ref == dim.ref else None

    def _operand(self, expr: cst.BaseExpression, setting: tuple, depth: int = 0) -> list[_Dim] | None:  # noqa: C901
        """The dimensions of the tensor `expr`, followed through the ops that relate sizes
        (slices, cat, pad, interpolate, einsum, reshape, matmul, elementwise, layers that keep
        dimensions); None where an op not modelled made it (never a guess)."""
        sizes, config, examples, buffers = setting
        if depth > 12:
            return None
        if isinstance(expr, cst.Name):
            if sizes.reads_input(expr):
                position = sizes.positions[expr.value]
                example = examples[position] if position < len(examples) else None
                if example is None:
                    return self._passed_whole(expr.value, position, config)
                out = []
                for index, size in enumerate(example):
                    spec = config.dim(expr.value, position, index)
                    ref = (expr.value, position, index)
                    out.append(_Dim(size=size) if spec.kind is DimKind.STATIC else _Dim(ref))
                return out
            if expr.value in sizes.unpacked and expr.value not in sizes.reassigned:
                value, index = sizes.unpacked[expr.value]
                return self._piece(value, index, setting, depth + 1)
            followed = sizes.followed(expr)
            return self._operand(followed, setting, depth + 1) if followed is not expr else None
        entry = sizes.entry(expr)
        if entry is not None:  # `batch["ids"]`: a declared entry of a nested input
            return self._passed_whole(*entry, config)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            shape = buffers.get(expr.attr.value)
            return [_Dim(size=n) for n in shape] if shape is not None else None
        if isinstance(expr, cst.Subscript):
            return self._sliced(expr, setting, depth)
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self._operand(expr.expression, setting, depth + 1)  # `-x2`, `~mask`: elementwise
        if isinstance(expr, cst.BinaryOperation):
            a, b = self._operand(expr.left, setting, depth + 1), self._operand(expr.right, setting, depth + 1)
            if isinstance(expr.operator, cst.MatrixMultiply):
                return _product(a, b)
            if not isinstance(expr.operator, _ELEMENTWISE):
                return None
            if sizes.is_number(expr.left):  # `2 * x`, `x / math.sqrt(d)`: a Python number keeps the sizes
                return b
            if sizes.is_number(expr.right):
                return a
            return _broadcast(a, b)
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1 and isinstance(
            expr.comparisons[0].operator, _COMPARISONS
        ):  # `torch.arange(n) < 3`, `a > b`: elementwise, broadcast as arithmetic is
            left, right = expr.left, expr.comparisons[0].comparator
            if isinstance(right, (cst.Integer, cst.Float)):
                return self._operand(left, setting, depth + 1)
            if isinstance(left, (cst.Integer, cst.Float)):
                return self._operand(right, setting, depth + 1)
            return _broadcast(self._operand(left, setting, depth + 1), self._operand(right, setting, depth + 1))
        if isinstance(expr, cst.Call) and arguments_read(expr):
            return self._called(expr, setting, depth)
        return None

    @staticmethod
    def _passed_whole(name: str, position: int, config: ShapeConfig) -> list[_Dim] | None:
        """The dimensions of a block's input its caller passes whole (`self.block(x, c)`), where
        the caller's example shows its rank: the declared ones carry their `Dim`, the static ones
        an unknown size (a block has no example of its own)."""
        rank = config.rank(name, position)
        if rank is None:
            return None
        return [_Dim() if config.dim(name, position, index).kind is DimKind.STATIC else _Dim((name, position, index))
                for index in range(rank)]

    def _sliced(self, expr: cst.Subscript, setting: tuple, depth: int) -> list[_Dim] | None:
        """`y[1:]`, `x[:, :-1]`, `x[0]`: a slice by literals moves the size by a constant."""
        sizes = setting[0]
        value = sizes.followed(expr.value)
        if isinstance(value, cst.Call) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            index = integer_literal(expr.slice[0].slice.value)
            if index is not None and index >= 0 and _split_like(value):
                return self._piece(value, index, setting, depth + 1)  # `x.split(2, 1)[0]`
        inner = self._operand(expr.value, setting, depth + 1)
        if inner is None:
            return None
        out = []
        position = 0
        for element in expr.slice:
            part = element.slice
            if isinstance(part, cst.Index) and isinstance(part.value, cst.Name) and part.value.value == "None":
                out.append(_Dim(size=1))  # `mask[:, None, :]`: a new dimension of size 1
                continue
            if isinstance(part, cst.Index) and isinstance(part.value, cst.Ellipsis):
                # `x[..., ::2, :]`: the dimensions no other index takes, kept
                indexing = [e for e in expr.slice if not (isinstance(e.slice, cst.Index) and (
                    isinstance(e.slice.value, cst.Ellipsis) or (
                        isinstance(e.slice.value, cst.Name) and e.slice.value.value == "None")))]
                kept = len(inner) - len(indexing)
                if kept < 0 or position + kept > len(inner):
                    return None
                out.extend(inner[position:position + kept])
                position += kept
                continue
            if position >= len(inner):
                return None
            dim = inner[position]
            position += 1
            if isinstance(part, cst.Index):
                if not isinstance(part.value, cst.Integer):
                    return None
                continue  # an integer index drops the dimension
            if isinstance(part, cst.Slice) and part.step is not None:
                start = integer_literal(part.lower) if part.lower is not None else 0
                if start is None or start < 0 or part.upper is not None or (integer_literal(part.step) or 0) < 2:
                    return None
                out.append(_strided(dim, integer_literal(part.step), start))  # type: ignore[arg-type]
                continue
            if not isinstance(part, cst.Slice):
                return None
            if part.lower is None and part.upper is None:
                out.append(dim)
                continue
            lower = integer_literal(part.lower) if part.lower is not None else 0
            upper = integer_literal(part.upper) if part.upper is not None else 0
            if lower is None or upper is None or lower < 0 or upper > 0 or dim.affine is None:
                out.append(_Dim(dim.ref, dim.size, None) if dim.ref is not None else _UNKNOWN)
            elif dim.ref is not None:  # `[1:]`, `[:-1]`, `[1:-1]`: the size less the cut
                out.append(_Dim(dim.ref, None, (dim.affine[0], dim.affine[1] - lower + upper)))
            else:
                out.append(_Dim(size=max(dim.size - lower + upper, 0)) if dim.size is not None else _UNKNOWN)
        return out + inner[position:]

    def _piece(self, value: cst.BaseExpression, index: int, setting: tuple, depth: int) -> list[_Dim] | None:
        """Piece `index` of `x.chunk(n, dim)` / `x.split(k, dim)`: the split dimension is not
        modelled (measured: a tie through a chunk of `2 * d` exports), a list of literal split
        sizes gives each piece its own. `q, k, v = qkv.unbind(0)` (or `torch.unbind(qkv, d)`):
        each the tensor without that dimension; `q, k, v = qkv.permute(2, 0, 3, 1, 4)`:
        unpacking a tensor iterates its first dimension."""
        if isinstance(value, cst.Call) and _unbinds(value, self.ctx.resolve(value.func) or ""):
            method = isinstance(value.func, cst.Attribute) and not (self.ctx.resolve(value.func) or "").startswith("torch.")
            tensor = value.func.value if method else value.args[0].value  # type: ignore[attr-defined]
            dims = self._operand(tensor, setting, depth + 1)
            axis = argument(value.args if method else value.args[1:], 0, "dim")
            axis = integer_literal(axis) if axis is not None else 0
            if dims is None or axis is None or not -len(dims) <= axis < len(dims):
                return None
            return [d for i, d in enumerate(dims) if i != axis % len(dims)]
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _ITERATED:
            dims = self._operand(value, setting, depth + 1)
            return dims[1:] if dims else None
        if not isinstance(value, cst.Call) or not _split_like(value):
            return None
        func = value.func
        tensor = func.value if isinstance(func, cst.Attribute) else value.args[0].value if value.args else None  # type: ignore[union-attr]
        args = value.args if isinstance(func, cst.Attribute) else value.args[1:]
        dims = self._operand(tensor, setting, depth + 1) if tensor is not None else None
        if dims is None or not args:
            return None
        axis = argument(args, 1, "dim")
        axis = integer_literal(axis) if axis is not None else 0
        if axis is None or not -len(dims) <= axis < len(dims):
            return None
        first = args[0].value
        sizes_list = [integer_literal(e.value) for e in first.elements] if isinstance(first, (cst.List, cst.Tuple)) else None
        piece = _Dim(size=sizes_list[index]) if sizes_list and index < len(sizes_list) and None not in sizes_list else _UNKNOWN
        return [piece if i == axis % len(dims) else d for i, d in enumerate(dims)]

    def _called(self, call: cst.Call, setting: tuple, depth: int) -> list[_Dim] | None:  # noqa: C901 - one dispatch
        sizes = setting[0]
        func = call.func
        first = call.args[0].value if call.args and call.args[0].keyword is None else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            layer = sizes.layers.get(func.attr.value)
            dims = self._operand(first, setting, depth + 1) if first is not None else None
            if dims is None or layer is None:
                return None
            if layer in _LAST_CHANGED:
                features = self._features(func.attr.value)
                return [*dims[:-1], _Dim(size=features[1]) if features is not None else _UNKNOWN]
            if layer == "Embedding":
                return [*dims, _UNKNOWN]
            if layer in KEEP_ALL_LAYERS:
                return dims
            return self._from_terms(call, setting)
        name = self.ctx.resolve(func) or ""
        if isinstance(func, cst.Attribute) and func.attr.value in _NEW_FACTORIES and not name.startswith("torch."):
            # `x.new_zeros(x.shape[0], 2)`: sized as `torch.zeros` is
            return self._made(call, "torch.full" if func.attr.value == "new_full" else "torch.zeros", sizes)
        if isinstance(func, cst.Attribute) and not name.startswith("torch."):
            method = func.attr.value
            dims = self._operand(func.value, setting, depth + 1)
            if dims is None:
                return None
            if method in KEEP_ALL_METHODS:
                return dims
            numbers = [integer_literal(a.value) for a in call.args]
            if method == "expand" and len(numbers) >= len(dims) and not any(a.keyword or a.star for a in call.args):
                # `cls.expand(x.shape[0], -1, -1)`: -1 keeps a size, the others are the sizes given
                kept = [*([None] * (len(numbers) - len(dims))), *dims]
                return [old if n == -1 and old is not None else _UNKNOWN if n == -1 else _Dim(size=n) if n is not None
                        else _size_of(a.value, sizes) for old, n, a in zip(kept, numbers, call.args, strict=True)]
            if method == "repeat_interleave":
                return _interleaved(call, dims)
            if method == "narrow":  # `x.narrow(0, 1, x.shape[0] - 1)`: the length given, as shapes.py's term
                return self._from_terms(call, setting)
            if method == "flatten" and numbers and None not in numbers:
                return _flattened(call, _with_examples(dims, setting))
            if None in numbers:
                return None if method not in ("view", "reshape") else self._reshaped(call, dims, setting)
            if method in ("view", "reshape"):
                return self._reshaped(call, dims, setting)
            if method == "t" and len(dims) == 2:
                return dims[::-1]
            if method in ("transpose", "swapaxes") and len(numbers) == 2:
                a, b = (n % len(dims) for n in numbers)  # type: ignore[operator]
                out = list(dims)
                out[a], out[b] = out[b], out[a]
                return out
            if method == "permute" and sorted(n % len(dims) for n in numbers) == list(range(len(dims))):  # type: ignore[operator]
                return [dims[n] for n in numbers]  # type: ignore[index]
            if method == "unsqueeze" and len(numbers) == 1:
                at = numbers[0] % (len(dims) + 1)  # type: ignore[operator]
                return [*dims[:at], _Dim(size=1), *dims[at:]]
            if method == "flatten" and not numbers:
                return self._reshaped(call, dims, setting, flat=True)
            if method in _REDUCTIONS and len(numbers) == 1 and -len(dims) <= numbers[0] < len(dims):  # type: ignore[operator]
                at = numbers[0] % len(dims)  # type: ignore[operator]
                return [*dims[:at], *dims[at + 1:]]
            if method == "repeat" and len(numbers) == len(dims) and all(n >= 1 for n in numbers):  # type: ignore[operator]
                return [_repeated(dim, times) for dim, times in zip(dims, numbers, strict=True)]  # type: ignore[arg-type]
            return None
        if name in _MATMUL or name == "torch.matmul":
            if len(call.args) == 2:
                return _product(self._operand(call.args[0].value, setting, depth + 1),
                                self._operand(call.args[1].value, setting, depth + 1))
            return None
        if name in _CAT:
            return self._cat(call, setting, depth)
        if name in _STACK:
            parts = self._parts(call, setting, depth)
            if not parts:
                return None
            axis = argument(call.args, 1, "dim")
            axis = integer_literal(axis) if axis is not None else 0
            if axis is None or not -len(parts[0]) - 1 <= axis <= len(parts[0]):
                return None
            axis %= len(parts[0]) + 1
            return [*parts[0][:axis], _Dim(size=len(parts)), *parts[0][axis:]]
        if name == "torch.nn.functional.pad" and first is not None:
            padded = self._padded(call, self._operand(first, setting, depth + 1), sizes)
            return padded if padded is not None else self._from_terms(call, setting)  # pads computed from sizes
        if name == "torch.einsum":
            found = self._einsum(call, setting, depth)
            return found[1] if found is not None else None
        if name in _FACTORIES:
            return self._made(call, name, sizes)
        if name == "torch.narrow":
            return self._from_terms(call, setting)
        if name == "torch.where" and len(call.args) == 3:
            parts = [self._operand(arg.value, setting, depth + 1) for arg in call.args]
            return _broadcast(_broadcast(parts[0], parts[1]), parts[2])
        if name == "torch.nn.functional.linear" and len(call.args) >= 2 and first is not None:
            dims, weight = self._operand(first, setting, depth + 1), self._operand(call.args[1].value, setting, depth + 1)
            return [*dims[:-1], weight[0]] if dims and weight and len(weight) == 2 else None
        if first is not None and name.rpartition(".")[2] in KEEP_ALL_FUNCTIONS and name.startswith("torch."):
            return self._operand(first, setting, depth + 1)
        inlined = sizes.called(call)  # a straight-line helper (diffusers' `timestep_embedding(t, 32)`)
        if inlined is not None:
            return self._operand(inlined, setting, depth + 1)
        return self._from_terms(call, setting)  # `F.pixel_shuffle`, `F.max_pool2d`, a block: as shapes.py models it

    @staticmethod
    def _from_terms(call: cst.Call, setting: tuple) -> list[_Dim] | None:
        """A layer's output dimensions from the size terms of shapes.py's per-op model (the one
        table of what layers do: convolutions, transposed ones, pools, `nn.Sequential` chains):
        a term `k * s + c` of one input size is that affine size, a constant a constant (also
        one computed from static sizes), any other function of a size a size not modelled."""
        sizes = setting[0]
        rank = sizes.rank(call)
        if rank is None:
            return None
        return [_from_term(_fixed(sizes.size_term(call, index), setting)) for index in range(rank)]

    def _made(self, call: cst.Call, name: str, sizes: Sizes) -> list[_Dim] | None:
        """`torch.zeros(x.shape[0], 3)`, `torch.ones(5)`, `torch.arange(n)`: a new tensor whose
        sizes are the literals and input sizes it is given (`arange` of one bound only)."""
        positional = [a.value for a in call.args if a.keyword is None]
        if name == "torch.arange" and len(positional) == 1 and (number := integer_constant(positional[0])) is not None:
            return [_Dim(size=number)]  # `torch.arange(dim // 2)` of a helper's `dim=32`
        if name == "torch.arange":
            return [_size_of(positional[0], sizes)] if len(positional) == 1 else None
        if name == "torch.full":
            positional = positional[:1]
        if len(positional) == 1 and isinstance(positional[0], (cst.Tuple, cst.List)):
            positional = [e.value for e in positional[0].elements]
        if not positional:
            return None
        if len(positional) == 1 and integer_literal(positional[0]) is None and _size_of(positional[0], sizes).ref is None:
            return None  # one argument that may be a whole shape (`torch.zeros(shape)`)
        out = []
        for size in positional:
            number = integer_literal(size)
            out.append(_Dim(size=number) if number is not None and number >= 0 else _size_of(size, sizes))
        return out

    def _reshaped(self, call: cst.Call, dims: list[_Dim], setting: tuple, flat: bool = False) -> list[_Dim] | None:
        """`view`/`reshape` target sizes: literals are constants, `x.shape[i]` that input size,
        and a lone `-1` (or `flatten()`) the element count over the rest where one input size
        times constants makes it."""
        dims = _with_examples(dims, setting)
        if flat:
            targets: list[cst.BaseExpression] | None = [cst.UnaryOperation(cst.Minus(), cst.Integer("1"))]
        else:
            targets = setting[0].view_targets(call.args)  # also `x.size()[:-1] + (h, d)`
        if targets is None:
            return None
        out: list[_Dim] = []
        for target in targets:
            number = integer_literal(target)
            if number is not None:
                out.append(_Dim(size=number) if number >= 0 else _UNKNOWN)
                continue
            out.append(self._target_size(target, setting))
        if [integer_literal(t) for t in targets].count(-1) == 1:
            at = [integer_literal(t) for t in targets].index(-1)
            remaining = list(dims)
            given = []
            for index, dim in enumerate(out):
                same = next((d for d in remaining if dim.ref is not None and (d.ref, d.affine) == (dim.ref, dim.affine)), None)
                if same is not None:  # `x.reshape(b, -1)` of `b, n, c = x.shape`: `b` cancels
                    remaining.remove(same)
                elif index != at:
                    given.append(dim)
            refs = [d for d in remaining if d.ref is not None]
            constants = [d.size for d in remaining if d.ref is None]
            kept = [d.size for d in given if d.ref is None and d.size is not None]
            if len(refs) == 1 and None not in constants and len(kept) == len(given):
                total, rest = math.prod(constants), math.prod(kept)  # type: ignore[arg-type]
                if refs[0].affine is not None:
                    scale, offset = refs[0].affine
                    if rest and (total * scale) % rest == 0 and (total * offset) % rest == 0:
                        out[at] = _Dim(refs[0].ref, None, (total * scale // rest, total * offset // rest))
                elif refs[0].term is not None and rest and total % rest == 0:
                    # `x.flatten(1)` after a strided conv: the channels times `(h + 1) // 2`
                    out[at] = _Dim(refs[0].ref, None, None, term=Op("*", total // rest, refs[0].term))
        return out

    @staticmethod
    def _target_size(target: cst.BaseExpression, setting: tuple) -> _Dim:
        """A size a `view`/`reshape` is given: an input's size (a static one as its example's
        size), or an affine function of one declared size times static ones (`n * c` of
        `b, n, c = x.shape` with `c` static: `16 * n`); else unknown."""
        sizes = setting[0]

        def example(ref: SizeRef) -> int | None:
            return _static_example(ref, setting)

        plain = _size_of(target, sizes)
        if plain.ref is not None:
            size = example(plain.ref)
            return plain if size is None else _Dim(size=size)
        term = sizes.number_term(target)
        refs = set(term_refs(term)) if term is not None else set()
        static = {ref: size for ref in refs if (size := example(ref)) is not None}
        free = refs - set(static)
        if term is None or len(free) > 1:
            return _UNKNOWN
        if not free:
            value = term_value(term, static)
            return _Dim(size=value) if value is not None else _UNKNOWN
        ref = free.pop()
        affine = _affine(term, ref, static)
        return _Dim(ref, None, affine) if affine is not None else _UNKNOWN

    def _parts(self, call: cst.Call, setting: tuple, depth: int) -> list[list[_Dim]] | None:
        sequence = call.args[0].value if call.args and call.args[0].keyword is None else None
        sequence = setting[0].followed(sequence) if sequence is not None else None
        if not isinstance(sequence, (cst.List, cst.Tuple)) or any(
            isinstance(e, cst.StarredElement) for e in sequence.elements
        ):
            return None
        parts = [self._operand(e.value, setting, depth + 1) for e in sequence.elements]
        if not parts or any(p is None for p in parts) or len({len(p) for p in parts}) != 1:  # type: ignore[arg-type]
            return None
        return parts  # type: ignore[return-value]

    def _cat(self, call: cst.Call, setting: tuple, depth: int) -> list[_Dim] | None:
        """`torch.cat(parts, dim)`: the other dimensions of the first part; along `dim`, the sum."""
        parts = self._parts(call, setting, depth)
        axis = argument(call.args, 1, "dim")
        axis = integer_literal(axis) if axis is not None else 0
        if not parts or axis is None or not -len(parts[0]) <= axis < len(parts[0]):
            return None
        axis %= len(parts[0])
        along = self._one_symbol([p[axis] for p in parts], setting[1])
        refs = {d.ref for d in along if d.ref is not None}
        if all(d.size is not None for d in along):
            total = _Dim(size=sum(d.size for d in along))  # type: ignore[misc]
        elif len(refs) == 1 and all(d.affine is not None for d in along) and all(
            d.ref is not None or d.size is not None for d in along
        ):
            scale = sum(d.affine[0] for d in along if d.ref is not None)  # type: ignore[index]
            offset = sum(d.affine[1] if d.ref is not None else d.size for d in along)  # type: ignore[index,misc]
            total = _Dim(refs.pop(), None, (scale, offset))
        else:
            total = _UNKNOWN
        return [total if i == axis else d for i, d in enumerate(parts[0])]

    @staticmethod
    def _one_symbol(dims: list[_Dim], config: ShapeConfig) -> list[_Dim]:
        """`dims` with sizes of different inputs declared with one named `Dim` (`{"x": {1: d}, "y":
        {1: d}}`: one symbol to torch) read as sizes of the first such input, in sorted order."""
        refs = sorted({d.ref for d in dims if d.ref is not None})
        specs = {config.dim(*ref) for ref in refs}
        if len(refs) < 2 or len(specs) != 1:
            return dims
        spec = specs.pop()
        if spec.kind is not DimKind.NAMED or spec.derived:
            return dims
        return [replace(d, ref=refs[0]) if d.ref is not None else d for d in dims]

    def _padded(self, call: cst.Call, dims: list[_Dim] | None, sizes: Sizes) -> list[_Dim] | None:
        """`F.pad(x, (left, right, top, bottom))`, constant mode: each padded size grows, by
        literals or by amounts computed from that size (`W % 2`: a term of it)."""
        pad = call.args[1].value if len(call.args) > 1 and call.args[1].keyword is None else None
        if dims is None or not isinstance(pad, (cst.Tuple, cst.List)) or argument(call.args, 2, "mode") is not None:
            return None
        amounts = [sizes.number_term(e.value) for e in pad.elements]
        if None in amounts or len(amounts) % 2 or len(amounts) // 2 > len(dims):
            return None
        out = list(dims)
        for pair in range(len(amounts) // 2):
            before, after = amounts[2 * pair], amounts[2 * pair + 1]
            grow = before + after if isinstance(before, int) and isinstance(after, int) else Op("+", before, after)
            at = len(dims) - 1 - pair
            dim = out[at]
            if isinstance(grow, int) and dim.ref is not None and dim.affine is not None:
                out[at] = _Dim(dim.ref, None, (dim.affine[0], dim.affine[1] + grow))
            elif isinstance(grow, int) and dim.size is not None:
                out[at] = _Dim(size=dim.size + grow)
            elif dim.ref is not None and dim.affine is not None and set(term_refs(grow)) == {dim.ref}:
                out[at] = _Dim(dim.ref, None, None, term=Op("+", _affine_term(dim.ref, *dim.affine), grow))
            else:
                out[at] = _UNKNOWN
        return out

    def _einsum(self, call: cst.Call, setting: tuple, depth: int) -> tuple[list[tuple[_Dim, _Dim]], list[_Dim]] | None:
        """The pairs of dimensions an `einsum` equation ties (one letter on two operands), and
        its result's dimensions; None for operands not modelled. `...` stands for the dimensions
        the letters leave (they broadcast, so they tie nothing here; the result keeps the longest)."""
        equation = call.args[0].value if call.args else None
        if not isinstance(equation, cst.SimpleString) or len(call.args) < 2:
            return None
        text = str(equation.evaluated_value).replace(" ", "")
        if "->" not in text:
            return None
        inputs, output = text.split("->")
        letters = inputs.split(",")
        operands = [self._operand(a.value, setting, depth + 1) for a in call.args[1:]]
        if len(letters) != len(operands):
            return None
        seen: dict[str, _Dim] = {}
        ties: list[tuple[_Dim, _Dim]] = []
        spread: list[_Dim] = []  # what `...` stands for, in the operand where it is longest
        for word, dims in zip(letters, operands, strict=True):
            if dims is not None and "..." in word:
                before, _, after = word.partition("...")
                extra = len(dims) - len(before) - len(after)
                if extra < 0 or "..." in after:
                    dims = None
                else:
                    spread = max(spread, dims[len(before):len(before) + extra], key=len)
                    word, dims = before + after, [*dims[:len(before)], *dims[len(before) + extra:]]
            if dims is None or len(dims) != len(word):
                return (ties, []) if ties else None
            for letter, dim in zip(word, dims, strict=True):
                if letter in seen:
                    ties.append((seen[letter], dim))
                else:
                    seen[letter] = dim
        before, dots, after = output.partition("...")
        return ties, [*(seen.get(c, _UNKNOWN) for c in before), *(spread if dots else ()),
                      *(seen.get(c, _UNKNOWN) for c in after)]

    def _joined(self, node: cst.Call, name: str) -> None:
        """`torch.cat`/`stack` tie every dimension but the joined one across parts; `einsum`
        ties the dimensions one letter names."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        if name == "torch.einsum":
            found = self._einsum(node, setting, 0)
            pairs = found[0] if found is not None else []
            what = "the equation"
        else:
            parts = self._parts(node, setting, 0)
            if not parts:
                return
            axis = argument(node.args, 1, "dim")
            axis = integer_literal(axis) if axis is not None else 0
            if axis is None:
                return
            skip = axis % len(parts[0]) if name in _CAT and -len(parts[0]) <= axis < len(parts[0]) else None
            pairs = [(parts[0][i], part[i]) for part in parts[1:] for i in range(len(parts[0])) if i != skip]
            what = "joining"
        for first, second in pairs:
            reason = self._tie(first, second, setting[1], broadcast=False)
            if reason is not None:
                self.report(node, f"`{short(node)}`: {what} ties {reason}", fix=self._declaration_fix(first, second))
                return

    def _check(self, node: cst.CSTNode, left: cst.BaseExpression, right: cst.BaseExpression, matmul: bool) -> bool:
        """Report where `left op right` ties two sizes export cannot tie; whether it reported."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return False
        a, b = self._operand(left, setting), self._operand(right, setting)
        if not a or not b:
            return False
        if matmul:
            if len(a) < 2 or len(b) < 1:
                return False
            pairs = [(a[-1], b[-2] if len(b) >= 2 else b[0])]
            # the batch dimensions before the two multiplied broadcast as elementwise ones do
            pairs += list(zip(reversed(a[:-2]), reversed(b[:-2]), strict=False)) if len(b) >= 3 else []
        else:
            pairs = list(zip(reversed(a), reversed(b), strict=False))
        config = setting[1]
        for first, second in pairs:
            reason = self._tie(first, second, config)
            if reason is not None:
                fix = self._declaration_fix(first, second)
                what = "the product" if matmul else "broadcasting"
                self.report(node, f"`{short(node)}`: {what} ties {reason}", fix=fix)
                return True
        return False

    def _attention(self, node: cst.Call) -> None:
        """`F.scaled_dot_product_attention(q, k, v)`: queries and keys one width (dimension -1),
        without broadcasting; keys and values one length (dimension -2), but for 4-d operands and
        no other argument, where torch 2.13 keeps CPU's fused kernel, which guards nothing between
        the lengths (measured: `(2, 4, 10, 16)` keys and values on `Dim("lk")` and `Dim("lv")` export
        in both modes; `(2, 7, 8)` ones fail in both, the math path's matmul ties them)."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        q, k, v = (self._operand(arg.value, setting) for arg in node.args[:3])
        pairs = []
        fused = len(node.args) == 3 and all(d is not None and len(d) == 4 for d in (q, k, v))
        if k and v and len(k) >= 2 and len(v) >= 2 and not fused:
            pairs.append((k[-2], v[-2], "the keys' length", False))
        if q and k:
            pairs.append((q[-1], k[-1], "the queries' width", False))
        for one, other in ((q, k), (k, v)):  # batch and heads, before the last two, broadcast
            if one and other and len(one) > 2 and len(other) > 2:
                pairs += [(a, b, "a batch dimension", True)
                          for a, b in zip(reversed(one[:-2]), reversed(other[:-2]), strict=False)]
        for first, second, what, broadcast in pairs:
            reason = self._tie(first, second, setting[1], broadcast=broadcast)
            if reason is not None:
                self.report(node, f"`{short(node)}`: {what} ties {reason}", fix=self._declaration_fix(first, second))
                return

    def _loss(self, node: cst.Call, name: str) -> None:
        """`F.cross_entropy(input, target)` / `F.nll_loss`: one sample per target (dimension 0),
        and class indices (one rank less) sized as the input's dimensions after the classes;
        an elementwise loss (`F.mse_loss(a, b)`) broadcasts as `a - b` does."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        given, target = node.args[0].value, node.args[1].value
        if name.rpartition(".")[2] not in _CLASS_LOSSES:
            self._check(node, given, target, matmul=False)
            return
        a, b = self._operand(given, setting), self._operand(target, setting)
        if not a or not b or len(a) < 2:
            return
        pairs = list(zip(a, b, strict=False)) if len(b) == len(a) else (
            [(a[0], b[0]), *zip(a[2:], b[1:], strict=False)] if len(b) == len(a) - 1 else [])
        for first, second in pairs:
            reason = self._tie(first, second, setting[1])
            if reason is not None:
                self.report(node, f"`{short(node)}`: the targets tie {reason}", fix=self._declaration_fix(first, second))
                return

    def _features(self, attr: str) -> tuple[int, int] | None:
        """(in_features, out_features) of `self.<attr> = nn.Linear(6, 3)` built in `__init__`
        with literal sizes, or None."""
        traced = self.ctx.traced
        call = init_call(traced.cls.node, attr) if traced is not None and traced.cls is not None else None
        if call is None or (self.ctx.resolve(call.func) or "").rpartition(".")[2] != "Linear" or len(call.args) < 2:
            return None
        given = [self._built_size(arg.value) if arg.keyword is None or arg.keyword.value in ("in_features", "out_features")
                 else None for arg in call.args[:2]]
        return (given[0], given[1]) if None not in given else None  # type: ignore[return-value]

    def _built_size(self, expr: cst.BaseExpression) -> int | None:
        """A size a layer of the traced class is built with in `__init__` (see `init_integer`)."""
        traced = self.ctx.traced
        found = _whole(expr)
        if found is None and traced is not None and traced.cls is not None:
            found = init_integer(traced.cls.node, expr)
        return found

    def _linear(self, node: cst.Call, attr: str) -> None:
        """`self.proj(x)` of `nn.Linear(6, 3)`: the weight needs `x`'s last size to be 6; the same
        for a layer whose weights fix the size of one input dimension (see `_layer_input`)."""
        setting = self._setting()
        if setting is None or len(node.args) != 1 or id(node) in self._conditional():
            return
        dims = self._operand(node.args[0].value, setting)
        features = self._features(attr)
        fixed = ([(-1, features[0], f"the layer's {features[0]} input features")] if features is not None
                 else self._layer_input(attr, len(dims)) if dims else None)
        if dims and fixed is None:
            self._chained(node, attr, dims, setting[1])
            return
        if not dims or fixed is None:
            return
        for index, size, what in fixed:
            reason = self._tie(dims[index], _Dim(size=size), setting[1], broadcast=False) if -len(dims) <= index else None
            if reason is not None:
                self.report(node, f"`{short(node)}`: {what} tie {reason}")
                return

    def _first_listed_layer(self, node: cst.Call, looped: tuple[str, str]) -> None:
        """`layer(x)` of `for layer in self.layers` over `nn.ModuleList([nn.Linear(8, 8), ...])`:
        the first layer's 8 input features tie `x`'s last size (measured: a named `Dim` there fails)."""
        setting = self._setting()
        traced = self.ctx.traced
        attr, name = looped
        if setting is None or traced is None or traced.cls is None or id(node) in self._conditional():
            return
        sizes, config = setting[0], setting[1]
        listed = module_list(init_call(traced.cls.node, attr))
        first = listed[0] if listed else None
        if first is None or (self.ctx.resolve(first.func) or "").rpartition(".")[2] != "Linear" or not first.args:
            return
        features = self._built_size(first.args[0].value) if first.args[0].keyword is None else None
        position = sizes.positions.get(name)
        dims = self._passed_whole(name, position, config) if position is not None else None
        if features is None or not dims:
            return
        reason = self._tie(dims[-1], _Dim(size=features), config, broadcast=False)
        if reason is not None:
            self.report(node, f"`{short(node)}`: the {features} input features of the first `Linear` of "
                              f"`self.{attr}` tie {reason}")

    def _pooled_1d(self, node: cst.Call) -> None:
        """`F.max_pool1d(x, 2)` or `self.pool(x)` of `nn.MaxPool1d`: torch 2.13 specialises the
        pooled length (measured: a named `Dim` on it fails in both modes whatever its range, "you
        marked a as dynamic but your code specialized it", `Dim.DYNAMIC` and `2 * d` too; a named
        batch and `Dim.AUTO` export)."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional() or not node.args or node.args[0].keyword is not None:
            return
        dims = self._operand(node.args[0].value, setting)
        length = dims[-1] if dims else None
        spec = setting[1].dim(*length.ref) if length is not None and length.ref is not None else None
        if spec is None or spec.kind not in (DimKind.NAMED, DimKind.DYNAMIC) or length.affine is None:  # type: ignore[union-attr]
            return
        self.report(node, f"`{short(node)}`: 1-d max pooling specialises the length it pools, {_name(length)} "  # type: ignore[arg-type]
                          f"({spec.text()}): export fails with ConstraintViolationError (Constraints violated); "
                          "declare that dimension static, or Dim.AUTO")

    def _chained(self, node: cst.Call, attr: str, dims: list[_Dim], config: ShapeConfig) -> None:
        """`self.head(x)` of `nn.Sequential(nn.Flatten(), nn.Linear(12, 4))` built with literals:
        each layer's sizes from the one before, up to the first `Linear` whose input features
        the sizes reaching it must give (a flattened named size times constants is tied to them)."""
        traced = self.ctx.traced
        built = init_call(traced.cls.node, attr) if traced is not None and traced.cls is not None else None
        if built is None or (self.ctx.resolve(built.func) or "").rpartition(".")[2] != "Sequential":
            return
        for layer in built.args:
            call = layer.value
            if layer.keyword is not None or layer.star or not isinstance(call, cst.Call) or any(
                    a.star for a in call.args):
                return
            kind = (self.ctx.resolve(call.func) or "").rpartition(".")[2]
            if kind == "Flatten":
                start, end = (argument(call.args, position, keyword) for position, keyword in enumerate(
                    ("start_dim", "end_dim")))
                first = integer_literal(start) if start is not None else 1
                last = integer_literal(end) if end is not None else -1
                merged = _merged(dims, first, last) if first is not None and last is not None else None
                if merged is None:
                    return
                dims = merged
            elif kind == "Linear":
                given = [_whole(a.value) for a in call.args[:2] if a.keyword is None]
                if len(given) != 2 or None in given:
                    return
                reason = self._tie(dims[-1], _Dim(size=given[0]), config, broadcast=False)
                if reason is not None:
                    self.report(node, f"`{short(node)}`: the {given[0]} input features of its `Linear` tie {reason}")
                return
            elif kind not in KEEP_ALL_LAYERS:
                return

    def _layer_input(self, attr: str, rank: int) -> list[tuple[int, int, str]] | None:
        """(dimension, size, what) of each size a layer built in `__init__` with literal sizes
        needs of its input of `rank` dimensions: `LayerNorm(8)` the last size 8 (`LayerNorm([8,
        16, 16])` the last three); `GroupNorm(2, 4)`, `BatchNorm2d(4)` and `Conv2d(3, ...)` the
        channels (dimension 1 of a batched input)."""
        traced = self.ctx.traced
        call = init_call(traced.cls.node, attr) if traced is not None and traced.cls is not None else None
        kind = (self.ctx.resolve(call.func) or "").rpartition(".")[2] if call is not None else ""
        if call is None or any(a.star for a in call.args):
            return None
        if kind == "LayerNorm":
            shape = argument(call.args, 0, "normalized_shape") or cst.Name("None")
            listed = [e.value for e in shape.elements] if isinstance(shape, (cst.List, cst.Tuple)) else [shape]
            sizes = [self._built_size(size) for size in listed]
            if None in sizes:
                return None
            what = f"the norm's normalized shape {tuple(sizes)}" if len(sizes) > 1 else f"the norm's {sizes[0]} features"
            return [(index - len(sizes), size, what) for index, size in enumerate(sizes)]  # type: ignore[misc]
        spatial = {"1d": 1, "2d": 2, "3d": 3}.get(kind[-2:])
        channels = {"GroupNorm": ("num_channels", 1), "Conv": ("in_channels", 0), "BatchNorm": ("num_features", 0)}
        family = "GroupNorm" if kind == "GroupNorm" else kind[:-2]
        if family not in channels or (family != "GroupNorm" and (spatial is None or rank != spatial + 2)):
            return None  # an unbatched input: which dimension is the channels' is not known
        keyword, position = channels[family]
        size = self._built_size(argument(call.args, position, keyword) or cst.Name("None"))
        return [(1, size, f"the layer's {size} input channels")] if size is not None and rank >= 2 else None

    def _functional_linear(self, node: cst.Call) -> None:
        """`F.linear(x, self.w)`: the weight's last size (its input features) must be `x`'s."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        dims, weight = self._operand(node.args[0].value, setting), self._operand(node.args[1].value, setting)
        if not dims or not weight or len(weight) != 2:
            return
        reason = self._tie(dims[-1], weight[1], setting[1], broadcast=False)
        if reason is not None:
            self.report(node, f"`{short(node)}`: the weight's input features tie {reason}")

    def _unflattened(self, node: cst.Call, tensor: cst.BaseExpression) -> None:
        """`x.unflatten(1, (2, -1))` of a named size: the literal parts must divide it (all literal:
        they fix it), a guard the declared range does not promise unless a derived `Dim`'s scale
        is a multiple of them."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional() or any(a.keyword or a.star for a in node.args):
            return
        axis, parts = integer_literal(node.args[0].value), node.args[1].value
        dims = self._operand(tensor, setting)
        if axis is None or not dims or not -len(dims) <= axis < len(dims) or not isinstance(parts, (cst.Tuple, cst.List)):
            return
        numbers = [setting[0].integer(e.value) for e in parts.elements]  # `self.num_heads` as `__init__` sets it
        if None in numbers:  # `x.unflatten(2, (h // 2, 2))`: as a reshape's target sizes
            self._split_by(node, [e.value for e in parts.elements], setting)
            return
        dim = dims[axis % len(dims)]
        if numbers.count(-1) == 1 and self._split_unproven(
            node, dim, math.prod(n for n in numbers if n != -1), setting[1]  # type: ignore[misc]
        ):
            return
        if numbers.count(-1) > 1 or dim.ref is None or not dim.exact:
            return
        spec = setting[1].dim(*dim.ref)
        product = math.prod(n for n in numbers if n != -1)
        if spec.kind is not DimKind.NAMED or (-1 in numbers and (product <= 1 or (
                spec.scale % product == 0 and spec.offset % product == 0))):
            return
        what = (f"needs it a multiple of {product}" if -1 in numbers else f"fixes it to {product}")
        self.report(node, f"`{short(node)}`: splitting {_name(dim)} ({spec.text()}) {what}: export fails with "
                          "ConstraintViolationError (Constraints violated); declare it as a multiple of a root "
                          f"Dim (`{product} * d`)" + ("" if -1 in numbers else " or static"))

    def _unshuffled(self, node: cst.Call) -> None:
        """`F.pixel_unshuffle(x, r)`: the last two sizes must be multiples of `r`, a guard a named
        `Dim` does not give unless its scale and offset are (measured on torch 2.13: fails in both
        modes under `Dim("h")`, exports declared `2 * hh`)."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional() or any(a.keyword or a.star for a in node.args):
            return
        by = setting[0].integer(node.args[1].value)
        dims = self._operand(node.args[0].value, setting)
        if by is None or by < 2 or not dims or len(dims) < 3:
            return
        for dim in dims[-2:]:
            spec = setting[1].dim(*dim.ref) if dim.ref is not None and dim.exact else None
            if spec is None or spec.kind is not DimKind.NAMED or (spec.scale % by == 0 and spec.offset % by == 0):
                continue
            self.report(node, f"`{short(node)}` needs {_name(dim)} ({spec.text()}) a multiple of {by}: export "
                              "fails with ConstraintViolationError (Constraints violated); declare it as a derived "
                              f"`Dim` (`{by} * {spec.name}`)")
            return

    def _expanded(self, node: cst.Call, tensor: cst.BaseExpression) -> None:
        """`x.expand(4, 3)`, `x.expand(y.shape[0], -1)`: each size given (not -1) must be the
        input's, unless that is 1."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional() or any(a.keyword or a.star for a in node.args):
            return
        numbers = [integer_literal(arg.value) for arg in node.args]
        targets = [_Dim(size=n) if n is not None else _size_of(a.value, setting[0]) for n, a in zip(
            numbers, node.args, strict=True)]
        dims = self._operand(tensor, setting)
        if not dims or len(numbers) < len(dims):
            return
        for dim, number, target in zip(reversed(dims), reversed(numbers), reversed(targets), strict=False):
            if number == -1 or target is _UNKNOWN:
                continue
            reason = self._tie(dim, target, setting[1])
            if reason is not None:
                self.report(node, f"`{short(node)}`: expanding ties {reason}")
                return

    def _declaration_fix(self, a: _Dim, b: _Dim) -> FixProposal | None:
        """The `dynamic_shapes` edit that makes the tie hold by declaration, in this file's
        declaration: one shared `Dim` for two plain sizes; for a size an op moves (`x[1:]`,
        `F.pad`, `cat([x, x])`, `scale_factor=2`) a derived `Dim` of the other one's root, which
        must be a name (`a = Dim("a")`) or a `Dim("a")` written in place (a second `Dim("a")` of the
        same name and range is the same symbol: `Dim("a") + 1`, measured): the sliced side as
        `b + 1`, a grown side's partner as `2 * a` or `a + 2` (each measured to export on torch 2.13)."""
        program, traced = self.ctx.program, self.ctx.traced
        if traced is None or traced.cls is None or program.shapes_reader is None or a.ref is None or b.ref is None:
            return None
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        config = self.ctx.shape_config()
        if shapes is None or a.affine is None or b.affine is None:
            return None
        if config.dim(*a.ref).derived or config.dim(*b.ref).derived:
            return None
        reader = program.shapes_reader
        if not a.exact and b.exact:
            a, b = b, a  # `a` exact: the plain size; `b` moved by the ops before
        if not a.exact and not b.exact:
            return None
        node_a, node_b = reader.spec_node(shapes, *a.ref), reader.spec_node(shapes, *b.ref)
        if node_a is None or node_b is None:
            return None
        scale, offset = b.affine  # b's size is scale * s_b + offset, and must equal s_a
        if (scale, offset) == (1, 0):
            title = f"Declare `{b.ref[0]}.shape[{b.ref[2]}]` with the Dim of `{a.ref[0]}.shape[{a.ref[2]}]`"
            edit = _declared_as(reader, shapes, b.ref, node_b, node_a.deep_clone())
            return FixProposal(f"{title} (assumes the two sizes are always equal)", Applicability.UNSAFE,
                               (edit,)) if edit is not None else None
        if scale == 1 and offset < 0 and self._root_written(node_a):
            # `x[1:]` against `y`: x's size is y's plus the cut
            new: cst.BaseExpression = cst.BinaryOperation(node_a.deep_clone(), cst.Add(), cst.Integer(str(-offset)))
            target, node = b, node_b
        elif offset >= 0 and self._root_written(node_b):
            # `cat([x, x])`, `F.pad(x, (1, 1))`, `scale_factor=2` against `y`: y's size derived from x's
            grown: cst.BaseExpression = node_b.deep_clone() if scale == 1 else cst.BinaryOperation(
                cst.Integer(str(scale)), cst.Multiply(), node_b.deep_clone())
            new = grown if offset == 0 else cst.BinaryOperation(grown, cst.Add(), cst.Integer(str(offset)))
            target, node = a, node_a
        else:
            return None
        edit = _declared_as(reader, shapes, target.ref, node, new)  # type: ignore[arg-type]
        if edit is None:
            return None
        text = cst.Module([]).code_for_node(new)
        return FixProposal(
            f"Declare `{target.ref[0]}.shape[{target.ref[2]}]` as the derived Dim `{text}` (assumes the ops keep "  # type: ignore[index]
            "this relation for every input)", Applicability.UNSAFE, (edit,),
        )

    def _root_written(self, node: cst.BaseExpression) -> bool:
        """Whether `node` names a root `Dim` a derived one can be written from: a name, or a
        `Dim("a", ...)` call in place."""
        return isinstance(node, cst.Name) or (
            isinstance(node, cst.Call) and self.ctx.resolve(node.func) == "torch.export.Dim"
        )

    def _reshape(self, node: cst.Call, tensor: cst.BaseExpression) -> None:
        """`x.view(4, -1)` of an input with a named Dim: literal target sizes without a `-1` fix
        the element count; with one, a literal where the named size was splits it."""
        setting = self._setting()
        if setting is None or id(node) in self._conditional():
            return
        args = setting[0].view_targets(node.args)  # also `x.view(*x.shape[:-1], h, d)`
        if args is None:
            return
        target = [integer_constant(a) for a in args]
        if target.count(-1) > 1:
            return
        dims = self._operand(tensor, setting)
        if None in target and self._split_by(node, args, setting):
            return  # `H // 7, 7`: whatever the other sizes are
        if dims and self._split_computed(node, dims, args, setting):
            return
        if (not dims or any(not d.exact for d in dims)) and None not in target and -1 not in target:
            self._count_of_terms(node, tensor, setting)
            return
        if not dims or any(not d.exact for d in dims):
            return
        if None in target:
            if -1 not in target or not self._literal_where_named(node, dims, args, setting, tensor):
                self._divides(node, dims, args, setting)
            return
        config = setting[1]
        # without a -1 the element count is a constant: `Dim.DYNAMIC` refuses that as a named Dim does
        pinning = (DimKind.NAMED,) if -1 in target else (DimKind.NAMED, DimKind.DYNAMIC)
        named = [d for d in dims if d.ref is not None and config.dim(*d.ref).kind in pinning]
        if not named or any(d.ref is not None and d not in named for d in dims) or any(
            d.ref is None and d.size is None for d in dims
        ):
            return
        if -1 in target:
            # measured: `(b, 6).view(-1, 6)` and `(4, c).view(4, -1)` export; `(b, 6).view(4, -1)` and
            # `.view(2, -1)` fail (a literal where the named size was splits it). Other ranks: unknown
            # a literal dividing a derived size's scale and offset splits it cleanly: `(2, 8*t).view(-1, 8)`
            # and `(2, 8*t + 2).view(-1, 2)` export, `(2, 8*t).view(-1, 16)` fails (measured)
            fixed = [d for d, n in zip(dims, target, strict=False)
                     if d in named and n != -1 and not _splits_cleanly(config.dim(*d.ref), n)]  # type: ignore[misc]
            if len(target) != len(dims) or not fixed:
                return
            named = fixed
        first = named[0]
        spec = config.dim(*first.ref)  # type: ignore[misc]
        self.report(node, f"`{short(node)}`: the literal sizes fix the element count, so export ties "
                          f"{_name(first)} ({spec.text()}) to a constant and fails with ConstraintViolationError "
                          "(Constraints violated); compute the sizes from the input (`x.shape[0]`) or use -1 for "
                          "the dynamic dimension")

    def _literal_where_named(
        self, node: cst.Call, dims: list[_Dim], targets: list[cst.BaseExpression], setting: tuple, tensor: cst.BaseExpression
    ) -> bool:
        """`x.view(b, 8, -1)` of `(b, n, 16)`: a constant where a named size was, the rank kept, splits it
        as a literal does beside a `-1` alone (measured: fails in both modes, where `x.view(b, -1, 4, 4)`
        exports)."""
        sizes, config = setting[0], setting[1]
        if len(targets) != len(dims):
            return self._literal_after_kept(node, dims, targets, setting, tensor)
        for dim, target in zip(dims, targets, strict=True):
            number = integer_literal(target)
            number = sizes.integer(target) if number is None else number
            if number is None or number == -1 or dim.ref is None or not dim.exact:
                continue
            spec = config.dim(*dim.ref)
            if spec.kind is not DimKind.NAMED or _splits_cleanly(spec, number):
                continue
            self.report(node, f"`{short(node)}`: the size {number} where {_name(dim)} ({spec.text()}) was splits it, "
                              "so export ties it to a constant and fails with ConstraintViolationError (Constraints "
                              "violated); keep the size (`x.shape[i]`) or put the -1 there")
            return True
        return False

    def _literal_after_kept(
        self, node: cst.Call, dims: list[_Dim], targets: list[cst.BaseExpression], setting: tuple, tensor: cst.BaseExpression
    ) -> bool:
        """`x.view(b, 8, 2, -1)` or `x.view(b, 4, -1)` of `(b, n, 16)`, the rank changed: after the
        sizes kept, the first size given is a constant where a named size is, and export compares
        the two (measured: fails in both modes, the size pinned or guarded `!= 4`; a 1 put there
        exports). A size read from the viewed input itself is kept (`b` of `b, n, c = x.shape` in
        a block, whose static sizes have no example)."""
        sizes, config = setting[0], setting[1]
        kept = _with_examples(dims, setting)
        own = (tensor.value, sizes.positions[tensor.value]) if isinstance(tensor, cst.Name) and sizes.reads_input(
            tensor) else None
        for index, (dim, plain, target) in enumerate(zip(dims, kept, targets, strict=False)):
            given = self._target_size(target, setting)
            if _same_size(plain, given, target) or (own is not None and given.ref == (*own, index)):
                continue
            number = integer_literal(target)
            number = sizes.integer(target) if number is None else number
            if number is None or number in (-1, 1) or dim.ref is None or not dim.exact:
                return False
            spec = config.dim(*dim.ref)
            if spec.kind is not DimKind.NAMED or _splits_cleanly(spec, number):
                return False
            self.report(node, f"`{short(node)}`: the size {number} where {_name(dim)} ({spec.text()}) is splits it, so "
                              "export compares it with the constant and fails with ConstraintViolationError "
                              "(Constraints violated); keep the size (`x.shape[i]`) or put the -1 there")
            return True
        return False

    def _count_of_terms(self, node: cst.Call, tensor: cst.BaseExpression, setting: tuple) -> None:
        """`h.reshape(2, 3, 8, 8)` of `h = F.max_pool2d(x, 2)`: literal sizes fix the element count
        of a tensor whose sizes shapes.py writes as terms over the inputs (through pools,
        convolutions, ...). Where the terms reading a named Dim change over its range, the count
        cannot be constant, and export fails (measured on torch 2.13, both modes: the pooled size
        is guarded equal to a constant)."""
        sizes, config = setting[0], setting[1]
        rank = sizes.rank(tensor)
        terms = [sizes.size_term(tensor, index) for index in range(rank)] if rank is not None else []
        if not terms or any(term is None for term in terms):
            return
        named: dict[SizeRef, list[object]] = {}
        for term in terms:
            refs = set(term_refs(term))
            kinds = {config.dim(*ref).kind for ref in refs}
            if kinds <= {DimKind.STATIC}:
                continue  # a constant, whatever the example's static sizes are
            if len(refs) != 1 or kinds != {DimKind.NAMED} or config.dim(*next(iter(refs))).derived:
                return
            named.setdefault(next(iter(refs)), []).append(term)
        for ref, factors in sorted(named.items()):
            spec = config.dim(*ref)
            low, high = spec.values()
            top = int(high) if high != math.inf else low * 4 + 64
            counts = {math.prod(term_value(t, {ref: value}) or 0 for t in factors) for value in (low, top)}
            if len(counts) == 2:
                self.report(node, f"`{short(node)}`: the literal sizes fix the element count, and `{short(tensor)}`'s "
                                  f"sizes change with `{ref[0]}.shape[{ref[2]}]` ({spec.text()}), so export ties it "
                                  "to a constant and fails with ConstraintViolationError (Constraints violated); "
                                  "compute the sizes from the tensor (`h.shape[2]`) or use -1 for the dynamic one")
                return

    def _tie(self, a: _Dim, b: _Dim, config: ShapeConfig, broadcast: bool = True) -> str | None:
        """Why export fails on needing `a` and `b` equal, or None. `broadcast`: a size 1 on
        either side broadcasts (elementwise ops), instead of needing the other to be 1."""
        specs = [config.dim(*d.ref) if d.ref is not None else None for d in (a, b)]
        dynamic = [(d, s) for d, s in zip((a, b), specs, strict=True) if s is not None and s.kind is DimKind.DYNAMIC]
        if len(dynamic) == 1 and specs.count(None) == 1 and dynamic[0][0].exact:
            other = b if dynamic[0][0] is a else a
            if other.size is not None and not (other.size == 1 and broadcast):
                return (f"{_name(dynamic[0][0])} (Dim.DYNAMIC) to the constant size {other.size}: export specialises "
                        "it and fails with ConstraintViolationError (Constraints violated); declare that "
                        "dimension static, or Dim.AUTO")
        if any(spec is not None and spec.kind in (DimKind.AUTO, DimKind.DYNAMIC) for spec in specs):
            return None  # export takes the tie (or fails only on what the example shows)
        named = [(d, s) for d, s in zip((a, b), specs, strict=True) if s is not None and s.kind is DimKind.NAMED]
        strided = self._strided_tie(a, b, specs, broadcast)
        if strided is not None:
            return strided
        sampled = _sampled_tie(a, b, specs, config)
        if sampled is not None:
            return sampled
        constant = _constant_tie(a, b, specs, broadcast)
        if constant is not None:
            return constant
        if not named or any(d.affine is None for d, _ in named):
            return None  # no named Dim, or a size of one not modelled
        if len(named) == 2:
            (da, sa), (db, sb) = named
            if _root(da, sa) == _root(db, sb):
                return None  # equal by declaration (one shared Dim, or a derived Dim that matches)
            fix = ("give both one shared `Dim`" if da.exact and db.exact and not sa.derived and not sb.derived
                   else "declare one as derived from the other (`dy = dx + 1` for a slice `y[1:]`)")
            return (f"{_name(da)} ({sa.text()}) to {_name(db)} ({sb.text()}): export fails with "
                    f"ConstraintViolationError (Constraints violated); {fix}")
        ((dim, spec),) = named
        other = b if dim is a else a
        if other.size is None or (other.size == 1 and broadcast):
            return None  # unknown, or broadcast from 1
        return (f"{_name(dim)} ({spec.text()}) to the constant size {other.size}: export fails with "
                "ConstraintViolationError (Constraints violated); declare that dimension static, or make "
                "the other operand follow the input's size")

    @staticmethod
    def _strided_tie(a: _Dim, b: _Dim, specs: list[DimSpec | None], broadcast: bool) -> str | None:
        """Why a strided named size (`x[::2]` of `Dim("a")`: `ceil(a / 2)`) cannot be tied to
        another root's named size or to a constant (not 1 where it broadcasts): the tie is no
        derived `Dim` of a root (measured: fails in both modes; declared `2 * d` against `d`
        it exports), or None."""
        if (a.stride > 1) == (b.stride > 1):
            return None
        (dim, spec), (other, other_spec) = sorted(zip((a, b), specs, strict=True), key=lambda p: p[0].stride == 1)
        if spec is None or spec.kind is not DimKind.NAMED:
            return None
        if other_spec is not None and other_spec.kind is DimKind.NAMED and other_spec.name != spec.name:
            what = f"{_name(other)} ({other_spec.text()})"
        elif other_spec is None and other.size is not None and not (other.size == 1 and broadcast):
            what = f"the constant size {other.size}"
        else:
            return None
        return (f"{_name(dim)} ({spec.text()}) taken every {dim.stride} (`ceil(size / {dim.stride})`) to {what}: "
                "export fails with ConstraintViolationError (Constraints violated); declare both sizes from one "
                f"root `Dim` (`{dim.stride} * d` against `d`)")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Decimate(torch.nn.Module):
                def forward(self, x, y):
                    return x[::2] + y  # every other row of `2 * d` rows is `d` rows
            def xport_example():
                d = Dim("d")
                return {"model": Decimate(), "args": (torch.randn(6, 2), torch.randn(3, 2)),
                        "dynamic_shapes": {"x": {0: 2 * d}, "y": {0: d}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Decoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.up = torch.nn.ConvTranspose1d(2, 2, kernel_size=2, stride=2)
                def forward(self, x, skip):
                    return self.up(x) + skip  # the skip's length declared twice the input's
            def xport_example():
                a = Dim("a")
                return {"model": Decoder(), "args": (torch.randn(1, 2, 4), torch.randn(1, 2, 8)),
                        "dynamic_shapes": {"x": {2: a}, "skip": {2: 2 * a}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Head(torch.nn.Module):
                def forward(self, x):
                    cls, rest = x.split([2, x.shape[1] - 2], dim=1)  # the pieces add up to the size
                    return cls.sum(1) + rest.sum(1)
            def xport_example():
                return {"model": Head(), "args": (torch.randn(3, 6),), "dynamic_shapes": {"x": {1: Dim("w", min=4)}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Project(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(6, 3)
                def forward(self, x):
                    return self.proj(x).expand(-1, 3) + x.mean(1, keepdim=True)  # the batch is free
            def xport_example():
                return {"model": Project(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {0: Dim("b")}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Glu(torch.nn.Module):
                def forward(self, x):
                    value, gate = x.chunk(2, dim=-1)  # an even size by declaration
                    return value * gate.sigmoid()
            def xport_example():
                half = Dim("half")
                return {"model": Glu(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: 2 * half}}}
            """
        ),
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch.export import Dim
            class Border(torch.nn.Module):
                def forward(self, x, y):
                    return F.pad(x, (1, 1)) * y  # y is declared two wider than x
            def xport_example():
                w = Dim("w")
                return {"model": Border(), "args": (torch.randn(2, 4), torch.randn(2, 6)),
                        "dynamic_shapes": {"x": {1: w}, "y": {1: w + 2}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Attend(torch.nn.Module):
                def forward(self, q, k):
                    return q @ k  # one shared Dim for the inner size
            def xport_example():
                inner = Dim("inner")
                return {"model": Attend(), "args": (torch.randn(4, 3), torch.randn(3, 5)),
                        "dynamic_shapes": {"q": {1: inner}, "k": {0: inner}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("gain", torch.ones(1, 3))
                def forward(self, x):
                    return x * self.gain  # broadcast from 1 along the batch
            def xport_example():
                return {"model": Scale(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Pairs(torch.nn.Module):
                def forward(self, x):
                    return x.view(-1, 6)  # -1 where the batch was: any batch works
            def xport_example():
                return {"model": Pairs(), "args": (torch.randn(4, 6),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch.export import Dim
            class Windows(torch.nn.Module):
                def forward(self, x):
                    b, h, c = x.shape
                    pad = (7 - h % 7) % 7  # up to a multiple of the window
                    x = F.pad(x, (0, 0, 0, pad))
                    return x.view(b, -1, 7, c)  # expect: XPT305
            def xport_example():
                return {"model": Windows(), "args": (torch.randn(2, 10, 4),), "dynamic_shapes": {"x": {1: Dim("h", max=64)}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Best(torch.nn.Module):
                def forward(self, x):
                    return x.topk(5, dim=1).values  # expect: XPT305
            def xport_example():
                return {"model": Best(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {1: Dim("n", min=2, max=64)}}}
            """
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch.export import Dim
            class Downsample(torch.nn.Module):
                def forward(self, x):
                    return F.max_pool1d(x, 2)  # expect: XPT305
            def xport_example():
                return {"model": Downsample(), "args": (torch.randn(1, 2, 8),), "dynamic_shapes": {"x": {2: Dim("t")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Decimate(torch.nn.Module):
                def forward(self, x, y):
                    return x[::2] + y  # expect: XPT305
            def xport_example():
                return {"model": Decimate(), "args": (torch.randn(6, 2), torch.randn(3, 2)),
                        "dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Classifier(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 4))
                def forward(self, x):
                    return self.head(x)  # expect: XPT305
            def xport_example():
                return {"model": Classifier(), "args": (torch.randn(2, 3, 4),), "dynamic_shapes": {"x": {1: Dim("c")}}}
            """
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Batched(torch.nn.Module):
                def forward(self, x, y):
                    return torch.einsum("...ij,...jk->...ik", x, y)  # expect: XPT305
            def xport_example():
                return {"model": Batched(), "args": (torch.randn(2, 3, 4), torch.randn(2, 4, 5)),
                        "dynamic_shapes": {"x": {2: Dim("k1")}, "y": {1: Dim("k2")}}}
            """,
            '"dynamic_shapes": {"x": {2: Dim("k1")}, "y": {1: Dim("k2")}}}',
            '"dynamic_shapes": {"x": {2: Dim("k1")}, "y": {1: Dim("k1")}}}',
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Decoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.up = torch.nn.ConvTranspose1d(2, 2, kernel_size=2, stride=2)
                def forward(self, x, skip):
                    return self.up(x) + skip  # expect: XPT305
            def xport_example():
                return {"model": Decoder(), "args": (torch.randn(1, 2, 4), torch.randn(1, 2, 8)),
                        "dynamic_shapes": {"x": {2: Dim("a")}, "skip": {2: Dim("b")}}}
            """,
            '"dynamic_shapes": {"x": {2: Dim("a")}, "skip": {2: Dim("b")}}}',
            '"dynamic_shapes": {"x": {2: Dim("a")}, "skip": {2: 2 * Dim("a")}}}',
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Padded(torch.nn.Module):
                def forward(self, x, y):
                    pad = x.new_zeros(x.shape[0], 2)
                    return torch.cat([y, pad], dim=1)  # expect: XPT305
            def xport_example():
                return {"model": Padded(), "args": (torch.randn(3, 4), torch.randn(3, 5)),
                        "dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}
            """,
            '"dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}',
            '"dynamic_shapes": {"x": {0: Dim("b")}, "y": {0: Dim("b")}}}',
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Halves(torch.nn.Module):
                def forward(self, x):
                    a, b = torch.split(x, x.shape[1] // 2, dim=1)  # expect: XPT305
                    return a * b
            def xport_example():
                return {"model": Halves(), "args": (torch.randn(3, 6),), "dynamic_shapes": {"x": {1: Dim("w")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Project(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(6, 3)
                def forward(self, x):
                    return self.proj(x)  # expect: XPT305
            def xport_example():
                return {"model": Project(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: Dim("k")}}}
            """
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Gate(torch.nn.Module):
                def forward(self, x, y):
                    return x * y  # expect: XPT305
            def xport_example():
                return {"model": Gate(), "args": (torch.randn(4, 3), torch.randn(4, 3)),
                        "dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}
            """,
            '"dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}',
            '"dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("a")}}}',
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Delta(torch.nn.Module):
                def forward(self, x, y):
                    return x[:, 1:] - y  # expect: XPT305
            def xport_example():
                a, b = Dim("a"), Dim("b")
                return {"model": Delta(), "args": (torch.randn(2, 6), torch.randn(2, 5)),
                        "dynamic_shapes": {"x": {1: a}, "y": {1: b}}}
            """,
            '"dynamic_shapes": {"x": {1: a}, "y": {1: b}}}',
            '"dynamic_shapes": {"x": {1: b + 1}, "y": {1: b}}}',
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Mirror(torch.nn.Module):
                def forward(self, x, y):
                    both = torch.cat([x, x * 2])
                    return both + y  # expect: XPT305
            def xport_example():
                a, b = Dim("a"), Dim("b")
                return {"model": Mirror(), "args": (torch.randn(3, 2), torch.randn(6, 2)),
                        "dynamic_shapes": {"x": {0: a}, "y": {0: b}}}
            """,
            '"dynamic_shapes": {"x": {0: a}, "y": {0: b}}}',
            '"dynamic_shapes": {"x": {0: a}, "y": {0: 2 * a}}}',
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Outer(torch.nn.Module):
                def forward(self, x, y):
                    return torch.einsum("ni,nj->nij", x, y)  # expect: XPT305
            def xport_example():
                return {"model": Outer(), "args": (torch.randn(3, 2), torch.randn(3, 4)),
                        "dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}
            """,
            '"dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("b")}}}',
            '"dynamic_shapes": {"x": {0: Dim("a")}, "y": {0: Dim("a")}}}',
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Glu(torch.nn.Module):
                def forward(self, x):
                    value, gate = x.chunk(2, dim=-1)  # expect: XPT305
                    return value * gate.sigmoid()
            def xport_example():
                return {"model": Glu(), "args": (torch.randn(2, 6),), "dynamic_shapes": {"x": {1: Dim("d")}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Rows(torch.nn.Module):
                def forward(self, x):
                    return x.view(4, -1)  # expect: XPT305
            def xport_example():
                return {"model": Rows(), "args": (torch.randn(4, 6),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
        _retied(
            """
            import torch
            from torch.export import Dim
            class Attend(torch.nn.Module):
                def forward(self, q, k):
                    return q @ k  # expect: XPT305
            def xport_example():
                return {"model": Attend(), "args": (torch.randn(4, 3), torch.randn(3, 5)),
                        "dynamic_shapes": {"q": {1: Dim("k1")}, "k": {0: Dim("k2")}}}
            """,
            '"dynamic_shapes": {"q": {1: Dim("k1")}, "k": {0: Dim("k2")}}}',
            '"dynamic_shapes": {"q": {1: Dim("k1")}, "k": {0: Dim("k1")}}}',
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Shifted(torch.nn.Module):
                def forward(self, x, y):
                    return x + y[1:]  # expect: XPT305
            def xport_example():
                return {"model": Shifted(), "args": (torch.randn(4, 3), torch.randn(5, 3)),
                        "dynamic_shapes": {"x": {0: Dim("dx")}, "y": {0: Dim("dy")}}}
            """,
            # a second `Dim("dx")` of the same name and range is the same symbol (measured)
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Shifted(torch.nn.Module):
                def forward(self, x, y):
                    return x + y[1:]  # expect: XPT305
            def xport_example():
                return {"model": Shifted(), "args": (torch.randn(4, 3), torch.randn(5, 3)),
                        "dynamic_shapes": {"x": {0: Dim("dx")}, "y": {0: Dim("dx") + 1}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class PatchMerging(torch.nn.Module):
                def forward(self, x):
                    x0 = x[..., 0::2, :]
                    x1 = x[..., 1::2, :]
                    return torch.cat([x0, x1], -1)  # expect: XPT305
            def xport_example():
                return {"model": PatchMerging(), "args": (torch.randn(2, 8, 4),), "dynamic_shapes": {"x": {1: Dim("h", min=4)}}}
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Weighted(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("w", torch.ones(4, 3))
                def forward(self, x):
                    return x * self.w  # expect: XPT305
            def xport_example():
                return {"model": Weighted(), "args": (torch.randn(4, 3),), "dynamic_shapes": {"x": {0: Dim("batch")}}}
            """
        ),
    ]


def _splits_cleanly(spec: DimSpec, size: int) -> bool:
    """Whether a literal `size` where a derived `Dim` was divides it for every root value (its
    scale and offset): the view splits that size without a guard on the root."""
    return spec.derived and size > 0 and spec.scale % size == 0 and spec.offset % size == 0


def _declared_as(
    reader: ShapesReader, shapes: cst.BaseExpression, ref: SizeRef, old: cst.BaseExpression, new: cst.BaseExpression
) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """The replacement of the dims entry that holds `old` (the `{0: b}` of input `ref`) by one
    where `new` declares that dimension: a whole entry, never a bare name (whose text may
    also stand in the code the finding is on)."""
    dims = reader.dims_node(shapes, ref[0], ref[1])
    if not isinstance(dims, (cst.Dict, cst.Tuple, cst.List)):
        return None
    elements = [e.with_changes(value=new) if e.value is old else e for e in dims.elements]
    if elements == list(dims.elements):
        return None
    return dims, dims.with_changes(elements=elements)


def _root(dim: _Dim, spec: DimSpec) -> tuple[str, int, int]:
    """`dim`'s size as `scale * k + offset` of its root `Dim` `k`: two sizes are equal by
    declaration exactly when these agree."""
    scale, offset = dim.affine  # type: ignore[misc]
    return spec.name, scale * spec.scale, scale * spec.offset + offset


def _name(dim: _Dim) -> str:
    name, _, index = dim.ref  # type: ignore[misc]
    return f"`{name}.shape[{index}]`" + ("" if dim.exact else " (as the ops before change it)")


def _whole(expr: cst.BaseExpression) -> int | None:
    """A whole-number literal (`2`, `2.0`)."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Float) and float(expr.evaluated_value).is_integer():
        return int(expr.evaluated_value)
    return None


def _size_of(expr: cst.BaseExpression, sizes: Sizes) -> _Dim:
    """A target size that is exactly an input's size (`x.shape[0]`, `b` of `b, n = x.shape`)."""
    refs = sizes.refs(expr)
    plain = sizes.ref(sizes.followed(expr)) is not None or (
        isinstance(expr, cst.Name) and expr.value in sizes.unpacked
    )
    return _Dim(refs[0]) if refs is not None and len(refs) == 1 and plain else _UNKNOWN


def _shaped_as(call: cst.Call, name: str) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(x, y) of a call giving `x` the shape of the tensor `y`: `x.expand_as(y)`,
    `x.broadcast_to(y.shape)`, `torch.broadcast_to(x, y.size())`, `x.expand(y.shape)`."""
    func, args = call.func, [a for a in call.args if a.keyword is None and not a.star]
    if len(args) != len(call.args):
        return None
    if isinstance(func, cst.Attribute) and not name.startswith("torch.") and len(args) == 1:
        if func.attr.value == "expand_as":
            return func.value, args[0].value
        shape_of = _shape_owner(args[0].value)
        if func.attr.value in ("broadcast_to", "expand") and shape_of is not None:
            return func.value, shape_of
    if name == "torch.broadcast_to" and len(args) == 2 and (shape_of := _shape_owner(args[1].value)) is not None:
        return args[0].value, shape_of
    return None


def _shape_owner(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`y` of `y.shape` or `y.size()`."""
    if isinstance(expr, cst.Attribute) and expr.attr.value == "shape":
        return expr.value
    if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "size":
        return expr.func.value
    return None


#: methods giving one tensor, which unpacking iterates along its first dimension
_ITERATED = frozenset({"permute", "reshape", "view", "transpose", "flatten", "unflatten", "contiguous"})


def _unbinds(call: cst.Call, name: str) -> bool:
    """`t.unbind(d)` or `torch.unbind(t, d)`."""
    if name == "torch.unbind":
        return bool(call.args) and call.args[0].keyword is None
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "unbind" and not name.startswith("torch.")


def _split_like(call: cst.Call) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in ("chunk", "split", "tensor_split")


def _broadcast(a: list[_Dim] | None, b: list[_Dim] | None) -> list[_Dim] | None:
    """The dimensions of `a op b`, aligned from the right: a size 1 takes the other side's."""
    if a is None or b is None:
        return None
    out = []
    for index in range(1, max(len(a), len(b)) + 1):
        left = a[-index] if index <= len(a) else None
        right = b[-index] if index <= len(b) else None
        if left is None or left.size == 1:
            out.append(right)
        elif right is None or right.size == 1:
            out.append(left)
        else:
            out.append(left if left.ref is not None or right.ref is None else right)
    return list(reversed(out))  # type: ignore[arg-type]


def _interleaved(call: cst.Call, dims: list[_Dim]) -> list[_Dim] | None:
    """`x.repeat_interleave(2, dim=1)`: that dimension `2` times as long (without `dim`, a
    flattened tensor, and a tensor of repeats: not modelled)."""
    repeats = argument(call.args, 0, "repeats")
    axis = argument(call.args, 1, "dim")
    times = integer_literal(repeats) if repeats is not None else None
    at = integer_literal(axis) if axis is not None else None
    if times is None or times < 1 or at is None or not -len(dims) <= at < len(dims):
        return None
    return [_repeated(d, times) if i == at % len(dims) else d for i, d in enumerate(dims)]


def _flattened(call: cst.Call, dims: list[_Dim]) -> list[_Dim] | None:
    """`x.flatten(0, 1)`: the dimensions from `start_dim` to `end_dim` become their product,
    where at most one of them is an input's size (times the constants), else unknown."""
    start, end = argument(call.args, 0, "start_dim"), argument(call.args, 1, "end_dim")
    first = integer_literal(start) if start is not None else 0
    last = integer_literal(end) if end is not None else -1
    if first is None or last is None or not dims:
        return None
    return _merged(dims, first, last)


def _merged(dims: list[_Dim], first: int, last: int) -> list[_Dim] | None:
    """`dims` with `first` to `last` (negative from the end) made one: their product, where at
    most one of them is an input's size (times the constants), else unknown."""
    if not -len(dims) <= first < len(dims) or not -len(dims) <= last < len(dims):
        return None
    first, last = first % len(dims), last % len(dims)
    if first > last:
        return None
    merged = dims[first:last + 1]
    refs = [d for d in merged if d.ref is not None]
    constants = [d.size for d in merged if d.ref is None]
    if None in constants or len(refs) > 1:
        product: _Dim = _UNKNOWN
    elif refs:
        product = _repeated(refs[0], math.prod(constants))  # type: ignore[arg-type]
    else:
        product = _Dim(size=math.prod(constants))  # type: ignore[arg-type]
    return [*dims[:first], product, *dims[last + 1:]]


def _from_term(term: object) -> _Dim:
    """`k * s + c` of one input size `s` (a term of shapes.py) as a dimension; another function
    of one size keeps its term."""
    whole = term
    if isinstance(term, int):
        return _Dim(size=term)
    offset = 0
    if isinstance(term, Op) and term.kind in ("+", "-") and isinstance(term.right, int):
        offset, term = term.right if term.kind == "+" else -term.right, term.left
    scale = 1
    if isinstance(term, Op) and term.kind == "*" and isinstance(term.left, int):
        scale, term = term.left, term.right
    if isinstance(term, tuple):
        return _Dim(term, None, (scale, offset))  # type: ignore[arg-type]
    refs = term_refs(term) if term is not None else []
    if len(set(refs)) != 1:
        return _UNKNOWN
    affine = _affine(whole, refs[0], {})  # `(h - 1) // 1 + 1` of a 1x1 convolution: `h`
    return _Dim(refs[0], None, affine) if affine is not None else _Dim(refs[0], None, None, term=whole)


def _affine(term: object, ref: SizeRef, static: dict[SizeRef, int]) -> tuple[int, int] | None:
    """`term` of the size `ref` (the others `static`) read as `k * s + c` (k > 0) where it is
    one on every probe, else None."""
    values = [term_value(term, {**static, ref: at}) for at in _AFFINE_PROBES]
    if None in values:
        return None
    scale = values[1] - values[0]  # type: ignore[operator]
    offset = values[0] - scale * _AFFINE_PROBES[0]  # type: ignore[operator]
    if any(v != scale * at + offset for v, at in zip(values, _AFFINE_PROBES, strict=True)) or scale <= 0:
        return None
    return scale, offset


def _sampled_tie(a: _Dim, b: _Dim, specs: list[DimSpec | None], config: ShapeConfig) -> str | None:
    """Two sizes of one named input size, one a function of it no affine model holds (a size
    through a stride-2 conv and back up, `x[0::2]` against `x[1::2]`): export needs them equal,
    a guard that splits the declared range where they are equal for some of its sizes and not
    others (measured: a UNet's skip on `Dim("h")` fails in both modes; declared `2 * h` it
    exports). Judged on the first 64 sizes of the range; nothing where they are never equal
    (eager fails too). Two different sizes always equal fail too where one takes a remainder
    sympy cannot show to be 0 (`x[..., 0::2, :]` against `x[..., 1::2, :]` of `x` padded by
    `h % 2`: measured, both modes)."""
    spec = specs[0]
    if a.ref is None or a.ref != b.ref or spec is None or spec.kind is not DimKind.NAMED or (
        a.term is None and b.term is None
    ):
        return None
    equal = _equal_over_range(spec, a, b)
    if equal is None:
        return None
    if equal == {True} and a.term != b.term and any(
        d.term is not None and unshown_remainder(d.term, config) for d in (a, b)
    ):
        return (f"{_name(a)} ({spec.text()}) to a size computed from it through a remainder (`%`): they are "
                "equal, but export cannot show it, guards their equality and fails with "
                "ConstraintViolationError (Constraints violated); declare it as a multiple (`2 * h`), "
                "for which the remainder is 0")
    if equal != {True, False}:
        return None
    return (f"{_name(a)} ({spec.text()}) to a size computed from it that equals it only for some of its "
            "range: export guards that and fails with ConstraintViolationError (Constraints violated); "
            "declare it as a derived `Dim` for which they are equal (`2 * h` for a stride 2)")


def _constant_tie(a: _Dim, b: _Dim, specs: list[DimSpec | None], broadcast: bool) -> str | None:
    """A size computed from a named input size that no affine form holds (`32 * ((h + 1) // 2)`
    of a strided conv's output flattened) against a constant (a `Linear`'s input features): it
    equals it for some sizes of the range and not others, so export guards the size into that
    part (measured: a stride-2 conv, a pool by 4 and `view(b, -1)` into `Linear(8, ...)` under
    `Dim("h", min=7, max=512)` fails in both modes). Judged on the first 64 sizes of the range;
    nothing where they are never equal (the example cannot be in the range) or always are."""
    pair = [(d, s) for d, s in zip((a, b), specs, strict=True)]
    computed = [(d, s) for d, s in pair if d.ref is not None and d.affine is None and d.term is not None]
    fixed = [d for d, s in pair if d.ref is None and d.size is not None]
    if len(computed) != 1 or len(fixed) != 1 or (fixed[0].size == 1 and broadcast):
        return None
    (dim, spec), size = computed[0], fixed[0].size
    if spec is None or spec.kind is not DimKind.NAMED:
        return None
    if _equal_over_range(spec, dim, size) != {True, False}:
        return None
    return (f"{_name(dim)} ({spec.text()}), as the ops before compute it, to the constant size {size}, which it "
            "equals for some sizes of its range only: export guards that and fails with ConstraintViolationError "
            "(Constraints violated); declare that dimension static (or the range where it holds), or make "
            "the size independent of it (an adaptive pool)")


def _equal_over_range(spec: DimSpec, dim: _Dim, other: _Dim | int) -> set[bool] | None:
    """Whether `dim` equals `other` (a size of the same input size, or a constant) at each of the
    first 64 sizes of `spec`'s range: {True, False} where a guard on their equality splits it;
    None where either is not known at some size."""
    low, high = spec.values()
    equal = set()
    for root in range(low, int(min(high, low + 63)) + 1):
        size = spec.size(root)
        values = [_value_at(dim, size), other if isinstance(other, int) else _value_at(other, size)]
        if None in values:
            return None
        equal.add(values[0] == values[1])
    return equal


def _static_example(ref: SizeRef, setting: tuple) -> int | None:
    """The example's size of a size declared static (None: declared dynamic, or not known)."""
    config, examples = setting[1], setting[2]
    name, position, index = ref
    if config.dim(name, position, index).kind is not DimKind.STATIC or position >= len(examples):
        return None
    shape = examples[position]
    return shape[index] if shape is not None and index < len(shape) else None


def _with_examples(dims: list[_Dim], setting: tuple) -> list[_Dim]:
    """`dims` with each size declared static as its example's constant, also inside the terms
    of computed sizes (`(w - 1) // 2 + 1` of a static `w` is a number)."""
    out = []
    for d in dims:
        if d.ref is not None and d.exact and (size := _static_example(d.ref, setting)) is not None:
            out.append(_Dim(size=size))
        elif d.term is not None:
            out.append(_from_term(_fixed(d.term, setting)))
        else:
            out.append(d)
    return out


def _fixed(term: object, setting: tuple) -> object:
    """`term` with each size declared static as its example's constant, folded where it can be."""
    if isinstance(term, tuple):
        size = _static_example(term, setting)  # type: ignore[arg-type]
        return term if size is None else size
    if not isinstance(term, Op):
        return term
    left, right = _fixed(term.left, setting), _fixed(term.right, setting)
    if isinstance(left, int) and isinstance(right, int):
        value = term_value(Op(term.kind, left, right), {})
        if value is not None:
            return value
    return Op(term.kind, left, right)


def _same_size(dim: _Dim, given: _Dim, target: cst.BaseExpression) -> bool:
    """Whether a `view` target size keeps `dim` as it is (the same input size, or constant)."""
    if integer_literal(target) == -1:
        return False
    if dim.ref is not None:
        return given.ref == dim.ref and given.affine == dim.affine and dim.affine is not None
    return dim.size is not None and given.size == dim.size


def _value_at(dim: _Dim, size: int) -> int | None:
    """The size `dim` has where its input size is `size`."""
    if dim.affine is not None:
        return dim.affine[0] * size + dim.affine[1]
    return term_value(dim.term, {dim.ref: size}) if dim.term is not None else None  # type: ignore[arg-type]


def _strided(dim: _Dim, step: int, start: int = 0) -> _Dim:
    """A dimension of `x[start::step]`: `ceil((size - start) / step)`, a multiple of the root
    where the step divides the scale, else a strided size of it (with its term: `x[0::2]` and
    `x[1::2]` of one size are equal for even sizes only)."""
    if dim.size is not None:
        return _Dim(size=max(0, -(-(dim.size - start) // step)))
    if dim.ref is None or (dim.affine is None and dim.term is None):
        return _UNKNOWN
    if dim.affine is not None and dim.affine[0] % step == 0:
        scale, offset = dim.affine
        return _Dim(dim.ref, None, (scale // step, -(-(offset - start) // step)))
    whole = dim.term if dim.affine is None else _affine_term(dim.ref, *dim.affine)
    return _Dim(dim.ref, None, None, stride=step, term=Op("//", Op("+", whole, step - 1 - start), step))


def _affine_term(ref: SizeRef, scale: int, offset: int) -> object:
    """`scale * ref + offset` as shapes.py's term."""
    scaled = ref if scale == 1 else Op("*", scale, ref)
    return scaled if offset == 0 else Op("+", scaled, offset)


def _repeated(dim: _Dim, times: int) -> _Dim:
    """A dimension of `x.repeat(...)`: `times` copies of it."""
    if times == 1:
        return dim
    if dim.size is not None:
        return _Dim(size=dim.size * times)
    if dim.ref is not None and dim.affine is not None:
        return _Dim(dim.ref, affine=(dim.affine[0] * times, dim.affine[1] * times))
    if dim.ref is not None and dim.term is not None:
        return _Dim(dim.ref, None, None, term=Op("*", times, dim.term))
    return _UNKNOWN


def _product(a: list[_Dim] | None, b: list[_Dim] | None) -> list[_Dim] | None:
    """The dimensions of `a @ b` (the ranks of 2 and more; a vector drops its one)."""
    if a is None or b is None or not a or not b:
        return None
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return [*b[:-2], b[-1]]
    batch = _broadcast(a[:-2], b[:-2]) or []
    return [*batch, a[-2], b[-1]]
