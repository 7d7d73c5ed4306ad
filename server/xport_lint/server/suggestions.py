"""torch's suggested `dynamic_shapes`, announced where the example declares them: a diagnostic
on `xport_example()`'s `dynamic_shapes` whose quick fix says what it changes ("narrow `n`
(x.shape[0]) to [0, 4]", "make `seq` static (pins x.shape[1] to 16)"). Each changed dimension
is edited where its `Dim` is written (inline, or the assignment a name refers to), so no `Dim`
is left defined and unused."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from xport_lint.analyzers.model import Edit, Position, Span

from . import convert

CODE = "XPT905"


@dataclass(frozen=True)
class Suggestion:
    #: what it changes, one clause per dimension: "narrow `n` (x.shape[0]) to [0, 4]"
    title: str
    #: the example's `dynamic_shapes` value, where the diagnostic goes
    span: Span
    edits: tuple[Edit, ...]
    #: export passed once the suggestion was applied (torch's own run, in the worker)
    export_ok: bool


def suggest(source: str, refined: dict[str, Any] | None) -> Suggestion | None:
    """The suggestion for `source`, from the confirmation's refined `dynamic_shapes` (its
    `source`, `export_ok`), or None when there is none or it changes nothing."""
    from xport_lint.analyzers.confirm.symbols import dims_of, example_dims

    if not refined or not refined.get("source"):
        return None
    declared = _declared(source)
    if declared is None:
        return None
    value_span, whole_span = declared
    before, after = example_dims(source), dims_of(str(refined["source"]))
    clauses: list[str] = []
    edits: dict[tuple[int, int, int, int], str] = {}
    in_place = True
    for (name, dim), new in sorted(after.items()):
        old = before.get((name, dim))
        if old is not None and (old.minimum or 0, old.maximum) == (new.minimum or 0, new.maximum) and (
            (old.callee is None) == (new.callee is None)
        ):
            continue
        size = f"{name}.shape[{dim}]"
        label = f"`{old.name}`" if old is not None and old.name else size
        if new.callee is None:  # an int: static
            clauses.append(f"make {label} static (pins {size} to {new.minimum})" if label != size
                           else f"make {size} static ({new.minimum})")
        else:
            wider = old is not None and (new.minimum or 0) <= (old.minimum or 0) and (
                old.maximum is not None and (new.maximum is None or new.maximum > old.maximum))
            bounds = f"[{new.minimum or 0}, {'∞' if new.maximum is None else new.maximum}]"
            where = f" ({size})" if label != size else ""
            clauses.append(f"{'widen' if wider else 'narrow'} {label}{where} to {bounds}")
        if old is None or old.callee is None:
            in_place = False
        elif old.where not in edits:
            edits[old.where] = _render(new, old)
    if not clauses:
        return None
    title = "; ".join(dict.fromkeys(clauses))
    title = title[0].upper() + title[1:]
    if in_place:
        changes = tuple(Edit(_span(where), text) for where, text in edits.items())
    else:  # a dimension the example does not spell as a Dim: the whole value, written out
        changes = (Edit(_span(whole_span), str(refined["source"])),)
    return Suggestion(title, _span(value_span), changes, bool(refined.get("export_ok")))


def message(suggestion: Suggestion) -> str:
    then = "export then succeeds" if suggestion.export_ok else "export still fails after it"
    change = suggestion.title[0].lower() + suggestion.title[1:]
    return f"torch.export.export fails with these dynamic_shapes; torch suggests: {change} ({then})"


def diagnostic(lines: list[str], suggestion: Suggestion) -> types.Diagnostic:
    """Information on the example's `dynamic_shapes`; its quick fix comes from the stored
    confirmation (the server's code actions), so `data` only marks it."""
    from xport_lint.analyzers import registry

    return types.Diagnostic(
        range=convert.lsp_range(lines, suggestion.span),
        message=message(suggestion),
        severity=types.DiagnosticSeverity.Information,
        code=CODE,
        code_description=types.CodeDescription(href=registry.RULES[CODE].url()),
        source=convert.SOURCE,
        data={"code": CODE, "suggestion": True, "title": suggestion.title, "exportOk": suggestion.export_ok},
    )


def _render(new: Any, old: Any) -> str:
    """`new` spelled as the source spells `old`'s Dim (`Dim("n", max=4)`)."""
    if new.callee is None:
        return str(new.minimum)
    quote = old.quote
    bounds = f", min={new.minimum}" if new.minimum else ""
    bounds += f", max={new.maximum}" if new.maximum is not None else ""
    return f"{old.callee}({quote}{new.name}{quote}{bounds})"


def _declared(source: str) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]] | None:
    """Where `xport_example()` gives its `dynamic_shapes` (the value as written), and what
    holds the whole structure: the value, or the assignment's value a name there refers to
    (replacing the name would leave the variable unused)."""
    from xport_lint.analyzers.confirm.symbols import dynamic_shapes_value

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    example = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "xport_example"), None)
    value = dynamic_shapes_value(example) if example is not None else None
    if example is None or value is None:
        return None
    whole: ast.expr = value
    if isinstance(value, ast.Name):
        for statement in example.body:
            if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == value.id for t in statement.targets
            ):
                whole = statement.value
    lines = source.splitlines()
    return _where(lines, value), _where(lines, whole)


def _where(lines: list[str], node: ast.expr) -> tuple[int, int, int, int]:
    end = node.end_lineno or node.lineno

    def column(line: int, offset: int) -> int:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))

    return node.lineno, column(node.lineno, node.col_offset), end, column(end, node.end_col_offset or 0)


def _span(where: tuple[int, int, int, int]) -> Span:
    return Span(Position(where[0], where[1]), Position(where[2], where[3]))
