from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from ..export_site import EXPORT_APIS
from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, Scope, TorchError, Valid
from ..shapes import DimKind, DimSpec, ShapesReader
from ..walk import iter_nodes
from .xpt503_static_export import example_sizes


@dataclass(frozen=True)
class _Declared:
    """One dimension declared with a named `Dim` (or a `Dim` derived from one) and the literal
    size the example gives it."""

    where: str
    spec: DimSpec
    size: int
    node: cst.BaseExpression


class ExampleContradictsShapes(Rule):
    """The example inputs contradict `dynamic_shapes`: export fails before it traces anything.

    ## What it does
    At an export call (`torch.export.export`, `draft_export`) or an `xport_example()` that
    returns `model`, `args` and `dynamic_shapes`, reads each example input written as a factory
    call (`torch.randn(2, 8)`, or a list of them) against its declaration, and flags:
    - an example size outside a named `Dim`'s `min`/`max`;
    - a named `Dim` or `Dim.DYNAMIC` whose example size is 0 or 1 (export specialises both);
    - a tuple of dimensions whose length is not the example's rank, or a dict naming a dimension
      past it (non-strict export only: strict export ignores it);
    - a tuple declared for a list input;
    - two different definitions (ranges) of one `Dim` name;
    - one `Dim` on sizes the example gives differently, or a derived `Dim` (`2 * dx`, `dx + 1`)
      that the example sizes do not satisfy.
    Names bound once are followed, with tuple unpacking (`a, b = Dim("a"), Dim("b")`) and
    `dims("a", "b")`.

    ## Why it fails torch.export
    export checks the example against the declaration first: `10 not in range [2, 8]`,
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
    end of the range, where the `Dim` is written inline at the call (no other input shares it)
    and the example sits in that call. It assumes the model accepts an input of that size.

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
        self.reader = ShapesReader(node, self.ctx.resolve)
        self.strict = False
        self._holders: dict[int, cst.CSTNode] | None = None
        #: the export call or `xport_example()` dict being read
        self.site: cst.CSTNode = node

    def _flag(self, node: cst.CSTNode, message: str, fix: FixProposal | None = None) -> None:
        """A finding in a declaration bound to a name sits in that assignment, not at the call
        (the holders are found once a file has a finding)."""
        if self._holders is None:
            self._holders = {
                id(inner): stmt for stmt in iter_nodes(self.ctx.program.module)
                if isinstance(stmt, cst.Assign) for inner in iter_nodes(stmt.value)
            }
        self.report(node, message, fix=fix, statement=self._holders.get(id(node)))

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.resolve(node.func) not in EXPORT_APIS or len(node.args) < 2:
            return
        if any(a.keyword is not None and a.keyword.value in ("mod", "args") for a in node.args[:2]):
            return
        shapes = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "dynamic_shapes"), None)
        strict = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "strict"), None)
        if shapes is not None:
            # the call's own `strict=` decides its mode (a file's export call runs as written)
            self.strict = isinstance(strict, cst.Name) and strict.value == "True"
            self.site = node
            self._site(node.args[0].value, node.args[1].value, shapes)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value != "xport_example" or not isinstance(node.body, cst.IndentedBlock):
            return
        for stmt in node.body.body:
            returned = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if isinstance(returned, cst.Return) and isinstance(returned.value, cst.Dict):
                entries = {
                    e.key.evaluated_value: e.value for e in returned.value.elements
                    if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                }
                if {"model", "args", "dynamic_shapes"} <= set(entries):
                    self.strict = self.ctx.mode is Mode.STRICT
                    self.site = returned.value
                    self._site(entries["model"], entries["args"], entries["dynamic_shapes"])

    def _site(self, model: cst.BaseExpression, args: cst.BaseExpression, shapes: cst.BaseExpression) -> None:
        reader = self.reader
        cls = self.ctx.program.classes.get(reader.model_class(model) or "")
        forward = cls.methods.get("forward") if cls is not None else None
        args, shapes = reader._follow(args), reader._follow(shapes)
        if forward is None or not isinstance(args, cst.Tuple):
            return
        names = [p.name.value for p in [*forward.params.posonly_params, *forward.params.params][1:]]
        examples = [reader._follow(e.value) for e in args.elements if not isinstance(e, cst.StarredElement)]
        if len(examples) != len(args.elements):
            return
        pairs: list[tuple[str, cst.BaseExpression, cst.BaseExpression]] = []
        if isinstance(shapes, cst.Dict):
            by_name = dict(zip(names, examples, strict=False))
            for element in shapes.elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                    key = str(element.key.evaluated_value)
                    if key in by_name:
                        pairs.append((key, by_name[key], element.value))
        elif isinstance(shapes, (cst.Tuple, cst.List)) and len(shapes.elements) == len(examples):
            pairs = [(f"args[{i}]", ex, e.value) for i, (ex, e) in enumerate(zip(examples, shapes.elements, strict=True))]
        declared: list[_Declared] = []
        for where, example, dims in pairs:
            declared.extend(self._input(where, example, reader._follow(dims)))
        self._agree(declared)

    def _input(self, where: str, example: cst.BaseExpression, dims: cst.BaseExpression) -> Iterator[_Declared]:
        reader = self.reader
        if isinstance(example, cst.List):
            if isinstance(dims, cst.Tuple):
                self._flag(dims, f"`{where}` is a list in the example but a tuple in `dynamic_shapes`: export "
                                  "fails (Detected mismatch between the structure of inputs and dynamic_shapes); "
                                  "write the dimensions as a list")
            elif isinstance(dims, cst.List) and len(dims.elements) == len(example.elements):
                for i, (item, spec) in enumerate(zip(example.elements, dims.elements, strict=True)):
                    yield from self._input(f"{where}[{i}]", reader._follow(item.value), reader._follow(spec.value))
            return
        sizes = example_sizes(example, self.ctx.resolve)
        if sizes is None:
            return
        if isinstance(dims, (cst.Tuple, cst.List)):
            if len(dims.elements) != len(sizes):
                self._flag(dims, f"`{where}` has {len(sizes)} dimensions in the example but {len(dims.elements)} "
                                  "in `dynamic_shapes`: export fails (Expected dynamic shape spec ... to have the "
                                  "same length as the actual tensor shape)")
                return
            entries = [(i, e.value) for i, e in enumerate(dims.elements)]
        elif isinstance(dims, cst.Dict):
            entries = [(int(e.key.evaluated_value), e.value) for e in dims.elements
                       if isinstance(e, cst.DictElement) and isinstance(e.key, cst.Integer)]
        else:
            return
        for index, node in entries:
            if index >= len(sizes) and not self.strict:
                self._flag(node, f"`{where}` has {len(sizes)} dimensions in the example, but `dynamic_shapes` declares "
                                 f"dimension {index}: non-strict export fails (IndexError: list assignment index out "
                                 "of range; strict export ignores it)")
                continue
            size = sizes[index] if index < len(sizes) else None
            spec = reader.spec(node)
            if spec is None or not isinstance(size, cst.Integer):
                continue
            found = self._dimension(f"{where}.shape[{index}]", spec, int(size.evaluated_value), node, size)
            if found is not None:
                yield found

    def _resized(self, example: cst.Integer, node: cst.BaseExpression, spec: DimSpec, size: int) -> FixProposal | None:
        """The example size moved into a named `Dim`'s range (its nearest end), where the `Dim`
        is written inline (no other input shares it) and the example sits in the same export
        call or `xport_example()` dict as the declaration."""
        if not isinstance(node, cst.Call) or spec.derived:
            return None
        inside = {id(inner) for inner in iter_nodes(self.site)}
        if id(example) not in inside or id(node) not in inside:
            return None
        low, high = spec.values()
        new = int(low) if size < low else int(high)
        return FixProposal(f"Give the example the size {new}, inside `{spec.text()}` (assumes the model "
                           "accepts that size)", Applicability.UNSAFE, ((example, cst.Integer(str(new))),))

    def _dimension(
        self, where: str, spec: DimSpec, size: int, node: cst.BaseExpression, example: cst.Integer | None = None
    ) -> _Declared | None:
        if spec.kind is DimKind.DYNAMIC and size in (0, 1):
            self._flag(node, f"`{where}` is Dim.DYNAMIC but its example size is {size}: export specialises 0 and 1 "
                              "and fails (conflicts between user-specified ranges and inferred ranges); give the "
                              "example a size of at least 2, or use Dim.AUTO to let it become static")
            return None
        if spec.kind is not DimKind.NAMED:
            return None
        if size in (0, 1) and not spec.derived:
            self._flag(node, f"`{where}` is `{spec.text()}` but its example size is {size}: export specialises 0 "
                              f"and 1 and fails (Constraints violated ({spec.name})! ... specialized it to be a "
                              "constant); give the example a size of at least 2",
                       self._resized(example, node, spec, size) if example is not None else None)
            return None
        low, high = spec.values()
        if not spec.derived and not low <= size <= high:
            top = "int_oo" if high == float("inf") else int(high)
            self._flag(node, f"`{where}` is `{spec.text()}` but its example size is {size}: export fails "
                              f"({size} not in range [{low}, {top}]); give the example a size in the range, "
                              "or widen the Dim", self._resized(example, node, spec, size) if example is not None else None)
            return None
        return _Declared(where, spec, size, node)

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
    ]
