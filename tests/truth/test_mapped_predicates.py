"""`map(f, items)` is what `f` returns for each item: `all(map(exists, (a, b)))` of `def
exists(v): return v is not None` tests Python bools, whatever the items are (audiolm-pytorch's
`assert not all(map(exists, (raw_wave, ..., coarse_token_ids)))`). It was read as a tensor (the
items are), so `all()` of it read data: a false error. Spellings: a free helper, the items bound
to a name first, `torch.is_tensor`, a lambda, a method; in an `assert`, an `if` and `any()`. The
near miss keeps its error: a lambda that compares each item's data. Measured on torch 2.13: every
spelling exports in both modes; the near miss fails in both."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import exports as export_runs
from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Mode, Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

MODULE = '''
import torch


def exists(v):
    return v is not None


class M(torch.nn.Module):
    def present(self, v):
        return v is not None

    def forward(self, x, mask=None):
{body}
        return x
'''
SPELLINGS = {
    "assert-not-all": "        assert not all(map(exists, (x, mask)))",
    "if-all": "        if all(map(exists, (x, mask))):\n            x = x * 2",
    "items-bound-first": "        inputs = (x, mask)\n        if any(map(exists, inputs)):\n            x = x + 1",
    "is-tensor": "        if all(map(torch.is_tensor, [x, mask])):\n            x = x * 2",
    "lambda": "        if not all(map(lambda t: t is not None, (x, mask))):\n            x = x - 1",
    "method": "        assert any(map(self.present, (x, mask)))",
}
NEAR_MISS = "        if all(map(lambda t: t.sum() > 0, (x, x))):\n            x = x * 2"


def source_of(body: str) -> str:
    return MODULE.format(body=body).lstrip("\n")


def errors(source: str, mode: Mode) -> list[int]:
    found = check_source(source, "m.py", Config(strict=mode is Mode.STRICT))
    return [f.span.start.line for f in found if f.severity is Severity.ERROR]


def exports(source: str, folder: Path, strict: bool) -> bool:
    return export_runs(load(source, folder).M().eval(), (torch.randn(2, 4),), strict)


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_mapped_python_predicate_is_no_data_read(spelling: str, tmp_path: Path) -> None:
    source = source_of(SPELLINGS[spelling])
    for mode in Mode:
        assert errors(source, mode) == []
    for strict in (False, True):
        assert exports(source, tmp_path, strict)


def test_a_mapped_data_comparison_stays_an_error(tmp_path: Path) -> None:
    source = source_of(NEAR_MISS)
    line = source.splitlines().index(NEAR_MISS.splitlines()[0]) + 1
    for mode in Mode:
        assert errors(source, mode) == [line]
    for strict in (False, True):
        assert not exports(source, tmp_path, strict)
