"""Layer 2 of a file's analysis, export sites: the file's `torch.export.export`/`draft_export`
calls (and `torch.compile(..., fullgraph=True)`), the `xport_example()` and module-level
declarations, and how each declares the shapes of a model's inputs (`dynamic_shapes`).

An export site is one fact, whatever its spelling: the model, the example arguments,
`dynamic_shapes`, its keys and its `Dim`s are read through names bound once in the file (tuple
unpacking too) and through one-line helpers (`def _h(v): return v`) of the file or, by their
summary in the project index, of other files. Rules read sites; they never look for export calls
themselves.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from .dataflow import all_params
from .index import EMPTY_CONTEXT, FileContext
from .model import Mode
from .names import dotted
from .shapes import (
    Declaration,
    DimKind,
    DimSpec,
    ExampleInputs,
    ShapeConfig,
    ShapesReader,
    declared_entry_ranks,
    declared_examples,
    declared_keyword_examples,
)
from .symbols import FileSymbols
from .syntax import keyword_argument
from .walk import iter_nodes

EXPORT_APIS = frozenset(
    {"torch.export.export", "torch.export.draft_export", "torch.export._trace._export"}
)


@dataclass(frozen=True)
class DeclaredInput:
    """One entry of an export site's `dynamic_shapes`: the input it declares, how, and the
    example the site gives that input (each followed to what it is)."""

    #: the forward parameter a dict key names (followed to its string), or `args[i]` of a tuple entry
    where: str
    #: the key as written (None: an entry of a tuple), and the string literal it is followed to
    key: cst.BaseExpression | None
    key_string: cst.SimpleString | None
    #: the dimensions as written, and followed (`{0: batch}`, `(batch, None)`, `None`)
    written: cst.BaseExpression
    dims: cst.BaseExpression
    #: the example input export pairs with this entry, followed (None: not shown), and as written
    #: in the example arguments
    example: cst.BaseExpression | None
    written_example: cst.BaseExpression | None


@dataclass(frozen=True)
class ExportSite:
    """One export: a `torch.export.export(model, args, ..., dynamic_shapes=...)` call, or what an
    `xport_example()` returns (`(model, args)`, `(model, args, kwargs)` or a dict); read once for
    every rule on it, through any spelling."""

    #: the export call, or what `xport_example()` returns as written (a tuple or `{"model": ...,
    #: "args": ...}` dict, or a name or helper call that gives one): a node of the file, where findings
    #: about parts only a helper's `return` shows are reported
    node: cst.BaseExpression
    #: the export API called, or "xport_example"
    api: str
    #: the model (or function) expression, followed
    model: cst.BaseExpression
    #: the example arguments as written, and followed (None: not written)
    written_args: cst.BaseExpression | None
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
    #: the call's own `strict=` (None: not written, or an example: the configured mode decides)
    strict: bool | None = None
    #: each example argument, followed (None: the args are not a tuple or list of plain elements)
    examples: tuple[cst.BaseExpression, ...] | None = None
    #: each keyword example input of a `kwargs=` dict display: (name, followed, as written)
    keyword_examples: tuple[tuple[str, cst.BaseExpression, cst.BaseExpression], ...] = ()
    #: the entries of `dynamic_shapes` that name an input, paired with their examples
    inputs: tuple[DeclaredInput, ...] = ()
    #: every key of a dict `dynamic_shapes`: (as written, followed to its string or None)
    keys: tuple[tuple[cst.BaseExpression, cst.SimpleString | None], ...] = ()
    #: the keyword example inputs as written (`kwargs=`, an example's "kwargs"; None: not given)
    written_kwargs: cst.BaseExpression | None = None
    #: whether `keyword_examples` holds every keyword input (none given, or a dict display of
    #: string keys)
    keywords_read: bool = True

    @property
    def passed_parameters(self) -> list[str] | None:
        """The names of `forward`'s parameters the export gives an input, in order: the first
        `len(args)` and the keyword inputs (None: not known, or `*args`/`**kwargs` take some)."""
        if self.forward is None or self.examples is None or not self.keywords_read:
            return None
        params = self.forward.params
        if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            return None
        positional = [p.name.value for p in [*params.posonly_params, *params.params]][1 if self.is_method else 0:]
        if len(self.examples) > len(positional):
            return None
        keywords = {name for name, _, _ in self.keyword_examples}
        return [*positional[: len(self.examples)], *(p.name.value for p in self.parameters if p.name.value in keywords)]

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


#: how many names and helpers an expression is followed through
_MAX_STEPS = 8


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
        self.shape_declarations: dict[str, Declaration] = {}
        #: model class as written -> its `dynamic_shapes` expression in this file, and the reader
        #: that follows its names (for fixes that edit it)
        self.shape_expressions: dict[str, cst.BaseExpression] = {}
        self.shapes_reader: ShapesReader | None = None
        self._sites: dict[int, ExportSite | None] = {}
        self._site_reader: ShapesReader | None = None
        self._statements: dict[int, cst.BaseSmallStatement] | None = None
        self._name_counts: tuple[dict[int | None, Counter[str]], dict[int | None, set[str]]] | None = None
        if mentions_export:
            self._collect_export_calls()

    @property
    def reader(self) -> ShapesReader:
        """The file's `dynamic_shapes` reader (names bound once, tuple unpacking, `dims()`)."""
        reader = self.shapes_reader or self._site_reader
        if reader is None:
            # not `shapes_reader`: its presence says the file declares shapes
            reader = self._site_reader = ShapesReader(self.module, self.resolve)
        return reader

    def export_site(self, call: cst.Call) -> ExportSite | None:
        """The export site of `call` when it is a call of an export API with a model (None
        otherwise); read once per call, for every rule that reads it."""
        key = id(call)
        if key not in self._sites:
            api = self.resolve(call.func)
            site = None
            if api in EXPORT_APIS and call.args and call.args[0].keyword is None:
                positional = [a for a in call.args[1:] if a.keyword is None]
                strict = keyword_argument(call, "strict")
                site = self._site(
                    call, api, call.args[0].value,
                    positional[0].value if positional else keyword_argument(call, "args"),
                    keyword_argument(call, "dynamic_shapes"),
                    None if strict is None else isinstance(strict, cst.Name) and strict.value == "True",
                    keyword_argument(call, "kwargs"),
                )
            self._sites[key] = site
        return self._sites[key]

    @functools.cached_property
    def export_sites(self) -> list[ExportSite]:
        """Every export site of the file: its export calls, then what `xport_example()` returns in
        each form confirmation accepts: `(model, args)`, `(model, args, kwargs)` or `{"model": ...,
        "args": ..., "kwargs": ..., "dynamic_shapes": ...}`, written there or bound to a name."""
        sites = [site for call in self.export_calls if (site := self.export_site(call.call)) is not None]
        example = self.functions.get("xport_example")
        body = example.body.body if example is not None and isinstance(example.body, cst.IndentedBlock) else ()
        for stmt in body:
            returned = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
            if isinstance(returned, cst.Return) and returned.value is not None:
                site = self._example_site(returned.value)
                if site is not None:
                    sites.append(site)
        return sites

    def _example_site(self, returned: cst.BaseExpression) -> ExportSite | None:
        """The export site of what `xport_example()` returns (None: not one of its forms)."""
        value = self.follow(returned)
        if isinstance(value, cst.Tuple) and len(value.elements) in (2, 3) and not any(
            isinstance(e, cst.StarredElement) for e in value.elements
        ):
            model, args, *kwargs = (e.value for e in value.elements)
            return self._site(returned, "xport_example", model, args, None, None, kwargs[0] if kwargs else None)
        if isinstance(value, cst.Dict):
            entries = {key: e.value for e in value.elements
                       if isinstance(e, cst.DictElement) and isinstance(key := self._string(e.key), str)}
            if "model" in entries:  # confirmation's "args" default to ()
                return self._site(returned, "xport_example", entries["model"], entries.get("args"),
                                  entries.get("dynamic_shapes"), None, entries.get("kwargs"))
        return None

    def _site(
        self, node: cst.BaseExpression, api: str, model: cst.BaseExpression, args: cst.BaseExpression | None,
        written: cst.BaseExpression | None, strict: bool | None, kwargs: cst.BaseExpression | None = None,
    ) -> ExportSite:
        model = self.follow(model)
        model_class = self.reader.model_class(model)
        forward, is_method = None, False
        info = self.classes.get(model_class or "")
        if info is not None:
            forward, is_method = info.methods.get("forward"), True
        elif not isinstance(model, cst.Call):
            forward = self.functions.get(dotted(model) or "")
        followed_args = self.follow(args) if args is not None else None
        examples = None
        if isinstance(followed_args, (cst.Tuple, cst.List)) and not any(
            isinstance(e, cst.StarredElement) for e in followed_args.elements
        ):
            examples = tuple(self.follow(e.value) for e in followed_args.elements)
        shapes = self.follow(written) if written is not None else None
        followed_kwargs = self.follow(kwargs) if kwargs is not None else None
        keyword_examples = tuple(
            (key, self.follow(e.value), e.value) for e in followed_kwargs.elements
            if isinstance(e, cst.DictElement) and isinstance(key := self._string(e.key), str)
        ) if isinstance(followed_kwargs, cst.Dict) else ()
        keywords_read = followed_kwargs is None or (
            isinstance(followed_kwargs, cst.Dict) and len(keyword_examples) == len(followed_kwargs.elements)
        )
        site = ExportSite(node, api, model, args, followed_args, written, shapes, model_class, forward, is_method,
                          strict, examples, keyword_examples=keyword_examples, written_kwargs=kwargs,
                          keywords_read=keywords_read)
        inputs, keys = self._inputs(site)
        return dataclasses.replace(site, inputs=inputs, keys=keys)

    def _inputs(
        self, site: ExportSite
    ) -> tuple[tuple[DeclaredInput, ...], tuple[tuple[cst.BaseExpression, cst.SimpleString | None], ...]]:
        """The entries of `site`'s `dynamic_shapes`, each with the example it declares, and the
        keys of a dict one."""
        shapes, examples = site.dynamic_shapes, site.examples
        written = [e.value for e in site.args.elements] if isinstance(site.args, (cst.Tuple, cst.List)) else []
        inputs: list[DeclaredInput] = []
        keys: list[tuple[cst.BaseExpression, cst.SimpleString | None]] = []
        if isinstance(shapes, cst.Dict):
            names = [p.name.value for p in site.positional]
            by_name = dict(zip(names, zip(examples or (), written, strict=False), strict=False))
            by_name.update((name, (followed, as_written)) for name, followed, as_written in site.keyword_examples)
            for element in shapes.elements:
                if not isinstance(element, cst.DictElement):
                    continue
                string = self.follow(element.key)
                string = string if isinstance(string, cst.SimpleString) else None
                keys.append((element.key, string))
                key = string.evaluated_value if string is not None else None
                if isinstance(key, str):
                    example, as_written = by_name.get(key, (None, None))
                    inputs.append(DeclaredInput(key, element.key, string, element.value, self.follow(element.value),
                                                example, as_written))
        elif isinstance(shapes, (cst.Tuple, cst.List)) and not any(
            isinstance(e, cst.StarredElement) for e in shapes.elements
        ):
            for i, element in enumerate(shapes.elements):
                known = examples is not None and i < len(examples)
                inputs.append(DeclaredInput(f"args[{i}]", None, None, element.value, self.follow(element.value),
                                            examples[i] if known else None, written[i] if known else None))
        return tuple(inputs), tuple(keys)

    # -- following names and helpers ----------------------------------------------------------

    def follow(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What `expr` is: through names bound once in the file (`shapes = {...}`, `a, b = x, y`)
        and calls of one-line helpers (`_h(v)` with `def _h(v): return v`, of this file or, by
        the project index, of another)."""
        return self.follow_names(expr)[0]

    def follow_names(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[str, ...]]:
        """`follow(expr)`, and the names it went through (a fix that edits what they hold edits
        what every reader of them sees)."""
        names: list[str] = []
        bindings = self.reader.bindings
        for _ in range(_MAX_STEPS):
            if isinstance(expr, cst.Name) and expr.value in bindings:
                names.append(expr.value)
                expr = bindings[expr.value]
                continue
            inlined = self._inlined(expr) if isinstance(expr, cst.Call) else None
            if inlined is None:
                break
            expr = inlined
        return expr, tuple(names)

    def _inlined(self, call: cst.Call) -> cst.BaseExpression | None:
        """The `return` expression of the one-line helper `call` calls, with its arguments in
        place of its parameters (an argument returned as it is: the caller's own node). A call
        without arguments is left as written (`make_model()` is what the site names)."""
        written = dotted(call.func) if call.args else None
        helper = self.one_line_helper(written) if written is not None else None
        return helper.at(call) if helper is not None else None

    def read_once(self, names: tuple[str, ...]) -> bool:
        """Whether each of `names` is bound once and read once where it is bound (a function of
        the file, or the module and everything in it): what it holds is seen by one reader only,
        so an edit of it changes nothing else."""
        if not names:
            return True
        if self._name_counts is None:
            self._name_counts = _name_counts(self.module)
        counts, assigned = self._name_counts
        for name in names:
            scopes = [scope for scope, bound in assigned.items() if name in bound]
            if len(scopes) != 1:
                return False
            scope = scopes[0]
            seen = counts[scope].get(name, 0) if scope is not None else sum(c.get(name, 0) for c in counts.values())
            if seen != 2:  # the binding and one read
                return False
        return True

    def statement_of(self, node: cst.CSTNode) -> cst.BaseSmallStatement | None:
        """The simple statement of the file holding `node` (None: not in the file's own text, such
        as a helper's `return` written at a call)."""
        if self._statements is None:
            self._statements = {
                id(inner): small
                for line in iter_nodes(self.module) if isinstance(line, cst.SimpleStatementLine)
                for small in line.body for inner in iter_nodes(small)
            }
        return self._statements.get(id(node))

    def site_calls(self) -> list[str]:
        """Callees as written in a file that exports (an export call or `xport_example()`) that
        it imports from elsewhere, not from torch: the helpers its export sites may call."""
        if not self.export_calls and "xport_example" not in self.functions:
            return []
        found = []
        for node in iter_nodes(self.module):
            written = dotted(node.func) if isinstance(node, cst.Call) else None
            if written is None or written.partition(".")[0] not in self.imports.aliases:
                continue
            if not (self.imports.resolve(node.func) or "").startswith("torch"):  # type: ignore[union-attr]
                found.append(written)
        return sorted(set(found))

    def _string(self, expr: cst.BaseExpression) -> str | None:
        found = self.follow(expr)
        value = found.evaluated_value if isinstance(found, cst.SimpleString) else None
        return value if isinstance(value, str) else None

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
        declared = _module_declaration(self.module)
        if not self.export_calls and "xport_example" not in self.functions and declared is None:
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
            site = self.export_site(call.call)
            if site is None:
                continue
            cls = site.model_class
            config = self._config(site, f"`{call.api.rpartition('.')[2]}(...)` in {self.name or 'this file'}")
            if cls is not None and config is not None and cls not in out:
                out[cls] = config
                self.shape_declarations[cls] = call.call
                if site.written_shapes is not None:
                    self.shape_expressions[cls] = site.written_shapes
        for site in self.export_sites:
            if site.api != "xport_example":
                continue
            cls = site.model_class
            config = reader.config(site.written_shapes, f"`xport_example()` in {self.name or 'this file'}")
            if cls is not None and config is not None and cls not in out:
                out[cls] = config
                self.shape_declarations[cls] = ExampleInputs(
                    self.functions["xport_example"], site.written_args, site.written_kwargs
                )
                if site.written_shapes is not None:
                    self.shape_expressions[cls] = site.written_shapes
        return {cls: self._with_ranks(config, cls, reader) for cls, config in out.items()}

    def _with_ranks(self, config: ShapeConfig, cls: str, reader: ShapesReader) -> ShapeConfig:
        """`config` with each example input's number of dimensions, by position, where the
        declaration's example shows it: a block of this file the model hands an input whole
        (`self.block(x, c)`) then knows its rank, as one of another file does."""
        declaration = self.shape_declarations.get(cls)
        if declaration is None or config.ranks:
            return config
        examples = declared_examples(declaration, reader)
        ranks = tuple((f"#{position}", len(sizes)) for position, sizes in enumerate(examples) if sizes is not None)
        ranks += tuple((key, len(sizes)) for key, sizes in declared_keyword_examples(declaration, reader).items()
                       if sizes is not None)
        ranks += declared_entry_ranks(declaration, reader)
        return dataclasses.replace(config, ranks=ranks) if ranks else config

    def _config(self, site: ExportSite, source: str) -> ShapeConfig | None:
        """The shapes `site` declares, read as its inputs are (keys, dims and `Dim`s through
        names and helpers); None where some part is not read (no claim is made from it)."""
        reader, shapes = self.reader, site.dynamic_shapes
        if site.written_shapes is None:
            return ShapeConfig((), source)
        if isinstance(site.written_shapes, cst.Name) and site.written_shapes.value in reader.collections:
            return reader.config(site.written_shapes, source)  # a `ShapesCollection`, by its name
        if not isinstance(shapes, (cst.Dict, cst.Tuple, cst.List)):
            return reader.config(shapes, source)
        if len(site.inputs) != len(shapes.elements):
            return None  # a key not read as a string, a `**spread` or a starred entry
        inputs = []
        for position, entry in enumerate(site.inputs):
            key = entry.where if entry.key is not None else f"#{position}"
            dims = self._dims(entry.dims)
            entries = [(key, dims)] if dims is not None else reader.entries(key, entry.dims)  # a nested input's
            if entries is None:
                return None
            inputs.extend(entries)
        return ShapeConfig(tuple(inputs), source)

    def _dims(self, dims: cst.BaseExpression) -> tuple[tuple[int, DimSpec], ...] | None:
        """The dimensions one input declares that are not static (`{0: batch}`, `(batch, None)`,
        `None`), each part followed."""
        if isinstance(dims, cst.Name) and dims.value == "None":
            return ()
        parts: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        if isinstance(dims, cst.Dict):
            parts = [(e.key, e.value) for e in dims.elements if isinstance(e, cst.DictElement)]
            if len(parts) != len(dims.elements):
                return None
        elif isinstance(dims, (cst.Tuple, cst.List)):
            parts = [(cst.Integer(str(i)), e.value) for i, e in enumerate(dims.elements)]
        else:
            return None
        out = []
        for key, value in parts:
            index = self.follow(key)
            spec = self.reader.spec(self.follow(value))
            if not isinstance(index, cst.Integer) or spec is None:
                return None
            if spec.kind is not DimKind.STATIC:
                out.append((int(index.evaluated_value), spec))
        return tuple(out)

    def place_shapes(self, path: str, line_of: Callable[[cst.CSTNode], int | None]) -> None:
        """Give each declaration of `declared_shapes` its file and line (for related information)."""
        for cls, declaration in self.shape_declarations.items():
            line = line_of(declaration.at if isinstance(declaration, ExampleInputs) else declaration)
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


def _name_counts(module: cst.Module) -> tuple[dict[int | None, Counter[str]], dict[int | None, set[str]]]:
    """Per scope (a top-level function by id, None for the rest of the module): how often each
    name is written in it, as a target or a read (not an attribute, keyword or parameter), and
    the names an assignment binds there."""
    counts: dict[int | None, Counter[str]] = {}
    assigned: dict[int | None, set[str]] = {}
    for stmt in module.body:
        scope = id(stmt) if isinstance(stmt, cst.FunctionDef) else None
        counter = counts.setdefault(scope, Counter())
        bound = assigned.setdefault(scope, set())
        skip: set[int] = set()
        for node in iter_nodes(stmt):
            if isinstance(node, cst.Attribute):
                skip.add(id(node.attr))
            elif isinstance(node, cst.Arg) and node.keyword is not None:
                skip.add(id(node.keyword))
            elif isinstance(node, (cst.Param, cst.FunctionDef, cst.ClassDef)):
                skip.add(id(node.name))
            elif isinstance(node, cst.AssignTarget):
                bound.update(_target_names(node.target))
            elif isinstance(node, cst.Name) and id(node) not in skip:
                counter[node.value] += 1
    return counts, assigned


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for e in target.elements for name in _target_names(e.value)]
    return []
