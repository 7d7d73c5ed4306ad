"""Confirmation: run `torch.export.draft_export` (and `export`) on the file's real example and
merge what torch says into the static findings.

Only on request (`check --confirm`, the editor's confirm command): it executes user code.
The engine itself never imports torch; the worker runs in the user's interpreter.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import Edit, Finding, Mode, Position, Related, Severity, Span
from ..positions import split_lines
from ..walk import iter_nodes
from .supervisor import ConfirmError, Worker, WorkerOptions

__all__ = ["Confirmation", "Confirmer", "ConfirmError", "WorkerOptions", "has_example"]

FAILURE_CODES = {
    "DATA_DEPENDENT_ERROR": "XPT901",
    "GUARD_ADDED": "XPT902",
    "MISSING_FAKE_KERNEL": "XPT903",
    "MISMATCHED_FAKE_KERNEL": "XPT904",
}
EXPORT_FAILED = "XPT905"
NOT_CONFIRMED = "XPT906"
NARROWED = "XPT907"
_EXAMPLE = re.compile(r"^def xport_example\(\s*\)", re.MULTILINE)


def has_example(source: str) -> bool:
    return _EXAMPLE.search(source) is not None


def model_classes(source: str, tree: ast.Module | None = None) -> list[tuple[str, int, list[str]]]:
    """(name, line, forward's required parameters) for each class defining `forward`. `tree`:
    the source's `ast` tree when the caller has it (the language server's lint child does)."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return []
    out = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "forward":
                positional = item.args.posonlyargs + item.args.args
                required = positional[1 : len(positional) - len(item.args.defaults)]
                out.append((node.name, node.lineno, [a.arg for a in required]))
    return out


def example_skeleton(source: str, name: str) -> str:
    """An `xport_example()` for class `name`: one placeholder tensor per required argument."""
    params = next((p for n, _, p in model_classes(source) if n == name), [])
    args = ", ".join("torch.randn(2, 8)" for _ in params)
    args = f"({args},)" if len(params) == 1 else f"({args})"
    names = ", ".join(params)
    lead = "" if source.endswith("\n\n") else ("\n" if source.endswith("\n") else "\n\n")
    return (
        f"{lead}\n"
        "def xport_example():\n"
        '    """Inputs for xport-lint\'s draft_export confirmation: replace the shapes with real ones."""\n'
        f"    return {name}(), {args}  # {names}\n"
    )


@dataclass(frozen=True)
class Confirmation:
    path: str
    #: ran | no-example | error | timeout | crash | memory | cancelled | start
    status: str
    findings: list[Finding]
    model: str | None = None
    export_ok: bool | None = None
    summary: str = ""
    suggested_fixes: str | None = None
    #: torch's suggested fixes applied until export passed: {source, rounds, export_ok, error}
    refined: dict[str, Any] | None = None
    cached: bool = False
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def log(self) -> str:
        """torch's logging and the warnings of the run (the worker keeps them off stderr)."""
        return str(self.raw.get("log") or "")

    @property
    def failed(self) -> bool:
        """The example does not export as written, or could not be run (draft_export included)."""
        return self.status != "ran" or not self.export_ok or bool(self.raw.get("draft_error"))


class Confirmer:
    """Confirms files with one warm worker; results are cached by the content of the file and
    of every local module it imported."""

    def __init__(self, options: WorkerOptions | None = None) -> None:
        self.worker = Worker(options)
        self._cache: dict[str, tuple[dict[str, str], dict[str, Any]]] = {}

    def close(self) -> None:
        self.worker.close()

    def confirm(
        self,
        path: str,
        source: str,
        findings: list[Finding],
        root: str | None = None,
        strict: bool = False,
        provider: str | None = None,
    ) -> Confirmation:
        absolute = str(Path(path).resolve())
        key = _digest(source) + f":{strict}:{provider}"
        cached = self._cache.get(absolute)
        if cached is not None and cached[0].get("__key__") == key and _unchanged(cached[0], absolute):
            return merge(path, source, findings, cached[1], cached=True)
        request = {"path": absolute, "root": str(Path(root).resolve()) if root else None, "strict": strict,
                   "provider": provider}
        try:
            raw = self.worker.request(request)
        except ConfirmError as error:
            raw = {"status": error.kind, "error": str(error)}
        if raw.get("status") == "ran":
            hashes = {f: _file_digest(f) for f in raw.get("local_files", []) if f != absolute}
            self._cache[absolute] = ({"__key__": key, **hashes}, raw)
        return merge(path, source, findings, raw)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _unchanged(hashes: dict[str, str], main: str) -> bool:
    return all(_file_digest(f) == digest for f, digest in hashes.items() if f not in ("__key__", main))


def _said_by_static(static: list[Finding], raw: dict[str, Any]) -> int | None:
    """The line of the first static error whose rule says torch fails with what it raised, in
    this mode and this torch: where torch names no line of the model (strict export on 2.14+
    fails on `random.random()` with an `AssertionError` from its own frames)."""
    from .. import registry
    from ..versions import parse

    error = str(raw.get("export_error") or "")
    kind, _, message = error.partition(": ")
    mode = Mode.STRICT if raw.get("strict") else Mode.NON_STRICT
    version = parse(str(raw.get("torch") or ""))
    for finding in static:
        rule = registry.RULES.get(finding.code)
        if rule is None or finding.severity is not Severity.ERROR:
            continue
        for said in rule.FAILS_WITH.get(mode, ()):
            if (
                (version is None or version in said.versions)
                and (not said.type or said.type == kind)
                and said.phrase in message
            ):
                return finding.span.start.line
    return None


def merge(path: str, source: str, static: list[Finding], raw: dict[str, Any], cached: bool = False) -> Confirmation:
    """Static findings marked confirmed/refuted, plus XPT9xx findings only the run produced."""
    from .. import registry

    status = str(raw.get("status", "error"))
    lines = [line.rstrip("\r\n") for line in split_lines(source)]
    model = raw.get("model")
    class_span = _class_span(source, model) if model else None
    anchor = class_span[0] if class_span else 1

    def span_at(line: int) -> Span:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        indent = len(text) - len(text.lstrip())
        return Span(Position(line, indent), Position(line, len(text)))

    def new(code: str, line: int, message: str) -> Finding:
        rule = registry.RULES[code]
        severity = rule.SEVERITY or Severity.ERROR
        return Finding(code, rule.NAME, message, severity, span_at(line), url=rule.url(), confirmation="new")

    if status != "ran":
        if status == "no-example":
            return Confirmation(path, status, list(static), summary="no xport_example() in this file", cached=cached,
                                raw=raw)
        why = "" if status == "error" else f" ({status})"  # "error" would read twice beside the severity
        message = f"could not confirm with draft_export{why}: {raw.get('error', '')}".strip()
        line = raw.get("line") or anchor
        return Confirmation(path, status, [*static, new(NOT_CONFIRMED, line, message.splitlines()[0])],
                            summary=message, cached=cached, raw=raw)

    #: line of this file -> (failure kind, its first line, the failing line in another file of the project)
    by_line: dict[int, list[tuple[str, str, Related | None]]] = {}
    absolute = str(Path(path).resolve())
    # a missing fake kernel confirms XPT409 at the op's definition, wherever the op was called
    ops = {"::".join(str(f.get("expr", "")).split(".")[:2]): f
           for f in raw.get("failures", []) if f["type"] == "MISSING_FAKE_KERNEL"}
    definitions: dict[int, dict[str, Any]] = {}
    for finding in static:
        for op, failure in ops.items():
            if finding.code == "XPT409" and f"`{op}`" in finding.message:
                definitions[finding.span.start.line] = failure
    for failure in raw.get("failures", []):
        if failure in definitions.values():
            continue
        frame = failure.get("frame")
        line = frame["line"] if frame and frame.get("file") == absolute else None
        if line is None:  # torch keeps only the last frames: fall back to the op's call site
            line = _call_line(lines, failure.get("expr", ""), class_span) or raw.get("export_line") or anchor
        elsewhere = _failing_line_elsewhere(failure.get("inner") or frame, absolute)
        by_line.setdefault(line, []).append((failure["type"], _first_line(failure), elsewhere))
    export_ok = bool(raw.get("export_ok"))
    if not export_ok and not by_line:
        line = raw.get("export_line") or _said_by_static(static, raw) or anchor
        by_line.setdefault(line, []).append(
            ("EXPORT_FAILED", (raw.get("export_error") or "").splitlines()[0][:300], None))

    merged: list[Finding] = []
    explained: set[int] = set()
    for line, failure in definitions.items():
        by_line.setdefault(line, []).append((failure["type"], _first_line(failure), None))
    for finding in static:
        hits = by_line.get(finding.span.start.line)
        if hits and finding.code.startswith(("XPT1", "XPT2", "XPT3", "XPT4", "XPT5")):
            kind, text, _ = hits[0]
            explained.add(finding.span.start.line)
            # an EXPORT_FAILED line comes from torch.export.export in the configured mode
            source = ("strict export" if raw.get("strict") else "export") if kind == "EXPORT_FAILED" else "draft_export"
            merged.append(dataclasses.replace(
                finding,
                severity=Severity.ERROR,
                message=f"{finding.message} [confirmed by {source}: {kind}]",
                related=(*finding.related, Related(finding.span, f"{source}: {text}")),
                confirmation="confirmed",
            ))
        elif (export_ok and finding.severity is Severity.ERROR and class_span
              and class_span[0] <= finding.span.start.line <= class_span[1]):
            merged.append(dataclasses.replace(
                finding,
                severity=Severity.INFO,
                message=f"{finding.message} [refuted: torch.export.export succeeded on xport_example()]",
                confirmation="refuted",
            ))
        else:
            merged.append(finding)
    for line, hits in sorted(by_line.items()):
        if line in explained:
            continue
        for kind, text, elsewhere in hits:
            code = FAILURE_CODES.get(kind, EXPORT_FAILED)
            if elsewhere is None or elsewhere.path is None:
                merged.append(new(code, line, f"draft_export: {kind}: {text}"))
                continue
            where = f"{Path(elsewhere.path).name}:{elsewhere.span.start.line}"
            finding = new(code, line, f"draft_export: {kind}: {text} (at {where})")
            merged.append(dataclasses.replace(finding, related=(elsewhere,)))
    draft_error = str(raw.get("draft_error") or "").strip().splitlines()[:1]
    if draft_error and export_ok:  # export passed, so nothing else says that the check is incomplete
        merged.append(new(NOT_CONFIRMED, raw.get("draft_line") or anchor,
                          f"could not confirm with draft_export: it raised {draft_error[0][:300]}"))
    narrowed = raw.get("narrowed") or []
    if narrowed:
        shapes = dynamic_shapes_edit(source, "")
        line = shapes.span.start.line if shapes is not None else anchor
        for item in narrowed:
            # XPT504 predicted this one (`x` dimension 0, example size 1): confirm it, not repeat it
            predicted = f"`{item['input']}` dimension {item['dim']} is Dim.AUTO"
            index = next((i for i, f in enumerate(merged) if f.code == "XPT504" and f.message.startswith(predicted)
                          and f.confirmation is None and item.get("static") is not None), None)
            if index is None:
                merged.append(new(NARROWED, line, _narrowed_message(item)))
                _confirm_guards(merged, item)
                continue
            finding = merged[index]
            merged[index] = dataclasses.replace(
                finding,
                message=f"{finding.message} [confirmed by export: only size {item['static']} is accepted]",
                related=(*finding.related, Related(finding.span, f"export: {_narrowed_message(item)}")),
                confirmation="confirmed",
            )
    merged.sort(key=lambda f: (f.span.start, f.code))
    summary = f"{model}: torch.export.export {'succeeded' if export_ok else 'failed'}"
    if raw.get("failures"):
        summary += f"; draft_export reported {len(raw['failures'])} issue(s)"
    if draft_error:
        summary += f"; draft_export itself raised {draft_error[0][:300]}"
    if narrowed:
        summary += f"; {len(narrowed)} Dim.AUTO dimension(s) came out static or narrowed"
    return Confirmation(path, status, merged, model=model, export_ok=export_ok, summary=summary,
                        suggested_fixes=raw.get("suggested_fixes"), refined=raw.get("refined"), cached=cached,
                        raw=raw)


def _confirm_guards(findings: list[Finding], item: dict[str, Any]) -> None:
    """A range export narrowed confirms the shape branches (XPT301) on that dimension."""
    if item.get("range") is None:
        return
    sizes = (f"`{item['input']}.shape[{item['dim']}]", f"`{item['input']}.size({item['dim']})")
    for index, finding in enumerate(findings):
        if finding.code == "XPT301" and finding.confirmation is None and any(s in finding.message for s in sizes):
            lower, upper = item["range"]
            became = f"{lower}..{'∞' if upper is None else upper}"
            findings[index] = dataclasses.replace(
                finding,
                message=f"{finding.message} [confirmed by export: the range became {became}]",
                confirmation="confirmed",
            )


def _failing_line_elsewhere(frame: dict[str, Any] | None, absolute: str) -> Related | None:
    """Where a failure reported on this file's line really fails, when that is a line of
    another file of the project (a helper the line calls)."""
    if not (frame and frame.get("file") and frame.get("line")) or frame["file"] == absolute:
        return None
    failing = Position(int(frame["line"]), 0)
    return Related(Span(failing, failing), f"draft_export: the failing line, in {Path(frame['file']).name}",
                   frame["file"])


def _narrowed_message(item: dict[str, Any]) -> str:
    where = f"`{item['input']}` dimension {item['dim']} is Dim.AUTO but export"
    if item.get("static") is not None:
        size = item["static"]
        why = " (torch specialises example sizes 0 and 1; use an example of at least 2)" if size in (0, 1) else ""
        return f"{where} made it static: only size {size} is accepted{why}"
    lower, upper = item["range"]
    return f"{where} narrowed it to {lower}..{'∞' if upper is None else upper} (a guard in the code)"


def _call_line(lines: list[str], op: str, within: tuple[int, int] | None) -> int | None:
    """The line calling custom op `ns.name.overload` (draft_export keeps no user frame for it)."""
    parts = op.split(".")
    if len(parts) < 2:
        return None
    call = re.compile(rf"\b{re.escape(parts[1])}\(")
    first, last = within or (1, len(lines))
    for number in range(first, min(last, len(lines)) + 1):
        if call.search(lines[number - 1]):
            return number
    return None


def _first_line(failure: dict[str, Any]) -> str:
    expr = failure.get("expr")
    head = str(failure.get("message", "")).strip().splitlines()[0] if failure.get("message") else ""
    return f"{head} `{expr}`" if expr else head


def _class_span(source: str, name: str) -> tuple[int, int] | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node.lineno, node.end_lineno or node.lineno
    return None


def dynamic_shapes_edit(source: str, replacement: str) -> Edit | None:
    """The edit that puts `replacement` where `xport_example()` gives its `dynamic_shapes`
    (a `"dynamic_shapes": ...` dict entry or a `dynamic_shapes=` keyword), or None."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    example = next(
        (s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == "xport_example"), None
    )
    if example is None:
        return None
    target: cst.BaseExpression | None = None
    for node in iter_nodes(example):
        if (
            isinstance(node, cst.DictElement)
            and isinstance(node.key, cst.SimpleString)
            and node.key.evaluated_value == "dynamic_shapes"
        ):
            target = node.value
        elif isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "dynamic_shapes":
            target = node.value
    if target is None:
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    where = wrapper.resolve(PositionProvider)[target]
    return Edit(
        Span(Position(where.start.line, where.start.column), Position(where.end.line, where.end.column)), replacement
    )
