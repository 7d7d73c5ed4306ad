"""The engine's one entry point: source text in, findings out.

Parse once with libcst (no metadata providers), find the traced code, run every enabled rule
in a single walk over it, and compute positions only for what is reported.
"""

from __future__ import annotations

import ast
import contextvars
import dataclasses
import itertools
import logging
import re
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from . import noqa, registry
from .config import Config
from .context import TABLE_SOURCE, RuleContext
from .facts import FileFacts
from .fixes import apply_edits, apply_fixes
from .incremental import ChunkedParser, FactStore, facts_kept_in
from .index import EMPTY_CONTEXT, FileContext, ModuleSummary, module_name
from .model import Edit, Finding, Fix, Mode, Position, Related, Severity, Span, after_note, internal_failure
from .positions import Locator, code_of, split_lines
from .reach import AfterFailure
from .report import BlockReplacement, FixProposal, Report
from .rule import Rule, Scope
from .severity import TracedError, after_failures, in_mode, judge
from .shapes import ShapeConfig, describe_size
from .walk import iter_nodes

log = logging.getLogger(__name__)

SYNTAX_CODE = "XPT000"
#: CPython's own limit on nested brackets (its tokenizer's MAXLEVEL); libcst's native parser
#: crashes the process (SIGSEGV) somewhere past it, so deeper text never reaches libcst
_MAX_NESTING = 200
_NOT_BRACKETS = re.compile(r"[^()\[\]{}]+")
#: a line of 2,000+ characters, or 400 lines in a row that continue an expression (each starting
#: with `.`, an operator or a closing bracket, as black lays out a chain): a chain worth asking
#: CPython about before libcst parses it. Anchored at line starts, it costs about 0.4% of the
#: parse (13 ms on 44,000 lines of torch's own code)
_LONG_CHAIN = re.compile(r"^(?:[^\n]{2000}|(?:[ \t]*[.+\-*/%@&|^)\]][^\n]*\n){400})", re.MULTILINE)
_NOT_OPERATORS = re.compile(r"[^.()\[\]+\-*/%@&|^<>~]+")
_DEEP_LOCK = threading.Lock()
#: a thread stack and recursion limit that hold every depth CPython 3.11 compiles (measured)
_DEEP_STACK = 512 * 2**20
_DEEP_RECURSION = 100_000
_BRACKET_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
UNUSED_NOQA_CODE = "XPT001"
#: words of the calls reach.export_guard knows (a file without one skips the search for them)
_GUARD_WORDS = (
    "is_exporting", "is_compiling", "is_tracing", "is_scripting", "is_in_onnx_export", "is_torchdynamo",
    "_get_tracing_state",
)
_STATEMENTS = (cst.BaseSmallStatement, cst.BaseCompoundStatement)
# Candidates for an export call site in the text; `_mentions_export_call` checks the word before.
_EXPORT_CALL = re.compile(r"export\s*\(|export\.|fullgraph\s*=\s*True")


@dataclass(frozen=True)
class FileCheck:
    """One file's findings, and its summary for the project index (None: nothing to index, the
    file was skipped or does not parse)."""

    findings: list[Finding]
    summary: ModuleSummary | None = None
    #: the summary, computed when called (`check_file(summarize=False)`: an editor's keystroke
    #: needs the findings at once, the project index the summary only when typing pauses)
    later: Callable[[], ModuleSummary] | None = dataclasses.field(default=None, compare=False, repr=False)


def check_source(
    source: str, path: str = "<stdin>", config: Config | None = None, parser: ChunkedParser | None = None,
    context: FileContext = EMPTY_CONTEXT,
) -> list[Finding]:
    """Findings for one file's text, sorted by position. Never raises on bad input.

    `parser`: reuse the libcst trees of unchanged top-level statements (an editor session).
    `context`: what the rest of the project tells about this file (index.ProjectIndex.context).
    """
    return check_file(source, path, config, parser, context).findings


def check_file(
    source: str, path: str = "<stdin>", config: Config | None = None, parser: ChunkedParser | None = None,
    context: FileContext = EMPTY_CONTEXT, summarize: bool = True,
) -> FileCheck:
    """check_source, with the file's summary for the project index."""
    config = config or Config()
    enabled = config.enabled(path)
    if not enabled:
        return FileCheck([])
    too_deep = _nesting_problem(source) or _long_chain_problem(source)
    if too_deep is not None:
        return FileCheck(_syntax_error_at(too_deep[0], too_deep[1], too_deep[2], enabled))
    try:
        return _check_parsable(source, path, config, enabled, parser, context, summarize)
    except RecursionError:
        # valid Python nests deeper than the analysis recurses with the default limit (a
        # 900-term `x + x + ...`): again, with room for it
        return _check_deep(source, path, config, enabled, context)
    except Exception as error:  # noqa: BLE001 - one file's failed analysis must not end the others'
        failure = f"the analysis raised {type(error).__name__}; the file was not fully checked, please report it"
        return FileCheck([internal_failure(failure)])


def _check_deep(
    source: str, path: str, config: Config, enabled: frozenset[str], context: FileContext
) -> FileCheck:
    """check_file in a thread with a large stack and recursion limit. Measured: every
    expression CPython 3.11 compiles (up to about 3,000 levels: `x + x + ...`, `- - x`,
    `x[0][0]...`, 1,400 chained calls) is analysed, in seconds. What still recurses too deep
    is reported at its line."""
    outcome: list[FileCheck] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(_check_parsable(source, path, config, enabled, None, context))
        except BaseException as error:  # noqa: BLE001 - re-raised or reported below, on the caller's thread
            failed.append(error)

    with _DEEP_LOCK:  # the recursion limit is the interpreter's: one deep check at a time
        limit = sys.getrecursionlimit()
        stack = threading.stack_size(_DEEP_STACK)
        try:
            sys.setrecursionlimit(max(limit, _DEEP_RECURSION))
            thread = threading.Thread(target=work, name="xport-lint-deep-check")
            thread.start()
        finally:
            threading.stack_size(stack)
        thread.join()
        sys.setrecursionlimit(limit)
    if outcome:
        return outcome[0]
    if failed and not isinstance(failed[0], (RecursionError, MemoryError)):
        raise failed[0]
    line = _densest_line(source)
    refused = _python_refuses(source, line)
    if refused is not None:
        return FileCheck(_syntax_error_at(*refused, enabled))
    message = "cannot analyse: the expression on this line nests deeper than xport-lint can follow"
    return FileCheck(_syntax_error_at(line, 0, message, enabled))


def _long_chain_problem(source: str) -> tuple[int, int, str] | None:
    """CPython's refusal of text with a very long operator or call chain, found before libcst
    sees it: libcst's parse time grows with the square of an expression's depth (a 3,000-call
    method chain took 16 s to parse), and CPython refuses to compile one past about 3,000
    levels. The regex (C speed) only decides whether to ask CPython."""
    match = _LONG_CHAIN.search(source)
    if match is None:
        return None
    return _python_refuses(source, source.count("\n", 0, match.start()) + 1)


def _python_refuses(source: str, line: int) -> tuple[int, int, str] | None:
    """CPython's own error when it cannot compile `source` for its depth (reported at `line`,
    which CPython does not give), or None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            compile(source, "<xport-lint>", "exec", dont_inherit=True)
    except RecursionError as error:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        message = f"the expression on this line nests deeper than Python {version} compiles"
        return line, 0, f"cannot compile: {message} (RecursionError: {error})"
    except SyntaxError as error:
        return error.lineno or line, max((error.offset or 1) - 1, 0), f"syntax error: {error.msg}"
    except (MemoryError, ValueError):
        return None
    return None


def _densest_line(source: str) -> int:
    """The line with the most operators and brackets: where a too-deep expression is."""
    counts = [len(_NOT_OPERATORS.sub("", line)) for line in source.split("\n")]
    return counts.index(max(counts)) + 1 if counts else 1


def _nesting_problem(source: str) -> tuple[int, int, str] | None:
    """Python's own error for text nested past its limit, found before libcst sees it. The
    bracket count (C-speed: a regex and `accumulate`) also counts brackets in strings, so a
    deep count is confirmed by CPython's parser, which knows strings."""
    brackets = _NOT_BRACKETS.sub("", source)
    if len(brackets) < _MAX_NESTING:
        return None
    if max(itertools.accumulate(map(_BRACKET_DEPTH.__getitem__, brackets))) < _MAX_NESTING:
        return None
    try:
        ast.parse(source)
    except SyntaxError as error:
        return error.lineno or 1, max((error.offset or 1) - 1, 0), f"syntax error: {error.msg}"
    except (RecursionError, MemoryError):
        return 1, 0, "cannot parse: the code nests too deeply"
    return None


def _check_parsable(
    source: str, path: str, config: Config, enabled: frozenset[str], parser: ChunkedParser | None,
    context: FileContext, summarize: bool = True,
) -> FileCheck:
    tree = None
    try:
        if parser is not None:
            module, tree = parser.parse(source)
        else:
            module = parse_unvalidated(source)
    except cst.ParserSyntaxError as error:
        return FileCheck(_syntax_error(error, source, enabled))
    except (MemoryError, ValueError) as error:
        return FileCheck(_syntax_error_at(1, 0, f"cannot parse: {type(error).__name__}", enabled))
    # the facts of a fresh parse's nodes are dropped with its tree; the parser's, kept with its trees
    store = parser.facts if parser is not None else FactStore()
    with facts_kept_in(store):
        return _analyse(module, tree, source, path, config, enabled, context, summarize, store)


def _analyse(
    module: cst.Module, tree: ast.Module | None, source: str, path: str, config: Config, enabled: frozenset[str],
    context: FileContext, summarize: bool, store: FactStore,
) -> FileCheck:
    """The findings of a parsed file, and its summary (computed later, in `store`, when
    `summarize` is false)."""
    name, is_package = module_name(path)
    guards = any(word in source for word in _GUARD_WORDS)
    program = FileFacts(module, _mentions_export_call(source), context, name, is_package, guards)
    locator = Locator(source, module, tree)
    declare_from_table(program, config.dynamic_shapes)
    if program.declared_shapes:
        program.place_shapes(path, lambda node: _line_of(node, module, locator))
    mode = program.mode(config.mode)
    rules = [
        rule_class
        for code, rule_class in registry.RULES.items()
        if code in enabled and in_mode(rule_class, mode) is not None
    ]
    ctx = RuleContext(program, mode, source, shape_default=config.shapes,
                      torch=config.target.version)
    instances = [r(ctx) for r in rules]
    traced = [r for r in instances if r.SCOPE is Scope.TRACED]
    module_wide = [
        r for r in instances if r.SCOPE is Scope.MODULE and any(t in source for t in r.TRIGGERS)
    ]
    if traced:
        dispatch = _dispatch(traced)
        for item in program.traced:
            ctx.traced = item
            ctx.flow = program.flow(item)
            _walk(program.nodes(item.func), dispatch, ctx, path)
        ctx.traced = ctx.flow = None
    if module_wide:
        _walk(program.module_nodes, _dispatch(module_wide), ctx, path)
    stepped: list[int] = []
    findings, failures = _findings(ctx, locator, config, mode, program, path, stepped)
    findings = _proven_steps(findings, stepped, source, path, config, context)
    if UNUSED_NOQA_CODE in enabled:
        findings.extend(_unused_suppressions(locator, ctx.reports, source))
    if ctx.failures:
        # the file was not fully checked: never let that read as clean
        findings.extend(
            internal_failure(f"{failure}; the file was not fully checked, please report it")
            for failure in sorted(ctx.failures)
        )
    findings.sort(key=lambda f: (f.span.start, f.code))
    if not summarize:

        def summary() -> ModuleSummary:
            with facts_kept_in(store):
                return program.summary(name, path, failures)

        return FileCheck(findings, later=summary)
    summary = program.summary(name, path, failures)
    ctx.release()
    return FileCheck(findings, summary)


#: libcst's node validation, run by every node's constructor (`CSTNode.__post_init__`)
_VALIDATE = cst.CSTNode.__post_init__


def _no_validation(node: cst.CSTNode) -> None:
    """Stands for `CSTNode.__post_init__` while the parser builds a tree."""


def parse_unvalidated(source: str) -> cst.Module:
    """`cst.parse_module`, without libcst validating each node the parser builds: a parsed tree
    is valid by construction, and the validation costs about a sixth of the parse (measured on
    the bench corpus; libcst's own comment on `__post_init__` says as much). Nodes that other
    threads build meanwhile go unvalidated too, which only loses an early error message."""
    cst.CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
    try:
        return cst.parse_module(source)
    finally:
        cst.CSTNode.__post_init__ = _VALIDATE  # type: ignore[method-assign]


def size_facts(
    source: str, path: str = "<stdin>", config: Config | None = None, context: FileContext = EMPTY_CONTEXT
) -> list[tuple[Span, str]]:
    """What the file's export makes of each input size its models' `forward` reads
    (`x.shape[1]`, `x.size(0)`, `len(x)`): static, `Dim.AUTO`, a named `Dim` and its range, and
    where that is declared. For the editor's hover; computed only on request."""
    config = config or Config()
    try:
        module = parse_unvalidated(source)
    except (cst.ParserSyntaxError, MemoryError, ValueError, RecursionError):
        return []
    with facts_kept_in(FactStore()):  # dropped with the tree
        name, is_package = module_name(path)
        guards = any(word in source for word in _GUARD_WORDS)
        program = FileFacts(module, _mentions_export_call(source), context, name, is_package, guards)
        locator = Locator(source, module, None)
        declare_from_table(program, config.dynamic_shapes)
        if program.declared_shapes:
            program.place_shapes(path, lambda node: _line_of(node, module, locator))
        ctx = RuleContext(
            program, program.mode(config.mode), source, shape_default=config.shapes,
            torch=config.target.version,
        )
        out: list[tuple[Span, str]] = []
        for item in program.traced:
            ctx.traced = item
            sizes = ctx.sizes()
            if sizes is None:
                continue
            declared = ctx.shape_config()
            for node, statement in program.nodes(item.func):
                if type(node) not in (cst.Subscript, cst.Call):
                    continue
                ref = sizes.ref(node)  # type: ignore[arg-type]
                if ref is not None:
                    out.append((locator.span(node, statement), describe_size(ref, declared)))
        return out


def _line_of(node: cst.CSTNode, module: cst.Module, locator: Locator) -> int | None:
    """The line of a node of the module (an export call, a module-level dict)."""
    for statement in module.body:
        if statement is node or any(inner is node for inner in iter_nodes(statement)):
            return locator.span(node, statement).start.line
    return None


def declare_from_table(program: FileFacts, table: dict[str, tuple[tuple[str, tuple], ...]]) -> None:
    """A class of this file that `[tool.xport-lint.dynamic-shapes]` declares is a declared model of
    the file, as one its own export call declares, so the `Dim`s of the inputs it passes reach its
    submodules' `forward` in this file and in others (a UNet's batch `Dim` in another file's
    upsampling block). An export script elsewhere in the project still comes first."""
    if not table:
        return
    elsewhere = {name for name, _ in program.context.shapes}
    for cls in program.classes:
        entry = table.get(f"{program.name}.{cls}" if program.name else cls) or table.get(cls)
        if entry is not None and cls not in elsewhere:
            program.declared_shapes.setdefault(cls, ShapeConfig(entry, TABLE_SOURCE))


def _mentions_export_call(source: str) -> bool:
    """Whether the text can hold an export call site (`export(`, `draft_export(`, `torch._export.`,
    `fullgraph=True`): without one, the whole-module walk for call sites is skipped. A plain
    regex with word boundaries cost more than the walk it saves, and `fullgraph` alone matches
    transformers' `_can_compile_fullgraph = True` (283 of the 953 corpus files)."""
    if "export" not in source and "fullgraph" not in source:
        return False
    for match in _EXPORT_CALL.finditer(source):
        start = match.start()
        word = start
        while word > 0 and (source[word - 1].isalnum() or source[word - 1] == "_"):
            word -= 1
        prefix, found = source[word:start], match.group()
        if found.startswith("fullgraph"):
            if not prefix:
                return True
        elif found.startswith("export."):
            if prefix == "_":  # torch._export.<api>
                return True
        elif prefix in ("", "_", "draft_"):
            return True
    return False


def _dispatch(rules: list[Rule]) -> dict[type, list[Callable[[cst.CSTNode], None]]]:
    by_name: dict[str, list[Callable[[cst.CSTNode], None]]] = {}
    for rule in rules:
        for node_name, method in rule.visitors().items():
            by_name.setdefault(node_name, []).append(method)
    out: dict[type, list[Callable[[cst.CSTNode], None]]] = {}
    for node_name, methods in by_name.items():
        node_type = getattr(cst, node_name, None)
        if isinstance(node_type, type):
            out[node_type] = methods
    return out


def _walk(
    nodes: list[tuple[cst.CSTNode, cst.CSTNode | None]],
    dispatch: dict[type, list[Callable[[cst.CSTNode], None]]],
    ctx: RuleContext,
    path: str,
) -> None:
    """Each rule's visitors on the nodes they ask for; `ctx.statement` is the innermost
    statement of each node."""
    for node, statement in nodes:
        methods = dispatch.get(type(node))
        if methods:
            ctx.statement = statement
            for method in methods:
                try:
                    method(node)
                except RecursionError:
                    raise  # the whole file is too deep: reported as such by check_source
                except Exception as error:  # noqa: BLE001 - one broken rule must not hide the others
                    rule = method.__self__  # type: ignore[attr-defined]
                    log.exception("rule %s failed on %s", type(rule).__name__, path)
                    ctx.failures.add(f"{rule.CODE} ({rule.NAME}) raised {type(error).__name__}")


#: how a rule says why it offers no fix here: a message's tail ` (no automatic fix: REASON)`
#: becomes a note of its own, at the finding, starting with this
NO_FIX = "no automatic fix: "


def _findings(
    ctx: RuleContext, locator: Locator, config: Config, mode: Mode, program: FileFacts, path: str,
    stepped: list[int],
) -> tuple[list[Finding], AfterFailure]:
    """The reports as findings, and what their failures leave export never running (for the
    file's summary); `stepped` gets the index of each whose fix is a step."""
    out: list[Finding] = []
    #: (index in out, statement, line) of the errors in traced code, and of those a condition lowered
    errors: list[TracedError] = []
    lowered: dict[int, str] = {}
    seen: set[tuple[str, Span]] = set()
    whole_file = noqa.file_directives(ctx.source)
    for rule, report in ctx.reports:
        if any(noqa.suppresses(directive, rule.CODE) for directive in whole_file):
            continue
        span = locator.span(report.node, report.statement)
        key = (rule.CODE, span)
        if key in seen:
            continue
        seen.add(key)
        line_text = locator.lines[span.start.line - 1] if span.start.line <= len(locator.lines) else ""
        if noqa.suppresses(noqa.directive_on(line_text, span.start.line), rule.CODE):
            continue
        message, no_fix, reason = report.message.partition(f" ({NO_FIX}")
        where = id(report.statement) if report.statement is not None else None
        severity, condition = judge(rule, mode, config.severity, program, id(report.node), where, report.severity)
        if condition is not None:
            message += f" ({condition})"
        related = tuple(
            note
            for node, statement, message in report.related
            if (note := Related(locator.span(node, statement), message)).span.start.line != span.start.line
        )
        if report.reach is not None:
            where_from = Span(Position(report.reach.line, 0), Position(report.reach.line, 0))
            related += (Related(where_from, report.reach.describe(), report.reach.path),)
        for note_path, note_line, note in report.notes:
            elsewhere = note_path if note_path and note_path != path else None
            related += (Related(Span(Position(note_line, 0), Position(note_line, 0)), note, elsewhere),)
        fix = _fix(report.fix, report.statement, locator, program) if report.fix is not None else None
        if fix is not None and report.fix is not None and report.fix.step:
            fix = dataclasses.replace(fix, step=True)
            stepped.append(len(out))
        if no_fix:  # a second line in the CLI, `data.noFix` in the editor: the Problems panel cuts a long message
            related += (Related(span, NO_FIX + reason.removesuffix(")")),)
        out.append(Finding(rule.CODE, rule.NAME, message, severity, span, fix, related, rule.url()))
        failure = severity is Severity.ERROR or (severity is Severity.WARNING and condition is not None)
        if failure and report.statement is not None and rule.CODE not in config.severity:
            errors.append(TracedError(len(out) - 1, rule.CODE, report.statement, span.start.line))
            if condition is not None:
                lowered[len(out) - 1] = condition
    step = after_failures(errors, lowered, program, path)
    for index, why in step.unreached.items():
        out[index] = dataclasses.replace(out[index], severity=Severity.WARNING, message=f"{out[index].message} ({why})")
    for index, line in step.after.items():
        finding = out[index]
        out[index] = dataclasses.replace(
            finding, severity=Severity.WARNING, message=finding.message + after_note(line), after=line,
        )
    return out, step.failures


#: set while a step fix is being proven: the checks inside offer no step of their own
_PROVING_STEP = contextvars.ContextVar("proving_step", default=False)


def _proven_steps(
    findings: list[Finding], stepped: list[int], source: str, path: str, config: Config, context: FileContext
) -> list[Finding]:
    """`findings` with the step fix of each of `stepped` kept only where applying it, then every
    fix round after, leaves fewer errors than the rounds leave without it (unsafe fixes included: a
    step is one). A step alone never removes the error it is offered on; what it prepares may fail
    to fix."""
    if not stepped:
        return findings
    if _PROVING_STEP.get():
        return [dataclasses.replace(f, fix=None) if i in stepped else f for i, f in enumerate(findings)]
    token = _PROVING_STEP.set(True)
    try:
        left = _errors_left(source, path, config, context)
        out = list(findings)
        for i in stepped:
            fix = out[i].fix
            assert fix is not None
            if _errors_left(apply_edits(source, fix.edits), path, config, context) >= left:
                out[i] = dataclasses.replace(out[i], fix=None)
        return out
    finally:
        _PROVING_STEP.reset(token)


def _errors_left(source: str, path: str, config: Config, context: FileContext) -> int:
    fixed = fix_source(source, path, config, unsafe=True, context=context)
    return sum(1 for f in check_source(fixed, path, config, context=context) if f.severity is Severity.ERROR)


def _fix(
    proposal: FixProposal, statement: cst.CSTNode | None, locator: Locator, program: FileFacts
) -> Fix | None:
    edits: list[Edit] = []
    for old, new in proposal.replacements:
        content = "" if isinstance(new, cst.RemovalSentinel) else code_of(new)
        if isinstance(old, _STATEMENTS):
            whole = locator.statement_span(old)
            if whole is None:
                return None
            span = whole
            line = locator.lines[span.start.line - 1]
            content = _indent_continuation(content, line[: len(line) - len(line.lstrip())])
            if content is None:
                return None
        else:
            span = locator.exact_span(old, statement)
        edits.append(Edit(span, content))
    for block in proposal.blocks:
        edit = _block_edit(block, locator, program.module)
        if edit is None:
            return None
        edits.append(edit)
    for name in proposal.imports:
        if name not in program.imports.aliases:
            line = _import_line(program.module)
            edits.append(Edit(Span(Position(line, 0), Position(line, 0)), f"import {name}\n"))
    return Fix(proposal.title, proposal.applicability, tuple(sorted(edits, key=lambda e: e.span)))


def _indent_continuation(code: str, indent: str) -> str | None:
    """Lines after the first of a rendered statement, at the statement's indentation. None when
    the code holds a multi-line string, whose text the indentation would change."""
    lines = split_lines(code)
    if len(lines) > 1 and ('"""' in code or "'''" in code):
        return None
    return lines[0] + "".join(indent + line if line.strip() else line for line in lines[1:]) if lines else code


def _block_edit(block: BlockReplacement, locator: Locator, module: cst.Module) -> Edit | None:
    """Whole lines of the replaced statements, re-rendered at the first one's indentation (no
    statements: the lines go)."""
    first, last = locator.lines_of(block.first), locator.lines_of(block.last)
    if first is None or last is None:
        return None
    if not block.statements:
        return Edit(Span(Position(first[0], 0), Position(last[1] + 1, 0)), "")
    line = locator.lines[first[0] - 1]
    indent = line[: len(line) - len(line.lstrip())]
    rendered = cst.Module(
        body=list(block.statements), default_indent=module.default_indent, default_newline=module.default_newline
    ).code
    continued = _indent_continuation(rendered, indent)
    if continued is None:
        return None
    text = indent + continued
    end = Position(last[1] + 1, 0)
    if last[1] >= len(locator.lines) and not locator.lines[-1].endswith("\n"):
        end = Position(last[1], len(locator.lines[-1]))
        text = text.rstrip("\n")
    return Edit(Span(Position(first[0], 0), end), text)


def _import_line(module: cst.Module) -> int:
    """Line after the file's leading docstring and imports."""
    line = 1 + len(module.header)
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom, cst.Expr)) for s in stmt.body
        ):
            line += code_of(stmt).count("\n")
            continue
        break
    return line


def _syntax_error(error: cst.ParserSyntaxError, source: str, enabled: frozenset[str]) -> list[Finding]:
    """CPython's message, line and column (`expected ':'` at the `if`), as `python` would say
    it; libcst's own (a list of expected tokens, at the next token) only when CPython accepts
    the text."""
    refused = _python_refuses(source, error.raw_line)
    if refused is not None:
        return _syntax_error_at(*refused, enabled)
    message = error.message.splitlines()[0] if error.message else "invalid syntax"
    return _syntax_error_at(
        error.raw_line, error.raw_column, f"cannot parse: libcst rejects what Python accepts ({message})", enabled
    )


def _syntax_error_at(line: int, column: int, message: str, enabled: frozenset[str]) -> list[Finding]:
    if SYNTAX_CODE not in enabled:
        return []
    span = Span(Position(max(line, 1), column), Position(max(line, 1), column))
    rule = registry.RULES[SYNTAX_CODE]
    return [Finding(SYNTAX_CODE, rule.NAME, message, Severity.ERROR, span,
                    url=rule.url())]


def _unused_suppressions(
    locator: Locator, reports: list[tuple[Rule, Report]], source: str
) -> list[Finding]:
    """`# noqa: XPT...` directives that silence nothing on their line, and file-level
    `# xport-lint: noqa: XPT...` ones that silence nothing in the file (the opt-in XPT001)."""
    raised: dict[int, set[str]] = {}
    for rule, report in reports:
        line = locator.span(report.node, report.statement).start.line
        raised.setdefault(line, set()).add(rule.CODE)
    in_file = set().union(*raised.values())
    rule = registry.RULES[UNUSED_NOQA_CODE]
    file_level = noqa.file_directives(source)
    if any(noqa.suppresses(d, UNUSED_NOQA_CODE) for d in file_level):
        return []
    out = []
    for directive, whole_file in [
        *((d, False) for d in noqa.all_directives(locator.lines)), *((d, True) for d in file_level)
    ]:
        codes = directive.codes
        if codes is None:
            continue
        ours = {c for c in codes if c.startswith("XPT")}
        unused = ours - (in_file if whole_file else raised.get(directive.line, set()))
        if unused:
            text = locator.lines[directive.line - 1].rstrip("\r\n")
            span = Span(Position(directive.line, directive.column), Position(directive.line, len(text)))
            names = ", ".join(sorted(unused))
            out.append(
                Finding(UNUSED_NOQA_CODE, rule.NAME, f"unused suppression for {names}",
                        rule.SEVERITY or Severity.INFO, span, url=rule.url())
            )
    return out



def fix_source(
    source: str, path: str, config: Config, unsafe: bool, findings: list[Finding] | None = None, rounds: int = 5,
    context: FileContext = EMPTY_CONTEXT,
) -> str:
    """`source` with the fixes of `findings` (default: all its findings) applied, re-checking
    between rounds: fixes whose edits overlapped an earlier one apply in the next round.
    `context`: the file's project context (project.ProjectCheck.contexts), kept in every round."""
    text = source
    findings = check_source(text, path, config, context=context) if findings is None else findings
    for _ in range(rounds):
        new = apply_fixes(text, findings, unsafe)
        if new == text:
            break
        text = new
        findings = check_source(text, path, config, context=context)
    return text
