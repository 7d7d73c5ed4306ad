"""Findings are identical whatever the order: over every rule example and over a slice of real
model files, not only the hand-written spellings of test_order_independence.py.

- Every rule example is checked again with its module-level definitions, its classes' methods
  and runs of independent call statements in each function (call sites) in another order (one
  sampled permutation per example, from a fixed seed: the same cases every run).
- A project of real model code (tests/data/order_models: torchvision's box ops and poolers and
  timm's position embeddings, vendored under their licences, and a detector written in their
  style that reaches them from several call sites) is checked under permutations of the paths,
  of each file's definitions, and through the real CLI under several PYTHONHASHSEED values,
  worker counts and path orders: the JSON output, fix texts included, is byte-for-byte the same.
- The dataflow's value memo answers for the node asked, not for a freed node whose id it reuses
  (the cause of a fix text that differed between whole-corpus runs).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import libcst as cst
import pytest

from tests.conftest import all_cases
from tests.engine.test_order_independence import Key, key
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.dataflow import is_tensor_like
from xport_lint.analyzers.facts import FileFacts
from xport_lint.analyzers.index import EMPTY_CONTEXT
from xport_lint.analyzers.project import check_project
from xport_lint.analyzers.runner import check_source

SEED = 20_231
PROJECT = Path(__file__).parent.parent / "data" / "order_models"
PATHS = sorted(
    str(p.relative_to(PROJECT)) for p in PROJECT.rglob("*.py") if p.name != "__init__.py"
)

# -- reordering a module ------------------------------------------------------------------------


def _definition_name(stmt: cst.CSTNode) -> str | None:
    return stmt.name.value if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else None


def _permute_definitions(body: Sequence[cst.BaseStatement], rng: random.Random) -> list[cst.BaseStatement]:
    """`body` with its definitions (functions, classes) shuffled among their own places; other
    statements stay where they are. A name defined twice (a property and its setter) keeps its
    definitions in place: their order is their meaning."""
    names = [_definition_name(s) for s in body]
    movable = [i for i, name in enumerate(names) if name is not None and names.count(name) == 1]
    order = movable[:]
    rng.shuffle(order)
    out = list(body)
    for place, taken in zip(movable, order, strict=True):
        out[place] = body[taken]
    return out


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(Names())
    return found


def _call_statement(stmt: cst.BaseStatement) -> tuple[set[str], set[str]] | None:
    """(names it binds or changes, names it reads) of `name = call(...)` or a bare `call(...)`,
    one a line; None for anything else. A bare call `a.f(...)` may change `a`: it counts as a
    binding of `a` too."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        changed = {func.value.value} if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else set()
        return changed, _names_in(small.value)
    if (
        isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return {small.targets[0].target.value}, _names_in(small.value)
    return None


def _permute_calls(body: Sequence[cst.BaseStatement], rng: random.Random) -> list[cst.BaseStatement]:
    """Runs of consecutive call statements none of which reads or rebinds what another binds,
    each shuffled: the same program, with its call sites in another order."""
    out: list[cst.BaseStatement] = []
    run: list[cst.BaseStatement] = []
    bound: set[str] = set()
    read: set[str] = set()

    def flush() -> None:
        rng.shuffle(run)
        out.extend(run)
        run.clear()
        bound.clear()
        read.clear()

    for stmt in body:
        facts = _call_statement(stmt)
        if facts is not None and (facts[0] & (bound | read) or facts[1] & bound):
            flush()
        if facts is None:
            flush()
            out.append(stmt)
            continue
        run.append(stmt)
        bound.update(facts[0])
        read.update(facts[1])
    flush()
    return out


class _Reorder(cst.CSTTransformer):
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=_permute_definitions(updated.body, self.rng))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if not isinstance(updated.body, cst.IndentedBlock):
            return updated
        return updated.with_changes(body=updated.body.with_changes(body=_permute_definitions(updated.body.body, self.rng)))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if not isinstance(updated.body, cst.IndentedBlock):
            return updated
        return updated.with_changes(body=updated.body.with_changes(body=_permute_calls(updated.body.body, self.rng)))


def reordered(source: str, seed: int) -> str:
    """`source` with its definitions, methods and independent call statements in another order
    (the same one for the same seed). Blank lines travel with the statement after them."""
    return cst.parse_module(source).visit(_Reorder(random.Random(seed))).code


def findings_of(source: str, path: str = "model.py") -> list[Key]:
    return sorted(key(f, source) for f in check_source(source, path))


# -- every rule example -------------------------------------------------------------------------

CASES = [
    pytest.param(case.source, id=f"{rule.CODE}-{kind}-{n}")
    for n, (rule, case, kind) in enumerate(all_cases())
]


@pytest.mark.parametrize("source", CASES)
def test_every_rule_example_has_the_same_findings_in_another_order(source: str) -> None:
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        pytest.skip("the syntax error rule's own example")
    other = reordered(source, SEED + len(source))
    if other == source:
        pytest.skip("one definition, no independent calls: nothing to reorder")
    assert findings_of(other) == findings_of(source), other


def test_reordering_keeps_the_program() -> None:
    """What the permutation moves: definitions and methods among their own places, and calls
    that do not read each other's results; a call reading another's result stays after it."""
    source = (
        "import torch\n\n\n"
        "def a(x):\n    return x\n\n\n"
        "def b(x):\n    return x\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        p = a(x)\n        q = b(x)\n        r = a(p)\n        return r\n\n"
        "    def other(self):\n        return 1\n"
    )
    seen = {reordered(source, seed) for seed in range(40)}
    assert len(seen) > 4
    for other in seen:
        lines = [line.strip() for line in other.splitlines()]
        assert sorted(lines) == sorted(line.strip() for line in source.splitlines())
        assert lines.index("r = a(p)") > lines.index("p = a(x)")
        assert lines[0] == "import torch"


# -- a slice of real model files ---------------------------------------------------------------


def project_findings(root: Path, paths: Sequence[str]) -> list[tuple[str, Key]]:
    cwd = os.getcwd()
    os.chdir(root)  # module names come from the paths' package folders, as the CLI sees them
    try:
        checked = check_project(list(paths), Config(), None, jobs=1)
    finally:
        os.chdir(cwd)
    return sorted(
        (result.path, key(finding, (root / result.path).read_text()))
        for result in checked.results for finding in result.findings
    )


@pytest.fixture(scope="module")
def baseline() -> list[tuple[str, Key]]:
    return project_findings(PROJECT, PATHS)


def test_the_slice_reaches_the_vendored_ops_from_the_detector(baseline: list[tuple[str, Key]]) -> None:
    codes = {(path, code) for path, (code, *_) in baseline}
    assert ("torchvision/ops/boxes.py", "XPT105") in codes
    assert ("torchvision/ops/boxes.py", "XPT201") in codes
    reached = {note for _, (*_, notes) in baseline for note in notes}
    assert "traced: reached from `TinyDetector.forward` via `TinyDetector.postprocess`" in reached


@pytest.mark.parametrize("seed", range(3))
def test_the_slice_has_the_same_findings_whatever_the_order_of_paths(
    seed: int, baseline: list[tuple[str, Key]]
) -> None:
    paths = PATHS[:]
    random.Random(SEED + seed).shuffle(paths)
    assert project_findings(PROJECT, paths) == baseline, paths


@pytest.mark.parametrize("seed", range(2))
def test_the_slice_has_the_same_findings_whatever_the_order_of_definitions_and_calls(
    seed: int, baseline: list[tuple[str, Key]], tmp_path: Path
) -> None:
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    for path in PATHS:
        target = tmp_path / path
        target.write_text(reordered(target.read_text(), SEED + seed))
    assert project_findings(tmp_path, PATHS) == baseline


def cli_json(paths: Sequence[str], hash_seed: int, jobs: int) -> list[str]:
    """The real CLI's JSON findings, each as sorted-key JSON text, in sorted order."""
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    result = subprocess.run(
        [exe, "check", "--no-cache", "--format", "json", "--exit-zero", "-j", str(jobs), *paths],
        cwd=PROJECT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONHASHSEED": str(hash_seed)},
    )
    assert result.returncode == 0, result.stderr
    return sorted(json.dumps(finding, sort_keys=True) for finding in json.loads(result.stdout))


def test_the_cli_output_is_the_same_whatever_the_hash_seed_workers_and_path_order() -> None:
    first = cli_json(PATHS, 0, 1)
    rng = random.Random(SEED)
    for hash_seed, jobs in ((1, 2), (2, 1), (3, 2)):
        paths = PATHS[:]
        rng.shuffle(paths)
        assert cli_json(paths, hash_seed, jobs) == first, (hash_seed, jobs, paths)
    # the fix the memo bug turned (in some runs) into `torchvision._is_tracing() != 0`
    fixes = [json.loads(f)["fix"] for f in first if '"row": 89' in f and "boxes.py" in f]
    assert any("torch.tensor(torchvision._is_tracing())" in e["content"] for fix in fixes if fix for e in fix["edits"])


# -- the memo behind the corpus's one differing fix --------------------------------------------


def test_a_value_is_the_node_asked_not_a_freed_node_with_its_id() -> None:
    """Rewrites ask the dataflow for the values of nodes they build and drop. CPython hands a
    freed node's memory (and so its id) to the next node of its size: keyed by id alone, the
    memo answered `torchvision` with the value of the tensor `boxes` asked before it."""
    source = "import torch\nimport torchvision\n\n\nclass M(torch.nn.Module):\n    def forward(self, boxes):\n        return boxes\n"
    facts = FileFacts(cst.parse_module(source), False, EMPTY_CONTEXT, "m", False, False)
    (item,) = facts.traced
    flow = facts.flow(item)
    for _ in range(20):
        assert is_tensor_like(flow.value(cst.Name("boxes")))
        assert not is_tensor_like(flow.value(cst.Name("torchvision")))
