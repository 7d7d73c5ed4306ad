from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import libcst as cst

from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, Scope, TorchError, Valid
from ..shapes import DimKind, DimSpec, ShapesReader
from .xpt503_static_export import example_sizes


@dataclass(frozen=True)
class _Declared:
    """One dimension declared with a named `Dim` (or a `Dim` derived from one) and the literal
    size the example gives it."""

    where: str
    spec: DimSpec
    size: int
    node: cst.BaseExpression


def _ranged_hint(
    node: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]
) -> tuple[DimKind, int | None, int | None] | None:
    """(kind, min, max) of `Dim.STATIC(min=2, max=8)` or `Dim.DYNAMIC(...)` called with literal
    bounds (None: not such a call)."""
    if not isinstance(node, cst.Call) or not node.args:
        return None
    api = resolve(node.func) or ""
    kind = {"STATIC": DimKind.STATIC, "DYNAMIC": DimKind.DYNAMIC}.get(api.rpartition(".")[2])
    if kind is None or api.rpartition(".")[0] not in ("torch.export.Dim", "torch.export.dynamic_shapes.Dim"):
        return None
    bounds: dict[str, int | None] = {"min": None, "max": None}
    for position, arg in enumerate(node.args):
        name = arg.keyword.value if arg.keyword is not None else ("min", "max")[position] if position < 2 else ""
        if name not in bounds or not isinstance(arg.value, cst.Integer):
            return None
        bounds[name] = int(arg.value.evaluated_value)
    return kind, bounds["min"], bounds["max"]


class ExampleContradictsShapes(Rule):
    """The example inputs contradict `dynamic_shapes`: export fails before it traces anything.

    ## What it does
    At an export call (`torch.export.export`, `draft_export`) or an `xport_example()` that
    returns `model`, `args` and `dynamic_shapes`, reads each example input written as a factory
    call (`torch.randn(2, 8)`, or a list of them) against its declaration, and flags:
    - an example size outside a named `Dim`'s `min`/`max`;
    - a named `Dim` or `Dim.DYNAMIC` whose example size is 0 or 1 (export specialises both);
    - `Dim.STATIC(min=..., max=...)` whose range does not hold the example size;
    - a tuple of dimensions whose length is not the example's rank, or a dict naming a dimension
      past it (non-strict export only: strict export ignores it);
    - a tuple declared for a list input;
    - two different definitions (ranges) of one `Dim` name;
    - one `Dim` on sizes the example gives differently, or a derived `Dim` (`2 * dx`, `dx + 1`)
      that the example sizes do not satisfy.
    The site is read through names bound once, with tuple unpacking (`a, b = Dim("a"),
    Dim("b")`) and `dims("a", "b")`, and through one-line helpers of the project (`_h(batch)`).

    ## Why it fails torch.export
    export checks the example against the declaration first: `10 not in range [2, 8]`,
    `Received user-specified min/max range of [2, 8], conflicting with the inferred min/max
    range of [16, 16]`,
    `Constraints violated (b)! ... specialized it to be a constant (1)`, `Expected dynamic shape
    spec ... to have the same length as the actual tensor shape`, `Detected mismatch between the
    structure of inputs and dynamic_shapes`, `Found different definitions ... for the same
    symbolic dimension`, `Expected input ... to be equal to 2*dx, where dx = 4, but got 6`.

    ## Example
    ```python
    torch.export.export(Net(), (torch.randn(16, 8),), dynamic_shapes={"x": {0: Dim("batch", max=8)}})
    ```

    ## Use instead
    ```python
    torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: Dim("batch", max=8)}})
    ```

    ## Fix safety
    Unsafe: an example size of 0 or 1, or outside a named `Dim`'s range, becomes the nearest
    end of the range, where only this input reads the `Dim` (written inline, or bound to a name
    read once) and the example size is written in the file with no other reader; otherwise the
    message says why there is no fix. It assumes the model accepts an input of that size.

    ## Modes
    Error in both modes (torch 2.13): the declaration is checked before tracing; a dict naming a
    dimension past the example's rank fails non-strict export only (an export call's own
    `strict=` decides; `xport_example()` follows the configured mode). `Dim.AUTO` on a
    size of 0 or 1 exports (it becomes static, silently: XPT504).
    """

    CODE = "XPT506"
    NAME = "example-contradicts-dynamic-shapes"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SCOPE = Scope.MODULE
    TRIGGERS = ("dynamic_shapes",)
    PYTORCH_NAME = "dynamic shapes validation"
    FAILS_WITH = {
        mode: (
            TorchError("ConstraintViolationError", "not in range"),
            TorchError("UserError", "not in range"),
            TorchError("UserError", "Constraints violated"),
            TorchError("ValueError", "conflicts between user-specified ranges"),
            TorchError("UserError", "to have the same length as the actual tensor shape"),
            TorchError("UserError", "Detected mismatch between the structure"),
            TorchError("UserError", "Found different definitions"),
            TorchError("UserError", "is not equal to"),
            TorchError("UserError", "to be equal to"),
            TorchError("IndexError", "list assignment index out of range"),
        )
        for mode in Mode
    }

    def visit_Module(self, node: cst.Module) -> None:
        program = self.ctx.program
        for site in program.export_sites:
            if site.dynamic_shapes is None or site.forward is None or not site.is_method or site.examples is None:
                continue
            if site.strict is not None:
                self.strict = site.strict  # the call's own `strict=` decides its mode
            else:
                # an export call runs as written (non-strict by default); an example, as configured
                self.strict = site.api == "xport_example" and self.ctx.mode is Mode.STRICT
            self.site = site
            if isinstance(site.dynamic_shapes, (cst.Tuple, cst.List)) and len(site.inputs) != len(site.examples):
                continue
            declared: list[_Declared] = []
            args = program.follow_names(site.written_args)[1] if site.written_args is not None else ()
            for entry in site.inputs:
                if entry.example is not None:
                    names = program.follow_names(entry.written_example)[1] if entry.written_example else ()
                    declared.extend(self._input(entry.where, entry.example, entry.written, (*args, *names)))
            self._agree(declared)

    def _flag(self, node: cst.CSTNode, message: str, fix: FixProposal | None = None) -> None:
        """A finding where the declaration is written (in an assignment for one bound to a name);
        a part of it only a helper's `return` shows is reported at the export site."""
        program = self.ctx.program
        where = node if program.statement_of(node) is not None else self.site.node
        self.report(where, message, fix=fix, statement=program.statement_of(where))

    def _input(
        self, where: str, example: cst.BaseExpression, written: cst.BaseExpression, chain: tuple[str, ...]
    ) -> Iterator[_Declared]:
        """`written`: the declaration of this input as written (a finding goes there); `chain`: the
        names the example is read through."""
        program = self.ctx.program
        follow = program.follow
        dims = follow(written)
        if isinstance(example, cst.List):
            if isinstance(dims, cst.Tuple):
                self._flag(written, f"`{where}` is a list in the example but a tuple in `dynamic_shapes`: export "
                                    "fails (Detected mismatch between the structure of inputs and dynamic_shapes); "
                                    "write the dimensions as a list")
            elif isinstance(dims, cst.List) and len(dims.elements) == len(example.elements):
                for i, (item, spec) in enumerate(zip(example.elements, dims.elements, strict=True)):
                    item_names = program.follow_names(item.value)[1]
                    yield from self._input(f"{where}[{i}]", follow(item.value), spec.value, (*chain, *item_names))
            return
        sizes = example_sizes(example, self.ctx.resolve)
        if sizes is None:
            return
        if isinstance(dims, (cst.Tuple, cst.List)):
            if len(dims.elements) != len(sizes):
                self._flag(written, f"`{where}` has {len(sizes)} dimensions in the example but "
                                    f"{len(dims.elements)} in `dynamic_shapes`: export fails (Expected dynamic "
                                    "shape spec ... to have the same length as the actual tensor shape)")
                return
            entries = [(i, e.value) for i, e in enumerate(dims.elements)]
        elif isinstance(dims, cst.Dict):
            entries = [(int(key.evaluated_value), e.value) for e in dims.elements
                       if isinstance(e, cst.DictElement) and isinstance(key := follow(e.key), cst.Integer)]
        else:
            return
        for index, node in entries:
            if index >= len(sizes) and not self.strict:
                self._flag(node, f"`{where}` has {len(sizes)} dimensions in the example, but `dynamic_shapes` declares "
                                 f"dimension {index}: non-strict export fails (IndexError: list assignment index out "
                                 "of range; strict export ignores it)")
                continue
            size = follow(sizes[index]) if index < len(sizes) else None
            if not isinstance(size, cst.Integer):
                continue
            hint = _ranged_hint(follow(node), self.ctx.resolve)
            if hint is not None:
                self._hint(f"{where}.shape[{index}]", hint, int(size.evaluated_value), node)
                continue
            spec = self.reader.spec(follow(node))
            if spec is None:
                continue
            found = self._dimension(f"{where}.shape[{index}]", spec, int(size.evaluated_value), node, size, chain)
            if found is not None:
                yield found

    def _hint(self, where: str, hint: tuple[DimKind, int | None, int | None], size: int, node: cst.BaseExpression) -> None:
        """`Dim.STATIC(min=..., max=...)` or `Dim.DYNAMIC(min=..., max=...)`: the example size must
        lie in the range (a static one is that size; a dynamic one is never 0 or 1)."""
        kind, low, high = hint
        bounds = f"[{low if low is not None else 0}, {high if high is not None else 'int_oo'}]"
        outside = (low is not None and size < low) or (high is not None and size > high)
        if kind is DimKind.STATIC and outside:
            self._flag(node, f"`{where}` is Dim.STATIC with the range {bounds} but its example size is {size}: "
                             "export fails (conflicts between user-specified ranges and inferred ranges: the "
                             f"range {bounds} against the static size [{size}, {size}]); give the example a size "
                             "in the range, or drop the range")
        elif kind is DimKind.DYNAMIC and size in (0, 1):
            self._dimension(where, DimSpec(DimKind.DYNAMIC), size, node)

    def _resized(
        self, example: cst.Integer, node: cst.BaseExpression, spec: DimSpec, size: int, chain: tuple[str, ...]
    ) -> tuple[FixProposal | None, str]:
        """The example size moved into a named (not derived) `Dim`'s range (its nearest end),
        where only this input reads the `Dim` (written inline, or bound to a name read once) and
        the example size is written in the file with no other reader (`chain`: the names the
        example is read through); else None and why not."""
        program = self.ctx.program
        dim, names = program.follow_names(node)
        if isinstance(dim, cst.Name) and dim.value in self.reader.dim_bindings:
            names = (*names, dim.value)  # bound by `dims(...)`
        site = self.site
        shared = (*names, *program.follow_names(site.written_shapes)[1]) if site.written_shapes is not None else names
        if not program.read_once(shared):
            return None, f"`{spec.name}` is read elsewhere too (another input or export may share it)"
        if program.statement_of(example) is None or not program.read_once(chain):
            return None, "the example size is not written where only this export reads it"
        low, high = spec.values()
        new = int(low) if size < low else int(high)
        fix = FixProposal(f"Give the example the size {new}, inside `{spec.text()}` (assumes the model "
                          "accepts that size)", Applicability.UNSAFE, ((example, cst.Integer(str(new))),))
        return fix, ""

    @property
    def reader(self) -> ShapesReader:
        return self.ctx.program.reader

    def _dimension(
        self, where: str, spec: DimSpec, size: int, node: cst.BaseExpression, example: cst.Integer | None = None,
        chain: tuple[str, ...] = (),
    ) -> _Declared | None:
        if spec.kind is DimKind.DYNAMIC and size in (0, 1):
            self._flag(node, f"`{where}` is Dim.DYNAMIC but its example size is {size}: export specialises 0 and 1 "
                              "and fails (conflicts between user-specified ranges and inferred ranges); give the "
                              "example a size of at least 2, or use Dim.AUTO to let it become static")
            return None
        if spec.kind is not DimKind.NAMED:
            return None
        low, high = spec.values()
        if size in (0, 1) and not spec.derived:
            message = (f"`{where}` is `{spec.text()}` but its example size is {size}: export specialises 0 and 1 and "
                       f"fails (Constraints violated ({spec.name})! ... specialized it to be a constant); give the "
                       "example a size of at least 2")
        elif not spec.derived and not low <= size <= high:
            top = "int_oo" if high == float("inf") else int(high)
            message = (f"`{where}` is `{spec.text()}` but its example size is {size}: export fails ({size} not in "
                       f"range [{low}, {top}]); give the example a size in the range, or widen the Dim")
        else:
            return _Declared(where, spec, size, node)
        fix, reason = self._resized(example, node, spec, size, chain) if example is not None else (None, "")
        self._flag(node, message + (f" (no automatic fix: {reason})" if reason else ""), fix)
        return None

    def _agree(self, declared: list[_Declared]) -> None:
        """One `Dim` name: one definition, and one root value every example size agrees with."""
        roots: dict[str, _Declared] = {}
        for item in declared:
            if item.spec.derived:
                continue
            first = roots.setdefault(item.spec.name, item)
            if (first.spec.low, first.spec.high) != (item.spec.low, item.spec.high):
                self._flag(item.node, f"`{item.spec.text()}` and `{first.spec.text()}` define the Dim "
                                       f"`{item.spec.name}` twice: export fails (Found different definitions "
                                       "for the same symbolic dimension); declare it once and reuse it")
            elif first.size != item.size:
                self._flag(item.node, f"`{item.where}` and `{first.where}` share the Dim `{item.spec.name}` but "
                                       f"the example gives them {item.size} and {first.size}: export fails "
                                       f"({item.where} = {item.size} is not equal to {first.where} = {first.size})")
        for item in declared:
            root = roots.get(item.spec.name)
            if item.spec.derived and root is None and item.spec.scale and (item.size - item.spec.offset) % item.spec.scale:
                self._flag(item.node, f"`{item.where}` is `{item.spec.text()}` but its example size is {item.size}, "
                                       f"which no integer {item.spec.name} gives: export fails (Expected shape ... = "
                                       f"{item.size} of input Tensor to be of the form {item.spec.text()}, where "
                                       f"{item.spec.name} is an integer)")
                continue
            if not item.spec.derived or root is None:
                continue
            expected = item.spec.size(root.size)
            if expected != item.size:
                self._flag(item.node, f"`{item.where}` is `{item.spec.text()}`, which is {expected} for "
                                       f"{item.spec.name} = {root.size} ({root.where}), but its example size is "
                                       f"{item.size}: export fails (Expected input ... to be equal to "
                                       f"{item.spec.text()}, where {item.spec.name} = {root.size}, "
                                       f"but got {item.size})")

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(4, 8),)
            def export():
                return torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: Dim("batch", max=8)}})
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, x, y):
                    return x.sum() + y.sum()
            def xport_example():
                return Pair(), (torch.randn(4, 3), torch.randn(9, 3))
            def export():
                dx = Dim("dx")
                shapes = {"x": {0: dx}, "y": {0: 2 * dx + 1}}
                return torch.export.export(Pair(), (torch.randn(4, 3), torch.randn(9, 3)), dynamic_shapes=shapes)
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(1, 8),)
            def export():
                # Dim.AUTO on a size of 1: exports, static (XPT504 warns)
                return torch.export.export(Net(), (torch.randn(1, 8),), dynamic_shapes={"x": {0: Dim.AUTO}})
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(4, 8),)
            def export():
                # strict export ignores a dimension past the example's rank
                return torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes={"x": {2: Dim("b")}}, strict=True)
            """
        ),
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(4, 8),)
            def export():
                # a static dimension whose range holds the example size exports
                return torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: Dim.STATIC(min=2, max=8)}})
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(4, 8),)
            def export():
                return torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes={"x": {2: Dim("b")}})  # expect: XPT506
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(16, 8),)
            def export():
                batch = Dim("batch", max=8)
                return torch.export.export(Net(), (torch.randn(16, 8),), dynamic_shapes={"x": {0: batch}})  # expect: XPT506
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(16, 8),)
            def export():
                batch = Dim("batch", max=8)
                return torch.export.export(Net(), (torch.randn(8, 8),), dynamic_shapes={"x": {0: batch}})  # expect: XPT506
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(1, 8),)
            def export():
                return torch.export.export(Net(), (torch.randn(1, 8),), dynamic_shapes={"x": {0: Dim("batch")}})  # expect: XPT506
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(1, 8),)
            def export():
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes={"x": {0: Dim("batch")}})  # expect: XPT506
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(1, 8),)
            def export():
                return torch.export.export(Net(), (torch.randn(1, 8),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})  # expect: XPT506
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(16, 8),)
            def export():
                # a static dimension with a range: the example size must be in it
                return torch.export.export(Net(), (torch.randn(16, 8),), dynamic_shapes={"x": {0: Dim.STATIC(min=2, max=8)}})  # expect: XPT506
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(4, 8),)
            def export():
                batch = Dim("batch")
                return torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes={"x": (batch, None, None)})  # expect: XPT506
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Stack(torch.nn.Module):
                def forward(self, xs):
                    return xs[0] + xs[1]
            def xport_example():
                return Stack(), ([torch.randn(4, 3), torch.randn(4, 3)],)
            def export():
                batch = Dim("batch")
                return torch.export.export(
                    Stack(),
                    ([torch.randn(4, 3), torch.randn(4, 3)],),
                    dynamic_shapes={"xs": ({0: batch}, {0: batch})},  # expect: XPT506
                )
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, x, y):
                    return x.sum() + y.sum()
            def xport_example():
                return Pair(), (torch.randn(4, 3), torch.randn(4, 3))
            def export():
                shapes = {"x": {0: Dim("batch")}, "y": {0: Dim("batch", max=10)}}  # expect: XPT506
                return torch.export.export(Pair(), (torch.randn(4, 3), torch.randn(4, 3)), dynamic_shapes=shapes)
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import dims
            class Pair(torch.nn.Module):
                def forward(self, x, y):
                    return x.sum() + y.sum()
            def xport_example():
                return Pair(), (torch.randn(4, 3), torch.randn(5, 3))
            def export():
                batch, feat = dims("batch", "feat")
                shapes = {"x": {0: batch, 1: feat}, "y": {0: batch, 1: feat}}  # expect: XPT506
                return torch.export.export(Pair(), (torch.randn(4, 3), torch.randn(5, 3)), dynamic_shapes=shapes)
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, x, y):
                    return x.sum() + y.sum()
            def xport_example():
                return Pair(), (torch.randn(4, 3), torch.randn(6, 3))
            def export():
                dx, dz = Dim("dx"), Dim("dz")
                shapes = {"x": {0: dx, 1: dz}, "y": {0: 2 * dx}}  # expect: XPT506
                return torch.export.export(Pair(), (torch.randn(4, 3), torch.randn(6, 3)), dynamic_shapes=shapes)
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Pair(torch.nn.Module):
                def forward(self, x, y):
                    return x + y
            def xport_example():
                return Pair(), (torch.randn(4, 3), torch.randn(4, 3))
            def export():
                # one Dim shared by both inputs: no fix (a new size for one example splits it)
                batch = Dim("batch")
                shapes = {"x": {0: batch}, "y": {0: batch}}  # expect: XPT506
                return torch.export.export(Pair(), (torch.randn(1, 3), torch.randn(1, 3)), dynamic_shapes=shapes)
            """
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Net(), (torch.randn(4, 8),)
            def export():
                return torch.export.export(Net(), (torch.randn(1, 8),), dynamic_shapes={"x": {0: Dim.DYNAMIC(min=2, max=8)}})  # expect: XPT506
            """
        ),
    ]
