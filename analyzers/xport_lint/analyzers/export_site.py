"""Layer 2 of a file's analysis, export sites: the file's `torch.export.export`/`draft_export`
calls (and `torch.compile(..., fullgraph=True)`), the `xport_example()` and module-level
declarations, and how each declares the shapes of a model's inputs (`dynamic_shapes`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from .dataflow import all_params
from .index import EMPTY_CONTEXT, FileContext
from .model import Mode
from .names import dotted
from .shapes import ShapeConfig, ShapesReader, example_return
from .symbols import FileSymbols
from .walk import iter_nodes

EXPORT_APIS = frozenset(
    {"torch.export.export", "torch.export.draft_export", "torch.export._trace._export"}
)


@dataclass(frozen=True)
class ExportSite:
    """One `torch.export.export(model, args, ..., dynamic_shapes=...)` call, read once for every
    rule on it: what it exports and with what, names bound once in the file followed."""

    call: cst.Call
    api: str
    #: the model (or function) expression, followed through names bound once
    model: cst.BaseExpression
    #: the example arguments, followed (None: not written)
    args: cst.BaseExpression | None
    #: `dynamic_shapes=` as written, and followed (None: not given)
    written_shapes: cst.BaseExpression | None
    dynamic_shapes: cst.BaseExpression | None
    #: the class the model expression builds, as written (`Decoder` of `Decoder(cfg).eval()`)
    model_class: str | None
    #: `forward` of that class when this file defines it, or the exported function of this file
    forward: cst.FunctionDef | None
    #: whether `forward` is a method (its first parameter is `self`)
    is_method: bool

    @property
    def parameters(self) -> list[cst.Param]:
        """`forward`'s parameters as export matches inputs to them (after `self`)."""
        if self.forward is None:
            return []
        params = list(all_params(self.forward.params))
        return params[1:] if self.is_method else params

    @property
    def positional(self) -> list[cst.Param]:
        """`forward`'s positional parameters (after `self`): what `args` fills in order."""
        if self.forward is None:
            return []
        params = [*self.forward.params.posonly_params, *self.forward.params.params]
        return params[1:] if self.is_method else params


@dataclass(frozen=True)
class ExportCall:
    call: cst.Call
    api: str


class ExportSites(FileSymbols):
    """The file's symbols, and where and how it exports."""

    def __init__(
        self, module: cst.Module, mentions_export: bool, context: FileContext = EMPTY_CONTEXT, name: str = "",
        is_package: bool = False,
    ) -> None:
        """`mentions_export`: the text may hold an export call (else none is looked for)."""
        super().__init__(module, context, name, is_package)
        self.export_calls: list[ExportCall] = []
        #: model class as written -> the node that declares its shapes (export call, example)
        self.shape_declarations: dict[str, cst.CSTNode] = {}
        #: model class as written -> its `dynamic_shapes` expression in this file, and the reader
        #: that follows its names (for fixes that edit it)
        self.shape_expressions: dict[str, cst.BaseExpression] = {}
        self.shapes_reader: ShapesReader | None = None
        self._sites: dict[int, ExportSite | None] = {}
        self._site_reader: ShapesReader | None = None
        if mentions_export:
            self._collect_export_calls()

    def export_site(self, call: cst.Call) -> ExportSite | None:
        """The export site of `call` when it is a call of an export API with a model (None
        otherwise); read once per call, for every rule that reads it."""
        key = id(call)
        if key in self._sites:
            return self._sites[key]
        api = self.resolve(call.func)
        site = None
        if api in EXPORT_APIS and call.args:
            reader = self.shapes_reader or self._site_reader or ShapesReader(self.module, self.resolve)
            self._site_reader = reader  # not `shapes_reader`: its presence says the file declares shapes
            written = next(
                (a.value for a in call.args if a.keyword is not None and a.keyword.value == "dynamic_shapes"), None
            )
            model = reader._follow(call.args[0].value)
            model_class = reader.model_class(model)
            forward, is_method = None, False
            info = self.classes.get(model_class or "")
            if info is not None:
                forward, is_method = info.methods.get("forward"), True
            elif not isinstance(model, cst.Call):
                forward = self.functions.get(dotted(model) or "")
            positional = [a for a in call.args[1:] if a.keyword is None]
            args = reader._follow(positional[0].value) if positional else None
            site = ExportSite(
                call, api, model, args, written, reader._follow(written) if written is not None else None,
                model_class, forward, is_method,
            )
        self._sites[key] = site
        return site

    def _collect_export_calls(self) -> None:
        for node in iter_nodes(self.module):
            if not isinstance(node, cst.Call):
                continue
            api = self.imports.resolve(node.func)
            if api is None:
                continue
            if api in EXPORT_APIS or api.startswith(("torch._dynamo.export", "torch._export.")):
                self.export_calls.append(ExportCall(node, api))
            elif api == "torch.compile" and keyword_true(node, "fullgraph"):
                self.export_calls.append(ExportCall(node, api))

    @functools.cached_property
    def declared_shapes(self) -> dict[str, ShapeConfig]:
        """How this file's export calls and `xport_example()` export each model class, by the
        class name as written (`Decoder`, `models.Decoder`); a class exported twice keeps the
        first declaration."""
        examples = [f for n, f in self.functions.items() if n == "xport_example"]
        declared = _module_declaration(self.module)
        if not self.export_calls and not examples and declared is None:
            return {}
        reader = self.shapes_reader = ShapesReader(self.module, self.imports.resolve)
        out: dict[str, ShapeConfig] = {}
        if declared is not None:
            # ExportDB's layout: module-level `model = Model()` and `dynamic_shapes = {...}`
            cls = reader.model_class(declared[0])
            config = reader.config(declared[1], f"`dynamic_shapes` in {self.name or 'this file'}")
            if cls is not None and config is not None:
                out[cls] = config
                self.shape_declarations[cls] = declared[1]
                self.shape_expressions[cls] = declared[1]
        for call in self.export_calls:
            if call.api not in EXPORT_APIS or not call.call.args:
                continue
            shapes = next(
                (a.value for a in call.call.args if a.keyword is not None and a.keyword.value == "dynamic_shapes"), None
            )
            cls = reader.model_class(call.call.args[0].value)
            config = reader.config(shapes, f"`{call.api.rpartition('.')[2]}(...)` in {self.name or 'this file'}")
            if cls is not None and config is not None and cls not in out:
                out[cls] = config
                self.shape_declarations[cls] = call.call
                if shapes is not None:
                    self.shape_expressions[cls] = shapes
        for func in examples:
            found = example_return(func)
            if found is None:
                continue
            cls = reader.model_class(found[0])
            config = reader.config(found[1], f"`xport_example()` in {self.name or 'this file'}")
            if cls is not None and config is not None and cls not in out:
                out[cls] = config
                self.shape_declarations[cls] = func
                if found[1] is not None:
                    self.shape_expressions[cls] = found[1]
        return out

    def place_shapes(self, path: str, line_of: Callable[[cst.CSTNode], int | None]) -> None:
        """Give each declaration of `declared_shapes` its file and line (for related information)."""
        for cls, node in self.shape_declarations.items():
            line = line_of(node)
            if line is not None and cls in self.declared_shapes:
                self.declared_shapes[cls] = dataclasses.replace(self.declared_shapes[cls], path=path, line=line)

    def mode(self, configured: Mode) -> Mode:
        """A `strict=True` export call in the file makes the whole file strict."""
        for call in self.export_calls:
            for arg in call.call.args:
                if (
                    arg.keyword is not None
                    and arg.keyword.value == "strict"
                    and isinstance(arg.value, cst.Name)
                    and arg.value.value == "True"
                ):
                    return Mode.STRICT
        return configured


def _module_declaration(module: cst.Module) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(model, dynamic_shapes) of module-level `model = ...` and `dynamic_shapes = ...`."""
    found: dict[str, cst.BaseExpression] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and target.value in ("model", "dynamic_shapes"):
                        found[target.value] = small.value
    if "model" in found and "dynamic_shapes" in found:
        return found["model"], found["dynamic_shapes"]
    return None


def keyword_true(call: cst.Call, keyword: str) -> bool:
    return any(
        a.keyword is not None
        and a.keyword.value == keyword
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in call.args
    )
