"""Layer 3 of a file's analysis, reach: which code a default export runs. The traced set
(`forward` of every module class, what it calls in this file, what other files' traced code
calls here) and, per statement, the conditions under which export runs it: never (a branch an
export guard rules out, what follows `if is_tracing(): return`), only in training mode, only
with a non-default configuration switch, only when an optional argument is passed. A switch's
default is what a construction with `__init__`'s literal defaults leaves in `self`, read by a
bounded evaluation of small pure code (`_DefaultRun`).
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import libcst as cst

from .dataflow import (
    all_params,
    annotation_names,
    arguments_passing,
    kept_lambda_calls,
    lookup_may_answer_none,
    walk_statements,
)
from .export_site import ExportSites, keyword_true
from .fact_store import PerStatement
from .index import EMPTY_CONTEXT, ConfigDefaults, FileContext, Reach, Scalar
from .names import ENTRY_METHODS, dotted, is_entry_method
from .positions import code_of
from .shapes import init_buffers
from .symbols import EnumMember, FileSymbols, ModuleClass, defaults_to_none
from .syntax import UNKNOWN, literal_value
from .walk import body_nodes, iter_nodes, with_statements


@dataclass
class Traced:
    """One traced function and the class it belongs to (None for a free function); `reach`:
    how traced code of another file reaches it (None when the file's own code does)."""

    func: cst.FunctionDef
    cls: ModuleClass | None
    reach: Reach | None = None

    @property
    def name(self) -> str:
        """`Class.method` or `function`."""
        own = self.func.name.value
        return f"{self.cls.node.name.value}.{own}" if self.cls is not None else own


class FileReach(ExportSites):
    """The file's export sites, its traced functions and what runs of them while exporting."""

    def __init__(
        self, module: cst.Module, mentions_export: bool, context: FileContext = EMPTY_CONTEXT, name: str = "",
        is_package: bool = False, mentions_guards: bool = True,
    ) -> None:
        """`mentions_guards`: the text names an export guard (`is_exporting`, `is_tracing`, ...)."""
        super().__init__(module, mentions_export, context, name, is_package)
        # a function of another file that returns one value while exporting is a guard too
        self.mentions_guards = mentions_guards or bool(context.exporting)
        #: call -> its innermost statement, for the calls of traced functions
        self._call_statement: dict[int, int] = {}
        self._nodes: dict[int, list[tuple[cst.CSTNode, cst.CSTNode | None]]] = {}
        #: per traced function: each statement's place, the (block, index) of it and of every
        #: statement around it (see runs_before); filled on first use
        self._places: dict[int, dict[int, tuple[tuple[int, int], ...]]] = {}
        #: calls in the file's functions by the last name of their callee (see _constructions),
        #: each call's function, and how often each bare name is read there (called or not)
        self._calls_by_name: dict[str, list[cst.Call]] | None = None
        self._call_owner: dict[int, cst.FunctionDef] = {}
        self._name_reads: dict[str, int] = {}
        #: per free function: what each parameter takes at the file's calls (see _passed_in_file)
        self._in_file_values: dict[int, dict[str, list[Scalar]]] = {}
        #: statement id -> the traced function holding it (see traced_holder)
        self._holders: dict[int, cst.FunctionDef] | None = None
        #: ids of statements only an export in training mode runs (under `if self.training:`)
        self.training_only: set[int] = set()
        #: ids of the nodes only a training-mode export evaluates, in a statement that runs in
        #: both (the side of `a if self.training else b`)
        self.training_only_nodes: set[int] = set()
        #: ids of statements that run only with a configuration other than the default, with the
        #: condition said (`only with `experts_implementation="eager"`: ...` for a transformers experts class)
        self.switched: dict[int, str] = {}
        #: ids of the reads of a local bound once to `<switch> and ...` (`<switch> or ...`): False
        #: (True) with the default configuration, whatever the rest reads (see _switch_flags); and
        #: of the right operands a default configuration never evaluates (_mark_switched_operand)
        self.switched_nodes: dict[int, str] = {}
        #: ids of statements only an export that passes an optional argument runs, with its name
        #: (`if labels is not None and labels.max() >= n:` where `labels=None`)
        self.optional_only: dict[int, str] = {}
        #: per function, the names it assigns once (`exists_cache = past is not None and ...`)
        self._flags: dict[int, dict[str, cst.BaseExpression | None]] = {}
        #: (function id, local) -> its value while exporting (see _guard_flag)
        self._guard_flags: dict[tuple[int, str], bool | None] = {}
        #: per function, its locals bound once to `<switch> and ...` or `<switch> or ...`, with
        #: why and their default truth (see _switch_flags)
        self._switch_flag_names: dict[int, dict[str, tuple[str, bool]]] = {}
        #: (caller, callee) ids of calls made only when an optional argument is passed, with its name
        self._optional_calls: dict[tuple[int, int], str] = {}
        #: (caller, callee) ids of calls made on a path no optional argument decides (the same
        #: callee may be called both ways: then the default path calls it)
        self._plain_calls: set[tuple[int, int]] = set()
        #: (caller, callee) ids of calls made only with a non-default configuration, with why, and
        #: of those made without one (the same callee may be called both ways)
        self._switched_calls: dict[tuple[int, int], str] = {}
        self._unswitched_calls: set[tuple[int, int]] = set()
        #: callee id -> (caller, call) of each call of it in traced code (see _mark_none_from_callers)
        self._call_sites: dict[int, list[tuple[cst.FunctionDef, cst.Call]]] = {}
        #: per helper: its parameters every call passes an argument that defaults to None, with why
        self._none_params: dict[int, dict[str, str]] = {}
        #: per helper: its parameters defaulting to None that every call passes a value that is not None
        self._passed_params: dict[int, frozenset[str]] = {}
        #: ids of the nodes of an `and` operand behind `name is not None` (an optional argument)
        self.optional_nodes: dict[int, str] = {}
        #: per function: its optional names that are not parameters defaulting to None, with why
        #: they may be None (see maybe_none)
        self._maybe_none: dict[int, dict[str, str]] = {}
        #: ids of the operands export never evaluates (`B` in `not is_tracing() and B`)
        self.unevaluated: set[int] = set()
        #: traced function -> its callees as written (`helper`, `self.block`, `ops.nms`)
        self._written: dict[int, list[str]] = {}
        self.own_traced: set[int] = set()
        #: per class: the `config` fields its `__init__` copies to `self` (see _config_copies)
        self._copies: dict[int, frozenset[str]] = {}
        #: per class: whether `self.config` is the `config` its `__init__` takes (see _holds_config)
        self._holds: dict[int, bool] = {}
        self._config_classes: ConfigDefaults | None = None
        #: per class: what a construction with `__init__`'s defaults leaves in `self.x` (see _init_defaults)
        self._defaults: dict[int, dict[str, _Value]] = {}
        #: per class: the attributes a method other than `__init__` sets (see _set_elsewhere)
        self._set_outside_init: dict[int, set[str]] = {}
        #: per function of the file: its value while exporting, where it wraps export guards
        self._wrappers: dict[int, bool | None] = {}
        self._guard_aliases: dict[str, str] | None = None
        self.traced = self._reachable()

    def _reachable(self) -> list[Traced]:
        roots: list[Traced] = []
        if not self.context.entries_only:
            roots.extend(self._own_roots())
        seen: dict[int, Traced] = {}
        edges: dict[int, list[tuple[Traced, bool]]] = {}  # caller -> (callee, called in eval mode too)
        self._visit(roots, seen, edges)
        self.own_traced = set(seen)
        entries = [item for name, reach in self.context.entries if (item := self._entry(name, reach)) is not None]
        self._visit_entries(entries, seen, edges)
        self._mark_none_from_callers(seen)
        self._mark_training_only_helpers(roots + entries, seen, edges)
        self._mark_switched_forwards()
        switched_entries = {
            id(item.func): why for name, why in self.context.switched if (item := self._entry(name, None)) is not None
        }
        self._mark_switched_helpers(roots + entries, seen, edges, switched_entries)
        self._roots, self._edges = roots + entries, edges
        return list(seen.values())

    def _mark_switched_helpers(
        self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]],
        switched_entries: Mapping[int, str],
    ) -> None:
        """A helper traced code calls only under a configuration switch the default leaves off
        (superpoint's `top_k_keypoints` under `if self.max_keypoints >= 0:`, -1 by default) runs
        only with that switch: its findings name it, as the caller's would. `switched_entries`:
        the functions other files' traced code calls only under such a switch (kornia's DEGENSAC
        helpers, called by RANSAC with `degensac=True`), by id, with why."""
        switched = {pair: why for pair, why in self._switched_calls.items() if pair not in self._unswitched_calls}
        if not switched and not switched_entries:
            return
        unswitched_roots = [root for root in roots if id(root.func) not in switched_entries]
        always = _closure(unswitched_roots, edges, lambda caller, callee: (caller, callee) not in switched)
        callees = [*((callee, why) for (_, callee), why in switched.items()), *switched_entries.items()]
        for key, why in _inherited(callees, always, edges).items():
            item = seen.get(key)
            if item is not None:
                for _, statement in self.nodes(item.func):
                    if statement is None:
                        continue
                    if why == TRAINING_CALL:
                        self.training_only.add(id(statement))
                    else:
                        self.switched.setdefault(id(statement), why)

    def _mark_switched_forwards(self) -> None:
        """transformers' `@use_experts_implementation` replaces the class's `forward` with the
        kernel `config._experts_implementation` names; the default (`grouped_mm`, measured on
        2.13: tiny Mixtral and Qwen2-MoE export without running the loop) is not this code."""
        for info in self.classes.values():
            forward = info.methods.get("forward")
            if forward is None or not any(
                (self.resolve(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
                in _EXPERTS_SWITCHES
                for d in info.node.decorators
            ):
                continue
            for node, statement in self.nodes(forward):
                if node is statement:
                    self.switched.setdefault(
                        id(node), 'only with `experts_implementation="eager"`: the default replaces this `forward`'
                    )

    def _own_roots(self) -> Iterator[Traced]:
        for info in self.classes.values():
            for name in ENTRY_METHODS:
                method = info.methods.get(name)
                if method is not None and not _takes_a_session(method) and (
                    name == "forward" or _wraps_forward(method)
                ):
                    yield Traced(method, info)
        for call in self.export_calls:
            if call.call.args:
                name = dotted(call.call.args[0].value)
                if name in self.functions:
                    yield Traced(self.functions[name], None)
        for func in self.functions.values():
            for deco in func.decorators:
                target = deco.decorator
                call = target if isinstance(target, cst.Call) else None
                api = self.imports.resolve(call.func if call else target)
                if api == "torch.compile" and call is not None and keyword_true(call, "fullgraph"):
                    yield Traced(func, None)

    def _visit(self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]]) -> None:
        stack = list(roots)
        while stack:
            item = stack.pop()
            if id(item.func) in seen:
                continue
            seen[id(item.func)] = item
            calls = edges[id(item.func)] = list(self._calls(item))
            for callee, _ in calls:
                if id(callee.func) not in seen:
                    if item.reach is not None:
                        callee.reach = dataclasses.replace(item.reach, via=(*item.reach.via, item.name))
                    stack.append(callee)

    def _visit_entries(
        self, entries: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]]
    ) -> None:
        """What other files' traced code reaches in this file, each function with the shortest
        chain of calls from an entry point, the first of those in sorted order (not the first the
        walk meets, which follows the order of the calls and of the files)."""
        queue: list[tuple[tuple[int, str, tuple[str, ...], str], int, Traced]] = []
        for number, item in enumerate(entries):
            if item.reach is not None:
                heapq.heappush(queue, (_chain_key(item.reach, item), number, item))
        number = len(queue)
        while queue:
            _, _, item = heapq.heappop(queue)
            if id(item.func) in seen:
                continue
            seen[id(item.func)] = item
            calls = edges[id(item.func)] = list(self._calls(item))
            for callee, _ in calls:
                if id(callee.func) not in seen and item.reach is not None:
                    callee.reach = dataclasses.replace(item.reach, via=(*item.reach.via, item.name))
                    number += 1
                    heapq.heappush(queue, (_chain_key(callee.reach, callee), number, callee))

    def _entry(self, name: str, reach: Reach | None) -> Traced | None:
        """A function of this file that traced code of another file calls (`func`, `Class.method`)."""
        cls_name, _, func_name = name.rpartition(".")
        if not cls_name:
            func = self.functions.get(func_name)
            return Traced(func, None, reach) if func is not None else None
        info = self.classes.get(cls_name)
        if info is None:
            node = self._file_classes.get(cls_name)
            if node is None:
                return None
            info = self._module_class(node)  # a mixin or a plain base class: its methods still run
        method = info.methods.get(func_name)
        return Traced(method, info, reach) if method is not None else None

    def _calls(self, item: Traced) -> Iterator[tuple[Traced, bool]]:
        """The in-file functions `item` calls, each with whether an eval-mode export makes the
        call; every callee as written is kept for the project index."""
        written = self._written[id(item.func)] = []
        for node, statement in self.nodes(item.func):
            if type(node) is cst.Call:
                text = callee_text(node.func)  # type: ignore[attr-defined]
                if text is not None and self._may_be_project_code(text):
                    written.append(text)
                    written.extend(self._written_in_kept_lambda(item.cls, text))
                target = self.helper_for(item.cls, node.func)  # type: ignore[arg-type]
                if target is not None:
                    self._call_sites.setdefault(id(target.func), []).append((item.func, node))  # type: ignore[arg-type]
                    self._note_call(item.func, target.func, statement)
                    yield target, statement is None or id(statement) not in self.training_only

    def _written_in_kept_lambda(self, cls: ModuleClass | None, text: str) -> Iterator[str]:
        """For `self.f(x)` of a lambda `__init__` keeps as `self.f`: the callees of other files it
        calls as written (`helpers.count`), which the project index then summarises for this file
        (the file's own functions are read through by its dataflow)."""
        root, _, attribute = text.partition(".")
        if cls is None or root != "self" or not attribute or "." in attribute:
            return
        for call in kept_lambda_calls(cls.node, attribute):
            called = callee_text(call.func)
            if called is not None and called.partition(".")[0] not in self.functions and (
                self._may_be_project_code(called)
            ):
                yield called

    def switched_callees(self, func: cst.FunctionDef, failures: AfterFailure) -> dict[str, str]:
        """Callees as written that traced `func` calls only with a configuration the default
        leaves off, only in training, or only after a statement where export fails (every call of
        that spelling, see `failures`), with why: for the functions of other files they reach,
        which inherit the condition (see ProjectIndex._switched_entries)."""
        found: dict[str, str | None] = {}
        reached_after = failures.reached_after.get(id(func))
        for node, statement in self.nodes(func):
            if type(node) is cst.Call and (text := callee_text(node.func)) is not None:  # type: ignore[attr-defined]
                why = self.switched.get(id(statement)) if statement is not None else None
                if why is None and statement is not None and id(statement) in self.training_only:
                    why = TRAINING_CALL
                if why is None and statement is not None:
                    why = reached_after or failures.after_failing(func, statement)
                found[text] = why if found.get(text, why) == why else None
        return {text: why for text, why in found.items() if why is not None}

    def _note_call(self, caller: cst.FunctionDef, callee: cst.FunctionDef, statement: cst.CSTNode | None) -> None:
        """Whether the call is made only when an optional argument is passed (see _mark_optional_helpers)."""
        switch = self.switched.get(id(statement)) if statement is not None else None
        if switch is not None:
            self._switched_calls[(id(caller), id(callee))] = switch
        else:
            self._unswitched_calls.add((id(caller), id(callee)))
        optional = self.optional_only.get(id(statement)) if statement is not None else None
        if optional is not None:
            self._optional_calls[(id(caller), id(callee))] = optional
        else:
            self._plain_calls.add((id(caller), id(callee)))

    def _mark_none_from_callers(self, seen: dict[int, Traced]) -> None:
        """A helper's parameter with no default that every traced call passes an argument
        defaulting to None (or None, or such a parameter of its own caller) is None on a default
        export: `if mask is not None:` there guards code only a caller passing it runs (reformer's
        `_hash_vectors(..., attention_mask)`, fed `forward`'s `attention_mask=None`). And the
        converse: a parameter defaulting to None that every traced call passes a value that is not
        None (`_masked_mean(x, mask=(x > 0).float())`) is passed on a default export, so what
        `mask is not None` guards runs (measured on torch 2.13: a data branch there fails both
        modes). Known only once the traced set is: the helper's statements are listed again with
        it. Not for a function other files' traced code calls (their call sites are not all here)."""
        called_elsewhere = {name for name, _ in self.context.entries}
        for key, item in seen.items():
            if is_entry_method(item.func) or key not in self._call_sites or item.name in called_elsewhere:
                continue
            found = {
                param.name.value: why for param in all_params(item.func.params)
                if param.default is None and (why := self._none_from_callers(param.name.value, item.func, frozenset()))
            }
            passed = frozenset(
                name for param in all_params(item.func.params)
                if defaults_to_none(name := param.name.value, item.func) and self._passed_by_callers(name, item.func)
            )
            if not found and not passed:
                continue
            if found:
                self._none_params[key] = found
            if passed:
                self._passed_params[key] = passed
                self._forget_optional(item.func, passed)
            del self._nodes[key]
            # its calls under `mask is not None` are now made only when that is passed (or always)
            self._plain_calls = {pair for pair in self._plain_calls if pair[0] != key}
            self._optional_calls = {pair: name for pair, name in self._optional_calls.items() if pair[0] != key}
            for node, statement in self.nodes(item.func):
                target = self.helper_for(item.cls, node.func) if type(node) is cst.Call else None  # type: ignore[attr-defined]
                if target is not None:
                    self._note_call(item.func, target.func, statement)

    def _forget_optional(self, func: cst.FunctionDef, names: frozenset[str]) -> None:
        """Drop what the first listing of `func` marked as run only when one of `names` is passed."""
        for node, statement in self.nodes(func):
            for key in (id(node), id(statement)):
                for marked in (self.optional_only, self.optional_nodes):
                    if marked.get(key) in names:
                        del marked[key]

    def calls_of(self, item: Traced) -> list[tuple[Traced, cst.Call]] | None:
        """Every traced call of the helper `item`, each with the traced function making it; None
        where that is not all of them: an entry method, a function traced code of another file
        reaches or calls, or one no traced call of the file makes."""
        sites = self._call_sites.get(id(item.func))
        if not sites or is_entry_method(item.func) or item.reach is not None:
            return None
        if any(entry.rpartition(".")[2] == item.func.name.value for entry, _ in self.context.entries):
            return None
        traced = {id(t.func): t for t in self.traced}
        found = [(traced[id(caller)], call) for caller, call in sites if id(caller) in traced]
        return found if len(found) == len(sites) else None

    def arguments_for(
        self, name: str, func: cst.FunctionDef
    ) -> list[tuple[cst.FunctionDef, cst.BaseExpression | None]] | None:
        """What each traced call of `func` in the file passes its parameter `name` (None: not
        passed), by keyword or position; None where a call unpacks `*args`/`**kwargs` or `name`
        is no parameter a call fills."""
        sites = self._call_sites.get(id(func))
        if not sites or is_entry_method(func):
            return None
        params = [p.name.value for p in all_params(func.params)]
        if self._class_of.get(id(func)) is not None and not _is_static(func):
            params = params[1:]
        if name not in params:
            return None
        index = params.index(name)
        found: list[tuple[cst.FunctionDef, cst.BaseExpression | None]] = []
        for caller, call in sites:
            if any(arg.star for arg in call.args):
                return None
            keyword = next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value == name), None)
            positional = [arg for arg in call.args if arg.keyword is None]
            arg = keyword or (positional[index] if index < len(positional) else None)
            found.append((caller, arg.value if arg is not None else None))
        return found

    def _none_from_callers(self, name: str, func: cst.FunctionDef, seen: frozenset[int]) -> str | None:
        """Why parameter `name` of `func` is None unless a caller passes it (None: it may not be)."""
        arguments = self.arguments_for(name, func) if id(func) not in seen else None
        if not arguments:
            return None
        for caller, value in arguments:
            if not isinstance(value, cst.Name):
                return None
            if value.value == "None":
                continue
            if rebinds(caller, value.value):
                return None  # `if mask is None: mask = torch.ones(...)` before the call
            if is_entry_method(caller) and not _later_parameter(value.value, caller):
                return None  # `forward`'s first input is the example's, whatever its default
            if not defaults_to_none(value.value, caller) and (
                self._none_from_callers(value.value, caller, seen | {id(func)}) is None
            ):
                return None
        return "every call passes it an argument that defaults to None"

    def _passed_by_callers(self, name: str, func: cst.FunctionDef) -> bool:
        """Every traced call of `func` passes its parameter `name` a value that is not None."""
        arguments = self.arguments_for(name, func)
        return bool(arguments) and all(
            value is not None and self._not_none(value, caller, 0) for caller, value in arguments  # type: ignore[misc]
        )

    def _not_none(self, value: cst.BaseExpression, caller: cst.FunctionDef, depth: int) -> bool:
        """`value`, in `caller`, is surely not None: a comparison, arithmetic, a torch function or a
        method that is not one of the file's nor a lookup that may answer None (`(x > 0).float()`,
        `torch.ones(...)`; not `masks.get(k)`, `getattr(self, "m", None)`, another module's helper),
        an input of the export with no default, or a name bound once to such a value."""
        if isinstance(value, (cst.Comparison, cst.BinaryOperation, cst.UnaryOperation, cst.Integer, cst.Float)):
            return True
        if isinstance(value, cst.Call):
            func = value.func
            if not isinstance(func, cst.Attribute) or lookup_may_answer_none(value):
                return False
            resolved = self.imports.resolve(func)
            if resolved is not None:
                return resolved.startswith("torch.")
            return self.helper_for(self._class_of.get(id(caller)), func) is None
        if not isinstance(value, cst.Name) or value.value == "None" or depth > 4:
            return False
        if is_entry_method(caller) and any(
            p.name.value == value.value and p.default is None for p in list(all_params(caller.params))[1:]
        ) and not rebinds(caller, value.value):
            return True
        bound = _assigned_once_in(caller, self._flags).get(value.value)
        return bound is not None and self._not_none(bound, caller, depth + 1)

    def _mark_training_only_helpers(
        self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]]
    ) -> None:
        """A helper only training-mode code calls (`_compute_mask_indices` under
        `if self.training:`) runs only in a training-mode export: all of it is training-only."""
        in_eval = _closure(roots, edges, lambda caller, callee: True)
        for key, item in seen.items():
            if key not in in_eval:
                for _, statement in self.nodes(item.func):
                    if statement is not None:
                        self.training_only.add(id(statement))
        self._mark_optional_helpers(roots, seen, edges, in_eval)

    def _mark_optional_helpers(
        self, roots: list[Traced], seen: dict[int, Traced], edges: dict[int, list[tuple[Traced, bool]]],
        in_eval: set[int],
    ) -> None:
        """A helper only code behind `labels is not None` calls (rag's `get_nll` in the loss) runs
        only when that argument is passed: its findings say so, as warnings."""
        if not self._optional_calls:
            return
        optional = set(self._optional_calls) - self._plain_calls
        if not optional:
            return
        always = _closure(roots, edges, lambda caller, callee: (caller, callee) not in optional)
        # a helper behind two optional arguments names the first in sorted order, whichever
        # call the walk met first
        names: dict[int, str] = {}
        for caller, callee in optional:
            name = self._optional_calls[(caller, callee)]
            if callee not in always and caller in in_eval and name < names.get(callee, "\uffff"):
                names[callee] = name
        changed = True
        while changed:  # a helper of such a helper
            changed = False
            for key, name in list(names.items()):
                for callee, _ in edges.get(key, []):
                    if id(callee.func) not in always and name < names.get(id(callee.func), "\uffff"):
                        names[id(callee.func)] = name
                        changed = True
        for key, name in names.items():
            item = seen.get(key)
            if item is not None:
                for _, statement in self.nodes(item.func):
                    if statement is not None:
                        self.optional_only.setdefault(id(statement), name)

    def _may_be_project_code(self, written: str) -> bool:
        """A callee the project index may resolve: a method through `self`/`cls`/`super()`, a
        function or class of this file, or an import that is not torch's."""
        root = written.partition(".")[0]
        if root in ("self", "cls", "super()") or root in self.functions or root in self._file_classes:
            return True
        imported = self.imports.aliases.get(root)
        return imported is not None and imported != "torch" and not imported.startswith("torch.")

    def nodes(self, func: cst.FunctionDef) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]:
        """The nodes of a traced function's body with their statements, listed once for the
        call graph and the rules."""
        listed = self._nodes.get(id(func))
        if listed is None:
            dead = self._dead_after_guards(func) if self.mentions_guards else None
            self._mark_training_after_return(func)
            listed = self._nodes[id(func)] = with_statements(
                func.body, func, in_function=True, pruned=lambda node: self._branch_export_skips(node, func), dead=dead
            )
            flags = self._switch_flags(func)
            for node, statement in listed:
                node_type = type(node)
                if node_type is cst.Name and flags and node.value in flags:  # type: ignore[attr-defined]
                    self.switched_nodes[id(node)] = flags[node.value][0]  # type: ignore[attr-defined]
                if node_type is cst.Call and statement is not None:
                    self._call_statement[id(node)] = id(statement)
                if node_type is cst.Call and _is_check(node):
                    for arg in node.args[1:]:  # type: ignore[attr-defined]
                        if isinstance(arg.value, cst.Lambda):
                            self.unevaluated.update(id(inner) for inner in iter_nodes(arg.value.body))
                elif node_type is cst.IfExp:
                    self._mark_side_not_taken(node, func)  # type: ignore[arg-type]
                elif node_type is cst.BooleanOperation:
                    self._mark_switched_operand(node, func)  # type: ignore[arg-type]
                elif node_type is cst.For and (switch := self._empty_by_default(node, func)) is not None:  # type: ignore[arg-type]
                    for inner in walk_statements(node.body):  # type: ignore[attr-defined]
                        self.switched.setdefault(id(inner), switch)
                elif node_type is cst.Try or node_type is cst.TryStar:
                    for handler in node.handlers:  # type: ignore[attr-defined]
                        if _catches_only_failures(handler):
                            for inner in walk_statements(handler.body):
                                self.switched.setdefault(id(inner), HANDLER_ONLY)
        return listed

    def runs_before(self, func: cst.FunctionDef, first: cst.CSTNode, later: cst.CSTNode) -> bool:
        """Every run of `func` that reaches statement `later` has run statement `first` before
        it: `first` comes earlier in a block holding `later` (`later` may be nested further in),
        or `first` is the `if`/`while`/`for`/`with` whose header is evaluated before the body
        holding `later`. Not across a nested function's body."""
        places = self._places_in(func)
        one, two = places.get(id(first)), places.get(id(later))
        if one is None or two is None:
            return False
        if len(one) > 1 and places.get(one[-1][0]) == one[:-1] and (
            len(two) < len(one) or two[len(one) - 1][0] != one[-1][0]
        ):
            one = one[:-1]  # a small statement (`n = int(t)`) runs when its line does: compare that line
        if len(two) < len(one) or one[:-1] != two[: len(one) - 1]:
            return False
        (block, index), (other_block, other_index) = one[-1], two[len(one) - 1]
        if block != other_block:
            return False
        return index < other_index or (index == other_index and len(two) > len(one))

    def truth_is_length(self, func: cst.FunctionDef, statement: cst.CSTNode, name: str) -> bool:
        """`if not kept:` where every assignment of `kept` that runs before `statement` binds a
        list, tuple, set or dict display or comprehension, and every other one runs only after
        it (no loop around it brings a later one back): the test is the container's length, a
        Python int, whatever tensors it holds (evolla's `kv_attn_mask = [m for m in ... if m is
        not None]; if not kv_attn_mask: raise ...; kv_attn_mask = torch.cat(kv_attn_mask)`)."""
        before = 0
        for node in body_nodes(func.body):
            node_type = type(node)
            if node_type in (cst.For, cst.While) and any(inner is statement for inner in iter_nodes(node)):
                return False
            if node_type is not cst.SimpleStatementLine:
                continue
            for small in node.body:  # type: ignore[attr-defined]
                if not isinstance(small, cst.Assign) or not any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    continue
                if self.runs_before(func, node, statement):
                    if not isinstance(small.value, _CONTAINERS):
                        return False
                    before += 1
                elif not self.runs_before(func, statement, node):
                    return False
        return before > 0

    def setting_guards(self, func: cst.FunctionDef, statement: cst.CSTNode) -> SettingGuards | None:
        """The tests of settings around `statement` in `func` (`if self.subtract_last:` ...
        `else:`), each with the branch holding it, and whether every call of `func` that returns
        runs `statement` when those tests go that way (nothing else around it or before it may
        skip it); an `if` on a setting that returns or raises before it counts as its `else`. A
        setting is an attribute of `self` only `__init__` sets: it holds one value for the whole
        call, so two methods testing it take the same branch (RevIN's `_get_statistics`
        writes `self.mean` on the `else` path that `_normalize` reads it on). None: `statement` is
        not in `func`'s own body."""
        cls = self._class_of.get(id(func))
        path = _path_to(func.body, statement)
        if path is None:
            return None
        settled = self._set_elsewhere_once(cls) if cls is not None else None
        guards: set[tuple[str, bool]] = set()
        always = True
        for before, around, suite in path:
            for line in before:
                leaving = _setting_test(line.test, settled) if (
                    isinstance(line, cst.If) and line.orelse is None and _always_leaves(line.body)
                ) else None
                if leaving is not None:  # `if self.plain: return x`: what follows runs with the test False
                    guards.add((leaving[0], not leaving[1]))
                elif any(type(node) in (cst.Return, cst.Raise) for node in iter_nodes(line)):
                    always = False
            if around is None:
                continue
            tests = _branch_tests(around, suite) if isinstance(around, cst.If) else None
            if tests is None:
                always = False
                continue
            for test, taken in tests:
                spelled = _setting_test(test, settled)
                if spelled is None:
                    always = False
                else:
                    guards.add((spelled[0], spelled[1] == taken))
        return SettingGuards(frozenset(guards), always)

    def runs_before_where(
        self, func: cst.FunctionDef, first: cst.CSTNode, later: cst.CSTNode, guards: SettingGuards
    ) -> bool:
        """Every run of `func` reaching statement `later` while the settings go as `guards` says
        has run statement `first` before it: runs_before, or `first` runs whenever those settings
        hold (see setting_guards) and a statement holding it, not `later`, runs before `later`
        (`if self.use_future: self.mark = ...` above `self.mix(...)`)."""
        if self.runs_before(func, first, later):
            return True
        written = self.setting_guards(func, first)
        path = _path_to(func.body, first)
        if written is None or path is None or not written.always or not written.implied_by(guards):
            return False
        return any(
            around is not None and not any(node is later for node in iter_nodes(around))
            and self.runs_before(func, around, later)
            for _, around, _ in path
        )

    def _set_elsewhere_once(self, cls: ModuleClass) -> set[str]:
        """_set_elsewhere, found once per class."""
        found = self._set_outside_init.get(id(cls.node))
        if found is None:
            found = self._set_outside_init[id(cls.node)] = self._set_elsewhere(cls)
        return found

    def traced_holder(self, statement: cst.CSTNode) -> cst.FunctionDef | None:
        """The traced function whose own body holds `statement` (None: none does)."""
        if self._holders is None:
            self._holders = {}
            for item in self.traced:
                for key in self._places_in(item.func):
                    self._holders.setdefault(key, item.func)
        return self._holders.get(id(statement))

    def _places_in(self, func: cst.FunctionDef) -> dict[int, tuple[tuple[int, int], ...]]:
        places = self._places.get(id(func))
        if places is None:
            places = self._places[id(func)] = _places(func.body)
        return places

    def _dead_after_guards(self, func: cst.FunctionDef) -> set[int]:
        """Statements after `if is_tracing(x): return` (a guard True while exporting, a branch that
        always leaves): export never reaches them."""
        dead: set[int] = set()
        for block in _blocks(func.body):
            for index, statement in enumerate(block.body):
                if (
                    isinstance(statement, cst.If)
                    and _always_leaves(statement.body)
                    and self._while_exporting(statement.test, func) is True
                ):
                    dead.update(id(s) for s in block.body[index + 1 :])
                    break
        return dead

    def _assigned_once(self, func: cst.FunctionDef) -> dict[str, cst.BaseExpression | None]:
        """The names `func` assigns once, with the expression (see _assigned_once), found once."""
        assigned = self._flags.get(id(func))
        if assigned is None:
            assigned = self._flags[id(func)] = _assigned_once(func)
        return assigned

    def _switch_flags(self, func: cst.FunctionDef) -> dict[str, tuple[str, bool]]:
        """The locals `func` binds once to `<switch> and ...`, a switch the default leaves off
        (x-transformers' `cond_on_distance = self.cond_on_distance and (random() < p)`), or to
        `<switch> or ...`, one the default leaves on (`use_ce = self.ignore_label is None or
        num_fg > 0`), with why and the truth a default export binds them to: only the switch
        makes them data."""
        found = self._switch_flag_names.get(id(func))
        if found is None:
            found = self._switch_flag_names[id(func)] = {}
            params = {p.name.value for p in all_params(func.params)}
            for name, value in self._assigned_once(func).items():
                if type(value) is cst.BooleanOperation and name not in params:
                    # `use_ce = self.ignore_label is None or num_fg > 0`: True by default, whatever the rest
                    switch, otherwise = self._config_switch(_leftmost(value, type(value.operator)), func)
                    deciding = switch if type(value.operator) is cst.And else otherwise
                    if deciding is not None:
                        found[name] = (deciding, type(value.operator) is cst.Or)
        return found

    def _mark_switched_operand(self, node: cst.BooleanOperation, func: cst.FunctionDef) -> None:
        """`self.ignore_label is None or num_fg > 0` where the default configuration makes the left
        operand True (`and`: False): a default export never evaluates the right one, which runs
        only with another configuration (nnunet's compound losses, `ignore_label=None` by default;
        measured on torch 2.13: such a module exports in both modes, and fails both once built
        with a label)."""
        switch, otherwise = self._config_switch(node.left, func)
        deciding = switch if type(node.operator) is cst.And else otherwise
        if deciding is not None:
            for inner in iter_nodes(node.right):
                self.switched_nodes.setdefault(id(inner), deciding)

    def _config_switch(self, test: cst.BaseExpression, func: cst.FunctionDef) -> tuple[str | None, str | None]:
        """Why the body, and why the `else`, of `if test:` runs only with a configuration other
        than the default: a configuration field (see _field_switch), else a test a construction
        with `__init__`'s defaults decides (see _default_switch), else a local bound once to
        `<switch> and ...` (x-transformers' `cond_on_distance = self.cond_on_distance and
        (random() < p)`), whose body runs only with the switch."""
        if type(test) is cst.Name:
            flag = self._switch_flags(func).get(test.value)
            if flag is not None:
                why, true_by_default = flag
                return (None, why) if true_by_default else (why, None)
        found = self._field_switch(test, func)
        if found != (None, None):
            return found
        found = self._default_switch(test, func)
        if found != (None, None):
            return found
        return self._argument_switch(test, func)

    def _argument_switch(self, test: cst.BaseExpression, func: cst.FunctionDef) -> tuple[str | None, str | None]:
        """`if approx.lower() == "scalespace":` in a function only other files' traced code calls,
        every call passing a literal `approx` (or leaving its default) that makes the test False
        (MONAI's `gaussian_1d`, which GaussianFilter calls with its default `approx="erf"`): the
        body runs only with another argument, as _default_switch."""
        values, callers = self._passed_literals(func), "other files"
        if not values:
            values, callers = self._passed_in_file(func, test), "this file"
        names = sorted({n.value for n in iter_nodes(test) if isinstance(n, cst.Name) and values.get(n.value)})
        if not names or len(list(itertools.product(*(values[name] for name in names)))) > _MAX_COMBINATIONS:
            return None, None
        truths = set()
        for combination in itertools.product(*(values[name] for name in names)):
            env = {name: _Value(value, frozenset({name})) for name, value in zip(names, combination, strict=True)}
            known = _DefaultRun(self, None, {}).expr(test, env)
            if known is None or not known.arguments:
                return None, None
            truths.add(bool(known.value))
        if len(truths) != 1:
            return None, None
        passed = "; ".join(f"`{name}`: " + " or ".join(repr(v) for v in values[name]) for name in names)
        why = f"only with another {', '.join(f'`{n}`' for n in names)}: `{code_of(test)}` is {truths == {True}} " \
            f"with what every call of {callers} passes ({passed})"
        return (None, why) if truths == {True} else (why, None)

    def _passed_literals(self, func: cst.FunctionDef) -> dict[str, list[Scalar]]:
        """The values each parameter of `func` takes, where every call is a traced call of another
        file passing a literal or leaving a literal default (none from this file's traced code),
        and `func` never rebinds it: the project index's join of those calls (`literal_calls`)."""
        text = dict(self.context.literals).get(self._entry_name(func), "") if self.context.literals else ""
        if not text or self._call_sites.get(id(func)):
            return {}
        return self._joined_literals(func, json.loads(text))

    def _joined_literals(self, func: cst.FunctionDef, calls: list[dict[str, list[Scalar]]]) -> dict[str, list[Scalar]]:
        """The values each parameter of `func` takes at `calls` (each as `call_literals` records
        it), where each passes a literal or leaves a literal default, and `func` never rebinds it."""
        positional = [*func.params.posonly_params, *func.params.params]
        if self._class_of.get(id(func)) is not None and not _is_static(func):
            positional = positional[1:]
        params = [*positional, *func.params.kwonly_params]
        values: dict[str, list[Scalar] | None] = {p.name.value: [] for p in params}
        for call in calls:
            for index, param in enumerate(params):
                name = param.name.value
                passed = call.get(str(index)) if index < len(positional) and str(index) in call else call.get(name)
                if "*" in call:
                    passed = []  # what a starred argument fills is unknown
                elif passed is None:
                    default = literal_value(param.default) if param.default is not None else UNKNOWN
                    passed = [] if default is UNKNOWN else [default]
                known = values[name]
                if not passed or known is None:
                    values[name] = None
                elif passed[0] not in known:
                    known.append(passed[0])
        return {name: known for name, known in values.items() if known and not rebinds(func, name)}

    def _passed_in_file(self, func: cst.FunctionDef, test: cst.BaseExpression) -> dict[str, list[Scalar]]:
        """The values each parameter of the free function `func` that `test` reads takes, where
        every use of `func` is a call of this file (xcit's `dropout_layers(self.layers,
        dropout=self.layer_dropout)`, `layer_dropout=0.` by default) that passes a literal, a
        default construction's `self.x` (see _init_defaults) or leaves a literal default; none
        where other files call it (an entry) or it is used other than called. The same join as
        the calls of other files (_joined_literals), of this file's calls."""
        name = func.name.value
        if self.functions.get(name) is not func or func.decorators or any(
            entry.rpartition(".")[2] == name for entry, _ in self.context.entries
        ):
            return {}
        read = {n.value for n in iter_nodes(test) if isinstance(n, cst.Name)}
        if not any(p.name.value in read for p in all_params(func.params)):
            return {}
        cached = self._in_file_values.get(id(func))
        if cached is not None:
            return cached
        calls = [c for c in self._constructions().get(name, ()) if type(c.func) is cst.Name]
        found: dict[str, list[Scalar]] = {}
        if calls and len(calls) == self._name_reads.get(name, 0):
            found = self._joined_literals(func, [_call_literals(self._default_run(call), call) for call in calls])
        self._in_file_values[id(func)] = found
        return found

    def _default_run(self, call: cst.Call) -> _DefaultRun:
        """A bounded evaluation in the function making `call`, `self.x` read as a default construction leaves it."""
        cls = self._class_of.get(id(self._call_owner[id(call)]))
        return _DefaultRun(self, cls, self._init_defaults(cls) if cls is not None else {})

    def may_pass(
        self, caller: cst.FunctionDef, call: cst.Call, position: int, name: str, seen: frozenset[int] = frozenset()
    ) -> bool:
        """Whether `call`, made in `caller`, may pass the parameter at `position` (-1: keyword-only)
        named `name`, which defaults to None, something other than None on a default export. Not
        where the default stands, nor with an argument a default construction leaves None
        (`ignore=self.ignore_index` where `__init__` has `ignore_index=None`), nor with a parameter
        of `caller` defaulting to None that no call of `caller` may pass (its optional path)."""
        passed = arguments_passing(call, position, name)
        if not passed:
            return False
        argument = call.args[passed[0]]
        if len(passed) > 1 or argument.star:
            return True
        cls = self._class_of.get(id(caller))
        found = _DefaultRun(self, cls, self._init_defaults(cls) if cls is not None else {}).expr(argument.value, {})
        if found is not None:
            return found.value is not None
        own = argument.value.value if type(argument.value) is cst.Name else None
        if own is None or not defaults_to_none(own, caller) or rebinds(caller, own) or id(caller) in seen:
            return True
        if is_entry_method(caller):
            return not _later_parameter(own, caller)  # a later input of `forward` the example leaves out
        sites = self._call_sites.get(id(caller))
        if not sites or any(entry.rpartition(".")[2] == caller.name.value for entry, _ in self.context.entries):
            return True  # called from other files too
        params = [p.name.value for p in (*caller.params.posonly_params, *caller.params.params)]
        if cls is not None and not _is_static(caller):
            params = params[1:]
        at = params.index(own) if own in params else -1
        return any(self.may_pass(outer, site, at, own, seen | {id(caller)}) for outer, site in sites)

    def _entry_name(self, func: cst.FunctionDef) -> str:
        """`func` or `Class.method`, as the project index names an entry."""
        cls = self._class_of.get(id(func))
        return f"{cls.node.name.value}.{func.name.value}" if cls is not None else func.name.value

    def literal_calls(self, func: cst.FunctionDef) -> dict[str, list[dict[str, list[Scalar]]]]:
        """The literal arguments of each call traced `func` makes of a function of another file
        on a default export's path, by callee as written (see `FunctionSummary.literals`)."""
        cls = self._class_of.get(id(func))
        run = _DefaultRun(self, cls, self._init_defaults(cls) if cls is not None else {})
        found: dict[str, list[dict[str, list[Scalar]]]] = {}
        for node, statement in self.nodes(func):
            if type(node) is not cst.Call or (statement is not None and (
                id(statement) in self.switched or id(statement) in self.training_only
            )):
                continue
            text = callee_text(node.func)  # type: ignore[attr-defined]
            if text is None or text in self.functions or not self._may_be_project_code(text):
                continue
            found.setdefault(text, []).append(_call_literals(run, node))  # type: ignore[arg-type]
        return found

    def _default_switch(self, test: cst.BaseExpression, func: cst.FunctionDef) -> tuple[str | None, str | None]:
        """`if self.degensac:` where `__init__` stores `self.degensac = _resolve(degensac)` and the
        helper maps the default (`degensac=False`) to False; `if self.model_type != "essential":`
        where `model_type="homography"`: a test on what a default construction leaves in `self`
        (see _init_defaults), as _field_switch. Not a test of an optional attribute (`self.norm
        is not None`), which the optional arguments speak for."""
        cls = self._class_of.get(id(func))
        values = self._init_defaults(cls) if cls is not None else None
        if not values or self._optional(test, func) is not None:
            return None, None
        known = _DefaultRun(self, cls, values).expr(test, {})
        if known is None or not known.arguments:
            return None, None
        init = cls.methods["__init__"]
        defaults = ", ".join(
            f"`{p.name.value}={code_of(p.default)}`" for p in all_params(init.params)
            if p.name.value in known.arguments and p.default is not None
        )
        names = ", ".join(f"`{name}`" for name in sorted(known.arguments))
        truth = bool(known.value)
        why = f"only with another {names}: `{code_of(test)}` is {truth} with `__init__`'s defaults ({defaults})"
        return (None, why) if truth else (why, None)

    def _init_defaults(self, cls: ModuleClass) -> dict[str, _Value]:
        """What `__init__` called with its literal defaults leaves in `self.x`, for the attributes
        that follow from those defaults, that no other method of the class (or a subclass in the
        file) sets, where no call in the file builds the class with another value of them."""
        cached = self._defaults.get(id(cls.node))
        if cached is not None:
            return cached
        found: dict[str, _Value] = {}
        init = cls.methods.get("__init__")
        if init is not None:
            defaults = {
                p.name.value: literal_value(p.default) for p in all_params(init.params) if p.default is not None
            }
            env: dict[str, _Value | None] = {p.name.value: None for p in all_params(init.params)}
            env.update({name: _Value(value, frozenset({name})) for name, value in defaults.items()
                        if value is not UNKNOWN})
            run = _DefaultRun(self, cls, {})
            outcome = run.block(init.body, env)
            if outcome is None or outcome[0] == "return":
                elsewhere = self._set_elsewhere(cls)
                found = {
                    name: value for name, value in run.attributes.items()
                    if value is not None and value.arguments and name not in elsewhere
                    and not any(self._built_with(cls, argument, defaults[argument]) for argument in value.arguments)  # type: ignore[arg-type]
                }
        self._defaults[id(cls.node)] = found
        return found

    def _set_elsewhere(self, cls: ModuleClass) -> set[str]:
        """The attributes `self.x` a method of `cls` other than `__init__`, or a method of a
        subclass in the file, assigns."""
        name = cls.node.name.value
        methods = [m for n, m in cls.methods.items() if n != "__init__"] + [
            method for info in self.classes.values() if name in info.bases for method in info.methods.values()
        ]
        return {
            target.attr.value for method in methods for statement in walk_statements(method.body)
            for target in _assigned_targets(statement)
            if isinstance(target, cst.Attribute) and dotted(target.value) == "self"
        }

    def _field_switch(self, test: cst.BaseExpression, func: cst.FunctionDef) -> tuple[str | None, str | None]:
        """`if self.enable_fusion:` where `__init__` copied it from `config.enable_fusion` (or `if
        self.config.enable_fusion:`, see _holds_config): why the
        body, and why the `else`, runs only with a configuration other than the default (None: the
        default runs it, or the default is unknown). The default is the literal one of the config
        class `__init__`'s `config` is annotated with (this file's or, through the project index,
        another file's), else _OFF_BY_DEFAULT's."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        flag = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
        cls = self._class_of.get(id(func))
        if cls is not None and isinstance(test, cst.Comparison):
            return self._compared_switch(test, cls)
        if cls is None or not isinstance(flag, cst.Attribute):
            return None, None
        name = flag.attr.value
        written = dotted(flag.value)
        if written == "self" and name not in self._config_copies(cls) and name in (
            switches := _argument_switches(cls.methods.get("__init__"))
        ) and not self._built_with(cls, name, switches[name]):
            return _switched(f"`{name}=True`", f"`{name}=False`", f"`__init__` defaults `{name}` to", switches[name],
                             negated)
        if not (
            (written == "self" and name in self._config_copies(cls))
            or (written == "self.config" and self._holds_config(cls))  # `if self.config.use_fusion:`
        ):
            return None, None
        known = self._config_default(cls, name)
        if known is None:
            if name not in _OFF_BY_DEFAULT or negated:
                return None, None
            known = ("", False)
        owner, default = known
        where = f" (`{owner}`)" if owner else ""
        said = f"the default configuration{where} sets it to {default!r}"
        if isinstance(default, bool):
            on, off = f"only with `config.{name}=True`: {said}", f"only with `config.{name}=False`: {said}"
        else:
            on, off = f"only with a true `config.{name}`: {said}", f"only with a false `config.{name}`: {said}"
        # the body runs when the flag is true (false under `not`); the `else` in the other case
        body_needs_true = not negated
        if bool(default) is body_needs_true:
            return None, (off if body_needs_true else on)
        return (on if body_needs_true else off), None

    def _compared_switch(self, test: cst.Comparison, cls: ModuleClass) -> tuple[str | None, str | None]:
        """`if self.max_keypoints >= 0:` where `self.max_keypoints` is a copied config field with
        an integer default (-1): (why the body, why the `else` runs only with another value), as
        _config_switch."""
        if len(test.comparisons) != 1 or not isinstance(test.left, cst.Attribute):
            return None, None
        compare = _COMPARE.get(type(test.comparisons[0].operator))
        if compare is None:
            return None, None
        fields: list[tuple[str, str, int]] = []
        left = self._default_int(test.left, cls, fields)
        right = self._default_int(test.comparisons[0].comparator, cls, fields) if left is not None else None
        if right is None or not fields:
            return None, None
        name, owner, default = fields[0]
        where = f" (`{owner}`)" if owner else ""
        said = f"the default configuration{where} sets `{name}` to {default}"
        if compare(left, right):
            return None, f"only with a `config.{name}` where `{code_of(test)}` is false: {said}"
        return f"only with a `config.{name}` where `{code_of(test)}`: {said}", None

    def _empty_by_default(self, loop: cst.For, func: cst.FunctionDef) -> str | None:
        """Why the body of `for i in range(1, self.merger_times):` runs only with a configuration
        other than the default, where `self.merger_times` is a copied config field (see
        _config_switch) whose default (1) leaves the range empty: a default export runs no
        iteration. None when the range's bounds are not integer literals and such fields, or
        the default range is not empty."""
        call = loop.iter
        if not (
            isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range"
            and 1 <= len(call.args) <= 2 and all(arg.keyword is None and not arg.star for arg in call.args)
        ):
            return None
        cls = self._class_of.get(id(func))
        if cls is None:
            return None
        fields: list[tuple[str, str, int]] = []
        bounds = [self._default_int(arg.value, cls, fields) for arg in call.args]
        if not fields or any(bound is None for bound in bounds):
            return None
        start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
        if start < stop:  # type: ignore[operator]
            return None
        name, owner, default = fields[0]
        where = f" (`{owner}`)" if owner else ""
        return (
            f"only with a larger `config.{name}`: the default configuration{where} sets it to {default}, "
            f"which leaves `{code_of(call)}` empty"
        )

    def _default_int(
        self, expr: cst.BaseExpression, cls: ModuleClass, fields: list[tuple[str, str, int]]
    ) -> int | None:
        """The value of an integer literal, of `self.x` (or `self.config.x`) for a config field
        with an integer default, or of `+`/`-` of those, under the default configuration; each
        field read is added to `fields` as (name, configuration class, default)."""
        if isinstance(expr, cst.Integer) or (
            isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer)
        ):
            value = literal_value(expr)
            return value if type(value) is int else None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
            left, right = self._default_int(expr.left, cls, fields), self._default_int(expr.right, cls, fields)
            if left is None or right is None:
                return None
            return left + right if isinstance(expr.operator, cst.Add) else left - right
        if not isinstance(expr, cst.Attribute):
            return None
        name, written = expr.attr.value, dotted(expr.value)
        if not (
            (written == "self" and name in self._config_copies(cls))
            or (written == "self.config" and self._holds_config(cls))
        ):
            return None
        known = self._config_default(cls, name)
        if known is None or type(known[1]) is not int:
            return None
        fields.append((name, known[0], known[1]))
        return known[1]

    def _built_with(
        self, cls: ModuleClass, argument: str, default: Scalar, outer: frozenset[int] = frozenset()
    ) -> bool:
        """Whether a call in this file builds `cls` passing `argument` something other than its
        default (`Block(dim, upsample=True)` in a parent's `__init__`): then the default export
        runs that block with the other value, and `if self.upsample:` is no switch. A parent's
        own `__init__` argument with the same default, passed on (`Transformer(dim,
        layer_dropout)` in xcit's `__init__(..., layer_dropout=0.)`), is the default too, unless
        the parent is built with another value (`outer`: the classes asked about already)."""
        init = cls.methods.get("__init__")
        if init is None or id(cls.node) in outer:
            return True
        params = [p.name.value for p in init.params.params]
        position = params.index(argument) - 1 if argument in params else None  # after `self`
        for call in self._constructions().get(cls.node.name.value, ()):
            for index, arg in enumerate(call.args):
                if arg.star:
                    return True  # `*args` / `**kwargs`: what it passes is unknown
                passed = arg.keyword.value == argument if arg.keyword is not None else index == position
                value = literal_value(arg.value)
                same = type(value) is type(default) and value == default
                outer_now = outer | {id(cls.node)}
                if passed and not same and not self._passes_own_default(call, arg.value, default, outer_now):
                    return True
        return False

    def _passes_own_default(
        self, call: cst.Call, value: cst.BaseExpression, default: Scalar, outer: frozenset[int]
    ) -> bool:
        """`value` is an argument of the `__init__` that makes `call`, which defaults to `default`,
        is never rebound there, and no call of the file builds that class with another value; or
        one of a free function of the file that builds it (torchtune's `prepare_layer_dropout(...,
        disable_on_eval=True)` building `LayerDropout(prob, disable_on_eval=disable_on_eval)`),
        which no call of the file passes another value."""
        owner = self._call_owner.get(id(call))
        parent = self._class_of.get(id(owner)) if owner is not None else None
        builder = owner is not None and parent is None and self.functions.get(owner.name.value) is owner
        if type(value) is not cst.Name or owner is None or not (
            builder or (parent is not None and owner is parent.methods.get("__init__"))
        ):
            return False
        name = value.value
        param = next((p for p in all_params(owner.params) if p.name.value == name and p.default is not None), None)
        own = literal_value(param.default) if param is not None else UNKNOWN
        if type(own) is not type(default) or own != default or rebinds(owner, name):
            return False
        if parent is not None:
            return not self._built_with(parent, name, default, outer)
        positional = [p.name.value for p in (*owner.params.posonly_params, *owner.params.params)]
        slots = {name, str(positional.index(name))} if name in positional else {name}
        for other in self._constructions().get(owner.name.value, ()):
            literals = _call_literals(self._default_run(other), other)
            if "*" in literals or any(literals.get(slot, [default]) != [default] for slot in slots):
                return False
        return True

    def _constructions(self) -> dict[str, list[cst.Call]]:
        """Calls in this file's functions and methods, by the last name of what they call (found
        once per file, and only for a file with an argument switch)."""
        if self._calls_by_name is None:
            found: dict[str, list[cst.Call]] = {}
            bodies = [*self.functions.values(), *(
                method for info in self.classes.values() for method in info.methods.values()
            )]
            reads: dict[str, int] = {}
            for func in bodies:
                calls, names = _CALLS_AND_READS(func.body)
                for name, listed in calls.items():
                    found.setdefault(name, []).extend(listed)
                    for call in listed:
                        self._call_owner[id(call)] = func
                for name, count in names.items():
                    reads[name] = reads.get(name, 0) + count
            self._calls_by_name, self._name_reads = found, reads
        return self._calls_by_name

    def _config_copies(self, cls: ModuleClass) -> frozenset[str]:
        """`x` of `self.x = config.x` (or `self.config.x`) in `cls`'s `__init__`, where nothing
        else there sets `self.x`."""
        cached = self._copies.get(id(cls.node))
        if cached is None:
            init = cls.methods.get("__init__")
            copies: set[str] = set()
            others: set[str] = set()
            for statement in walk_statements(init.body) if init is not None else ():
                if isinstance(statement, cst.Assign):
                    targets = [dotted(t.target) for t in statement.targets]
                elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
                    targets = [dotted(statement.target)]
                else:
                    continue
                value = statement.value
                for target in targets:
                    if (
                        isinstance(statement, cst.Assign) and isinstance(value, cst.Attribute)
                        and target == f"self.{value.attr.value}" and target.removeprefix("self.") not in copies
                        and dotted(value.value) in ("config", "self.config")
                    ):
                        copies.add(value.attr.value)
                    elif target is not None and target.startswith("self."):
                        others.add(target.removeprefix("self."))
            cached = self._copies[id(cls.node)] = frozenset(copies - others)
        return cached

    def _holds_config(self, cls: ModuleClass) -> bool:
        """`self.config` of `cls` is the `config` its `__init__` takes: stored there (`self.config =
        config`) or by a library base (transformers' `PreTrainedModel.__init__(config)`), and
        never set to anything else."""
        known = self._holds.get(id(cls.node))
        if known is None:
            known = self._holds[id(cls.node)] = _stores_config(cls.methods.get("__init__"))
        return known

    def _config_default(self, cls: ModuleClass, name: str) -> tuple[str, Scalar] | None:
        """The configuration class `cls` is built from and its default for `name`: the class
        `__init__`'s `config` is annotated with (None when that class is not known), else every
        known configuration class that has the field, when they agree (None: unknown, or they disagree)."""
        known = {**self.context.config_defaults(), **self.config_classes}
        init = cls.methods.get("__init__")
        params = all_params(init.params) if init is not None else iter(())
        param = next((p for p in params if p.name.value == "config"), None)
        if param is not None and param.annotation is not None:
            candidates = sorted(annotation_names(param.annotation) & set(known))
        else:
            candidates = sorted(written for written, fields in known.items() if name in fields)
        values = {known[written][name] for written in candidates if name in known[written]}
        if len(values) != 1 or not all(name in known[written] for written in candidates):
            return None
        return (candidates[0] if len(candidates) == 1 else ""), values.pop()

    def config_default(self, cls: ModuleClass, name: str) -> Scalar | None:
        """The default of the configuration field `name` for the class `cls` is built from (see
        `_config_default`): a buffer's length read from it (`torch.arange(config.n)`)."""
        found = self._config_default(cls, name)
        return found[1] if found is not None else None

    @property
    def config_classes(self) -> ConfigDefaults:
        """The file's configuration classes (`FooConfig`) with their fields' literal defaults."""
        if self._config_classes is None:
            self._config_classes = {
                name: fields for name, node in sorted(self._file_classes.items())
                if name.endswith("Config") and (fields := _literal_fields(node))
            }
        return self._config_classes

    def config_switches(self) -> list[str]:
        """The configuration fields traced code branches on: `if self.x:` where `__init__` copies
        `config.x` to `self.x`, or `if self.config.x:` where `self.config` is the config."""
        found: set[str] = set()
        for item in self.traced:
            cls = self._class_of.get(id(item.func))
            if cls is None:
                continue
            for node, _ in self.nodes(item.func):
                if type(node) is cst.For and isinstance(node.iter, cst.Call):  # type: ignore[attr-defined]
                    # `for i in range(1, self.merger_times):` (see _empty_by_default)
                    found.update(
                        read.attr.value for arg in node.iter.args  # type: ignore[attr-defined]
                        for read in iter_nodes(arg.value) if isinstance(read, cst.Attribute)
                        and ((dotted(read.value) == "self" and read.attr.value in self._config_copies(cls))
                             or (dotted(read.value) == "self.config" and self._holds_config(cls)))
                    )
                    continue
                if type(node) is not cst.If:
                    continue
                test = _leftmost(node.test)  # type: ignore[attr-defined]
                if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                    test = test.expression
                if isinstance(test, cst.Comparison):  # `if self.max_keypoints >= 0:` (see _compared_switch)
                    test = test.left
                if not isinstance(test, cst.Attribute):
                    continue
                written, name = dotted(test), test.attr.value
                if (written == f"self.{name}" and name in self._config_copies(cls)) or (
                    written == f"self.config.{name}" and self._holds_config(cls)
                ):
                    found.add(name)
        for info in self.classes.values():  # and the lengths buffers take from it (`arange(config.n)`)
            init_buffers(info.node, self.resolve, found.add)  # type: ignore[arg-type]
        return sorted(found)

    def _mark_training_after_return(self, func: cst.FunctionDef) -> None:
        """What follows `if not self.training: return ...` in its block runs only in training mode
        (an eval export has returned by then); what follows `if retriever is None: return ...`,
        where `retriever` is an optional argument, only when a caller passes it; what follows
        `if self.model_type != "essential": return ...`, true by default, only with another
        configuration (see _config_switch)."""
        for statement in walk_statements(func.body):
            evaluated = _evaluated_expression(statement)
            if evaluated is not None and _rest_evaluated_only_in_training(evaluated):
                # `if not self.training or random.random() > p:`, `keep = self.training and ...`:
                # an eval export short-circuits before the rest of the test
                self.training_only.add(id(statement))
            elif (
                type(evaluated) is cst.BooleanOperation and type(evaluated.operator) is cst.And
                and not isinstance(statement, cst.If)  # an `if` test: see _branch_export_skips
                and (switch := self._config_switch(_leftmost(evaluated), func)[0]) is not None
            ):
                # `flag = self.cond_on_distance and (random() < p)`: a default export stops at the switch
                self.switched.setdefault(id(statement), switch)
        for block in _blocks(func.body):
            for index, statement in enumerate(block.body):
                if not (isinstance(statement, cst.If) and statement.orelse is None and _always_leaves(statement.body)):
                    continue
                if _tests_not_training(statement.test):
                    for later in block.body[index + 1 :]:
                        self.training_only.update(id(inner) for inner in walk_statements(later))
                    break
                in_eval = self._true_in_eval_by_default(statement.test, func)
                if in_eval is not None:
                    for later in block.body[index + 1 :]:
                        for inner in walk_statements(later):
                            self.switched.setdefault(id(inner), in_eval)
                    break
                optional = self._optional_when_false(statement.test, func)
                if optional is not None:
                    for later in block.body[index + 1 :]:
                        for inner in walk_statements(later):
                            self.optional_only.setdefault(id(inner), optional)
                    break
                _, otherwise = self._config_switch(statement.test, func)
                if otherwise is not None:  # `if self.model_type != "essential": return` by default
                    for later in block.body[index + 1 :]:
                        for inner in walk_statements(later):
                            self.switched.setdefault(id(inner), otherwise)
                    break

    def _true_in_eval_by_default(self, test: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
        """Why `test` may be False in an eval export (None: it may be so by default), where an
        operand of its `or` chain is `not self.training` alone or with switches the default
        leaves on (torchtune's LayerDropout: `if self.prob == 0 or (self.disable_on_eval and
        self.training is False): return ...`, `disable_on_eval=True` by default; measured on torch
        2.13: built with any `prob`, the eval module exports in both modes, and fails both with
        `disable_on_eval=False`): what follows `if test: return` runs only with another
        configuration or in training mode."""
        for disjunct in _conjuncts(test, cst.Or):
            conjuncts = list(_conjuncts(disjunct))
            if not any(_tests_not_training(part) for part in conjuncts):
                continue
            reasons = [self._config_switch(part, func)[1] for part in conjuncts if not _tests_not_training(part)]
            if all(reasons):
                said = "; ".join(reason for reason in reasons if reason)
                return f"{said}, or when exporting in training mode" if said else None
        return None

    def _optional_when_false(self, test: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
        """The optional argument that `test` is True without (`x is None`, `not x`, or either
        operand of an `or` of such tests: `if input_ids is None or grid is None: return`): the
        code after `if test: return` runs only when a caller passes it."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
            return self._optional_when_false(test.left, func) or self._optional_when_false(test.right, func)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            present: cst.BaseExpression = test.expression
        elif (
            isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Is)
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"
        ):
            present = test.with_changes(
                comparisons=[test.comparisons[0].with_changes(operator=cst.IsNot())]
            )
        else:
            return None
        return self._optional(present, func)

    def _optional(self, test: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
        """The optional argument `test` checks for in `func` (see _optional_argument), unless
        every call of `func` passes it (see _mark_none_from_callers)."""
        name = _optional_argument(
            test, func, self._flags, self._passed_by_parent(func), self._reasons(func),
            self._attributes_maybe_none(func), self._none_params.get(id(func), {}),
        )
        return None if name in self._passed_params.get(id(func), ()) else name

    def _calls_a_training_test(self, test: cst.BaseExpression, func: cst.FunctionDef) -> bool:
        """`self.should_update(epoch)`, alone or as an operand of `and`, where every `return` of
        the method is a training test (`return still_training and self.training`, speechbrain's
        InputNormalization): the body runs only in training mode."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._calls_a_training_test(test.left, func) or self._calls_a_training_test(test.right, func)
        if not isinstance(test, cst.Call):
            return False
        helper = self.helper_for(self._class_of.get(id(func)), test.func)
        if helper is None:
            return False
        returns = [node for node in body_nodes(helper.func.body) if type(node) is cst.Return]
        return bool(returns) and all(
            ret.value is not None and _tests_training(ret.value) for ret in returns  # type: ignore[attr-defined]
        )

    def _branch_export_skips(self, node: cst.If, func: cst.FunctionDef) -> tuple[cst.CSTNode, ...]:
        """The branch of `node` export never runs (left out of the walk: nothing there is
        traced), and, as a side effect, the statements only a training-mode export runs."""
        verdict = self._while_exporting(node.test, func)
        self._mark_unevaluated(node.test, func)
        if verdict is False:
            return (node.body,)
        if verdict is True:
            return (node.orelse,) if node.orelse is not None else ()
        if _tests_training(node.test) or self._calls_a_training_test(node.test, func):
            # statements only (a cheap walk): findings are keyed by their innermost statement
            self.training_only.update(id(statement) for statement in walk_statements(node.body))
        elif _tests_not_training(node.test) and node.orelse is not None:
            # the `else` (or `elif`) of `if not self.training:` runs only in training mode
            self.training_only.update(id(statement) for statement in walk_statements(node.orelse))
        switch, otherwise = self._config_switch(_leftmost(node.test), func)
        if switch is not None:
            for statement in walk_statements(node.body):
                self.switched.setdefault(id(statement), switch)
            if _leftmost(node.test) is not node.test or type(node.test) is cst.Name:
                # `if self.check and x.max().item() > k:` evaluates the rest only under the switch
                self.switched.setdefault(id(node), switch)
        if otherwise is not None and node.orelse is not None and _leftmost(node.test) is node.test:
            # `if self.x and other:` leaves the `else` to either operand: only a lone switch decides it
            self.switched.update((id(s), otherwise) for s in walk_statements(node.orelse) if id(s) not in self.switched)
        self._mark_optional_operands(node.test, func)
        optional = self._optional(_leftmost(node.test), func)
        if optional is not None and (_leftmost(node.test) is not node.test or isinstance(node.test, cst.Name)):
            # the rest of the test, or the bare optional itself (`if guidance:`), is a tensor
            # only when the argument is passed
            self.optional_only.setdefault(id(node), optional)
        elif isinstance(node.test, cst.UnaryOperation) and isinstance(node.test.operator, cst.Not) and (
            negated := self._optional(node.test.expression, func) or _filled_parameter(node, func)
        ) is not None:
            # `if not h:` reads a tensor only when `h` is passed (its body is the default path;
            # `if not h: h = ...` is the fill that makes `h` a tensor after it)
            self.optional_only.setdefault(id(node), negated)
        # the body runs only when every conjunct holds: `n > 1 and speaker_id is not None`
        optional = optional or next(
            (name for part in _conjuncts(node.test) if (name := self._optional(part, func))), None
        )
        if optional is not None:
            for statement in walk_statements(node.body):
                self.optional_only.setdefault(id(statement), optional)
        passed = self._optional_when_none(node.test, func)
        if passed is not None and node.orelse is not None:
            # the `else` of `if weights is None:` runs only when `weights` is passed
            for statement in walk_statements(node.orelse):
                self.optional_only.setdefault(id(statement), passed)
        unset = self._unset_unless_passed(node, func)
        if unset is not None:
            optional, branch = unset
            for statement in walk_statements(branch):
                self.optional_only.setdefault(id(statement), optional)
        return ()

    def _unset_unless_passed(self, node: cst.If, func: cst.FunctionDef) -> tuple[str, cst.BaseSuite] | None:
        """`if grid_size is not None: ... else: B` where `grid_size = None` earlier in the body
        and every path from there that a default export takes sets it (the one path leaving it
        None runs the `else` of `if patch_coord is None:`): B runs only when `patch_coord` is
        passed (timm's NaFlex embedding). The optional argument and the branch where it is None."""
        test = node.test
        if not (
            isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)
            and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
            and dotted(test.comparisons[0].comparator) == "None"
        ):
            return None
        name = test.left.value
        is_none = isinstance(test.comparisons[0].operator, cst.Is)
        branch = node.body if is_none else (node.orelse.body if isinstance(node.orelse, cst.Else) else None)
        if branch is None:
            return None
        body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
        start = next((i for i, s in enumerate(body) if _assigns_none(s, name)), None)
        end = next((i for i, s in enumerate(body) if any(inner is node for inner in walk_statements(s))), None)
        if start is None or end is None or start >= end:
            return None
        if sum(1 for s in walk_statements(func.body) if _assigns_none(s, name)) != 1:
            return None
        names: set[str] = set()
        for statement in body[start + 1 : end]:
            if self._sets_on_default_path(statement, name, func, names):
                return (min(names), branch) if names else None
        return None

    def _sets_on_default_path(self, statement: cst.CSTNode, name: str, func: cst.FunctionDef, names: set[str]) -> bool:
        """Every way a default export runs `statement` assigns `name`; `names` collects the
        optional arguments whose `is None` test decided a branch."""
        if isinstance(statement, cst.SimpleStatementLine):
            return any(_rebinds_in(small, name) for small in statement.body)
        if not isinstance(statement, cst.If):
            return False
        optional = self._optional_when_none(statement.test, func)
        then = _block_sets(statement.body, lambda s: self._sets_on_default_path(s, name, func, names))
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            other = self._sets_on_default_path(orelse, name, func, names)
        elif isinstance(orelse, cst.Else):
            other = _block_sets(orelse.body, lambda s: self._sets_on_default_path(s, name, func, names))
        else:
            other = False
        if optional is not None and then:  # `if patch_coord is None:` takes its body by default
            names.add(optional)
            return True
        return then and other

    def _optional_when_none(self, test: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
        """`x is None` where `x` is an optional argument (its body is what a default export runs)."""
        if (
            isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Is) and dotted(test.comparisons[0].comparator) == "None"
        ):
            present = test.with_changes(comparisons=[test.comparisons[0].with_changes(operator=cst.IsNot())])
            return self._optional(present, func)
        return None

    def _reasons(self, func: cst.FunctionDef) -> dict[str, str]:
        return self._maybe_none.setdefault(id(func), {})

    @property
    def maybe_none(self) -> dict[str, str]:
        """Optional names that are not parameters defaulting to None, with why they may be None;
        a name two functions give different reasons for keeps the first reason in sorted order
        (not the one of the function analysed first)."""
        out: dict[str, str] = {}
        for reasons in self._maybe_none.values():
            for name, why in reasons.items():
                out[name] = min(out.get(name, why), why)
        return out

    def _attributes_maybe_none(self, func: cst.FunctionDef) -> frozenset[str]:
        """`self.x` that `__init__` of `func`'s class sets from an argument defaulting to None."""
        cls = self._class_of.get(id(func))
        init = cls.methods.get("__init__") if cls is not None else None
        return frozenset(self._optional_attributes.get(id(init), ())) if init is not None else frozenset()

    def _passed_by_parent(self, func: cst.FunctionDef) -> bool:
        """`forward` of a class another class of the file builds as a submodule: its arguments after
        the first come from the parent's call, which may pass None where the code tests for it."""
        cls = self._class_of.get(id(func))
        return is_entry_method(func) and cls is not None and cls.node.name.value in self.submodule_classes

    def _mark_optional_operands(self, test: cst.BaseExpression, func: cst.FunctionDef) -> None:
        """`(a is not None and a.any()) or (b is not None and b.any())`: each `.any()` runs only
        when its own optional argument is passed."""
        read = _read_from_optional(test, func)
        if read is not None and read not in self._passed_params.get(id(func), ()):
            # `mm_encoder_outputs.get("image")` of an argument that defaults to None (then `{}`)
            for node in iter_nodes(test):
                self.optional_nodes.setdefault(id(node), read)
            return
        if not isinstance(test, cst.BooleanOperation):
            return
        if isinstance(test.operator, cst.And):
            name = self._optional(_leftmost(test), func)
            if name is not None:
                for node in iter_nodes(test.right):
                    self.optional_nodes.setdefault(id(node), name)
        self._mark_optional_operands(test.left, func)
        self._mark_optional_operands(test.right, func)

    def _mark_side_not_taken(self, node: cst.IfExp, func: cst.FunctionDef) -> None:
        """`1.0 if torch.compiler.is_compiling() else float(t)`: export never evaluates the side
        its guard rules out, and an eval-mode export the side a training test guards; `() if
        (output_attentions and is_global_attn) else None`: the body runs only where the optional
        operands are given."""
        taken = self._while_exporting(node.test, func) if self.mentions_guards else None
        if taken is not None:
            self.unevaluated.update(id(inner) for inner in iter_nodes(node.orelse if taken else node.body))
        elif _tests_training(node.test):  # `float(t.max()) if self.training else 1.0`
            self.training_only_nodes.update(id(inner) for inner in iter_nodes(node.body))
        elif _tests_not_training(node.test):
            self.training_only_nodes.update(id(inner) for inner in iter_nodes(node.orelse))
        self._mark_unevaluated(node.test, func)
        if type(node.test) is cst.BooleanOperation:
            self._mark_optional_operands(node.test, func)

    def _mark_unevaluated(self, test: cst.BaseExpression, func: cst.FunctionDef) -> None:
        """`A and B` where A is False while exporting (`A or B`: True): export never evaluates B."""
        while isinstance(test, cst.BooleanOperation):
            left = self._while_exporting(test.left, func)
            if left is (False if isinstance(test.operator, cst.And) else True):
                self.unevaluated.update(id(node) for node in iter_nodes(test.right))
            test = test.left

    def _while_exporting(self, test: cst.BaseExpression, func: cst.FunctionDef | None = None) -> bool | None:
        """The value of `test` while torch.export traces, where it is known: the guards code
        writes around export (measured on torch 2.13: `torch.compiler.is_exporting()` is True,
        `torch.jit.is_scripting()`/`is_tracing()` and `torch.onnx.is_in_onnx_export()` are False,
        in both modes)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._while_exporting(test.expression, func)
            return None if inner is None else not inner
        if isinstance(test, cst.BooleanOperation):
            left, right = self._while_exporting(test.left, func), self._while_exporting(test.right, func)
            if isinstance(test.operator, cst.And):
                return False if False in (left, right) else (True if left is right is True else None)
            return True if True in (left, right) else (False if left is right is False else None)
        if isinstance(test, cst.Call):
            known = self.called_guard(test.func)
            wrapper = self.functions.get(test.func.value) if isinstance(test.func, cst.Name) else None
            if known is None and wrapper is not None:
                return self.guard_wrapper(wrapper)
            return known
        if isinstance(test, cst.Name) and func is not None and self.mentions_guards:
            return self._guard_flag(test.value, func)
        if _tests_half_precision(test, self):
            return False  # a default export is fp32
        return None

    def _guard_flag(self, name: str, func: cst.FunctionDef) -> bool | None:
        """The value while exporting of a local `func` binds once to a test of export guards
        (`is_tracing = torch.jit.is_tracing() or torch.compiler.is_compiling()`), where an `|=`
        (`&=`) after cannot change a True (False) one: transformers' `is_tracing` helper."""
        key = (id(func), name)
        if key in self._guard_flags:
            return self._guard_flags[key]
        self._guard_flags[key] = None  # `a = not b`, `b = not a`: neither is known
        value, augmented = _bound_once_then_augmented(func, name)
        known = self._while_exporting(value, func) if value is not None else None
        for statement in augmented:
            kept = _KEPT_BY.get(type(statement.operator))
            if known is None or known is kept:
                continue  # `flag |= ...` after a True
            operand = self._while_exporting(statement.value, func) if kept is not None else None
            # `flag |= guard` on the function's own level: it runs on every path
            lines = [line for line in func.body.body if isinstance(line, cst.SimpleStatementLine)]
            top_level = any(statement in line.body for line in lines)
            known = operand if top_level and operand is kept else (known if top_level and operand is known else None)
        self._guard_flags[key] = known
        return known

    def guard_wrapper(self, func: cst.FunctionDef) -> bool | None:
        """What a function of the file returns while exporting, whatever its arguments, where
        export guards decide it (`def is_exporting(): return torch.compiler.is_exporting()`, or
        behind `if torch.jit.is_scripting(): return False`; `if x.numel() == 0 or is_compiling():
        return False` before reading data); None: it is no such function."""
        key = id(func)
        if key not in self._wrappers:
            self._wrappers[key] = None  # a wrapper calling itself is none
            run = _DefaultRun(self, None, {})
            known = run.call(func, None, {}, defaults=False)
            self._wrappers[key] = bool(known.value) if known is not None and run.read_guard else None
        return self._wrappers[key]

    def called_guard(self, func: cst.BaseExpression) -> bool | None:
        """What a call of `func` returns while exporting, whatever its arguments, where that is
        known from outside the file's functions: an export guard, a module-level name bound to one
        (`_is_compiling = getattr(torch.compiler, "is_compiling", None)`), or a function of another
        file the project index says export guards decide (`from .utils import is_exporting`)."""
        known = export_guard(self.qualified(func))
        if known is None and isinstance(func, cst.Name) and func.value in self.guard_aliases:
            known = export_guard(self.guard_aliases[func.value])
        if known is None and self.context.exporting and (written := dotted(func)) is not None:
            known = self.context.while_exporting(written)
        return known

    @property
    def guard_aliases(self) -> dict[str, str]:
        """Module-level names bound once to an export guard -> its qualified name:
        `_is_compiling = torch.compiler.is_compiling`, or `getattr(torch.compiler, "is_compiling",
        None)` (not None on torch 2.13), where an `or` falls back to another spelling."""
        if self._guard_aliases is None:
            bound: dict[str, list[cst.BaseExpression | None]] = {}  # anywhere in the file: bound once
            for statement in walk_statements(cst.IndentedBlock(body=self.module.body)):
                value = statement.value if isinstance(statement, (cst.Assign, cst.AnnAssign)) else None
                for target in _assigned_targets(statement):
                    if isinstance(target, cst.Name):
                        bound.setdefault(target.value, []).append(value)
            self._guard_aliases = {
                name: guard for name, (value, *others) in bound.items()
                if not others and value is not None and (guard := self._guard_named(value)) is not None
            }
        return self._guard_aliases

    def _guard_named(self, value: cst.BaseExpression) -> str | None:
        """The export guard `value` names: `torch.compiler.is_compiling`, `getattr(torch.compiler,
        "is_compiling", None)`, the first operand of an `or` of them."""
        while isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
            value = value.left
        if isinstance(value, cst.Call) and dotted(value.func) == "getattr" and "getattr" not in self.functions:
            if len(value.args) < 2 or not isinstance(attribute := value.args[1].value, cst.SimpleString):
                return None
            owner = self.resolve(value.args[0].value)
            qualified = f"{owner}.{attribute.evaluated_value}" if owner else ""
        else:
            qualified = self.resolve(value) or ""
        return qualified if export_guard(qualified) is not None else None

    def while_exporting(self, test: cst.BaseExpression) -> bool | None:
        """The value of `test` while torch.export traces, where a guard makes it known."""
        return self._while_exporting(test) if self.mentions_guards else None

    def helper_for(self, cls: ModuleClass | None, func: cst.BaseExpression) -> Traced | None:
        """The in-file function a call reaches: `self.method(...)` or `helper(...)`."""
        if type(func) is cst.Name:  # exact type: ABC isinstance is slow, and this is hot
            fn = self.functions.get(func.value)
            return Traced(fn, None) if fn is not None else None
        if (
            cls is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            method = self._method(cls, func.attr.value)
            if method is not None:
                return Traced(method, self._class_of.get(id(method), cls))
        return None

    def _method(self, cls: ModuleClass, name: str) -> cst.FunctionDef | None:
        seen: set[str] = set()
        queue = [cls]
        while queue:
            current = queue.pop(0)
            if current.node.name.value in seen:
                continue
            seen.add(current.node.name.value)
            if name in current.methods:
                return current.methods[name]
            queue.extend(self.classes[b] for b in current.bases if b in self.classes)
        return None


#: why a callee runs only in training (`switched_callees`): a function of another file that traced
#: code calls only there (monai's `compute_loss` -> `BoxCoder.encode_single`) is training-only code
TRAINING_CALL = "training mode"

#: the rules whose error is a failure on every run that reaches it: a branch on a value read from
#: tensor data (measured on torch 2.13, both modes). A size test (XPT105) or a loop over a
#: data-dependent count may pass where torch knows a bound (torchvision's `batched_nms` after a
#: top-n filter passes `boxes.numel() > 4000` and fails later): code after one may still run
CERTAIN_FAILURES = frozenset({"XPT101", "XPT102", "XPT103", "XPT104"})

#: how `after_failure` starts: a condition of code export never reaches, an earlier failure on its way
AFTER_FAILURE = "only after "


def after_failure(path: str, line: int) -> str:
    """Why a function of another file that traced code calls only after a statement where export
    fails (kornia's DEGENSAC helpers, called by RANSAC after `bool(finite.any())`) is not where
    export fails: it stops at that statement and never calls it."""
    return f"{AFTER_FAILURE}{path}:{line}, whose failure export meets first on the way here"


class AfterFailure:
    """What export never runs of a file because it stops first at a statement where it fails on
    every run that reaches it (the file's errors of CERTAIN_FAILURES). Built from those once the
    severity policy knows them (severity.after_failures), so nothing can ask before."""

    def __init__(self, reach: FileReach, failing: Mapping[int, str]) -> None:
        """`failing`: ids of those statements of traced functions, with what `after_failure` says."""
        self.failing = failing
        self._reach = reach
        #: per traced function: its `failing` statements, in order (see after_failing)
        self._failing_in: dict[int, list[tuple[cst.CSTNode, str]]] = {}

    def after_failing(self, func: cst.FunctionDef, statement: cst.CSTNode) -> str | None:
        """Why export never runs `statement` of traced `func`: a statement where it fails runs
        before it on every path (`after_failure`, the first such in the body), else None."""
        return next(
            (
                why for earlier, why in self._failing_of(func)
                if earlier is not statement and self._reach.runs_before(func, earlier, statement)
            ),
            None,
        )

    def _failing_of(self, func: cst.FunctionDef) -> list[tuple[cst.CSTNode, str]]:
        """The `failing` statements of traced `func`, in order, with why (listed once)."""
        failing = self._failing_in.get(id(func))
        if failing is None:
            failing = self._failing_in[id(func)] = [
                (statement, why) for node, statement in self._reach.nodes(func)
                if node is statement and (why := self.failing.get(id(statement))) is not None
            ]
        return failing

    @functools.cached_property
    def reached_after(self) -> dict[int, str]:
        """The traced functions of the file that export reaches only through calls made after a
        statement where it fails (kornia's `RANSAC._degensac_batch`, called after
        `bool(finite.any())`), by id, with why; their callees that nothing else reaches too."""
        reach = self._reach
        # per traced function holding a failing statement: its calls' statements
        statements: dict[int, dict[int, cst.CSTNode]] = {}
        for item in reach.traced:
            if self._failing_of(item.func):
                statements[id(item.func)] = {id(n): s for n, s in reach.nodes(item.func) if type(n) is cst.Call and s}
        after_calls: dict[tuple[int, int], str] = {}
        made_before: set[tuple[int, int]] = set()
        for callee, sites in reach._call_sites.items():
            for caller, call in sites:
                statement = statements.get(id(caller), {}).get(id(call))
                why = self.after_failing(caller, statement) if statement is not None else None
                if why is None:
                    made_before.add((id(caller), callee))
                else:  # the first in sorted order, whichever call the walk met first
                    after_calls[(id(caller), callee)] = min(after_calls.get((id(caller), callee), why), why)
        after_only = {pair: why for pair, why in after_calls.items() if pair not in made_before}
        if not after_only:
            return {}
        always = _closure(reach._roots, reach._edges, lambda caller, callee: (caller, callee) not in after_only)
        return _inherited([(callee, why) for (_, callee), why in after_only.items()], always, reach._edges)


#: why an `except` handler's code runs only off the default path: it runs only when the `try` body
#: raises, which a body that cannot fail on the example never does (measured on torch 2.13, both
#: modes: `try: x.index_select(0, idx) except (IndexError, RuntimeError): if idx.max() >= n: raise`
#: exports; tests/truth/test_except_handlers.py). Non-strict export also runs it when the body's
#: own data-dependent test fails and the handler catches that RuntimeError (that test is reported)
HANDLER_ONLY = (
    "only if the `try` body raises (an `except` handler; non-strict export also runs it when it catches "
    "a data-dependent failure of the body)"
)

#: exceptions that signal a failed operation (bad input, an invalid index, a failed check), which a
#: body that runs on the example does not raise; a handler of anything else (`KeyError` of a cache
#: miss, `AttributeError` of an unset attribute, `StopIteration`, `ImportError`) may run on the
#: default path
_FAILURES = frozenset({
    "Exception", "BaseException", "RuntimeError", "IndexError", "ValueError", "TypeError", "AssertionError",
    "ZeroDivisionError", "ArithmeticError", "OverflowError",
})

#: the methods of a string _DefaultRun evaluates (no arguments)
_STRING_METHODS = frozenset({"lower", "upper", "strip", "casefold"})

#: the most combinations of literal arguments _argument_switch evaluates a test for
_MAX_COMBINATIONS = 16

#: what a call returns while torch.export traces, in both modes (measured on torch 2.13, see
#: tests/truth/test_reachability.py); transformers' helpers wrap `torch.compiler.is_compiling()`
#: and `is_exporting()` (utils/import_utils.py), re-exported from `transformers.utils`
_EXPORT_GUARDS = {
    "torch.compiler.is_exporting": True,
    "torch.compiler.is_compiling": True,
    "torch._dynamo.is_compiling": True,
    "torch.jit.is_scripting": False,
    "torch.jit.is_tracing": False,
    "torch.onnx.is_in_onnx_export": False,
    # the TorchScript tracer's state (None under export, measured), and torchvision's wrapper of it
    "torch._C._get_tracing_state": False,
    "torchvision._is_tracing": False,
}


#: what a Python container is made by: its truth is its length, not its elements' values
_CONTAINERS = (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)


def _literal_fields(node: cst.ClassDef) -> dict[str, Scalar]:
    """A configuration class's fields with a literal default: `enable_fusion: bool = False` in
    its body, or `enable_fusion=False` of its `__init__`'s parameters (the body's come last)."""
    fields: dict[str, Scalar] = {}
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__":
            for param in all_params(statement.params):
                if param.default is not None and (value := literal_value(param.default)) is not UNKNOWN:
                    fields[param.name.value] = value  # type: ignore[assignment]
    for statement in node.body.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
                value = literal_value(small.value)
                if value is not UNKNOWN:
                    fields[small.target.value] = value  # type: ignore[assignment]
    return fields



#: the integer comparisons _compared_switch evaluates
_COMPARE: dict[type, Callable[[int, int], bool]] = {
    cst.GreaterThan: lambda a, b: a > b, cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.LessThan: lambda a, b: a < b, cst.LessThanEqual: lambda a, b: a <= b,
    cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b,
}


def _argument_switches(init: cst.FunctionDef | None) -> dict[str, bool]:
    """`x` of `self.x = x` in `init`, for an argument `x` defaulting to True or False that nothing
    else in `init` rebinds, and `self.x` set nowhere else there: a switch whose default the model's
    own signature states (`def __init__(self, debug=False)`)."""
    if init is None:
        return {}
    flags = {
        p.name.value: p.default.value == "True" for p in all_params(init.params)
        if isinstance(p.default, cst.Name) and p.default.value in ("True", "False")
    }
    stored: dict[str, int] = {}
    for statement in walk_statements(init.body):
        if isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
            targets = [statement.target]
        else:
            continue
        for target in targets:
            if isinstance(target, (cst.Name, cst.Tuple, cst.List)):
                for name in iter_nodes(target):  # the argument rebound before it is stored (or unpacked)
                    if isinstance(name, cst.Name):
                        flags.pop(name.value, None)
            elif (written := dotted(target)) is not None and written.startswith("self."):
                attribute = written.removeprefix("self.")
                copied = isinstance(statement, cst.Assign) and dotted(statement.value) == attribute
                stored[attribute] = stored.get(attribute, 0) + (1 if copied else 2)
    return {name: default for name, default in flags.items() if stored.get(name) == 1}


def _switched(on: str, off: str, said: str, default: bool, negated: bool) -> tuple[str | None, str | None]:
    """(why the body runs only with a non-default switch, the same for the `else`) of `if flag:`
    (`if not flag:` when `negated`), `flag` defaulting to `default`."""
    body_needs_true = not negated
    reason_on, reason_off = f"only with {on}: {said} {default}", f"only with {off}: {said} {default}"
    if default is body_needs_true:
        return None, (reason_off if body_needs_true else reason_on)
    return (reason_on if body_needs_true else reason_off), None


def _stores_config(init: cst.FunctionDef | None) -> bool:
    """`init` takes `config` and sets `self.config` to nothing else."""
    if init is None or not any(p.name.value == "config" for p in all_params(init.params)):
        return False
    for statement in walk_statements(init.body):
        if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
            if any(dotted(t) == "self.config" for t in targets) and not (
                isinstance(statement, cst.Assign) and dotted(statement.value) == "config"
            ):
                return False
    return True


#: configuration flags that turn on training-only code and default to off (transformers'
#: OneFormerConfig and the Mask2Former family: `is_training=False`), copied to `self` in `__init__`
_OFF_BY_DEFAULT = frozenset({"is_training"})


_EXPERTS_SWITCHES = frozenset({
    "transformers.integrations.use_experts_implementation",
    "transformers.integrations.moe.use_experts_implementation",
})


_LIBRARY_GUARDS = {
    "transformers.utils": ("is_torchdynamo_compiling", "is_torchdynamo_exporting", "is_tracing"),
    "transformers.utils.import_utils": ("is_torchdynamo_compiling", "is_torchdynamo_exporting", "is_tracing"),
}


def export_guard(qualified: str) -> bool | None:
    """The value of a call of `qualified` while exporting, where it is known."""
    known = _EXPORT_GUARDS.get(qualified)
    if known is None:
        module, _, name = qualified.rpartition(".")
        if name in _LIBRARY_GUARDS.get(module, ()):
            return True
    return known


_HALF_PRECISION = frozenset({"torch.float16", "torch.half", "torch.bfloat16"})


def _tests_half_precision(test: cst.BaseExpression, program: FileSymbols) -> bool:
    """`x.dtype == torch.float16`: false in a default (fp32) export, so what it guards, and
    what follows it in an `and`, never runs there (fp16 overflow clamps in T5-style blocks)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    return (
        isinstance(target.operator, (cst.Equal, cst.Is))
        and isinstance(test.left, cst.Attribute)
        and test.left.attr.value == "dtype"
        and program.resolve(target.comparator) in _HALF_PRECISION
    )


def _tests_training(test: cst.BaseExpression) -> bool:
    """`self.training`, alone or as an operand of `and` (its body runs only in training mode)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _tests_training(test.left) or _tests_training(test.right)
    return (
        isinstance(test, cst.Attribute)
        and test.attr.value == "training"
        and isinstance(test.value, cst.Name)
        and test.value.value == "self"
    )


def _catches_only_failures(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """`except:` or a handler whose every exception is a failure (see _FAILURES): its code runs
    only when the `try` body fails."""
    if handler.type is None:
        return True
    kinds = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    return all((dotted(kind) or "").rpartition(".")[2] in _FAILURES for kind in kinds)


def _wraps_forward(call: cst.FunctionDef) -> bool:
    """A `__call__` override that runs the module's `forward` (`super().__call__(...)`,
    `self.forward(...)`): calling the module, as export does, runs it with the module's arguments.
    One that never does is a callable of its own (diffusers' attention processors, called with the
    `Attention` module first; speechbrain's CTC beam searchers), no module an export calls."""
    return any(
        type(node) is cst.Call and callee_text(node.func) in ("super().__call__", "self.forward")  # type: ignore[attr-defined]
        for node in iter_nodes(call.body)
    )


def _takes_a_session(forward: cst.FunctionDef) -> bool:
    """A `forward` with an argument annotated as an inference session (transformers' SAM2/SAM3/
    EdgeTAM video models: `inference_session: Sam2VideoInferenceSession`): export rejects such a
    Python object among its inputs before tracing anything (measured on 2.13, both modes), so
    this `forward` is no export entry."""
    return any(
        param.annotation is not None and (dotted(param.annotation.annotation) or "").endswith("InferenceSession")
        for param in all_params(forward.params)
    )


def _evaluated_expression(statement: cst.CSTNode) -> cst.BaseExpression | None:
    """The expression a statement evaluates as a whole: an `if`'s or `while`'s test, an
    assigned, returned or bare expression."""
    if isinstance(statement, (cst.If, cst.While)):
        return statement.test
    if isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Expr)):
        return statement.value
    return None


def _rest_evaluated_only_in_training(test: cst.BaseExpression) -> bool:
    """`self.training and <rest>` or `not self.training or <rest>` (each operand of the chain
    after the first), negated or not: an eval export's value is decided by the training check,
    <rest> never runs."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if not isinstance(test, cst.BooleanOperation):
        return False
    operator = type(test.operator)
    first = test
    while isinstance(first, cst.BooleanOperation) and type(first.operator) is operator:
        first = first.left
    if operator is cst.And:
        return _tests_training(first)
    return _tests_not_training(first)


def _tests_not_training(test: cst.BaseExpression) -> bool:
    """`not self.training` (`self.training is False`, `self.training == False`): what it guards
    runs in an eval export, its `else` only in training mode."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        return (
            isinstance(target.operator, (cst.Is, cst.Equal)) and dotted(target.comparator) == "False"
            and isinstance(test.left, cst.Attribute) and _tests_training(test.left)
        )
    return (
        isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Attribute) and _tests_training(test.expression)
    )


def _optional_argument(
    test: cst.BaseExpression, func: cst.FunctionDef, flags: dict[int, dict[str, cst.BaseExpression | None]],
    from_parent: bool = False, reasons: dict[str, str] | None = None, attributes: frozenset[str] = frozenset(),
    from_callers: Mapping[str, str] = MappingProxyType({}),
) -> str | None:
    """`name is not None` (or `name` alone) where `name` is a parameter of `func` that defaults to
    None: what follows runs only when a caller passes it (a default export passes only the
    example's).
    Also a flag made of that test (`exists_cache = past is not None and ...; if exists_cache:`).
    `flags`: per function, its names assigned once (filled on first use). `from_parent`: the
    arguments after the first come from a parent module's call, so `name is not None` on any of
    them marks it optional (evolla's cross-attention takes `protein_kv_states` or None).
    `reasons`: filled with why a name that is not a None-defaulting parameter may be None."""
    if reasons is None:
        reasons = {}
    if isinstance(test, cst.Name):
        if _optional_parameter(test.value, func):
            return test.value  # `if guidance:`: None (falsy) unless passed
        if defaults_to_false(test.value, func):
            # `if output_attentions:` on a parameter defaulting to False: off unless passed true
            reasons.setdefault(test.value, FALSE_BY_DEFAULT)
            return test.value
        flag = _assigned_once_in(func, flags).get(test.value)
        if flag is None or isinstance(flag, cst.Name):
            return None
        unless = _none_unless(flag)
        if unless is not None:
            return _optional_argument(unless, func, flags, from_parent, reasons, attributes, from_callers)
        return _optional_argument(_leftmost(flag), func, flags, from_parent, reasons, attributes, from_callers)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    if not (isinstance(target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name)
            and target.comparator.value == "None"):
        return None
    left = test.left
    read = _read_from_optional(left, func)
    if read is not None:
        return read  # `if outputs.get("image") is not None:` on an argument defaulting to None
    if (
        isinstance(left, cst.Attribute) and isinstance(left.value, cst.Name) and left.value.value == "self"
        and left.attr.value in attributes
    ):
        written = f"self.{left.attr.value}"
        reasons.setdefault(written, "the model is built without it unless `__init__` is given one")
        return written
    if not isinstance(left, cst.Name):
        return None
    name = left.value
    if _optional_parameter(name, func):
        return name
    if from_parent and _later_parameter(name, func):
        reasons.setdefault(name, "the parent module may pass None")
        return name
    unless = _none_unless(_assigned_once_in(func, flags).get(name))
    if unless is not None:
        # `grid_iter = iter(grid) if grid is not None else None; if grid_iter is not None:`
        return _optional_argument(unless, func, flags, from_parent, reasons, attributes, from_callers)
    why = None if name in _FILLED_WHEN_NONE(func) else from_callers.get(name) or _may_be_none(name, func)
    if why is not None:
        reasons.setdefault(name, why)
        return name
    return None


#: why a flag parameter defaulting to False is off on a default export (see optional_reason)
FALSE_BY_DEFAULT = "it defaults to False"


def defaults_to_false(name: str, func: cst.FunctionDef) -> bool:
    """`name` is a parameter of `func` that defaults to False (`output_attentions=False`)."""
    for param in all_params(func.params):
        if param.name.value == name:
            return isinstance(param.default, cst.Name) and param.default.value == "False"
    return False


def _assigned_once_in(
    func: cst.FunctionDef, flags: dict[int, dict[str, cst.BaseExpression | None]]
) -> dict[str, cst.BaseExpression | None]:
    """The names `func` assigns once (see _assigned_once), computed once per function."""
    assigned = flags.get(id(func))
    if assigned is None:
        assigned = flags[id(func)] = _assigned_once(func)
    return assigned


def _none_unless(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The test of `<value> if <test> else None`: a name bound to it is None unless the test
    holds (the test is then what decides whether code behind `name is not None` runs)."""
    if isinstance(value, cst.IfExp) and isinstance(value.orelse, cst.Name) and value.orelse.value == "None":
        return value.test
    return None


def _may_be_none(name: str, func: cst.FunctionDef) -> str | None:
    """Why `name` may be None: a helper's parameter annotated `Optional[...]` / `... | None` (its
    callers may pass None: timm's `_encode(x, position_ids, padding_positions: Optional[Tensor])`),
    or a local the function sets to None somewhere (`attn_mask = None`, then set on some paths)."""
    for param in all_params(func.params):
        if param.name.value == name:
            if is_entry_method(func) or param.annotation is None:
                return None
            names = annotation_names(param.annotation)
            return "its annotation allows None" if "Optional" in names or "None" in names else None
    return _locals_maybe_none(func).get(name)


def _locals_maybe_none(func: cst.FunctionDef) -> dict[str, str]:
    """The function's locals that may be None, with why (one walk per function)."""
    return _MAYBE_NONE(func)


def _maybe_none_of(func: cst.FunctionDef) -> dict[str, str]:
    out: dict[str, str] = {}
    for statement in walk_statements(func.body):
        if isinstance(statement, cst.Assign):
            value, targets = statement.value, [t.target for t in statement.targets]
        elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
            value, targets = statement.value, [statement.target]
        else:
            continue
        if isinstance(value, cst.Name) and value.value == "None":
            for target in targets:
                if isinstance(target, cst.Name):
                    out.setdefault(target.value, "it is set to None on some paths")
        elif isinstance(value, cst.Call) and not (dotted(value.func) or "").startswith("torch."):
            # `x, pos, padding = self.patch_embed(...)`: one part of what another function
            # returns, which the code itself expects may be None
            for target in targets:
                if isinstance(target, (cst.Tuple, cst.List)):
                    for element in target.elements:
                        if isinstance(element.value, cst.Name):
                            out.setdefault(
                                element.value.value, "a part of what a call returns, which the code expects may be None"
                            )
    return out


_MAYBE_NONE: PerStatement[dict[str, str]] = PerStatement(_maybe_none_of)  # type: ignore[arg-type]


def _calls_and_reads_in(body: cst.BaseSuite) -> tuple[dict[str, list[cst.Call]], dict[str, int]]:
    """The calls in a function's body by the last name of what they call (in source order),
    and how many times each name is read there."""
    calls: dict[str, list[cst.Call]] = {}
    reads: dict[str, int] = {}
    for node in body_nodes(body):
        node_type = type(node)
        if node_type is cst.Call:
            callee = dotted(node.func)  # type: ignore[attr-defined]
            if callee is not None:
                calls.setdefault(callee.rpartition(".")[2], []).append(node)  # type: ignore[arg-type]
        elif node_type is cst.Name:
            reads[node.value] = reads.get(node.value, 0) + 1  # type: ignore[attr-defined]
    return calls, reads


#: kept per body: an edit walks again only the functions it touched, not every function of the
#: file (that walk was about a tenth of an edit's check of a 20,000-line module, profiled)
_CALLS_AND_READS: PerStatement[tuple[dict[str, list[cst.Call]], dict[str, int]]] = PerStatement(_calls_and_reads_in)  # type: ignore[arg-type]


def _read_from_optional(expr: cst.BaseExpression, func: cst.FunctionDef) -> str | None:
    """`name.get(...)` or `name[...]` where `name` is a parameter defaulting to None: what it
    reads exists only when the caller passes `name`."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "get":
        owner = expr.func.value
    elif isinstance(expr, cst.Subscript):
        owner = expr.value
    else:
        return None
    if isinstance(owner, cst.Name) and _optional_parameter(owner.value, func):
        return owner.value
    return None


def _optional_parameter(name: str, func: cst.FunctionDef) -> bool:
    """`name` defaults to None and stays None unless a caller passes it: `func` does not fill it
    in first (`if homography is None: homography = estimate(...)`, after which a test of it is
    no longer a test of what the caller passed; measured on torch 2.13: a failure behind the later
    `if homography is None: return` fails the default export)."""
    return defaults_to_none(name, func) and name not in _FILLED_WHEN_NONE(func)


def _filled_when_none(func: cst.FunctionDef) -> frozenset[str]:
    """The names (parameters that may be None) `func` sets to a value in a statement of its own
    body, before any other statement reads them: `if x is None: x = ...` (or `if not x:`),
    `x = ... if x is None else x`, `x = x or ...`."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    filled: set[str] = set()
    read_before: set[str] = set()
    for statement in body:
        name = _fill_of(statement)
        if name is not None and name not in read_before:
            filled.add(name)
        read_before.update(node.value for node in iter_nodes(statement) if type(node) is cst.Name)  # type: ignore[attr-defined]
    return frozenset(filled)


_FILLED_WHEN_NONE: PerStatement[frozenset[str]] = PerStatement(_filled_when_none)  # type: ignore[arg-type]


def _filled_parameter(statement: cst.CSTNode, func: cst.FunctionDef) -> str | None:
    """The parameter defaulting to None that `statement` fills in (see _filled_when_none)."""
    name = _fill_of(statement)
    return name if name is not None and defaults_to_none(name, func) else None


def _fill_of(statement: cst.CSTNode) -> str | None:
    """The name `statement` sets to a value when it is None (see _filled_when_none)."""
    if isinstance(statement, cst.If) and statement.orelse is None:
        name = _none_tested(statement.test)
        sets = name is not None and any(
            isinstance(small, cst.Assign) and _computed(small.value)
            and any(type(node) is cst.Name and node.value == name for t in small.targets for node in iter_nodes(t))  # type: ignore[attr-defined]
            for line in statement.body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body
        )
        return name if sets else None
    if not (
        isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
        and isinstance(statement.body[0].targets[0].target, cst.Name)
    ):
        return None
    name, value = statement.body[0].targets[0].target.value, statement.body[0].value
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
        kept = dotted(value.left) == name and _computed(value.right)  # `x = x or default`
    elif isinstance(value, cst.IfExp):
        tested = _none_tested(value.test)
        filled = value.body if tested == name else value.orelse
        kept = (tested == name or _none_tested(value.test, present=True) == name) and _computed(filled)
    else:
        kept = False
    return name if kept else None


def _computed(value: cst.BaseExpression) -> bool:
    """A fill computes a value (a call or arithmetic), not a switch's setting: `output_attentions
    if output_attentions is not None else self.config.output_attentions` stays off by default."""
    if isinstance(value, cst.Call):
        return dotted(value.func) not in ("getattr", "bool")
    return isinstance(value, cst.BinaryOperation)


def _none_tested(test: cst.BaseExpression, present: bool = False) -> str | None:
    """The name `test` finds None (`x is None`, `not x`; `present`: `x is not None`, `x`)."""
    if present:
        if isinstance(test, cst.Name):
            return test.value
        operator: type = cst.IsNot
    else:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(
            test.expression, cst.Name
        ):
            return test.expression.value
        operator = cst.Is
    if (
        isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)
        and isinstance(test.comparisons[0].operator, operator) and dotted(test.comparisons[0].comparator) == "None"
    ):
        return test.left.value
    return None


def _later_parameter(name: str, func: cst.FunctionDef) -> bool:
    """`name` is a parameter of `func` after the first (after `self`)."""
    params = [p.name.value for p in all_params(func.params) if p.name.value not in ("self", "cls")]
    return name in params[1:]


#: the truth an augmented assignment keeps, whatever its operand (`flag |= x` keeps a True)
_KEPT_BY: dict[type, bool] = {cst.BitOrAssign: True, cst.BitAndAssign: False}


def _bound_once_then_augmented(
    func: cst.FunctionDef, name: str
) -> tuple[cst.BaseExpression | None, list[cst.AugAssign]]:
    """The one expression `func` assigns `name` (None: not exactly one), and its augmented
    assignments, in order."""
    values: list[cst.BaseExpression | None] = []
    augmented: list[cst.AugAssign] = []
    for statement in walk_statements(func.body):
        if isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name):
            if statement.target.value == name:
                augmented.append(statement)
        else:
            for target in _assigned_targets(statement):
                if isinstance(target, cst.Name) and target.value == name:
                    values.append(statement.value if isinstance(statement, (cst.Assign, cst.AnnAssign)) else None)
                elif any(type(node) is cst.Name and node.value == name for node in iter_nodes(target)):
                    values.append(None)  # `a, flag = ...`
    return (values[0] if len(values) == 1 else None), augmented


def _assigned_once(func: cst.FunctionDef) -> dict[str, cst.BaseExpression | None]:
    """Name -> the expression it is bound to, for names the function assigns exactly once (None
    for names assigned more than once or augmented)."""
    out: dict[str, cst.BaseExpression | None] = {}
    for statement in walk_statements(func.body):
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    out[name] = None if name in out else statement.value
        elif isinstance(statement, cst.AnnAssign) and isinstance(statement.target, cst.Name):
            name = statement.target.value
            out[name] = None if name in out else statement.value
        elif isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name):
            out[statement.target.value] = None
    return out


def _chain_key(reach: Reach, item: Traced) -> tuple[int, str, tuple[str, ...], str]:
    """Order of the chains that reach a function: shorter first, then by name."""
    return len(reach.via), reach.entry, reach.via, item.name


def _inherited(
    callees: list[tuple[int, str]], always: set[int], edges: dict[int, list[tuple[Traced, bool]]]
) -> dict[int, str]:
    """The functions that run only under a condition, by id, with it: each of `callees` (a
    function called only under `why`) that `always` (what runs without one) leaves out, and
    every function they call that `always` leaves out, with the condition of its caller (the
    first in sorted order of the conditions)."""
    reasons: dict[int, str] = {}
    for callee, why in sorted(callees, key=lambda pair: pair[1]):
        if callee not in always:
            reasons.setdefault(callee, why)
    changed = True
    while changed:  # a helper of such a helper
        changed = False
        for key, why in list(reasons.items()):
            for callee, _ in edges.get(key, []):
                if id(callee.func) not in always and id(callee.func) not in reasons:
                    reasons[id(callee.func)] = why
                    changed = True
    return reasons


def _closure(
    roots: list[Traced], edges: dict[int, list[tuple[Traced, bool]]], follows: Callable[[int, int], bool]
) -> set[int]:
    """Ids of the functions `roots` reach through eval-mode calls that `follows(caller, callee)`."""
    reached: set[int] = set()
    stack = [id(root.func) for root in roots]
    while stack:
        key = stack.pop()
        if key in reached:
            continue
        reached.add(key)
        stack.extend(
            id(callee.func) for callee, eval_call in edges.get(key, []) if eval_call and follows(key, id(callee.func))
        )
    return reached


def _conjuncts(test: cst.BaseExpression, operator: type[cst.BaseBooleanOp] = cst.And) -> Iterator[cst.BaseExpression]:
    """The operands of an `and` chain (or a chain of `operator`; the test itself when it is not one)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, operator):
        yield from _conjuncts(test.left, operator)
        yield from _conjuncts(test.right, operator)
    else:
        yield test


def _leftmost(test: cst.BaseExpression, operator: type[cst.BaseBooleanOp] = cst.And) -> cst.BaseExpression:
    """The operand an `and` chain (or a chain of `operator`) evaluates first."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, operator):
        test = test.left
    return test


def callee_text(func: cst.BaseExpression) -> str | None:
    """`a.b.c` for a name chain; `super().x` for a call through super; None otherwise."""
    name = dotted(func)
    if name is not None:
        return name
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Call)
        and isinstance(func.value.func, cst.Name)
        and func.value.func.value == "super"
    ):
        return f"super().{func.attr.value}"
    return None


def _is_check(call: cst.Call) -> bool:
    """`torch._check(cond, lambda: msg)`, `torch_compilable_check(cond, lambda: ...)`: the message
    is built only when the check fails, never while a passing export traces."""
    name = (dotted(call.func) or "").rpartition(".")[2]
    return "check" in name or "assert" in name


def _places(body: cst.BaseSuite) -> dict[int, tuple[tuple[int, int], ...]]:
    """Statement id -> its (block, index) and those of the statements it is nested in, outermost
    first; a small statement's block is its line. Nested functions and classes: not entered."""
    out: dict[int, tuple[tuple[int, int], ...]] = {}
    stack: list[tuple[cst.CSTNode, tuple[tuple[int, int], ...]]] = [(body, ())]
    while stack:
        node, around = stack.pop()
        statements: Sequence[cst.CSTNode] = ()
        if isinstance(node, cst.IndentedBlock):
            statements = node.body
        elif isinstance(node, cst.SimpleStatementSuite | cst.SimpleStatementLine):
            statements = node.body
        for index, statement in enumerate(statements):
            place = (*around, (id(node), index))
            out[id(statement)] = place
            if isinstance(statement, cst.SimpleStatementLine):
                stack.append((statement, place))
            elif isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
                statement, cst.FunctionDef | cst.ClassDef
            ):
                stack.extend((suite, place) for suite in _suites(statement))
    return out


@dataclass(frozen=True)
class SettingGuards:
    """The setting tests around a statement with the branch holding it (`("self.subtract_last",
    False)` for its `else`), and whether it runs on every call where they go that way."""

    tests: frozenset[tuple[str, bool]]
    always: bool

    def implied_by(self, other: SettingGuards) -> bool:
        """Wherever a statement under `other` runs, these tests go this way too."""
        return self.tests <= other.tests

    def excludes(self, other: SettingGuards) -> bool:
        """A test goes one way here and the other way under `other`: a module whose settings run
        one of the statements never runs the other."""
        return any((test, not taken) in other.tests for test, taken in self.tests)


def _path_to(
    suite: cst.BaseSuite, target: cst.CSTNode
) -> list[tuple[Sequence[cst.CSTNode], cst.BaseCompoundStatement | None, int]] | None:
    """The blocks from `suite` down to `target`, outermost first: per block, the statements before
    the one holding `target`, the compound statement holding it (None: the last block, which holds
    `target` itself) and which of its suites (see _suites) does. Nested functions: not entered."""
    statements: Sequence[cst.CSTNode] = suite.body if isinstance(suite, cst.IndentedBlock) else (
        suite.body if isinstance(suite, cst.SimpleStatementSuite) else ()
    )
    for index, statement in enumerate(statements):
        if statement is target or (
            isinstance(statement, cst.SimpleStatementLine) and any(small is target for small in statement.body)
        ):
            return [(statements[:index], None, 0)]
        if isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
            statement, cst.FunctionDef | cst.ClassDef
        ):
            for which, inner in enumerate(_suites(statement)):
                found = _path_to(inner, target)
                if found is not None:
                    return [(statements[:index], statement, which), *found]
    return None


def _branch_tests(statement: cst.If, which: int) -> list[tuple[cst.BaseExpression, bool]]:
    """The tests deciding that the `which`-th suite of an `if`/`elif`/`else` chain runs, each with
    the truth it needs: the earlier tests False, its own (if any) True."""
    tests: list[tuple[cst.BaseExpression, bool]] = []
    node: cst.If | cst.Else | None = statement
    for _ in range(which):
        assert isinstance(node, cst.If)
        tests.append((node.test, False))
        node = node.orelse
    if isinstance(node, cst.If):
        tests.append((node.test, True))
    return tests


def _setting_test(test: cst.BaseExpression, set_elsewhere: set[str] | None) -> tuple[str, bool] | None:
    """`test` as written without a leading `not`, and whether it had none, when it reads nothing
    but attributes of `self` no method other than `__init__` sets (settings) and literals; None
    otherwise (a call, a parameter, state the module writes)."""
    if set_elsewhere is None:
        return None
    positive = True
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, positive = test.expression, not positive
    nodes = list(iter_nodes(test))
    read = [node for node in nodes if isinstance(node, cst.Attribute)]
    if not read or any(
        not (isinstance(node.value, cst.Name) and node.value.value == "self") or node.attr.value in set_elsewhere
        for node in read
    ):
        return None
    attribute_names = {id(node.attr) for node in read}
    if any(
        isinstance(node, cst.Call | cst.Await | cst.Subscript | cst.NamedExpr | cst.Lambda)
        or (isinstance(node, cst.Name) and id(node) not in attribute_names
            and node.value not in ("self", "None", "True", "False"))
        for node in nodes
    ):
        return None
    return code_of(test), positive


def _suites(statement: cst.BaseCompoundStatement) -> Iterator[cst.BaseSuite]:
    """The suites a compound statement holds: body, `elif`/`else`, handlers, `finally`, `case`s."""
    if isinstance(statement, cst.Match):
        yield from (case.body for case in statement.cases)
        return
    yield statement.body
    orelse = getattr(statement, "orelse", None)
    while orelse is not None:
        yield orelse.body
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    final = getattr(statement, "finalbody", None)
    if final is not None:
        yield final.body


def _blocks(body: cst.BaseSuite) -> Iterator[cst.IndentedBlock]:
    """Every indented block of a function body (nested defs included), statements only."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.IndentedBlock):
            yield node
            stack.extend(node.body)
        elif isinstance(node, cst.BaseCompoundStatement):
            stack.extend(_suites(node))


def _always_leaves(body: cst.BaseSuite, leaving: tuple[type, ...] = (cst.Return, cst.Raise)) -> bool:
    """The block ends in `return` or `raise` (one of `leaving`)."""
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, leaving)


def _is_static(func: cst.FunctionDef) -> bool:
    """A `@staticmethod`: no `self` among its parameters."""
    return any(dotted(d.decorator) == "staticmethod" for d in func.decorators)


def rebinds(func: cst.FunctionDef, name: str) -> bool:
    """`func` assigns `name` somewhere (alone, unpacked, augmented, a loop or `with` target)."""
    for statement in walk_statements(func.body):
        if isinstance(statement, cst.Assign):
            targets: list[cst.BaseExpression] = [t.target for t in statement.targets]
        elif isinstance(statement, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [statement.target]
        elif isinstance(statement, cst.With):
            targets = [item.asname.name for item in statement.items if item.asname is not None]
        else:
            continue
        if any(type(node) is cst.Name and node.value == name for t in targets for node in iter_nodes(t)):  # type: ignore[attr-defined]
            return True
    return False


def _assigns_none(statement: cst.CSTNode, name: str) -> bool:
    """`name = None` (or `name: T = None`)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return any(_assigns_none(small, name) for small in statement.body)
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    else:
        return False
    return dotted(statement.value) == "None" and any(isinstance(t, cst.Name) and t.value == name for t in targets)


def _rebinds_in(small: cst.BaseSmallStatement, name: str) -> bool:
    """The small statement assigns `name` a value (alone or unpacked)."""
    if isinstance(small, cst.Assign):
        targets: list[cst.BaseExpression] = [t.target for t in small.targets]
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        targets = [small.target]
    else:
        return False
    return any(type(node) is cst.Name and node.value == name for t in targets for node in iter_nodes(t))  # type: ignore[attr-defined]


def _block_sets(block: cst.BaseSuite, sets: Callable[[cst.CSTNode], bool]) -> bool:
    """Some statement of the block, run on every way through it, `sets`."""
    statements = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if isinstance(block, cst.SimpleStatementSuite):
        return any(sets(cst.SimpleStatementLine(body=[small])) for small in statements)  # type: ignore[list-item]
    return any(sets(statement) for statement in statements)


@dataclass(frozen=True)
class _Value:
    """A Python value known without running the code, and the `__init__` arguments whose
    defaults it follows from."""

    value: object
    arguments: frozenset[str] = frozenset()
    #: a tuple display's elements, each with the arguments it follows from (`fast, size = ...`)
    parts: tuple[_Value, ...] = ()


#: the builtin types `isinstance` is evaluated against
_BUILTIN_TYPES: dict[str, type | tuple[type, ...]] = {
    "bool": bool, "int": int, "float": float, "str": str, "tuple": tuple, "list": list, "dict": dict,
}

_COMPARISONS: dict[type, Callable[[object, object], bool]] = {
    cst.Is: lambda a, b: a is b, cst.IsNot: lambda a, b: a is not b,
    cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b, cst.LessThanEqual: lambda a, b: a <= b,  # type: ignore[operator]
    cst.GreaterThan: lambda a, b: a > b, cst.GreaterThanEqual: lambda a, b: a >= b,  # type: ignore[operator]
    cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b,  # type: ignore[operator]
}

#: how many statements, and how deep a chain of helper calls, one evaluation follows
_STATEMENT_BUDGET = 400
_CALL_DEPTH = 3

#: a statement's outcome: fell through (None), left by `return` with its value (None: unknown),
#: raised, or unknown (the evaluation gave up)
_RAISED = "raised"
_GAVE_UP = "gave up"
_Outcome = tuple[str, "_Value | None"] | None


class _DefaultRun:
    """A bounded evaluation of small pure code on literal values: `if`/`return` over literals,
    `is None`, comparisons, `not`/`and`/`or`, `bool()`, `isinstance()` of builtin types, export
    guards, and calls of the file's functions and the class's methods. A path that raises builds
    nothing to export, so only the paths that do not are followed. `self_values`: what `self.x`
    reads (the attributes a default `__init__` leaves); `attributes`, filled while running an
    `__init__`: what it sets `self.x` to (None: unknown)."""

    def __init__(self, reach: FileReach, cls: ModuleClass | None, self_values: Mapping[str, _Value]) -> None:
        self.reach = reach
        self.cls = cls
        self.self_values = self_values
        self.attributes: dict[str, _Value | None] = {}
        self.budget = _STATEMENT_BUDGET
        self.depth = 0
        #: the arguments the tests that chose the current path follow from: what the path binds
        #: and returns follows from them too
        self.control: frozenset[str] = frozenset()
        #: whether an export guard decided a value (see FileReach.guard_wrapper)
        self.read_guard = False

    def expr(self, node: cst.BaseExpression, env: Mapping[str, _Value | None]) -> _Value | None:
        """The value of `node` (None: unknown)."""
        literal = literal_value(node)
        if literal is not UNKNOWN:
            return _Value(literal)
        if isinstance(node, cst.Name):
            if node.value not in env and node.value in self.reach.guard_aliases:
                return _Value(self.reach.guard_aliases[node.value])  # a function: not None, true
            if node.value not in env and node.value in self.reach.constants:
                return _Value(self.reach.constants[node.value])  # `model_type in _LM_MODELS`
            return env.get(node.value)
        if isinstance(node, cst.Attribute) and dotted(node.value) == "self":
            return self.self_values.get(node.attr.value, self.attributes.get(node.attr.value))
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            members = self.reach.enum_members(node.value.value)  # `Pooling.MEAN`
            if members is not None and node.attr.value in members:
                return _Value(members[node.attr.value])
            return None
        if isinstance(node, cst.Tuple):
            parts = [self.expr(e.value, env) if isinstance(e, cst.Element) else None for e in node.elements]
            if not all(parts):
                return None
            return dataclasses.replace(_joined(tuple(p.value for p in parts), parts), parts=tuple(parts))  # type: ignore[union-attr, arg-type]
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.expr(node.expression, env)
            return _Value(not inner.value, inner.arguments) if inner is not None else None
        if isinstance(node, cst.BooleanOperation):
            left = self.expr(node.left, env)
            if left is None:
                # `x.numel() == 0 or is_compiling()`: true whatever `x`, as a test (`and`: false)
                right = self.expr(node.right, env)
                deciding = isinstance(node.operator, cst.Or)
                return right if right is not None and right.value is deciding else None
            decided = not left.value if isinstance(node.operator, cst.And) else bool(left.value)
            if decided:
                return left
            right = self.expr(node.right, env)
            return _joined(right.value, [left, right]) if right is not None else None
        if isinstance(node, cst.IfExp):
            test = self.expr(node.test, env)
            if test is None:
                return None
            chosen = self.expr(node.body if test.value else node.orelse, env)
            return _joined(chosen.value, [test, chosen]) if chosen is not None else None
        if isinstance(node, cst.Comparison):
            return self._compare(node, env)
        if isinstance(node, cst.Call):
            return self._call(node, env)
        return None

    def _compare(self, node: cst.Comparison, env: Mapping[str, _Value | None]) -> _Value | None:
        left = self.expr(node.left, env)
        parts = [left]
        for target in node.comparisons:
            compare = _COMPARISONS.get(type(target.operator))
            right = self.expr(target.comparator, env)
            if compare is None or left is None or right is None:
                return None
            parts.append(right)
            try:
                holds = compare(left.value, right.value)
            except TypeError:
                return None
            if not holds:
                return _joined(False, parts)
            left = right
        return _joined(True, parts)

    def _call(self, node: cst.Call, env: Mapping[str, _Value | None]) -> _Value | None:
        if any(arg.star for arg in node.args):
            return None
        guard = self.reach.called_guard(node.func)
        if guard is not None:
            self.read_guard = True
            return _Value(guard)
        callee = dotted(node.func)
        if callee in ("bool", "isinstance") and callee not in self.reach.functions:
            args = [self.expr(arg.value, env) for arg in node.args]
            if callee == "bool" and len(args) == 1 and args[0] is not None:
                return _Value(bool(args[0].value), args[0].arguments)
            if callee == "isinstance" and len(args) == 2 and args[0] is not None:
                kinds = _builtin_types(node.args[1].value)
                return _Value(isinstance(args[0].value, kinds), args[0].arguments) if kinds is not None else None
            return None
        if isinstance(node.func, cst.Name) and len(node.args) == 1 and (
            members := self.reach.enum_members(node.func.value)
        ) is not None:
            return self._enum_member(members, self.expr(node.args[0].value, env))
        if isinstance(node.func, cst.Attribute) and not node.args and node.func.attr.value in _STRING_METHODS:
            text = self.expr(node.func.value, env)  # `approx.lower()`
            if text is None or not isinstance(text.value, str):
                return None
            return _Value(getattr(text.value, node.func.attr.value)(), text.arguments)
        target = self.reach.helper_for(self.cls, node.func)
        if target is None or self.depth >= _CALL_DEPTH:
            return None
        return self.call(target.func, node, env, bound_self=target.cls is not None and not _is_static(target.func))

    @staticmethod
    def _enum_member(members: Mapping[str, EnumMember | Scalar], value: _Value | None) -> _Value | None:
        """`Pooling(pooling)`: the member whose value (or which) `pooling` is (None: unknown, or
        none is, which raises)."""
        if value is None:
            return None
        for member in members.values():
            if member == value.value or (isinstance(member, EnumMember) and member.value == value.value):
                return _Value(member, value.arguments)
        return None

    def call(
        self, func: cst.FunctionDef, node: cst.Call | None, env: Mapping[str, _Value | None], bound_self: bool = False,
        defaults: bool = True,
    ) -> _Value | None:
        """What `func` returns, called by `node` (None: with no arguments; and `defaults` False:
        with arguments unknown)."""
        params = [*func.params.posonly_params, *func.params.params][1 if bound_self else 0 :]
        local: dict[str, _Value | None] = {p.name.value: None for p in all_params(func.params)}
        positional = [arg for arg in node.args if arg.keyword is None] if node is not None else []
        keywords = {arg.keyword.value: arg for arg in node.args if arg.keyword is not None} if node is not None else {}
        if len(positional) > len(params):
            return None
        for index, param in enumerate([*params, *func.params.kwonly_params]):
            name = param.name.value
            arg = positional[index] if index < len(positional) and index < len(params) else keywords.get(name)
            if arg is not None:
                local[name] = self.expr(arg.value, env)
            elif defaults and param.default is not None and (default := literal_value(param.default)) is not UNKNOWN:
                local[name] = _Value(default)
            else:
                local[name] = None
        self.depth += 1
        control, self.control = self.control, frozenset()
        try:
            outcome = self.block(func.body, local)
        finally:
            self.depth -= 1
            self.control = control
        if outcome is None:
            return _Value(None)
        kind, value = outcome
        return value if kind == "return" else None

    def block(self, suite: cst.BaseSuite, env: dict[str, _Value | None]) -> _Outcome:
        """Run the statements of `suite` in order; `env` is updated in place."""
        statements = suite.body if isinstance(suite, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
        for statement in statements:
            self.budget -= 1
            if self.budget < 0:
                return (_GAVE_UP, None)
            outcome = self.statement(statement, env)
            if outcome is not None:
                return outcome
        return None

    def statement(self, statement: cst.CSTNode, env: dict[str, _Value | None]) -> _Outcome:
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in statement.body:
                outcome = self._small(small, env)
                if outcome is not None:
                    return outcome
            return None
        if isinstance(statement, cst.If):
            return self._if(statement, env)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            env[statement.name.value] = None
            return None
        if isinstance(statement, cst.Try) and statement.orelse is None and statement.finalbody is None:
            # `try: return torch.compiler.is_compiling()` / `except Exception: ...` (transformers'
            # `is_torchdynamo_compiling`): a value the body returns is what a call gives where the API
            # is there; the handlers are the fallback for a torch without it
            outcome = self.block(statement.body, dict(env))
            if outcome is not None and outcome[0] == "return" and outcome[1] is not None:
                return outcome
        # loops, `with`, `try`: what they bind is unknown, and a `return` there too
        body = getattr(statement, "body", None)
        if not isinstance(body, cst.BaseSuite) or any(isinstance(inner, cst.Return) for inner in walk_statements(body)):
            return (_GAVE_UP, None)
        for inner in walk_statements(cst.IndentedBlock(body=[statement])):  # type: ignore[list-item]
            for target in _assigned_targets(inner):
                self._bind(target, None, env)
        return None

    def _if(self, statement: cst.If, env: dict[str, _Value | None]) -> _Outcome:
        test = self.expr(statement.test, env)
        orelse = statement.orelse
        other: cst.BaseSuite | cst.If | None = orelse.body if isinstance(orelse, cst.Else) else orelse
        if test is not None:
            chosen = statement.body if test.value else other
            skipped = other if test.value else statement.body
            # what the branch binds follows from the test; what comes after it too where the way
            # not taken returns (not where it raises: that builds nothing)
            around = self.control
            self.control |= test.arguments
            if chosen is None:
                outcome = None
            elif isinstance(chosen, cst.If):
                outcome = self.statement(chosen, env)
            else:
                outcome = self.block(chosen, env)
            if outcome is None:
                suite = cst.IndentedBlock(body=[skipped]) if isinstance(skipped, cst.If) else skipped
                returns = suite is not None and any(isinstance(inner, cst.Return) for inner in walk_statements(suite))
                self.control = around | test.arguments if returns else around
            return outcome
        runs: list[tuple[_Outcome, dict[str, _Value | None], dict[str, _Value | None]]] = []
        for branch in (statement.body, other):
            branch_env, saved = dict(env), dict(self.attributes)
            if branch is None:
                outcome = None
            elif isinstance(branch, cst.If):
                outcome = self.statement(branch, branch_env)
            else:
                outcome = self.block(branch, branch_env)
            runs.append((outcome, branch_env, self.attributes))
            self.attributes = saved
        runs = [run for run in runs if run[0] is None or run[0][0] != _RAISED]  # a raising path builds nothing
        if not runs:
            return (_RAISED, None)
        outcomes = [run[0] for run in runs]
        if len(runs) == 1 or all(o is None for o in outcomes):
            env.clear()
            env.update(_join_maps([run[1] for run in runs]))
            self.attributes = _join_maps([run[2] for run in runs])
            return outcomes[0] if len(runs) == 1 else None
        if all(o is not None and o[0] == "return" for o in outcomes) and outcomes[0] == outcomes[1]:
            return outcomes[0]
        return (_GAVE_UP, None)

    def _small(self, small: cst.BaseSmallStatement, env: dict[str, _Value | None]) -> _Outcome:
        if isinstance(small, cst.Return):
            value = self.expr(small.value, env) if small.value is not None else _Value(None)
            return ("return", _joined(value.value, [value, _Value(None, self.control)]) if value is not None else None)
        if isinstance(small, cst.Raise):
            return (_RAISED, None)
        if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            if len(targets) == 1 and _same_shape_unpacking(targets[0], small.value):
                # `self.dim, self.rate = dim, rate`: each element is known or not on its own
                # (every value is read before any is bound)
                parts = [self.expr(e.value, env) for e in small.value.elements]  # type: ignore[attr-defined]
                for element, part in zip(targets[0].elements, parts, strict=True):  # type: ignore[attr-defined]
                    self._bind(element.value, part, env)
                return None
            value = self.expr(small.value, env)
            for target in targets:
                self._bind(target, value, env)
        elif isinstance(small, cst.AugAssign):
            # `is_tracing |= <anything>` keeps a True (`&=`: a False) an export guard gave
            kept = _KEPT_BY.get(type(small.operator))
            current = self.expr(small.target, env) if kept is not None else None
            self._bind(small.target, current if current is not None and current.value is kept else None, env)
        elif isinstance(small, cst.Del):
            self._bind(small.target, None, env)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._effect(small.value, env)
        return None

    def _effect(self, call: cst.Call, env: dict[str, _Value | None]) -> None:
        """`self.register_buffer("x", value)` sets `self.x`; another method of the class may set
        any attribute it assigns."""
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if method is None or dotted(call.func.value) != "self":  # type: ignore[union-attr]
            return
        if method in ("register_buffer", "register_parameter") and len(call.args) >= 2:
            name = call.args[0].value
            if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
                self.attributes[name.evaluated_value] = self.expr(call.args[1].value, env)
            return
        target = self.reach.helper_for(self.cls, call.func)
        if target is not None:
            for inner in walk_statements(target.func.body):
                for assigned in _assigned_targets(inner):
                    self._bind(assigned, None, {})

    def _bind(self, target: cst.BaseExpression, value: _Value | None, env: dict[str, _Value | None]) -> None:
        if value is not None and self.control:
            value = _joined(value.value, [value, _Value(None, self.control)])
        if isinstance(target, cst.Name):
            env[target.value] = value
        elif isinstance(target, cst.Attribute) and dotted(target.value) == "self":
            self.attributes[target.attr.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            parts: Sequence[_Value | None] = ()
            if value is not None and isinstance(value.value, tuple):
                parts = value.parts or [_Value(part, value.arguments) for part in value.value]
            if len(parts) != len(target.elements) or any(isinstance(e, cst.StarredElement) for e in target.elements):
                parts = [None] * len(target.elements)
            for element, part in zip(target.elements, parts, strict=True):
                self._bind(element.value, part, env)


def _call_literals(run: _DefaultRun, call: cst.Call) -> dict[str, list[Scalar]]:
    """What `call` passes, as `run` evaluates it: per argument (position "0", "1", ... or keyword)
    the literal it passes, or a default construction's `self.x`, else nothing known ([]); "*": a
    starred argument. The one record of a call site that the joins of its values read
    (ProjectIndex._literal_calls across files, FileReach._joined_literals)."""
    passed: dict[str, list[Scalar]] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            passed["*"] = []
            continue
        value = run.expr(arg.value, {})
        known = value is not None and (value.value is None or isinstance(value.value, (bool, int, float, str)))
        passed[arg.keyword.value if arg.keyword is not None else str(index)] = (
            [value.value] if known else []  # type: ignore[union-attr, list-item]
        )
    return passed


def _same_shape_unpacking(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """`a, b = x, y`: a tuple or list of as many plain elements on each side."""
    return (
        isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and all(isinstance(e, cst.Element) for e in (*target.elements, *value.elements))
    )


def _joined(value: object, parts: Sequence[_Value | None]) -> _Value:
    """`value`, following from every argument its parts follow from."""
    return _Value(value, frozenset().union(*(p.arguments for p in parts if p is not None)))


def _join_maps(maps: Sequence[dict[str, _Value | None]]) -> dict[str, _Value | None]:
    """Names bound on every path to the same value keep it; the others are unknown."""
    out: dict[str, _Value | None] = {}
    for name in set().union(*maps):
        values = [found.get(name) for found in maps]
        first = values[0]
        out[name] = first if first is not None and all(
            v is not None and v.value == first.value and type(v.value) is type(first.value) for v in values
        ) else None
        if out[name] is not None:
            out[name] = _joined(first.value, values)  # type: ignore[union-attr]
    return out


def _builtin_types(node: cst.BaseExpression) -> type | tuple[type, ...] | None:
    """The builtin type(s) `isinstance`'s second argument names (None: another)."""
    if isinstance(node, cst.Name):
        return _BUILTIN_TYPES.get(node.value)  # type: ignore[return-value]
    if isinstance(node, cst.Tuple):
        kinds = [_builtin_types(e.value) for e in node.elements]
        return tuple(k for k in kinds if isinstance(k, type)) if all(isinstance(k, type) for k in kinds) else None
    return None


def _assigned_targets(statement: cst.CSTNode) -> list[cst.BaseExpression]:
    """What a statement binds (assignment targets, a loop's, `with ... as`'s)."""
    if isinstance(statement, cst.Assign):
        return [t.target for t in statement.targets]
    if isinstance(statement, (cst.AugAssign, cst.AnnAssign, cst.For)):
        return [statement.target]
    if isinstance(statement, cst.With):
        return [item.asname.name for item in statement.items if item.asname is not None]  # type: ignore[misc]
    return []
