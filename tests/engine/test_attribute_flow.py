"""A read of `self.x` right after `self.x = <static size>` in the same function holds that size
(issue 23, held-out set 1: ultralytics `tal.py:91`, `self.n_max_boxes = gt_bboxes.shape[1]` then
`if self.n_max_boxes == 0:`). The function also writes `self.n_max_boxes` from `.tolist()` on an
out-of-memory recovery path; joined with that write, the read looked data-dependent: a false error.
Spellings: bound to a size, a negated test, tuple unpacking (pairwise and from `.shape`), an
augmented assignment, a helper in the same file and in another file, a read inside a nested `if`.
The near misses keep the join: a method call between the write and the read may rewrite it, and
`with ... as self.n` rebinds it. Measured on torch 2.13: every spelling exports in both modes; each
near miss fails in both."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.project import check_project

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

MODULE = '''
import torch
{imports}

def size_of(t):
    return t.shape[1]


class Total:
    def __init__(self, mask):
        self.mask = mask

    def __enter__(self):
        return int(self.mask.sum())

    def __exit__(self, *exc):
        return False


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 0
        self.b = 0

    def forward(self, x, mask):
{body}
        try:
            return x * self.n
        except RuntimeError:
            pass
        for self.b, self.n in enumerate(mask.amax(1).tolist()):
            x = x + self.n
        return x

    def refresh(self, mask):
        self.n = int(mask.sum())
'''
SPELLINGS = {
    "bound": "self.n = x.shape[1]\nif self.n == 0:\n    return x * 2",
    "negated": "self.n = x.shape[1]\nif not self.n:\n    return x * 2",
    "tuple": "self.b, self.n = x.shape[0], x.shape[1]\nif self.n == 0:\n    return x * 2",
    "tuple-of-shape": "self.b, self.n = x.shape\nif self.n == 0 or self.b == 0:\n    return x * 2",
    "augmented": "self.n = x.shape[1]\nself.n += 1\nif self.n == 1:\n    return x * 2",
    "helper": "self.n = size_of(x)\nif self.n == 0:\n    return x * 2",
    "helper-in-another-file": "self.n = sizes.second(x)\nif self.n == 0:\n    return x * 2",
    "nested-if": "self.n = x.shape[1]\nif x.dim() == 2:\n    if self.n == 0:\n        return x * 2",
}
NEAR_MISSES = {
    "method-call": "self.n = x.shape[1]\nself.refresh(mask)\nif self.n == 0:\n    return x * 2",
    "with-as": "self.n = x.shape[1]\nwith Total(mask) as self.n:\n    if self.n == 0:\n        return x * 2",
}
SIZES = "def second(t):\n    return t.shape[1]\n"


def source_of(body: str) -> str:
    imports = "import sizes\n" if "sizes." in body else ""
    return MODULE.format(imports=imports, body=textwrap.indent(body, " " * 8)).lstrip("\n")


def errors(source: str, folder: Path, mode: Mode) -> list[int]:
    """Error lines of `source`, checked as `model.py` beside `sizes.py` (the other file's helper)."""
    (folder / "sizes.py").write_text(SIZES)
    (folder / "model.py").write_text(source)
    checked = check_project(discover([str(folder)], ()), Config(strict=mode is Mode.STRICT), None, jobs=1)
    return [f.span.start.line for r in checked.results if Path(r.path).name == "model.py"
            for f in r.findings if f.severity is Severity.ERROR]


def exports(source: str, folder: Path, strict: bool) -> bool:
    (folder / "sizes.py").write_text(SIZES)
    sys.path.insert(0, str(folder))
    try:
        model = load(source, folder).M().eval()
        torch.export.export(model, (torch.randn(2, 4), torch.ones(2, 4)), strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("sizes", None)
    return True


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_read_right_after_a_size_write_is_that_size(spelling: str, tmp_path: Path) -> None:
    source = source_of(SPELLINGS[spelling])
    for mode in Mode:
        assert errors(source, tmp_path, mode) == []
    for strict in (False, True):
        assert exports(source, tmp_path, strict)


@pytest.mark.parametrize("near_miss", list(NEAR_MISSES))
def test_a_rewrite_between_write_and_read_keeps_the_join(near_miss: str, tmp_path: Path) -> None:
    """A method call that may rewrite it, or `with ... as self.n` rebinding it."""
    source = source_of(NEAR_MISSES[near_miss])
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.strip() == "if self.n == 0:")
    for mode in Mode:
        assert line in errors(source, tmp_path, mode)
    for strict in (False, True):
        assert not exports(source, tmp_path, strict)

