"""What a rule sees while it runs: the file, the traced function and its dataflow; and what it
reports back."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from .dataflow import NOTHING, FunctionFlow, Value, all_params
from .dtypes import TensorDTypes, example_dtypes, kept_tensors
from .facts import FileFacts
from .model import Mode, Severity
from .reach import Traced
from .report import FixProposal, Report
from .shapes import (
    AUTO,
    ExampleSizes,
    ShapeConfig,
    Sizes,
    config_ranks,
    construction_arguments,
    declared_examples,
    declared_ranks,
    defaults_as_built,
    init_constants,
    init_layer_calls,
    init_layers,
    joined_arguments,
    passed_config,
)
from .versions import NEWEST, TorchVersion
from .walk import iter_nodes


class Reporter(Protocol):
    """The rule a report comes from (rule.Rule; named here without importing the rules)."""

    CODE: str
    NAME: str

    def severity(self, mode: Mode) -> Severity | None: ...

    def url(self) -> str: ...


#: the source `[tool.xport-lint.dynamic-shapes]` declarations name in messages
TABLE_SOURCE = "[tool.xport-lint.dynamic-shapes]"


@dataclass
class RuleContext:
    """What a rule sees while it runs: the file, the traced function and its dataflow."""

    program: FileFacts
    mode: Mode
    source: str
    traced: Traced | None = None
    flow: FunctionFlow | None = None
    statement: cst.CSTNode | None = None
    reports: list[tuple[Reporter, Report]] = field(default_factory=list)
    #: rules that raised, as "XPT101 (tensor-branch) raised KeyError"
    failures: set[str] = field(default_factory=set)
    #: per-file facts rules build once and share (the context-manager resolver)
    shared: dict[str, object] = field(default_factory=dict)
    #: `[tool.xport-lint] shapes` (see config.Config); `dynamic-shapes` entries are declared in the
    #: file's facts (runner.declare_from_table)
    shape_default: str = "static"
    #: the torch version the findings speak for (config.Config.target): facts with a version range
    torch: TorchVersion = NEWEST
    _globals: dict[int, frozenset[str]] = field(default_factory=dict)
    _mentioned: dict[str, bool] = field(default_factory=dict)
    #: class name (None: outside a class) -> its shape_config
    _shape_configs: dict[str | None, ShapeConfig] = field(default_factory=dict)

    def release(self) -> None:
        """Drop the file's facts, its own and the program's (FileFacts.release), once its
        findings and summary are out: the shared resolvers and the size facts refer back to this
        context, so without it the tree lives in those cycles until a collection frees it."""
        self.program.release()
        vars(self).clear()

    @functools.cached_property
    def _mentions_global(self) -> bool:
        return self.mentions("global")

    def mentions(self, word: str) -> bool:
        """Whether the file's text holds `word`, scanned once per file (scanned per finding, a
        5 MB file took minutes)."""
        found = self._mentioned.get(word)
        if found is None:
            found = self._mentioned[word] = word in self.source
        return found

    def shape_config(self) -> ShapeConfig:
        """How the model whose code is being walked is exported: its class's declaration (an
        export call or `xport_example()` of this file, an export script elsewhere in the project,
        `[tool.xport-lint.dynamic-shapes]`), else the default. Once per class a file: rules ask
        at every node they judge."""
        name = self.traced.cls.node.name.value if self.traced is not None and self.traced.cls is not None else None
        found = self._shape_configs.get(name)
        if found is None:
            found = self._shape_configs[name] = self._shape_config_of(name)
        return found

    def _shape_config_of(self, name: str | None) -> ShapeConfig:
        """`shape_config` of the class `name` (None: code outside a class)."""
        program = self.program
        if name is not None:
            found = (
                program.declared_shapes.get(name) or dict(program.context.shapes).get(name)
                or passed_config(program.classes, program.declared_shapes, name)
            )
            if found is not None:
                return found
        # a class the table declares says nothing of the file's other classes (an export call does)
        declared = [config for config in program.declared_shapes.values() if config.source != TABLE_SOURCE]
        known = [*declared, *(config for _, config in program.context.shapes)]
        dynamic = next((config for config in known if config.any_dynamic()), None)
        if dynamic is not None:
            return ShapeConfig((), f"{dynamic.source} exports dynamic shapes", AUTO)
        if self.shape_default == "dynamic":
            return ShapeConfig((), '`shapes = "dynamic"` treats every input dimension as Dim.AUTO', AUTO)
        return ShapeConfig((), "static shapes")

    def example_sizes(self) -> tuple[ExampleSizes, ...]:
        """The sizes of the example inputs the traced model's class is exported with, by position,
        where its declaration in this file shows them (`torch.randn(4, 3)`)."""
        program, traced = self.program, self.traced
        if traced is None or traced.cls is None or program.shapes_reader is None:
            return ()
        declaration = program.shape_declarations.get(traced.cls.node.name.value)
        return declared_examples(declaration, program.shapes_reader) if declaration is not None else ()

    def sizes(self) -> Sizes | None:
        """The input dimensions size expressions read, in a model's own `forward` (elsewhere the
        inputs are not the export's)."""
        traced = self.traced
        if traced is None or traced.cls is None or traced.func.name.value != "forward" or traced.reach is not None:
            return None
        key = f"sizes:{id(traced.func)}"
        found = self.shared.get(key)
        if found is None:
            cls = traced.cls.node
            blocks = {name: info.node for name, info in self.program.classes.items()}
            context = self.program.context
            far = {
                attr: kept for attr, written in init_layer_calls(cls).items() if (kept := context.block(written))
            } if context.blocks else None
            found = self.shared[key] = Sizes(
                traced.func,
                constants=init_constants(
                    cls,
                    defaults_as_built(
                        cls, self.program.calls_by_callee.get(cls.name.value, []),
                        context.built_elsewhere(cls.name.value),
                    ),
                    self.resolve,
                    self.program.functions,
                ),
                layers=init_layers(cls), blocks=blocks,
                inline=self.flow.inlined if self.flow is not None else None, far=far,
                ranks=declared_ranks(self.program, cls.name.value) or config_ranks(self.shape_config(), traced.func),
                functions=self.program.functions, declared=self.shape_config(),
                config_value=functools.partial(self.program.config_default, traced.cls),
                elsewhere=context.built_elsewhere(cls.name.value), config_built=self._configurations_built(),
                calls=self.program.calls_by_callee,
                module_constants={name: v for name, v in self.program.constants.items() if type(v) is int},
            )
        found.read_at(self.statement)  # type: ignore[union-attr]  # `x = x.view(...)` reads the input `x`
        return found  # type: ignore[return-value]

    def dtypes(self) -> TensorDTypes:
        """The dtype classes of the traced function's tensors: its example inputs where the file
        exports it, the buffers and parameters its class's `__init__` keeps. Once per function."""
        key = f"dtypes:{id(self.flow)}"
        found = self.shared.get(key)
        if found is None:
            found = self.shared[key] = self._dtypes_of(self.traced, self.flow, passed=True)
        return found  # type: ignore[return-value]

    def _dtypes_of(self, traced: Traced | None, flow: FunctionFlow | None, passed: bool) -> TensorDTypes:
        """`dtypes` of `traced`; `passed`: a helper's parameters hold what every call of the file
        passes, where those agree (one level of callers: theirs are not followed further)."""
        program, resolve = self.program, self.resolve
        inputs = example_dtypes(program.export_sites, traced.func, resolve) if traced else {}
        if passed and traced is not None:
            by_function = {id(item.func): item for item in program.traced}
            for param in all_params(traced.func.params):
                kinds = {
                    self._dtypes_of(caller, program.flow(caller), passed=False).of(value) if value is not None
                    and (caller := by_function.get(id(function))) is not None else None
                    for function, value in program.arguments_for(param.name.value, traced.func) or [(None, None)]
                }
                if len(kinds) == 1 and (kind := kinds.pop()) is not None:
                    inputs.setdefault(param.name.value, kind)
        kept = kept_tensors(traced.cls.node) if traced is not None and traced.cls is not None else {}
        return TensorDTypes(resolve, flow, inputs, kept)

    def _configurations_built(self) -> dict[str, int | None]:
        """What the project's calls building the file's configuration classes pass them (this
        file's calls and other files'), joined: a field's default holds where none gives another."""
        configs = self.program.config_classes
        if not configs:
            return {}
        here = construction_arguments(self.program.module_nodes, configs.__contains__)
        return joined_arguments([*here.values(), *(self.program.context.built_elsewhere(name) for name in configs)])

    def conditional(self) -> set[int]:
        """Nodes of the traced function under an `if` or a conditional expression: what a rule
        about one size's value leaves alone (the branch may be the one that guards it). Found once
        per function, for every rule that asks."""
        traced = self.traced
        assert traced is not None
        key = f"conditional:{id(traced.func)}"
        found = self.shared.get(key)
        if found is None:
            found = set()
            for node in iter_nodes(traced.func.body):
                if isinstance(node, (cst.If, cst.IfExp)):
                    parts = [node.body, node.orelse]
                    found.update(id(inner) for part in parts if part is not None for inner in iter_nodes(part))
            self.shared[key] = found
        return found  # type: ignore[return-value]

    def value(self, node: cst.BaseExpression) -> Value:
        return self.flow.value(node) if self.flow is not None else NOTHING

    def resolve(self, node: cst.BaseExpression) -> str | None:
        return self.program.resolve(node)

    def globals_declared(self) -> frozenset[str]:
        """Names the current traced function declares `global`."""
        if self.traced is None or not self._mentions_global:
            return frozenset()
        func = self.traced.func
        cached = self._globals.get(id(func))
        if cached is None:
            cached = frozenset(
                name.name.value
                for node, _ in self.program.nodes(func)
                if type(node) is cst.Global
                for name in node.names  # type: ignore[attr-defined]
            )
            self._globals[id(func)] = cached
        return cached

    def add(
        self,
        rule: Reporter,
        node: cst.CSTNode,
        message: str,
        fix: FixProposal | None,
        related: Iterable[tuple[cst.CSTNode, str]],
        statement: cst.CSTNode | None = None,
        severity: Severity | None = None,
        notes: tuple[tuple[str, int, str], ...] = (),
    ) -> None:
        # related nodes sit elsewhere in the function: found by text from its start
        anchor = self.traced.func if self.traced is not None else self.statement
        if id(node) in self.program.unevaluated:
            return  # an operand export never evaluates (`not is_tracing() and <node>`)
        rel = tuple((n, anchor, m) for n, m in related)
        reach = self.traced.reach if self.traced is not None else None
        self.reports.append((rule, Report(
            node, message, statement or self.statement, fix, rel, reach, severity, notes
        )))
