"""Layer 4 of a file's analysis, flows: the dataflow of every traced function, solved over the
file's call graph to a fixpoint (a helper's parameters join what every call site passes), and
the file's summary for the project index. `FileFacts` is everything the rules read about a
file: symbols -> export sites -> reach -> flows, each layer a module of its own.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Collection, Iterator, Sequence

import libcst as cst

from .dataflow import (
    NOTHING,
    PYTHON_KINDS,
    FunctionFlow,
    Kind,
    Value,
    all_params,
    annotation_names,
    is_tensor_like,
    param_value,
    python_part,
    python_scalar_param,
    walk_statements,
)
from .defined_contexts import defined_context_managers
from .dtypes import DType, example_dtypes
from .fact_store import PerStatement
from .index import (
    EMPTY_CONTEXT,
    PASSED_KINDS,
    ClassSummary,
    FileContext,
    FunctionSummary,
    ModuleSummary,
    Returned,
)
from .names import dotted, is_entry_method
from .reach import AfterFailure, FileReach, Traced, callee_text, rebinds
from .shapes import (
    block_dims,
    calls_by_callee,
    construction_arguments,
    declared_ranks,
    number_inputs,
    passed_elsewhere,
    tensor_entries,
    written_size_checks,
)
from .symbols import ModuleClass
from .walk import children, iter_nodes


class FileFacts(FileReach):
    """File-level facts: imports, module classes, export sites, traced functions and their dataflow."""

    def __init__(
        self, module: cst.Module, mentions_export: bool, context: FileContext = EMPTY_CONTEXT, name: str = "",
        is_package: bool = False, mentions_guards: bool = True,
    ) -> None:
        """`mentions_export`: the text may hold an export call; `mentions_guards`: it names an
        export guard (`is_exporting`, `is_tracing`, ...)."""
        self._flows: dict[int, FunctionFlow] = {}
        #: per cached flow: the function and class it was solved for, and the parameters it was given
        self._flow_inputs: dict[int, tuple[Traced, dict[str, Value]]] = {}
        #: per helper: the join of what every eval-mode call site passes it, argument by argument
        self._call_args: dict[int, list[Value]] = {}
        #: the same, from call sites only a training-mode export runs (used for a helper with no other)
        self._training_args: dict[int, list[Value]] = {}
        #: the same, from call sites only an export passing an optional argument runs (used for a
        #: helper no default-path site calls)
        self._optional_args: dict[int, list[Value]] = {}
        #: per helper: the functions whose flow read what it returns (solved again when it changes)
        self._readers: dict[int, set[int]] = {}
        self._solved = False
        #: per traced function: the expressions _evaluate_all evaluates, each with whether it is
        #: outermost in its statement (else a call, left out when export never evaluates it)
        self._to_evaluate: dict[int, list[tuple[cst.BaseExpression, bool]]] = {}
        self._in_progress: set[int] = set()
        #: traced function -> callee as written -> argument slot -> "dd"/"data"/"tensor" (note_passed)
        self.passed: dict[int, dict[str, dict[str, str]]] = {}
        #: `func` / `Class.method` -> argument slot -> what other files' traced callers pass it
        self._arguments = {name: dict(slots) for name, slots in context.arguments}
        #: per submodule's forward: the join of what its parents' eval-mode calls pass it
        self._parent_args: dict[int, list[Value]] = {}
        #: per `__init__`: `self.` attribute -> the class of this file it builds there (None: not one)
        self._built: dict[int, dict[str, str | None]] = {}
        super().__init__(module, mentions_export, context, name, is_package, mentions_guards)

    def call_helper(self, caller: FunctionFlow, call: cst.Call, args: Sequence[Value]) -> Value | None:
        """What a call of a helper of this file returns; its arguments join what the helper's
        other call sites pass (a call site only a training-mode export runs counts only for a
        helper no other site calls: what training mode passes never reaches eval-mode code; so
        does one only an optional argument's path runs: radio's `_interpolate_position_embedding`
        gets static sizes on the default path and `.tolist()` values only with `image_grid_hw`,
        where the path's own code is judged, as warnings naming the argument)."""
        cls = self.classes.get(caller.cls.name.value) if caller.cls is not None else None
        target = self.helper_for(cls, call.func)
        if target is None:
            return None
        key = id(target.func)
        is_method = target.cls is not None and not _is_static(target.func)
        packs = frozenset(
            i for i, arg in enumerate(call.args) if arg.star and self._example_pack(caller.func, arg.value)
        )
        bound = self._bind_args(target.func, call, args, is_method=is_method, example_packs=packs)
        statement = self._call_statement.get(id(call))
        if statement in self.training_only:
            table = self._training_args
        elif self._optional_path(caller.func, call, statement):
            table = self._optional_args
        else:
            table = self._call_args
        known = table.get(key)
        table[key] = bound if known is None else [a | b for a, b in zip(known, bound, strict=True)]
        if _returns_python_scalar(target.func):
            return NOTHING
        self._readers.setdefault(key, set()).add(id(caller.func))
        if key in self._in_progress:
            return Value(Kind.TENSOR) if any(a.has(Kind.TENSOR) for a in args) else NOTHING
        return self._flow(target).returned_to(caller, call, args)

    def truth_is_length(self, func: cst.FunctionDef, statement: cst.CSTNode, name: str) -> bool:
        """The reach layer's answer, or: every binding of `name` in `func` is a Python list, tuple,
        set or dict whose length no data decides, so its truth is that length whatever tensors it
        holds (kornia's rt_detr encoder: `fmaps: list[Tensor]`, `fmaps = list(fmaps)`, `while
        fmaps: ... fmaps.pop()`, later `fmaps = [new_fmaps.pop()]`)."""
        if super().truth_is_length(func, statement, name):
            return True
        flow = self._flows.get(id(func))
        if flow is None:
            return False
        bindings = flow.bindings(name)
        params = {param.name.value: param for param in all_params(func.params)}
        if name in params:
            if not _declared_container(params[name]):
                return False
            bindings = bindings[1:]  # the parameter's own, a container as declared
        elif not bindings:
            return False
        return all(value is not None and _sized_without_data(flow, value) for value in bindings)

    def _optional_path(self, caller: cst.FunctionDef, call: cst.Call, statement: int | None) -> bool:
        """The call runs only when an optional argument is passed, and no parent module's call may
        pass it (a submodule's `forward` argument a parent fills with data is on the default path:
        see _passed_by_parents, which runs once the flows are solved)."""
        name = self.optional_nodes.get(id(call))
        if name is None and statement is not None:
            name = self.optional_only.get(statement)
        if name is None:
            return False
        return not (self._passed_by_parent(caller) and name in (p.name.value for p in all_params(caller.params)))

    def call_submodule(self, caller: FunctionFlow, attribute: str, call: cst.Call, args: Sequence[Value]) -> None:
        """A call of a submodule of a class of this file (`self.attention(x, is_global_attn=flag)`,
        `layer(x, ...)` for a `layer` of `self.layers`): what it passes joins its forward's
        parameters, as a helper's call sites do, so a number read from data reaches the branch
        that tests it (a literal default does not hide it)."""
        owner = self.classes.get(caller.cls.name.value) if caller.cls is not None else None
        built = self._submodule_class(owner, attribute) if owner is not None else None
        forward = self._method(built, "forward") if built is not None else None
        if self._call_statement.get(id(call)) in self.training_only:
            return
        if forward is None:
            # a class of another file, maybe: the project index hands what is passed to its forward
            self._record_passed(caller.func, f"self.{attribute}", call, args)
            return
        # `self.decoder(*args, **kwargs)` forwards what it was given: no one parameter's value
        given = [NOTHING if arg.star else value for arg, value in zip(call.args, args, strict=True)]
        bound = self._bind_args(forward, call, given, is_method=True)
        known = self._parent_args.get(id(forward))
        self._parent_args[id(forward)] = bound if known is None else [a | b for a, b in zip(known, bound, strict=True)]

    def _submodule_class(self, owner: ModuleClass, attribute: str) -> ModuleClass | None:
        """The module class of this file that `__init__` of `owner` (or of a base) builds
        `self.<attribute>` from: `Block(config)`, or the elements of `nn.ModuleList([Block(c)
        for c in ...])`; None where it builds none or several."""
        seen: set[str] = set()
        current: ModuleClass | None = owner
        while current is not None and current.node.name.value not in seen:
            seen.add(current.node.name.value)
            init = current.methods.get("__init__")
            if init is not None:
                built = self._built.get(id(init))
                if built is None:
                    built = self._built[id(init)] = _built_in(init, self.classes)
                if attribute in built:
                    name = built[attribute]
                    return self.classes.get(name) if name is not None else None
            current = next((self.classes[b] for b in current.bases if b in self.classes), None)
        return None

    def _example_pack(self, caller: cst.FunctionDef, value: cst.BaseExpression) -> bool:
        """`value` is the `*args` or `**kwargs` of an entry method, forwarded as it came: on a
        default export it holds only inputs the example must pass, so it fills only the callee's
        parameters without a default (denoising-diffusion's `forward(img, *args, **kwargs)`
        calling `p_losses(img, t, *args, **kwargs)`: `offset_noise_strength=None` keeps its None).
        Not for a `forward` an export site of the file exports: its example may pass more."""
        if type(value) is not cst.Name or not is_entry_method(caller) or id(caller) in self._exported_forwards:
            return False
        packs = {p.name.value for p in (caller.params.star_arg, caller.params.star_kwarg) if isinstance(p, cst.Param)}
        return value.value in packs and not rebinds(caller, value.value)

    @functools.cached_property
    def _exported_forwards(self) -> frozenset[int]:
        """The `forward`s the file's export sites export (by the function's id)."""
        if not (self.export_calls or "xport_example" in self.functions):
            return frozenset()
        return frozenset(id(site.forward) for site in self.export_sites if site.forward is not None)

    def note_passed(self, caller: cst.FunctionDef, call: cst.Call, args: Sequence[Value]) -> None:
        """A call that is not a helper of this file, passing tensors or data-dependent values:
        kept in the caller's summary, for the project index to hand to the callee's file."""
        written = dotted(call.func)
        if written is None or written not in self._written.get(id(caller), ()):
            return
        self._record_passed(caller, written, call, args)

    def _record_passed(self, caller: cst.FunctionDef, written: str, call: cst.Call, args: Sequence[Value]) -> None:
        slots = self.passed.setdefault(id(caller), {}).setdefault(written, {})
        for position, (arg, value) in enumerate(zip(call.args, args, strict=True)):
            if arg.star:
                break
            slot = arg.keyword.value if arg.keyword is not None else str(position)
            kind = passed_kind(value)
            if kind is not None and PASSED_KINDS.index(kind) > PASSED_KINDS.index(slots.get(slot, kind)):
                slots[slot] = kind
            elif kind is not None:
                slots.setdefault(slot, kind)

    def _bind_args(
        self, func: cst.FunctionDef, call: cst.Call, args: Sequence[Value], is_method: bool,
        example_packs: frozenset[int] = frozenset(),
    ) -> list[Value]:
        """What each parameter of `func` (after `self`) gets from `call`. `example_packs`: the
        indices of `call`'s starred arguments that forward an entry method's own packs (they
        fill only parameters without a default, see _example_pack)."""
        given = list(all_params(func.params))
        dropped = 1 if is_method and given else 0  # `self`
        params = given[dropped:]
        listed = self.nodes(func)
        bound = [param_value(p, func, listed) if p.default is not None else NOTHING for p in params]
        names = [p.name.value for p in params]
        declared_python = {i for i, p in enumerate(params) if python_scalar_param(p)}
        # positional arguments past the positional parameters fill `*args`, never a keyword-only one
        positional = max(len(func.params.posonly_params) + len(func.params.params) - dropped, 0)
        packed = positional if type(func.params.star_arg) is cst.Param else None
        position = 0
        for index, (arg, value) in enumerate(zip(call.args, args, strict=True)):
            if arg.keyword is not None:
                if arg.keyword.value in names:
                    bound[names.index(arg.keyword.value)] = value
            elif arg.star:
                for i in range(position, len(bound)):
                    if index not in example_packs or params[i].default is None:
                        bound[i] = bound[i] | value
            elif position < positional:
                bound[position] = value
                position += 1
            elif packed is not None:
                bound[packed] = bound[packed] | value
        # `return_final_states: bool = False` is a Python value whatever a caller's dataflow guessed:
        # not a tensor, though it may still be a number read from one (`n: int` given `t.item()`)
        return [python_part(value) if i in declared_python else value for i, value in enumerate(bound)]

    def flow(self, item: Traced) -> FunctionFlow:
        """The dataflow of a traced function, solved with what every call site of every helper
        passes (whatever order the calls, the functions and the traced set come in)."""
        if not self._solved:
            self._solve_flows()
            self._passed_by_parents()
        return self._flow(item)

    def _passed_by_parents(self) -> None:
        """A submodule's argument defaulting to None that a parent's call passes a value read from
        data is passed: what `if is_global_attn:` guards runs on a default export (longformer's
        encoder passes `is_index_global_attn.flatten().any().item()` down to its attention)."""
        for item in self.traced:
            parent = self._parent_args.get(id(item.func))
            slots = self._arguments.get(item.name, {}) if self._arguments else {}
            if parent is None and not slots:
                continue
            params = [p.name.value for p in all_params(item.func.params)][1:]
            passed = {name for name, value in zip(params, parent or (), strict=False) if value.has(_READ_FROM_DATA)}
            # a parent module of another file passing one (by the project index)
            passed.update(
                name for i, name in enumerate(params) if slots.get(str(i), slots.get(name)) in ("data", "dd")
            )
            if not passed:
                continue
            for node, statement in self.nodes(item.func):
                if node is statement and self.optional_only.get(id(node)) in passed:
                    del self.optional_only[id(node)]
                if self.optional_nodes.get(id(node)) in passed:
                    del self.optional_nodes[id(node)]

    def _solve_flows(self) -> None:
        """Every traced function's flow, each helper's parameters the join of its call sites:
        evaluate every expression of traced code (so each call site is seen, not only those an
        assignment reads), then solve again the flows given less than their call sites now pass,
        and the flows that read what those return, until none is (the join only grows)."""
        self._solved = True
        # a flow evaluated in an earlier round and not stale since has every value memoised:
        # evaluating it again binds nothing new (each kept here, so no new flow reuses its id)
        evaluated: dict[int, FunctionFlow] = {}
        for _ in range(_MAX_FLOW_ROUNDS):
            for item in self.traced:
                flow = self._flow(item)
                if evaluated.get(id(flow)) is not flow:
                    evaluated[id(flow)] = flow
                    self._evaluate_all(flow)
            stale = {key for key, (item, given) in self._flow_inputs.items() if self._parameters(item) != given}
            if not stale:
                return
            pending = list(stale)
            while pending:  # what read a stale helper's result is stale too
                for reader in self._readers.get(pending.pop(), ()):
                    if reader not in stale:
                        stale.add(reader)
                        pending.append(reader)
            for key in stale:
                self._flows.pop(key, None)
                self._flow_inputs.pop(key, None)

    def _evaluate_all(self, flow: FunctionFlow) -> None:
        """Every call of traced code that binds something for another function (a helper of this
        file: its arguments join the helper's parameters; a callee the project index may resolve:
        what it passes goes in the summary), so that each call site binds before any rule reads a
        flow. A call is reached through the outermost expression of its statement (a helper called
        in a comprehension sees the comprehension's variables), then directly where that did not
        reach it (a value of a dict, an operand of `is None`), never where export does not evaluate
        it (a lazy check message). The other expressions bind nothing: rules evaluate what they read."""
        listed = self._to_evaluate.get(id(flow.func))
        if listed is None:  # the same for every flow of the function (solved again in a later round)
            listed = self._to_evaluate[id(flow.func)] = self._binding_calls(flow)
        for expression, outermost in listed:
            if outermost or id(expression) not in self.unevaluated:
                flow.value(expression)  # type: ignore[arg-type]

    def _binding_calls(self, flow: FunctionFlow) -> list[tuple[cst.BaseExpression, bool]]:
        """The calls of `flow`'s function `_evaluate_all` evaluates, each after the outermost
        expression of its statement that holds it (`True`: an outermost expression)."""
        cls = self.classes.get(flow.cls.name.value) if flow.cls is not None else None
        written = set(self._written.get(id(flow.func), ()))
        out: list[tuple[cst.BaseExpression, bool]] = []
        calls: list[cst.BaseExpression] = []
        statements: dict[int, cst.CSTNode] = {}
        for node, statement in self.nodes(flow.func):
            if type(node) is not cst.Call or statement is None:
                continue
            func = node.func  # type: ignore[attr-defined]
            if self.helper_for(cls, func) is not None or (written and callee_text(func) in written):
                calls.append(node)  # type: ignore[arg-type]
                statements.setdefault(id(statement), statement)
        if not calls:
            return out
        for statement in statements.values():
            out.extend((expression, True) for expression in _outermost_expressions(statement))
        out.extend((call, False) for call in calls)
        return out

    def _flow(self, item: Traced) -> FunctionFlow:
        key = id(item.func)
        cached = self._flows.get(key)
        if cached is not None:
            return cached
        self._in_progress.add(key)
        values = self._parameters(item)
        cls = item.cls.node if item.cls else None
        flow = FunctionFlow(item.func, dict(values), self, cls, self._statements_run(item.func),
                            entries=self._tensor_entries.get(key, frozenset()))
        self._in_progress.discard(key)
        self._flows[key] = flow
        self._flow_inputs[key] = (item, values)
        return flow

    def _parameters(self, item: Traced, callers: bool = True) -> dict[str, Value]:
        """What each parameter of `item` holds: the join of its call sites in this file, what
        traced callers of other files pass, else what its declaration and uses say (only that,
        without `callers`)."""
        key = id(item.func)
        params = list(all_params(item.func.params))
        is_method = item.cls is not None and not _is_static(item.func)
        values: dict[str, Value] = {}
        call_args = self._call_args.get(key) if callers else None
        if call_args is None and callers:
            call_args = self._optional_args.get(key)
        if call_args is None and callers:
            call_args = self._training_args.get(key)
        passed = self._arguments.get(item.name, {}) if self._arguments and callers else {}
        parent = self._parent_args.get(key) if callers else None
        for i, param in enumerate(params):
            if is_method and i == 0:
                continue
            index = i - 1 if is_method else i
            if call_args is not None and 0 <= index < len(call_args):
                values[param.name.value] = call_args[index]
            else:
                block = item.cls is not None and item.cls.node.name.value in self.submodule_classes
                values[param.name.value] = param_value(param, item.func, self.nodes(item.func), block=block)
                if param.name.value in self._number_inputs.get(key, ()):
                    values[param.name.value] = NOTHING  # the example passes a Python number: a constant
                elif param.name.value in self._mask_inputs.get(key, ()):
                    # the example passes a boolean tensor: indexing with it selects by data
                    values[param.name.value] |= Value(Kind.TENSOR | Kind.MASK)
            if parent is not None and 0 <= index < len(parent) and parent[index].has(_FROM_PARENT):
                # what a parent module's call passes read from data (`is_global_attn=flag.item()`)
                values[param.name.value] |= parent[index]
            kind = passed.get(str(index)) or passed.get(param.name.value)
            if kind is not None and not _declared_container(param):
                # what a traced caller in another file passes (`batched_nms(boxes[keep], ...)`),
                # as a call site of this file would (`n: int` stays a Python value)
                given = _PASSED_VALUES[kind]
                values[param.name.value] |= python_part(given) if python_scalar_param(param) else given
        if self._cached(item.func):
            # a call of an `lru_cache`d function hashes its arguments first: a size or a number
            # read from data is a SymInt there, unhashable (measured on torch 2.13, non-strict:
            # `TypeError: unhashable type: non-nested SymInt` at the call), so its body only runs
            # with concrete Python values or tensors (hashed by id): kornia's `_prosac_growth`
            values = {name: _without_python_part(value) for name, value in values.items()}
        return values

    def _cached(self, func: cst.FunctionDef) -> bool:
        """Decorated with `functools.lru_cache(...)` or `functools.cache`."""
        return any(
            self.resolve(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in ("functools.lru_cache", "functools.cache")
            for d in func.decorators
        )

    @functools.cached_property
    def calls_by_callee(self) -> dict[str, list[cst.Call]]:
        """The file's calls by the last part of the name they call (shapes.calls_by_callee): what
        builds each class, found once per file, not once per class that asks."""
        return calls_by_callee(node for node, _ in self.module_nodes)

    @functools.cached_property
    def _tensor_entries(self) -> dict[int, frozenset[str]]:
        """The tensors inside the nested example inputs of each exported `forward` (shapes.tensor_entries)."""
        return tensor_entries(self.export_sites, self.reader) if self.export_sites else {}

    @functools.cached_property
    def _mask_inputs(self) -> dict[int, frozenset[str]]:
        """`forward` parameters every export site of the file fills with a boolean tensor
        (`x > 0`, `torch.ones(4, dtype=torch.bool)`): `x[mask]` has as many rows as it holds
        `True` (measured on torch 2.13: `if x[mask].numel() == 0:` fails export in both modes)."""
        out: dict[int, frozenset[str]] = {}
        for site in self.export_sites:
            if site.forward is not None and id(site.forward) not in out:
                dtypes = example_dtypes(self.export_sites, site.forward, self.resolve)
                out[id(site.forward)] = frozenset(name for name, kind in dtypes.items() if kind is DType.BOOL)
        return out

    @functools.cached_property
    def _number_inputs(self) -> dict[int, frozenset[str]]:
        """`forward` parameters the file's export sites fill with Python numbers (shapes.number_inputs)."""
        return number_inputs(self.export_sites) if self.export_calls or "xport_example" in self.functions else {}

    def _returned_to_other_files(self, func: cst.FunctionDef) -> Returned | None:
        """What `func` returns, for its callers in other files: each gets back what its own
        arguments make of it, not what the data some other caller passes makes of it
        (`FunctionFlow.summary_per_caller`). None where the function is not traced here."""
        flow = self._flows.get(id(func))
        if flow is None:
            return None
        carried = frozenset(name for name, value in flow.params.items() if value.has(_READ_FROM_DATA))
        if not carried:
            return flow.summary()
        declared = self._parameters(self._flow_inputs[id(func)][0], callers=False)
        carried = frozenset(name for name in carried if not declared.get(name, NOTHING).has(_READ_FROM_DATA))
        return flow.summary_per_caller(declared, carried) if carried else flow.summary()

    def _statements_run(self, func: cst.FunctionDef) -> list[cst.CSTNode]:
        """The statements of `func` an eval-mode export runs: not in a branch export never takes,
        not under `if self.training:` (a value assigned there never reaches eval-mode code)."""
        return [
            node for node, statement in self.nodes(func)
            if node is statement and id(node) not in self.training_only
        ]

    def release(self) -> None:
        """Drop every fact of the file once its findings and summary are out. Its flows refer
        back to it (their resolver), so without this the whole tree lives in that cycle until
        the cyclic collector walks it, 0.3-0.5 s for a large file (a tenth of its check); freed
        by reference counting instead, it costs about a tenth of that."""
        vars(self).clear()

    def summary(self, module: str, path: str, failures: AfterFailure) -> ModuleSummary:
        """This file as the project index sees it; `failures`: what its findings leave export
        never running (severity.after_failures)."""
        imports = dict(self.imports.aliases)

        def imported_project_code(written: str) -> bool:
            """A callee imported from a module that is neither torch nor the standard library's."""
            root = imports.get(written.partition(".")[0], "").partition(".")[0]
            return bool(root) and root != "torch" and root not in sys.stdlib_module_names

        def function(func: cst.FunctionDef) -> FunctionSummary:
            calls = self._written.get(id(func))
            passes = {written: dict(slots) for written, slots in self.passed.get(id(func), {}).items() if slots}
            exporting = self.guard_wrapper(func) if calls is not None and self.mentions_guards else None
            switched = (
                self.switched_callees(func, failures)
                if calls and (self.switched or self.training_only or failures.failing) else {}
            )
            return FunctionSummary(
                None if calls is None else list(dict.fromkeys(calls)), id(func) in self.own_traced, passes,
                self._returned_to_other_files(func), exporting, switched, self.literal_calls(func) if calls else {},
                written_size_checks(func),
            )

        classes = {}
        for name, node in self._file_classes.items():
            methods = {s.name.value: function(s) for s in node.body.body if isinstance(s, cst.FunctionDef)}
            bases = [b for b in (dotted(a.value) for a in node.bases if a.keyword is None) if b]
            init = self.classes[name].methods.get("__init__") if name in self.classes else None
            submodules = _submodules_written(init, self._may_be_project_code) if init is not None else {}
            classes[name] = ClassSummary(
                bases, methods, name in self.own_module_classes, submodules, block_dims(node, self._file_classes),
                name in self.guessed_module_classes,
            )
        exported = [
            name for call in self.export_calls if call.call.args and (name := dotted(call.call.args[0].value))
        ]
        # models of other files this file exports (an export script): their declared shapes
        shapes = {
            qualified: config
            for written, config in self.declared_shapes.items()
            if written.partition(".")[0] not in self._file_classes
            and (qualified := _qualified(self.imports.aliases, written)) is not None
        }
        exports = sorted(shapes)
        # submodules of other files a declared model of this file passes its inputs to
        for written, config in passed_elsewhere(
            self.classes, self.declared_shapes, lambda parent: declared_ranks(self, parent)
        ).items():
            qualified = _qualified(self.imports.aliases, written)
            if qualified is not None:
                shapes.setdefault(qualified, config)
        return ModuleSummary(
            module, path, imports, classes, {n: function(f) for n, f in self.functions.items()}, exported, shapes,
            self.inline_helpers(), self.site_calls(), self.config_classes, self.config_switches(),
            defined_context_managers(self.module, self.resolve),
            construction_arguments(self.module_nodes, imported_project_code),
            exports,
            blocks_built(self.module, self.module_nodes, self.classes, self.functions, imported_project_code),
        )


#: rounds of solving flows again; each adds what a call site newly passes (two on real code)
_MAX_FLOW_ROUNDS = 8


#: parts of a statement that hold statements of their own (walked as statements) or a scope
_NOT_EXPRESSIONS = (
    cst.BaseSuite, cst.BaseStatement, cst.BaseSmallStatement, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
    cst.Finally, cst.MatchCase, cst.Parameters, cst.Decorator,
)


def _outermost_expressions(statement: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The expressions a statement evaluates itself (an `if`'s test, an assignment's value and
    targets, a `with`'s items), not those of the statements nested in it."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return
    stack = children(statement)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression):
            yield node
        elif not isinstance(node, _NOT_EXPRESSIONS):
            stack.extend(children(node))


def _qualified(aliases: dict[str, str], written: str) -> str | None:
    """`models.Decoder` as the imports spell it in full (None: not imported)."""
    root, _, rest = written.partition(".")
    full = aliases.get(root)
    return None if full is None else f"{full}.{rest}" if rest else full


_CONTAINERS = frozenset({"list", "List", "tuple", "Tuple", "Sequence", "dict", "Dict", "Mapping"})


def _declared_container(param: cst.Param) -> bool:
    """Annotated as a list, tuple or dict (`boxes: list[Tensor]`): iterating it is a Python loop
    however its tensors were sized, so a data-dependent argument must not make it a tensor."""
    return param.annotation is not None and bool(annotation_names(param.annotation) & _CONTAINERS)


#: builtins that build a container as long as what they are given
_CONTAINER_BUILDERS = frozenset({"list", "tuple", "set", "dict", "sorted"})
#: what makes a count data-dependent
_DATA_COUNT = Kind.DD_TENSOR | Kind.DD_SIZE | Kind.DATA


def _sized_without_data(flow: FunctionFlow, value: cst.BaseExpression) -> bool:
    """`value` builds a Python container whose length no data decides: a display (no `*` of a
    data-dependent count), a comprehension over no such count and filtered by no tensor, or
    `list(...)`/`tuple(...)`/`sorted(...)` of what has no data-dependent length."""
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return not any(
            isinstance(e, cst.StarredElement) and flow.value(e.value).has(_DATA_COUNT) for e in value.elements
        )
    if isinstance(value, cst.Dict):
        return True
    if isinstance(value, (cst.ListComp, cst.SetComp, cst.DictComp)):
        current: cst.CompFor | None = value.for_in
        while current is not None:
            if flow.value(current.iter).has(_DATA_COUNT) or any(
                is_tensor_like(test := flow.value(c.test)) or test.has(_DATA_COUNT) for c in current.ifs
            ):
                return False
            current = current.inner_for_in
        return True
    return (
        isinstance(value, cst.Call) and dotted(value.func) in _CONTAINER_BUILDERS and len(value.args) <= 1
        and not any(flow.value(arg.value).has(_DATA_COUNT) for arg in value.args)
    )


#: what a parent module's call passes a submodule's forward, where it counts (else the forward's own guess)
_READ_FROM_DATA = Kind.DATA | Kind.DD_TENSOR | Kind.DD_SIZE
_FROM_PARENT = _READ_FROM_DATA | Kind.TENSOR


def _built_in(init: cst.FunctionDef, classes: dict[str, ModuleClass]) -> dict[str, str | None]:
    """`self.` attribute -> the one module class of `classes` its assignments in `init` build."""
    out: dict[str, str | None] = {}
    for attributes, calls in _self_assignments(init):
        built = {name for name in calls if name in classes}
        for attribute in attributes:
            name = next(iter(built)) if len(built) == 1 else None
            out[attribute] = name if out.get(attribute, name) == name else None
    return out


def blocks_built(
    module: cst.Module,
    nodes: Sequence[tuple[cst.CSTNode, cst.CSTNode | None]],
    module_classes: Collection[str],
    functions: Collection[str],
    wanted: Callable[[str], bool],
) -> list[str]:
    """The classes `wanted` accepts (of other files, as written) that the file's model code
    builds: a call in one of its module classes, or in a function of the file a module class
    calls (`self.block = make_block()`). A class a free function builds for the user (kornia's
    `SigLip2Builder`) is a model of its own, exported with its own example: not counted.
    `nodes`: the file's (`FileSymbols.module_nodes`), in source order."""
    tops = {id(statement) for statement in module.body}
    top: cst.CSTNode | None = None
    built: dict[str, set[str]] = {}  # top-level statement's name -> the classes its calls build
    called: set[str] = set()  # the file's functions a module class calls
    for node, _ in nodes:
        if id(node) in tops:
            top = node
        if type(node) is not cst.Call or not isinstance(top, (cst.ClassDef, cst.FunctionDef)):
            continue
        written = dotted(node.func)  # type: ignore[attr-defined]
        if written is None:
            continue
        if wanted(written):
            built.setdefault(top.name.value, set()).add(written)
        elif top.name.value in module_classes and written in functions:
            called.add(written)
    return sorted({w for name in (*module_classes, *called) for w in built.get(name, ())})


def _submodules_written(init: cst.FunctionDef, project: Callable[[str], bool]) -> dict[str, str]:
    """`self.` attribute -> the one class (as written, one the project index may resolve) its
    assignments in `init` build: `self.attention = Attention(config)`, `self.layers =
    nn.ModuleList([Block(c) for c in ...])`."""
    out: dict[str, str | None] = {}
    for attributes, calls in _self_assignments(init):
        built = {name for name in calls if name.rpartition(".")[2][:1].isupper() and project(name)}
        for attribute in attributes:
            name = next(iter(built)) if len(built) == 1 else None
            out[attribute] = name if out.get(attribute, name) == name else None
    return {attribute: name for attribute, name in out.items() if name is not None}


def _self_assignments(init: cst.FunctionDef) -> list[tuple[list[str], list[str]]]:
    """Per assignment of `init` to `self.` attributes, in order: the attributes, and the dotted
    names of the calls in its value. One walk per `__init__`: the dataflow (`_built_in`) and
    the file's summary (`_submodules_written`) both read it."""
    return _SELF_ASSIGNMENTS(init)


def _assigned_on_self(init: cst.FunctionDef) -> list[tuple[list[str], list[str]]]:
    out: list[tuple[list[str], list[str]]] = []
    for statement in walk_statements(init.body):
        if not isinstance(statement, cst.Assign):
            continue
        attributes = [
            t.attr.value for target in statement.targets
            if isinstance(t := target.target, cst.Attribute)
            and isinstance(t.value, cst.Name) and t.value.value == "self"
        ]
        if attributes:
            calls = [
                name for node in iter_nodes(statement.value)
                if type(node) is cst.Call and (name := dotted(node.func)) is not None  # type: ignore[attr-defined]
            ]
            out.append((attributes, calls))
    return out


#: _self_assignments per `__init__`
_SELF_ASSIGNMENTS: PerStatement[list[tuple[list[str], list[str]]]] = PerStatement(_assigned_on_self)  # type: ignore[arg-type]


#: what a slot of FunctionSummary.passes gives the callee's parameter
_PASSED_VALUES = {
    "tensor": Value(Kind.TENSOR), "data-list": Value(Kind.DATA | Kind.DATA_LIST), "data": Value(Kind.DATA),
    "dd": Value(Kind.TENSOR | Kind.DD_TENSOR),
}


def passed_kind(value: Value) -> str | None:
    """How a summary records an argument for a callee in another file (None: nothing to say)."""
    if value.has(Kind.DD_TENSOR):
        return "dd"
    if value.has(Kind.DATA):
        return "data-list" if value.has(Kind.DATA_LIST) else "data"
    return "tensor" if value.has(Kind.TENSOR | Kind.MASK) else None


#: what a helper declared to return one of these hands back is a Python value (a dtype or device too)
_PYTHON_SCALARS = frozenset({"bool", "int", "float", "str", "None", "torch.dtype", "torch.device"})


def _without_python_part(value: Value) -> Value:
    kind = value.kind & ~PYTHON_KINDS
    return Value(kind, value.origin) if kind else NOTHING


def _returns_python_scalar(func: cst.FunctionDef) -> bool:
    """`def is_tracing(...) -> bool`, `def grid_dtype(...) -> torch.dtype`: whatever it computes from
    tensors, it hands back Python."""
    returns = func.returns
    return returns is not None and dotted(returns.annotation) in _PYTHON_SCALARS


def _is_static(func: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in func.decorators)
