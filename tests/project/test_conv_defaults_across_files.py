"""A convolution's kernel read from its block's `__init__` defaults or its configuration's field
defaults (XPT307) holds only where no other file of the project builds the block (or the
configuration) with another value: the file that builds it records what its calls pass
(`ModuleSummary.built`), the project index joins that per class (`FileContext.built`). Before, a
block of `blocks.py` built `Stem(kernel_size=3)` in `model.py` was judged by its default 5: a
false error under `Dim("t", min=4)`, which exports on torch 2.13 in both modes. Each program's
outcome is checked on torch in the same test, both modes; the findings are the same whatever the
order of the files."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.project import check_project

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PREFIX = "convacross"
_LINE = "(torch.randn(2, 4, 16),)"
_STEM = """
class Block(torch.nn.Module):
    def forward(self, x):
        return x


class Stem(torch.nn.Module):
    def __init__(self, in_channels=4, kernel_size=5):
        super().__init__()
        self.conv = torch.nn.Conv1d(in_channels, 8, kernel_size)

    def forward(self, x):
        return torch.relu(self.conv(x))
"""
_SMALL_STEM = """

def small_stem():
    return Stem(kernel_size=3)
"""
_POOLED = """
class Block(torch.nn.Module):
    def forward(self, x):
        return x


class Pool(torch.nn.Module):
    def __init__(self, kernel_size=2):
        super().__init__()
        self.pool = torch.nn.AvgPool1d(kernel_size)

    def forward(self, x):
        return self.pool(x)
"""
_CONFIGURED = """
from dataclasses import dataclass


class Block(torch.nn.Module):
    def forward(self, x):
        return x


@dataclass
class StemConfig:
    kernel_size: int = 7
    stride: int = 2


class Stem(torch.nn.Module):
    def __init__(self, config: StemConfig = StemConfig()):
        super().__init__()
        self.config = config
        self.conv = torch.nn.Conv1d(4, 8, self.config.kernel_size, stride=config.stride)

    def forward(self, x):
        return self.conv(x)
"""


def _project(name: str, top: str, init: str, low: int, fails: bool, block: str = _STEM,
             strict_fails: bool | None = None) -> Program:
    return Program(name, "return self.stem(x)", _LINE, f'{{"x": {{2: Dim("t", min={low})}}}}', fails=fails,
                   strict_fails=strict_fails, block=block, top=top, init=init)


PROGRAMS: list[Program] = [
    # model.py builds the block of blocks.py with a smaller kernel: export runs it, nothing is said
    _project("built-smaller", "from .blocks import Stem", "self.stem = Stem(kernel_size=3)", 4, False),
    _project("built-smaller-module-import", "from . import blocks", "self.stem = blocks.Stem(kernel_size=3)", 4,
             False),
    _project("built-smaller-absolute-import", f"import {_PREFIX}_built_smaller_absolute_import.blocks as b",
             "self.stem = b.Stem(kernel_size=3)", 4, False),
    _project("built-smaller-by-position", "from .blocks import Stem", "self.stem = Stem(4, 3)", 4, False),
    _project("built-smaller-bound-first", "from .blocks import Stem", "stem = Stem(kernel_size=3)\nself.stem = stem",
             4, False),
    _project("built-smaller-unpacked", "from .blocks import Stem", "self.stem, self.scale = Stem(kernel_size=3), 2",
             4, False),
    _project("built-smaller-by-helper", "from .blocks import Stem" + _SMALL_STEM, "self.stem = small_stem()", 4,
             False),
    _project("built-smaller-by-helper-of-blocks", "from .blocks import small_stem", "self.stem = small_stem()", 4,
             False, _STEM + _SMALL_STEM),
    # built with its default, given or not: the default decides
    _project("built-with-defaults", "from .blocks import Stem", "self.stem = Stem()", 4, True),
    _project("built-with-the-default-literal", "from .blocks import Stem", "self.stem = Stem(kernel_size=5)", 4, True),
    _project("built-larger", "from .blocks import Stem", "self.stem = Stem(kernel_size=7)", 6, True),
    # the configuration of blocks.py built in model.py with smaller fields
    _project("config-built-smaller", "from .blocks import Stem, StemConfig",
             "self.stem = Stem(StemConfig(kernel_size=3, stride=1))", 4, False, _CONFIGURED),
    _project("config-built-bound-first", "from . import blocks",
             "config = blocks.StemConfig(kernel_size=3, stride=1)\nself.stem = blocks.Stem(config)", 4, False,
             _CONFIGURED),
    _project("config-built-by-position", "from .blocks import Stem, StemConfig", "self.stem = Stem(StemConfig(3, 1))",
             4, False, _CONFIGURED),
    _project("config-defaults", "from .blocks import Stem", "self.stem = Stem()", 6, True, _CONFIGURED),
    # an average pool of blocks.py: 1 long at the low end by its default fails non-strict export only
    _project("pool-defaults", "from .blocks import Pool", "self.stem = Pool()", 2, True, _POOLED, strict_fails=False),
    _project("pool-built-smaller", "from .blocks import Pool", "self.stem = Pool(kernel_size=1)", 2, False, _POOLED),
]

#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    ("built-larger", m): "another file's literal differs from the default: unknown which the export builds"
    for m in Mode
}

BATCH = ProgramBatch(_PREFIX, {"projects": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()


_MODEL = """
import torch
from torch.export import Dim

{imports}


class {name}(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = {built}

    def forward(self, x):
        return self.stem(x)


def xport_example():
    return {{"model": {name}(), "args": {line}, "dynamic_shapes": {{"x": {{2: Dim("t", min=4)}}}}}}
"""


def _findings_in_every_order(root: Path, files: dict[str, str]) -> list[list[tuple[str, str, int]]]:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text).lstrip("\n"))
    seen = []
    for order in itertools.permutations(sorted(files)):
        checked = check_project([str(package / n) for n in order], Config(select=("ALL",)), None, jobs=1)
        seen.append(sorted(
            (Path(r.path).name, f.code, f.span.start.line) for r in checked.results for f in r.findings
            if f.severity is Severity.ERROR
        ))
    return seen


def _model(name: str, imports: str, built: str) -> str:
    return _MODEL.format(name=name, imports=imports, built=built, line=_LINE)


@pytest.mark.parametrize(("second", "expected"), [
    # another file builds it smaller (the programs `built-smaller*`, which export): nothing
    ("blocks.Stem(4, 3)", []),
    # every other file passes the default (`built-with-the-default-literal`, which fails): the error
    ("blocks.Stem(kernel_size=5)", [("blocks.py", "XPT307", 14)]),
])
def test_findings_do_not_depend_on_the_order_of_files(second: str, expected: list[tuple[str, str, int]],
                                                       tmp_path: Path) -> None:
    """Three files (the block, a model building it with its defaults or 3, another model
    building it as `second`) under every order on the command line: the same findings."""
    first = "Stem()" if expected else "Stem(kernel_size=3)"
    seen = _findings_in_every_order(tmp_path, {
        "blocks.py": "import torch\n" + _STEM,
        "model_a.py": _model("ModelA", "from .blocks import Stem", first),
        "model_b.py": _model("ModelB", "from . import blocks", second),
    })
    assert seen[0] == expected
    assert all(found == seen[0] for found in seen), seen
