"""The same fact, spelt another way, gets the same verdict.

Every failing rule example (an INVALID case with `# expect:` lines) is rewritten, with libcst,
into spellings that compute the same thing, one flagged expression at a time:

- `bind`: the flagged expression bound to a fresh local on the line before, the name used;
- `helper`: the flagged expression passed through `def _h(v): return v` (module level);
- `unpack`: the flagged expression bound by tuple unpacking, `a, _ = expr, 0`;
- `negate`: an `if`/`else` flagged on its test, written `if not (test):` with the branches swapped
  (see below for an `if` with no `else`);
- `split`: the flagged statement split in two: the flagged expression's first compound operand
  bound to a fresh local on the line before;
- `module`: the flagged expression passed through the same helper defined in another file of
  the package (`from .helpers import _h`), checked as a project;
- `attribute`: a number written in the flagged expression read from a `self.` attribute that
  `__init__` sets to it instead;
- `negate` on an `if` with no `else` whose body and the rest of its block end in `return`: the
  guard clause the other way round (`if not (test): <rest>`, then the body).

The failing rule examples and every snippet of the fix corpus (tests/truth/fix_corpus.py,
its flagged lines marked from the original's findings) are varied.

Each variant must be flagged by the same rule on the corresponding line (the original statement
or a line split off it), with the same severity, and with a fix wherever the original has one;
or be listed in KNOWN_GAPS with why. A variant that would not compute the same thing is not made
(the position rules in `_placement`): hoisting out of a `while` test, an `elif`, a comprehension
or lambda, the right of `and`/`or`, a branch of `x if c else y`, or an assignment target.
Static and fast: no torch.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from tests.conftest import all_cases
from tests.truth.fix_corpus import SNIPPETS
from xport_lint.analyzers import Config, check_source, registry
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.model import Finding, Severity
from xport_lint.analyzers.project import check_project
from xport_lint.analyzers.rule import Invalid, Rule
from xport_lint.analyzers.runner import fix_source

EVERYTHING = Config(select=("ALL",))
KINDS = ("bind", "helper", "unpack", "negate", "split", "module", "attribute")
#: the other file of a `module` variant: the package's `helpers.py`
HELPERS = "def _h(v):\n    return v\n"
#: the comment that ties a line split off a flagged statement to it (the statement's own line
#: keeps its `# expect:` marker)
SPLIT_MARK = "# split off the next flagged line"

#: spellings whose verdict still differs, with why: (rule code, kind) -> reason. A listed variant
#: that now gets the same verdict simply passes; an entry none of whose variants differs fails
KNOWN_GAPS: dict[tuple[str, str], str] = {
    ("XPT415", "module"): (
        "the output's class is read where `forward` returns it, binds it to a name or a one-line helper of the"
        " file hands it back; an instance passed through a function of another file (`return helpers._h(Output(...))`)"
        " is not followed (that file's names are not this file's classes)"
    ),
}


@dataclass(frozen=True)
class Variant:
    case_id: str
    kind: str
    rule: type[Rule]
    original: str
    source: str
    #: other files of the package the variant is checked in (a `module` variant's helper)
    files: tuple[tuple[str, str], ...] = ()


# -- where an expression may move ---------------------------------------------------------------


def _parents(wrapper: MetadataWrapper) -> dict[cst.CSTNode, cst.CSTNode]:
    return dict(wrapper.resolve(ParentNodeProvider))


_OWN_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FunctionDef, cst.ClassDef)


def _placement(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> cst.BaseStatement | None:
    """The statement in an indented block before which `node` can be computed instead, with the
    same result: None where moving it would change what runs (a `while` test is evaluated every
    step, an `elif` test and the right of `and`/`or` only sometimes, a comprehension's element
    in its own scope) or where `node` is written to."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, _OWN_SCOPES):
            return None
        if isinstance(parent, cst.BooleanOperation) and child is parent.right:
            return None
        if isinstance(parent, cst.IfExp) and child is not parent.test:
            return None
        if isinstance(parent, (cst.AssignTarget, cst.Del, cst.CompFor, cst.NamedExpr)):
            return None
        if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and child is parent.target:
            return None
        if isinstance(parent, cst.For) and child is parent.target:
            return None
        if isinstance(parent, cst.While):
            return None
        if isinstance(parent, cst.If) and isinstance(parents.get(parent), cst.If):
            return None  # an `elif`: its test runs only when the tests above it fail
        if isinstance(parent, (cst.SimpleStatementLine, cst.If, cst.For, cst.With)):
            holder = parents.get(parent)
            return parent if isinstance(holder, cst.IndentedBlock) else None
        if isinstance(parent, (cst.BaseCompoundStatement, cst.BaseSmallStatement)) and not isinstance(
            parent, (cst.Expr, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return, cst.Assert)
        ):
            return None
        child, parent = parent, parents.get(parent)
    return None


def _written(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Whether `node` is (part of) a target: `self.calls += 1`, `for x in ...`, `del x`."""
    child, parent = node, parents.get(node)
    while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, (cst.NamedExpr, cst.CompFor)) and child is parent.target
        ):
            return True
        child, parent = parent, parents.get(parent)
    targets = (cst.AugAssign, cst.AnnAssign, cst.For, cst.Del)
    return isinstance(parent, targets) and getattr(parent, "target", None) is child


def _movable(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """An expression read for its value: not a callee, a target, a keyword or an annotation, nor
    a whole expression statement (`print(x)`: its value is not used, there is nothing to bind)."""
    parent = parents.get(node)
    if not isinstance(node, cst.BaseExpression) or isinstance(node, (cst.StarredElement, cst.Ellipsis)):
        return False
    if isinstance(parent, cst.Expr) or _written(node, parents):
        return False
    if isinstance(parent, cst.Call) and node is parent.func:
        return False
    if isinstance(parent, cst.Attribute) and node is parent.attr:
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName)):
        return False  # a name being defined, not read
    if isinstance(parent, cst.MatchValue):
        return False  # a `case` pattern: Python allows no call or name there
    return not isinstance(parent, (cst.Annotation, cst.Decorator, cst.Param, cst.Arg)) or (
        isinstance(parent, cst.Arg) and node is parent.value
    )


def _trivial(node: cst.BaseExpression) -> bool:
    """A name, a literal (`-1`, `()` too) or a dotted name: nothing to split off."""
    while isinstance(node, cst.Attribute):
        node = node.value
    if isinstance(node, cst.Tuple) and not node.elements:
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.BaseNumber):
        return True
    return isinstance(node, (cst.Name, cst.BaseNumber, cst.BaseString))


def _operand(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The first operand of `node` worth a statement of its own (`x.sum()` of `x.sum() > 0`)."""
    if isinstance(node, cst.Call):
        parts = [node.func.value] if isinstance(node.func, cst.Attribute) else []
        parts += [arg.value for arg in node.args if not arg.star]
    elif isinstance(node, (cst.Attribute, cst.Subscript)):
        parts = [node.value]
    elif isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        parts = [node.left]
    elif isinstance(node, cst.Comparison):
        parts = [node.left, *(c.comparator for c in node.comparisons)]
    elif isinstance(node, cst.UnaryOperation):
        parts = [node.expression]
    else:
        parts = []
    return next((part for part in parts if not _trivial(part)), None)


# -- the transforms -----------------------------------------------------------------------------


def _names(module: cst.Module) -> set[str]:
    return {node.value for node in _walk(module) if isinstance(node, cst.Name)}


def _fresh(module: cst.Module, stem: str) -> str:
    taken = _names(module)
    name, i = stem, 0
    while name in taken:
        i += 1
        name = f"{stem}_{i}"
    return name


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _statement(code: str) -> cst.SimpleStatementLine:
    line = cst.parse_statement(code)
    assert isinstance(line, cst.SimpleStatementLine)
    comment = cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(SPLIT_MARK))
    return line.with_changes(trailing_whitespace=comment)


class _Rewrite(cst.CSTTransformer):
    """Replace `target` by `replacement` and insert `before` ahead of the statement `anchor`."""

    def __init__(
        self, target: cst.CSTNode, replacement: cst.CSTNode,
        anchor: cst.CSTNode | None = None, before: Sequence[cst.BaseStatement] = (),
    ) -> None:
        self.target, self.replacement, self.anchor, self.before = target, replacement, anchor, before

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        if original is self.target:
            return self.replacement
        if isinstance(original, cst.IndentedBlock) and any(s is self.anchor for s in original.body):
            assert isinstance(updated, cst.IndentedBlock)
            body: list[cst.BaseStatement] = []
            for old, new in zip(original.body, updated.body, strict=True):
                body += [*self.before, new] if old is self.anchor else [new]
            return updated.with_changes(body=body)
        return updated


def _with_helper(module: cst.Module, helper: str) -> cst.Module:
    """`module` with `def helper(v): return v` after its imports."""
    body = list(module.body)
    at = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
        ):
            at = i + 1
    definition = cst.parse_statement(f"def {helper}(v):\n    return v\n")
    return module.with_changes(body=[*body[:at], definition, *body[at:]])


def _negated(node: cst.If) -> cst.If | None:
    """`if not (test): <else> else: <body>`, the `# expect:` marker kept on the `if` line."""
    if not isinstance(node.orelse, cst.Else) or not isinstance(node.body, cst.IndentedBlock):
        return None
    orelse = node.orelse.body
    if not isinstance(orelse, cst.IndentedBlock):
        return None
    negated = _not(node.test)
    return node.with_changes(
        test=negated,
        body=orelse.with_changes(header=node.body.header),
        orelse=node.orelse.with_changes(body=node.body.with_changes(header=orelse.header)),
    )


def _not(test: cst.BaseExpression) -> cst.UnaryOperation:
    if not isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=test)


def _guard_inverted(node: cst.If, block: cst.IndentedBlock) -> cst.IndentedBlock | None:
    """`if test: <body ending in return>` then `<rest ending in return>` as the guard clause the
    other way round: `if not (test): <rest>` then `<body>`, the marker kept on the `if` line."""
    body = node.body
    at = next((i for i, s in enumerate(block.body) if s is node), None)
    if at is None or node.orelse is not None or not isinstance(body, cst.IndentedBlock):
        return None
    rest = list(block.body[at + 1:])
    if not rest or not (_returns(body.body[-1]) and _returns(rest[-1])):
        return None
    guard = node.with_changes(test=_not(node.test), body=body.with_changes(body=rest))
    return block.with_changes(body=[*block.body[:at], guard, *body.body])


def _returns(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[-1], cst.Return)


def _with_import(module: cst.Module, helper: str) -> cst.Module:
    """`module` importing `helper` from the package's other file, after its own imports."""
    body = list(module.body)
    at = max((i + 1 for i, stmt in enumerate(body) if _imports(stmt)), default=0)
    return module.with_changes(body=[*body[:at], cst.parse_statement(f"from .helpers import {helper}\n"), *body[at:]])


def _imports(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _as_attribute(
    module: cst.Module, node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]
) -> cst.Module | None:
    """The first number `node` compares with or computes with (a threshold, a scale: not an
    index or a dimension) read from `self.<fresh>` instead, which the class's `__init__` sets to
    it (an `__init__` calling `super().__init__()` made where there is none)."""
    number = next((
        n for n in _walk(node)
        if isinstance(n, (cst.Integer, cst.Float)) and isinstance(parents.get(n), (cst.Comparison, cst.ComparisonTarget,
                                                                                  cst.BinaryOperation))
    ), None)
    method: cst.CSTNode | None = node
    while method is not None and not isinstance(method, cst.FunctionDef):
        method = parents.get(method)
    owner = parents.get(parents.get(method)) if method is not None else None  # FunctionDef < block < class
    if number is None or not isinstance(owner, cst.ClassDef) or not isinstance(owner.body, cst.IndentedBlock):
        return None
    params = method.params.params  # type: ignore[union-attr]
    if not params or params[0].name.value != "self" or _written(number, parents):
        return None
    name = _fresh(module, "k")
    read = cst.Attribute(value=cst.Name("self"), attr=cst.Name(name))
    changed = owner.visit(_Rewrite(number, read))
    assert isinstance(changed, cst.ClassDef) and isinstance(changed.body, cst.IndentedBlock)
    members = list(changed.body.body)
    init = next((m for m in members if isinstance(m, cst.FunctionDef) and m.name.value == "__init__"), None)
    if init is None:
        members.insert(0, cst.parse_statement(
            f"def __init__(self):\n    super().__init__()\n    self.{name} = {number.value}\n"
        ))
    elif isinstance(init.body, cst.IndentedBlock):
        setting = cst.parse_statement(f"self.{name} = {number.value}\n")
        grown = init.with_changes(body=init.body.with_changes(body=[*init.body.body, setting]))
        members = [grown if m is init else m for m in members]
    else:
        return None
    return module.visit(_Rewrite(owner, changed.with_changes(body=changed.body.with_changes(body=members))))


def _flagged(wrapper: MetadataWrapper, finding: Finding) -> cst.CSTNode | None:
    """The innermost expression spanning exactly what `finding` marks (else the outermost node)."""
    positions = wrapper.resolve(PositionProvider)
    span = finding.span
    matches = [
        node for node, where in positions.items()
        if (where.start.line, where.start.column, where.end.line, where.end.column)
        == (span.start.line, span.start.column, span.end.line, span.end.column)
    ]
    expressions = [node for node in matches if isinstance(node, cst.BaseExpression)]
    if expressions:
        return min(expressions, key=lambda n: sum(1 for _ in _walk(n)))
    return max(matches, key=lambda n: sum(1 for _ in _walk(n)), default=None)


def variants_of(case_id: str, rule: type[Rule], case: Invalid) -> Iterator[Variant]:
    """Every spelling variant of every flagged expression of `case`."""
    expected = case.expected_lines(rule.CODE)
    findings = [
        f for f in check_source(case.source, "example.py", EVERYTHING)
        if f.code == rule.CODE and f.span.start.line in expected
    ]
    try:
        cst.parse_module(case.source)
    except cst.ParserSyntaxError:
        return  # a syntax error has no other spelling
    for index, finding in enumerate(findings):
        wrapper = MetadataWrapper(cst.parse_module(case.source))
        module = wrapper.module
        parents = _parents(wrapper)
        node = _flagged(wrapper, finding)
        if node is None:
            continue
        for kind in KINDS:
            made = _make(kind, module, node, parents)
            if made is not None:
                files = (("helpers.py", HELPERS),) if kind == "module" else ()
                yield Variant(f"{case_id}-{index}", kind, rule, case.source, made.code, files)


def _make(
    kind: str, module: cst.Module, node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]
) -> cst.Module | None:
    if kind == "negate":
        holder = node if isinstance(node, cst.If) else parents.get(node)
        while holder is not None and not isinstance(holder, (cst.If, cst.BaseSmallStatement, cst.IndentedBlock)):
            holder = parents.get(holder)
        if not isinstance(holder, cst.If) or isinstance(parents.get(holder), cst.If):
            return None
        if holder.orelse is None:
            block = parents.get(holder)
            inverted = _guard_inverted(holder, block) if isinstance(block, cst.IndentedBlock) else None
            return None if inverted is None else module.visit(_Rewrite(block, inverted))
        negated = _negated(holder)
        return None if negated is None else module.visit(_Rewrite(holder, negated))
    if kind == "attribute":
        return _as_attribute(module, node, parents)
    if not _movable(node, parents):
        return None
    assert isinstance(node, cst.BaseExpression)
    if kind in ("helper", "module"):
        helper = "_h" if kind == "module" and "_h" not in _names(module) else _fresh(module, "_h")
        if kind == "module" and helper != "_h":
            return None
        call = cst.Call(func=cst.Name(helper), args=[cst.Arg(node.with_changes(lpar=[], rpar=[]))])
        rewritten = module.visit(_Rewrite(node, call))
        return _with_helper(rewritten, helper) if kind == "helper" else _with_import(rewritten, helper)
    moved = node if kind != "split" else _operand(node)
    if moved is None:
        return None
    anchor = _placement(moved, parents)
    if anchor is None:
        return None
    name = _fresh(module, "part" if kind == "split" else "value")
    text = cst.Module([]).code_for_node(moved.with_changes(lpar=[], rpar=[]))
    line = f"{name}, _ = {text}, 0" if kind == "unpack" else f"{name} = {text}"
    return module.visit(_Rewrite(moved, cst.Name(name), anchor, [_statement(line)]))


def corpus_cases() -> Iterator[tuple[type[Rule], Invalid, str]]:
    """Each snippet of the fix corpus, once per rule that flags it, with an `# expect:` marker on
    every line that rule flags (an error or a warning) in the snippet as written."""
    for name, source in SNIPPETS.items():
        lines = source.splitlines()
        flagged: dict[str, set[int]] = {}
        for f in check_source(source, "example.py", EVERYTHING):
            if f.severity in (Severity.ERROR, Severity.WARNING) and not registry.RULES[f.code].CONFIRMATION_ONLY:
                flagged.setdefault(f.code, set()).add(f.span.start.line)
        for code, marked in sorted(flagged.items()):
            text = "\n".join(f"{line}  # expect: {code}" if i in marked else line for i, line in enumerate(lines, 1))
            yield registry.RULES[code], Invalid(text + "\n"), f"{code}-corpus-{name}"


def all_variants() -> list[Variant]:
    cases = [
        (rule, case, case_id) for rule, case, case_id in all_cases()
        if isinstance(case, Invalid) and not rule.CONFIRMATION_ONLY and case.expected_lines(rule.CODE)
    ]
    return [variant for rule, case, case_id in [*cases, *corpus_cases()] for variant in variants_of(case_id, rule, case)]


# -- the verdict --------------------------------------------------------------------------------


def _groups(source: str, code: str) -> dict[int, int]:
    """Line -> the index of the flagged statement it belongs to (its `# expect:` line, and the
    lines split off just before it)."""
    lines = source.splitlines()
    marked = Invalid(source).expected_lines(code)
    out: dict[int, int] = {}
    for index, line in enumerate(marked):
        out[line] = index
        above = line - 1
        while above >= 1 and lines[above - 1].rstrip().endswith(SPLIT_MARK):
            out[above] = index
            above -= 1
    return out


def findings(source: str, files: tuple[tuple[str, str], ...] = ()) -> list[Finding]:
    """What the linter finds in `source`; with `files`, in `source` as `example.py` of a package
    holding them too, checked as a project (the project index follows calls between them)."""
    if not files:
        return check_source(source, "example.py", EVERYTHING)
    with tempfile.TemporaryDirectory() as folder:
        package = Path(folder) / "pkg"
        package.mkdir()
        for name, text in (("__init__.py", ""), *files, ("example.py", source)):
            (package / name).write_text(text)
        checked = check_project(discover([str(package)], ()), EVERYTHING, None, jobs=1)
    return [f for result in checked.results if Path(result.path).name == "example.py" for f in result.findings]


def verdict(source: str, code: str, files: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, bool]]:
    """Per flagged statement (in order): the severities and whether a fix is offered; `missing`
    for a statement not flagged, and a trailing `extra` for a finding on an unmarked line."""
    groups = _groups(source, code)
    count = len(set(groups.values()))
    found: list[list[Finding]] = [[] for _ in range(count)]
    extra = []
    for f in findings(source, files):
        if f.code != code:
            continue
        if f.span.start.line in groups:
            found[groups[f.span.start.line]].append(f)
        else:
            extra.append(f)
    out = [
        # an error said to come after an earlier line's failure (`Finding.after`) is still an error
        # here: splitting a line off can put that earlier failure on a line of its own
        (" ".join(sorted({"error" if f.after is not None else f.severity.value for f in group})) or "missing",
         any(f.fix is not None for f in group))
        for group in found
    ]
    return out + [(f"extra line {f.span.start.line}", False) for f in extra]


@functools.cache
def _original_verdict(source: str, code: str) -> list[tuple[str, bool]]:
    return verdict(source, code)


@functools.cache
def difference(variant: Variant) -> str | None:
    """What differs between the original's verdict and the variant's, or None."""
    code = variant.rule.CODE
    before, after = _original_verdict(variant.original, code), verdict(variant.source, code, variant.files)
    if len(before) != len(after):
        return f"flagged {after}, originally {before}"
    for i, ((severity, fixed), (severity_now, fixed_now)) in enumerate(zip(before, after, strict=True)):
        if severity != severity_now:
            return f"statement {i}: {severity_now}, originally {severity}"
        if fixed and not fixed_now:
            return f"statement {i}: no fix offered any more"
    return None


VARIANTS = all_variants()


@pytest.mark.parametrize(
    "variant", [pytest.param(v, id=f"{v.case_id}-{v.kind}") for v in VARIANTS]
)
def test_a_spelling_gets_the_same_verdict(variant: Variant) -> None:
    problem = difference(variant)
    gap = KNOWN_GAPS.get((variant.rule.CODE, variant.kind))
    if problem is not None and gap is not None:
        pytest.xfail(gap)
    assert problem is None, f"{problem}\n--- variant:\n{variant.source}"


def test_every_kind_of_spelling_is_made() -> None:
    """The transforms apply: each kind yields variants across several rules."""
    for kind in KINDS:
        rules = {v.rule.CODE for v in VARIANTS if v.kind == kind}
        assert len(rules) >= 3, f"{kind}: only {sorted(rules)}"


def test_every_known_gap_is_still_one() -> None:
    """An entry of KNOWN_GAPS whose variants all get the same verdict now is dropped."""
    differing: set[tuple[str, str]] = set()
    for v in VARIANTS:
        key = (v.rule.CODE, v.kind)
        if key in KNOWN_GAPS and key not in differing and difference(v) is not None:
            differing.add(key)
    assert set(KNOWN_GAPS) <= differing, sorted(set(KNOWN_GAPS) - differing)


# -- the case: a number read from data, converted twice, bound on the line before -------

REPEAT = """
import torch
class Repeat(torch.nn.Module):
    def forward(self, x, steps):
        out = x
        n = {count}
        for _ in range(n):
            out = out + x
        return out{after}
"""


@pytest.mark.parametrize("count", ["int(steps.item())", "float(int(steps))", "steps.item()", "int(steps)"])
def test_a_count_converted_in_any_order_gets_the_while_loop_fix(count: str) -> None:
    [finding] = [f for f in check_source(REPEAT.format(count=count, after=""), "m.py", EVERYTHING) if f.code == "XPT201"]
    assert finding.fix is not None and "torch.while_loop" in finding.fix.title
    assert "no automatic fix" not in finding.message


def test_without_a_fix_the_message_does_not_deny_its_own_finding() -> None:
    """`n` read after the loop too: no fix, and the reason says what is missing, not that `n`
    is no number read from a tensor (the finding says it is)."""
    source = REPEAT.format(count="int(steps.item())", after=" + n")
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT201"]
    assert finding.fix is None
    assert "read from tensor data" in finding.message and "not a number read" not in finding.message
    [reason] = [note.message for note in finding.related if note.message.startswith("no automatic fix: ")]
    assert "the tensor `n` is read from is not at hand" in reason


#: the count read through a one-line helper of the file, three ways
THROUGH_HELPERS = {
    "the count passed through": (
        "def _h(v):\n    return v\n",
        "n = steps.item()\n        for _ in range(_h(n)):",
    ),
    "the count read by the helper, bound": (
        'def _count(t):\n    """How many steps."""\n    return int(t.item())\n',
        "n = _count(steps)\n        for _ in range(n):",
    ),
    "the count read by the helper, in range": (
        "def _count(t):\n    return int(t.item())\n",
        "for _ in range(_count(steps)):",
    ),
}
HELPED = """
import torch
{helper}
class Repeat(torch.nn.Module):
    def forward(self, x, steps):
        out = x
        {loop}
            out = out + x
        return out
"""


@pytest.mark.parametrize("spelling", list(THROUGH_HELPERS))
def test_a_count_through_a_helper_gets_the_while_loop_fix(spelling: str) -> None:
    """The rewrite reads a one-line helper's `return` at the call: the loop compares the counter
    with the tensor the helper reads, and the call goes where the number was."""
    helper, loop = THROUGH_HELPERS[spelling]
    source = HELPED.format(helper=helper, loop=loop)
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT201"]
    assert finding.fix is not None and "torch.while_loop" in finding.fix.title
    fixed = fix_source(source, "m.py", EVERYTHING, unsafe=True)
    assert "torch.while_loop" in fixed and ".item()" not in fixed.split("class Repeat")[1]


def test_a_helper_that_does_more_is_not_seen_through() -> None:
    """A helper with a statement before its `return` may do anything: no fix, and the reason."""
    helper = "def _count(t):\n    print(t)\n    return int(t.item())\n"
    source = HELPED.format(helper=helper, loop="n = _count(steps)\n        for _ in range(n):")
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT201"]
    assert finding.fix is None
    assert any(note.message.startswith("no automatic fix: ") for note in finding.related)


# -- what feeds a test is rewritten with it -----------------------------------------------------

FED = """
import torch
class Lookup(torch.nn.Module):
    def forward(self, ids, x):
        {binding}
        if value:
            {body}
        return x
"""


@pytest.mark.parametrize(("binding", "body", "kept"), [
    # `int()` of a tensor cannot be carried as a symbol: the binding goes back to the tensor
    ("value = int(ids.max()) >= 16", 'raise IndexError("id out of range")', "ids.max().long() >= 16"),
    # a number the test's binding and the branch both read becomes the tensor for both
    ("peak = ids.abs().max().item()\n        value = peak > 1", "x = x / peak", "peak = ids.abs().max()\n"),
])
def test_the_names_a_test_is_computed_through_are_rewritten_with_it(binding: str, body: str, kept: str) -> None:
    """The fix rewrites the bindings read only by the test (and the branch) too, so no number
    read from data is left behind: re-linting finds nothing of XPT104 or XPT203."""
    source = FED.format(binding=binding, body=body)
    fixed = fix_source(source, "m.py", EVERYTHING, unsafe=True)
    assert kept in fixed and "int(" not in fixed and ".item()" not in fixed
    assert not [f for f in check_source(fixed, "m.py", EVERYTHING) if f.code in ("XPT104", "XPT203")]


# -- values read from data, spelt as held-out code spells them (tests/truth/test_pattern_cases_3.py) --

METHOD_COUNT = """
import torch
class Repeat(torch.nn.Module):
    {decorator}
    def _count({params}):
        return int(steps.item())

    def forward(self, x, steps):
        out = x
        for _ in range(self._count(steps)):
            out = out + x
        return out
"""


@pytest.mark.parametrize(("decorator", "params"), [("@staticmethod", "steps"), ("", "self, steps")])
def test_a_count_read_by_a_one_line_method_gets_the_while_loop_fix(decorator: str, params: str) -> None:
    """A one-line method of the class, static or not, is read at the call as a module-level
    helper is: the loop compares its counter with the tensor the method reads."""
    source = METHOD_COUNT.format(decorator=decorator, params=params)
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT201"]
    assert finding.fix is not None and "torch.while_loop" in finding.fix.title
    assert "step < steps.long()" in fix_source(source, "m.py", EVERYTHING, unsafe=True)


def _only(source: str, code: str, config: Config = EVERYTHING) -> Finding:
    [finding] = [f for f in check_source(source, "m.py", config) if f.code == code]
    return finding


def test_not_inside_a_helper_becomes_a_tensor_comparison() -> None:
    """`not bool(mask.any())` read through a one-line helper: `not` of the tensor it becomes
    would call bool() again, so the predicate says `== 0` instead."""
    source = (
        "import torch\n"
        "def _is_empty(mask):\n    return not bool(mask.any())\n"
        "class Route(torch.nn.Module):\n"
        "    def forward(self, x, mask):\n"
        "        if _is_empty(mask):\n            return torch.zeros_like(x)\n"
        "        return x * mask\n"
    )
    assert _only(source, "XPT104").fix is not None
    assert "torch.cond(mask.any() == 0," in fix_source(source, "m.py", EVERYTHING, unsafe=True)


def test_a_number_kept_on_self_is_tested_as_that_number() -> None:
    """`self.peak = float(...)` then `if self.peak > 1.0:`: the same finding as through a local,
    and no fix that would leave the test reading a Python number (nor `.item()` for `float()`)."""
    source = (
        "import torch\n"
        "class Track(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        self.peak = float(x.abs().max())\n"
        "        if self.peak > 1.0:\n            return x / self.peak\n"
        "        return x\n"
    )
    for strict in (False, True):
        finding = _only(source, "XPT104", Config(select=("ALL",), strict=strict))
        assert finding.fix is None
        # non-strict export fails first at line 4's `float(...)` (XPT203, an error only there)
        assert (finding.severity, finding.after) == ((Severity.ERROR, None) if strict else (Severity.WARNING, 4))
    assert _only(source, "XPT203").fix is None


def test_a_walrus_in_a_while_test_gets_no_while_loop_fix() -> None:
    source = (
        "import torch\n"
        "class Halve(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        while (peak := x.abs().max().item()) > 1.0:\n            x = x / 2\n"
        "        return x * peak\n"
    )
    finding = _only(source, "XPT104")
    assert finding.fix is None
    assert any("`peak` with `:=`" in note.message for note in finding.related)


def test_a_python_number_from_tolist_in_a_predicate_gets_no_cond_fix() -> None:
    """`for layer, g in zip(self.layers, gates.tolist()): if g > 0.5:`: the predicate would still
    be a Python number read from data (and strict export refuses `.tolist()` of a float tensor)."""
    source = (
        "import torch\n"
        "class Gated(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 3) for _ in range(2))\n"
        "    def forward(self, x, gates):\n"
        "        for layer, g in zip(self.layers, gates.tolist()):\n"
        "            if g > 0.5:\n                x = layer(x)\n"
        "        return x\n"
    )
    finding = _only(source, "XPT104")
    assert finding.fix is None and any("`g` holds Python values" in n.message for n in finding.related)


@pytest.mark.parametrize("loop", ["zip(range(int(depth)), self.layers)", "enumerate(range(depth.item()))"])
def test_a_data_count_stepped_through_zip_or_enumerate_is_a_data_dependent_loop(loop: str) -> None:
    source = (
        "import torch\n"
        "class Mix(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 3) for _ in range(3))\n"
        "    def forward(self, x, depth):\n"
        f"        for _, layer in {loop}:\n            x = x + 1\n"
        "        return x\n"
    )
    for strict in (False, True):
        assert _only(source, "XPT201", Config(select=("ALL",), strict=strict)).severity is Severity.ERROR


@pytest.mark.parametrize("pick", ["torch.nonzero(mask)[0, 0]", "mask.nonzero()[0][0]", "torch.where(mask)[0][0]"])
def test_one_coordinate_of_a_hit_as_an_index_is_a_strict_error(pick: str) -> None:
    """Two integers pick a 0-dim tensor out of `nonzero`'s rank-2 result (or `where`'s tuple of
    rank-1 tensors); one integer picks a 1-dim tensor, which strict export indexes with."""
    source = (
        "import torch\n"
        "class First(torch.nn.Module):\n"
        "    def forward(self, x, mask):\n"
        f"        first = {pick}\n"
        "        return x[first]\n"
    )
    strict = Config(select=("ALL",), strict=True)
    assert _only(source, "XPT203", strict).severity is Severity.ERROR
    row = source.replace(pick, pick.replace("[0, 0]", "[0]").replace("[0][0]", "[0]"))
    assert not [f for f in check_source(row, "m.py", strict) if f.code == "XPT203"]


@pytest.mark.parametrize(("holder", "index"), [
    ("[0.5, 1.0, 2.0]", "int(logits.argmax())"),
    ("torch.nn.ModuleDict({'h0': torch.nn.Identity(), 'h1': torch.nn.Identity()})", 'f"h{int(logits.argmax())}"'),
])
def test_a_python_list_or_a_spelt_key_picked_by_data_is_flagged(holder: str, index: str) -> None:
    """A list of number literals has a fix (index a tensor of them); a spelt module key has none."""
    source = (
        "import torch\n"
        "class Pick(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        self.table = {holder}\n"
        "    def forward(self, x, logits):\n"
        f"        return x * self.table[{index}]\n"
    )
    for strict in (False, True):
        finding = _only(source, "XPT204", Config(select=("ALL",), strict=strict))
        assert finding.severity is Severity.ERROR
        assert (finding.fix is None) is holder.startswith("torch.nn.ModuleDict")


def test_a_switch_off_by_the_modules_own_default_is_a_warning() -> None:
    """`def __init__(self, debug=False)`, `self.debug = debug`: what `if self.debug:` guards runs
    only when a caller passes `debug=True`, as for a configuration switch."""
    source = (
        "import torch\n"
        "class Debug(torch.nn.Module):\n"
        "    def __init__(self, debug=False):\n"
        "        super().__init__()\n"
        "        self.debug = debug\n"
        "    def forward(self, x):\n"
        "        if self.debug:\n"
        "            if x.mean().item() > 0:\n                x = x + 1\n"
        "        return x\n"
    )
    finding = _only(source, "XPT104")
    assert finding.severity is Severity.WARNING and "only with `debug=True`" in finding.message
    assert _only(source.replace("debug=False", "debug=True"), "XPT104").severity is Severity.ERROR


@pytest.mark.parametrize("built", ["Debug(True)", "Debug(debug=True)", "Debug(**options)"])
def test_a_switch_a_parent_turns_on_is_no_switch(built: str) -> None:
    """A parent building the block with the other value (or with arguments it cannot read) runs the
    guarded code on the default export: the finding stays an error."""
    source = (
        "import torch\n"
        "class Debug(torch.nn.Module):\n"
        "    def __init__(self, debug=False):\n"
        "        super().__init__()\n"
        "        self.debug = debug\n"
        "    def forward(self, x):\n"
        "        if self.debug:\n"
        "            if x.mean().item() > 0:\n                x = x + 1\n"
        "        return x\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self, options):\n"
        "        super().__init__()\n"
        f"        self.plain, self.loud = Debug(), {built}\n"
        "    def forward(self, x):\n"
        "        return self.loud(self.plain(x))\n"
    )
    assert _only(source, "XPT104").severity is Severity.ERROR
    quiet = source.replace(built, "Debug(debug=False)")
    assert _only(quiet, "XPT104").severity is Severity.WARNING


def test_a_bool_read_only_by_an_assert_is_asserted_as_the_tensor() -> None:
    """`ok = bool(t)`, then `assert ok, msg`: `bool()` goes, and the assert becomes
    `torch._assert_async` (XPT103's fix) in the next round; read anywhere else, no fix."""
    source = (
        "import torch\n"
        "class Check(torch.nn.Module):\n"
        "    def forward(self, x, limit):\n"
        "        ok = bool((x.abs() <= limit).all())\n"
        "        assert ok, 'input beyond the limit'\n"
        "        return x * 2\n"
    )
    fixed = fix_source(source, "m.py", EVERYTHING, unsafe=True)
    assert "ok = (x.abs() <= limit).all()" in fixed and "torch._assert_async(ok, " in fixed
    assert _only(source.replace("x * 2", "x * ok"), "XPT203").fix is None
