"""A lambda kept on `self` by `__init__` that calls a function of another file (`from . import
helpers`, `from .helpers import count`): export traces that function wherever `forward` calls the
lambda, so the project index summarises it for the model's file (reach counts the lambda's calls
as the caller's) with what `forward` passes the lambda, and the lambda's result is what that
summary says: `helpers.count(t) > limit` of `count` returning `int(...)` is a number read from data
(XPT104, no fix: the lambda reads an `__init__` name), as in the same-file spellings of
tests/rules/test_kept_lambda_results.py. It was a tensor test (XPT101) whose `torch.cond` fix
failed non-strict export (measured on torch 2.13 with main at b5739fd).

Each spelling's torch outcome is measured in the same test, in both modes, and the findings are
the same in both file orders; the one fix offered (a lambda reading no `__init__` name, inlined)
is applied and proven: it exports in both modes and equals eager."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.truth.batches import every_rule
from tests.truth.harness import exports
from xport_lint.analyzers.fixes import apply_fixes
from xport_lint.analyzers.model import Finding, Mode, Severity
from xport_lint.analyzers.project import check_project

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

HELPERS = '''
import torch


def count(t):
    return int((t > 0).sum())


def _positives(t):
    return int((t > 0).sum())


def counted(t):
    return _positives(t)


def peak(t):
    return t.abs().max().item()


def scaled(t):
    return t * 2
'''


def model(imports: str, init: str, forward: str, methods: str = "") -> str:
    """A model file `A` of the package: its imports, `__init__`'s line after `super().__init__()`
    (with `limit=3, alpha=2.0` in scope), `forward`'s body and any methods before it."""
    return f'''
import torch
{imports}


class A(torch.nn.Module):
    def __init__(self, limit=3, alpha=2.0):
        super().__init__()
        {init}
{methods}
    def forward(self, x):
{forward}
'''


_TESTED = "        if self.many(x):\n            return x * 2\n        return x"

#: name -> (the model file, whether export fails (measured on torch 2.13: the same in both modes),
#: each error (file, code) in non-strict mode, in strict mode: `int(...)` fails non-strict where it
#: converts, in the helper's file; strict, at the test)
SPELLINGS: dict[str, tuple[str, bool, list[tuple[str, str]], list[tuple[str, str]]]] = {
    "module-imported-compared-with-an-init-name": (
        model("from . import helpers", "self.many = lambda t: helpers.count(t) > limit", _TESTED),
        True, [("helpers.py", "XPT203"), ("model.py", "XPT104")], [("model.py", "XPT104")],
    ),
    "function-imported-bound-to-a-name-first": (
        model("from .helpers import count", "self.many = lambda t: count(t) > limit",
              "        many = self.many(x)\n        if many:\n            return x * 2\n        return x"),
        True, [("helpers.py", "XPT203"), ("model.py", "XPT104")], [("model.py", "XPT104")],
    ),
    "item-times-an-init-name-negated": (
        model("from . import helpers", "self.peak = lambda t: helpers.peak(t) * alpha",
              "        if not self.peak(x) > 1.0:\n            return x * 2\n        return x"),
        True, [("model.py", "XPT104")], [("model.py", "XPT104")],
    ),
    "through-a-helper-of-the-other-file": (
        model("from . import helpers", "self.many = lambda t: helpers.counted(t) > limit", _TESTED),
        True, [("helpers.py", "XPT203"), ("model.py", "XPT104")], [("model.py", "XPT104")],
    ),
    "through-a-method-of-the-model": (
        model("from . import helpers", "self.many = lambda t: helpers.count(t) > limit",
              "        if self._crowded(x):\n            return x * 2\n        return x",
              "    def _crowded(self, x):\n        return self.many(x)\n"),
        True, [("helpers.py", "XPT203"), ("model.py", "XPT104")], [("model.py", "XPT104")],
    ),
    "reading-no-init-name": (
        model("from . import helpers", "self.many = lambda t: helpers.count(t) > 3", _TESTED),
        True, [("helpers.py", "XPT203"), ("model.py", "XPT104")], [("model.py", "XPT104")],
    ),
    "a-tensor-of-the-other-file-size-tested": (
        model("from . import helpers", "self.scale = lambda t: helpers.scaled(t) * alpha",
              "        h = self.scale(x)\n        if h.shape[0] > 1:\n            return h + 1\n        return h"),
        False, [], [],
    ),
}

#: spellings with a fix, proven below; every other failing one has none (the lambda reads an
#: `__init__` name: a call of it is never written in `forward`)
FIXED = {"reading-no-init-name"}


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    """The folder of the package `kept_lambda_pkg`, importable for the test and forgotten after it.
    Not named `pkg`: after a strict export of this package's `pkg.model`, one of another package of
    that name in the same process fails on dynamo's guards (`module 'pkg.model' has no attribute`,
    tests/truth/test_reachability.py; `torch._dynamo.reset()` does not clear it)."""
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "kept_lambda_pkg" or n.startswith("kept_lambda_pkg.")]:
            del sys.modules[name]


def _write_package(folder: Path, files: dict[str, str]) -> Path:
    """`files` as the package `kept_lambda_pkg` in `folder`."""
    package = folder / "kept_lambda_pkg"
    package.mkdir(parents=True)
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return package


def _errors(folder: Path, mode: Mode, order: tuple[str, ...]) -> list[tuple[str, Finding]]:
    """(file, finding) of each error of the package checked as a project, its files in `order`."""
    checked = check_project([str(folder / name) for name in order], every_rule(mode), None, jobs=1)
    return sorted(((Path(r.path).name, f) for r in checked.results for f in r.findings if f.severity is Severity.ERROR),
                  key=lambda found: (found[0], found[1].span.start.line, found[1].code))


def _exports(strict: bool) -> bool:
    importlib.invalidate_caches()
    return exports(importlib.import_module("kept_lambda_pkg.model").A(), (torch.randn(2, 3),), strict)


@pytest.mark.parametrize("name", list(SPELLINGS))
def test_the_lambdas_result_is_what_the_other_files_function_returns(package: Path, name: str) -> None:
    source, fails, non_strict, strict = SPELLINGS[name]
    folder = _write_package(package, {"__init__.py": "", "helpers.py": HELPERS, "model.py": source})
    assert (not _exports(strict=False), not _exports(strict=True)) == (fails, fails)
    for mode, expected in ((Mode.NON_STRICT, non_strict), (Mode.STRICT, strict)):
        orders = [("__init__.py", "helpers.py", "model.py"), ("__init__.py", "model.py", "helpers.py")]
        found = [[(file, f.code, f.fix is not None) for file, f in _errors(folder, mode, order)] for order in orders]
        assert found[0] == found[1], "the findings depend on the order of the files"
        assert [(file, code) for file, code, _ in found[0]] == expected
        assert any(fixed for _, _, fixed in found[0]) == (name in FIXED)


@pytest.mark.parametrize("name", sorted(FIXED))
def test_the_fix_offered_proves_out(package: Path, name: str) -> None:
    folder = _write_package(package, {"__init__.py": "", "helpers.py": HELPERS, "model.py": SPELLINGS[name][0]})
    written = folder / "model.py"
    findings = [f for file, f in _errors(folder, Mode.NON_STRICT, ("__init__.py", "helpers.py", "model.py"))
                if file == "model.py"]
    written.write_text(apply_fixes(written.read_text(), findings, unsafe=True))
    importlib.invalidate_caches()
    fixed = importlib.import_module("kept_lambda_pkg.model").A()
    for strict in (False, True):
        program = torch.export.export(fixed, (torch.randn(2, 3),), strict=strict).module()
        for x in (torch.randn(2, 3), torch.ones(2, 3), -torch.ones(2, 3)):
            assert torch.equal(program(x), fixed(x))
