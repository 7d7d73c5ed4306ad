"""A module class another file's model code builds is a block of that model, as one its own file
builds: its `forward`'s arguments after the first come from the parent's call, not from an export's
example (`FileContext.blocks_elsewhere`, from `ModuleSummary.blocks`: calls in a module class, or
in a function of that file a module class calls). Before, neuralforecast's `FullAttention` (built
in the models' files) took its `attn_mask`, a mask object or None, for an example tensor: `self.mask_flag
and attn_mask` was a false XPT101 error; a reduced program with the parent passing None exports on
torch 2.13 in both modes. A data test of the first argument, or of a later one the parent fills
with a tensor, stays an error. A class a free function of another file builds (kornia's
`SigLip2Builder`) stays a model of its own. Each program's outcome is checked on torch in the same
test, both modes; the findings do not depend on the order of files."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.project import check_project

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_PREFIX = "builtacross"
_LINE = "(torch.randn(2, 4),)"
_SHAPES = '{"x": {0: Dim("b")}}'
#: a mask object or None, as neuralforecast's TriangularCausalMask: tested for truth, never data
_ATTEND = """
class Block(torch.nn.Module):
    def __init__(self, mask_flag=True):
        super().__init__()
        self.mask_flag = mask_flag

    def forward(self, x, attn_mask, scale=None):
        keep = attn_mask.mask if (self.mask_flag and attn_mask) else None
        return x * 2 if keep is None else x * keep
"""
_MAKE = """

def make_block():
    return Block()
"""
#: a data test of the first argument: export fails (both modes) wherever the block is built
_FIRST_DATA = """
class Block(torch.nn.Module):
    def forward(self, x, attn_mask=None):
        if x.sum() > 0:
            return x * 2
        return x
"""
#: a data test of a later argument the parent fills with a tensor
_LATER_DATA = """
class Block(torch.nn.Module):
    def forward(self, x, gate):
        if gate.sum() > 0:
            return x * 2
        return x
"""


def _project(name: str, init: str, body: str, fails: bool, block: str = _ATTEND, top: str = "",
             params: str = "x") -> Program:
    return Program(name, body, _LINE, _SHAPES, fails=fails, block=block, top=top, init=init, params=params,
                   violation=False)


PROGRAMS: list[Program] = [
    _project("passed-none", "self.block = Block()", "return self.block(x, None)", False),
    _project("passed-none-by-keyword", "self.block = Block(False)", "return self.block(x, attn_mask=None)", False),
    _project("module-import", "self.block = blocks.Block()", "return self.block(x, None)", False,
             top="from . import blocks"),
    _project("bound-first", "block = Block(mask_flag=True)\nself.block = block", "return self.block(x, None)", False),
    _project("built-by-a-helper", "self.block = make_block()", "return self.block(x, None)", False,
             top=_MAKE),
    _project("built-by-a-helper-of-blocks", "self.block = make_block()", "return self.block(x, None)", False,
             top="from .blocks import make_block", block=_ATTEND + _MAKE),
    _project("parent-optional", "self.block = Block()", "return self.block(x, mask)", False, params="x, mask=None"),
    # true errors beside them
    _project("first-argument-data", "self.block = Block()", "return self.block(x)", True, block=_FIRST_DATA),
    _project("later-argument-data", "self.block = Block()", "return self.block(x, x)", True, block=_LATER_DATA),
]

#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    ("built-by-a-helper-of-blocks", m): "the block's own file builds it in a factory another file's module "
    "calls: no other file builds the class, and the factory is no module class (not a submodule of its file either)"
    for m in Mode
}

BATCH = ProgramBatch(_PREFIX, {"projects": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()


_PARENT = """
import torch
from .attend import Block


class Parent{n}(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x, None)
"""


def test_findings_do_not_depend_on_the_order_of_files(tmp_path: Path) -> None:
    """The block's file and two files building it, under every order on the command line: no
    error on the block's truth test, the data test of its first argument flagged."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "attend.py").write_text(
        "import torch\n" + _ATTEND + "\n\nclass Checked(torch.nn.Module):\n    def forward(self, x):\n"
        "        if x.sum() > 0:\n            return x * 2\n        return x\n"
    )
    for n in (1, 2):
        (package / f"parent{n}.py").write_text(_PARENT.format(n=n))
    seen = []
    for order in itertools.permutations(["attend.py", "parent1.py", "parent2.py"]):
        checked = check_project([str(package / name) for name in order], Config(select=("ALL",)), None, jobs=1)
        seen.append(sorted(
            (Path(r.path).name, f.code, f.span.start.line) for r in checked.results for f in r.findings
            if f.severity is Severity.ERROR
        ))
    assert seen[0] == [("attend.py", "XPT101", 15)]
    assert all(found == seen[0] for found in seen), seen


def test_a_class_a_free_function_builds_stays_a_model(tmp_path: Path) -> None:
    """A builder file's free function (kornia's `SigLip2Builder`) builds the class for the user,
    who exports it with an example of their own: its later arguments may be tensors, so its
    truth test of one stays an error, whatever the order of files."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "attend.py").write_text("import torch\n" + _ATTEND)
    (package / "builder.py").write_text(
        "from .attend import Block\n\n\ndef build():\n    return Block()\n\n\n"
        "class Builder:\n    @staticmethod\n    def from_config():\n        return Block(mask_flag=True)\n"
    )
    seen = []
    for order in itertools.permutations(["attend.py", "builder.py"]):
        checked = check_project([str(package / name) for name in order], Config(select=("ALL",)), None, jobs=1)
        seen.append(sorted(
            (Path(r.path).name, f.code, f.span.start.line) for r in checked.results for f in r.findings
            if f.severity is Severity.ERROR
        ))
    assert seen[0] == [("attend.py", "XPT101", 9)]
    assert all(found == seen[0] for found in seen), seen
