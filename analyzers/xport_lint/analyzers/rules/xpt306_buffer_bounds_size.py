from __future__ import annotations

import math

import libcst as cst

from ..model import Mode, Severity
from ..rewrites.common import Rewrite
from ..rewrites.export_calls import narrowed_dim_rewrite
from ..rule import Invalid, Rule, TorchError, Valid
from ..shapes import DimKind, ShapeConfig, Sizes, init_buffers, term_refs, term_value
from ..syntax import integer_literal
from ..walk import iter_nodes
from ._conditions import short
from ._helper_ops import judge_helper_call


class BufferBoundsSize(Rule):
    """A buffer or parameter of fixed length sliced by an input size whose named `Dim` allows more.

    ## What it does
    In a model's `forward`, flags `self.pos[:, : x.shape[1]]` where `__init__` makes `self.pos`
    with literal sizes (`self.register_buffer("pos", torch.zeros(1, 64, 8))`,
    `nn.Parameter(torch.randn(1, 64, 8))`) and the slice's end is an input size declared with a
    named `Dim` whose `max` is above the buffer's length (or unset). A length that is an argument
    of `__init__` with an integer default (`torch.arange(max_positions)`, `max_positions=64`) is
    its length with the defaults; a parent may build the module with another, so it counts only
    against a `Dim` with no `max` (which fails whatever the length is).

    ## Why it fails torch.export
    The slice gives a tensor of the input's size only while the size fits the buffer; export
    records `s <= 64` as a guard, which the declared range does not promise:
    `Constraints violated (seq)! ... Not all values of seq ... satisfy the generated guard`.

    ## Example
    ```python
    return x + self.pos[:, : x.shape[1]]  # dynamic_shapes={"x": {1: Dim("seq")}}, pos 64 long
    ```

    ## Use instead
    Declare the range the buffer supports: `Dim("seq", max=64)`.

    ## Fix safety
    Unsafe: the `Dim(...)` written in this file's `dynamic_shapes` gets `max=` the buffer's
    length, the largest size the model supports anyway (longer inputs would not match the
    buffer in eager either).

    A slice of the buffer's last dimension, where a dimension it keeps before that one is
    longer than 1 (`self.bias[:, :, :T, :T]` of a causal mask), fails export even at `max=` the
    length (strict: where arithmetic or a comparison reads it): the slice is contiguous only at the whole length, which export guards.

    ## Modes
    Error in both modes (torch 2.13); the last-dimension slice at `max=` the length, in
    non-strict mode, and in strict mode where the slice is an operand of arithmetic or a
    comparison (`scores * self.bias[:T, :T]`; strict exports a slice that is only reduced). `Dim.AUTO`
    takes the bound without a word: nothing reported.
    """

    CODE = "XPT306"
    NAME = "buffer-bounds-size"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "ConstraintViolationError"
    FAILS_WITH = {mode: (TorchError("UserError", "Constraints violated"),) for mode in Mode}

    def visit_Call(self, node: cst.Call) -> None:
        """`add_positions(x, self.pos)` of a helper slicing the buffer it is given: judged at the call."""
        if self.ctx.traced is not None and self.ctx.traced.cls is not None and self.ctx.shape_config().any_named():
            judge_helper_call(self, node, self.ctx.conditional(), keep_fixes=True)  # its fix edits the declaration

    def visit_Subscript(self, node: cst.Subscript) -> None:
        value = node.value
        held = _held_name(value)
        if held is None:
            return
        traced = self.ctx.traced
        if traced is None or traced.cls is None or not any(isinstance(e.slice, cst.Slice) for e in node.slice):
            return
        config = self.ctx.shape_config()
        if not any(spec.kind is DimKind.NAMED for _, dims in config.inputs for _, spec in dims):
            return
        sizes = self.ctx.sizes()
        if sizes is None:
            return
        key = f"buffers:{id(traced.cls.node)}"
        found = self.ctx.shared.get(key)
        if found is None:
            cls = traced.cls  # a length from a config default too (BERT's `arange(config.max_position_embeddings)`)
            found = self.ctx.shared[key] = tuple(init_buffers(  # type: ignore[assignment]
                cls.node, self.ctx.resolve, lambda field: self.ctx.program.config_default(cls, field),  # type: ignore[arg-type,return-value,misc]
                with_defaults=assumed) for assumed in (False, True))
        exact, assumed = found  # type: ignore[misc]
        shape = exact.get(held)  # type: ignore[union-attr]
        # a length from an `__init__` default (`arange(max_positions)`) may be another in the model
        # a parent builds: it bounds an unbounded `Dim` whatever it is, and claims nothing else
        from_default = shape is None
        shape = shape if shape is not None else assumed.get(held)  # type: ignore[union-attr]
        if shape is None or len(node.slice) > len(shape):
            return
        for dim, element in enumerate(node.slice):
            part = element.slice
            end = sizes.slice_end(part) if isinstance(part, cst.Slice) else None
            if end is None and isinstance(part, cst.Slice) and dim < len(shape):
                if self._computed_end(node, part, held, shape[dim], dim, config, sizes):
                    return
                continue
            if end is None:
                continue  # only the size itself plus offsets (`: seq_len`, `past : seq_len + past`)
            refs = [end]
            spec = config.dim(*refs[0])
            length = shape[dim]
            if from_default and spec.high is not None:
                continue
            if spec.kind is DimKind.NAMED and not spec.derived and spec.values()[1] == length and self._strided_last(
                    node, dim, shape, sizes):
                self.report(node, f"`{short(node)}` slices the last dimension of `self.{held}` ({length} "
                                  f"long) by `{refs[0][0]}.shape[{refs[0][2]}]`, declared `{spec.text()}`: a slice "
                                  f"to the whole length is contiguous and a shorter one is not, so export "
                                  f"guards `!= {length}` and fails with ConstraintViolationError; declare "
                                  f"`max={length - 1}`")
                return
            if spec.kind is not DimKind.NAMED or spec.derived or spec.values()[1] <= length:
                continue
            declared = "any size" if spec.values()[1] == math.inf else f"up to {spec.high}"
            rewrite = self._narrowing(refs[0], spec.low, length)
            message = (f"`{short(node)}` slices `self.{held}` ({length} long on dimension {dim}) by "
                       f"`{refs[0][0]}.shape[{refs[0][2]}]`, declared `{spec.text()}` ({declared}): export adds "
                       f"the guard `<= {length}` and fails with ConstraintViolationError")
            if rewrite.reason:
                message += f" (no automatic fix: {rewrite.reason})"
            note = config.note()
            self.report(node, message, fix=rewrite.fix, notes=(note,) if note is not None else ())
            return

    def _computed_end(
        self, node: cst.Subscript, part: cst.Slice, held: str, length: int, dim: int, config: ShapeConfig, sizes: Sizes
    ) -> bool:
        """`self.pos[: x.shape[1]]` where `x.shape[1]` is computed from a named size by the ops
        before (a stride-2 convolution: `(f - 1) // 2 + 1`): export adds the guard that it is at
        most the buffer's length, which splits the declared range where the size passes it at
        the range's top (measured on torch 2.13, both modes: Whisper's positional slice after its
        strided convolution under `Dim("frames", max=100)` fails, `max=40` exports)."""
        if part.lower is not None and integer_literal(part.lower) != 0 or part.step is not None or part.upper is None:
            return False
        term = sizes.number_term(part.upper)
        refs = set(term_refs(term)) if term is not None else set()
        if len(refs) != 1:
            return False
        ref = refs.pop()
        spec = config.dim(*ref)
        if spec.kind is not DimKind.NAMED or spec.derived or spec.values()[1] == math.inf:
            return False
        low, high = int(spec.values()[0]), int(spec.values()[1])
        top = term_value(term, {ref: high})
        if top is None or top <= length:
            return False
        fits = next((size for size in range(high, low - 1, -1) if (term_value(term, {ref: size}) or 0) <= length), None)
        rewrite = self._narrowing(ref, spec.low, fits) if fits is not None else Rewrite(
            reason="no size of the range fits the buffer")
        message = (f"`{short(node)}` slices `self.{held}` ({length} long on dimension {dim}) by `{short(part.upper)}`, "
                   f"computed from `{ref[0]}.shape[{ref[2]}]` (`{spec.text()}`): it is {top} at the range's top, so "
                   f"export adds the guard `<= {length}` and fails with ConstraintViolationError")
        if rewrite.reason:
            message += f" (no automatic fix: {rewrite.reason})"
        elif fits is not None:
            message += f"; declare `max={fits}`"
        self.report(node, message, fix=rewrite.fix)
        return True

    def _strided_last(self, node: cst.Subscript, dim: int, shape: tuple[int, ...], sizes: Sizes) -> bool:
        """Non-strict export only: `dim` is the buffer's last dimension and a dimension the slice
        keeps before it is longer than 1 (a literal length, or itself sliced by an input size), so
        the slice's contiguity depends on the size (measured on torch 2.13: `pos[:, :T]` of a (4,
        16) buffer and `bias[:, :, :T, :T]` of a causal mask fail non-strict export at `max=16`;
        strict export fails too where the slice is an operand of arithmetic or a comparison, not
        where it is only reduced; a (1, 16) buffer exports)."""
        if dim != len(shape) - 1 or len(node.slice) != len(shape):
            return False
        if self.ctx.mode is Mode.STRICT and not self._computed_with(node):
            return False
        return any(isinstance(e.slice, cst.Slice) and (shape[i] > 1 or sizes.slice_end(e.slice) is not None)
                   for i, e in enumerate(node.slice[:dim]))

    def _computed_with(self, node: cst.Subscript) -> bool:
        """Whether the slice is an operand of arithmetic or a comparison in the traced function
        (`scores * self.bias[:T, :T]`, `self.bias[:T, :T] == 0`): strict export fails there too
        (measured on torch 2.13), where `self.bias[:T, :T].sum()` exports strict."""
        traced = self.ctx.traced
        assert traced is not None
        key = f"xpt306:operands:{id(traced.func)}"
        found = self.ctx.shared.get(key)
        if found is None:
            operands: set[int] = set()
            for inner in iter_nodes(traced.func):
                if isinstance(inner, cst.BinaryOperation):
                    operands |= {id(inner.left), id(inner.right)}
                elif isinstance(inner, cst.Comparison):
                    operands |= {id(inner.left), *(id(c.comparator) for c in inner.comparisons)}
            found = self.ctx.shared[key] = operands
        return id(node) in found  # type: ignore[operator]

    def _narrowing(self, ref: tuple[str, int, int], low: int | None, length: int) -> Rewrite:
        program, traced = self.ctx.program, self.ctx.traced
        assert traced is not None and traced.cls is not None
        shapes = program.shape_expressions.get(traced.cls.node.name.value)
        if shapes is None or program.shapes_reader is None:
            return Rewrite(reason="the dynamic_shapes are declared in another file")
        declared = program.shapes_reader.declaration(shapes, *ref)
        return narrowed_dim_rewrite(declared, self.ctx.resolve, low, length, "the buffer's length")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Positions(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("pos", torch.zeros(1, 64, 8))
                def forward(self, x):
                    return x + self.pos[:, : x.shape[1]]  # the declared range fits the buffer
            def xport_example():
                return {"model": Positions(), "args": (torch.randn(2, 8, 8),), "dynamic_shapes": {"x": {1: Dim("seq", max=64)}}}
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Window(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("pos", torch.ones(4, 16))
                def forward(self, x):
                    return x + self.pos[:, : x.shape[1]].sum(0)  # expect: XPT306
            def xport_example():
                return {"model": Window(), "args": (torch.randn(4, 8),), "dynamic_shapes": {"x": {1: Dim("t", max=16)}}}
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Positions(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("pos", torch.zeros(1, 64, 8))
                def forward(self, x):
                    return x + self.pos[:, : x.shape[1]]  # expect: XPT306
            def xport_example():
                return {"model": Positions(), "args": (torch.randn(2, 8, 8),), "dynamic_shapes": {"x": {1: Dim("seq")}}}
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Positions(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("pos", torch.zeros(1, 64, 8))
                def forward(self, x):
                    return x + self.pos[:, : x.shape[1]]  # expect: XPT306
            def xport_example():
                return {"model": Positions(), "args": (torch.randn(2, 8, 8),), "dynamic_shapes": {"x": {1: Dim("seq", max=64)}}}
            """,
            other_args="(torch.randn(2, 40, 8),)",
        ),
    ]


def _held_name(value: cst.BaseExpression) -> str | None:
    """The name `init_buffers` gives the tensor `value` reads: `pos` of `self.pos`, `pos.weight`
    of an embedding's `self.pos.weight`."""
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
        return value.attr.value
    if isinstance(value, cst.Attribute) and value.attr.value == "weight":
        owner = _held_name(value.value)
        return f"{owner}.weight" if owner is not None and "." not in owner else None
    return None
