"""A number read from tensor data kept on `self` as scratch state, or in an entry of a dict or list
literal, becomes a local name, which the branch, loop and size rewrites then bind to the tensor it
is read from. Both are steps (`FixProposal.step`): the runner offers one only where the fixes after
it leave fewer errors."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..dataflow import FunctionFlow
from ..model import Applicability
from ..names import dotted
from ..positions import code_of
from ..report import BlockReplacement, FixProposal
from ..shapes import kept_at
from ..walk import iter_nodes
from .common import Usage, scope_names
from .predicates import read_arithmetic


def attribute_as_local(
    flow: FunctionFlow, cls: cst.ClassDef, func: cst.FunctionDef, write: cst.Assign
) -> FixProposal | None:
    """`self.peak = float(x.abs().max())`, a top-level statement of `func`, then `self.peak` read
    only by later top-level statements of `func` -> `peak = ...` and `peak` there (unsafe: assumes
    nothing outside the class reads the attribute, which the exported program never sets anyway).
    Kept on `self`, the number is out of reach of torch.cond's operands and of the rewrites that
    bind the tensor instead; a local is within it. None unless the attribute is this scratch
    state: one write, no read before it, none in another method (an `__init__` default is no
    read), no `getattr`-style access by its name."""
    target = write.targets[0].target if len(write.targets) == 1 else None
    if not (
        isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"
        and read_arithmetic(flow, write.value)
    ):
        return None
    attr = target.attr.value
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    index = next((i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
                  and any(small is write for small in s.body)), None)
    if index is None or not any(s is func for s in cls.body.body):  # type: ignore[union-attr]
        return None
    before, after = body[:index], body[index + 1 :]
    reading = [s for s in after if _mentions(s, attr)]
    if not reading or _mentions(write.value, attr) or any(_mentions(s, attr) for s in before):
        return None
    if any(_stores(s, attr) for s in reading) or _touched_elsewhere(cls, (func,), attr):
        return None
    local = scope_names(flow).fresh(attr)[0]
    return _renaming_step(
        f"Keep `self.{attr}` in a local name `{local}` (assumes nothing outside this call reads `self.{attr}`,"
        " which the exported program does not set)",
        reading, lambda small: _mentions(small, attr), _AttributeAsName(attr, local), first=(write,),
    )


def attribute_kept_by_a_method_as_local(
    flow: FunctionFlow, cls: cst.ClassDef, method: cst.FunctionDef, write: cst.Assign
) -> FixProposal | None:
    """`self.spread = float(t.std())`, the whole body of a method (`_update`) that one other method
    of the class calls once, as a top-level statement (`self._update(x)`), whose later top-level
    statements alone read `self.spread` -> `spread = float(x.std())` in place of the call and
    `spread` there: the method's work written where it runs, then `attribute_as_local`'s step
    (unsafe as that one). None unless the attribute is that scratch state and the method that
    one-statement keeper."""
    kept = kept_by(cls, method, write) if read_arithmetic(flow, write.value) else None
    if kept is None:
        return None
    caller, line, value = kept
    attr = write.targets[0].target.attr.value  # type: ignore[attr-defined]
    body = list(caller.body.body) if isinstance(caller.body, cst.IndentedBlock) else []
    index = body.index(line)
    reading = [s for s in body[index + 1 :] if _mentions(s, attr)]
    if not reading or any(_mentions(s, attr) for s in body[:index]) or any(_stores(s, attr) for s in reading):
        return None
    if _touched_elsewhere(cls, (caller, method), attr):
        return None
    local = scope_names(flow).fresh(attr)[0]
    assigned = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(local))], value)])
    return _renaming_step(
        f"Write `{code_of(line.body[0])}` where it runs and keep `self.{attr}` in a local name `{local}` (assumes"
        f" nothing outside this call reads `self.{attr}`, which the exported program does not set)",
        reading, lambda small: _mentions(small, attr), _AttributeAsName(attr, local),
        blocks=(BlockReplacement(line, line, (assigned,)),),
    )


def kept_by(
    cls: cst.ClassDef, method: cst.FunctionDef, write: cst.Assign
) -> tuple[cst.FunctionDef, cst.SimpleStatementLine, cst.BaseExpression] | None:
    """The one call of `method`, a top-level statement `self.<method>(...)` of another method of
    its class, when `write` is all `method` does (`shapes.kept_at`): the caller, the call's line,
    and the value `write` sets, written at the call. None for a decorated method, another call
    or mention of it, or a value reading a name the caller binds."""
    if method.decorators:
        return None
    name = method.name.value
    lines = [(func, line) for func in cls.body.body if isinstance(func, cst.FunctionDef) and func is not method
             for line in iter_nodes(func) if _calls_self_method(line, name)]
    mentions = sum(1 for node in iter_nodes(cls) if _is_attribute(node, name))
    if len(lines) != 1 or mentions != 1:
        return None
    caller, line = lines[0]
    if not isinstance(caller.body, cst.IndentedBlock) or line not in caller.body.body:
        return None  # not a top-level statement of the caller
    kept = kept_at(method, line.body[0].value)  # type: ignore[union-attr, attr-defined]
    if kept is None or [w for w, _ in kept] != [write]:
        return None
    usage = Usage()
    caller.visit(usage)
    params = {p.name.value for p in (*method.params.params, *method.params.posonly_params)}
    free = {n.value for n in iter_nodes(write.value) if type(n) is cst.Name} - params  # type: ignore[attr-defined]
    return None if free & set(usage.stored) else (caller, line, kept[0][1])  # type: ignore[return-value]


def _renaming_step(
    title: str, reading: list[cst.BaseStatement], mentions: Callable[[cst.CSTNode], bool],
    renamed: cst.CSTTransformer, first: tuple[cst.CSTNode, ...] = (), blocks: tuple[BlockReplacement, ...] = (),
) -> FixProposal:
    """The step that rewrites with `renamed` the statements `reading` (each small statement that
    `mentions` what it renames, each compound one whole) and the small statements `first`, beside
    `blocks`: whole statements, since an edit of a node outside the finding's statement has no
    exact place."""
    smalls = [*first, *(small for s in reading if isinstance(s, cst.SimpleStatementLine) for small in s.body
                        if mentions(small))]
    compound = [s for s in reading if not isinstance(s, cst.SimpleStatementLine)]
    return FixProposal(
        title,
        Applicability.UNSAFE,
        tuple((small, small.visit(renamed)) for small in smalls),
        blocks=(*blocks, *(BlockReplacement(s, s, (s.visit(renamed),)) for s in compound)),  # type: ignore[arg-type]
        step=True,
    )


class _AttributeAsName(cst.CSTTransformer):
    def __init__(self, attr: str, local: str) -> None:
        super().__init__()
        self.attr, self.local = attr, local

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return cst.Name(self.local, lpar=updated.lpar, rpar=updated.rpar) if _is_attribute(updated, self.attr) \
            else updated


def _calls_self_method(node: cst.CSTNode, name: str) -> bool:
    """`node` is a statement line of one call `self.<name>(...)`."""
    small = node.body[0] if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 else None
    return isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and _is_attribute(small.value.func, name)


def _is_attribute(node: cst.CSTNode, attr: str) -> bool:
    return (
        type(node) is cst.Attribute and node.attr.value == attr  # type: ignore[attr-defined]
        and isinstance(node.value, cst.Name) and node.value.value == "self"  # type: ignore[attr-defined]
    )


def _mentions(node: cst.CSTNode, attr: str) -> bool:
    return any(_is_attribute(n, attr) for n in iter_nodes(node))


def _stores(statement: cst.CSTNode, attr: str) -> bool:
    """`statement` assigns or deletes `self.<attr>` somewhere in it."""
    for node in iter_nodes(statement):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [node.target]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        elif isinstance(node, cst.NamedExpr):
            targets = [node.target]
        if any(_is_attribute(n, attr) for t in targets for n in iter_nodes(t)):
            return True
    return False


def _touched_elsewhere(cls: cst.ClassDef, funcs: tuple[cst.FunctionDef, ...], attr: str) -> bool:
    """A part of the class but `funcs` reads `self.<attr>` or names it in a string (`getattr(self,
    "attr")`); `__init__` may only assign it (a default the call overwrites)."""
    for statement in cls.body.body:  # type: ignore[union-attr]
        if any(statement is func for func in funcs):
            continue
        for node in iter_nodes(statement):
            if isinstance(node, cst.SimpleString) and node.evaluated_value == attr:
                return True
            if _is_attribute(node, attr) and not (
                isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__"
                and _assigned_in(statement, node)
            ):
                return True
    return False


def _assigned_in(func: cst.FunctionDef, attribute: cst.CSTNode) -> bool:
    """`attribute` is the whole target of a plain assignment in `func`."""
    return any(
        isinstance(node, cst.Assign) and any(t.target is attribute for t in node.targets)
        for node in iter_nodes(func.body)
    )


def entries_as_locals(flow: FunctionFlow, func: cst.FunctionDef, name: str) -> FixProposal | None:
    """`stats = {"max": x.max().item(), "min": ...}` (or `seen = [x.max().item()]`), a top-level
    statement of `func` binding `name` once, then read only as `stats["max"]` / `seen[0]` with a
    key the literal has -> one local per entry (`stats_max = ...`) read in their place (the same
    values; unsafe as the rewrites it prepares are, which the runner requires to pay). None unless
    an entry is a number read from data."""
    literal = flow.bound_once(name)
    keys = _literal_keys(literal)
    if keys is None or not isinstance(literal, (cst.Dict, cst.List)):
        return None
    if not any(read_arithmetic(flow, e.value) for e in literal.elements):  # type: ignore[union-attr]
        return None
    return _entries_step(
        flow, func, name, literal, keys,
        f"Keep each entry of `{name}` in a local name: the numbers read stay within reach of the rewrites"
        " (the same values; unsafe as the rewrites it prepares are)",
        lambda locals_: tuple(
            cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(locals_[key]))], element.value)])
            for key, element in zip(keys, literal.elements, strict=True)  # type: ignore[union-attr]
        ),
    )


def _entries_step(
    flow: FunctionFlow, func: cst.FunctionDef, name: str, value: cst.BaseExpression, keys: list[str], title: str,
    binding_as: Callable[[dict[str, str]], tuple[cst.BaseStatement, ...]],
) -> FixProposal | None:
    """The step both ways of keeping a value's entries in locals share: `name = value`, a top-level
    statement of `func` (`value` is what `flow.bound_once(name)` gives), `name` not mentioned
    before it and read after it only as `name[<key>]` with one of `keys` -> that statement written
    as `binding_as` writes it with a fresh local per key, each entry read as its local. None when
    `name` is read whole, before its binding, or by a key the value lacks."""
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    index = next((i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
                  and isinstance(s.body[0], cst.Assign) and s.body[0].value is value), None)
    if index is None or any(_mentions_name(s, name) for s in body[:index]):
        return None
    entries = _entry_reads(func, name)
    everywhere = [n for n in iter_nodes(func.body) if type(n) is cst.Name and n.value == name]  # type: ignore[attr-defined]
    if not entries or len(everywhere) != len(entries) + 1 or any(key not in keys for key in entries.values()):
        return None
    locals_ = dict(zip(keys, scope_names(flow).fresh(*(f"{name}_{key}" for key in keys)), strict=True))
    binding = body[index]
    return _renaming_step(
        title, [s for s in body[index + 1 :] if _mentions_name(s, name)], lambda small: _mentions_name(small, name),
        _EntryAsName(name, locals_), blocks=(BlockReplacement(binding, binding, binding_as(locals_)),),
    )


def helper_tuple_at_call(flow: FunctionFlow, func: cst.FunctionDef, name: str) -> FixProposal | None:
    """`lo, hi = _bounds(x)`, a top-level statement of `func` and the only binding of `name` (one of
    its targets), where `_bounds` is a helper or method of the file returning a tuple of numbers
    read from data (`return t.min().item(), t.max().item()`) -> `lo, hi = x.min().item(),
    x.max().item()`: the same values, each now a read the branch, loop and size rewrites bind to
    its tensor. A step (unsafe as the rewrites it prepares are); None unless the call passes plain
    names or attributes (written in the helper's place, each is read where the helper reads it)."""
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    line = next((s for s in body if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
                 and isinstance(s.body[0], cst.Assign) and len(s.body[0].targets) == 1
                 and isinstance(s.body[0].targets[0].target, cst.Tuple)
                 and any(_mentions_name(e.value, name) for e in s.body[0].targets[0].target.elements)), None)
    assign = line.body[0] if line is not None else None
    call = assign.value if isinstance(assign, cst.Assign) else None
    if assign is None or call is None or len(flow.bindings(name)) != 1:
        return None
    values = _returned_reads(flow, call, len(assign.targets[0].target.elements))  # type: ignore[attr-defined]
    if values is None:
        return None
    return FixProposal(
        _AT_THE_CALL.format(call=code_of(call)), Applicability.UNSAFE, ((assign, assign.with_changes(value=values)),),
        step=True,
    )


def indexed_helper_tuple_at_call(flow: FunctionFlow, func: cst.FunctionDef, name: str) -> FixProposal | None:
    """`stats = _stats(x)`, a top-level statement of `func` binding `name` once to the tuple of
    numbers read from data a helper of the file returns, then read only as `stats[0]`, `stats[1]`
    -> `stats_0, stats_1 = x.mean().item(), x.std().item()` and a local in place of each entry: what
    `helper_tuple_at_call` writes for the unpacked tuple, with `entries_as_locals`' names."""
    call = flow.bound_once(name)
    values = _returned_reads(flow, call, None) if call is not None else None
    if values is None:
        return None
    return _entries_step(
        flow, func, name, call, [str(i) for i in range(len(values.elements))],  # type: ignore[arg-type]
        _AT_THE_CALL.format(call=code_of(call)) + f", each element of `{name}` in a local name",
        lambda locals_: (cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(
            cst.Tuple([cst.Element(cst.Name(local)) for local in locals_.values()], lpar=[], rpar=[])
        )], values)]),),
    )


_AT_THE_CALL = ("Write what `{call}` returns at the call: the numbers it reads stay within reach of the rewrites"
                " (the same values; unsafe as the rewrites it prepares are)")


def _returned_reads(flow: FunctionFlow, value: cst.BaseExpression, length: int | None) -> cst.Tuple | None:
    """The tuple of `length` elements (None: any) that `value` computes, written where it is read,
    where one is a number read from data: the call of a helper returning it, or `self.bounds` of a
    one-line `@property` (`return self.stats[0].item(), self.stats[1].item()`). None unless the call
    passes plain names or attributes (written in the helper's place, each is read where the helper
    reads it) and the tuple reads back as written."""
    if isinstance(value, cst.Attribute):
        written = flow.property_inlined(value)
        if not isinstance(written, cst.Tuple) or length not in (None, len(written.elements)):
            return None
    elif isinstance(value, cst.Call) and all(
        isinstance(a.value, cst.Name | cst.Attribute) and a.keyword is None and not a.star for a in value.args
    ):
        written = flow.returned_tuple(value, length)
    else:
        return None
    if written is None or not any(read_arithmetic(flow, e.value) for e in written.elements):
        return None
    values = cst.Tuple([cst.Element(e.value) for e in written.elements], lpar=[], rpar=[])
    # a local of the helper written in without the parentheses it needs (`(t > 0).sum()`) reads back otherwise
    return values if _reads_back(values) else None


def _reads_back(expr: cst.BaseExpression) -> bool:
    """`expr`, written out, parses to the same expressions (none lost to a missing parenthesis)."""
    try:
        parsed = cst.parse_expression(code_of(expr))
    except cst.ParserSyntaxError:
        return False
    shape = [type(n) for n in iter_nodes(parsed) if isinstance(n, cst.BaseExpression)]
    return shape == [type(n) for n in iter_nodes(expr) if isinstance(n, cst.BaseExpression)]


def _literal_keys(literal: cst.BaseExpression | None) -> list[str] | None:
    """The keys of a dict literal of identifier-like string keys (`{"max": ...}`), or the indices of
    a list literal (`["0", "1"]`), as the suffixes of the locals; None for anything else."""
    if isinstance(literal, cst.List) and all(isinstance(e, cst.Element) for e in literal.elements):
        return [str(i) for i in range(len(literal.elements))]
    if not isinstance(literal, cst.Dict):
        return None
    keys = [e.key.evaluated_value if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) else None
            for e in literal.elements]
    if not all(isinstance(k, str) and k.isidentifier() for k in keys) or len(set(keys)) != len(keys):
        return None
    return keys  # type: ignore[return-value]


def _entry_reads(func: cst.FunctionDef, name: str) -> dict[cst.Subscript, str]:
    """Each `name[<key>]` in `func` with one constant key (a string, or a non-negative integer),
    by its key as `_literal_keys` spells it; a store into an entry counts as a read (of no key)."""
    out: dict[cst.Subscript, str] = {}
    for node in iter_nodes(func.body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Subscript) and _mentions_name(t, name) for t in targets):
                return {}  # an entry written: no longer the literal's value
        key = _constant_key(node) if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) \
            and node.value.value == name else None
        if key is not None:
            out[node] = key  # type: ignore[index]
    return out


def _constant_key(node: cst.Subscript) -> str | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if isinstance(key, cst.SimpleString):
        value = key.evaluated_value
        return value if isinstance(value, str) else None
    return key.value if isinstance(key, cst.Integer) and key.value.isdigit() else None


def _mentions_name(node: cst.CSTNode, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in iter_nodes(node))  # type: ignore[attr-defined]


class _EntryAsName(cst.CSTTransformer):
    def __init__(self, name: str, locals_: dict[str, str]) -> None:
        super().__init__()
        self.name, self.locals = name, locals_

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        key = _constant_key(updated) if isinstance(updated.value, cst.Name) and updated.value.value == self.name \
            else None
        return cst.Name(self.locals[key], lpar=updated.lpar, rpar=updated.rpar) if key in self.locals else updated


def identity_conversion_dropped(flow: FunctionFlow, func: cst.FunctionDef, conversion: cst.Call) -> FixProposal | None:
    """`v = float(v)`, a top-level statement of `func`, where the only other binding of `v` is an
    earlier top-level `v = t.item()` (or `v = float(t)`, or a one-line helper returning either; for
    `int(v)`, `v = int(t)`) -> that
    statement dropped: the conversion changes nothing (for a floating-point tensor, as the `.item()`
    fixes assume) but binds the name twice, which keeps the branch, loop and size rewrites from
    binding the tensor in its place. A step (unsafe as the rewrites it prepares are)."""
    converter = dotted(conversion.func)
    name = conversion.args[0].value if len(conversion.args) == 1 else None
    if converter not in ("float", "int") or not isinstance(name, cst.Name) or len(flow.bindings(name.value)) != 2:
        return None
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    bound = [i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
             and isinstance(s.body[0], cst.Assign) and len(s.body[0].targets) == 1
             and isinstance(s.body[0].targets[0].target, cst.Name) and s.body[0].targets[0].target.value == name.value]
    if len(bound) != 2 or body[bound[1]].body[0].value is not conversion:  # type: ignore[attr-defined]
        return None
    first = body[bound[0]].body[0].value  # type: ignore[attr-defined]
    if isinstance(first, cst.Call):
        first = flow.inlined(first) or first  # a one-line helper returning the read: `v = _peak(x)`
    converted_before = isinstance(first, cst.Call) and (
        dotted(first.func) == converter
        or converter == "float" and isinstance(first.func, cst.Attribute) and first.func.attr.value == "item"
        and not first.args
    )
    if not converted_before or any(_mentions_name(s, name.value) for s in body[:bound[0]]):
        return None
    return FixProposal(
        f"Drop `{name.value} = {code_of(conversion)}`: `{name.value}` already holds that number (assumes"
        f" {'a floating-point' if converter == 'float' else 'an integer'} tensor), and bound once it is within reach"
        " of the rewrites (unsafe as the rewrites it prepares are)",
        Applicability.UNSAFE, (),
        blocks=(BlockReplacement(body[bound[0]], body[bound[1]], tuple(body[bound[0] : bound[1]])),), step=True,
    )
