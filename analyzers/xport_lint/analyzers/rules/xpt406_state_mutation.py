from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import libcst as cst

from ..dataflow import Kind, annotation_names
from ..model import Mode, Severity
from ..names import dotted, self_attribute
from ..rewrites.state import attribute_as_local, attribute_kept_by_a_method_as_local
from ..rule import Invalid, Rule, Valid
from ..walk import iter_nodes, with_statements
from ._conditions import short

if TYPE_CHECKING:
    from ..reach import SettingGuards
    from ..symbols import ModuleClass


class StateMutation(Rule):
    """Traced code assigns to an attribute of `self` or to a `global`.

    ## What it does
    Flags `self.x = ...`, `self.x += ...` and assignments to names declared `global` in
    traced code. In-place updates of registered buffers (`self.running.add_(x)`) are captured by
    export and not flagged.

    ## Why it fails torch.export
    Python attribute writes are not graph operations: they happen once, while exporting. A
    counter (`self.calls += 1`) is frozen at its export-time value, a cache (`self.last = x`)
    is never written by the exported program. Both modes export without complaint.

    ## Example
    ```python
    self.step += 1
    return x * self.step
    ```

    ## Use instead
    Keep state in a registered buffer and update it in place (`self.step.add_(1)`), or pass
    it in and return it.

    ## Fix safety
    A number read from tensor data (`float(t)`, `t.item()`, arithmetic on them) kept on `self` as
    scratch state (written once, at the top level of the traced function, read only after it there;
    no other method reads it, `__init__` may set a default) becomes a local name, unsafe: it assumes
    nothing outside the call reads the attribute (the exported program never sets it). Kept on
    `self`, the number is out of reach of `torch.cond`'s operands and of the rewrites that bind the
    tensor it is read from; as a local they write the branch, loop or size (measured on torch 2.13:
    `self.peak = float(x.abs().max())` tested by `if self.peak > 1.0`, a `range(self.level)`, a
    `while i < self.limit`, `x.repeat(self.copies, 1)` export in both modes and equal eager once
    fixed so). So does one kept by a method whose whole body is that assignment, called once as a
    statement of another method that alone reads it after the call (`self._update(x)` then `if
    self.spread > 1.0`): the assignment is written in place of the call, as a local. It is a step:
    offered only where the fixes after it leave fewer errors.

    ## Modes
    Warning in both modes (torch 2.13) for state the module reads back: a `global`, an
    attribute another method reads, or one read before it is written (`self.calls += 1`).
    Info for scratch state written and then read within the same call (`self.h = x; y = self.h`,
    or read by a method called after the write, directly or through other methods, or after a
    call of the method that always writes it, or by a method that writes it itself before
    reading it, or that reads it after a call that may write it and resets it afresh right
    after: `out = self.propagate(x); a = self._alpha; self._alpha = None`; a write under tests of
    settings, attributes only `__init__` sets, counts for the reads under the same tests:
    RevIN's `if self.subtract_last: self.last = ... else: self.mean = ...`, read by
    `_normalize` on the same branch after `_get_statistics` ran),
    reset afresh on each call (`self._conv_idx = [0]`, `self.cache = None`) or never read by
    the module, for the attribute's own values moved to a device or dtype
    (`self.freqs = [f.to(device) for f in self.freqs]`), and for state built once under
    `if not hasattr(self, "x"):`, or from sizes under `if self.x is None:` (eager keeps the
    first call's, the program the export's; a `global` chosen once so, too), and
    for a cache the function checks before reusing it (`if n == self.cached_len and self.cached
    is not None: return self.cached`, then both written), and for a table rebuilt from sizes only
    when the input outgrows it (`if max_pos > self.weights.size(0): self.make_weights(max_pos)`,
    `self.pe = self.extend_pe(x, self.pe)` where `extend_pe` returns `pe` while it is long
    enough), and for a table rebuilt from sizes whenever a key attribute differs (`if seq_len !=
    self._seq_len_cached:` setting the key and the table; with a dynamic dim, an export traced on
    a hit fails on that test instead), and for an attribute given back what it holds (`self.t, n =
    self.update(x)` where `update` returns `self.t, n`): the exported program computes the same
    outputs. Info too for state handed to the call paired with this one (RevIN's `forward(x,
    "norm")` stores statistics that `forward(y, "denorm")` reads, or `forward` stores them and a
    `reverse()` no method calls reads them): a model calling both in one forward exports them
    together and equals eager (measured). (Strict export refuses an `nn.Buffer` or `nn.Parameter` built in `forward`: that one
    stays a warning in strict mode.)
    """

    CODE = "XPT406"
    NAME = "state-mutation"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    SIDE_EFFECT = True
    PYTORCH_NAME = "dropped side effect"

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check(target.target, node.value, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check(node.target, node.value)

    def _check(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None, write: cst.Assign | None = None
    ) -> None:
        """`value`: what is assigned (None: an augmented assignment, which reads the old value);
        `write`: the plain assignment doing it."""
        traced = self.ctx.traced
        if traced is None or traced.func.name.value == "__init__":
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            for index, element in enumerate(target.elements):
                if self._handed_back(value, element.value, index):
                    self.report(element.value, f"`{short(element.value)}` is given back the value it holds (the "
                                "method called returns it): nothing is dropped that the method itself does not set",
                                severity=Severity.INFO)
                    continue
                self._check(element.value, None if value is None or not _fresh(value) else value)
            return
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            if value is not None and _fresh(value):
                self.report(target, f"`{short(target)}` is reset at export time; the graph drops it (scratch state "
                            "each call sets afresh)", severity=Severity.INFO)
            elif value is not None and (
                _moved(value, target.attr.value) or self._moved_through_a_local(value, target.attr.value)
            ):
                self.report(target, f"`{short(target)}` is moved to a device or dtype at export time; the values it "
                            "holds are the same", severity=Severity.INFO)
            elif self._built_once(f"self.{target.attr.value}", value) and not (
                self.ctx.mode is Mode.STRICT and value is not None and _makes_a_module_tensor(value)
            ):
                self.report(target, f"`{short(target)}` is built on the first call and kept (a guard skips it once set): "
                            "the program keeps the export's value as eager keeps the first call's",
                            severity=Severity.INFO)
            elif self._regrown_when_short(target.attr.value, value) and not (
                self.ctx.mode is Mode.STRICT and value is not None and _makes_a_module_tensor(value)
            ):
                self.report(target, f"`{short(target)}` is rebuilt only when the input outgrows it (a test on its "
                            "size decides): the program computes, for the export's sizes, what eager reads from it",
                            severity=Severity.INFO)
            elif value is not None and self._rebuilt_when_its_key_changes(value):
                self.report(target, f"`{short(target)}` is a cache rebuilt from sizes whenever its key changes (an `if` "
                            "on `self.<key> != ...`): the program, traced on a miss, rebuilds it from the input on "
                            "every call, as eager does when the size changes", severity=Severity.INFO)
            elif self._checked_cache(target.attr.value):
                self.report(target, f"`{short(target)}` is a cache this function checks before reusing it and "
                            "recomputes on a miss: the program, traced on a miss, recomputes it on every call",
                            severity=Severity.INFO)
            elif self._read_across_calls(target.attr.value):
                paired = self._paired_calls(target.attr.value)
                if paired is not None and not self._read_across_calls(target.attr.value, paired[0]):
                    self.report(target, f"`{short(target)}` is handed to a paired call ({paired[1]}), as a "
                                "normalizer's statistics are: a model calling both in one forward exports them "
                                "together and its graph equals eager; only the pair split across two exported "
                                "calls reads a stale value", severity=Severity.INFO)
                else:
                    self.report(target, f"`{short(target)}` is set at export time; the graph drops it, and the "
                                "module reads it back")
            else:
                fix = None
                if write is not None and traced.cls is not None and self.ctx.flow is not None:
                    fix = attribute_as_local(self.ctx.flow, traced.cls.node, traced.func, write) or \
                        attribute_kept_by_a_method_as_local(self.ctx.flow, traced.cls.node, traced.func, write)
                self.report(target, f"`{short(target)}` is set at export time; the graph drops it",
                            severity=Severity.INFO, fix=fix)
        elif isinstance(target, cst.Name) and target.value in self.ctx.globals_declared():
            if self._built_once(target.value, value):
                self.report(target, f"global `{target.value}` is set on the first call and kept (under `is None`): "
                            "every later call reuses it, in eager as in the exported program", severity=Severity.INFO)
            else:
                self.report(target, f"global `{target.value}` is set at export time only")

    def _checked_cache(self, name: str) -> bool:
        """The write follows, in its function, `if <test>: return <...self.C...>` whose test or
        returned value reads `self.<name>` (seamless_m4t's rotary table: `if n == self.cached_len
        and self.cached is not None: return self.cached`, then both are written): a fresh module
        exports the miss, which computes the value from the input each call, as eager does on a
        miss and returns on a hit (measured on 2.13, both modes, static and dynamic sizes)."""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or statement is None:
            return False
        for node in iter_nodes(traced.func.body):
            if type(node) is not cst.If or not _returns_an_attribute(node.body):  # type: ignore[attr-defined]
                continue
            if (_reads(node.test, name) or _reads(node.body, name)) and self.ctx.program.runs_before(  # type: ignore[attr-defined, arg-type]
                traced.func, node, statement
            ):
                return True
        return False

    def _handed_back(self, value: cst.BaseExpression | None, target: cst.BaseExpression, index: int) -> bool:
        """`self.a, self.b = self.m(...)` where every `return` of `m` gives back `self.a, self.b`
        (esm's `self._cos_cached, self._sin_cached = self._update_cos_sin_tables(k)`): the
        attribute gets the object it already holds; what `m` sets is reported in `m`."""
        traced = self.ctx.traced
        if not (isinstance(value, cst.Call) and isinstance(target, cst.Attribute) and traced is not None):
            return False
        helper = self.ctx.program.helper_for(traced.cls, value.func)
        if helper is None:
            return False
        returns = [node for node in iter_nodes(helper.func.body) if type(node) is cst.Return]
        return bool(returns) and all(
            isinstance(ret.value, cst.Tuple) and len(ret.value.elements) > index  # type: ignore[attr-defined]
            and _is_self(ret.value.elements[index].value, target.attr.value)  # type: ignore[attr-defined]
            and isinstance(target.value, cst.Name) and target.value.value == "self"
            for ret in returns
        )

    def _rebuilt_when_its_key_changes(self, value: cst.BaseExpression) -> bool:
        """The write sits under an `if` whose test finds a key attribute changed (`seq_len !=
        self._seq_len_cached`, `self.previous_shape != x.shape`, or-ed with `self.table is None`)
        and whose body sets that key again, both made from sizes, not from what an input holds
        (esm's rotary tables, MONAI's anchors by image shape). Measured on 2.13, both modes: traced
        on a miss the program rebuilds the table on every call and equals eager; traced on a hit
        with static sizes it keeps the table eager keeps for that size; with a dynamic dim on a hit
        export fails on the key test (a constraint violation), it never drops the write silently."""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or statement is None or not _made_from_sizes(traced.func, value):
            return False
        for node in iter_nodes(traced.func.body):
            if type(node) is cst.If and any(inner is statement for inner in iter_nodes(node.body)):  # type: ignore[attr-defined]
                keys = _changed_keys(node.test)  # type: ignore[attr-defined]
                if any(
                    type(small) is cst.Assign and any(_is_self(t.target, key) for t in small.targets for key in keys)  # type: ignore[attr-defined]
                    and _made_from_sizes(traced.func, small.value)  # type: ignore[attr-defined]
                    for small in iter_nodes(node.body)  # type: ignore[attr-defined]
                ):
                    return True
        return False

    def _moved_through_a_local(self, value: cst.BaseExpression, name: str) -> bool:
        """`self.<name> = t` where every assignment of the local `t` in the function is `t =
        self.<name>` or `t = t.to(...)` (gptj's `embed_positions`, moved to the ids' device and
        kept): the attribute's own values, moved."""
        traced = self.ctx.traced
        if traced is None or not isinstance(value, cst.Name):
            return False
        local = value.value
        assigned = [
            small.value for node in iter_nodes(traced.func.body) if type(node) is cst.SimpleStatementLine
            for small in node.body  # type: ignore[attr-defined]
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == local for t in small.targets
            )
        ]
        return bool(assigned) and all(
            (isinstance(v, cst.Attribute) and _is_self(v, name)) or _moved_local(v, local) for v in assigned
        )

    def _regrown_when_short(self, name: str, value: cst.BaseExpression | None) -> bool:
        """A table rebuilt only when the input outgrows it: the write sits under an `if` whose test
        orders a size of `self.<name>` (trocr's `if max_pos > self.weights.size(0):`), directly or
        around every traced call of the helper that writes it (`self.make_weights(...)`), or the
        value is a method handed `self.<name>` that returns it unchanged when a test on its size
        says it is long enough (wav2vec2-bert's `self.pe = self.extend_pe(x, self.pe)`); the new
        table is made from sizes (a helper of `int` parameters, or no name holding tensor values
        read for more than its size, dtype or device). Measured
        on 2.13, both modes, the table long enough at export or not: the program's outputs equal
        eager's after eager has grown the table on other calls (strict export refuses an
        `nn.Buffer` built in `forward`: that stays a warning there)."""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or statement is None:
            return False
        if _under_size_test(traced.func, statement, lambda node: _is_self(node, name)):
            # made from sizes, not from what the input holds (`self.seen = x.clone()` is data)
            return value is not None and _sizes_only(value, lambda n: self.ctx.value(n).has(_DATA))
        if isinstance(value, cst.Call) and self._returns_when_long_enough(value, name):
            return True
        if not _takes_numbers_only(traced.func):
            return False
        sites = [
            (item.func, node) for item in self.ctx.program.traced
            for node, _ in self.ctx.program.nodes(item.func)
            if type(node) is cst.Call and (callee := self.ctx.program.helper_for(item.cls, node.func)) is not None  # type: ignore[attr-defined]
            and callee.func is traced.func
        ]
        return bool(sites) and all(
            _under_size_test(caller, call, lambda node: _is_self(node, name)) for caller, call in sites
        )

    def _returns_when_long_enough(self, call: cst.Call, name: str) -> bool:
        """`self.m(..., self.<name>, ...)` where `m` returns the parameter receiving `self.<name>`
        from under an `if` testing that parameter's size."""
        traced = self.ctx.traced
        helper = self.ctx.program.helper_for(traced.cls if traced is not None else None, call.func)
        if helper is None:
            return False
        params = [p.name.value for p in (*helper.func.params.posonly_params, *helper.func.params.params)]
        params = params[1:] if params[:1] == ["self"] else params
        passed = None
        for index, arg in enumerate(call.args):
            if isinstance(arg.value, cst.Attribute) and _is_self(arg.value, name):
                if arg.keyword is not None:
                    passed = arg.keyword.value
                elif index < len(params) and arg.star == "":
                    passed = params[index]
        others = set(params) - {passed}
        if passed is None or not _sizes_only(helper.func.body, lambda n: isinstance(n, cst.Name) and n.value in others):
            return False
        for node in iter_nodes(helper.func.body):
            if type(node) is cst.If and _outgrown(node.test, lambda n: isinstance(n, cst.Name) and n.value == passed):  # type: ignore[attr-defined]
                last = node.body.body[-1] if node.body.body else None  # type: ignore[attr-defined]
                if isinstance(last, cst.SimpleStatementLine):
                    last = last.body[-1] if last.body else None
                if isinstance(last, cst.Return) and isinstance(last.value, cst.Name) and last.value.value == passed:
                    return True
        return False

    def _built_once(self, spelled: str, value: cst.BaseExpression | None) -> bool:
        """The write of `spelled` (`self.<name>`, or a global's name) sits under `if not
        hasattr(self, "<name>"):` in its function, or under `if <spelled> is None:` with a value
        made from sizes, not from what the input holds (timm's `Conv2dSame` building its padding
        layer on the first call; Ultralytics choosing its assignment solver once, in a global):
        once set, no later call runs it again, in eager as in the exported program. (magvit's
        `if self.prev_features is None: self.prev_features = hidden_states` keeps the input's
        values for the next call: state.)"""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or statement is None:
            return False
        for node in iter_nodes(traced.func.body):
            if type(node) is not cst.If or not any(inner is statement for inner in iter_nodes(node.body)):  # type: ignore[attr-defined]
                continue
            if spelled.startswith("self.") and _tests_not_hasattr(node.test, spelled[5:]):  # type: ignore[attr-defined]
                return True
            if (
                _tests_unset(node.test, spelled) and value is not None  # type: ignore[attr-defined]
                and _sizes_only(value, lambda n: self.ctx.value(n).has(_DATA))
            ):
                return True
        # speechbrain's `_ensure_stft_setup`: `if getattr(self, "_stft_ready", False): return`,
        # then the window from the hyperparameters, then `self._stft_ready = True`
        ready = _ready_flag_before(traced.func, statement)
        return (
            ready is not None and value is not None and spelled != f"self.{ready}"
            and _sizes_only(value, lambda n: self.ctx.value(n).has(_DATA))
        )

    def _paired_calls(self, name: str) -> tuple[frozenset[cst.CSTNode], str] | None:
        """The blocks of the class whose reads of `self.<name>` belong to the call paired with the
        writing one, and how that pair is spelled; None when the class has no such pair. A pair is
        `forward` choosing by a string parameter (`if mode == "norm": ... elif mode == "denorm":
        ...`) with the write reached from one branch only (RevIN: 'norm' stores the statistics,
        'denorm' reads them), or a public method no method of the class calls, reading what
        `forward` writes (`x = self.norm(x)` ... `self.norm.reverse(y)`). Measured on 2.13, both
        modes: a parent calling both in one forward exports and equals eager on new inputs; a
        RevIN exported alone in 'denorm' keeps the export's statistics."""
        traced = self.ctx.traced
        if traced is None or traced.cls is None:
            return None
        own = traced.cls.methods
        forward = own.get("forward")
        if forward is None:
            return None
        reaching = _methods_reaching(own, traced.func.name.value)
        blocks: list[cst.CSTNode] = []
        spelled = ""
        branches = _string_branches(forward)
        if branches:
            writing = [
                literal for literal, body in branches
                if any(node is self.ctx.statement for node in iter_nodes(body)) or any(
                    type(node) is cst.Call and isinstance(node.func, cst.Attribute)  # type: ignore[attr-defined]
                    and dotted(node.func.value) == "self" and node.func.attr.value in reaching  # type: ignore[attr-defined]
                    for node in iter_nodes(body)
                )
            ]
            if len(writing) == 1:
                blocks = [body for literal, body in branches if literal != writing[0]]
                others = " / ".join(f'"{literal}"' for literal, _ in branches if literal != writing[0])
                spelled = f'`forward` with "{writing[0]}" writes it, with {others} reads it'
        if traced.func is forward or "forward" in reaching:
            called = {
                node.func.attr.value for func in (*own.values(), *self._inherited_methods(traced.cls).values())
                for node in iter_nodes(func.body)  # type: ignore[attr-defined]
                if type(node) is cst.Call and isinstance(node.func, cst.Attribute)
                and dotted(node.func.value) == "self"  # type: ignore[attr-defined]
            }
            entries = [
                func for method_name, func in own.items()
                if not method_name.startswith("_") and method_name != "forward" and method_name not in called
                and _reads(func.body, name)
            ]
            if entries:
                blocks += [func.body for func in entries]
                spelled = spelled or f"`forward` writes it, `{entries[0].name.value}()` reads it"
        return (frozenset(blocks), spelled) if blocks else None

    def _read_across_calls(self, name: str, paired: frozenset[cst.CSTNode] = frozenset()) -> bool:
        """`self.<name>` is state a later call reads: the writing function reads it before (or as)
        it writes it (`self.calls += 1`) with no write of its own before, or another method of
        the class (not `__init__`) reads it before writing it itself (or calling the writing
        function, which always writes it), unless that method runs only as a helper of this call,
        after the write, or resets the attribute afresh right after reading it. A read under a
        setting's test going the other way than the write's (`if self.independent == 1:` around
        the read, its `else` around the write) never meets the written value. Written and then
        read in the same call, it is scratch state (measured on 2.13: such a module exports and
        equals eager)."""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or traced.cls is None:
            return True
        in_pair = _inside(traced.cls.methods, paired)
        write_guards = self.ctx.program.setting_guards(traced.func, statement) if statement is not None else None
        for method in traced.cls.methods.values():
            if method.name.value == "__init__" or method.body in in_pair:
                continue
            listed = self.ctx.program.nodes(method) if method is traced.func else _listed(method)
            writes = [holder for node, holder in listed if holder is not None and _writes(holder, name)]
            if method is not traced.func:
                writes += self._writer_calls(listed)
            written = False
            for node, holder in listed:
                if method is traced.func and holder is statement:
                    written = True
                    if (isinstance(node, cst.AugAssign) or (
                        isinstance(node, cst.Assign) and _reads(node.value, name)
                    )) and not any(w is not statement and self.ctx.program.runs_before(method, w, statement)
                                   for w in writes):
                        return True
                elif (
                    type(node) is cst.Attribute and _is_self(node, name) and not _stored(holder, node)  # type: ignore[arg-type]
                    and node not in in_pair
                ):
                    read_guards = self.ctx.program.setting_guards(method, holder) if holder is not None else None
                    if write_guards is not None and read_guards is not None and write_guards.excludes(read_guards):
                        continue  # settings hold for the module's life: no call running the write runs this read
                    if method is traced.func:
                        if not written:
                            return True
                    elif not (
                        any(holder is not None and self.ctx.program.runs_before(method, w, holder) for w in writes)
                        or self._written_first_on_its_setting_path(method, listed, holder)
                        or (holder is not None and self._consumed_after_a_write(method, listed, holder, name))
                    ):
                        return True
        return False

    def _consumed_after_a_write(
        self, method: cst.FunctionDef, listed: list[tuple[cst.CSTNode, cst.CSTNode | None]], read: cst.CSTNode,
        name: str,
    ) -> bool:
        """The read is preceded, on every path, by a call that may write the attribute (the
        writing method, or one the class inherits: PyG's `self.propagate(...)`, which calls
        `message`) and followed in its block by a fresh reset (`alpha = self._alpha; self._alpha =
        None`): it reads what this call wrote, and no later call can read it. (Read before such a
        call, it is the previous call's value: state, even when reset.)"""
        traced = self.ctx.traced
        if traced is None or traced.cls is None or not _reset_after(method, read, name):
            return False
        own = traced.cls.methods
        init = own.get("__init__")
        attributes = {
            node.attr.value for node in iter_nodes(init.body) if type(node) is cst.Attribute  # type: ignore[attr-defined]
            and isinstance(node.value, cst.Name) and node.value.value == "self"  # type: ignore[attr-defined]
        } if init is not None else set()
        reaching = _methods_reaching(own, traced.func.name.value)
        return any(
            holder is not None and type(node) is cst.Call and isinstance(node.func, cst.Attribute)  # type: ignore[attr-defined]
            and isinstance(node.func.value, cst.Name) and node.func.value.value == "self"  # type: ignore[attr-defined]
            and (node.func.attr.value in reaching or (  # type: ignore[attr-defined]
                node.func.attr.value not in own and node.func.attr.value not in attributes  # type: ignore[attr-defined]
            ))
            and self.ctx.program.runs_before(method, holder, read)
            for node, holder in listed
        )

    def _written_first_on_its_setting_path(
        self, method: cst.FunctionDef, listed: list[tuple[cst.CSTNode, cst.CSTNode | None]],
        read: cst.CSTNode | None,
    ) -> bool:
        """`method` reads the attribute after this call wrote it: a call of the writing function
        runs before the read in `method`, or every call of `method` runs after the write (see
        _helper_called_after_the_write). A write under setting tests (`if self.subtract_last: ...
        else: self.mean = ...`) counts for the reads under the same tests (`else: x = x -
        self.mean`): a setting takes one branch for the whole call (reach.setting_guards)."""
        guards = self.ctx.program.setting_guards(method, read) if read is not None else None
        return any(
            read is not None and self.ctx.program.runs_before(method, call, read)
            for call in self._writer_calls(listed, guards)
        ) or self._helper_called_after_the_write(method, read_guards=guards)

    def _writer_calls(
        self, listed: list[tuple[cst.CSTNode, cst.CSTNode | None]], read_guards: SettingGuards | None = None
    ) -> list[cst.CSTNode]:
        """The statements of `listed` that call `self.<the writing function>(...)`, when every call
        of it writes the attribute (speechbrain's beam search: `forward` calls
        `self.init_beam_search_data(...)`, which sets `self.beam_offset`, then reads it), or every
        call where the setting tests of a read (`read_guards`) go its way."""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or statement is None:
            return []
        if not _always_runs(traced.func, statement):
            written = self.ctx.program.setting_guards(traced.func, statement)
            if read_guards is None or written is None or not written.always or not written.implied_by(read_guards):
                return []
        writer = traced.func.name.value
        return [
            holder for node, holder in listed
            if holder is not None and type(node) is cst.Call and _is_self(node.func, writer)  # type: ignore[attr-defined]
        ]

    def _helper_called_after_the_write(
        self, method: cst.FunctionDef, seen: frozenset[cst.FunctionDef] = frozenset(),
        read_guards: SettingGuards | None = None,
    ) -> bool:
        """Every call of `self.<method>(...)` in the class is in the writing function after the
        write, or after a call of the writing function (which always writes it), or in a method
        that is itself only called so (LoFTR's fine matching: `forward`
        sets `self.W`, then calls `self.get_fine_match`, which reads it; Ultralytics' assigner:
        `forward` sets `self.bs`, then `self._forward` calls `self.get_box_metrics`): the method
        reads this call's value. Calls in the methods of a base class in the file count too,
        and `super().<name>(...)` runs the base's method: Ultralytics' pose assigner sets
        `self.anc_strides`, then `super().forward(...)` reaches, through the base's methods, its own
        `select_candidates_in_gts`, which reads it."""
        traced, statement = self.ctx.traced, self.ctx.statement
        if traced is None or traced.cls is None or statement is None or method in seen:
            return False
        own = traced.cls.methods
        inherited = self._inherited_methods(traced.cls)
        called = False
        for other in [*own.values(), *inherited.values()]:
            listed = self.ctx.program.nodes(other) if other is traced.func else _listed(other)
            for node, holder in listed:
                if type(node) is not cst.Call or _called_method(node, own, inherited, other) is not method:  # type: ignore[arg-type]
                    continue
                if other is traced.func:
                    after = holder is not None and (
                        self.ctx.program.runs_before(traced.func, statement, holder) if read_guards is None
                        else self.ctx.program.runs_before_where(traced.func, statement, holder, read_guards)
                    )
                else:
                    after = holder is not None and any(
                        self.ctx.program.runs_before(other, call, holder)
                        for call in self._writer_calls(listed, read_guards)
                    ) or (other is not method and self._helper_called_after_the_write(
                        other, seen | {method}, read_guards
                    ))
                if not after:
                    return False
                called = True
        return called

    def _inherited_methods(self, cls: ModuleClass) -> dict[str, cst.FunctionDef]:
        """The methods the bases of `cls` defined in this file give it, nearest base first
        (what `super().<name>` and an inherited `self.<name>` run)."""
        found: dict[str, cst.FunctionDef] = {}
        pending, visited = list(cls.bases), {cls.node.name.value}
        while pending:
            base = self.ctx.program.classes.get(pending.pop(0))
            if base is None or base.node.name.value in visited:
                continue
            visited.add(base.node.name.value)
            for name, func in base.methods.items():
                found.setdefault(name, func)
            pending.extend(base.bases)
        return found

    VALID = [
        Valid(
            """
            import torch
            class Counter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("calls", torch.zeros(()))
                def forward(self, x):
                    self.calls.add_(1)
                    return x * self.calls
            def xport_example():
                return Counter(), (torch.randn(3),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Counter(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.calls = 0
                def forward(self, x):
                    self.calls += 1  # expect: XPT406
                    return x * self.calls
            def xport_example():
                return Counter(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            class KVCache(torch.nn.Module):
                def forward(self, k):
                    self.last_key = k  # expect: XPT406
                    return k * 2
            def xport_example():
                return KVCache(), (torch.randn(2, 4),)
            """
        ),
        Invalid(
            """
            import torch
            class Track(torch.nn.Module):
                def forward(self, x):
                    self.peak = float(x.abs().max())  # expect: XPT406
                    if self.peak > 1.0:
                        return x / self.peak
                    return x
            def xport_example():
                return Track(), (torch.randn(4) * 3,)
            """,
            expected_replacement="""
            import torch
            class Track(torch.nn.Module):
                def forward(self, x):
                    peak = float(x.abs().max())  # expect: XPT406
                    if peak > 1.0:
                        return x / peak
                    return x
            def xport_example():
                return Track(), (torch.randn(4) * 3,)
            """,
            other_args="(torch.rand(4) * 0.5,)",
        ),
        Invalid(
            """
            import torch
            CALLS = 0
            class Tracked(torch.nn.Module):
                def forward(self, x):
                    global CALLS
                    CALLS = CALLS + 1  # expect: XPT406
                    return x + 1
            def xport_example():
                return Tracked(), (torch.randn(3),)
            """
        ),
    ]


def _fresh(value: cst.BaseExpression) -> bool:
    """A value made afresh from literals, not from what the attribute held (`[0]`, `None`,
    `[None] * n`, `{}`): each call that runs this resets it, so no call sees another's."""
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or (
        isinstance(value, cst.Name) and value.value in ("None", "True", "False")
    ):
        return True
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return all(_fresh(element.value) for element in value.elements)
    if isinstance(value, cst.Dict):
        return not value.elements
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        return isinstance(value.left, cst.List) and _fresh(value.left)
    return False


def _moved(value: cst.BaseExpression, name: str) -> bool:
    """`self.<name>.to(...)`, or `[f.to(...) for f in self.<name>]`: the attribute's own values
    moved to a device or dtype (the same numbers whichever call moves them)."""
    if isinstance(value, cst.IfExp):
        # `self.mask.to(x.dtype) if self.mask is not None else None`
        return _moved(value.body, name) and (
            dotted(value.orelse) == "None" or (isinstance(value.orelse, cst.Attribute) and _is_self(value.orelse, name))
        )
    if isinstance(value, cst.ListComp | cst.GeneratorExp):
        element, loop = value.elt, value.for_in
        return (
            loop.inner_for_in is None and not loop.ifs and isinstance(loop.target, cst.Name)
            and isinstance(loop.iter, cst.Attribute) and _is_self(loop.iter, name)
            and isinstance(element, cst.Call) and isinstance(element.func, cst.Attribute)
            and element.func.attr.value == "to" and isinstance(element.func.value, cst.Name)
            and element.func.value.value == loop.target.value
        )
    return (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "to"
        and isinstance(value.func.value, cst.Attribute) and _is_self(value.func.value, name)
    )


def _moved_local(value: cst.BaseExpression, local: str) -> bool:
    """`<local>.to(...)`."""
    return (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "to"
        and isinstance(value.func.value, cst.Name) and value.func.value.value == local
    )


#: what a tensor's values are (not its sizes): a table made from these is made from data
_DATA = Kind.TENSOR | Kind.MASK | Kind.DD_TENSOR | Kind.DATA | Kind.NUMPY
#: what reads a tensor's metadata, not its values
_METADATA = frozenset({"size", "shape", "dtype", "device", "ndim", "dim"})
#: annotations of Python numbers
_NUMBERS = frozenset({"int", "float", "bool", "None", "Optional"})


def _sizes_only(root: cst.CSTNode, is_data: Callable[[cst.Name], bool]) -> bool:
    """Every name under `root` that `is_data` says holds tensor values is read only for its
    metadata there (`x.size(1)`, `x.dtype`, `len(x)`)."""
    metadata: set[int] = set()
    names: list[cst.Name] = []
    for node in iter_nodes(root):
        node_type = type(node)
        if node_type is cst.Attribute and node.attr.value in _METADATA and type(node.value) is cst.Name:  # type: ignore[attr-defined]
            metadata.add(id(node.value))  # type: ignore[attr-defined]
        elif (
            node_type is cst.Call and isinstance(node.func, cst.Name) and node.func.value == "len"  # type: ignore[attr-defined]
            and len(node.args) == 1 and type(node.args[0].value) is cst.Name  # type: ignore[attr-defined]
        ):
            metadata.add(id(node.args[0].value))  # type: ignore[attr-defined]
        elif node_type is cst.Name:
            names.append(node)  # type: ignore[arg-type]
    return all(id(name) in metadata or not is_data(name) for name in names)


def _takes_numbers_only(func: cst.FunctionDef) -> bool:
    """Every parameter of `func` but `self` is annotated as a Python number (`num_embeddings:
    int`, `padding_idx: int | None`): what it builds, it builds from numbers."""
    params = [p for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
              if p.name.value != "self"]
    return all(p.annotation is not None and annotation_names(p.annotation) <= _NUMBERS for p in params)


def _outgrown(test: cst.BaseExpression, holder: Callable[[cst.CSTNode], bool]) -> bool:
    """`test` orders a size of what `holder` matches against another (`n > t.size(0)`, `len(t) <
    n`): a table rebuilt when it is too short, not one rebuilt whenever the size changes (`t.shape[1]
    != n`, an exact-size cache a program traced on a hit would keep for one size)."""
    return any(
        type(node) is cst.Comparison and all(type(c.operator) in _ORDERS for c in node.comparisons)  # type: ignore[attr-defined]
        and _sizes(node, holder)  # type: ignore[arg-type]
        for node in iter_nodes(test)
    )


_ORDERS = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)


def _sizes(test: cst.BaseExpression, holder: Callable[[cst.CSTNode], bool]) -> bool:
    """`test` reads a size of what `holder` matches: `t.size(...)`, `t.shape`, `len(t)`."""
    for node in iter_nodes(test):
        node_type = type(node)
        if node_type is cst.Attribute and node.attr.value in ("size", "shape") and holder(node.value):  # type: ignore[attr-defined]
            return True
        if (
            node_type is cst.Call and isinstance(node.func, cst.Name) and node.func.value == "len"  # type: ignore[attr-defined]
            and len(node.args) == 1 and holder(node.args[0].value)  # type: ignore[attr-defined]
        ):
            return True
    return False


def _under_size_test(func: cst.FunctionDef, inner: cst.CSTNode, holder: Callable[[cst.CSTNode], bool]) -> bool:
    """`inner` sits in the body of an `if` of `func` whose test finds what `holder` matches too short."""
    for node in iter_nodes(func.body):
        if (
            type(node) is cst.If and _outgrown(node.test, holder)  # type: ignore[attr-defined]
            and any(found is inner for found in iter_nodes(node.body))  # type: ignore[attr-defined]
        ):
            return True
    return False


def _returns_an_attribute(body: cst.BaseSuite) -> bool:
    """The block ends in `return <expression reading a self. attribute>`."""
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, cst.Return) and last.value is not None and any(
        type(node) is cst.Attribute and isinstance(node.value, cst.Name) and node.value.value == "self"  # type: ignore[attr-defined]
        for node in iter_nodes(last.value)
    )


def _makes_a_module_tensor(value: cst.BaseExpression) -> bool:
    """`nn.Buffer(...)` / `nn.Parameter(...)`: strict export refuses to build one in `forward`
    (measured on 2.13: "Unsupported python_type() call"); non-strict keeps it."""
    return isinstance(value, cst.Call) and (dotted(value.func) or "").rpartition(".")[2] in ("Buffer", "Parameter")


def _tests_not_hasattr(test: cst.BaseExpression, name: str) -> bool:
    """`not hasattr(self, "<name>")`."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    call = test.expression
    return (
        isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "hasattr"
        and len(call.args) == 2 and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "self"
        and isinstance(call.args[1].value, cst.SimpleString) and call.args[1].value.evaluated_value == name
    )


def _ready_flag_before(func: cst.FunctionDef, statement: cst.CSTNode) -> str | None:
    """`F` where `func` returns first thing under `if getattr(self, "F", False):` (or `if
    self.F:`, `if hasattr(self, "F"):`) before the top-level statement holding `statement`, and
    sets `self.F = True` at its top level after it: what it sets in between is set once."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    flag = None
    for index, top in enumerate(body):
        if any(inner is statement for inner in iter_nodes(top)):
            later = body[index + 1:]
            return flag if flag is not None and any(_sets_true(after, flag) for after in later) else None
        if (
            isinstance(top, cst.If) and top.orelse is None and isinstance(top.body, cst.IndentedBlock)
            and len(top.body.body) == 1 and isinstance(top.body.body[0], cst.SimpleStatementLine)
            and isinstance(top.body.body[0].body[0], cst.Return)
        ):
            flag = _ready_flag(top.test) or flag
    return None


def _ready_flag(test: cst.BaseExpression) -> str | None:
    """`F` of `getattr(self, "F", False)`, `hasattr(self, "F")` or `self.F`."""
    if isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == "self":
        return test.attr.value
    if (
        isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value in ("getattr", "hasattr")
        and len(test.args) >= 2 and dotted(test.args[0].value) == "self"
        and isinstance(test.args[1].value, cst.SimpleString) and isinstance(test.args[1].value.evaluated_value, str)
        and (len(test.args) == 2 or dotted(test.args[2].value) in ("False", "None"))
    ):
        return test.args[1].value.evaluated_value
    return None


def _sets_true(statement: cst.CSTNode, flag: str) -> bool:
    """`self.<flag> = True`, a top-level statement."""
    return (
        isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign)
        and dotted(statement.body[0].value) == "True"
        and any(_is_self(t.target, flag) for t in statement.body[0].targets)
    )


def _tests_unset(test: cst.BaseExpression, spelled: str) -> bool:
    """`<spelled> is None` (`self.<name>` or a global's name), alone or or-ed with other `... is
    None` tests only (not with `self.<name>.shape[1] != n`, which rebuilds it on later calls too)."""
    operands: list[cst.BaseExpression] = []
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        operands.append(test.right)
        test = test.left
    operands.append(test)
    unset = [
        operand.left for operand in operands
        if isinstance(operand, cst.Comparison) and len(operand.comparisons) == 1
        and isinstance(operand.comparisons[0].operator, cst.Is) and dotted(operand.comparisons[0].comparator) == "None"
    ]
    return len(unset) == len(operands) and any(dotted(left) == spelled for left in unset)


def _called_method(
    call: cst.Call, own: Mapping[str, cst.FunctionDef], inherited: Mapping[str, cst.FunctionDef],
    caller: cst.FunctionDef,
) -> cst.FunctionDef | None:
    """The method `self.<name>(...)` runs (the class's own, else the inherited one), or the base's
    that `super().<name>(...)` runs from one of the class's own methods (None: neither)."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    name = func.attr.value
    if self_attribute(func) is not None:
        return own.get(name) or inherited.get(name)
    if (
        isinstance(func.value, cst.Call) and dotted(func.value.func) == "super" and not func.value.args
        and any(method is caller for method in own.values())
    ):
        return inherited.get(name)
    return None


def _is_self(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == name and isinstance(node.value, cst.Name) and node.value.value == "self"


def _writes(statement: cst.CSTNode, name: str) -> bool:
    """`statement` assigns `self.<name>` afresh (plainly, annotated or unpacked; not `+=`)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return any(_writes(small, name) for small in statement.body)
    targets: list[cst.BaseExpression] = (
        [t.target for t in statement.targets] if isinstance(statement, cst.Assign)
        else [statement.target] if isinstance(statement, cst.AnnAssign) and statement.value is not None else []
    )
    return any(_is_self(node, name) for target in targets for node in iter_nodes(target))


def _reads(expr: cst.BaseExpression, name: str) -> bool:
    return any(type(node) is cst.Attribute and _is_self(node, name) for node in iter_nodes(expr))  # type: ignore[arg-type]


def _stored(statement: cst.CSTNode | None, node: cst.Attribute) -> bool:
    """`node` is a target its statement assigns (`self.x = ...`), not a read."""
    if isinstance(statement, cst.Assign):
        return any(target.target is node for target in statement.targets)
    return isinstance(statement, cst.AnnAssign) and statement.target is node


def _changed_keys(test: cst.BaseExpression) -> set[str]:
    """The attributes `self.<key>` a test compares with `!=` or `is not` (`n != self.cached_len`)."""
    return {
        side.attr.value
        for node in iter_nodes(test) if type(node) is cst.Comparison
        and all(type(c.operator) in (cst.NotEqual, cst.IsNot) for c in node.comparisons)  # type: ignore[attr-defined]
        for side in (node.left, *(c.comparator for c in node.comparisons))  # type: ignore[attr-defined]
        if isinstance(side, cst.Attribute) and isinstance(side.value, cst.Name) and side.value.value == "self"
    }


def _made_from_sizes(func: cst.FunctionDef, value: cst.BaseExpression) -> bool:
    """`value` reads `func`'s parameters (but numbers: annotated so, or defaulting to a number)
    only for their sizes, dtype or device (`x.shape[1]`), directly or through the locals it is made from (each of their assignments in `func` alike);
    the module's own attributes and constants may feed it. A local bound other than by a plain
    assignment (a loop target, `with ... as`) is taken as an input's values."""
    params = {
        p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
        if p.name.value != "self" and not (
            (p.annotation is not None and annotation_names(p.annotation) <= _NUMBERS)
            or isinstance(p.default, (cst.Integer, cst.Float))
        )
    }
    for star in (func.params.star_arg, func.params.star_kwarg):
        if isinstance(star, cst.Param):
            params.add(star.name.value)
    assigned: dict[str, list[cst.BaseExpression]] = {}
    others: set[str] = set()
    for node in iter_nodes(func.body):
        if type(node) is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                for name in iter_nodes(target.target):
                    if type(name) is cst.Name:
                        assigned.setdefault(name.value, []).append(node.value)  # type: ignore[attr-defined]
        elif type(node) in (cst.For, cst.AsName, cst.NamedExpr, cst.AugAssign):
            bound = node.target if type(node) is not cst.AsName else node.name  # type: ignore[attr-defined]
            others.update(name.value for name in iter_nodes(bound) if type(name) is cst.Name)  # type: ignore[attr-defined]
    seen: set[str] = set()
    pending = [value]
    while pending:
        expr = pending.pop()
        if not _sizes_only(expr, lambda name: name.value in params or name.value in others):
            return False
        for name in iter_nodes(expr):
            if type(name) is cst.Name and name.value in assigned and name.value not in seen:  # type: ignore[attr-defined]
                seen.add(name.value)  # type: ignore[attr-defined]
                pending.extend(assigned[name.value])  # type: ignore[attr-defined]
    return True


def _always_runs(func: cst.FunctionDef, statement: cst.CSTNode) -> bool:
    """`statement` is in a line of `func`'s own block (not under an `if`, loop or `try`) with no
    `return` before it: every call of `func` that returns has run it."""
    for line in func.body.body:
        if line is statement or (isinstance(line, cst.SimpleStatementLine) and any(s is statement for s in line.body)):
            return True
        if any(type(node) is cst.Return for node in iter_nodes(line)):
            return False
    return False


def _methods_reaching(methods: Mapping[str, cst.FunctionDef], target: str) -> set[str]:
    """The names of `methods` whose calls reach `self.<target>(...)` through the class's own
    methods (`target` included)."""
    calls = {
        name: {
            node.func.attr.value for node in iter_nodes(func.body) if type(node) is cst.Call  # type: ignore[attr-defined]
            and isinstance(node.func, cst.Attribute) and dotted(node.func.value) == "self"  # type: ignore[attr-defined]
        }
        for name, func in methods.items()
    }
    reaching = {target}
    grown = True
    while grown:
        grown = False
        for name, called in calls.items():
            if name not in reaching and called & reaching:
                reaching.add(name)
                grown = True
    return reaching


def _reset_after(method: cst.FunctionDef, read: cst.CSTNode, name: str) -> bool:
    """The read `read` of `self.<name>` is followed, in its block, by `self.<name> = <fresh>`
    with no `return`, `break` or `continue` between (PyG's attention convs: `alpha = self._alpha;
    self._alpha = None` after `propagate` has `message` set it): the value is consumed by the
    call that reads it, and no later call can read it."""
    for block in iter_nodes(method.body):
        if not isinstance(block, cst.IndentedBlock):
            continue
        lines = list(block.body)
        index = next((i for i, line in enumerate(lines) if line is read or (
            isinstance(line, cst.SimpleStatementLine) and any(s is read for s in line.body)
        )), None)
        if index is None:
            continue
        for line in lines[index + 1:]:
            if isinstance(line, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Assign) and _fresh(small.value) and _writes(small, name) for small in line.body
            ):
                return True
            if any(type(node) in (cst.Return, cst.Break, cst.Continue) for node in iter_nodes(line)):
                return False
        return False
    return False


def _string_branches(func: cst.FunctionDef) -> list[tuple[str, cst.BaseSuite]]:
    """The blocks of `func`'s top-level `if P == "a": ... elif P == "b": ...` chain testing one of
    its parameters against string literals, with their literals (empty: no such chain)."""
    params = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}
    for line in func.body.body if isinstance(func.body, cst.IndentedBlock) else ():
        branches: list[tuple[str, cst.BaseSuite]] = []
        tested: set[str] = set()
        node: cst.BaseSuite | cst.If | cst.Else | None = line if isinstance(line, cst.If) else None
        while isinstance(node, cst.If):
            test = node.test
            if not (
                isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.Equal) and isinstance(test.left, cst.Name)
                and test.left.value in params and isinstance(test.comparisons[0].comparator, cst.SimpleString)
            ):
                break
            tested.add(test.left.value)
            branches.append((str(test.comparisons[0].comparator.evaluated_value), node.body))
            node = node.orelse
        if len(branches) >= 2 and len(tested) == 1:
            return branches
    return []


def _inside(methods: Mapping[str, cst.FunctionDef], blocks: frozenset[cst.CSTNode]) -> set[cst.CSTNode]:
    """The nodes within `blocks`, and the bodies of the methods called only from within them
    (directly or through such methods): what runs only in those blocks."""
    inside: set[cst.CSTNode] = {node for block in blocks for node in iter_nodes(block)}
    grown = True
    while grown:
        grown = False
        for name, func in methods.items():
            if func.body in inside:
                continue
            sites = [
                node for other in methods.values() for node in iter_nodes(other.body)
                if type(node) is cst.Call and isinstance(node.func, cst.Attribute)  # type: ignore[attr-defined]
                and dotted(node.func.value) == "self" and node.func.attr.value == name  # type: ignore[attr-defined]
            ]
            if sites and all(site in inside for site in sites):
                inside.update(iter_nodes(func.body))
                grown = True
    return inside


def _listed(func: cst.FunctionDef) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]:
    """The nodes of a method no traced code reaches, with their statements (source order)."""
    return with_statements(func.body, func, in_function=True)
