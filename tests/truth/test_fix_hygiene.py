"""Fixes are hygienic: the names a rewrite introduces are fresh in every scope they land in, the
torch it calls is the torch module whatever `torch` is bound to where it lands, and code moved
into a new function (a torch.cond branch, a loop body) keeps its meaning there or gets no fix.

Each case runs the real CLI (`xport-lint check --fix --unsafe-fixes`) on a file, runs the model
eagerly before and after the fix on inputs that take every branch, and exports the fixed model;
or shows that no fix is offered where none is faithful. The metamorphic cases take every fixed
rule example, make the names its fix introduces (and `torch`) already taken in the file, and
hold the fix to the proof of tests/truth/test_fixes.py."""

from __future__ import annotations

import builtins
import keyword
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from tests.conftest import all_cases
from tests.truth.harness import EVERYTHING, load, prove
from xport_lint.analyzers import check_source
from xport_lint.analyzers.rewrites.common import names_of
from xport_lint.analyzers.rule import Invalid, Rule
from xport_lint.analyzers.runner import fix_source

pytest.importorskip("torch")
pytestmark = pytest.mark.torch


# -- the cases of the issue, through the real CLI -----------------------------------------------


def cli_fix(source: str, folder: Path) -> tuple[str, str]:
    """(the file after `xport-lint check --fix --unsafe-fixes`, what the check reports after)."""
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    path = folder / "model.py"
    path.write_text(source)
    subprocess.run([exe, "check", "--no-cache", "--fix", "--unsafe-fixes", str(path)], capture_output=True,
                   text=True, timeout=120, check=False)
    after = subprocess.run([exe, "check", "--no-cache", str(path)], capture_output=True, text=True, timeout=120,
                           check=False)
    return path.read_text(), after.stdout


def same(a: Any, b: Any) -> bool:
    import torch

    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, atol=1e-6)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


def assert_fix_is_faithful(before: str, after: str, inputs: list[tuple[Any, ...]], folder: Path) -> None:
    """The fixed `M` computes what the original computes eagerly on every input, and exports
    (non-strict and strict) to a program that computes the same."""
    import torch

    original, fixed = load(before, folder).M().eval(), load(after, folder).M().eval()
    for args in inputs:
        expected = original(*(a.clone() for a in args))
        assert same(fixed(*(a.clone() for a in args)), expected), f"eager differs on {args}"
    for strict in (False, True):
        program = torch.export.export(fixed, inputs[0], strict=strict)
        for args in inputs:
            assert same(program.module()(*(a.clone() for a in args)), original(*(a.clone() for a in args)))


def model(body: str, header: str = "import torch", params: str = "x", base: str = "torch.nn.Module") -> str:
    return f"{header}\n\n\nclass M({base}):\n    def forward(self, {params}):\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n"), " " * 8
    ) + "\n"


def inputs() -> list[tuple[Any, ...]]:
    """A positive and a negative input: both sides of `x.sum() > 0`."""
    import torch

    return [(torch.arange(1.0, 4.0),), (-torch.arange(1.0, 4.0),)]


def test_the_users_own_true_fn_and_false_fn_keep_their_meaning(tmp_path: Path) -> None:
    # the names torch's docs use for torch.cond's branches: the fix's own get other names
    source = model("""
        def true_fn(x):
            return x + 10

        def false_fn(x):
            return x - 10

        if x.sum() > 0:
            y = x * 2
        else:
            y = x * 3
        return torch.cond(y.sum() > 0, true_fn, false_fn, (y,))
    """)
    fixed, report = cli_fix(source, tmp_path)
    assert "torch.cond(x.sum() > 0, true_fn_1, false_fn_1, (x,))" in fixed
    assert "XPT1" not in report
    assert_fix_is_faithful(source, fixed, inputs(), tmp_path)


def test_a_local_named_true_fn_read_in_the_branch_and_a_local_named_torch(tmp_path: Path) -> None:
    # `import torch as T`: the fix calls `T.cond`, not the local tensor `torch`
    source = model("""
        torch = x * 2
        true_fn = x + 1
        if x.sum() > 0:
            y = torch * true_fn
        else:
            y = torch - true_fn
        return y
    """, header="import torch as T", base="T.nn.Module")
    fixed, report = cli_fix(source, tmp_path)
    assert "y = T.cond(x.sum() > 0, true_fn_1, false_fn, (torch, true_fn))" in fixed
    assert "import torch\n" not in fixed
    assert "XPT1" not in report
    assert_fix_is_faithful(source, fixed, inputs(), tmp_path)


def test_a_local_named_torch_without_an_alias_gets_a_fresh_import(tmp_path: Path) -> None:
    source = model("""
        torch = x.abs()
        if x.sum() > 0:
            y = torch * 2
        else:
            y = torch * 3
        return y
    """, header="import torch\nfrom torch import nn", base="nn.Module")
    fixed, report = cli_fix(source, tmp_path)
    assert "import torch as torch_1\n" in fixed
    assert "y = torch_1.cond(x.sum() > 0, true_fn, false_fn, (torch,))" in fixed
    assert "XPT1" not in report
    assert_fix_is_faithful(source, fixed, inputs(), tmp_path)


def test_augmented_assignment_to_an_operand_gets_no_fix(tmp_path: Path) -> None:
    # `y += 1` changes the tensor in place: torch.cond refuses mutating its inputs (as it does
    # `y.mul_(2)` and `y[0] = 1`), so the branch cannot move into a function taking `y`
    source = model("""
        y = x * 2
        if x.sum() > 0:
            y += 1
        else:
            y -= 1
        return y
    """)
    fixed, report = cli_fix(source, tmp_path)
    assert fixed == source
    assert "`y += ...` changes `y` in place, and it is an input there" in report


def test_augmented_assignment_to_a_loop_state_that_aliases_an_input_gets_no_fix(tmp_path: Path) -> None:
    # eager `h += 1` changes `x` too (`h = x`); the out-of-place `h = h + 1` of a loop body would not
    source = model("""
        h = x
        while h.sum() < 10:
            h += 1
        return h, x
    """)
    fixed, report = cli_fix(source, tmp_path)
    assert fixed == source
    assert "changes `h` in place" in report


def test_augmented_assignment_to_a_new_loop_state_is_written_out_of_place(tmp_path: Path) -> None:
    source = model("""
        h = x * 1
        while h.sum() < 10:
            h += 1
        return h, x
    """)
    fixed, report = cli_fix(source, tmp_path)
    assert "h = h + 1" in fixed and "XPT102" not in report
    assert_fix_is_faithful(source, fixed, inputs(), tmp_path)


def test_a_branch_assigning_a_global_gets_no_fix(tmp_path: Path) -> None:
    # the `global` would not carry into the new function, and torch.cond refuses the side effect
    # (measured: "Non-nullified side effect" even with `global` inside the branch function)
    source = "COUNT = 0\n" + model("""
        global COUNT
        if x.sum() > 0:
            COUNT += 1
            return x * 2
        return x * 3
    """)
    fixed, report = cli_fix(source, tmp_path)
    assert fixed == source
    assert "it assigns `COUNT`, declared `global`" in report


# -- metamorphic: every fixed example, with the names its fix introduces already taken ----------


class _RenameTorch(cst.CSTTransformer):
    """Every `torch` outside the imports becomes `T`."""

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value="T") if updated.value == "torch" else updated


def _holders(source: str, lines: list[int]) -> list[int]:
    """The first body line of the innermost function holding each of `lines`, innermost first."""
    import ast

    out = set()
    for line in lines:
        holders = [
            n for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.FunctionDef) and n.lineno <= line <= (n.end_lineno or 0)
        ]
        if holders:
            first = max(holders, key=lambda n: n.lineno).body[0]  # a decorated `def` starts at its decorators
            out.add(min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))]))
    return sorted(out, reverse=True)


def taken_variant(source: str, code: str, shadow_torch: bool = True) -> str:
    """`source` with every name the fix of `code` introduces already taken: bound at module level
    and read first thing in the function the fix lands in, which also binds a local `torch` (the
    file calls torch `T`) when `shadow_torch`."""
    fixed = fix_source(source, "example.py", EVERYTHING, unsafe=True)
    introduced = sorted(
        n for n in names_of(cst.parse_module(fixed)).taken - names_of(cst.parse_module(source)).taken
        if not keyword.iskeyword(n) and n not in dir(builtins)
    )
    lines = [f.span.start.line for f in check_source(source, "example.py", EVERYTHING) if f.code == code]
    module = cst.parse_module(source)
    renamed = (module.visit(_RenameTorch()) if shadow_torch else module).code.splitlines(keepends=True)
    read = f"torch = ({', '.join([*introduced, 'T'])},)" if shadow_torch else f"({', '.join([*introduced, 'T'])},)"
    for first in _holders(source, lines):
        indent = renamed[first - 1][: len(renamed[first - 1]) - len(renamed[first - 1].lstrip())]
        renamed.insert(first - 1, f"{indent}{read}\n")
    at = next((i + 1 for i, line in enumerate(renamed) if line.startswith("from __future__")), 0)
    decoys = "".join(f"{name} = None\n" for name in introduced)
    # `import torch` stays: the examples' `other_args` are evaluated with it
    imports = "import torch as T\n" if "import torch\n" in source else "import torch\nimport torch as T\n"
    return "".join([*renamed[:at], imports, decoys, *renamed[at:]])


#: rules that write their fix's `torch.` themselves rather than through rewrites/ (whose `Names`
#: fact they could use: `module_names(ctx.program.module).torch`): a local `torch` breaks those
#: fixes (not all of them: XPT410's `strict=False` fix passes, hence not strict)
NOT_YET_HYGIENIC: frozenset[str] = frozenset()


def fixed_cases() -> list[object]:
    return [
        pytest.param(
            rule, case, id=name,
            marks=[pytest.mark.xfail(reason="the rule spells torch `torch` in its own fix")]
            if rule.CODE in NOT_YET_HYGIENIC else [],
        )
        for rule, case, name in all_cases()
        if isinstance(case, Invalid) and case.replacement is not None
    ]


@pytest.mark.parametrize(("rule", "case"), fixed_cases())
def test_fix_with_its_names_taken_is_proven_or_not_offered(rule: type[Rule], case: Invalid) -> None:
    variant = taken_variant(case.source, rule.CODE)
    problem = prove(rule, Invalid(variant, other_args=case.other_args))
    assert problem in (None, "no fix was offered"), f"{problem}\n--- variant:\n{variant}"


def test_with_their_names_taken_the_examples_still_get_their_fix() -> None:
    """Hygiene is fresh names, not refusing: with the names its fix introduces taken (and torch
    spelt `torch`: some rules recognise `torch.stack` only by that name), every example is still
    fixed."""
    refused = [
        name for rule, case, name in all_cases()
        if isinstance(case, Invalid) and case.replacement is not None
        and (variant := taken_variant(case.source, rule.CODE, shadow_torch=False))
        == fix_source(variant, "example.py", EVERYTHING, unsafe=True)
    ]
    assert refused == []
