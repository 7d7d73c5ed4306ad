"""Running rule examples in real torch: loading one as a module, its `xport_example()`, and the
proof a fix must pass before it is offered.

For one flagged example: apply the rule's fix, then (1) the result parses and re-linting it
reports nothing of that rule; (2) fixing again changes nothing; (3) only the function holding
the finding (or, for a fix at the call site, the export call's function) and the imports changed; (4) `torch.export.export` succeeds on the fixed module in
every mode the rule claims fails; (5) the exported program computes what the original eager
module computes, on the example inputs and on `other_args` (the other branch or size).
Used by tests/truth/ and by bench/fix_rates.py.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
import importlib.util
import itertools
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import libcst as cst

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.fixes import apply_fixes
from xport_lint.analyzers.model import Mode
from xport_lint.analyzers.rule import Invalid, Rule
from xport_lint.analyzers.runner import fix_source
from xport_lint.analyzers.versions import installed

#: every rule, judged for the torch installed here (the one the proofs export with)
EVERYTHING = Config(select=("ALL",), target_torch=installed())
_counter = itertools.count()


@contextlib.contextmanager
def recorded_exports(calls: list[tuple[Any, tuple[Any, ...], dict[str, Any], Any]]) -> Iterator[None]:
    """Record (model, args, kwargs, dynamic_shapes) of each torch.export.export call made inside:
    how a file's own `export()` exported, to compare the program with eager on the same inputs."""
    import torch

    real = torch.export.export

    def export(model: Any, args: tuple[Any, ...], kwargs: Any = None, *, dynamic_shapes: Any = None,
               **options: Any) -> Any:
        calls.append((model, tuple(args), dict(kwargs or {}), dynamic_shapes))
        return real(model, args, kwargs, dynamic_shapes=dynamic_shapes, **options)

    torch.export.export = export
    try:
        yield
    finally:
        torch.export.export = real


def load(source: str, folder: Path) -> ModuleType:
    name = f"xport_example_{next(_counter)}"
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # strict export (Dynamo) imports the model's module by name
    spec.loader.exec_module(module)
    return module


def exports(model: Any, args: tuple[Any, ...], strict: bool) -> bool:
    """Whether `torch.export.export` takes `model` on `args` in that mode: failing is the fact a
    truth test checks, whatever the exception."""
    import torch

    try:
        torch.export.export(model, args, strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    return True


def modes(source: str, rule: type[Rule]) -> list[Mode]:
    candidates = [Mode.STRICT] if "strict=True" in source else [Mode.NON_STRICT, Mode.STRICT]
    return [m for m in candidates if rule.severity(m) is not None]


def _run(fn: Any, args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "value", fn(*args)
    except Exception as error:  # noqa: BLE001 - raising on bad input is behaviour too
        return "raises", type(error).__name__


#: a module-level line registering an output class as a pytree node (XPT415's fix), allowed
#: outside the flagged function like an import
_REGISTRATION = re.compile(r"^[\w.]+\.register_dataclass\(\w+\)$")
#: float32 graphs may sum in another order than eager (a scan, a fused op): equal up to rounding
_ATOL = 1e-6


def _same(a: Any, b: Any) -> bool:
    import torch

    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, atol=_ATOL, equal_nan=True)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        # an output class registered as a pytree node comes back as itself (the fixed file's own
        # class of that name): compared field by field
        fields = [f.name for f in dataclasses.fields(a)]
        return type(a).__name__ == type(b).__name__ and all(_same(getattr(a, f), getattr(b, f)) for f in fields)
    return bool(a == b)


def _function_lines(source: str, lines: list[int]) -> list[tuple[int, int]]:
    """Line ranges of the innermost functions holding `lines`."""
    ranges = []
    tree = ast.parse(source)
    for line in lines:
        holders = [
            (n.lineno, n.end_lineno or n.lineno)
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= line <= (n.end_lineno or 0)
        ]
        if holders:
            ranges.append(max(holders))
    return ranges


def example(module: ModuleType) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """(model, args, export options) from `xport_example()` in any of its conventional shapes."""
    value = module.xport_example()
    if isinstance(value, dict):
        options = {"kwargs": value.get("kwargs"), "dynamic_shapes": value.get("dynamic_shapes")}
        return value["model"], tuple(value.get("args", ())), options
    return value[0], tuple(value[1]), {"kwargs": value[2] if len(value) > 2 else None}


def _export_call_lines(source: str) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "export"
    ]


def prove(rule: type[Rule], case: Invalid) -> str | None:
    """None if the fix passes every check; else what failed."""
    import torch

    torch.manual_seed(0)  # the examples draw random inputs: the same ones on every run

    source = case.source
    findings = [f for f in check_source(source, "example.py", EVERYTHING) if f.code == rule.CODE]
    fixed = apply_fixes(source, [f for f in findings if f.fix is not None], unsafe=True)
    if fixed == source:
        return "no fix was offered"
    if any(f.fix is not None and f.fix.step for f in findings):
        # a step (a number kept on `self` made a local): the fixes it prepares follow, as `--fix` applies them
        fixed = fix_source(fixed, "example.py", EVERYTHING, unsafe=True)
    try:
        cst.parse_module(fixed)
    except cst.ParserSyntaxError as error:
        return f"(1) the fixed code does not parse: {error}"
    again = [f for f in check_source(fixed, "example.py", EVERYTHING) if f.code == rule.CODE]
    if again:
        return f"(1) re-linting still reports {rule.CODE} at line {again[0].span.start.line}"
    if apply_fixes(fixed, again, unsafe=True) != fixed:
        return "(2) the fix is not idempotent"
    # the function holding the finding, and (for fixes at the call site) the export calls' functions
    # a fix may also edit how the example is exported (its dynamic_shapes)
    declared = [i for i, line in enumerate(source.splitlines(), start=1) if "dynamic_shapes" in line]
    allowed = _function_lines(source, [f.span.start.line for f in findings] + _export_call_lines(source) + declared)
    old, new = source.splitlines(), fixed.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert" and all(line.startswith("import ") or _REGISTRATION.match(line) for line in new[j1:j2]):
            continue
        # 1-based lines replaced; an insertion goes after line i1
        first, last = (i1, i1) if tag == "insert" else (i1 + 1, i2)
        if not any(lo <= first and last <= hi for lo, hi in allowed):
            return f"(3) the fix changed lines {first}-{last}, outside the flagged function"
    with tempfile.TemporaryDirectory() as folder:
        original, rewritten = load(source, Path(folder)), load(fixed, Path(folder))
        if hasattr(rewritten, "export"):
            # the file's own export call, as fixed: what it exported, from what, is compared with eager
            calls: list[tuple[Any, tuple[Any, ...], dict[str, Any], Any]] = []
            with recorded_exports(calls):
                outcome = _run(rewritten.export, ())
            if outcome[0] == "raises":
                return f"(4) export fails after the fix: {outcome[1]}"
            if not calls:
                return None  # the export call is not torch.export.export (a removed API's replacement)
            model, args, kwargs, _ = calls[-1]
            inputs = [args]
            if case.other_args is not None:
                inputs.append(tuple(eval(case.other_args, vars(original))))  # noqa: S307 - the example's own
            for given in inputs:
                expected, actual = _run(lambda *a: model(*a, **kwargs), given), _run(
                    lambda *a: outcome[1].module()(*a, **kwargs), given
                )
                if expected[0] != actual[0] or (expected[0] == "value" and not _same(expected[1], actual[1])):
                    return f"(5) the exported program differs from eager on {given!r}"[:400]
            return None
        model, args, _ = example(original)
        # the rewritten file's own example: a fix may change it (XPT504 resizes an input)
        new_model, new_args, options = example(rewritten)
        new_model.load_state_dict(model.state_dict())
        inputs = [tuple(args)]
        if case.other_args is not None:
            inputs.append(tuple(eval(case.other_args, vars(original))))  # noqa: S307 - the example's own
        for mode in modes(source, rule):
            try:
                program = torch.export.export(new_model, tuple(new_args), **options, strict=mode is Mode.STRICT)
            except Exception as error:  # noqa: BLE001 - the failure is the finding
                return f"(4) export fails after the fix ({mode.value}): {type(error).__name__}: {error}"[:400]
            for given in inputs:
                expected, actual = _run(model, given), _run(program.module(), given)
                if expected[0] != actual[0] or (expected[0] == "value" and not _same(expected[1], actual[1])):
                    return f"(5) the exported program differs from eager ({mode.value}) on {given!r}"[:400]
    return None


# -- the corpus of failing snippets (tests/truth/fix_corpus.py) --------------------------------


def failing_modes(module: ModuleType) -> list[Mode]:
    """The modes in which the snippet's `xport_example()` does not export."""
    import torch

    model, args, options = example(module)
    failing = []
    for mode in (Mode.NON_STRICT, Mode.STRICT):
        try:
            torch.export.export(model, args, **options, strict=mode is Mode.STRICT)
        except Exception:  # noqa: BLE001 - failing is what is measured
            failing.append(mode)
    return failing


def prove_snippet(source: str) -> tuple[str, str]:
    """("proven" | "no fix" | "missed" | "failed", detail) for one failing snippet: the CLI's
    `--fix --unsafe-fixes` is applied (every finding's fix, warnings' too, rounds until stable;
    "missed": no error and no fix); the result must
    parse, re-lint with no error, be stable, export in every mode the original failed in, and
    compute what eager computes on `xport_example()`'s inputs and on every `xport_inputs()`."""
    import torch

    from xport_lint.analyzers.model import Severity

    torch.manual_seed(0)
    errors = [f for f in check_source(source, "snippet.py", Config()) if f.severity is Severity.ERROR]
    fixed = fix_source(source, "snippet.py", Config(), unsafe=True)
    if fixed == source:
        if not errors:
            return "missed", "no error finding"
        reasons = "; ".join(f"{f.code}: {f.message}" for f in errors)
        return "no fix", reasons[:300]
    try:
        cst.parse_module(fixed)
    except cst.ParserSyntaxError as error:
        return "failed", f"the fixed code does not parse: {error}"
    left = [f for f in check_source(fixed, "snippet.py", Config()) if f.severity is Severity.ERROR]
    if left:
        return "failed", f"re-linting still reports {left[0].code} at line {left[0].span.start.line}: {left[0].message}"
    if fix_source(fixed, "snippet.py", Config(), unsafe=True) != fixed:
        return "failed", "a second run changes it again"
    with tempfile.TemporaryDirectory() as folder:
        original, rewritten = load(source, Path(folder)), load(fixed, Path(folder))
        modes = failing_modes(original)
        model, args, _ = example(original)
        new_model, new_args, options = example(rewritten)
        new_model.load_state_dict(model.state_dict())
        inputs = [tuple(args), *(tuple(a) for a in original.xport_inputs())]
        for mode in modes:
            try:
                program = torch.export.export(new_model, tuple(new_args), **options, strict=mode is Mode.STRICT)
            except Exception as error:  # noqa: BLE001 - the failure is the finding
                return "failed", f"export fails after the fix ({mode.value}): {type(error).__name__}: {error}"[:400]
            for given in inputs:
                expected, actual = _run(model.eval(), given), _run(program.module(), given)
                if expected[0] != actual[0] or (expected[0] == "value" and not _same(expected[1], actual[1])):
                    return "failed", f"the exported program differs from eager ({mode.value}) on {given!r}"[:400]
    return "proven", ""
