'''The runner every truth batch shares: a batch file holds only its programs (each with the outcome
real torch 2.13 gave, per mode), its known misses with why, its docstring of figures, and any test
of its own; the tests every batch runs are made here.

Two kinds of program:

- `Case`: one file whose `xport_example()` returns the model and its args, with the exception type
  each mode's `torch.export.export` raised (None where it exports), and `xport_inputs()` for the
  fix proofs. `CaseBatch` makes the tests: torch still says what is recorded, an error exactly
  where export fails, the recall/false-error figures, and that a fix offered proves out.
- `Program`: a model with declared `dynamic_shapes`, built from its parts (forward body, args,
  shapes, `__init__`, helpers, a block in another file of its package), with whether export fails
  per mode. `ProgramBatch` makes the tests: an error exactly where export fails (torch's outcome
  checked in the same test), and the figures per set.

A batch of cases::

    from tests.truth.batches import CaseBatch, Cases
    from xport_lint.analyzers.model import Mode

    torch = pytest.importorskip("torch")
    pytestmark = pytest.mark.torch

    CASES = Cases("import math")  # the standard-library imports its programs use; torch's come after
    case = CASES.case


    case("steps-read-from-data", "GuardOnDataDependentSymNode", "UserError", """
    class Refiner(nn.Module):
        ...
    def xport_example():
        return Refiner(), (torch.randn(2, 4), torch.tensor(3))

    def xport_inputs():
        return [(torch.randn(2, 4), torch.tensor(1))]
    """)

    #: (case, mode) where xport-lint's verdict differs from torch's, and why
    KNOWN_MISSES: dict[tuple[str, Mode], str] = {}
    #: failing programs (non-strict) whose error has no fix, and why none is offered
    NO_FIX: dict[str, str] = {}

    BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
    test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
    test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
    test_recall_and_false_errors = BATCH.recall_and_false_errors()
    test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()  # if it has one

A batch of programs (the first argument names its packages apart from every other batch's)::

    from tests.truth.batches import Program, ProgramBatch

    PROGRAMS: list[Program] = [
        Program("check-width-equals", "torch._check(x.size(1) == 8)\\nreturn x + 1", "(torch.randn(2, 8),)",
                '{"x": {1: Dim("w")}}', fails=True),
    ]
    #: (program, mode) -> why xport-lint's verdict differs from torch's
    KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

    BATCH = ProgramBatch("shapes5", {"batch": PROGRAMS}, KNOWN_MISSES)
    test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
    test_recall_and_false_errors = BATCH.recall_and_false_errors()

Each test is assigned to a module-level `test_...` name, so its pytest id is the batch file's
(`test_x.py::test_an_error_exactly_where_export_fails[name-strict]`). A known miss runs and is
reported xfailed; once xport-lint gets it right the test fails, so the entry goes.
'''

from __future__ import annotations

import importlib
import re
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tests.truth.harness import example, load, prove_snippet
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.project import check_project

#: (program name, mode) -> why xport-lint's verdict differs from torch's there
KnownMisses = dict[tuple[str, Mode], str]


# -- measuring with real torch ------------------------------------------------------------------


def export_failure(made: Callable[[], tuple[Any, tuple[Any, ...], dict[str, Any]]], mode: Mode) -> str:
    """"" when `torch.export.export` succeeds in `mode` on what `made()` returns (model, args, export
    options), else `Type: message` (cut to 300 characters): a failure while making them counts too."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model, args, options = made()
            torch.export.export(model, args, **options, strict=mode is Mode.STRICT)
        except Exception as error:  # noqa: BLE001 - failing is the fact recorded
            return f"{type(error).__name__}: {error}"[:300]
    return ""


def source_failure(source: str, mode: Mode, folder: Path) -> str:
    """`export_failure` of a one-file program's `xport_example()`, loaded as a module under `folder`."""
    return export_failure(lambda: example(load(source, folder)), mode)


# -- linting with the real engine ---------------------------------------------------------------


def source_errors(source: str, config: Config) -> list[str]:
    """xport-lint's errors on a one-file program, `model.py:line CODE message`."""
    return [
        f"model.py:{f.span.start.line} {f.code} {f.message}"
        for f in check_source(source, "model.py", config)
        if f.severity is Severity.ERROR
    ]


def every_rule(mode: Mode) -> Config:
    """Every rule (those not enabled by default too), in `mode`: how shape programs are linted."""
    return Config(select=("ALL",), strict=mode is Mode.STRICT)


# -- the two kinds of program -------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One file whose `xport_example()` returns (model, args[, kwargs]) or a dict, and whose
    `xport_inputs()` lists other inputs for the fix proofs."""

    name: str
    #: measured on torch 2.13.0: the exception type non-strict export raises (None: it exports)
    non_strict: str | None
    #: the same for strict export
    strict: str | None
    source: str

    def fails_in(self, mode: Mode) -> str | None:
        return self.strict if mode is Mode.STRICT else self.non_strict

    def export_failure(self, mode: Mode, folder: Path) -> str | None:
        """The exception type torch raises exporting the example (in eval mode, as a default export
        runs), or None."""
        def made() -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
            model, args, options = example(load(self.source, folder))
            return model.eval(), args, options

        failure = export_failure(made, mode)
        return failure.split(":", 1)[0] if failure else None

    def errors(self, mode: Mode) -> list[str]:
        """xport-lint's errors with the default rule selection, as the CLI reports them."""
        return source_errors(self.source, Config(strict=mode is Mode.STRICT))


_TORCH_IMPORTS = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
_LAST_MODULE = re.compile(r"^class (\w+)\(nn\.Module\):", re.MULTILINE)


def exporting_last_module(body: str) -> str:
    """`body`, given an `xport_example()` exporting its last module on a (2, 3) input and an
    `xport_inputs()` with another such input for the fix proofs, where it has none of its own."""
    body = body.strip() + "\n"
    if "def xport_example" not in body:
        body += f"\n\ndef xport_example():\n    return {_LAST_MODULE.findall(body)[-1]}(), (torch.randn(2, 3),)\n"
    if "def xport_inputs" not in body:
        body += "\n\ndef xport_inputs():\n    return [(torch.randn(2, 3),)]\n"
    return body


class Cases(list[Case]):
    """A batch's programs, each written as its body under the batch's imports: `stdlib`'s lines, then
    torch, `nn` and `F`; `complete` finishes a body (`exporting_last_module` adds the example)."""

    def __init__(self, stdlib: str, complete: Callable[[str], str] = lambda body: body.strip() + "\n") -> None:
        super().__init__()
        self.header = f"{stdlib.strip()}\n\n{_TORCH_IMPORTS}" if stdlib.strip() else _TORCH_IMPORTS
        self.complete = complete

    def case(self, name: str, non_strict: str | None, strict: str | None, body: str) -> None:
        """Add a program with the exception type each mode's export raised on torch 2.13 (None: exports)."""
        self.append(Case(name, non_strict, strict, self.header + "\n" + self.complete(body)))


_SHAPES_HEADER = """
import math
import torch
import torch.nn.functional as F
from torch.export import Dim, ShapesCollection, dims
"""


@dataclass(frozen=True)
class Program:
    """One model file `model.py` of a package (beside `blocks.py` when `block` is given), whose
    `xport_example()` returns the model, its args and `dynamic_shapes`."""

    name: str
    body: str
    args: str
    shapes: str
    #: measured on torch 2.13.0: export fails (in both modes, unless `strict_fails` says otherwise)
    fails: bool
    params: str = "x"
    #: statements of `xport_example()` before its return
    prelude: str = ""
    #: statements of `__init__` after `super().__init__()`
    init: str = ""
    strict_fails: bool | None = None
    #: module-level definitions before the model class
    top: str = ""
    #: the source of `blocks.py`, which the model file imports from (`from .blocks import Block`)
    block: str = ""
    #: methods of the model class after `forward`
    methods: str = ""
    #: the failure is a constraint violation (False: a higher-order op's contract, or another error)
    violation: bool = True
    #: the package's name starts with it, so no two batches share an imported name (`ProgramBatch` sets it)
    prefix: str = ""
    #: the example's keyword inputs, a dict display ("": none)
    kwargs: str = ""

    def fails_in(self, mode: Mode) -> bool:
        return self.strict_fails if mode is Mode.STRICT and self.strict_fails is not None else self.fails

    def source(self) -> str:
        body = textwrap.indent(textwrap.dedent(self.body).strip(), " " * 8)
        prelude = textwrap.indent(textwrap.dedent(self.prelude).strip(), " " * 4) or "    pass"
        init = textwrap.indent(textwrap.dedent(self.init).strip(), " " * 8)
        constructor = f"    def __init__(self):\n        super().__init__()\n{init}\n" if init else ""
        top = textwrap.dedent(self.top).strip()
        imported = "from .blocks import Block\n" if self.block else ""
        methods = "\n" + textwrap.indent(textwrap.dedent(self.methods).strip(), " " * 4) + "\n" if self.methods else ""
        kwargs = f'"kwargs": {self.kwargs}, ' if self.kwargs else ""
        return _SHAPES_HEADER + imported + (f"\n{top}\n\n" if top else "\n\n") + (
            f"class M(torch.nn.Module):\n{constructor}    def forward(self, {self.params}):\n{body}\n{methods}\n\n"
            f"def xport_example():\n{prelude}\n"
            f'    return {{"model": M(), "args": {self.args}, {kwargs}"dynamic_shapes": {self.shapes}}}\n'
        )

    def write(self, folder: Path) -> Path:
        """The package holding the program, under `folder`, with a name of its own."""
        if not self.prefix:
            raise ValueError(f"{self.name}: a program's package needs its batch's prefix")
        package = folder / f"{self.prefix}_{self.name.replace('-', '_')}"
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text("")
        (package / "model.py").write_text(self.source())
        if self.block:
            (package / "blocks.py").write_text("import torch\n\n\n" + textwrap.dedent(self.block).strip() + "\n")
        return package

    def export_failure(self, mode: Mode, folder: Path) -> str:
        """torch's outcome on the package's `xport_example()`: "" (exported) or `Type: message`."""
        package = self.write(folder)

        def made() -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
            given = importlib.import_module(f"{package.name}.model").xport_example()
            return given["model"], given["args"], {"kwargs": given.get("kwargs"), "dynamic_shapes": given["dynamic_shapes"]}

        sys.path.insert(0, str(folder))
        try:
            return export_failure(made, mode)
        finally:
            sys.path.remove(str(folder))

    def errors(self, mode: Mode, folder: Path) -> list[str]:
        """xport-lint's errors over the program: its one file, or its package (the model file and
        its blocks) through the project index."""
        config = every_rule(mode)
        if not self.block:
            return source_errors(self.source(), config)
        checked = check_project(discover([str(self.write(folder))], ()), config, None, jobs=1)
        return [f"{Path(r.path).name}:{f.span.start.line} {f.code} {f.message}" for r in checked.results
                for f in r.findings if f.severity is Severity.ERROR]


# -- the tests a batch runs -----------------------------------------------------------------------


def _expect(problem: str | None, known: str | None) -> None:
    """Pass when xport-lint agrees with torch; xfail a known miss, which must still be one."""
    if known is not None:
        assert problem is not None, f"listed in KNOWN_MISSES but now right: drop the entry ({known})"
        pytest.xfail(known)
    assert problem is None, problem


def _verdict_problem(errors: list[str], fails: object, mode: Mode) -> str | None:
    """What differs between xport-lint's errors and torch's outcome (`fails`: truthy if export fails)."""
    if bool(errors) == bool(fails):
        return None
    if errors:
        return f"an error on a program that exports in {mode.value}: {errors}"
    return f"no error on a program that fails {mode.value} export ({fails})"


def _by_mode(programs: Iterable[Any]) -> list[Any]:
    return [pytest.param(p, m, id=f"{p.name}-{m.value}") for p in programs for m in Mode]


def large_with_near_misses(
    programs: list[Case] | list[Program] | list[Case | Program], at_least: int, exporting_share: int, modes: tuple[Mode, ...]
) -> Callable[[], None]:
    """The test that a batch is large, that at least 1/`exporting_share` of it exports in every one of
    `modes` (near misses of the failing programs, where a false error would show), and that its
    names are unique."""

    def test() -> None:
        assert len(programs) >= at_least
        assert sum(not any(p.fails_in(m) for m in modes) for p in programs) >= len(programs) // exporting_share
        assert len({p.name for p in programs}) == len(programs)

    return test


def cases_and_projects(
    prefix: str, cases: list[Case], projects: list[Program], known_misses: KnownMisses, no_fix: dict[str, str]
) -> tuple[CaseBatch, ProgramBatch]:
    """The two batches of a file holding one-file `cases` and two-file `projects` under one
    `known_misses`: each gets the entries naming its own programs."""
    case_names = {c.name for c in cases}
    return (
        CaseBatch(cases, {k: v for k, v in known_misses.items() if k[0] in case_names}, no_fix),
        ProgramBatch(prefix, {"projects": projects}, {k: v for k, v in known_misses.items() if k[0] not in case_names}),
    )


class CaseBatch:
    """The tests of a batch of `Case`s."""

    def __init__(self, cases: list[Case], known_misses: KnownMisses, no_fix: dict[str, str] | None = None) -> None:
        self.cases, self.known_misses, self.no_fix = cases, known_misses, no_fix or {}

    def torch_says_what_is_recorded(self) -> Callable[..., None]:
        @pytest.mark.parametrize(("case", "mode"), _by_mode(self.cases))
        def test(case: Case, mode: Mode, tmp_path: Path) -> None:
            """torch still raises the recorded exception type (or exports) on the program's example."""
            assert case.export_failure(mode, tmp_path) == case.fails_in(mode)

        return test

    def an_error_exactly_where_export_fails(self) -> Callable[..., None]:
        known_misses = self.known_misses

        @pytest.mark.parametrize(("case", "mode"), _by_mode(self.cases))
        def test(case: Case, mode: Mode) -> None:
            """Static, against the recorded outcome: an error iff export fails, but for a known miss."""
            _expect(_verdict_problem(case.errors(mode), case.fails_in(mode), mode), known_misses.get((case.name, mode)))

        return test

    def recall_and_false_errors(self) -> Callable[[], None]:
        cases, known_misses = self.cases, self.known_misses

        def test() -> None:
            """Static only, over the recorded outcomes: the figures of the batch, printed; the known
            misses are the only programs where xport-lint's verdict differs from torch's."""
            for mode in Mode:
                flagged = {c.name for c in cases if c.errors(mode)}
                failing = [c.name for c in cases if c.fails_in(mode)]
                false = sorted(flagged - set(failing))
                print(f"{mode.value}: {len(flagged & set(failing))}/{len(failing)} failing programs with an error, "
                      f"{len(false)}/{len(cases) - len(failing)} exporting programs with one {false}")
                wrong = {c.name for c in cases if (c.name in flagged) != bool(c.fails_in(mode))}
                assert wrong == {name for name, m in known_misses if m is mode}

        return test

    def a_fix_offered_proves_out(self) -> Callable[..., None]:
        no_fix, known_misses = self.no_fix, self.known_misses

        @pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in self.cases if c.non_strict])
        def test(case: Case) -> None:
            """`--fix --unsafe-fixes` (non-strict, the default) on each program that fails non-strict
            export: the result exports and equals eager, or no fix is offered and `NO_FIX` (or the
            known miss) says why; never a fix that fails."""
            status, detail = prove_snippet(case.source)
            if case.name in no_fix or (case.name, Mode.NON_STRICT) in known_misses:
                assert status in ("no fix", "missed"), f"{status}: {detail}"
            else:
                assert status == "proven", f"{status}: {detail}"

        return test


class ProgramBatch:
    """The tests of a batch of `Program`s: `prefix` starts the name of every package the batch
    writes (one per batch: a package imported once stays in `sys.modules`); `sets` maps a label to
    its programs (each set's figures are printed); `pinned` programs are checked but counted in no
    set's figures."""

    def __init__(
        self, prefix: str, sets: dict[str, list[Program]], known_misses: KnownMisses, pinned: Iterable[Program] = ()
    ) -> None:
        self.sets = {label: [replace(p, prefix=prefix) for p in programs] for label, programs in sets.items()}
        self.pinned = [replace(p, prefix=prefix) for p in pinned]
        self.known_misses = known_misses

    def error_exactly_where_export_fails(self) -> Callable[..., None]:
        known_misses = self.known_misses

        @pytest.mark.parametrize(("program", "mode"), _by_mode([*(p for s in self.sets.values() for p in s), *self.pinned]))
        def test(program: Program, mode: Mode, tmp_path: Path) -> None:
            """torch still gives the measured outcome (a constraint violation where one is recorded),
            and xport-lint reports an error iff it fails, but for a known miss."""
            failed = program.export_failure(mode, tmp_path / "torch")
            assert bool(failed) == program.fails_in(mode), failed or "exports (the measured outcome says it fails)"
            if failed and program.violation:
                assert "Constraints violated" in failed or "ConstraintViolation" in failed, failed
            problem = _verdict_problem(program.errors(mode, tmp_path / "lint"), failed, mode)
            _expect(problem, known_misses.get((program.name, mode)))

        return test

    def recall_and_false_errors(self) -> Callable[[Path], None]:
        sets, known_misses = self.sets, self.known_misses

        def test(tmp_path: Path) -> None:
            """Static only (the outcomes are the measured ones): the figures per mode and set, printed;
            every program but the known misses gets the right verdict."""
            for mode in Mode:
                folder = tmp_path / mode.value
                wrong: set[str] = set()
                for label, programs in sets.items():
                    flagged = {p.name for p in programs if p.errors(mode, folder)}
                    violations = {p.name for p in programs if p.fails_in(mode) and p.violation}
                    others = {p.name for p in programs if p.fails_in(mode) and not p.violation}
                    exporting = {p.name for p in programs if not p.fails_in(mode)}
                    false = sorted(flagged & exporting)
                    print(f"{mode.value}, {label}: {len(flagged & violations)}/{len(violations)} constraint "
                          f"violations flagged, {len(flagged & others)}/{len(others)} other failures, "
                          f"{len(false)}/{len(exporting)} exporting programs with an error {false}")
                    wrong |= {p.name for p in programs if (p.name in flagged) != p.fails_in(mode)}
                assert wrong == {name for name, m in known_misses if m is mode}

        return test
